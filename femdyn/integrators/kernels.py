"""Compiled kernels of Newton's iteration (numba, cached on disk; imported where they run,
``numerics.lazy``)."""
import numpy as np

from ..joints import kernels as batch
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
def solve(handles, R):
    """The Newton increment dx = -A^-1 R (a new array) of the factorisation ``handles`` (the addresses
    of ``linalg.FixedPatternLU.handles``)."""
    return klu.solve(handles[0], handles[1], handles[2], R, -1.0)


@kernel
def solve_update(handles, R, qb, lam, active, scale):
    """``update`` by the Newton increment ``solve(handles, R)`` in one call."""
    return update(qb, lam, solve(handles, R), active, scale)


# where ``assemble`` adds the forces' tangents to the Newton matrix: before the batch's entries, after
# them, or not at all (the caller adds them after the families outside the batch)
TANGENTS_FIRST, TANGENTS_LAST, TANGENTS_LATER = 0, 1, 2


@kernel
def assemble(R, values, qb, lam, Mq, mass_factor, inertia, constant, F, F_at, F_bounds, dF, dF_at, tangents, G_a,
             scale, tangent, at, G, g, c, slot_row, slot_col, G_indptr, H_indptr, H_indices, H_data, T_indptr,
             T_indices, T_data, keep, phi_rows, phi_at):
    """The Newton iteration's residual and matrix data but for the constraint families outside the
    batch (``saddle.SaddleSystem.assemble``):

        R[:n] = mass_factor Mq - inertia - constant - F

    with F the varying forces' values summed at their coordinates ``F_at``, force by force (the entries
    from ``F_bounds[k]`` to ``F_bounds[k + 1]``), then the batch's part (``joints.kernels.residual``:
    scale phi, Gbar^T lam and, unless ``at`` is empty, its Newton entries) and, unless ``values`` is
    empty (the residual only), the forces' tangents -dF added to the CSC data ``values`` at ``dF_at``
    before or after the batch's entries (``tangents``). Every sum is formed in the order of the
    NumPy expressions it replaces (``SaddleSystem.applied``, ``constrain``, ``add_tangent``), so the
    numbers are theirs bit for bit."""
    n = Mq.size
    applied = np.zeros(n)
    part = np.empty(n)
    for k in range(F_bounds.size - 1):
        part[:] = 0.0
        for i in range(F_bounds[k], F_bounds[k + 1]):
            part[F_at[i]] += F[i]
        for j in range(n):
            applied[j] += part[j]
    for j in range(n):
        R[j] = mass_factor * Mq[j] - inertia[j] - constant[j] - applied[j]
    if values.size and tangents == TANGENTS_FIRST:
        for i in range(dF_at.size):
            values[dF_at[i]] += -1.0 * dF[i]
    batch.residual(qb, G_a, lam, scale, tangent, R, values, at, G, g, c, slot_row, slot_col, G_indptr, H_indptr,
                   H_indices, H_data, T_indptr, T_indices, T_data, keep, phi_rows, phi_at)
    if values.size and tangents == TANGENTS_LAST:
        for i in range(dF_at.size):
            values[dF_at[i]] += -1.0 * dF[i]
