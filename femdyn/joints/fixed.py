"""Fixed pair (weld): the joint points coincide and the relative orientation is locked."""
from .base import JointPair, orientation_lock


class Fixed(JointPair):
    def build_terms(self, C1, C2, F1, F2):
        return [("points", C1, C2)] + orientation_lock(F1, F2)
