"""Constraints given directly as quadratic forms of their local coordinates.

Each of the K instances has ``m`` rows over ``n`` local coordinates z,

    Phi_r(z) = 1/2 z.H_r z + g_r.z + c_r,

with constant H (K, m, n, n) symmetric, g (K, m, n) and c (K, m). The rows of the world-vector beams
(``beam.world``) are of this kind: dot products of world vectors (the slopes' s_k.d_1 = 0, a rolled
end's w.d_2 = 0, the section carriers of a material point) and linear terms (the twist psi). A
family is a ``QuadraticConstraint``, so the mid-point Jacobian is its exact discrete gradient
(000 eq. 26) and the model puts it into the affine batch (``joints.batch``) with the other
quadratic families. ``dot_form`` builds the Hessian of a dot product of two linear maps.
"""
from functools import cached_property

import numpy as np

from .base import QuadraticConstraint


def dot_form(A, B):
    """Hessian of (A z).(B z) for A, B (..., dim, n): A^T B + B^T A, (..., n, n)."""
    AtB = np.swapaxes(A, -1, -2) @ B
    return AtB + np.swapaxes(AtB, -1, -2)


class QuadraticForm(QuadraticConstraint):
    """K instances of ``m`` quadratic rows (module docstring); ``kind`` names the family in the
    constraint labels (e.g. "slope")."""

    def __init__(self, dofs, labels, kind, H, g=None, c=None):
        super().__init__(dofs, labels)
        self.kind = kind
        self.H = np.asarray(H, dtype=float)
        K, self.m, n, _ = self.H.shape
        if (K, n) != self.dofs.shape:
            raise ValueError(f"{kind}: Hessians of shape {self.H.shape} for dofs of shape {self.dofs.shape}")
        self.g = np.zeros((K, self.m, n)) if g is None else np.asarray(g, dtype=float)
        self.c = np.zeros((K, self.m)) if c is None else np.asarray(c, dtype=float)

    def phi(self, q):
        return 0.5 * np.einsum("ki,kmij,kj->km", q, self.H, q) + np.einsum("kmi,ki->km", self.g, q) + self.c

    def jacobian(self, q):
        return np.einsum("kmij,kj->kmi", self.H, q) + self.g

    @cached_property
    def _constant_jacobian(self):
        return self.g

    @cached_property
    def _hessian(self):
        return self.H
