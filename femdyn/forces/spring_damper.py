"""Point-to-point spring-dampers between bodies."""
import numpy as np

from ..numerics.kinematics import apply, point_matrix
from .base import Force


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
        self.k, self.c, self.l0 = (np.asarray(v, dtype=float) for v in (stiffness, damping, free_length))
        self.tangent_mask = np.any(self.D != 0, axis=(0, 1))[:, None] & np.any(self.D != 0, axis=(0, 1))[None, :]
        self.dissipative = bool(np.any(self.c))

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
        _, l = self._length(q)
        return float(np.sum(0.5 * self.k * (l - self.l0) ** 2))

    def _coefficient(self, la, lb, dt):
        """Scalar f with Fbar = -f grad_bar l = -f * 2 r_mid^T D / (la + lb)."""
        return self.k * (0.5 * (la + lb) - self.l0) + self.c * (lb - la) / dt

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        _, la = self._length(qa)
        _, lb = self._length(qb)
        r_mid = apply(self.D, 0.5 * (qa + qb))
        f = self._coefficient(la, lb, dt)
        return -(2.0 * f / (la + lb))[:, None] * np.einsum("ki,kin->kn", r_mid, self.D)

    def tangent(self, qa, qb, t_mid, dt, state=None):
        """Derivative of Fbar = -w f g with w = 2/(la + lb), g = D^T r_mid, f from ``_coefficient``."""
        _, la = self._length(qa)
        rb, lb = self._length(qb)
        f = self._coefficient(la, lb, dt)
        w = 2.0 / (la + lb)
        g = np.einsum("ki,kin->kn", apply(self.D, 0.5 * (qa + qb)), self.D)
        dlb = np.einsum("ki,kin->kn", rb, self.D) / lb[:, None]
        df = (0.5 * self.k + self.c / dt)[:, None] * dlb
        dw = -0.5 * (w**2)[:, None] * dlb
        DtD = np.einsum("kin,kim->knm", self.D, self.D)
        return -(np.einsum("kn,km->knm", g, w[:, None] * df + f[:, None] * dw)
                 + (0.5 * w * f)[:, None, None] * DtD)

    def _line(self, q, v):
        """r = D q (K, d), l (K,), e = r/l, grad l = D^T e (K, n), the rate dl/dt = e.D v (K,), D v and
        the coefficient k (l - l0) + c dl/dt (K,) of the continuous force F = -coefficient grad l."""
        D = self.D
        r, rv = apply(D, q), apply(D, v)
        l = np.linalg.norm(r, axis=1)
        e = r / l[:, None]
        g = np.einsum("ki,kin->kn", e, D)
        rate = np.sum(e * rv, axis=1)
        return r, l, e, g, rv, self.k * (l - self.l0) + self.c * rate

    def continuous_force(self, q, v, t, dt, state=None):
        _, _, _, g, _, coef = self._line(q, v)
        return -coef[:, None] * g

    def continuous_tangents(self, q, v, t, dt, state=None):
        """F, dF/dq and dF/dv at ``tangent_mask`` (K, nnz); d e/d r = (I - e e^T)/l."""
        D = self.D
        r, l, e, g, rv, coef = self._line(q, v)
        P = (np.eye(r.shape[1]) - e[:, :, None] * e[:, None, :]) / l[:, None, None]  # d e/d r
        dg = np.einsum("kin,kij,kjm->knm", D, P, D)
        drate = np.einsum("ki,kij,kjm->km", rv, P, D)
        k, c = self.k[:, None], self.c[:, None]
        dF_dq = -(g[:, :, None] * (k * g + c * drate)[:, None, :] + coef[:, None, None] * dg)
        dF_dv = -c[:, :, None] * g[:, :, None] * g[:, None, :]
        return -coef[:, None] * g, dF_dq[:, self.tangent_mask], dF_dv[:, self.tangent_mask]
