"""Compiled kernels of Newton's iteration (numba, cached on disk; imported where they run,
``numerics.lazy``)."""
import numpy as np

from ..numerics import klu
from ..numerics.compiled import kernel


@kernel
def update(qb, lam, dx, active, scale):
    """The Newton update of the unknowns (q_n+1, lam/s) by dx = (dq, dmu): returns q_n+1 + dq (a new
    array) and |dq|_inf, and adds ``scale`` dmu to lam at the ``active`` rows in place."""
    n = qb.size
    q = np.empty(n)
    increment = 0.0
    for i in range(n):
        q[i] = qb[i] + dx[i]
        size = abs(dx[i])
        if size > increment or size != size:  # a NaN increment stays NaN, as NumPy's max
            increment = size
    for k in range(active.size):
        lam[active[k]] += scale * dx[n + k]
    return q, increment


@kernel
def solve_update(handles, R, qb, lam, active, scale):
    """``update`` by the Newton increment dx = -A^-1 R of the factorisation ``handles`` (the addresses
    of ``linalg.FixedPatternLU.handles``) in one call."""
    return update(qb, lam, klu.solve(handles[0], handles[1], handles[2], R, -1.0), active, scale)
