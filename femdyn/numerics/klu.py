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
    n = x.size
    correction = 0.0
    r = np.empty(n)
    for _ in range(steps):
        r[:] = 0.0
        for j in range(n):
            for k in range(Ap[j], Ap[j + 1]):
                r[Ai[k]] += Ax[k] * x[j]
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
