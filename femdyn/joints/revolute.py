"""Revolute pair. Planar: the joint points coincide (000 eqs. 21-23). Spatial: the points coincide and
the joint x axes stay parallel (y1.x2 = z1.x2 = 0). Can be augmented with its joint angle."""
from .base import JointPair


class Revolute(JointPair):
    coordinates = ("angle",)

    @classmethod
    def oriented(cls, dim):
        return dim == 3

    def build_terms(self, C1, C2, F1, F2):
        terms = [("points", C1, C2)]
        if self.dim == 3:
            terms += [("dot", F1[1], F2[0], 0.0), ("dot", F1[2], F2[0], 0.0)]
        return terms
