"""Carrier constraints of flexible bodies (``flexible`` module docstring): the carrier vector c_j of
elastic coordinate q_j is q_j d_1, written as the two scalar rows

    c_j . d_1 - q_j = 0,     c_j . d_2 = 0.

Both rows are invariant under a rotation of all vectors (the vector form c_j - q_j d_1 = 0 is only
equivariant, and its mid-point discrete gradient would leave an O(dt^2) torque on the body), so the
angular momentum is conserved exactly; both are bilinear, so the mid-point Jacobian is an exact
discrete gradient (000 eq. 26). Local coordinates: [d_1 (2), d_2 (2), c_j (2), q_j]."""
import numpy as np

from .base import QuadraticConstraint


class Carrier(QuadraticConstraint):
    m = 2

    def phi(self, q):
        c = q[:, 4:6]
        return np.stack([np.sum(c * q[:, 0:2], axis=1) - q[:, 6], np.sum(c * q[:, 2:4], axis=1)], axis=1)

    def jacobian(self, q):
        G = np.zeros((q.shape[0], 2, 7))
        G[:, 0, 0:2], G[:, 0, 4:6], G[:, 0, 6] = q[:, 4:6], q[:, 0:2], -1.0
        G[:, 1, 2:4], G[:, 1, 4:6] = q[:, 4:6], q[:, 2:4]
        return G
