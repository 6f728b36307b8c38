"""Universal (Hooke) joint, spatial only: the joint points coincide and the cross axes x1 (on body 1)
and y2 (on body 2) stay perpendicular."""
from .base import JointPair


class Universal(JointPair):
    dims = (3,)

    def build_terms(self, C1, C2, F1, F2):
        return [("points", C1, C2), ("dot", F1[0], F2[1], 0.0)]
