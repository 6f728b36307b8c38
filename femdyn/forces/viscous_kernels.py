"""Compiled kernels of the viscous damping of flexible bodies (``viscous``): the step of the
energy-momentum scheme -- force, rates and the tangent's values on its fixed pattern in one call -- and
the product J(l)^T D J(r) entry by entry. The module imports numba: it is imported where the kernels
run."""
import numpy as np

from ..numerics.compiled import kernel


@kernel
def triple(J_indptr, D_indptr, D_indices, D_data, left, right, factor, out):
    """out = factor J(left)^T D J(right) on the pattern of ``ViscousDamping``: for each entry D_ij (CSR
    order), each entry a of J's row i and each entry b of J's row j, the value left[a] D_ij right[b]
    (the entries of J in row order, their values ``left`` and ``right``)."""
    n = 0
    for i in range(D_indptr.size - 1):
        for t in range(D_indptr[i], D_indptr[i + 1]):
            j = D_indices[t]
            d = factor * D_data[t]
            for a in range(J_indptr[i], J_indptr[i + 1]):
                la = left[a] * d
                for b in range(J_indptr[j], J_indptr[j + 1]):
                    out[n] = la * right[b]
                    n += 1


@kernel
def step(qa, qb, dt, J_indptr, J_indices, coefficients, sources, bilinear, D_indptr, D_indices, D_data, force,
         values, rates):
    """The step from qa to qb (local, (n,)) of ``ViscousDamping``: the mid-point rates
    e'_m = J(q_m) (qb - qa) / dt into ``rates`` (n_e,), the force Fbar = -J(q_m)^T D e'_m into ``force``
    (n,) and dFbar/dqb = -(1/2) H(D e'_m) - J(q_m)^T D J(qb) / dt at the pattern into ``values`` (the
    entries ``bilinear`` of H first, then ``triple``'s). ``sources`` >= n: a constant entry."""
    n, entries, n_e = qa.size, coefficients.size, J_indptr.size - 1
    Jm, Jb = np.empty(entries), np.empty(entries)
    row = np.empty(entries, dtype=np.int64)
    for i in range(n_e):
        for a in range(J_indptr[i], J_indptr[i + 1]):
            s, c = sources[a], coefficients[a]
            row[a] = i
            if s < n:
                Jm[a] = c * 0.5 * (qa[s] + qb[s])
                Jb[a] = c * qb[s]
            else:
                Jm[a] = c
                Jb[a] = c
    for i in range(n_e):
        acc = 0.0
        for a in range(J_indptr[i], J_indptr[i + 1]):
            p = J_indices[a]
            acc += Jm[a] * (qb[p] - qa[p])
        rates[i] = acc / dt
    y = np.zeros(n_e)
    for i in range(n_e):
        acc = 0.0
        for t in range(D_indptr[i], D_indptr[i + 1]):
            acc += D_data[t] * rates[D_indices[t]]
        y[i] = acc
    force[:] = 0.0
    for i in range(n_e):
        for a in range(J_indptr[i], J_indptr[i + 1]):
            force[J_indices[a]] -= Jm[a] * y[i]
    for k in range(bilinear.size):
        a = bilinear[k]
        values[k] = -0.5 * coefficients[a] * y[row[a]]
    triple(J_indptr, D_indptr, D_indices, D_data, Jm, Jb, -1.0 / dt, values[bilinear.size:])
