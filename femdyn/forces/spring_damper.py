"""Point-to-point spring-dampers between bodies."""
import numpy as np

from ..numerics.kinematics import apply, point_matrix
from ..numerics.lazy import compiled, floats
from .base import CONTINUOUS, DISCRETE, Force

KERNELS = __package__ + ".spring_kernels"  # numba: imported where the kernels run
_NO_VALUE = np.zeros(0)


class SpringDamper(Force):
    """Point-to-point spring-damper between body points X1 (body 1) and X2 (body 2), local
    coordinates [q1, q2]: V = k/2 (l - l0)^2 and damping force c dl/dt along the line, l = |x2 - x1|.

    Discrete gradient (Gonzalez): with s = l^2 (quadratic in q),
    grad_bar V = (V_b - V_a)/(s_b - s_a) grad s(q_mid) = k (lbar - l0) grad s(q_mid)/(l_a + l_b),
    lbar = (l_a + l_b)/2, so that grad_bar V . (qb - qa) = V(qb) - V(qa) exactly. The damper uses the discrete
    rate (l_b - l_a)/dt along the same discrete gradient of l, grad_bar l = grad s(q_mid)/(l_a + l_b),
    so it dissipates exactly c (l_b - l_a)^2 / dt per step. That loss is part of the step's work W
    (the force is not conservative), so ``dissipation``, which counts friction's, stays zero.

    Generalized-alpha takes the continuous force F = -(k (l - l0) + c dl/dt) grad l with
    grad l = D^T e, e = r/l, r = D q, dl/dt = e.D v (``continuous_force``), as the discrete rate
    (l_b - l_a)/dt is not the continuous one.
    """

    def __init__(self, dofs, labels, points1, points2, stiffness, damping, free_length):
        super().__init__(dofs)
        self.labels = list(labels)
        C1, C2 = point_matrix(points1), point_matrix(points2)
        self.D = np.concatenate([-C1, C2], axis=2)  # x2 - x1 = D q
        self.D = np.ascontiguousarray(self.D, dtype=np.float64)
        self.k, self.c, self.l0 = (np.array(np.broadcast_to(v, len(self.D)), dtype=np.float64)  # writable: one type
                                   for v in (stiffness, damping, free_length))
        self.tangent_mask = np.any(self.D != 0, axis=(0, 1))[:, None] & np.any(self.D != 0, axis=(0, 1))[None, :]
        self.dissipative = bool(np.any(self.c))
        self._pattern = tuple(np.ascontiguousarray(i, dtype=np.int64) for i in np.nonzero(self.tangent_mask))

    def check_initial(self, q):
        """A spring of zero length has no direction."""
        short = [name for name, l in zip(self.labels, self.lengths(q)) if not l > 0]
        return [("springs", f"spring {', '.join(short)} has zero length initially")] if short else []

    def _length(self, q):
        r = apply(self.D, q)
        return r, np.linalg.norm(r, axis=1)

    def lengths(self, q):
        return self._length(q)[1]

    def potential(self, q, state=None):
        """sum k/2 (l - l0)^2, each term compiled (``spring_kernels.potential_terms``, as the compiled steps)."""
        return float(np.sum(compiled(KERNELS).potential_terms(floats(q), self.D, self.k, self.l0)))

    def spring_arguments(self, dt: float, qa: np.ndarray | None = None, velocity: tuple | None = None) -> tuple:
        """``spring_kernels.loop``'s ``springs`` (``integrators.kernels.newton_loop``'s): the discrete form of a
        step of length ``dt`` from the local coordinates ``qa`` (K, n), or the continuous form at
        v = v~ + gamma' (q - q~) with ``velocity`` = (v~, q~ (K, n), gamma') (generalized-alpha's)."""
        common = (self.D, self.k, self.c, self.l0, *self._pattern)
        if qa is not None:
            return (DISCRETE, floats(qa).ravel().copy(), _NO_VALUE, _NO_VALUE, 0.0, float(dt), *common)
        v_known, q_known, gamma_p = velocity
        return (CONTINUOUS, _NO_VALUE, floats(v_known).ravel().copy(), floats(q_known).ravel().copy(),
                float(gamma_p), float(dt), *common)

    def _discrete(self, qa, qb, dt, tangents):
        """Fbar (K, n) and, with ``tangents``, dFbar/dqb (K, n, n): ``spring_kernels.discrete``."""
        K, n = qb.shape
        force, tangent = np.empty((K, n)), np.empty((K, n, n) if tangents else (0, 0, 0))
        compiled(KERNELS).discrete(floats(qa), floats(qb), float(dt), self.D, self.k, self.c, self.l0, force,
                                   tangent)
        return force, tangent

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self._discrete(qa, qb, dt, False)[0]

    def tangent(self, qa, qb, t_mid, dt, state=None):
        """Derivative of Fbar = -w f g with w = 2/(la + lb), g = D^T r_mid, f = k (lbar - l0) +
        c (lb - la)/dt."""
        return self._discrete(qa, qb, dt, True)[1]

    def _continuous(self, q, v, tangents):
        K, n = q.shape
        out = np.empty((K, n)), *(np.empty((K, n, n) if tangents else (0, 0, 0)) for _ in range(2))
        compiled(KERNELS).continuous(floats(q), floats(v), self.D, self.k, self.c, self.l0, *out)
        return out

    def continuous_force(self, q, v, t, dt, state=None):
        return self._continuous(q, v, False)[0]

    def continuous_tangents(self, q, v, t, dt, state=None):
        """F, dF/dq and dF/dv at ``tangent_mask`` (K, nnz); d e/d r = (I - e e^T)/l."""
        F, dF_dq, dF_dv = self._continuous(q, v, True)
        return F, dF_dq[:, self.tangent_mask], dF_dv[:, self.tangent_mask]
