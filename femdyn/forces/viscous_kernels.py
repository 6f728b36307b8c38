"""Compiled kernels of the viscous damping of flexible bodies (``viscous``): the step of the
energy-momentum scheme -- force, rates and the tangent's values on its fixed pattern in one call -- and
the product J(l)^T D J(r) entry by entry. The module imports numba: it is imported where the kernels
run."""
import numpy as np

from ..numerics.compiled import kernel
from .viscous import DISCRETE


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
    entries ``bilinear`` of H first, then ``triple``'s; an empty ``values``: the force and rates alone).
    ``sources`` >= n: a constant entry."""
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
    y = _forces(J_indptr, J_indices, Jm, D_indptr, D_indices, D_data, rates, force)
    if values.size == 0:  # the force alone (a simplified Newton iteration)
        return
    for k in range(bilinear.size):
        a = bilinear[k]
        values[k] = -0.5 * coefficients[a] * y[row[a]]
    triple(J_indptr, D_indptr, D_indices, D_data, Jm, Jb, -1.0 / dt, values[bilinear.size:])


@kernel
def continuous(q, v, J_indptr, J_indices, coefficients, sources, bilinear, D_indptr, D_indices, D_data, force, dF_dq,
               dF_dv):
    """The continuous force F = -J(q)^T D J(q) v of ``ViscousDamping`` at (q, v) (local, (n,)) into
    ``force`` (n,), and, unless dF_dq is empty, dF/dq = -H(D J v) - J(q)^T D J(v) and
    dF/dv = -J(q)^T D J(q) at the pattern into dF_dq and dF_dv (H's entries ``bilinear`` first, then
    ``triple``'s; J(v) the bilinear entries at v, without the constant ones). ``sources`` >= n: a
    constant entry."""
    n, entries, n_e = q.size, coefficients.size, J_indptr.size - 1
    Jq, Jv = np.empty(entries), np.empty(entries)
    row = np.empty(entries, dtype=np.int64)
    for i in range(n_e):
        for a in range(J_indptr[i], J_indptr[i + 1]):
            s, c = sources[a], coefficients[a]
            row[a] = i
            Jq[a] = c * q[s] if s < n else c
            Jv[a] = c * v[s] if s < n else 0.0
    y = np.zeros(n_e)
    for i in range(n_e):
        rate = 0.0
        for a in range(J_indptr[i], J_indptr[i + 1]):
            rate += Jq[a] * v[J_indices[a]]
        y[i] = rate
    Dy = _forces(J_indptr, J_indices, Jq, D_indptr, D_indices, D_data, y, force)
    if dF_dq.size == 0:
        return
    for k in range(bilinear.size):
        a = bilinear[k]
        dF_dq[k] = -coefficients[a] * Dy[row[a]]
        dF_dv[k] = 0.0
    triple(J_indptr, D_indptr, D_indices, D_data, Jq, Jv, -1.0, dF_dq[bilinear.size:])
    triple(J_indptr, D_indptr, D_indices, D_data, Jq, Jq, -1.0, dF_dv[bilinear.size:])


@kernel
def dissipation(rates, D_indptr, D_indices, D_data, dt):
    """dt e'^T D e' of the mid-point ``rates`` e' (n_e,): the energy-momentum step's loss, the sums in
    CSR order."""
    total = 0.0
    for i in range(rates.size):
        acc = 0.0
        for t in range(D_indptr[i], D_indptr[i + 1]):
            acc += D_data[t] * rates[D_indices[t]]
        total += rates[i] * acc
    return dt * total


@kernel
def work_rate(force_a, force_b, qa, qb):
    """-(F_a + F_b)/2 . (q_b - q_a), summed in order: generalized-alpha's trapezoidal loss of a step."""
    total = 0.0
    for i in range(qa.size):
        total += (force_a[i] + force_b[i]) * (qb[i] - qa[i])
    return -0.5 * total


@kernel
def loop(damper, qb, at, force, values):
    """A Newton iterate's damper force and (unless ``values`` is empty) tangent in ``kernels.newton_loop``:
    ``damper`` = (form, q_a, v~, q~, gamma', dt, then ``step``'s J, its coefficients, sources, bilinear
    entries and D) of ``ViscousDamping.damper_arguments``, ``at`` its coordinates in qb. The discrete form
    ``step`` from q_a; the continuous one ``continuous`` at v = v~ + gamma' (qb - q~) (generalized-alpha's
    v_n+1) with dF/dq + gamma' dF/dv, each formed as the interpreted steps form it."""
    form, qa, v_known, q_known, gamma_p, dt = damper[:6]
    J_indptr, J_indices, coefficients, sources, bilinear, D_indptr, D_indices, D_data = damper[6:]
    nd = at.size
    q = np.empty(nd)
    for i in range(nd):
        q[i] = qb[at[i]]
    if form == DISCRETE:
        step(qa, q, dt, J_indptr, J_indices, coefficients, sources, bilinear, D_indptr, D_indices, D_data, force,
             values, np.empty(J_indptr.size - 1))
        return
    v = np.empty(nd)
    for i in range(nd):
        v[i] = v_known[i] + gamma_p * (qb[at[i]] - q_known[i])
    if values.size == 0:
        continuous(q, v, J_indptr, J_indices, coefficients, sources, bilinear, D_indptr, D_indices, D_data, force,
                   values, values)
        return
    dF_dv = np.empty(values.size)
    continuous(q, v, J_indptr, J_indices, coefficients, sources, bilinear, D_indptr, D_indices, D_data, force,
               values, dF_dv)
    for i in range(values.size):
        values[i] = values[i] + gamma_p * dF_dv[i]


@kernel
def _forces(J_indptr, J_indices, J, D_indptr, D_indices, D_data, rates, force):
    """y = D ``rates`` (CSR order) and ``force`` = -J^T y (J's entries ``J`` in row order): the damping
    force of ``step`` and ``continuous``. Returns y."""
    y = np.zeros(D_indptr.size - 1)
    for i in range(y.size):
        acc = 0.0
        for t in range(D_indptr[i], D_indptr[i + 1]):
            acc += D_data[t] * rates[D_indices[t]]
        y[i] = acc
    force[:] = 0.0
    for i in range(y.size):
        for a in range(J_indptr[i], J_indptr[i + 1]):
            force[J_indices[a]] -= J[a] * y[i]
    return y


@kernel
def sizes(damper):
    """The damper's local coordinates and tangent entries (``loop``'s ``damper``)."""
    J_indptr, bilinear, D_indptr, D_indices = damper[6], damper[10], damper[11], damper[12]
    return max(damper[1].size, damper[2].size), bilinear.size + _triples(J_indptr, D_indptr, D_indices)


@kernel
def _triples(J_indptr, D_indptr, D_indices):
    """The number of ``triple``'s entries."""
    count = 0
    for i in range(D_indptr.size - 1):
        for t in range(D_indptr[i], D_indptr[i + 1]):
            j = D_indices[t]
            count += (J_indptr[i + 1] - J_indptr[i]) * (J_indptr[j + 1] - J_indptr[j])
    return count
