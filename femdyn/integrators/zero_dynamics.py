"""Zero dynamics of a servo problem: which servos are collocated with their inputs, and whether the
linearised inverse problem is minimum phase.

The servo rows b(q) - gamma(t) = 0 hold the outputs; their multipliers are the inputs u, acting along
the Boolean B of 000 eq. 84. The motions left when the outputs are held and the inputs are free are the
zero dynamics (A. Isidori, Nonlinear Control Systems, 3rd ed., Springer 1995, sec. 4.3; for multibody
servo constraints W. Blajer, K. Kolodziejczyk, Multibody System Dynamics 11 (2004) 343-364, and
R. Seifried, Dynamics of Underactuated Multibody Systems, Springer 2014, ch. 4). Linearised at rest at
a pose q with the static multipliers lam (``modes``: M x'' + K x + G_j^T mu - B^T u = 0, G_j x = 0,
G_s x = 0 for the joint rows G_j and the servo rows G_s):

    x = Z y,  Z = null([G_j; G_s])        (the motions that keep joints and outputs)
    W^T M Z y'' + W^T K Z y = 0,  W = null([G_j; B])   (the equations the inputs do no work on)

a generalised eigenproblem W^T K Z y = omega^2 W^T M Z y, square but not symmetric (W != Z unless the
inputs act along the held motions' normal space). Its finite eigenvalues give the transmission zeros
s = +-sqrt(-omega^2) of the undamped linearised input-output system; omega^2 < 0 (a real pair
+-sigma) or a complex omega^2 puts a zero in the right half plane: the servo problem is non-minimum
phase, its internal dynamics are unstable, and the causal (step-by-step) inversion grows like
exp(sigma t) (E. Bayo, J. Robotic Systems 4 (1987) 63-75, the single flexible link; Seifried 2014).
Massless coordinates (augmented joint coordinates, carriers) give infinite eigenvalues, dropped.

A servo is collocated when its rows' gradients lie in the row space of [G_j; B]: on the joints'
manifold the output is a function of the input coordinates alone (the actuated coordinate itself, a
point of the rigid body it drives, or of a rigid mechanism the inputs fix). A collocated output's
zero dynamics are those of the held mechanism with the inputs fixed, whose linearisation is symmetric:
minimum phase (marginally, undamped).

Remedies (reported by ``remedy``): a collocated minimum-phase servo problem is solved causally by the
ordinary servo run; a non-minimum-phase one needs stable (non-causal) inversion over the whole horizon
with pre- and post-actuation (``inversion``), or servo constraints on quantities collocated with the
inputs (the reference motion of the flexible bodies).
"""
import warnings
from dataclasses import dataclass

import numpy as np
import scipy  # scipy.linalg and scipy.sparse.linalg load on first use (SciPy's lazy submodules): not in every run

from .modes import DENSE_LIMIT, ModesError, TangentPencil, static_multipliers
from .saddle import SaddleSystem

COLLOCATED = 1e-8  # largest part of a servo row's gradient outside the row space of [G_j; B], relative
FINITE = 1e8  # eigenvalues above this many times the pencil's scale kappa are the massless ones (infinite)
ZERO = 1e-10  # eigenvalues below this many times kappa are zero (a free motion, e.g. a floating base)
PHASE = 1e-6  # a zero with real part above this share of its modulus lies in the right half plane


def _null(A):
    """Orthonormal basis (columns) of the null space of the dense A, by the SVD."""
    _, s, vt = scipy.linalg.svd(A, full_matrices=True)
    rank = int(np.sum(s > 1e-10 * s.max())) if s.size else 0
    return vt[rank:].T


def _range_defect(A, rows):
    """Largest |r - A^T c| / |r| over the rows r of ``rows`` after least squares in A's row space."""
    if not A.shape[0]:
        return np.ones(rows.shape[0])
    c = np.linalg.lstsq(A.T, rows.T, rcond=None)[0]
    return np.abs(rows.T - A.T @ c).max(axis=0) / np.abs(rows).max(axis=1)


@dataclass(frozen=True)
class ZeroDynamics:
    """The zero dynamics at ``q``: per servo (``servos``: names) whether it is ``collocated``; the finite
    eigenvalues ``omega2`` (complex, ascending real part) of the held-output linearisation, the mode
    shapes ``shapes`` (n, k) and the rows ``projection`` (k, n) that give a motion x's modal amplitudes
    eta = projection @ x (left eigenvectors, normalised so that projection @ shapes = I)."""

    servos: list
    collocated: list
    omega2: np.ndarray
    shapes: np.ndarray
    projection: np.ndarray
    q: np.ndarray

    @property
    def zeros(self):
        """The transmission zeros s = +-sqrt(-omega^2) (2k,) of the undamped linearisation."""
        root = np.sqrt(-self.omega2.astype(complex))
        return np.concatenate([root, -root])

    @property
    def unstable(self):
        """The modes with a zero in the right half plane (k,) bool."""
        root = np.sqrt(-self.omega2.astype(complex))
        return np.abs(root.real) > PHASE * np.abs(root)

    @property
    def sigma(self):
        """The real parts (> 0, 1/s) of the right-half-plane zeros, ascending: the growth rates of the
        causal inversion."""
        return np.sort(np.abs(np.sqrt(-self.omega2[self.unstable].astype(complex)).real))

    @property
    def minimum_phase(self):
        return not self.unstable.any()

    def remedy(self):
        """Which remedy applies, in words."""
        if self.minimum_phase:
            return "minimum phase: the ordinary (causal) servo run solves it"
        return ("non-minimum phase: the causal servo run grows like exp(sigma t); use stable inversion "
                "with pre- and post-actuation (femdyn invert, the case's [inversion] table), or put the servos on "
                "quantities collocated with the inputs")

    def sigma_text(self, most=4):
        """'sigma = a, b, .. 1/s' (the ``most`` slowest, and how many more)."""
        sigma = np.unique(np.round(self.sigma, 6))
        more = f" and {sigma.size - most} more" if sigma.size > most else ""
        return f"sigma = {', '.join(f'{s:.4g}' for s in sigma[:most])}{more} 1/s"

    def failure_note(self):
        """What a Newton failure of the causal servo run owes to a non-minimum-phase problem ('' if not)."""
        if self.minimum_phase:
            return ""
        return (f"The servo problem is non-minimum phase (right-half-plane zeros {self.sigma_text()} at the initial "
                "pose, not collocated: " + ", ".join(n for n, c in zip(self.servos, self.collocated) if not c)
                + "): the step-by-step inversion grows like exp(sigma t) whatever dt; use stable inversion "
                "(femdyn invert) or servos collocated with the inputs.")

    def lines(self):
        """The diagnosis as lines of text (``femdyn check``)."""
        lines = [f"  servo {name}: {'collocated' if c else 'not collocated'} with its inputs"
                 for name, c in zip(self.servos, self.collocated)]
        if self.minimum_phase:
            lines.append(f"  zero dynamics: {len(self.omega2)} modes, no zero in the right half plane")
        else:
            lines.append(f"  zero dynamics: {len(self.omega2)} modes, right-half-plane zeros {self.sigma_text()}")
        lines.append(f"  {self.remedy()}")
        return lines


def servo_rows(model):
    """(label, row, input column) of every servo row, in row order."""
    rows = [(label, int(row), int(col)) for c in model.constraints if c.time_dependent
            for label, row, col in zip(c.labels, c.rows[:, 0], c.dofs[:, -1])]
    return sorted(rows, key=lambda r: r[1])


def zero_dynamics(setup, q=None, t=0.0, lam=None):
    """The ``ZeroDynamics`` of the servo problem of ``setup`` (``setup.prepare``) linearised at rest at
    the pose q (default ``setup.q0``), with the static multipliers there (``modes.static_multipliers``)
    unless ``lam`` is given (module docstring). Dense: ModesError above ``modes.DENSE_LIMIT`` coordinates
or where the linearisation is not finite."""
    model = setup.model
    if model.n > DENSE_LIMIT:
        raise ModesError(f"{model.n} coordinates: the dense linearisation takes up to {DENSE_LIMIT}")
    q = setup.q0 if q is None else np.asarray(q, dtype=float)
    rows = np.asarray(setup.active_rows)
    servo = servo_rows(model)
    servo_set = {r for _, r, _ in servo}
    if lam is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", scipy.sparse.linalg.MatrixRankWarning)
                lam = static_multipliers(SaddleSystem(model, rows), q, t)[0]
        except (RuntimeError, scipy.sparse.linalg.MatrixRankWarning) as err:  # SuperLU: a singular system
            raise ModesError(f"no static multipliers at this pose ({err})") from None
    pencil = TangentPencil(model, q, lam, t, rows)
    G = pencil.G.toarray()
    is_servo = np.array([r in servo_set for r in rows])
    G_j, G_s = G[~is_servo], G[is_servo]
    B = np.zeros((len(servo), model.n))
    B[np.arange(len(servo)), [c for _, _, c in servo]] = 1.0
    defect = _range_defect(np.vstack([G_j, B]), G_s) if G_s.size else np.zeros(0)
    labels = [label for label, r, _ in servo if r in set(rows.tolist())]
    names = list(dict.fromkeys(labels))
    collocated = [bool(np.all(defect[[i for i, lb in enumerate(labels) if lb == name]] <= COLLOCATED))
                  for name in names]
    Z, W = _null(G), _null(np.vstack([G_j, B]))
    K, M = pencil.K.toarray(), pencil.M.toarray()
    if not Z.shape[1]:
        empty = np.zeros(0, dtype=complex)
        return ZeroDynamics(names, collocated, empty, np.zeros((model.n, 0)), np.zeros((0, model.n)), q)
    A, Bm = W.T @ K @ Z, W.T @ M @ Z
    if not (np.isfinite(A).all() and np.isfinite(Bm).all()):
        raise ModesError("the linearisation at this pose is not finite")
    values, left, right = scipy.linalg.eig(A, Bm, left=True, right=True)
    finite = np.isfinite(values) & (np.abs(values) < FINITE * max(pencil.kappa, 1.0))
    values, left, right = values[finite], left[:, finite], right[:, finite]
    order = np.argsort(values.real, kind="stable")
    values, left, right = values[order], left[:, order], right[:, order]
    for V in (left, right):  # phases fixed: a real eigenvalue's vectors become real
        V /= V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    shapes = Z @ right
    # eta_i = l_i^H Bm y / (l_i^H Bm y_i) for x = Z y, y = Z^T x
    weights = left.conj().T @ Bm
    projection = (weights / np.diag(weights @ right)[:, None]) @ Z.T
    values = np.where(np.abs(values) <= ZERO * max(pencil.kappa, 1.0), 0.0, values)  # free motions: zero
    real = np.abs(values.imag) <= 1e-9 * np.abs(values)
    omega2 = np.where(real, values.real, values)
    if real.all():
        omega2, shapes, projection = omega2.real, shapes.real, projection.real
    return ZeroDynamics(names, collocated, omega2, shapes, projection, q)
