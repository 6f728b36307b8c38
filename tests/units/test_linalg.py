"""The fixed-pattern KLU solver (exact solves, numeric refactorisation, re-pivoting, singularity) and
the fixed-pattern sparse products and sparsity pattern."""
import ctypes
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from shared import CASES

from femdyn.numerics import linalg
from femdyn.numerics.linalg import (
    CsrOperator,
    FixedPatternLU,
    RowPattern,
    SingularMatrixError,
)
from femdyn.numerics.pattern import SparsePattern


def random_pattern(n, density, seed):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=rng, format="csc") + sp.eye(n, format="csc")
    A.sort_indices()
    return A


def with_values(A, values):
    return sp.csc_matrix((values, A.indices, A.indptr), shape=A.shape)


def test_solves_and_refactors_with_new_values():
    A = random_pattern(200, 0.02, 0)
    lu = FixedPatternLU(A.indptr, A.indices)
    rng = np.random.default_rng(1)
    for _ in range(4):
        values = rng.normal(size=A.nnz)
        M = with_values(A, values).toarray()
        b = rng.normal(size=A.shape[0])
        lu.factor(values)
        x = lu.solve(b)
        assert np.abs(M @ x - b).max() <= 1e-10 * np.abs(M).max() * np.abs(x).max()
    assert lu.factorizations >= 1 and lu.factorizations + lu.refactorizations == 4


def test_repivots_when_the_old_pivots_fail():
    """A 2x2 matrix first factored with pivot a11, then given a11 = 0: reuse would divide by zero."""
    A = sp.csc_matrix(np.array([[4.0, 1.0], [1.0, 3.0]]))
    lu = FixedPatternLU(A.indptr, A.indices)
    lu.factor(A.data)
    lu.factor(np.array([0.0, 1.0, 1.0, 3.0]))
    x = lu.solve([1.0, 2.0])
    np.testing.assert_allclose(np.array([[0.0, 1.0], [1.0, 3.0]]) @ x, [1.0, 2.0], atol=1e-14)
    assert lu.factorizations == 2


def test_singular_matrix_is_reported():
    A = sp.csc_matrix(np.array([[1.0, 2.0], [2.0, 4.0]]))
    lu = FixedPatternLU(A.indptr, A.indices)
    with pytest.raises(SingularMatrixError):
        lu.factor(A.data)


def test_a_factorisation_without_room_is_abandoned_and_the_ordering_still_chosen():
    """KLU with no room to grow L + U (klu_common.memgrow = inf) gives up with KLU_TOO_LARGE instead of
    filling in (how ``FixedPatternLU._choose_ordering`` bounds its candidates), leaves KLU's settings as
    they were, and the LU then factors the matrix exactly: a random 300 x 300 matrix with 5 % entries
    fills L + U with far more than 0.01 times its entries."""
    A = random_pattern(300, 0.05, 3)
    values = np.random.default_rng(4).normal(size=A.nnz)
    lu = FixedPatternLU(A.indptr, A.indices)
    lu._Ax = values
    colamd = lu._candidates[lu._analyses.names.index("colamd")]
    settings = (lu._common.memgrow, lu._common.initmem)
    assert lu._attempt(colamd, 2, room=0.01) is None and lu._common.status == -4  # KLU_TOO_LARGE
    assert (lu._common.memgrow, lu._common.initmem) == settings
    lu.factor(values)
    b = np.arange(300.0)
    x = lu.solve(b)
    M = with_values(A, values).toarray()
    assert np.abs(M @ x - b).max() <= 1e-10 * np.abs(M).max() * np.abs(x).max()
    assert lu.fill > 0.02 * A.nnz


def test_bounding_the_candidates_keeps_the_choice_where_none_fills_in():
    """The bound on the candidates' factorisations (``FixedPatternLU._choose_ordering``) is there to stop a
    candidate that fills in like a dense matrix, not to change a choice: on the first matrices of the FEM
    3-PRR with 16 elements per link (the consistent accelerations', the Newton matrix), where no candidate
    fills in, the bounded choice has the fewest entries of L + U of the candidates made unbounded, as KLU
    grows them (the Newton matrix: AMD 12411, COLAMD 15879 entries; with KLU's own first allocation for
    AMD, 1.2 times its estimate, the pivots outgrew it and COLAMD was chosen)."""
    import femdyn

    matrices = []
    choose = FixedPatternLU._choose_ordering

    def first_matrix(lu):
        matrices.append((lu.pattern[0].copy(), lu.pattern[1].copy(), lu._Ax.copy()))
        choose(lu)

    problem = femdyn.load(CASES / "3prr_sine.toml", elements=16).with_settings(t_end=0.002).with_output(
        vtk=False, plots=False)
    FixedPatternLU._choose_ordering = first_matrix
    try:
        problem.run()
    finally:
        FixedPatternLU._choose_ordering = choose
    assert len(matrices) >= 2
    for indptr, indices, values in matrices:
        unbounded = FixedPatternLU(indptr, indices)
        unbounded._Ax = values
        numerics = [unbounded._attempt(symbolic, unbounded._common.scale) for symbolic in unbounded._candidates]
        fills = [linalg._fill(numeric.value) for numeric in numerics]
        for numeric in numerics:
            linalg._KLU.klu_free_numeric(ctypes.byref(numeric), ctypes.byref(unbounded._common))
        bounded = FixedPatternLU(indptr, indices)
        bounded.factor(values)
        assert bounded.fill == min(fills), (bounded.fill, fills)


def test_compiled_repivoting_frees_what_it_replaces_and_undoes_a_step():
    """KLU's own count of its memory (klu_common.memusage: the blocks it allocated less those it freed)
    stays that of one factorisation however often the compiled factorisation (``numerics.klu.factor``)
    pivots anew, every refactorisation refused; a compiled step keeps its start's factorisation while it
    pivots (``keep``) and puts it back when undone (``klu.undo``: the pivots, hence the refactorisations
    and solves, the counts and KLU's memory as before the step) or frees it when done; the owner's finaliser frees the current factorisation, a
    kept one and the analysis: nothing is left."""
    import gc

    from femdyn.numerics.lazy import compiled
    klu = compiled("femdyn.numerics.klu")
    A = random_pattern(200, 0.02, 0)
    rng = np.random.default_rng(1)
    values, other, b = rng.normal(size=A.nnz), rng.normal(size=A.nnz), rng.normal(size=A.shape[0])
    lu = FixedPatternLU(A.indptr, A.indices)
    lu.factor(values)
    one = lu._common.memusage
    lu.refactor_rcond_drop = np.inf
    for _ in range(40):
        assert klu.factor(*lu.pattern, values, lu.handles, lu.rcond, lu.pivoting()) == klu.PIVOTED
    assert lu._common.memusage == one and (lu.factorizations, lu.refactorizations) == (41, 0)
    del lu.refactor_rcond_drop
    lu.factor(values)  # refactorised with the pivots of ``values``
    x = lu.solve(b)
    saved = np.empty(6)
    klu.save(lu.handles, lu.pivoting(True), saved)
    lu.refactor_rcond_drop = np.inf
    for _ in range(3):  # the step's start kept, the later ones freed
        assert klu.factor(*lu.pattern, other, lu.handles, lu.rcond, lu.pivoting(True)) == klu.PIVOTED
    assert lu.handles[3] and lu._common.memusage > one and lu.factorizations == 44
    klu.undo(lu.handles, lu.pivoting(True), saved)
    assert not lu.handles[3] and lu._common.memusage == one and (lu.factorizations, lu.refactorizations) == (41, 1)
    del lu.refactor_rcond_drop
    lu.factor(values)  # the pivots of before the step: the same factors
    assert lu.refactorizations == 2 and np.array_equal(lu.solve(b), x)
    klu.factor(*lu.pattern, other, lu.handles, lu.rcond, lu.pivoting(True))
    klu.free(lu.handles, 3)  # the step done: its start's factorisation freed
    y, M = lu.solve(b), with_values(A, other)
    assert not lu.handles[3] and np.abs(M @ y - b).max() <= 1e-10 * abs(M).max() * np.abs(y).max()
    lu.refactor_rcond_drop = np.inf
    klu.factor(*lu.pattern, values, lu.handles, lu.rcond, lu.pivoting(True))
    assert lu.handles[3] and lu._common.memusage > one
    common = lu._common
    del lu
    gc.collect()
    assert common.memusage == 0


def test_row_pattern_products_equal_scipy_ones():
    """A x on a pattern with repeated and unsorted columns, empty rows and changing values,
    against SciPy's sparse products; wrong lengths are refused before the compiled kernel runs."""
    rng = np.random.default_rng(2)
    m, n = 40, 30
    rows = np.sort(rng.integers(0, m - 5, size=300))  # the last rows stay empty
    cols = rng.integers(0, n, size=300)
    pattern = RowPattern(rows, cols, (m, n))
    x, y = rng.normal(size=n), rng.normal(size=m)
    for _ in range(3):
        values = rng.normal(size=rows.size)
        A = sp.csr_matrix((values, (rows, cols)), shape=(m, n))
        assert np.abs(pattern.times(values, x) - A @ x).max() <= 1e-13 * np.abs(A @ x).max()
    assert np.abs(CsrOperator(A) @ x - A @ x).max() <= 1e-13 * np.abs(A @ x).max()
    with pytest.raises(ValueError, match="RowPattern"):
        pattern.times(values[:-1], x)
    with pytest.raises(ValueError, match="RowPattern"):
        CsrOperator(A) @ y  # a vector of the row length
    with pytest.raises(ValueError, match="grouped by row"):
        RowPattern(rows[::-1], cols, (m, n))


def test_sparse_pattern_is_scipys_csc_with_little_transient_memory():
    """The fixed pattern of entries with duplicates and empty columns is SciPy's CSC structure of the
    summed entries, and its ``positions`` refill the data array to SciPy's sums; built on 8e5 entries
    (the pendulum with 4096 beam elements has 802774) with at most 4.5 arrays of int64 per entry
    alive at once (43.6 MiB, 7.1 arrays, through ``np.unique(return_inverse=True)``)."""
    rng = np.random.default_rng(6)
    n, entries = 20503, 802774
    rows, cols = rng.integers(0, n, entries), rng.integers(0, n - 3, entries)  # the last columns stay empty
    tracemalloc.start()
    pattern = SparsePattern((n, n), rows, cols)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= 4.5 * 8 * entries, peak / (8 * entries)
    data = rng.normal(size=entries)
    expected = sp.csc_matrix((data, (rows, cols)), shape=(n, n))
    expected.sum_duplicates()
    assert pattern.nnz == expected.nnz
    assert np.array_equal(pattern.indptr, expected.indptr) and np.array_equal(pattern.indices, expected.indices)
    assert np.abs(pattern.values(data) - expected.data).max() <= 1e-14 * np.abs(expected.data).max()
