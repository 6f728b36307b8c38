"""Cylindrical pair, spatial only: the joint axes x1, x2 stay collinear (parallel, and the points
separate only along x1); rotation about and sliding along the axis are free."""
from .base import JointPair


class Cylindrical(JointPair):
    dims = (3,)
    coordinates = ("angle", "slide")

    def build_terms(self, C1, C2, F1, F2):
        return [("along", C1, C2, F1[1]), ("along", C1, C2, F1[2]),
                ("dot", F1[1], F2[0], 0.0), ("dot", F1[2], F2[0], 0.0)]
