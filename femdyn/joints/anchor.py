"""The ground: a body whose coordinates are held at fixed values, Phi = q - q0 (linear). Joints to the
ground are ordinary pairs with this body, so one code path serves grounded and floating systems."""
import numpy as np

from .base import QuadraticConstraint


class Anchor(QuadraticConstraint):
    def __init__(self, dofs, labels, values):
        super().__init__(dofs, labels)
        self.values = np.asarray(values, dtype=float)
        self.m = self.dofs.shape[1]

    def phi(self, q):
        return q - self.values

    def jacobian(self, q):
        return np.broadcast_to(np.eye(self.m), (q.shape[0], self.m, self.m)).copy()
