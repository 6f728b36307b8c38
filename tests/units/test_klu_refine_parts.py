"""``numerics.klu.refine_parts``: iterative refinement of a solve with the factors of A_0 + T, the
residual formed from the unsummed parts. The problem is a fine beam's Newton matrix in miniature: a
mass m on each node (A_0 = m I) and a bending stiffness k D^T D (D the second differences: rigid
motions free, the slow modes set by the mass alone) of identical elements, 6k = 6e11 m on the
diagonal. Summed in double, every interior diagonal entry m + 6k keeps the mass only to the rounding
of that sum -- the same in each, up to eps 6k / (2 m) = 6e-5 of the mass for the m chosen -- so the
solution of the factored sum is off by that much in the slow modes, which
fixed-precision refinement against that sum cannot see; refined against the parts it comes to the
solution of A_0 + T itself, up to the round-off of its own residual (the reference: refinement with the
residual of the parts in long double)."""
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from femdyn.numerics.lazy import compiled
from femdyn.numerics.linalg import FixedPatternLU

N, K = 2000, 1e10


def rounding(mass):
    """|fl(mass + 6 K) - (mass + 6 K)| / mass, exactly."""
    return abs(Fraction(mass + 6 * K) - Fraction(mass) - Fraction(6 * K)) / Fraction(mass)


MASS = max((0.1 + 0.001 * i for i in range(200)), key=rounding)  # the mass whose diagonal rounds the most


def test_refinement_against_the_parts_solves_the_unsummed_system():
    klu = compiled("femdyn.numerics.klu")
    D = sp.diags([1.0, -2.0, 1.0], [0, 1, 2], shape=(N - 2, N))
    T = (K * (D.T @ D)).tocoo()
    A = (MASS * sp.eye(N) + T).tocsc()
    A.sort_indices()
    column = np.repeat(np.arange(N), np.diff(A.indptr))
    base = MASS * (A.indices == column)  # A_0 = m I on A's pattern
    lu = FixedPatternLU(A.indptr, A.indices)
    lu.factor(A.data)
    b = np.sin(np.linspace(0.0, np.pi, N))  # a load on the slow modes
    rows, cols = T.row.astype(np.int64), T.col.astype(np.int64)

    exact = lu.solve(b)  # the reference: refined against the parts, the residual in long double
    Tl = sp.csr_matrix((T.data.astype(np.longdouble), (T.row, T.col)), shape=A.shape)
    for _ in range(8):
        residual = b.astype(np.longdouble) - MASS * exact.astype(np.longdouble) - Tl @ exact.astype(np.longdouble)
        exact = exact + lu.solve(np.asarray(residual, dtype=float))

    def error(x):
        return np.abs(x - exact).max() / np.abs(exact).max()

    coherent = float(rounding(MASS))  # each interior diagonal's rounding, relative to the mass
    assert 0.25 * np.finfo(float).eps * 6 * K / MASS <= coherent <= 0.5 * np.finfo(float).eps * 6 * K / MASS
    summed, parts = lu.solve(b), lu.solve(b)
    klu.refine(*lu.handles, lu._Ap, lu._Ai, A.data, b, summed, 3)
    klu.refine_parts(*lu.handles, lu._Ap, lu._Ai, base, rows, cols, T.data, 1.0, b, parts, 3)
    assert error(summed) >= 0.5 * coherent  # at the factored sum's own solution
    # the unsummed system's, to the round-off of the residual itself (eps k |D^T D| |x| in each row,
    # not the same in each: it averages out over the slow modes)
    assert error(parts) <= 0.2 * error(summed)
