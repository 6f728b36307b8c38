"""Compiled kernel of the viscous damping of flexible bodies (``viscous``): the product J(l)^T D J(r)
entry by entry on its fixed pattern. The module imports numba: it is imported where the kernel runs."""
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
