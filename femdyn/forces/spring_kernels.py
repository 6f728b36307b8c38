"""Compiled spring-dampers (``spring_damper.SpringDamper``; numba, cached on disk), all K instances in
one call: x2 - x1 = r = D q with D (K, d, n), l = |r|. The module imports numba: it is imported where
the kernels run (``spring_damper``), so that the command line starts without it.
"""
import numpy as np

from ..numerics.compiled import kernel
from .spring_damper import DISCRETE


@kernel
def _apply(D, k, q):
    """D[k] q[k] (d,)."""
    d, n = D.shape[1], D.shape[2]
    r = np.zeros(d)
    for i in range(d):
        for j in range(n):
            r[i] += D[k, i, j] * q[j]
    return r


@kernel
def _transposed(D, k, r):
    """D[k]^T r (n,)."""
    d, n = D.shape[1], D.shape[2]
    g = np.zeros(n)
    for j in range(n):
        for i in range(d):
            g[j] += r[i] * D[k, i, j]
    return g


@kernel
def discrete(qa, qb, dt, D, stiffness, damping, free_length, force, tangent):
    """Gonzalez's discrete gradient with the discrete damper rate (``SpringDamper``): per instance
    Fbar = -w f D^T r_mid with w = 2/(l_a + l_b), f = k (lbar - l0) + c (l_b - l_a)/dt, into ``force``
    (K, n), and, unless ``tangent`` is empty, dFbar/dq_b (K, n, n)
    = -(g (w df + f dw)^T + w f/2 D^T D), g = D^T r_mid, df = (k/2 + c/dt) dl_b, dw = -w^2/2 dl_b,
    dl_b = D^T r_b / l_b."""
    K, d, n = D.shape
    for k in range(K):
        ra, rb = _apply(D, k, qa[k]), _apply(D, k, qb[k])
        la, lb = np.sqrt(np.sum(ra * ra)), np.sqrt(np.sum(rb * rb))
        g = _transposed(D, k, _apply(D, k, 0.5 * (qa[k] + qb[k])))
        f = stiffness[k] * (0.5 * (la + lb) - free_length[k]) + damping[k] * (lb - la) / dt
        w = 2.0 / (la + lb)
        for j in range(n):
            force[k, j] = -(w * f) * g[j]
        if tangent.size == 0:
            continue
        dlb = _transposed(D, k, rb) / lb
        df = (0.5 * stiffness[k] + damping[k] / dt) * dlb
        dw = -0.5 * w**2 * dlb
        for i in range(n):
            for j in range(n):
                dtd = 0.0
                for a in range(d):
                    dtd += D[k, a, i] * D[k, a, j]
                tangent[k, i, j] = -(g[i] * (w * df[j] + f * dw[j]) + 0.5 * w * f * dtd)


@kernel
def continuous(q, v, D, stiffness, damping, free_length, force, dF_dq, dF_dv):
    """The continuous force F = -(k (l - l0) + c dl/dt) grad l, grad l = D^T e, e = r/l, dl/dt = e.D v,
    into ``force`` (K, n), and, unless dF_dq is empty, dF/dq and dF/dv (K, n, n) with
    de/dr = P = (I - e e^T)/l: dF/dq = -(g (k g + c rv^T P D)^T + coefficient D^T P D),
    dF/dv = -c g g^T."""
    K, d, n = D.shape
    for k in range(K):
        r, rv = _apply(D, k, q[k]), _apply(D, k, v[k])
        l = np.sqrt(np.sum(r * r))
        e = r / l
        g = _transposed(D, k, e)
        rate = np.sum(e * rv)
        coefficient = stiffness[k] * (l - free_length[k]) + damping[k] * rate
        for j in range(n):
            force[k, j] = -coefficient * g[j]
        if dF_dq.size == 0:
            continue
        P = (np.eye(d) - np.outer(e, e)) / l
        PD = np.zeros((d, n))
        for a in range(d):
            for b in range(d):
                for j in range(n):
                    PD[a, j] += P[a, b] * D[k, b, j]
        drate = _transposed(np.expand_dims(PD, 0), 0, rv)
        for i in range(n):
            for j in range(n):
                dg = 0.0
                for a in range(d):
                    dg += D[k, a, i] * PD[a, j]
                dF_dq[k, i, j] = -(g[i] * (stiffness[k] * g[j] + damping[k] * drate[j]) + coefficient * dg)
                dF_dv[k, i, j] = -damping[k] * g[i] * g[j]


@kernel
def loop(springs, qb, at, force, values):
    """A Newton iterate's spring-damper forces (K n,) and, unless ``values`` is empty, tangent values
    (K nnz,) in ``integrators.kernels.newton_loop``: ``springs`` = (form, q_a, v~, q~ (K n,), gamma', dt, D,
    k, c, l0, the tangent pattern's local rows and columns) of ``SpringDamper.spring_arguments``, ``at``
    (K n,) its coordinates in qb. The discrete form ``discrete`` from q_a, or the continuous one
    ``continuous`` at v = v~ + gamma' (qb - q~) (generalized-alpha's v_n+1) with dF/dq + gamma' dF/dv, at
    the pattern, each formed as the interpreted steps form it."""
    form, qa, v_known, q_known, gamma_p, dt, D, stiffness, damping, free_length, rows, cols = springs
    K, n, nnz = D.shape[0], D.shape[2], rows.size
    Qb, F = np.empty((K, n)), np.empty((K, n))
    for k in range(K):
        for j in range(n):
            Qb[k, j] = qb[at[k * n + j]]
    shape = (K, n, n) if values.size else (0, 0, 0)
    dq, dv = np.empty(shape), np.empty(shape)
    if form == DISCRETE:
        discrete(qa.reshape((K, n)), Qb, dt, D, stiffness, damping, free_length, F, dq)
    else:
        V = np.empty((K, n))
        for k in range(K):
            for j in range(n):
                V[k, j] = v_known[k * n + j] + gamma_p * (Qb[k, j] - q_known[k * n + j])
        continuous(Qb, V, D, stiffness, damping, free_length, F, dq, dv)
    for k in range(K):
        for j in range(n):
            force[k * n + j] = F[k, j]
    if values.size == 0:
        return
    for k in range(K):
        for e in range(nnz):
            value = dq[k, rows[e], cols[e]]
            values[k * nnz + e] = value if form == DISCRETE else value + gamma_p * dv[k, rows[e], cols[e]]


@kernel
def potential_terms(q, D, stiffness, free_length):
    """The terms k/2 (l - l0)^2 of ``SpringDamper.potential`` at the local coordinates q (K, n), l = |D q|
    (``integrators.step_ends.pairwise_sum`` sums them as NumPy's ``sum``)."""
    K = D.shape[0]
    terms = np.empty(K)
    for k in range(K):
        r = _apply(D, k, q[k])
        e = np.sqrt(np.sum(r * r)) - free_length[k]
        terms[k] = 0.5 * stiffness[k] * (e * e)
    return terms
