"""Spherical pair (ball joint, spatial only): the joint points coincide."""
from .base import JointPair


class Spherical(JointPair):
    dims = (3,)

    @classmethod
    def oriented(cls, dim):
        return False

    def build_terms(self, C1, C2, F1, F2):
        return [("points", C1, C2)]
