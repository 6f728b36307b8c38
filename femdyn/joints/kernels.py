"""Compiled kernels of the quadratic constraint batch (``batch.AffineConstraints``; numba, cached on
disk). The batch's S slots (structural non-zeros of G, grouped by constraint row) carry

    G_s(q)     = g_s + sum_k H_sk q_k                              (H: CSR over the slots)
    phi_r(q)   = 1/2 sum_{s in row r} (G_s(q) + g_s) q_col(s) + c_r
    (Gbar^T lam)_j = sum_{s: col(s) = j} Gbar_s lam_row(s),        Gbar = (G(qa) + G(qb)) / 2 (000 eq. 26)
    d(Gbar^T lam)/dq at tangent entry e = 1/2 sum_r H^t_er lam_r     (T: CSR over the tangent entries)

-- phi is exact for a quadratic row, Phi_r = 1/2 q.H_r q + g_r.q + c_r, since G_r = g_r + H_r q.
``residual`` evaluates all of it in one call per Newton iteration. The module imports numba: it is
imported where the kernels run (``batch``), so that the command line starts without it.
"""
import numpy as np

from ..numerics.compiled import kernel


@kernel
def jacobian(q, g, H_indptr, H_indices, H_data, G):
    """G (S,) = g + H q at the slots."""
    for s in range(g.size):
        acc = 0.0
        for k in range(H_indptr[s], H_indptr[s + 1]):
            acc += H_data[k] * q[H_indices[k]]
        G[s] = g[s] + acc


@kernel
def _phi_row(r, q, G, g, c, slot_col, G_indptr):
    acc = 0.0
    for s in range(G_indptr[r], G_indptr[r + 1]):
        acc += 0.5 * (G[s] + g[s]) * q[slot_col[s]]
    return acc + c[r]


@kernel
def phis(Q, rows, g, c, slot_col, G_indptr, H_indptr, H_indices, H_data):
    """phi at ``rows`` for each row of Q (F, n): (F, len(rows))."""
    out = np.empty((Q.shape[0], rows.size))
    G = np.empty(g.size)
    for f in range(Q.shape[0]):
        q = Q[f]
        jacobian(q, g, H_indptr, H_indices, H_data, G)
        for i in range(rows.size):
            out[f, i] = _phi_row(rows[i], q, G, g, c, slot_col, G_indptr)
    return out


@kernel
def residual(q, G_a, lam, scale, tangent, R, values, at, G, g, c, slot_row, slot_col, G_indptr, H_indptr,
             H_indices, H_data, T_indptr, T_indices, T_data, keep, phi_rows, phi_at):
    """The batch's part of a Newton iteration at q = q_n+1 with multipliers ``lam`` (m,): G (S,) :=
    G(q); R[phi_at] := scale phi(q)[phi_rows]; R[:n] += Gbar^T lam with Gbar = (G_a + G)/2, or G where
    G_a is empty; and, unless ``at`` is empty, the Newton-matrix entries in the order of
    ``AffineConstraints.place`` -- ``tangent`` d(Gbar^T lam)/dq (T entries), scale Gbar and scale G at
    the ``keep`` slots -- added to the CSC data ``values`` at their places ``at``."""
    jacobian(q, g, H_indptr, H_indices, H_data, G)
    for i in range(phi_rows.size):
        R[phi_at[i]] = scale * _phi_row(phi_rows[i], q, G, g, c, slot_col, G_indptr)
    n = q.size
    force = np.zeros(n)
    midpoint = G_a.size > 0
    for s in range(g.size):
        gbar = 0.5 * (G_a[s] + G[s]) if midpoint else G[s]
        force[slot_col[s]] += gbar * lam[slot_row[s]]
    for j in range(n):
        R[j] += force[j]
    if at.size == 0:
        return
    entries = T_indptr.size - 1
    for e in range(entries):
        acc = 0.0
        for k in range(T_indptr[e], T_indptr[e + 1]):
            acc += T_data[k] * lam[T_indices[k]]
        values[at[e]] += tangent * acc
    kept = keep.size
    for i in range(kept):
        s = keep[i]
        values[at[entries + i]] += scale * (0.5 * (G_a[s] + G[s]) if midpoint else G[s])
    for i in range(kept):
        values[at[entries + kept + i]] += scale * G[keep[i]]
