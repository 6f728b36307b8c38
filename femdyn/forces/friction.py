"""Energy-consistent joint friction (001 section 4.2)."""
import numpy as np

from ..numerics.lazy import compiled, floats
from .base import CONTINUOUS, DISCRETE, Force

# ``friction_kernels.loop``'s forms (``base.DISCRETE``, ``CONTINUOUS``): the energy-consistent return map over
# a step (energy-momentum) and the backward-Euler one at its end (generalized-alpha)
KERNELS = __package__ + ".friction_kernels"  # numba: imported where the kernels run


class Friction(Force):
    """Joint friction as 1D perfect plasticity (001 section 4.2): a spring E in series with a slider
    that sticks while |F| < F_max. On coordinate q with plastic slip p (the state):
    psi = E/2 (q - p)^2, F_int = E (q - p), |F_int| <= F_max (001 eqs. 15-22).

    Return mapping with p_n fixed: trial e = q_b - p_n; stick if E |e| <= F_max (p_b = p_n), else slip
    to e_b = sign(e) F_max/E, p_b = q_b - e_b, dissipation D = F_max |p_b - p_n| (001 eq. 25).
    The algorithmic force of 001 eq. 26, F = (psi_b - psi_a + D)/(q_b - q_a), makes
    F (q_b - q_a) = psi_b - psi_a + D exactly, so H_n+1 - H_n + D = 0. Written out (e_a = q_a - p_n):
    stick: F = E (q_mid - p_n);  slip: F = E e_b - E/2 (e_b - e_a)^2/(q_b - q_a),
    which stays finite because |q_b - q_a| >= |e_b - e_a| whenever the step slips.
    Local coordinates: the one coordinate (K, 1).

    Generalized-alpha evaluates the force at the step's end q_n+1 only, by the backward-Euler return
    map from the slip p_n of the step's start: trial e = q - p_n, slip if E |e| > F_max to
    e = sign(e) F_max/E; force -E e, derivative 0 while slipping, else -E; new slip p = q - e,
    dissipation F_max |p - p_n| (``continuous_force`` and the methods after it).
    """

    dissipative = True

    def __init__(self, dofs, labels, stiffness, max_force):
        super().__init__(dofs)
        self.labels = list(labels)
        self.E, self.F_max = (np.ascontiguousarray(v, dtype=np.float64).reshape(-1) for v in (stiffness, max_force))
        self.tangent_mask = np.ones((1, 1), dtype=bool)

    def initial_state(self, q):
        """Unstressed at the start: the plastic slip is the initial coordinate, so |E e| <= F_max."""
        return q[:, 0].copy()

    def _discrete(self, qa, qb, p):
        """The force (K, 1), its derivative (K, 1, 1) and the slip at the end of a step (K,):
        ``friction_kernels.discrete``."""
        K = p.size
        out = np.empty((K, 1)), np.empty((K, 1, 1)), np.empty(K)
        compiled(KERNELS).discrete(floats(qa), floats(qb), floats(p), self.E, self.F_max, out[0].reshape(K),
                                   out[1].reshape(K), out[2])
        return out

    def _backward_euler(self, q, p):
        """The force (K, 1), its derivative (K, 1) and the new slip (K,) of the backward-Euler return
        map at q from the slip p_n = p: ``friction_kernels.backward_euler``."""
        K = p.size
        out = np.empty((K, 1)), np.empty((K, 1)), np.empty(K)
        compiled(KERNELS).backward_euler(floats(q), floats(p), self.E, self.F_max, out[0].reshape(K),
                                         out[1].reshape(K), out[2])
        return out

    def friction_arguments(self, state: np.ndarray, qa: np.ndarray | None = None) -> tuple:
        """``friction_kernels.loop``'s ``friction`` (``integrators.kernels.newton_loop``'s): the form, the
        step's start ``qa`` (K,) (None: the backward-Euler map at the step's end), a copy of the slip
        ``state`` of the step's start (the compiled steps advance it in place), E and F_max."""
        if qa is None:
            return (CONTINUOUS, np.zeros(0), np.array(state, dtype=np.float64), self.E, self.F_max)
        return (DISCRETE, floats(qa).copy(), np.array(state, dtype=np.float64), self.E, self.F_max)

    def potential(self, q, state=None):
        return float(np.sum(0.5 * self.E * (q[:, 0] - state) ** 2))

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self._discrete(qa, qb, state)[0]

    def tangent(self, qa, qb, t_mid, dt, state=None):
        return self._discrete(qa, qb, state)[1]

    def advance(self, qa, qb, state):
        return self._discrete(qa, qb, state)[2]

    def dissipation(self, qa, qb, state, dt=None):
        """F_max |p_b - p_n| per element (>= 0)."""
        return self.F_max * np.abs(self.advance(qa, qb, state) - state)

    def continuous_force(self, q, v, t, dt, state=None):
        """-E e (K, 1) of the backward-Euler return map."""
        return self._backward_euler(q, state)[0]

    def continuous_tangents(self, q, v, t, dt, state=None):
        """The force -E e (K, 1) and its derivative (K, 1): 0 while slipping, else -E."""
        force, tangent, _ = self._backward_euler(q, state)
        return force, tangent, None

    def continuous_advance(self, q, state):
        """The new slip p = q - e where the step slips, else p_n."""
        return self._backward_euler(q, state)[2]

    def continuous_dissipation(self, q, state, qa=None, va=None, v=None, dt=None):
        """F_max |p - p_n| per element (>= 0)."""
        return self.F_max * np.abs(self.continuous_advance(q, state) - state)
