"""Carrier constraints of flexible bodies: c_j - q_j d_1 = 0 (2 rows per elastic coordinate), which
tie each carrier vector to its elastic coordinate and the body's first director
(``flexible`` module docstring). Bilinear, so the mid-point Jacobian is an exact discrete gradient.
Local coordinates: [d_1 (2), c_j (2), q_j]."""
import numpy as np

from .base import QuadraticConstraint


class Carrier(QuadraticConstraint):
    m = 2

    def phi(self, q):
        return q[:, 2:4] - q[:, 4:5] * q[:, 0:2]

    def jacobian(self, q):
        G = np.zeros((q.shape[0], 2, 5))
        G[:, [0, 1], [0, 1]] = -q[:, 4:5]
        G[:, [0, 1], [2, 3]] = 1.0
        G[:, :, 4] = -q[:, 0:2]
        return G
