"""Coordinate augmentation with the slide of a prismatic (or cylindrical) pair, 000 eqs. 49-55:
Phi = (p2 - p1).n - u with the sliding axis n = x1 fixed in body 1. The constraint is quadratic, so its
discrete Jacobian is the mid-point Jacobian (000 eq. 55). Local coordinates: [q1, q2, u]."""

from ..kinematics import direction_matrix, point_matrix
from .base import TwoBodyConstraint


class Slide(TwoBodyConstraint):
    m = 1

    def __init__(self, dofs, labels, points1, points2, frames1, frames2):
        super().__init__(dofs, labels)
        dim = points1.shape[1]
        self.nb = dim * (dim + 1)
        self.terms = [("along", point_matrix(points1), point_matrix(points2),
                       direction_matrix(frames1[:, :, 0]))]

    def phi(self, q):
        return super().phi(q) - q[:, 2 * self.nb :]

    def jacobian(self, q):
        G = super().jacobian(q)
        G[:, 0, 2 * self.nb] = -1.0
        return G
