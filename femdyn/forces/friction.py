"""Energy-consistent joint friction (001 section 4.2)."""
import numpy as np

from .base import Force


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
        self.E, self.F_max = np.asarray(stiffness, dtype=float), np.asarray(max_force, dtype=float)
        self.tangent_mask = np.ones((1, 1), dtype=bool)

    def initial_state(self, q):
        """Unstressed at the start: the plastic slip is the initial coordinate, so |E e| <= F_max."""
        return q[:, 0].copy()

    def _return_map(self, qa, qb, p):
        """e_a, e_b, slip mask and the algorithmic force F (K,)."""
        qa, qb = qa[:, 0], qb[:, 0]
        e_a, e_trial = qa - p, qb - p
        # a step without motion sticks: after a slip e_a may exceed F_max/E by round-off
        slip = (self.E * np.abs(e_trial) > self.F_max) & (qb != qa)
        e_b = np.where(slip, np.sign(e_trial) * self.F_max / self.E, e_trial)
        dq = np.where(slip, qb - qa, 1.0)
        force = np.where(slip, self.E * e_b - 0.5 * self.E * (e_b - e_a) ** 2 / dq,
                         self.E * (0.5 * (qa + qb) - p))
        return e_a, e_b, slip, force

    def potential(self, q, state=None):
        return float(np.sum(0.5 * self.E * (q[:, 0] - state) ** 2))

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return -self._return_map(qa, qb, state)[3][:, None]

    def tangent(self, qa, qb, t_mid, dt, state=None):
        e_a, e_b, slip, _ = self._return_map(qa, qb, state)
        dq = np.where(slip, qb[:, 0] - qa[:, 0], 1.0)
        return -np.where(slip, 0.5 * self.E * (e_b - e_a) ** 2 / dq**2, 0.5 * self.E)[:, None, None]

    def advance(self, qa, qb, state):
        _, e_b, _, _ = self._return_map(qa, qb, state)
        return qb[:, 0] - e_b

    def dissipation(self, qa, qb, state):
        """F_max |p_b - p_n| per element (>= 0)."""
        return self.F_max * np.abs(self.advance(qa, qb, state) - state)

    def _backward_euler(self, q, slip_start):
        """Backward-Euler return map of 1D perfect plasticity from the slip p_n = ``slip_start``: the
        elastic part e (K,) and the slip mask."""
        trial = q[:, 0] - slip_start
        slip = self.E * np.abs(trial) > self.F_max
        return np.where(slip, np.sign(trial) * self.F_max / self.E, trial), slip

    def continuous_force(self, q, v, t, dt, state=None):
        """-E e (K, 1) of the backward-Euler return map."""
        return (-self.E * self._backward_euler(q, state)[0])[:, None]

    def continuous_tangents(self, q, v, t, dt, state=None):
        """The force -E e (K, 1) and its derivative (K, 1): 0 while slipping, else -E."""
        e, slip = self._backward_euler(q, state)
        return (-self.E * e)[:, None], np.where(slip, 0.0, -self.E)[:, None], None

    def continuous_advance(self, q, state):
        """The new slip p = q - e where the step slips, else p_n."""
        e, slip = self._backward_euler(q, state)
        return np.where(slip, q[:, 0] - e, state)

    def continuous_dissipation(self, q, state):
        """F_max |p - p_n| per element (>= 0)."""
        return self.F_max * np.abs(self.continuous_advance(q, state) - state)
