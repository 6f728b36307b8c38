"""Prismatic pair: the relative orientation is locked and the joint points may only separate along
the sliding axis x1 of body 1 (000 eqs. 44-47; m = y1 there). Can be augmented with its slide."""
from .base import JointPair, orientation_lock


class Prismatic(JointPair):
    coordinates = ("slide",)

    def build_terms(self, C1, C2, F1, F2):
        across = [("along", C1, C2, F) for F in F1[1:]]
        return across + orientation_lock(F1, F2)
