"""Compiled follower forces and torques on frames (``loads.FollowerForce``, ``loads.TimeTorque``,
``loads.FollowerTorque``; numba, cached on disk), all K instances in one call, with the frame
e_a = A_a z_m at the step's mid-point z_m (the formulas are in those classes' docstrings). The module
imports numba: it is imported where the kernels run (``loads``), so that the command line starts
without it.
"""
import numpy as np

from ..numerics.compiled import kernel


@kernel
def _frame(axes, k, z):
    """Rows e_a = A_a z (dim, dim) of instance k."""
    dim, n = axes.shape[1], axes.shape[3]
    E = np.zeros((dim, dim))
    for a in range(dim):
        for i in range(dim):
            for j in range(n):
                E[a, i] += axes[k, a, i, j] * z[j]
    return E


@kernel
def _turn(M, g):
    """M x g (space, M (3,)) or M J g (plane, M (1,)) for g (dim,)."""
    if g.size == 3:
        return np.array([M[1] * g[2] - M[2] * g[1], M[2] * g[0] - M[0] * g[2], M[0] * g[1] - M[1] * g[0]])
    return np.array([-M[0] * g[1], M[0] * g[0]])


@kernel
def follower_force(z, points, axes, components, force, tangent):
    """Fbar = C^T sum_a f_a A_a z_m into ``force`` (K, n) for the mid-point coordinates z (K, n) and
    the scaled components f_a (K, dim); unless ``tangent`` is empty, the constant
    dFbar/dz_b = 1/2 C^T sum_a f_a A_a (K, n, n)."""
    K, dim, n = points.shape
    for k in range(K):
        E = _frame(axes, k, z[k])
        world = np.zeros(dim)
        for a in range(dim):
            for i in range(dim):
                world[i] += components[k, a] * E[a, i]
        for j in range(n):
            acc = 0.0
            for i in range(dim):
                acc += points[k, i, j] * world[i]
            force[k, j] = acc
        if tangent.size == 0:
            continue
        for j in range(n):
            for m in range(n):
                acc = 0.0
                for i in range(dim):
                    for a in range(dim):
                        acc += points[k, i, j] * components[k, a] * axes[k, a, i, m]
                tangent[k, j, m] = 0.5 * acc


@kernel
def torque(z, axes, torques, follower, force, tangent):
    """Fbar = sum_a A_a^T F_a, F_a = 1/2 M x g_a (space) or M/2 J g_a (plane) with the dual basis g_a
    of the e_a at z_m (K, n), into ``force`` (K, n); ``torques`` (K, 3) or (K, 1): M itself, or with
    ``follower`` its components m_b in the frame, M = sum_b m_b e_b. Unless ``tangent`` is empty,
    dFbar/dz_b (K, n, n) = 1/4 sum_a A_a^T (M x dg_a/dz_m + dM/dz_m x g_a), dg_a = -G dE^T G."""
    K, dim, _, n = axes.shape
    for k in range(K):
        E = _frame(axes, k, z[k])
        G = np.linalg.inv(E).T.copy()  # rows g_a: g_a . e_b = delta_ab
        if follower:
            M = np.zeros(3)
            for b in range(dim):
                for i in range(dim):
                    M[i] += torques[k, b] * E[b, i]
        else:
            M = torques[k].copy()
        for j in range(n):
            force[k, j] = 0.0
        for a in range(dim):
            F = 0.5 * _turn(M, G[a])
            for i in range(dim):
                for j in range(n):
                    force[k, j] += axes[k, a, i, j] * F[i]
        if tangent.size == 0:
            continue
        for j in range(n):
            for m in range(n):
                tangent[k, j, m] = 0.0
        for m in range(n):
            dM = np.zeros(3)
            if follower:
                for b in range(dim):
                    for i in range(dim):
                        dM[i] += torques[k, b] * axes[k, b, i, m]
            for a in range(dim):
                dg = np.zeros(dim)  # dg_a/dz_m = -sum_{b,c} G[a, b] A[c, b, m] G[c, :]
                for b in range(dim):
                    for c in range(dim):
                        coefficient = G[a, b] * axes[k, c, b, m]
                        for d in range(dim):
                            dg[d] -= coefficient * G[c, d]
                turned = _turn(M, dg)
                if follower:
                    turned += _turn(dM, G[a])
                for i in range(dim):
                    for j in range(n):
                        tangent[k, j, m] += 0.25 * axes[k, a, i, j] * turned[i]
