"""Internal constraints of rigid director bodies: the directors stay orthonormal,
1/2 (d_a.d_a - 1) = 0 and d_a.d_b = 0 for a < b (000 eqs. 9 and 15; 001 eq. 6 with the factor 1/2)."""
import numpy as np

from .base import QuadraticConstraint


class Orthonormality(QuadraticConstraint):
    def __init__(self, dofs, labels, dim):
        super().__init__(dofs, labels)
        self.dim = dim
        self.pairs = [(a, a) for a in range(dim)] + [(a, b) for a in range(dim) for b in range(a + 1, dim)]
        self.m = len(self.pairs)

    def _director(self, q, a):
        return q[:, self.dim * (a + 1) : self.dim * (a + 2)]

    def phi(self, q):
        rows = []
        for a, b in self.pairs:
            dot = np.sum(self._director(q, a) * self._director(q, b), axis=1)
            rows.append(0.5 * (dot - 1.0) if a == b else dot)
        return np.stack(rows, axis=1)

    def jacobian(self, q):
        K, n = q.shape
        G = np.zeros((K, self.m, n))
        for r, (a, b) in enumerate(self.pairs):
            G[:, r, self.dim * (a + 1) : self.dim * (a + 2)] += self._director(q, b) * (0.5 if a == b else 1.0)
            G[:, r, self.dim * (b + 1) : self.dim * (b + 2)] += self._director(q, a) * (0.5 if a == b else 1.0)
        return G
