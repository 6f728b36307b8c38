"""Loads: uniform gravity and loads of fixed direction scaled by a function of time."""
import numpy as np

from .base import Force


class Gravity(Force):
    """Uniform gravity as a constant generalised force w = int rho N^T g (m g on a rigid body's centre
    of mass): V = -w.q, linear, so grad_bar V = grad V."""

    conservative = True

    def __init__(self, dofs, weights):
        super().__init__(dofs)
        self.weights = np.asarray(weights, dtype=float)

    def potential(self, q, state=None):
        return -float(np.sum(self.weights * q))

    def potential_history(self, Q, states):
        return -np.sum(self.weights * Q, axis=(1, 2))

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self.weights


class TimeLoad(Force):
    """Loads with a fixed direction in the generalised coordinates scaled by a function of time,
    evaluated at the mid-time (000 eq. 6 with Q(q_n+1/2)): joint torques and forces on augmented
    coordinates (``directions`` = 1) and point forces on bodies (``directions`` = C(X)^T f)."""

    def __init__(self, dofs, directions, functions):
        super().__init__(dofs)
        self.directions = np.asarray(directions, dtype=float)
        self.functions = list(functions)

    def time_targets(self):
        return [("a load", f) for f in self.functions]

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        scale = np.array([float(f(t_mid)) for f in self.functions])
        return scale[:, None] * self.directions
