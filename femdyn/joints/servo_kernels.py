"""Compiled kernel of the servo rows (``servo.Servo``; numba, cached on disk), all K instances of a
family in one call: with the coefficients a(t_n+1) and targets gamma(t_n+1) of the step,

    Phi_C = a . q_c - gamma,    G = a (on q_c),    force direction B = 1 (on the actuated coordinate)

(000 eqs. 58-59, 84: the input u = -lam acts on the actuated coordinate alone, and the row adds no
tangent). The module imports numba: it is imported where the kernel runs (``servo``), so that the
command line starts without it.
"""
import numpy as np

from ..numerics.compiled import kernel


@kernel
def contribute(qb, a, gamma, lam, scale, R, values, dofs, rows, phi_at, F_at, G_at):
    """The family's part of a Newton iteration at the global q_n+1 = qb with all multipliers lam (m,):
    R[phi_at] := scale Phi_C (instances with phi_at < 0 dropped), R[:n] += B^T lam (summed into a
    vector first, as ``FamilyLayout.forces``), and, unless F_at is empty, scale B at F_at (K, 1) and
    scale a at G_at (K, n_c) (< 0: a dropped row) added to the CSC data ``values``. ``dofs`` (K, n_c + 1):
    the coordinates q_c, then the actuated one; ``rows`` (K,) the instances' rows."""
    K, n = dofs.shape
    force = np.zeros(R.size)
    for k in range(K):
        acc = 0.0
        for j in range(n - 1):
            acc += a[k, j] * qb[dofs[k, j]]
        if phi_at[k] >= 0:
            R[phi_at[k]] = scale * (acc - gamma[k])
        force[dofs[k, n - 1]] += lam[rows[k]]
    for j in range(dofs.max() + 1):
        R[j] += force[j]
    if F_at.size == 0:
        return
    for k in range(K):
        if F_at[k, 0] >= 0:
            values[F_at[k, 0]] += scale
    for k in range(K):
        for j in range(n - 1):
            if G_at[k, j] >= 0:
                values[G_at[k, j]] += scale * a[k, j]
