"""Linear viscous damping on invariant coordinates: the material damping of flexible bodies.

The damped coordinates e(q) (n_e,) are at most bilinear in the model's coordinates q: each row is a
coordinate itself (``e_i = c q_p``, the elastic coordinates of a carrier body) or a dot product of two
of its world vectors (``e_i = c d_a . w_k``, the local nodal displacement of a world-vector beam along
a director). Their Jacobian J(q) = de/dq is linear in q, stored as the entries (row i, column p,
coefficient c, source s): J_ip = c q_s (s >= 0) or c (s = -1), grouped by row; the bilinear rows list
both entries (p, s) and (s, p). Rows built so are invariant under a common translation and rotation of
the body (every vector turns with its directors), so J(q) w = 0 for every rigid velocity w: the force
never acts on a rigid motion and conserves linear and angular momentum.

Continuous force (generalized-alpha; at v = 0 the statics and modes): the dissipation function
R = 1/2 e'^T D e' with the constant symmetric D >= 0 (``beam.damping``) gives

    F = -J(q)^T D J(q) v,    dF/dv = -J^T D J,    dF/dq = -H(D J v) - J^T D J(v),

H(y) = sum_i y_i d^2 e_i/dq^2 (constant second derivatives: the coefficients at (p, s)) and J(v) the
bilinear entries evaluated at v (d(J(q) v)/dq = J(v), J(q) v = J(v) q + J_0 v).

Discrete force (energy-momentum, 000 eq. 5): at the mid-point q_m = (q_a + q_b)/2 with the discrete
rate of the damped coordinates,

    Fbar = -J(q_m)^T D (e(q_b) - e(q_a)) / dt.

e is at most quadratic, so e(q_b) - e(q_a) = J(q_m) (q_b - q_a) exactly (the mid-point rule
integrates the linear J exactly), and the work of the step is

    Fbar . (q_b - q_a) = -(e_b - e_a)^T D (e_b - e_a) / dt = -dt e'_m^T D e'_m <= 0,

e'_m = (e_b - e_a)/dt the mid-point rate: the step dissipates exactly that (``dissipation``), and the
energy balance H_n+1 - H_n = W_n keeps it to round-off with the loss inside W (the force is not
conservative), as the spring-dampers' (``spring_damper``). J(q_m)^T is a gradient of invariants at
q_m, so the discrete angular momentum is conserved too (the argument of 000 eq. 26 for the
constraint forces). Its derivative for Newton, with d(e_b - e_a)/dq_b = J(q_b) and dJ(q_m)/dq_b =
J'/2:

    dFbar/dq_b = -(1/2) H(D (e_b - e_a)/dt) - J(q_m)^T D J(q_b) / dt.

The products J^T D J are formed entry by entry on a fixed pattern (every pair of entries of J rows i
and j for each entry D_ij, ``viscous_kernels.triple``): no loop over elements, the same pattern in
every Newton iteration; the energy-momentum step evaluates force, rates and tangent in one compiled call
(``viscous_kernels.step``), generalized-alpha its continuous forms in another (``continuous``). Where
the whole Newton iteration runs compiled (``integrators.kernels.newton_loop``) it calls the same kernels
itself (``viscous_kernels.loop``, ``damper_arguments``), so both paths give the same numbers bit for bit.
"""
import numpy as np
import scipy.sparse as sp

from ..numerics.lazy import compiled, floats
from ..numerics.linalg import RowPattern
from .base import CONTINUOUS, DISCRETE, Force

KERNELS = __package__ + ".viscous_kernels"  # numba: imported where the kernels run
_NO_VALUE = np.zeros(0)


class ViscousDamping(Force):
    """Viscous damping R = 1/2 e'^T D e' on the bilinear coordinates e(q) (module docstring), one
    component over ``dofs`` (n_local,): ``rows``, ``columns`` (local), ``coefficients`` and ``sources``
    (local, -1: constant) the entries of J, grouped by row; ``matrix`` D (n_e, n_e), constant,
    symmetric, positive semidefinite; ``labels`` the damped bodies."""

    tangent_mask = True  # depends on q_n+1; the entries come from ``tangent_pattern``
    dissipative = True

    def __init__(self, dofs, rows, columns, coefficients, sources, matrix, labels=()):
        super().__init__(np.asarray(dofs)[None, :])
        self.labels = list(labels)
        n_local = self.dofs.shape[1]
        D = sp.csr_matrix(matrix, dtype=np.float64)
        D.sum_duplicates()
        n_e = D.shape[0]
        self.J = RowPattern(rows, columns, (n_e, n_local))
        self.coefficients = np.asarray(coefficients, dtype=np.float64)
        self.sources = np.where(np.asarray(sources) >= 0, sources, n_local).astype(np.int64)  # -1 -> the padding
        self.bilinear = np.flatnonzero(np.asarray(sources) >= 0)  # the entries of H (module docstring)
        self._D = (D.indptr.astype(np.int64), D.indices.astype(np.int64), D.data)
        self._J = self.J.indptr.astype(np.int64)
        # the pattern: H's entries (p, s) of the bilinear rows, then J_i^T D_ij J_j entry by entry
        counts = np.diff(self._J)
        i = np.repeat(np.arange(n_e), np.diff(D.indptr))
        j = D.indices
        size = counts[i] * counts[j]
        first = np.repeat(np.cumsum(size) - size, size)
        t = np.repeat(np.arange(j.size), size)
        offset = np.arange(size.sum()) - first
        a = self._J[i[t]] + offset // counts[j[t]]
        b = self._J[j[t]] + offset % counts[j[t]]
        columns = np.asarray(columns, dtype=np.int64)
        self._pattern = (np.concatenate([columns[self.bilinear], columns[a]]),
                         np.concatenate([self.sources[self.bilinear], columns[b]]))
        # the kernels' J, coefficients, sources, bilinear entries and D (``viscous_kernels``)
        self._kernel_arguments = (self._J, self.J.indices.astype(np.int64), self.coefficients, self.sources,
                                  self.bilinear.astype(np.int64), *self._D)
        self._last = (None, None)  # (qa, qb, dt) bytes, (F, values, rates): the step's, asked for apart

    def tangent_pattern(self):
        return self._pattern

    # --- energy-momentum ---------------------------------------------------------------------
    def _step(self, qa, qb, dt):
        """Force (1, n), tangent values (1, nnz) and mid-point rates (n_e,) of the step: one compiled call
        (``viscous_kernels.step``), kept for the other requests of the same step."""
        key = (qa.tobytes(), qb.tobytes(), float(dt))
        if self._last[0] != key:
            F, values, rates = np.empty((1, self.dofs.shape[1])), np.empty((1, self._pattern[0].size)), \
                np.empty(self.J.shape[0])
            compiled(KERNELS).step(floats(qa[0]), floats(qb[0]), float(dt), *self._kernel_arguments, F[0], values[0],
                                   rates)
            self._last = (key, (F, values, rates))
        return self._last[1]

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self._step(qa, qb, dt)[0]

    def tangent_values(self, qa, qb, t_mid, dt, state=None):
        return self._step(qa, qb, dt)[1]

    def dissipation(self, qa, qb, state, dt=None):
        """dt e'_m^T D e'_m >= 0, the step's loss (module docstring)."""
        return np.array([self.step_dissipation(self._step(qa, qb, dt)[2], dt)])

    def damper_arguments(self, dt: float, qa: np.ndarray | None = None, velocity: tuple | None = None) -> tuple:
        """``viscous_kernels.loop``'s ``damper`` (``integrators.kernels.newton_loop``'s): the discrete form
        of a step of length ``dt`` from the local coordinates ``qa`` (n_local,), or the continuous form at
        v = v~ + gamma' (q - q~) with ``velocity`` = (v~, q~, gamma') (local, generalized-alpha's)."""
        if qa is not None:
            return (DISCRETE, floats(qa), _NO_VALUE, _NO_VALUE, 0.0, float(dt), *self._kernel_arguments)
        v_known, q_known, gamma_p = velocity
        return (CONTINUOUS, _NO_VALUE, floats(v_known), floats(q_known), float(gamma_p), float(dt),
                *self._kernel_arguments)

    def step_dissipation(self, rates: np.ndarray, dt: float) -> float:
        """dt e'_m^T D e'_m of the step's mid-point ``rates`` (``viscous_kernels.dissipation``)."""
        return compiled(KERNELS).dissipation(rates, *self._D, float(dt))

    # --- generalized-alpha, statics, modes ---------------------------------------------------
    def _continuous(self, q, v, tangents):
        """F (1, n) and, with ``tangents``, dF/dq and dF/dv (1, nnz): ``viscous_kernels.continuous``."""
        n, nnz = q.shape[1], self._pattern[0].size if tangents else 0
        out = np.empty((1, n)), np.empty((1, nnz)), np.empty((1, nnz))
        compiled(KERNELS).continuous(floats(q[0]), floats(v[0]), *self._kernel_arguments, out[0][0], out[1][0],
                                     out[2][0])
        return out

    def continuous_force(self, q, v, t, dt, state=None):
        return self._continuous(q, v, False)[0]

    def continuous_tangents(self, q, v, t, dt, state=None):
        return self._continuous(q, v, True)

    def continuous_dissipation(self, q, state, qa=None, va=None, v=None, dt=None):
        """-(F(q_a, v_a) + F(q, v))/2 . (q - q_a): the trapezoidal rule's loss, the part of the step's
        work (generalized-alpha's trapezoidal sum) that the damping takes (``viscous_kernels.work_rate``)."""
        F_a, F_b = self.continuous_force(qa, va, 0.0, dt), self.continuous_force(q, v, 0.0, dt)
        return np.array([compiled(KERNELS).work_rate(F_a[0], F_b[0], floats(qa[0]), floats(q[0]))])
