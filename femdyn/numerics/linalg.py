"""Sparse LU for Newton matrices with a fixed pattern: KLU from SuiteSparse through ctypes.

KLU (Davis & Palamadai Natarajan) is made for sequences of matrices with one sparsity pattern:
``klu_analyze`` orders the pattern once, ``klu_factor`` picks the pivots once, and every later matrix
is factored by ``klu_refactor`` with the same ordering and pivot order, numerics only. Two analyses
are made -- AMD on the pattern as it is, and COLAMD after the block triangular form (BTF) -- and the
first matrix is factored with each; the one with fewer entries in L + U is kept. Those factorisations
are bounded (KLU has no fill limit of its own): with klu_common.memgrow = inf, one that outgrows the room
given (``AMD_ROOM``) stops (KLU_TOO_LARGE) and is made again unscaled (``_choose_ordering``). KLU's
default (BTF, then AMD) is not among them: the BTF row permutation that puts non-zeros on the diagonal of our
saddle-point matrices leaves them 8 % symmetric, and AMD on that pattern fills in like n^2 for
flexible bodies (256 beam elements: 28 ms per refactorisation against 1.1 ms with COLAMD and
2.6 ms with AMD without BTF). KLU scales each row by its largest entry before the threshold test of
partial pivoting (``tol`` = 1e-3); on the swinging flexible pendulum that test made the re-pivoting
factorisations pick pivots in the dense rows of the floating frame, which fill L + U like a dense
matrix (1024 beam elements at dt = 1e-2: 1.0e5 entries at the first factorisation, 1.2e7 after the
third re-pivoting, n = 5143; 0.85 s per step instead of 12 ms). So a pivoting factorisation with more
than ``fill_growth`` times the first one's entries is made again without row scaling
(``klu_common.scale = 0``; the Newton matrices are balanced already, the multipliers scaled to the
mass block, ``saddle``), and the run stays unscaled: those matrices then keep 1.0e5 entries with
backward errors of 2e-16 to 4e-16. A new ``klu_analyze`` would not help: the ordering is symbolic,
the fill comes from the pivots. With ``unscaled_repivots`` (the Newton matrices of a run,
``integrators.kept_lu``) every pivoting factorisation after the first is made unscaled at once: the
scaled attempt that the fill test throws away cost 37 s and 1.5 GB at 4096 beam elements. If the
reciprocal condition estimate of a refactorisation falls far below that of the last pivoting
factorisation, the pivots are chosen anew (``klu_factor``), so reuse never costs accuracy. ``solve(b, refine=k)`` adds k steps of fixed-precision iterative refinement (Wilkinson; residual
b - A x in working precision, N. J. Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
SIAM 2002, ch. 12): it does not beat the condition number, but it removes the error of the LU itself
(for the flexible pendulum with 4096 beam elements the forward error of a KLU solve drops from about
2e-3 to 5e-5 with one step, at the cost of one sparse product and one more solve). SciPy's SuperLU cannot reuse its analysis (see benchmarks/solvers.py for the comparison).
libklu is the kvxopt wheel's, loaded by path (``suitesparse``). The factorisations (refactorised, or
pivoting where KLU refuses) and solves call it from compiled code (``klu``), also inside the compiled
Newton iteration; the analyses and the first factorisations that choose the ordering through ctypes.
"""
import ctypes

import numpy as np
import scipy.sparse as sp
from scipy.sparse._sparsetools import csr_matvec  # the compiled kernel behind sparse @ vector

from .lazy import compiled
from .suitesparse import klu_library

# a bounded AMD attempt's room for L and U (``FixedPatternLU._attempt``): times the analysis' estimate. KLU's
# default first allocation (klu_common.initmem_amd = 1.2) is outgrown by pivots that a run keeps: the Newton
# matrix of the 3-PRR with 16 elements per link fills 12411 entries by AMD, which 1.2 abandoned for COLAMD's
# 15879 (28 % more entries); the fills to stop are hundreds of times the estimate (1.0e8 for 4.3e5)
AMD_ROOM = 10.0
# candidate analyses: (fill-reducing ordering of klu_common, block triangular form on/off)
ORDERINGS = {"amd": (0, 0), "colamd": (1, 1)}


class SingularMatrixError(RuntimeError):
    pass


# Below this many entries (rows x columns) a constant matrix is kept dense for repeated products: a
# NumPy product costs about 1 us plus the arithmetic, which is what a small model's Newton iteration
# is made of (about 8 products).
DENSE_ENTRIES = 20_000


class RowPattern:
    """The fixed sparsity pattern of an (m, n) matrix with entries (``rows``, ``cols``) in the order
    given, grouped by row (CSR without sorted or unique columns), for products with values that
    change: ``times(values, x)`` = A x, the values in
    pattern order. Calls SciPy's compiled CSR kernel directly: ``scipy.sparse``'s ``@`` spends
    about 15 us on checks and dispatch before them (7 us of arithmetic for 600 x 600 with 3600
    entries), which was a quarter of a modified Newton iteration of the 64-element pendulum."""

    def __init__(self, rows, cols, shape):
        rows = np.asarray(rows)
        if np.any(np.diff(rows) < 0):
            raise ValueError("RowPattern: entries must be grouped by row")
        self.shape = shape
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=shape[0]))]).astype(np.int32)
        self.indices = np.asarray(cols, dtype=np.int32)

    def values(self, values):
        """``values`` as the compiled kernels need them (float64, contiguous, one per entry): they do
        not check lengths themselves. Constant values are checked once this way (``CsrOperator``)."""
        values = np.ascontiguousarray(values, dtype=np.float64)
        if values.shape != self.indices.shape:
            raise ValueError(f"RowPattern of shape {self.shape} with {self.indices.size} entries: got values of "
                             f"shape {values.shape}")
        return values

    def _vector(self, vector, length):
        vector = np.ascontiguousarray(vector, dtype=np.float64)
        if vector.shape != (length,):
            raise ValueError(f"RowPattern of shape {self.shape}: got a vector of shape {vector.shape}")
        return vector

    def times(self, values, x):
        return self.product(self.values(values), x)

    def product(self, values, x):
        """A x for ``values`` that ``values`` has returned."""
        x = self._vector(x, self.shape[1])
        y = np.zeros(self.shape[0])
        csr_matvec(*self.shape, self.indptr, self.indices, values, x, y)
        return y


class CsrOperator:
    """A constant CSR matrix for repeated products with vectors, ``A @ x`` for x of shape (columns,),
    through ``RowPattern``; x of shape (columns, F) (F vectors at once, rare) goes through SciPy."""

    def __init__(self, matrix):
        matrix = sp.csr_matrix(matrix, dtype=np.float64)
        matrix.sum_duplicates()
        self.shape = matrix.shape
        self._pattern = RowPattern(np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr)), matrix.indices,
                                   matrix.shape)
        self._data = self._pattern.values(matrix.data)
        self._matrix = matrix

    def __matmul__(self, x):
        return self._pattern.product(self._data, x) if x.ndim == 1 else self._matrix @ x


def operator(matrix):
    """A constant sparse matrix as the cheaper operand of repeated matrix-vector products
    ``operator(A) @ x``: a dense array if it has at most ``DENSE_ENTRIES`` entries, else a
    ``CsrOperator``."""
    matrix = sp.csr_matrix(matrix)
    return matrix.toarray() if matrix.shape[0] * matrix.shape[1] <= DENSE_ENTRIES else CsrOperator(matrix)


class _KluCommon(ctypes.Structure):
    """klu_common of klu.h (KLU 1.3 of SuiteSparse 4.4 to 5.x, int version)."""

    _fields_ = [("tol", ctypes.c_double), ("memgrow", ctypes.c_double), ("initmem_amd", ctypes.c_double),
                ("initmem", ctypes.c_double), ("maxwork", ctypes.c_double), ("btf", ctypes.c_int),
                ("ordering", ctypes.c_int), ("scale", ctypes.c_int), ("user_order", ctypes.c_void_p),
                ("user_data", ctypes.c_void_p), ("halt_if_singular", ctypes.c_int), ("status", ctypes.c_int),
                ("nrealloc", ctypes.c_int), ("structural_rank", ctypes.c_int), ("numerical_rank", ctypes.c_int),
                ("singular_col", ctypes.c_int), ("noffdiag", ctypes.c_int), ("flops", ctypes.c_double),
                ("rcond", ctypes.c_double), ("condest", ctypes.c_double), ("rgrowth", ctypes.c_double),
                ("work", ctypes.c_double), ("memusage", ctypes.c_size_t), ("mempeak", ctypes.c_size_t)]


KLU_LIBRARY = klu_library()
KERNELS = __package__ + ".klu"  # numba: imported where the refactorisations and solves run


def _load_klu():
    lib = ctypes.CDLL(KLU_LIBRARY)
    p, c = ctypes.c_void_p, ctypes.POINTER(_KluCommon)
    for fn, res, args in [("klu_defaults", ctypes.c_int, [c]), ("klu_analyze", p, [ctypes.c_int, p, p, c]),
                          ("klu_factor", p, [p, p, p, p, c]), ("klu_refactor", ctypes.c_int, [p, p, p, p, p, c]),
                          ("klu_solve", ctypes.c_int, [p, p, ctypes.c_int, ctypes.c_int, p, c]),
                          ("klu_rcond", ctypes.c_int, [p, p, c]),
                          ("klu_free_symbolic", ctypes.c_int, [ctypes.POINTER(p), c]),
                          ("klu_free_numeric", ctypes.c_int, [ctypes.POINTER(p), c])]:
        getattr(lib, fn).restype, getattr(lib, fn).argtypes = res, args
    return lib


_KLU = _load_klu()


def _fill(numeric):
    """Entries of L + U of a KLU factorisation (klu_numeric starts with n, nblocks, lnz, unz)."""
    counts = ctypes.cast(numeric, ctypes.POINTER(ctypes.c_int * 4)).contents
    return counts[2] + counts[3]


class Analyses:
    """KLU's analyses of one pattern, one per ordering of ``orderings`` (``ORDERINGS``' by default), for the
    LUs of the matrices on it: each ``FixedPatternLU`` given them chooses among them without analysing the
    pattern again (an analysis depends on the pattern alone). Freed with this object, which every LU
    using them holds."""

    def __init__(self, indptr, indices, orderings=ORDERINGS):
        Ap, Ai = (np.ascontiguousarray(a, dtype=np.int32) for a in (indptr, indices))
        self._common = _KluCommon()
        _KLU.klu_defaults(ctypes.byref(self._common))
        self.names, self.symbolic = list(orderings), []
        for ordering, btf in orderings.values():
            self._common.ordering, self._common.btf = ordering, btf
            symbolic = ctypes.c_void_p(_KLU.klu_analyze(len(Ap) - 1, Ap.ctypes.data, Ai.ctypes.data,
                                                        ctypes.byref(self._common)))
            if not symbolic:
                raise MemoryError("KLU analysis failed")
            self.symbolic.append(symbolic)

    def __del__(self):
        for symbolic in getattr(self, "symbolic", ()):
            _KLU.klu_free_symbolic(ctypes.byref(symbolic), ctypes.byref(self._common))


SCALE_AT = _KluCommon.scale.offset  # where klu_common.scale lies (``klu.factor`` turns it off)


class FixedPatternLU:
    """LU factorisation of CSC matrices sharing ``indptr``/``indices``, refilled with new values.

    Its KLU state lives in arrays that compiled code reads and writes (``klu.factor``): ``handles`` the
    addresses of klu_symbolic, klu_numeric, klu_common and of a klu_numeric kept for an undo (0: none),
    ``rcond`` klu_common.rcond, ``record`` (``refactor_rcond_drop``, klu_rcond of the last pivoting
    factorisation, ``fill_growth``, the first factorisation's fill, ``unscaled_repivots``), ``counts``
    (pivoting factorisations, refactorisations, whether the last was pivoting). Whatever factorisation
    ``handles`` holds at the end is freed with the object; the analyses are ``Analyses``', shared."""

    refactor_rcond_drop = 1e-3  # re-pivot if rcond falls below this fraction of the last pivoting one
    fill_growth = 2.0  # a pivoting factorisation filling more than this times the first: made unscaled
    HANDLES = range(4)  # slots of ``handles``: symbolic, numeric, common, kept numeric
    unscaled_repivots = False  # pivots chosen anew after the first factorisation without row scaling
    RECORD = range(5)  # slots of ``record``: drop, pivoting rcond, growth, first fill, unscaled re-pivots
    COUNTS = range(3)  # slots of ``counts``: pivoting, refactorised, last pivoting

    def __init__(self, indptr, indices, analyses=None):
        """``analyses``: KLU's ``Analyses`` of this pattern to choose from, shared with other LUs (made
        here if none)."""
        self.n = len(indptr) - 1
        self._Ap = np.ascontiguousarray(indptr, dtype=np.int32)
        self._Ai = np.ascontiguousarray(indices, dtype=np.int32)
        self.pattern = (self._Ap, self._Ai)
        self._addresses = (self._Ap.ctypes.data, self._Ai.ctypes.data)  # the fixed pattern's; .ctypes costs 2 us a call
        self._common = _KluCommon()
        _KLU.klu_defaults(ctypes.byref(self._common))
        self.handles = np.zeros(4, dtype=np.intp)
        self.handles[2] = ctypes.addressof(self._common)
        self.rcond = np.frombuffer(self._common, dtype=np.float64, count=1, offset=_KluCommon.rcond.offset)
        self.record = np.zeros(5)
        self.counts = np.zeros(3, dtype=np.int64)
        self._pivoted = np.empty(self._Ai.size)  # the values of the last pivoting factorisation (``klu.factor``)
        self._analyses = analyses if analyses is not None else Analyses(indptr, indices)
        self._candidates = list(self._analyses.symbolic)

    @property
    def factorizations(self):
        """Pivoting factorisations made."""
        return int(self.counts[0])

    @factorizations.setter
    def factorizations(self, count):
        self.counts[0] = count

    @property
    def refactorizations(self):
        """Refactorisations with the kept pivots made."""
        return int(self.counts[1])

    @refactorizations.setter
    def refactorizations(self, count):
        self.counts[1] = count

    @property
    def refactorable(self):
        """Whether a factorisation is there whose pivots a refactorisation reuses."""
        return bool(self.handles[1])

    @property
    def fill(self):
        """Entries of L + U of the current factorisation."""
        return _fill(int(self.handles[1]))

    def pivoting(self, keep=False):
        """``klu.factor``'s ``pivoting`` with this object's ``refactor_rcond_drop`` and ``fill_growth``
        (plain attributes, set per object or class); ``keep``: a factorisation replaced is kept for
        ``klu.undo``."""
        record = self.record
        record[0], record[2], record[4] = self.refactor_rcond_drop, self.fill_growth, self.unscaled_repivots
        return record, self.counts, self._pivoted, keep

    def _attempt(self, symbolic, scale, room=None):
        """klu_factor of the values ``_Ax`` by the analysis ``symbolic`` with row scaling ``scale``
        (klu_common.scale); with ``room``, abandoned (KLU_TOO_LARGE, None returned) where L + U outgrow
        KLU's first allocation, which is then ``AMD_ROOM`` times the analysis' estimate for AMD
        (klu_common.initmem_amd), and ``room`` times the entries of A for each of L and U for COLAMD
        (klu_common.initmem; KLU's default is 10): klu_common.memgrow = inf makes klu_kernel's growth
        test overflow."""
        common = self._common
        saved = common.memgrow, common.initmem, common.initmem_amd
        common.scale = scale
        if room is not None:
            common.memgrow, common.initmem, common.initmem_amd = np.inf, room, AMD_ROOM
        try:
            numeric = _KLU.klu_factor(*self._addresses, self._Ax.ctypes.data, symbolic, ctypes.byref(common))
        finally:
            common.memgrow, common.initmem, common.initmem_amd = saved
        return ctypes.c_void_p(numeric) if numeric else None

    def _choose_ordering(self):
        """Factor with every analysis, keep the one with the fewest L + U entries, and its factorisation
        (in ``handles``) and row scaling. KLU has no fill limit: on the first Newton matrix of the 0.5 m
        pendulum with 4096 beam elements (energy-momentum) the scaled COLAMD candidate filled 1.2e8
        entries in 63 s (1.65 GB), the unscaled one 4.1e5 in 10 ms; on its generalized-alpha matrix the
        unscaled AMD candidate filled 1.0e8, the scaled one 4.3e5. So each candidate is factored with
        the row scaling of klu_common in bounded room (``_attempt``: ``AMD_ROOM`` times AMD's estimate, or
        ``initmem`` times the entries of A for COLAMD), and where that is abandoned,
        unscaled in the same room; once one has succeeded with f entries, the room of the COLAMD
        candidates after it is about 2 f (a candidate filling more cannot be chosen), so an abandoned
        attempt costs about what the best one did. Only where every bounded attempt is abandoned are
        they made unbounded, with klu_common's scaling. Where none succeeds (a singular matrix) nothing
        is chosen: the next matrix factored chooses."""
        scale, room, entries = self._common.scale, self._common.initmem, max(self._Ai.size, 1)
        tried = []  # (fill, candidate, scaling, factorisation)
        for k, symbolic in enumerate(self._candidates):
            for scaling in dict.fromkeys((scale, 0)):
                numeric = self._attempt(symbolic, scaling, room)
                if numeric:
                    tried.append((_fill(numeric), k, scaling, numeric))
                    room = min(room, max(tried[-1][0] / entries, 1.0))
                    break
        if not tried:
            tried = [(_fill(numeric) if numeric else np.inf, k, scale, numeric)
                     for k, symbolic in enumerate(self._candidates) for numeric in [self._attempt(symbolic, scale)]]
        best = min(range(len(tried)), key=lambda j: tried[j][0])
        for j, (_, _, _, numeric) in enumerate(tried):
            if j != best and numeric:
                _KLU.klu_free_numeric(ctypes.byref(numeric), ctypes.byref(self._common))
        _, k, scaling, numeric = tried[best]
        if not numeric:  # singular with every candidate: nothing chosen, the next matrix chooses
            self._common.scale = scale
            return
        self._common.scale = scaling
        self.handles[0], self.handles[1] = self._candidates[k].value, numeric.value
        self._candidates = []
        self.ordering = self._analyses.names[k]

    def factor(self, values, pivot=False):
        """Factor the matrix with these values (in the CSC order of the pattern): refactorised with the
        kept pivots where KLU accepts, else with pivots chosen anew (``klu.factor``); the first one by
        the ordering chosen for it (``_choose_ordering``); ``pivot``: with pivots chosen for this matrix
        (not the last pivoting factorisation's), so that the factors depend on it alone."""
        self._Ax = np.ascontiguousarray(values, dtype=np.float64)
        kernels = compiled(KERNELS)
        if self._candidates:
            self._choose_ordering()
            status = kernels.pivoted(self._Ax, self.handles, self.rcond, self.pivoting())
        else:
            if pivot:
                kernels.free(self.handles, 1)
            status = kernels.factor(*self.pattern, self._Ax, self.handles, self.rcond, self.pivoting())
        if status == kernels.SINGULAR:
            raise SingularMatrixError(f"matrix is singular (KLU status {self._common.status})")

    def _solve(self, b):
        return compiled(KERNELS).solve(*self.handles[:3], np.ascontiguousarray(b, dtype=np.float64), 1.0)

    def solve(self, b, refine=0):
        """x with A x = b for the last factored A, improved by ``refine`` steps of iterative
        refinement (``refine``)."""
        return self.refine(b, self._solve(b), refine)

    def refine(self, b, x, steps=1):
        """x improved in place by ``steps`` of iterative refinement x += A^-1 (b - A x) (see the module
        docstring); ``correction`` is then the size of the last step, max |A^-1 (b - A x)|."""
        if steps:
            self.correction = compiled(KERNELS).refine(*self.handles[:3], self._Ap, self._Ai, self._Ax,
                                                       np.ascontiguousarray(b, dtype=np.float64), x, steps)
        return x

    def __del__(self):
        if not hasattr(self, "handles"):
            return
        for slot in (1, 3):  # the factorisation, and one kept for an undo (``klu.undo``)
            numeric = ctypes.c_void_p(int(self.handles[slot]))
            if numeric:
                _KLU.klu_free_numeric(ctypes.byref(numeric), ctypes.byref(self._common))
