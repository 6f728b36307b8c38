"""KLU's refactorisation and solve called from compiled code (numba, cached on disk): libklu's symbols
are loaded into LLVM's process symbol table and declared as external functions, so a kernel calls them
without a return to the interpreter and without ctypes' argument conversion (the handles -- klu_symbolic,
klu_numeric, klu_common -- and arrays are passed as addresses; ``linalg.FixedPatternLU`` owns them).
Imported where the Newton iteration runs (``lazy.compiled``): it imports numba.
"""
import llvmlite.binding
import numpy as np
from numba import types

from .compiled import kernel
from .linalg import KLU_LIBRARY

llvmlite.binding.load_library_permanently(KLU_LIBRARY)
_ADDRESS = types.intp
# int klu_refactor(Ap, Ai, Ax, Symbolic, Numeric, Common); int klu_rcond(Symbolic, Numeric, Common);
# int klu_solve(Symbolic, Numeric, ldim, nrhs, B, Common)  (klu.h, int version)
klu_refactor = types.ExternalFunction("klu_refactor", types.int32(*(_ADDRESS,) * 6))
klu_rcond = types.ExternalFunction("klu_rcond", types.int32(*(_ADDRESS,) * 3))
klu_solve = types.ExternalFunction("klu_solve", types.int32(_ADDRESS, _ADDRESS, types.int32, types.int32, _ADDRESS,
                                                            _ADDRESS))

@kernel
def refactor(Ap, Ai, Ax, symbolic, numeric, common):
    """klu_refactor of the values Ax with the kept pivots, then klu_rcond (into klu_common.rcond) if
    it succeeded; returns klu_refactor's result (1: done)."""
    ok = klu_refactor(Ap.ctypes.data, Ai.ctypes.data, Ax.ctypes.data, symbolic, numeric, common)
    if ok:
        klu_rcond(symbolic, numeric, common)
    return ok


@kernel
def solve(symbolic, numeric, common, b, factor):
    """x = A^-1 (factor b), a new array, for the factorisation ``numeric``."""
    x = factor * b
    klu_solve(symbolic, numeric, x.size, 1, x.ctypes.data, common)
    return x


@kernel
def refine(symbolic, numeric, common, Ap, Ai, Ax, b, x, steps):
    """x improved in place by ``steps`` of fixed-precision iterative refinement x += A^-1 (b - A x)
    (``linalg`` module docstring), A the CSC matrix (``Ap``, ``Ai``, ``Ax``) factored in ``numeric``, A x
    summed column by column; returns the size of the last step,
    max |A^-1 (b - A x)| (NaN if it holds one; 0 for no step). One work vector of n holds A x, then
    b - A x, then the step (solved in place): the numbers of ``solve(.., b - A x, 1.0)`` without its
    temporaries, which at 20503 unknowns (4096 beam elements) were four arrays of 160 KiB each."""
    return _refine(symbolic, numeric, common, Ap, Ai, Ax, NO_ENTRIES, NO_ENTRIES, NO_VALUES, 0.0, b, x, steps)


@kernel
def refine_parts(symbolic, numeric, common, Ap, Ai, Ax, rows, cols, T, factor, b, x, steps):
    """``refine`` of the factorisation of A = A_0 + factor T, with A x formed from the parts: A_0 the
    CSC values ``Ax`` (Ap, Ai), T the entries ``T`` at (``rows``, ``cols``) -- A_0 x, then factor T x
    added entry by entry --, not from the values of A that were factored.

    Where T is a stiffness far above A_0 (the Newton matrix of a fine beam: 12 EI/h^3 = 2.9e14 N/m
    on the diagonal at 4096 elements against 2/dt^2 M = 126 N/m), a sum A_0 + T in double keeps A_0's
    entries only to eps |T| (5e-4 of the mass at 4096 elements), and with identical elements that
    error is the same in each: it does not average out over the slow modes that A_0 governs. A solve
    with the factored sum then leaves a relative error of that size, which Newton carries as a linear
    contraction (benchmarks/README.md, "Scaling"); a refinement against the unsummed parts removes it
    (N. J. Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., SIAM 2002, ch. 12: the
    residual against the matrix whose solution is wanted, the factors of a nearby one)."""
    return _refine(symbolic, numeric, common, Ap, Ai, Ax, rows, cols, T, factor, b, x, steps)


NO_ENTRIES, NO_VALUES = np.zeros(0, dtype=np.int64), np.zeros(0)  # ``refine``: no part T


@kernel(inline="always")
def _refine(symbolic, numeric, common, Ap, Ai, Ax, rows, cols, T, factor, b, x, steps):
    n = x.size
    correction = 0.0
    r = np.empty(n)
    for _ in range(steps):
        r[:] = 0.0
        for j in range(n):
            for k in range(Ap[j], Ap[j + 1]):
                r[Ai[k]] += Ax[k] * x[j]
        for p in range(T.size):
            r[rows[p]] += factor * T[p] * x[cols[p]]
        for i in range(n):
            r[i] = b[i] - r[i]
        klu_solve(symbolic, numeric, n, 1, r.ctypes.data, common)
        correction = 0.0
        for i in range(n):
            x[i] += r[i]
            size = abs(r[i])
            if size > correction or size != size:  # a NaN stays NaN, as NumPy's max
                correction = size
    return correction
