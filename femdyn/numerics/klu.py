"""KLU called from compiled code (numba, cached on disk): libklu's symbols are loaded into LLVM's
process symbol table and declared as external functions, so a kernel calls them without a return to
the interpreter and without ctypes' argument conversion (the handles -- klu_symbolic, klu_numeric,
klu_common -- and arrays are passed as addresses; ``linalg.FixedPatternLU`` owns them).

``factor`` is ``FixedPatternLU.factor`` in compiled code: the refactorisation with the kept pivots,
and where KLU refuses it (a pivot too small, a condition estimate fallen too far) the factorisation
with pivots chosen anew -- klu_factor, the old klu_numeric freed (klu_free_numeric) and the new one's
address written into the owner's ``handles`` array, which the owner frees at its end. So the Newton
iteration and the compiled time steps go on through a refusal (``integrators.kernels.newton_loop``).
Imported where the Newton iteration runs (``lazy.compiled``): it imports numba.
"""
import llvmlite.binding
import numpy as np
from numba import carray, types
from numba.extending import intrinsic

from .compiled import kernel
from .linalg import KLU_LIBRARY, SCALE_AT, FixedPatternLU

llvmlite.binding.load_library_permanently(KLU_LIBRARY)
_ADDRESS = types.intp
# int klu_refactor(Ap, Ai, Ax, Symbolic, Numeric, Common); int klu_rcond(Symbolic, Numeric, Common);
# int klu_solve(Symbolic, Numeric, ldim, nrhs, B, Common); klu_numeric *klu_factor(Ap, Ai, Ax, Symbolic, Common);
# int klu_free_numeric(klu_numeric **Numeric, Common)  (klu.h of KLU 1.3, int version)
klu_refactor = types.ExternalFunction("klu_refactor", types.int32(*(_ADDRESS,) * 6))
klu_rcond = types.ExternalFunction("klu_rcond", types.int32(*(_ADDRESS,) * 3))
klu_solve = types.ExternalFunction("klu_solve", types.int32(_ADDRESS, _ADDRESS, types.int32, types.int32, _ADDRESS,
                                                            _ADDRESS))
klu_factor = types.ExternalFunction("klu_factor", _ADDRESS(*(_ADDRESS,) * 5))
klu_free_numeric = types.ExternalFunction("klu_free_numeric", types.int32(_ADDRESS, _ADDRESS))

# the slots of ``FixedPatternLU.handles``, ``.record`` and ``.counts``; ``factor``'s results
SYMBOLIC, NUMERIC, COMMON, KEPT = FixedPatternLU.HANDLES
DROP, RCOND, GROWTH, FIRST_FILL, UNSCALED = FixedPatternLU.RECORD
PIVOTING, REFACTORED, LAST_PIVOTING = FixedPatternLU.COUNTS
SINGULAR, REFACTORISED, PIVOTED = 0, 1, 2


@intrinsic
def _ints(typingctx, address):
    """The int32 at ``address`` (an integer) as a pointer, for ``carray``."""
    signature = types.CPointer(types.int32)(types.intp)

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(sig.return_type))
    return signature, codegen


@kernel
def fill(numeric):
    """Entries of L + U of the factorisation at ``numeric`` (klu_numeric starts with n, nblocks, lnz, unz)."""
    counts = carray(_ints(numeric), 4)
    return counts[2] + counts[3]


@kernel
def refactor(Ap, Ai, Ax, symbolic, numeric, common):
    """klu_refactor of the values Ax with the kept pivots, then klu_rcond (into klu_common.rcond) if
    it succeeded; returns klu_refactor's result (1: done)."""
    ok = klu_refactor(Ap.ctypes.data, Ai.ctypes.data, Ax.ctypes.data, symbolic, numeric, common)
    if ok:
        klu_rcond(symbolic, numeric, common)
    return ok


@kernel
def free(handles, slot):
    """klu_free_numeric of the factorisation at ``handles[slot]`` (none: nothing), which sets it to 0."""
    if handles[slot]:
        klu_free_numeric(handles.ctypes.data + slot * handles.itemsize, handles[COMMON])


@kernel
def pivot(Ap, Ai, Ax, handles):
    """klu_factor of the values Ax, pivots chosen for them, into ``handles[NUMERIC]`` (0 where it fails)."""
    handles[NUMERIC] = klu_factor(Ap.ctypes.data, Ai.ctypes.data, Ax.ctypes.data, handles[SYMBOLIC], handles[COMMON])


@kernel
def factor(Ap, Ai, Ax, handles, rcond, pivoting):
    """``FixedPatternLU.factor`` of the CSC values Ax (``linalg`` module docstring): klu_refactor with the
    kept pivots, accepted while klu_rcond, read from ``rcond`` (klu_common.rcond), is at least
    record[DROP] times that of the last pivoting factorisation (record[RCOND]); else the factorisation
    with pivots chosen anew (``pivot``), made again without row scaling (klu_common.scale = 0 from then on)
    where it has more than record[GROWTH] times the entries of L + U of the first one (record[FIRST_FILL]).
    The factorisation it replaces is freed, or, with ``keep`` and none kept yet, kept in handles[KEPT] for
    ``undo``. ``pivoting`` = (record, counts, values, keep): counts[PIVOTING] and counts[REFACTORED] count the
    factorisations, counts[LAST_PIVOTING] says which this one was, and values takes a copy of Ax where it
    pivoted. Returns REFACTORISED, PIVOTED or SINGULAR (KLU failed or klu_rcond is 0; nothing counted)."""
    record, counts, _, keep = pivoting
    if handles[NUMERIC]:
        if refactor(Ap, Ai, Ax, handles[SYMBOLIC], handles[NUMERIC], handles[COMMON]) and \
                rcond[0] >= record[DROP] * record[RCOND]:
            counts[REFACTORED] += 1
            counts[LAST_PIVOTING] = 0
            return REFACTORISED
        if keep and not handles[KEPT]:
            handles[KEPT] = handles[NUMERIC]
            handles[NUMERIC] = 0
        else:
            free(handles, NUMERIC)
    scale = carray(_ints(handles[COMMON] + SCALE_AT), 1)
    if record[FIRST_FILL] and record[UNSCALED]:
        scale[0] = 0  # pivots chosen anew without row scaling (``linalg.FixedPatternLU.unscaled_repivots``)
    pivot(Ap, Ai, Ax, handles)
    if handles[NUMERIC] and record[FIRST_FILL] and scale[0] and \
            fill(handles[NUMERIC]) > record[GROWTH] * record[FIRST_FILL]:
        free(handles, NUMERIC)
        scale[0] = 0  # the rows unscaled from now on
        pivot(Ap, Ai, Ax, handles)
    return pivoted(Ax, handles, rcond, pivoting)


@kernel
def pivoted(Ax, handles, rcond, pivoting):
    """``factor``'s record of the pivoting factorisation of the values Ax at handles[NUMERIC]: its klu_rcond,
    its fill where it is the first, the counts, the copy of Ax; SINGULAR where there is none or klu_rcond
    is 0, else PIVOTED."""
    record, counts, values, _ = pivoting
    if not handles[NUMERIC]:
        return SINGULAR
    klu_rcond(handles[SYMBOLIC], handles[NUMERIC], handles[COMMON])
    if rcond[0] == 0.0:
        return SINGULAR
    record[RCOND] = rcond[0]
    if not record[FIRST_FILL]:
        record[FIRST_FILL] = fill(handles[NUMERIC])
    counts[PIVOTING] += 1
    counts[LAST_PIVOTING] = 1
    values[:] = Ax
    return PIVOTED


@kernel
def save(handles, pivoting, saved):
    """What ``factor`` changes besides the factorisation into ``saved`` (6,): the last pivoting
    factorisation's klu_rcond, the first fill, the counts and klu_common.scale; the factorisation itself is
    kept by ``factor`` with ``keep`` (``undo``)."""
    record, counts, _, _ = pivoting
    saved[0], saved[1] = record[RCOND], record[FIRST_FILL]
    for k in range(3):
        saved[2 + k] = counts[k]
    saved[5] = carray(_ints(handles[COMMON] + SCALE_AT), 1)[0]


@kernel
def undo(handles, pivoting, saved):
    """The pivots, record, counts and scale as they were at ``save``: a factorisation kept since is back
    (the one that replaced it freed), with the pivots it had then and the values of the last
    refactorisation with them -- the step done again factors its matrix first."""
    if handles[KEPT]:
        free(handles, NUMERIC)
        handles[NUMERIC], handles[KEPT] = handles[KEPT], 0
    record, counts, _, _ = pivoting
    record[RCOND], record[FIRST_FILL] = saved[0], saved[1]
    for k in range(3):
        counts[k] = int(saved[2 + k])
    carray(_ints(handles[COMMON] + SCALE_AT), 1)[0] = int(saved[5])


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
