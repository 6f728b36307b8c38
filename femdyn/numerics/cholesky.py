"""Sparse Cholesky factors of symmetric positive definite SciPy matrices: CHOLMOD (Chen, Davis, Hager &
Rajamanickam 2008), the kvxopt wheel's copy (``suitesparse``), through kvxopt's interface.

CHOLMOD factors P A P^T = L L^T (``P`` its fill-reducing ordering, AMD); ``cholesky(A)`` returns
the solve x = A^-1 b as a function of b (a vector or the columns of a matrix), ``pivots(A)`` the
pivots d_k = L_kk^2 of the factor -- those of the LDL^T factorisation, in the factor's order -- whose
smallest, against a tolerance, tells a regular matrix from a (near-)singular one; ``pivots`` refuses a
matrix that is not positive definite (``NotPositiveDefiniteError``). ``cholesky`` is for positive
definite matrices: CHOLMOD may factor others (LDL^T) without a word. Only A's lower triangle is read.
"""
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from kvxopt import cholmod, matrix, spmatrix

SUPERNODAL = {"auto": 1, "supernodal": 2}  # CHOLMOD's choice of the factor's form (cholmod_common.supernodal)


class NotPositiveDefiniteError(ArithmeticError):
    """CHOLMOD met a pivot that is not positive."""


def _factor(A, form):
    """CHOLMOD's numeric factor of the lower triangle of A in the form ``form`` (``SUPERNODAL``)."""
    lower = sp.tril(A, format="coo")
    K = spmatrix(matrix(lower.data.astype(np.float64)), matrix(lower.row.astype(np.int64)),
                 matrix(lower.col.astype(np.int64)), lower.shape)
    cholmod.options["supernodal"] = SUPERNODAL[form]
    factor = cholmod.symbolic(K, uplo="L")
    try:
        cholmod.numeric(K, factor)
    except ArithmeticError as err:
        raise NotPositiveDefiniteError(f"matrix not positive definite ({err})") from None
    return factor


def cholesky(A: sp.spmatrix | sp.sparray) -> Callable[[np.ndarray], np.ndarray]:
    """The solve b -> A^-1 b (b of shape (n,) or (n, k)) with CHOLMOD's factor of the sparse
    symmetric positive definite A."""
    factor = _factor(A, "auto")

    def solve(b: np.ndarray) -> np.ndarray:
        B = matrix(np.array(b, dtype=np.float64, order="F").reshape(A.shape[0], -1, order="F"))
        cholmod.solve(factor, B)
        return np.array(B).reshape(np.shape(b))

    return solve


def pivots(A: sp.spmatrix | sp.sparray) -> np.ndarray:
    """The pivots d_k = L_kk^2 of CHOLMOD's factor P A P^T = L L^T (module docstring)."""
    factor = _factor(A, "supernodal")
    try:
        diagonal = cholmod.diag(factor)
    except ValueError:  # the factorisation stopped at a pivot that is not positive, unreported by kvxopt
        raise NotPositiveDefiniteError("matrix not positive definite") from None
    return np.array(diagonal).ravel() ** 2
