"""Coordinate augmentation with the slide of a prismatic (or cylindrical) pair, 000 eqs. 49-55:
Phi = (p2 - p1).n - u with the sliding axis n = x1 fixed in body 1. The constraint is quadratic, so its
discrete Jacobian is the mid-point Jacobian (000 eq. 55). Local coordinates: [q1, q2, u]."""

from .base import TwoBodyConstraint


class Slide(TwoBodyConstraint):
    m = 1

    def __init__(self, dofs, labels, side1, side2):
        super().__init__(dofs, labels)
        self.n1, self.n2 = side1.point.shape[2], side2.point.shape[2]
        self.terms = [("along", side1.point, side2.point, side1.axes[0])]

    def phi(self, q):
        return super().phi(q) - q[:, self.n1 + self.n2 :]

    def jacobian(self, q):
        G = super().jacobian(q)
        G[:, 0, self.n1 + self.n2] = -1.0
        return G
