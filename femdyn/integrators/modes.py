"""Natural frequencies and mode shapes of a model linearised at a static equilibrium.

Linearisation. At rest at a pose q on the constraint manifold, with the multipliers lam of the static
equilibrium F(q, 0, t) = Gbar(q)^T lam (``statics``), the equations of motion M q'' + Gbar^T lam = F,
Phi(q, t) = 0 give for q + x, lam + mu to first order

    M x'' + K x + Gbar^T mu = 0,    G x = 0,    K = -dF/dq + d(Gbar^T lam)/dq,

K the tangent stiffness of the static residual (``SaddleSystem.static``): the stiffness of the forces
and the geometric stiffness of the constraint forces (all of a pendulum's g/l comes from the latter;
M. Geradin, A. Cardona, Flexible Multibody Dynamics, Wiley 2001, on the linearised constrained
equations). Velocity-dependent forces enter with dF/dq at v = 0 only: the modes are the undamped
ones. With x = X sin(omega t) the constrained generalised eigenproblem is

    [[K, Gbar^T], [G, 0]] [X; mu] = omega^2 [[M, 0], [0, 0]] [X; mu],                        (1)

on the tangent space T = null(G) of the active rows: X = Z y for a basis Z of T,

    Z^T K Z y = omega^2 Z^T M Z y.                                                            (2)

K is symmetric for every force of femdyn at rest (potentials, fixed-direction loads, springs; the
constraint tangents sum_r lam_r H_r), so (2) is a symmetric pencil; a non-symmetric K (a follower load)
is refused. Zero eigenvalues are the free motions of the mechanism (the rigid motions of a free body,
a mechanism's motion that no force resists); omega^2 < 0 marks an unstable equilibrium.

Servo rows (000 eqs. 58-59, 84) apply their input u = -lam along the Boolean B, not along their
gradient. ``servos="held"`` keeps them: the outputs stay at their values at t, and (2) holds when
Z^T B^T = 0, i.e. when every input direction B^T e_k lies in the row space of the active Jacobian (the
inputs do no work on the motions that keep the outputs, e.g. a coordinate servo on its own input, or a
mechanism fully held by its servos); then B^T mu drops out of (2) like the joints' forces. Otherwise the
held system moves in its servo-constrained zero dynamics, W^T K Z y = omega^2 W^T M Z y with
W = null([G_joints; B]) != Z (W. Blajer, K. Kolodziejczyk, A geometric approach to solving problems of
control constraints: theory and a DAE framework, Multibody System Dynamics 11 (2004) 343-364), which is
not a symmetric problem and is refused. ``servos="free"`` drops the servo rows: the inputs are then
free coordinates loaded by the constant inputs of the equilibrium (a constant force has no stiffness).

Massless coordinates. The augmented joint coordinates (000 eqs. 27, 49) and the elastic coordinates
of a carrier formulation carry no mass; (1) has infinite eigenvalues for them and for the multipliers.
Each is tied to massive coordinates by its constraint row (a joint angle turns with its bodies, an
elastic coordinate with its carriers), so they move along T only with massive ones and Z^T M Z is
regular for every femdyn model; where it is not (a direction of T without mass), that direction has no
inertia and follows the massive ones statically. Both methods condense it exactly (Guyan's static
condensation, R. J. Guyan, Reduction of stiffness and mass matrices, AIAA Journal 3(2) (1965) 380):

- ``dense`` (``DENSE_LIMIT`` coordinates or fewer): an orthonormal Z from the SVD of G (LAPACK), (2)
  formed densely, its massless directions condensed, then LAPACK's symmetric ``eigh`` of the inverse of
  the mass-normalised condensed stiffness shifted by theta (below): every eigenvalue of (2) is found,
  the lowest resolved relative to themselves, not to the stiffest (a fine beam mesh has
  omega_max^2 / omega_1^2 ~ N^4; beam/modes.py inverts for the same reason).
- ``sparse``: the spectral transformation Lanczos method (T. Ericsson, A. Ruhe, The spectral
  transformation Lanczos method for the numerical solution of large sparse generalized symmetric
  eigenvalue problems, Math. Comp. 35 (1980) 1251-1268) on the pencil (1) itself, with no basis of T:
  ARPACK (``scipy.sparse.linalg.eigsh``, shift-invert mode, Lehoucq et al. 1998) on
  OP = (A - sigma B)^-1 B, A and B the matrices of (1), with one KLU factorisation of
  A - sigma B = [[K - sigma M, s Gbar^T], [s G, 0]] in the fixed pattern of ``SaddleSystem``. Every
  application of OP solves (1) with the shift: its x satisfies G x = 0 (the projection onto T, exact to
  the solve) and its massless coordinates follow from the massive ones (the condensation, exact); the
  infinite eigenvalues of (1) become nu = 0 of OP and are never among the wanted largest
  |nu| = 1/|omega^2 - sigma|. B = diag(M, 0) is semidefinite, which ARPACK's mode 3 allows (its
  M-semi-inner product); the Ritz vectors are purified by one more application of OP (B. Nour-Omid,
  B. N. Parlett, T. Ericsson, P. S. Jensen, How to implement the spectral transformation, Math. Comp.
  48 (1987) 663-673). A sparse basis of T was not taken: the fundamental basis [-G_B^-1 G_N; I] of a
  sparse LU fills in (for a beam, Z^T K Z is dense, (n - m)^2 entries) and is as ill-conditioned as the
  chosen G_B, while (1) keeps the sparsity of the Newton matrix.

The shift is sigma = -theta, theta = ``SHIFT`` kappa with kappa = |K|_inf / mbar the pencil's
stiffness-to-mass scale (about its largest omega^2; mbar the mean positive diagonal of M): A - sigma B
is regular with zero modes (theta far above their round-off, about eps kappa), and
nu = 1/(omega^2 + theta) decreases with omega^2 >= 0, so the largest nu are the lowest modes, free
motions first. Both methods keep the k vectors nearest zero, purify them by one application of OP
(with the LU of the sparse method: their components along the stiff modes shrink by theta/omega^2),
orthonormalise them in the mass metric, lowest first (Gram-Schmidt by a Cholesky factor of X^T M X,
twice), and take omega^2 = 1/nu - theta from the Rayleigh quotient nu = x.M OP x of OP (errors
quadratic in the vectors'). Not x.K x: on a fine mesh that sum cancels (|x|.|K| |x| / x.K x ~ N^4 for a
smooth mode) and loses the lowest frequencies first, while OP x is as smooth as x. Nor a Rayleigh-Ritz
step on the span: its small eigenproblem would mix the zero modes with the largest kept omega^2 at its
round-off eps omega_k^2. A zero mode's 1/nu - theta is the round-off of theta, a few eps theta; a mode
within ``ROUNDOFF`` eps theta (5e-22 kappa; zero modes of a 1024-element free beam come out
below 2e-23 kappa) of zero is a zero mode. A slow physical mode stays a mode
(the sag pendulum of an arm turned by a constant torque, omega^2 ~ 1e-17 kappa on a fine mesh).
"""
from dataclasses import dataclass

import numpy as np
import scipy  # scipy.linalg and scipy.sparse.linalg load on first use (SciPy's lazy submodules): not in every run
import scipy.sparse as sp

from ..numerics import kinematics as kin
from ..numerics.cholesky import cholesky
from ..numerics.linalg import SingularMatrixError
from .saddle import SaddleSystem

DENSE_LIMIT = 400  # coordinates up to which the dense method is the default
EPS = np.finfo(float).eps
SHIFT = 1e4 * EPS  # the shift -theta of both methods, relative to the pencil's scale kappa
ROUNDOFF = 1e6  # a zero mode's |omega^2| is at most this many times eps theta (``TangentPencil.lowest``)
MASSLESS = 1e4 * EPS  # a direction of T with less mass, relative to the most, is massless (condensed)
SYMMETRY = 1e-9  # largest |K - K^T| relative to the largest |K| of a symmetric tangent
COLLOCATION = 1e-8  # largest part of an input direction outside the active Jacobian's row space


class ModesError(RuntimeError):
    """A linearisation that is refused: not symmetric, servos that cannot be held, too many modes."""


def path_dependent_forces(model, q):
    """The force components of ``model`` with an internal state at q (friction's slip): their static
    state depends on the loading history, not on q alone. Names as 'Type (labels)'."""
    return [f"{type(f).__name__} ({', '.join(getattr(f, 'labels', ()))})"
            for f, state in zip(model.forces, model.initial_states(q)) if state is not None]


class TangentPencil:
    """The pencil (1) of ``model`` at (q, lam, t) over the active constraint ``rows``: the tangent
    stiffness K, the mass matrix M and the active Jacobian G in the fixed pattern of a
    ``SaddleSystem`` (module docstring; ``system``: one of ``model`` over ``rows`` to use, default a new one)."""

    def __init__(self, model, q, lam, t, rows, system=None):
        self.model, self.q, self.lam, self.t = model, q, lam, t
        self.system = system = SaddleSystem(model, rows) if system is None else system
        self.states = model.initial_states(q)
        self.starts = system.begin_step(q, t, midpoint=False)
        n = model.n
        matrix = system.pattern.csc(self._data(1.0, 0.0)).tocsr()
        K = matrix[:n, :n]
        if abs(K - K.T).max() > SYMMETRY * abs(K).max():
            raise ModesError("the tangent stiffness is not symmetric (a force that is not conservative "
                             "depends on the coordinates): its linearisation has no symmetric modes")
        self.K, self.G = K, matrix[n:, :n]
        self.M = system.mass.tocsr()
        self.kappa = float(np.asarray(abs(K).sum(axis=1)).max(initial=0.0)) / system.mbar
        self.theta = SHIFT * self.kappa or 1.0  # no stiffness at all: every mode is a zero mode, any shift serves
        self.dimension = n - system.active.size  # of the tangent space T

    def _data(self, scale, mass_factor):
        """CSC data of [[mass_factor M + K, scale Gbar^T], [scale G, 0]] at (q, lam, t)."""
        return self.system.static(self.q, self.lam, self.t, self.states, self.starts, scale, mass_factor)[1]

    def lowest(self, k, method="auto"):
        """The k eigenvalues omega^2 of (2) nearest zero, ascending, the mass-normalised mode shapes
        (n, k) and which are zero modes; ``method`` "dense", "sparse" or "auto" (dense up to
        ``DENSE_LIMIT`` coordinates). The vectors a method finds are purified, mass-orthonormalised and
        their Rayleigh quotients taken (module docstring)."""
        if not 0 < k <= self.dimension:
            raise ModesError(f"{k} modes asked of a mechanism with {self.dimension} degrees of freedom "
                             "(coordinates less active constraint rows)")
        if method == "auto":
            method = "dense" if self.model.n <= DENSE_LIMIT or k == self.dimension else "sparse"
        if method not in ("dense", "sparse"):
            raise ValueError(f"method must be 'dense', 'sparse' or 'auto', got {method!r}")
        if method == "sparse" and k == self.dimension:
            raise ModesError("the sparse method finds fewer modes than the degrees of freedom; take 'dense'")
        self._factor()
        if method == "dense":
            X = self._dense()
            if X.shape[1] < k:
                raise ModesError(f"{k} modes asked, but only {X.shape[1]} of the {self.dimension} degrees of "
                                 "freedom carry mass (the others are condensed)")
            X = X[:, np.argsort(np.abs(self._quotients(X)), kind="stable")[:k]]  # the k nearest zero of all
        else:
            X = self._sparse(k)
        X = self._apply(X)  # purified: G x = 0, the massless coordinates condensed
        X = X[:, np.argsort(np.abs(self._quotients(X)), kind="stable")]
        for _ in range(2):  # Gram-Schmidt in the mass metric, lowest first (a Cholesky factor; twice is enough)
            X = scipy.linalg.solve_triangular(scipy.linalg.cholesky(X.T @ (self.M @ X)), X.T, trans="T").T
        nu = np.einsum("ik,ik->k", X, self.M @ self._apply(X))  # x.M OP x = 1/(omega^2 + theta)
        omega2 = 1.0 / nu - self.theta
        order = np.argsort(omega2, kind="stable")
        omega2, X = omega2[order], X[:, order]
        X = X * np.sign(X[np.argmax(np.abs(X), axis=0), np.arange(X.shape[1])])
        return omega2, X, np.abs(omega2) <= ROUNDOFF * EPS * self.theta

    def _factor(self):
        """KLU of A - sigma B = [[K + theta M, s Gbar^T], [s G, 0]] on the fixed pattern of the saddle
        system, the multipliers scaled by s = kappa mbar."""
        system = self.system
        try:
            system.lu.factor(self._data(self.kappa * system.mbar or system.mbar, self.theta))
        except SingularMatrixError:
            raise ModesError("the active constraint rows are dependent at this pose (a singular pose)") from None

    def _inertia(self, x):
        """B (x, mu) = (M x, 0)."""
        return np.concatenate([self.M @ x[: self.model.n], np.zeros(self.system.size - self.model.n)])

    def _apply(self, X):
        """The q-part of OP B x for each column x (n,) of X, with one step of iterative refinement."""
        return np.column_stack([self.system.lu.solve(self._inertia(x), refine=1)[: self.model.n] for x in X.T])

    def _quotients(self, X):
        """Rayleigh quotients x.K x / x.M x of the columns of X (for ordering them)."""
        return np.einsum("ik,ik->k", X, self.K @ X) / np.einsum("ik,ik->k", X, self.M @ X)

    def _sparse(self, k):
        """k vectors (n, k) of the lowest modes by ARPACK in shift-invert mode on OP = (A - sigma B)^-1 B
        with the factorisation of ``_factor``."""
        system, size = self.system, self.system.size
        OP = sp.linalg.LinearOperator((size, size), matvec=system.lu.solve, dtype=float)
        B = sp.linalg.LinearOperator((size, size), matvec=self._inertia, dtype=float)
        unshifted = self._data(self.kappa * system.mbar or system.mbar, 0.0)  # A of (1): mode 3 takes its shape
        start = np.random.default_rng(0).standard_normal(size)
        # the Krylov space lies in range(OP), of the dimension of T at most (the finite eigenvalues)
        lanczos = min(max(2 * k + 1, 20), self.dimension)
        _, V = sp.linalg.eigsh(system.pattern.csc(unshifted), k, M=B, sigma=-self.theta, which="LM", OPinv=OP,
                          v0=start, ncv=lanczos)
        return V[: self.model.n]

    def _dense(self):
        """All modes of (2): Z orthonormal from the SVD of G, the massless directions of T condensed
        (Guyan), the mass-normalised condensed stiffness by LAPACK's eigh; shapes (n, dimension - massless)."""
        G = self.G.toarray()
        _, singular, vt = scipy.linalg.svd(G, full_matrices=True)
        if singular.size and singular.min() <= 1e-10 * singular.max():
            raise ModesError("the active constraint rows are dependent at this pose (a singular pose)")
        Z = vt[G.shape[0]:].T
        M, K = Z.T @ (self.M @ Z), Z.T @ (self.K @ Z)
        mu, U = scipy.linalg.eigh(0.5 * (M + M.T))
        massive = mu > MASSLESS * mu.max(initial=0.0)
        T, T0 = U[:, massive] / np.sqrt(mu[massive]), U[:, ~massive]  # mass-normalising; massless directions
        coupling = T0.T @ K @ T
        slave = np.linalg.solve(T0.T @ K @ T0, coupling)  # massless part per unit massive motion
        condensed = T.T @ K @ T - coupling.T @ slave
        _, Y = scipy.linalg.eigh(0.5 * (condensed + condensed.T))
        return Z @ (T @ Y - T0 @ (slave @ Y))


def _deformation(body, x):
    """The largest elastic speed of a flexible body's centre-line points for the velocity x (n,): its
    size, the body-frame point where it is reached and its direction (world axes); None for a rigid one."""
    f = body.flexible
    if f is None or not f.beam.n_coordinates:
        return None
    xi = np.linspace(0.0, 1.0, 5)
    dim = f.beam.dim
    X = f.beam.elements.positions(xi).reshape(-1, dim)
    elastic = f.element_points(x[None], xi).reshape(-1, dim) - kin.material_points(x[f.rigid], X)
    speeds = np.linalg.norm(elastic, axis=1)
    k = int(np.argmax(speeds))
    return float(speeds[k]), X[k], elastic[k] / speeds[k] if speeds[k] > 0 else elastic[k]


def describe_motion(model, q, x, share=0.05, most=None):
    """The motion x (n,) at q in words: each body it moves by at least ``share`` of the most moved one
    (the speed of its reference point plus its angular speed times half its size) as a translation
    along a direction or a rotation about a point (planar) or an axis (spatial), and each flexible body
    it deforms by as much as the deformation where it is largest (body-frame point and direction); a
    motion that moves no body by the coordinates it moves most; ``most``: only that many bodies, the
    most moved first, and how many more. For messages, not for a hot path."""
    dim, nb = model.dim, kin.body_size(model.dim)
    twists = []
    for body in model.bodies:
        at = body.offset
        phi, D = q[at : at + dim], q[at + dim : at + nb].reshape(dim, dim)  # rows: the directors
        v, dD = x[at : at + dim], x[at + dim : at + nb].reshape(dim, dim)
        if dim == 2:
            omega = 0.5 * float(np.sum(D[:, 0] * dD[:, 1] - D[:, 1] * dD[:, 0]))
        else:
            omega = 0.5 * np.sum(np.cross(D, dD), axis=0)
        size = 0.5 * float(np.max(body.size))
        twists.append((body.name, phi, v, omega, np.linalg.norm(v) + np.linalg.norm(omega) * size, size))
    deformations = [(body.name, _deformation(body, x)) for body in model.bodies]
    deformations = [(name, d) for name, d in deformations if d is not None]
    largest = max([t[4] for t in twists] + [d[0] for _, d in deformations], default=0.0)
    if not largest > 0:
        top = np.argsort(-np.abs(x))[:3]
        return "motion of " + ", ".join(f"'{model.coordinate_names[i]}'" for i in top if x[i]) + " (no body moves)"
    words = [(speed, _rigid_motion(name, phi, v, omega, size)) for name, phi, v, omega, speed, size in twists
             if speed >= share * largest]
    words += [(speed, f"deformation of '{name}', largest at {_vector(X)} along {_vector(direction)}")
              for name, (speed, X, direction) in deformations if speed >= share * largest]
    if most is not None and len(words) > most:
        kept = sorted(words, key=lambda w: -w[0])[:most]
        return ", ".join(w for _, w in kept) + f" and {len(words) - most} more bodies"
    return ", ".join(w for _, w in words)


def _vector(v, scale=1.0):
    """(v_1, .., v_dim) to 4 digits, entries below 1e-9 ``scale`` (round-off) as 0."""
    return "(" + ", ".join(f"{(c if abs(c) > 1e-9 * scale else 0.0) + 0.0:.4g}" for c in v) + ")"


def _rigid_motion(name, phi, v, omega, size):
    """One body's rigid motion (reference point velocity v, angular velocity omega) in words."""
    spin = np.linalg.norm(omega)
    if spin * size <= 1e-6 * np.linalg.norm(v):
        return f"translation of '{name}' along {_vector(v / np.linalg.norm(v))}"
    scale = max(size, np.abs(phi).max())
    if np.ndim(omega) == 0:  # planar: v = omega J (phi - c)
        return f"rotation of '{name}' about {_vector(phi + np.array([-v[1], v[0]]) / omega, scale)}"
    axis = omega / spin
    through = phi + np.cross(omega, v) / spin**2
    pitch = float(axis @ v) / spin
    screw = f" with {pitch:.4g} per radian along it" if abs(pitch) > 1e-6 * size else ""
    return f"rotation of '{name}' about the axis {_vector(axis)} through {_vector(through, scale)}{screw}"


@dataclass(frozen=True)
class NaturalModes:
    """The k lowest modes of a model at (q, lam, t): eigenvalues ``omega2`` [rad^2/s^2] ascending, the
    mass-normalised ``shapes`` (k, n) in q (X.M X = 1), ``zero`` the free (rigid) motions, the model,
    pose, multipliers and active rows of the linearisation and how the servos were taken."""

    omega2: np.ndarray
    shapes: np.ndarray
    zero: np.ndarray
    model: object
    q: np.ndarray
    lam: np.ndarray
    t: float
    rows: np.ndarray
    servos: str

    @property
    def unstable(self):
        """Modes with omega^2 < 0 (not zero): the equilibrium is unstable along them."""
        return (self.omega2 < 0) & ~self.zero

    @property
    def omega(self):
        """Angular frequencies [rad/s]: 0 for zero modes, NaN for unstable ones."""
        omega = np.sqrt(np.where(self.unstable, np.nan, np.abs(self.omega2)))
        return np.where(self.zero, 0.0, omega)

    @property
    def frequency(self):
        """Frequencies [Hz]."""
        return self.omega / (2.0 * np.pi)

    def describe(self, i, most=None):
        """Mode i in words (``describe_motion``; ``most``: the most moved bodies only)."""
        return describe_motion(self.model, self.q, self.shapes[i], most=most)


def static_multipliers(system, q, t, lam=None):
    """The multipliers lam (m,) of the static equilibrium at q, the force r = F - Gbar^T lam (n,) left
    unbalanced on the motions along the constraints, and the size |F| + |Gbar^T lam| (2-norms) of the
    forces it balances: by one solve of M a + Gbar^T dlam = F - Gbar^T lam0, G a = 0 (``lam``: lam0,
    default zero), lam = lam0 + dlam and r = M a, zero at an equilibrium."""
    model, n = system.model, system.model.n
    lam0 = np.zeros(model.m) if lam is None else np.asarray(lam, dtype=float)
    starts, states = system.begin_step(q, t, midpoint=False), model.initial_states(q)
    applied = -system.static(q, np.zeros(model.m), t, states, starts, 1.0, tangents=False)[0][:n]
    residual = system.static(q, lam0, t, states, starts, 1.0, tangents=False)[0][:n]
    a, dlam = system.accelerations(q, starts, -residual, np.zeros(system.active.size))
    lam = lam0 + dlam
    reactions = system.static(q, lam, t, states, starts, 1.0, tangents=False)[0][:n] + applied
    return lam, system.mass_operator @ a, float(np.linalg.norm(applied) + np.linalg.norm(reactions))


def unbalanced(X, force, scale, tolerance=1e-8):
    """Which modes (columns of X (n, k)) the ``force`` (n,) left unbalanced drives: its work along the
    mode beyond ``tolerance`` times the largest work |X| ``scale`` of forces of the size ``scale`` of
    those whose balance it is (relative residual). Along such a mode the pose is not an equilibrium; a
    free motion along which the loads do no work is a neutral one."""
    return np.abs(X.T @ force) > tolerance * np.linalg.norm(X, axis=0) * scale


def _check_collocated(model, q, t, rows):
    """Refuse held servos whose inputs do work on the held motions (module docstring): B^T e_k must
    lie in the row space of the active Jacobian G_a, tested by least squares (CHOLMOD on G_a G_a^T)."""
    held = np.intersect1d(model.input_rows, rows)
    servos = [(label, column) for c in model.constraints if c.time_dependent
              for label, row, column in zip(c.labels, c.rows[:, 0], c.dofs[:, -1]) if row in held]
    if not servos:
        return
    labels, columns = zip(*servos)
    G = model.jacobian(q, rows, t)
    B = sp.csc_matrix((np.ones(len(columns)), (columns, np.arange(len(columns)))), shape=(model.n, len(columns)))
    coefficients = cholesky((G @ G.T).tocsc())(np.asarray((G @ B).todense()))
    outside = np.abs(B.toarray() - G.T @ coefficients).max(axis=0)
    bad = sorted({label for label, o in zip(labels, outside) if o > COLLOCATION})
    if bad:
        raise ModesError(f"servo {', '.join(bad)}: the input does work on the motions that hold the servo's "
                         "output, so the held system moves in its zero dynamics, a linearisation that is not "
                         "symmetric (Blajer & Kolodziejczyk 2004); take servos='free', or hold the input "
                         "coordinate itself")


def natural_modes(setup, q=None, lam=None, k=6, t=0.0, servos="held", method="auto", system=None):
    """The k lowest natural modes (``NaturalModes``) of the model of ``setup`` (``setup.prepare``)
    linearised at the pose q (default ``setup.q0``), a static equilibrium at time t, with its
    multipliers lam (default: those of the equilibrium at q, ``static_multipliers``); all of them where
    the mechanism has fewer degrees of freedom, none where its constraints fix it. ``servos``:
    "held" (their rows kept) or "free" (dropped); ``method``: "dense", "sparse" or "auto" (module
    docstring). Refuses a pose off the constraints or out of equilibrium (forces left unbalanced that do
    work along one of the modes found, relative to the forces balanced there: ``unbalanced``),
    path-dependent forces (friction) and servos that cannot be held. ``system``: the ``SaddleSystem`` of
    the model over ``setup.active_rows`` to solve in (default: new ones), e.g. the static solve's."""
    model = setup.model
    q = setup.q0 if q is None else np.asarray(q, dtype=float)
    if servos not in ("held", "free"):
        raise ValueError(f"servos must be 'held' or 'free', got {servos!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    stateful = path_dependent_forces(model, q)
    if stateful:
        raise ModesError(f"{'; '.join(stateful)}: a force with an internal state has no tangent that "
                         "follows from the pose (friction's stiffness depends on its slip history)")
    size = max(1.0, np.abs(q).max())
    off = np.abs(model.phi(q, t)[setup.active_rows]).max(initial=0.0)
    if off > 1e-8 * size:
        raise ModesError(f"the pose violates the constraints by {off:.3g}: linearise on the constraint manifold")
    lam, residual, scale = static_multipliers(SaddleSystem(model, setup.active_rows) if system is None else system,
                                              q, t, lam)
    rows = setup.active_rows if servos == "held" else np.setdiff1d(setup.active_rows, model.input_rows)
    if servos == "held":
        _check_collocated(model, q, t, rows)
    pencil = TangentPencil(model, q, lam, t, rows, system if servos == "held" else None)
    k = min(k, pencil.dimension)
    if k:
        omega2, X, zero = pencil.lowest(k, method)
    else:  # the constraints (and held servos) fix everything: no motion is left
        omega2, X, zero = np.zeros(0), np.zeros((model.n, 0)), np.zeros(0, dtype=bool)
    # the forces balanced at q include the internal ones that cancel in F (elastic element forces): |K| |q|
    driven = unbalanced(X, residual, scale + np.linalg.norm(abs(pencil.K) @ np.abs(q)))
    if driven.any():
        i = int(np.argmax(driven))
        raise ModesError(f"the pose is not a static equilibrium: the forces left unbalanced drive the "
                         f"{'free motion' if zero[i] else 'mode'} {describe_motion(model, q, X[:, i])}; find one "
                         "with statics.static_equilibrium, or give its multipliers")
    return NaturalModes(omega2, X.T, zero, model, q, lam, t, np.asarray(rows), servos)
