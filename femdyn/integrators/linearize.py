"""The linear plant of a model at a static equilibrium: state-space (A, B, C, D) with inputs and outputs,
its poles, DC gains, transmission zeros and frequency response.

Linearisation (as ``modes``, with the damping kept). At rest at a pose q with the multipliers lam of
the static equilibrium (``statics``), the equations of motion M q'' + Gbar^T lam = F(q, v, t) + Bu u,
Phi(q, t) = 0 give for q + x, lam + mu and small inputs u to first order

    M x'' + C x' + K x + Gbar^T mu = Bu u,    G x = 0,                                         (1)

K = -dF/dq + d(Gbar^T lam)/dq the tangent stiffness of the static residual (``SaddleSystem.static``),
C = -dF/dv the damping matrix at v = 0 (the bodies' material damping, ``forces.viscous``, and the
spring-dampers), Gbar^T the force directions of the active rows (the Jacobian's for the joints, the
Boolean input matrix B for servo rows held: their inputs act along B, 000 eq. 84) and G the active
Jacobian. The input matrix Bu has one column per input: a unit generalised force on a joint coordinate
(a torque on an angle, a force on a slide), or the generalised force C(X)^T e_a of a unit world force
along axis a at a material point X (``point_rows``). Outputs are deviations from their values at the
equilibrium, linear in x and mu: a joint coordinate or a world component of a material point's position
(rows Cq on x: ``coordinate_row``, ``point_rows``), or a component of a joint's reaction on one of its
bodies (``model.reactions``; rows (Cq, Cl) on x and on the multipliers, ``reaction_rows``).

(1) is the descriptor form, E z' = A_d z + B_d u, y = C_d z, with z = (x, x', mu):

    E = diag(I, M, 0),  A_d = [[0, I, 0], [-K, -C, -Gbar^T], [G, 0, 0]],  B_d = (0, Bu, 0),  C_d = (Cq, 0, Cl).

The minimal first-order ODE eliminates the constraints by null-space bases: x = Z y with Z an
orthonormal basis of null(G) (the motions the constraints allow), and the equations tested with W, an
orthonormal basis of null(Gbar), the directions on which the constraint forces do no work (W = Z where
Gbar = G; with held servos whose inputs are not collocated W spans the zero dynamics' test space of
[Blajer2004], and W^T M Z is not symmetric):

    (W^T M Z) y'' + (W^T C Z) y' + (W^T K Z) y = W^T Bu u,
    A = [[0, I], [-Mr^-1 Kr, -Mr^-1 Cr]],  B = [[0], [Mr^-1 W^T Bu]],

the state (y, y'), 2 (n - m) long. The multipliers follow from (1) with x'' = Z y'': Gbar^T mu = r,
r = Bu u - M Z y'' - C Z y' - K Z y, which lies in the range of Gbar^T (W^T r = 0), so
mu = (Gbar Gbar^T)^-1 Gbar r exactly; the outputs y = Cq x + Cl mu are then C (y, y') + D u, with a
feedthrough D where a reaction responds to the input at once. Both bases come from the SVD of the dense
G (LAPACK): for models of up to some thousand coordinates. Mr = W^T M Z must be regular: a direction of T
without mass (which no femdyn model has, ``modes``) is refused.

About a motion (``motion``: a spinning link, a mechanism moving along a path) the same holds in the
coordinates carried along with the motion's tangent space, with K and C replaced by
K + C Lambda + M (Lambda' + Lambda^2) and C + 2 M Lambda (``motion`` eq. 3: the centrifugal and
gyroscopic terms), K and C taken at the motion's velocity and multipliers; the descriptor form is that of
the carried coordinates at the state's time, whose constraint G x = 0 the transport keeps constant.

Poles are the eigenvalues s of A (frequency |s|/(2 pi) [Hz], damping ratio -Re s/|s|); the DC gains
-C A^-1 B + D (where A is singular, a free motion: the limit at s = 0 for the outputs blind to it,
``LinearPlant.dc_gains``, infinite for the others); the transmission zeros of the pair
(output i, input j) the finite generalised eigenvalues of the Rosenbrock pencil
([[A, b_j], [c_i, d_ij]], diag(I, 0)) ([EmamiNaeini1982]); the frequency response
H(i w) = C (i w I - A)^-1 B + D.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..model.reactions import JointReactions
from .modes import ModesError, path_dependent_forces, static_multipliers, unbalanced
from .motion import carried, tangents
from .saddle import SaddleSystem

MASSLESS = 1e-12  # a singular value of W^T M Z below this share of the largest: a direction without mass
RANK = 1e-10  # singular values of G below this share of the largest: dependent rows (a singular pose)
INFINITE = 1e12  # a generalised eigenvalue of the Rosenbrock pencil beyond this times |A|: at infinity
ZERO_POLE = 1e2  # eigenvalues of A below this times sqrt(eps |A|): a free motion's (``dc_gains``)
UNSEEN = 1e-6  # an output row below this share of its largest on the free motions: blind to them


class LinearizeError(ModesError):
    """A linearisation that is refused (off the constraints, not an equilibrium, friction, no mass)."""


@dataclass(frozen=True)
class LinearPlant:
    """The linear plant of a model at (q, lam, t) (module docstring): the minimal state space ``A, B, C,
    D``, the descriptor form ``E, A_d, B_d, C_d, D_d``, the basis ``Z`` (n, k) of the states' coordinates
    (x = Z y, the state (y, y')), the names of states, inputs and outputs with the units of the inputs
    and outputs, and the pose."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    E: np.ndarray
    A_d: np.ndarray
    B_d: np.ndarray
    C_d: np.ndarray
    D_d: np.ndarray
    Z: np.ndarray
    states: tuple
    inputs: tuple
    outputs: tuple
    input_units: tuple
    output_units: tuple
    q: np.ndarray
    lam: np.ndarray
    t: float
    servos: str

    def poles(self):
        """The eigenvalues of A, by frequency |s| then imaginary part."""
        s = np.linalg.eigvals(self.A)
        return s[np.lexsort((s.imag, np.abs(s)))]

    def dc_gains(self):
        """-C A^-1 B + D (outputs x inputs). Where A is singular (a free motion), the limit of H(s) at s = 0
        for the outputs that do not see the free motions (a deviation from the rigid mechanism): with
        the real Schur form A = U [[T11, T12], [0, T22]] U^T, T11 holding the eigenvalues below ZERO_POLE
        sqrt(eps |A|) (a free motion's double pole, a pair of about sqrt(eps |A|), ``poles``), an output row
        with C U_1 = 0 has H(s) = C U_2 (s I - T22)^-1 U_2^T B + D; infinite (inf) for the others. A is
        balanced first (LAPACK's gebal, a diagonal similarity of powers of 2): its entries span eps^-1
        (the fastest modes' omega^2 against its identity block), which otherwise costs the free motions'
        invariant subspace, and the gains, digits (4e-6 of them on the 3-PRR, 1e-10 balanced)."""
        try:
            with np.errstate(all="ignore"):
                gains = -self.C @ np.linalg.solve(self.A, self.B) + self.D
            if np.linalg.cond(self.A) > 1.0 / np.finfo(float).eps:
                raise np.linalg.LinAlgError
            return gains
        except np.linalg.LinAlgError:
            zero = ZERO_POLE * np.sqrt(np.finfo(float).eps * np.abs(self.A).max())
            A, (scale, _) = scipy.linalg.matrix_balance(self.A, permute=False, separate=True)  # exact: powers of 2
            T, U, k = scipy.linalg.schur(A, sort=lambda re, im: np.hypot(re, im) <= zero)
            C, B = (self.C * scale) @ U, U.T @ (self.B / scale[:, None])
            blind = np.abs(C[:, :k]).max(axis=1, initial=0.0) <= UNSEEN * np.abs(C).max(axis=1, initial=0.0)
            gains = np.full(self.D.shape, np.inf)
            gains[blind] = (self.D - C[:, k:] @ np.linalg.solve(T[k:, k:], B[k:]))[blind]
            return gains

    def zeros(self, output, input):
        """The transmission zeros of the pair (output index, input index), by frequency: the finite
        generalised eigenvalues of the Rosenbrock pencil (module docstring)."""
        k = self.A.shape[0]
        P = np.block([[self.A, self.B[:, [input]]], [self.C[[output]], self.D[[output]][:, [input]]]])
        Q = np.zeros_like(P)
        Q[:k, :k] = np.eye(k)
        alpha, beta = scipy.linalg.eig(P, Q, right=False, homogeneous_eigvals=True)
        scale = 1.0 + np.abs(self.A).max(initial=0.0)
        finite = np.abs(beta) * INFINITE * scale > np.abs(alpha)
        s = alpha[finite] / beta[finite]
        return s[np.lexsort((s.imag, np.abs(s)))]

    def response(self, omega):
        """H(i omega) (len(omega), outputs, inputs) for angular frequencies omega [rad/s]."""
        k = self.A.shape[0]
        return np.array([self.C @ np.linalg.solve(1j * w * np.eye(k) - self.A, self.B) + self.D for w in omega])


def frequency_and_damping(s):
    """Frequency |s| / (2 pi) [Hz] and damping ratio -Re s / |s| of the poles or zeros s (NaN ratio at
    s = 0)."""
    s = np.asarray(s, dtype=complex)
    magnitude = np.abs(s)
    with np.errstate(invalid="ignore", divide="ignore"):
        return magnitude / (2 * np.pi), np.where(magnitude > 0, -s.real / magnitude, np.nan)


def coordinate_row(model, name):
    """The unit vector (n,) of the joint coordinate ``name``: its generalised force direction as an input,
    its row as an output."""
    if name not in model.joint_coordinates:
        known = ", ".join(model.joint_coordinates) or "none"
        raise ValueError(f"unknown joint coordinate '{name}' (known: {known})")
    row = np.zeros(model.n)
    row[model.joint_coordinates[name]] = 1.0
    return row


def point_rows(model, body, point):
    """The rows (dim, n) of the world position of the material point ``point`` (body frame) of the body
    named ``body``: linear in q (``Model.material_point``), so also the generalised forces C(X)^T e_a of
    unit world forces along the axes there."""
    index = {b.name: i for i, b in enumerate(model.bodies)}
    if body not in index:
        raise ValueError(f"unknown body '{body}' (bodies: {', '.join(index)})")
    dofs, C, _ = model.material_point(index[body], np.asarray(point, dtype=float))
    rows = np.zeros((model.dim, model.n))
    np.add.at(rows, (slice(None), dofs), C)
    return rows


def reaction_names(model):
    """{column name: unit} of the joints' reactions (``model.reactions.JointReactions.columns``): force
    components in N, moments in N m."""
    if not model.joints:
        return {}
    q = np.zeros((1, model.n))
    return {name: "N m" if ".moment_" in name else "N"
            for name in JointReactions(model).columns(q, np.zeros((1, model.m)))}


def reaction_rows(model, q, lam, names):
    """(name, row (n + m,), unit) of the reaction columns ``names`` linearised at (q, lam): the rows on the
    m multipliers exactly (the columns are linear in them: their values at the unit multipliers), the
    rows on q by central differences with the step h = 1e-6 max(1, |q|) (the columns are polynomials of
    degree 3 at most in q for the joints' quadratic rows -- position times Jacobian times multiplier --
    so the differences' error is h^2 times the third derivative, about 1e-12 relative, and their
    round-off eps/h; joint-angle rows are smooth)."""
    units = reaction_names(model)
    unknown = [name for name in names if name not in units]
    if unknown:
        raise ValueError(f"unknown reaction '{unknown[0]}'")
    n, m = model.n, model.m
    h = 1e-6 * max(1.0, float(np.abs(q).max()))
    Q = np.vstack([q + h * np.eye(n), q - h * np.eye(n), np.broadcast_to(q, (m, n))])
    Lam = np.vstack([np.broadcast_to(lam, (2 * n, m)), np.eye(m)])
    columns = JointReactions(model).columns(Q, Lam)
    return [(name, np.concatenate([(columns[name][:n] - columns[name][n : 2 * n]) / (2 * h), columns[name][2 * n :]]),
             units[name]) for name in names]


def _null_space(matrix, n):
    """An orthonormal basis (n, n - rank) of the null space of the dense ``matrix`` (r, n) by its SVD;
    LinearizeError where its rows are dependent."""
    if not matrix.shape[0]:
        return np.eye(n)
    _, singular, vt = scipy.linalg.svd(matrix, full_matrices=True)
    if singular.min() <= RANK * singular.max():
        raise LinearizeError("the active constraint rows are dependent at this pose (a singular pose)")
    return vt[matrix.shape[0]:].T


def linearize(setup, q, lam=None, t=0.0, inputs=(), outputs=(), servos="held", motion=None):
    """The ``LinearPlant`` of the model of ``setup`` (``setup.prepare``) at the static equilibrium q, lam
    (default: lam of the equilibrium at q, ``modes.static_multipliers``) at time t; ``inputs``: (name,
    generalised force (n,), unit) each, ``outputs``: (name, row, unit) each, the row on q (n,)
    (``coordinate_row``, ``point_rows``) or on q and the m multipliers (n + m,) (``reaction_rows``);
    ``servos``: "held" (their rows kept, the inputs that hold them free to respond) or
    "free" (dropped: the inputs constant); ``motion``: a ``motion.Motion`` about which to linearise
    instead (its q, lam and t taken; the transport terms of ``motion`` eq. 3 added: gyroscopic and
    centrifugal). Refuses friction, a pose off the constraints or out of equilibrium and directions
    without mass (``LinearizeError``)."""
    model, n = setup.model, setup.model.n
    if motion is not None:
        q, lam, t = motion.q, motion.lam, motion.t
    q = np.asarray(q, dtype=float)
    if servos not in ("held", "free"):
        raise ValueError(f"servos must be 'held' or 'free', got {servos!r}")
    stateful = path_dependent_forces(model, q)
    if stateful:
        raise LinearizeError(f"{'; '.join(stateful)}: a force with an internal state has no linearisation "
                             "that follows from the pose (friction's stiffness depends on its slip history)")
    off = np.abs(model.phi(q, t)[setup.active_rows]).max(initial=0.0)
    if off > 1e-8 * max(1.0, np.abs(q).max()):
        raise LinearizeError(f"the pose violates the constraints by {off:.3g}: linearise on the constraint manifold")
    if motion is None:
        lam, residual, scale = static_multipliers(SaddleSystem(model, setup.active_rows), q, t, lam)
    rows = setup.active_rows if servos == "held" else np.setdiff1d(setup.active_rows, model.input_rows)
    system = SaddleSystem(model, rows)
    _, matrix, C = tangents(system, q, np.zeros(n) if motion is None else motion.v, lam, t)  # C = -dF/dv
    K, Gbar_T, G = matrix[:n, :n], matrix[:n, n:], matrix[n:, :n]
    M = system.mass.toarray()
    Z, W = _null_space(G, n), _null_space(Gbar_T.T, n)
    if Z.shape[1] != W.shape[1]:
        raise LinearizeError("the servo inputs and the servo rows held differ in rank: no square linearisation")
    floor = np.finfo(float).eps * np.abs(K).max(initial=0.0)  # round-off of forces at a unit motion: no loads
    if motion is not None:  # about a motion: (C, K) of the carried coordinates (``motion``, eq. 3)
        K_add, C_add = carried(model, rows, motion, M, C)
        K, C = K + K_add, C + C_add
    elif unbalanced(Z, residual, scale + np.linalg.norm(np.abs(K) @ np.abs(q)) + floor).any():
        raise LinearizeError("the pose is not a static equilibrium: the forces left unbalanced do work along "
                             "the motions the constraints allow; find one with statics.static_equilibrium")
    k = Z.shape[1]
    Mr = W.T @ M @ Z
    singular = scipy.linalg.svdvals(Mr) if k else np.ones(1)
    if k and singular.min() <= MASSLESS * singular.max():
        raise LinearizeError("a motion that the constraints allow carries no mass: no first-order ODE")
    Bu = np.column_stack([force for _, force, _ in inputs]) if inputs else np.zeros((n, 0))
    rows_out = np.vstack([np.concatenate([row, np.zeros(n + model.m - row.size)]) for _, row, _ in outputs]) \
        if outputs else np.zeros((0, n + model.m))
    Cq, Cl = rows_out[:, :n], rows_out[:, n:][:, rows]  # on x, on the active multipliers mu
    p, m, r = Cq.shape[0], Bu.shape[1], G.shape[0]
    stiffness, damping, forcing = (np.linalg.solve(Mr, W.T @ X) for X in (K @ Z, C @ Z, Bu))
    A = np.block([[np.zeros((k, k)), np.eye(k)], [-stiffness, -damping]])
    B = np.vstack([np.zeros((k, m)), forcing])
    C_out, D = np.hstack([Cq @ Z, np.zeros((p, k))]), np.zeros((p, m))
    if np.any(Cl):  # mu = P r, r = Bu u - M Z y'' - C Z y' - K Z y (module docstring)
        P = np.linalg.solve(Gbar_T.T @ Gbar_T, Gbar_T.T)
        MZ = M @ Z
        C_out += Cl @ P @ np.hstack([MZ @ stiffness - K @ Z, MZ @ damping - C @ Z])
        D = Cl @ P @ (Bu - MZ @ forcing)
    E = scipy.linalg.block_diag(np.eye(n), M, np.zeros((r, r)))
    A_d = np.block([[np.zeros((n, n)), np.eye(n), np.zeros((n, r))], [-K, -C, -Gbar_T],
                    [G, np.zeros((r, n)), np.zeros((r, r))]])
    B_d = np.vstack([np.zeros((n, m)), Bu, np.zeros((r, m))])
    C_d = np.hstack([Cq, np.zeros((p, n)), Cl])
    names = [f"y{i + 1}" for i in range(k)]
    return LinearPlant(A, B, C_out, D, E, A_d, B_d, C_d, np.zeros((p, m)), Z,
                       tuple(names + [f"{y}_rate" for y in names]), tuple(x[0] for x in inputs),
                       tuple(y[0] for y in outputs), tuple(x[2] for x in inputs), tuple(y[2] for y in outputs),
                       q, lam, float(t), servos)

