"""Compiled element kernels of the world-vector beams' elastic energy (numba, cached on disk).

An element's local coordinates are z = [d_1, .., d_dim, w_a, w_b, s_a, s_b, psi_a, psi_b] (the
twists in space only). Its Hermite vectors are Y_j = R_j z_j, j = 0..3: w_a, w_b and the slopes
turned by R = c I + s J in the plane (sigma_k = theta_k n_e, ``embedding``), R = I in space. Every
strain of the element is of the one form

    e_i = D_i . U_i + (gamma_i / 2) sum_jk C_jk Y_j . Y_k + lambda_i . psi,
    D_i = sum_a t_ia d_a,   U_i = sum_j beta_ij Y_j,

quadratic in z with a constant Hessian H_i and invariant under a common rotation of d, w, s:

- axial, e = t_e . (w_b - w_a) / l + gamma c_e, t_e = sum_a t_a d_a the element's tangent,
  c_e = int_0^1 |u'|^2 / 2 dxi = 1/2 Y.C Y with C_jk = int_0^1 a_j a_k dxi over the slope
  coefficients a of u' = sum_j a_j Y_j (gamma = 1 with geometric stiffening, else 0): the
  element-averaged Green strain of the centre line, an assumed strain free of membrane locking;
- bending, kappa = n . u'' at the two Gauss points (in space kappa_2 = d_2 . u'', kappa_3 = d_3 . u''):
  u'' is linear in xi, so two points integrate kappa^2 exactly;
- torsion (space), tau = (psi_b - psi_a) / l.

V = 1/2 sum_i k_i e_i^2 with k_i = EA l, EI l / 2 (each Gauss point) and GJ l. Because each e_i is
quadratic, Gonzalez's discrete gradient (Gonzalez 1996) takes the simple form

    grad_bar V(z_a, z_b) = sum_i k_i ebar_i grad e_i(z_m),   ebar_i = (e_i(z_a) + e_i(z_b)) / 2,

z_m = (z_a + z_b)/2, with grad_bar V . (z_b - z_a) = V(z_b) - V(z_a) exactly (e_i(z_b) - e_i(z_a) =
grad e_i(z_m) . (z_b - z_a) for a quadratic), and its derivative

    d grad_bar V / d z_b = sum_i k_i [1/2 grad e_i(z_m) grad e_i(z_b)^T + 1/2 ebar_i H_i];

at z_a = z_b = z the continuous force -sum_i k_i e_i grad e_i and its derivative -sum_i k_i
[grad e_i grad e_i^T + e_i H_i] (generalized-alpha). The kernels loop over the elements and write
the forces into the coordinates and the tangent into the values of its fixed sparsity pattern.

Layout. An element has nz = dim^2 + 4 dim (+ 2 twists in space) coordinates and ns strains: 12 and 3
(axial, bending at two points) in the plane, 23 and 6 (axial, two bending planes at two points,
torsion) in space; ``step`` takes these as compile-time constants. The tangent's values come element
by element, each element's rows in order, within a row its columns in order: the entries (r, c) of
its present coordinates (not removed) with r and c both among [d, w, s] or both among the twists
(``elasticity``'s pattern) -- every entry written once, so the values are not zeroed and no place is
looked up. Each entry sums its terms in one fixed order -- the strains' products factor k_i grad_m
grad_b^T, then their Hessians strain by strain --, so that the trajectories do not move by round-off
when the loops are rearranged. Terms that are exactly zero are left out (``_tangent``): the gradients'
zeros, and in space the products with R_j = I, which the kernels do not multiply out (dim is a
compile-time constant): the same values as with them, in about 0.55 of the time in space
(``benchmarks/kernel_costs.py``).
"""
import numpy as np

from ...numerics.compiled import kernel


@kernel(inline="always")
def _strains(z, dim, R, t, beta, lam, gam, C, e, G, Y, CY, D, U, gY):
    """The strains e (ns,) and their gradients G (ns, nz) of one element at its coordinates z -- the
    strains alone where G has no rows (``energies``) --; Y, CY (4, dim) and D, U, gY (dim,) are work arrays."""
    nd = dim * dim
    ns, nz = t.shape[0], z.size
    twist = nd + 4 * dim
    for j in range(4):
        for a in range(dim):
            if dim == 3:  # R_j = I (module docstring)
                Y[j, a] = z[nd + j * dim + a]
            else:
                acc = 0.0
                for b in range(dim):
                    acc += R[j, a, b] * z[nd + j * dim + b]
                Y[j, a] = acc
    for j in range(4):
        for a in range(dim):
            acc = 0.0
            for k in range(4):
                acc += C[j, k] * Y[k, a]
            CY[j, a] = acc
    for i in range(ns):
        for c in range(dim):
            D[c], U[c] = 0.0, 0.0
        for a in range(dim):
            for c in range(dim):
                D[c] += t[i, a] * z[a * dim + c]
        for j in range(4):
            for c in range(dim):
                U[c] += beta[i, j] * Y[j, c]
        value = 0.0
        for c in range(dim):
            value += D[c] * U[c]
        if gam[i] != 0.0:
            quadratic = 0.0
            for j in range(4):
                for c in range(dim):
                    quadratic += Y[j, c] * CY[j, c]
            value += 0.5 * gam[i] * quadratic
        for p in range(nz - twist):
            value += lam[i, p] * z[twist + p]
        e[i] = value
        if G.shape[0] == 0:
            continue
        for m in range(nz):
            G[i, m] = 0.0
        for a in range(dim):
            for c in range(dim):
                G[i, a * dim + c] = t[i, a] * U[c]
        for j in range(4):
            for c in range(dim):
                gY[c] = beta[i, j] * D[c] + gam[i] * CY[j, c]
            for b in range(dim):  # R_j^T gY
                if dim == 3:
                    G[i, nd + j * dim + b] = gY[b]
                else:
                    acc = 0.0
                    for c in range(dim):
                        acc += R[j, c, b] * gY[c]
                    G[i, nd + j * dim + b] = acc
        for p in range(nz - twist):
            G[i, twist + p] = lam[i, p]


@kernel(inline="always")
def _hessian(H, f, weight, dim, R, t, beta, gam, C):
    """sum_i weight_i H_i (the strains' constant Hessians): f (ns, dim, 4) the factors of its blocks
    [d_a, z_j] = [z_j, d_a]^T = sum_i f_iaj R_j, f_iaj = weight_i t_ia beta_ij (added strain by strain
    by ``_elements``), and its block [z_j, z_k] = g C_jk R_j^T R_k, g = sum_i weight_i gamma_i, set in
    H (nz, nz); the blocks [d, d] and the twists' are 0 in every H_i."""
    nd, ns = dim * dim, t.shape[0]
    for i in range(ns):
        for a in range(dim):
            for j in range(4):
                f[i, a, j] = weight[i] * t[i, a] * beta[i, j]
    g = 0.0
    for i in range(ns):
        g += weight[i] * gam[i]
    for j in range(4):
        for k in range(4):  # C as it is: symmetric only to round-off
            c = g * C[j, k]
            for b1 in range(dim):
                for b2 in range(dim):
                    if dim == 3:  # R_j^T R_k = I: its zeros stay in H (set to 0 once)
                        if b1 == b2:
                            H[nd + j * dim + b1, nd + k * dim + b2] = c
                    else:
                        acc = 0.0
                        for r in range(dim):
                            acc += R[j, r, b1] * R[k, r, b2]
                        H[nd + j * dim + b1, nd + k * dim + b2] = c * acc


@kernel(inline="always")
def _gather(Q, index, z):
    for m in range(index.size):
        z[m] = Q[index[m]] if index[m] >= 0 else 0.0


@kernel
def _work(dim):
    """Work arrays of ``_strains``: Y, CY (4, dim), D, U, gY (dim,)."""
    return np.zeros((4, dim)), np.zeros((4, dim)), np.zeros(dim), np.zeros(dim), np.zeros(dim)


@kernel
def step(Qa, Qb, same, dim, index, R, t, beta, lam, gam, C, k, F, values, start, start_grad, known):
    """``_elements`` on the first rows of Qa, Qb, F and values (each (1, .): a force's arrays as its
    callers hold them, passed without a view or a copy in Python) with the dimension, the number of
    strains ns and of coordinates nz compile-time constants -- 2, 3, 12 in the plane and 3, 6, 23 in
    space (module docstring) --: numba inlines it once for each, so that LLVM unrolls and vectorises
    the short loops (in the plane about 40 % less time per element than with them run-time values)."""
    qa, qb, f, v = Qa[0], Qb[0], F[0], values[0]
    if dim == 2:
        _elements(qa, qb, same, 2, 3, 12, index, R, t, beta, lam, gam, C, k, f, v, start, start_grad, known)
    else:
        _elements(qa, qb, same, 3, 6, 23, index, R, t, beta, lam, gam, C, k, f, v, start, start_grad, known)


@kernel(inline="always")
def _elements(Qa, Qb, same, dim, ns, nz, index, R, t, beta, lam, gam, C, k, F, values, start, start_grad, known):
    """Forces and tangent of all elements over a step from Qa to Qb (module docstring), or with
    ``same`` the continuous ones at Qb. ``index`` (E, nz): the elements' coordinates in Q (-1:
    removed); ``R`` (E, 4, dim, dim), ``t`` (E, ns, dim), ``beta`` (E, ns, 4), ``lam`` (E, ns, 2),
    ``gam`` (E, ns), ``C`` (E, 4, 4) and ``k`` (E, ns) the strains' data. F (n,) is overwritten with
    -grad_bar V; ``values`` (nnz,) with d(-grad_bar V)/dQb (with ``same``: dF/dQ) in the order of the
    tangent's pattern (module docstring, "Layout"); an empty ``values`` skips the tangent. ``start``
    (E, ns) and ``start_grad`` (E, ns, nz) hold the strains and their gradients at Qa: read if
    ``known`` (Qa is the step's start, the same in every Newton iteration), else written."""
    E = index.shape[0]
    if index.shape[1] != nz or t.shape[1] != ns:
        raise ValueError("kernels.step: the elements' coordinates or strains are not those of their dimension")
    nd = dim * dim
    moving = nd + 4 * dim
    za, zb = np.empty(nz), np.empty(nz)
    Ke = np.empty((nz, nz))  # one element's tangent (``_tangent``)
    eb, ebar, weight = np.empty(ns), np.empty(ns), np.empty(ns)
    fH = np.empty((ns, dim, 4))
    Gb, Gmid = np.empty((ns, nz)), np.empty((ns, nz))
    H = np.zeros((nz, nz))  # its [d, d] and twist blocks stay 0 (``_hessian``)
    Y, CY, D, U, gY = _work(dim)
    F[:] = 0.0
    tangent = values.size > 0
    factor = 1.0 if same else 0.5
    p = 0
    for el in range(E):
        ix = index[el]
        _gather(Qb, ix, zb)
        _strains(zb, dim, R[el], t[el], beta[el], lam[el], gam[el], C[el], eb, Gb, Y, CY, D, U, gY)
        if same:
            Gm = Gb
            for i in range(ns):
                ebar[i] = eb[i]
        else:
            Gm = Gmid
            ea, Ga = start[el], start_grad[el]
            if not known:
                _gather(Qa, ix, za)
                _strains(za, dim, R[el], t[el], beta[el], lam[el], gam[el], C[el], ea, Ga, Y, CY, D, U, gY)
            for i in range(ns):
                ebar[i] = 0.5 * (ea[i] + eb[i])
                for m in range(nz):
                    Gm[i, m] = 0.5 * (Ga[i, m] + Gb[i, m])  # the gradients are affine in z
        for i in range(ns):
            weight[i] = k[el, i] * ebar[i]
        for m in range(nz):
            if ix[m] >= 0:
                acc = 0.0
                for i in range(ns):
                    acc += weight[i] * Gm[i, m]
                F[ix[m]] -= acc
        if not tangent:
            continue
        for i in range(ns):
            weight[i] *= factor
        _hessian(H, fH, weight, dim, R[el], t[el], beta[el], gam[el], C[el])
        full = True
        for m in range(nz):
            full = full and ix[m] >= 0
        _tangent(Ke, factor, k[el], Gm, Gb, t[el], fH, H, R[el], dim, ns, nz)
        for r in range(nz):
            if ix[r] < 0:
                continue
            first, last = (0, moving) if r < moving else (moving, nz)
            if full:  # no branch in the loop: LLVM vectorises it
                for c in range(first, last):
                    values[p + c - first] = -Ke[r, c]
                p += last - first
            else:
                for c in range(first, last):
                    if ix[c] >= 0:
                        values[p] = -Ke[r, c]
                        p += 1


@kernel(inline="always")
def _tangent(Ke, factor, k, Gm, Gb, t, fH, H, R, dim, ns, nz):
    """The element's tangent factor sum_i k_i grad_m grad_b^T + sum_i weight_i H_i into Ke (nz, nz) over
    its blocks [d, w, s] and the twists' (the rest is not read), each entry summed in the order of the
    module docstring: the strains' products as rank-one updates strain by strain, then the Hessians
    (``_hessian``'s f and H). Exact zeros of the gradients are skipped -- whole rows, and the columns of a
    director d_a where t_ia = 0 (most in space: t_i is a unit vector there) --, which leaves every sum
    bit for bit as it is: a sum that starts at +0 never holds -0, and adding +-0 to it changes nothing."""
    nd = dim * dim
    moving = nd + 4 * dim
    for r in range(nz):
        for c in range(nz):
            Ke[r, c] = 0.0
    for i in range(ns):
        kf = factor * k[i]
        for r in range(nz):
            g = Gm[i, r]
            if g == 0.0:
                continue
            a = kf * g
            if r < moving:
                for da in range(dim):
                    if t[i, da] != 0.0:
                        for rr in range(da * dim, da * dim + dim):
                            Ke[r, rr] += a * Gb[i, rr]
                for c in range(nd, moving):
                    Ke[r, c] += a * Gb[i, c]
            else:
                for c in range(moving, nz):
                    Ke[r, c] += a * Gb[i, c]
    for r in range(nd):  # d_a, component rr: the columns z_j
        da, rr = r // dim, r % dim
        for i in range(ns):
            for j in range(4):
                f = fH[i, da, j]
                if f != 0.0:
                    if dim == 3:
                        Ke[r, nd + j * dim + rr] += f
                    else:
                        for b in range(dim):
                            Ke[r, nd + j * dim + b] += f * R[j, rr, b]
    for r in range(nd, moving):  # z_j, component b: the columns d and z
        j, b = (r - nd) // dim, (r - nd) % dim
        for i in range(ns):
            for da in range(dim):
                f = fH[i, da, j]
                if f != 0.0:
                    if dim == 3:
                        Ke[r, da * dim + b] += f
                    else:
                        for rr in range(dim):
                            Ke[r, da * dim + rr] += f * R[j, rr, b]
        for c in range(nd, moving):
            Ke[r, c] += H[r, c]


@kernel
def energies(Q, dim, index, R, t, beta, lam, gam, C, k):
    """V = 1/2 sum_i k_i e_i^2 summed over the elements, at each row of Q (F, n): (F,)."""
    E, nz = index.shape
    ns = t.shape[1]
    z, e, G = np.zeros(nz), np.zeros(ns), np.zeros((0, nz))  # the strains alone
    Y, CY, D, U, gY = _work(dim)
    out = np.zeros(Q.shape[0])
    for f in range(Q.shape[0]):
        total = 0.0
        for el in range(E):
            _gather(Q[f], index[el], z)
            _strains(z, dim, R[el], t[el], beta[el], lam[el], gam[el], C[el], e, G, Y, CY, D, U, gY)
            for i in range(ns):
                total += 0.5 * k[el, i] * e[i] * e[i]
        out[f] = total
    return out
