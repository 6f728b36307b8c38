"""Compiled kernels of the joint-angle rows (``angle.JointAngle``; numba, cached on disk), all K
instances in one call. Per instance, with x = [q1, q2] and the constant Hessians H_c, H_s of the
bilinear c = 1/2 x.H_c x = a1.a2 and s = 1/2 x.H_s x = b1.a2 (gradients H x at the J coordinates
that enter them):

    Phi        = sin(Theta) c - cos(Theta) s
    G          = [sin(Theta) grad c - cos(Theta) grad s,  cos(Theta) c + sin(Theta) s]
    Gbar       = [sbar grad c_mid - cbar_Theta grad s_mid,  cbar Dsin - sbar_q Dcos]
    Dsin       = cos m sinc h,  Dcos = -sin m sinc h,  m = (a + b)/2, h = (b - a)/2

(the module docstring of ``angle``: Greenspan's quotients, so that Phi_n+1 - Phi_n = Gbar.(q_n+1 - q_n)
exactly), and the tangent d(Gbar^T lam)/dq_n+1 at the entries of ``tangent_mask`` in row order.
``linearize`` returns these per instance; ``contribute`` writes them straight into a Newton iteration's
residual and the CSC data of its matrix. The module imports numba: it is imported where the kernels
run (``angle``), so that the command line starts without it.
"""
import numpy as np

from ..numerics.compiled import kernel


@kernel
def sinc_pair(h):
    """sin(h)/h and its derivative (cos h - sin(h)/h)/h, with their Taylor series near 0 where the
    closed forms cancel."""
    if abs(h) < 1e-3:
        h2 = h * h
        return 1.0 - h2 / 6.0 + h2 * h2 / 120.0, h * (h2 / 30.0 - 1.0 / 3.0)
    sin = np.sin(h)
    return sin / h, (h * np.cos(h) - sin) / h**2


@kernel
def cos_sin(q, hessians, coordinates, c, s, grad_c, grad_s):
    """c, s (K,) and their gradients (K, J) at the local coordinates q (K, n): grad = H x with the
    stacked Hessians ``hessians`` (K, 2, J, n1 + n2) at the rows ``coordinates`` (J,) of x."""
    K, _, J, N = hessians.shape
    for k in range(K):
        acc_c = acc_s = 0.0
        for j in range(J):
            gc = gs = 0.0
            for i in range(N):
                gc += hessians[k, 0, j, i] * q[k, i]
                gs += hessians[k, 1, j, i] * q[k, i]
            grad_c[k, j], grad_s[k, j] = gc, gs
            x = q[k, coordinates[j]]
            acc_c += gc * x
            acc_s += gs * x
        c[k], s[k] = 0.5 * acc_c, 0.5 * acc_s


@kernel
def _instance(k, theta_a, theta_b, same, ca, sa, grad_ca, grad_sa, cb, sb, grad_cb, grad_sb, lam,
              H_c, H_s, at_qq, at_qt, at_tq, G, Gbar, T):
    """Instance k's G, Gbar, lam times the tangent (into the rows G, Gbar, T) and its phi; ``same``:
    the continuous forms at theta_b (generalized-alpha), ca... unused."""
    J = grad_cb.shape[1]
    sin_b, cos_b = np.sin(theta_b), np.cos(theta_b)
    if same:
        c_bar, s_bar = cb[k], sb[k]
        sin_bar, cos_bar, dsin, dcos = sin_b, cos_b, cos_b, -sin_b
        dsin_b, dcos_b = -0.5 * sin_b, -0.5 * cos_b
    else:
        c_bar, s_bar = 0.5 * (ca[k] + cb[k]), 0.5 * (sa[k] + sb[k])
        m, h = 0.5 * (theta_a + theta_b), 0.5 * (theta_b - theta_a)
        cos_m, sin_m = np.cos(m), np.sin(m)
        sinc_h, sinc_dh = sinc_pair(h)
        dsin, dcos = cos_m * sinc_h, -sin_m * sinc_h
        sin_bar, cos_bar = 0.5 * (np.sin(theta_a) + sin_b), 0.5 * (np.cos(theta_a) + cos_b)
        dsin_b = 0.5 * (cos_m * sinc_dh - sin_m * sinc_h)
        dcos_b = -0.5 * (cos_m * sinc_h + sin_m * sinc_dh)
    lam_k = lam[k]
    for j in range(J):
        G[j] = sin_b * grad_cb[k, j] - cos_b * grad_sb[k, j]
        if same:
            gcm, gsm = grad_cb[k, j], grad_sb[k, j]
            Gbar[j] = G[j]
        else:
            gcm, gsm = 0.5 * (grad_ca[k, j] + grad_cb[k, j]), 0.5 * (grad_sa[k, j] + grad_sb[k, j])
            Gbar[j] = sin_bar * gcm - cos_bar * gsm
        t_qt = 0.5 * (cos_b * gcm + sin_b * gsm)
        T[at_qt[j]] = lam_k * t_qt
        if same:
            T[at_tq[j]] = lam_k * t_qt
        else:
            T[at_tq[j]] = lam_k * (0.5 * (dsin * grad_cb[k, j] - dcos * grad_sb[k, j]))
    G[J] = cos_b * cb[k] + sin_b * sb[k]
    Gbar[J] = G[J] if same else c_bar * dsin - s_bar * dcos
    for p in range(at_qq.size):
        T[at_qq[p]] = lam_k * (0.5 * (sin_bar * H_c[k, p] - cos_bar * H_s[k, p]))
    T[T.size - 1] = lam_k * (c_bar * dsin_b - s_bar * dcos_b)
    return sin_b * cb[k] - cos_b * sb[k]


@kernel
def linearize(qa, qb, same, ca, sa, grad_ca, grad_sa, lam, hessians, coordinates, H_c, H_s, at_qq, at_qt,
              at_tq, phi, G, Gbar, T):
    """phi (K, 1), G and Gbar at ``jacobian_mask`` (K, J + 1) and lam times the tangent at
    ``tangent_mask`` (K, P) for the local coordinates qa, qb (K, n) and multipliers lam (K,); ca...
    the values at qa (``cos_sin``), unused where ``same``."""
    K, J = qb.shape[0], coordinates.size
    cb, sb, grad_cb, grad_sb = np.empty(K), np.empty(K), np.empty((K, J)), np.empty((K, J))
    cos_sin(qb, hessians, coordinates, cb, sb, grad_cb, grad_sb)
    last = qb.shape[1] - 1
    for k in range(K):
        phi[k, 0] = _instance(k, qa[k, last], qb[k, last], same, ca, sa, grad_ca, grad_sa, cb, sb, grad_cb,
                              grad_sb, lam, H_c, H_s, at_qq, at_qt, at_tq, G[k], Gbar[k], T[k])


@kernel
def contribute(qa, qb, same, ca, sa, grad_ca, grad_sa, lam, scale, tangent, R, values, dofs, rows, hessians,
               coordinates, H_c, H_s, at_qq, at_qt, at_tq, phi_at, T_at, F_at, G_at):
    """The family's part of a Newton iteration at the global q_n+1 = qb (qa: q_n) with all multipliers
    lam (m,): R[phi_at] := scale phi (instances with phi_at < 0 dropped), R[:n] += Gbar^T lam (summed
    into a vector first, as ``FamilyLayout.forces``), and, unless T_at is empty, the Newton-matrix
    entries -- ``tangent`` d(Gbar^T lam)/dq at T_at (K, P), scale Gbar at F_at and scale G at G_at
    (K, J + 1; < 0: a dropped row) -- added to the CSC data ``values``. ``dofs`` (K, n) and ``rows``
    (K,): the instances' coordinates and rows; ca... the values at the local qa (``cos_sin``)."""
    K, n = dofs.shape
    J = coordinates.size
    local = np.empty((K, n))
    for k in range(K):
        for i in range(n):
            local[k, i] = qb[dofs[k, i]]
    cb, sb, grad_cb, grad_sb = np.empty(K), np.empty(K), np.empty((K, J)), np.empty((K, J))
    cos_sin(local, hessians, coordinates, cb, sb, grad_cb, grad_sb)
    lam_k = np.empty(K)
    for k in range(K):
        lam_k[k] = lam[rows[k]]
    G, Gbar, T = np.empty(J + 1), np.empty(J + 1), np.empty(at_qq.size + 2 * J + 1)
    force = np.zeros(R.size)
    tangents = T_at.size > 0
    for k in range(K):
        theta_a = qa[dofs[k, n - 1]]
        phi = _instance(k, theta_a, local[k, n - 1], same, ca, sa, grad_ca, grad_sa, cb, sb, grad_cb, grad_sb,
                        lam_k, H_c, H_s, at_qq, at_qt, at_tq, G, Gbar, T)
        if phi_at[k] >= 0:
            R[phi_at[k]] = scale * phi
        for j in range(J):
            force[dofs[k, coordinates[j]]] += Gbar[j] * lam_k[k]
        force[dofs[k, n - 1]] += Gbar[J] * lam_k[k]
        if tangents:
            for p in range(T.size):
                values[T_at[k, p]] += tangent * T[p]
            for j in range(J + 1):
                if F_at[k, j] >= 0:
                    values[F_at[k, j]] += scale * Gbar[j]
            for j in range(J + 1):
                if G_at[k, j] >= 0:
                    values[G_at[k, j]] += scale * G[j]
    for j in range(dofs.max() + 1):
        R[j] += force[j]
