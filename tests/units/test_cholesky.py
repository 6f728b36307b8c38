"""CHOLMOD from the kvxopt wheel (``numerics.cholesky``) against closed forms: the 1-D Laplacian
tridiag(-1, 2, -1) of order n has determinant n + 1, the product of the pivots of any symmetric ordering,
and its solve of b = A x for a known x returns x; a matrix with a negative eigenvalue is refused by
``pivots``, one with a zero eigenvalue refused or shown by a pivot of round-off size."""
import numpy as np
import pytest
import scipy.sparse as sp

from femdyn.numerics.cholesky import NotPositiveDefiniteError, cholesky, pivots


def laplacian(n):
    return sp.diags([-np.ones(n - 1), 2.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csc")


@pytest.mark.parametrize("n", [5, 300, 20000])
def test_pivots_multiply_to_the_determinant(n):
    d = pivots(laplacian(n))
    assert d.shape == (n,) and d.min() > 0
    # in elimination order d_k = 2 - 1/d_(k-1): each pivot carries the round-off of those before it,
    # k eps, so the sum of the logarithms is exact to about n^2 eps / 2
    assert abs(np.sum(np.log(d)) - np.log(n + 1.0)) <= n**2 * np.finfo(float).eps


@pytest.mark.parametrize("n", [5, 300, 20000])
def test_solve_returns_the_solution(n):
    x = np.sin(np.arange(n) + 1.0)
    X = np.column_stack([x, np.cos(np.arange(n))])
    A = laplacian(n)
    solve = cholesky(A)
    assert np.abs(solve(A @ x) - x).max() <= 1e-13 * n**2  # the condition number grows like n^2
    assert np.abs(solve(A @ X) - X).max() <= 1e-13 * n**2 and solve(A @ X).shape == X.shape


def shifted_laplacian(n, shift):
    """The Laplacian less its smallest eigenvalue 2 - 2 cos(pi / (n + 1)) and ``shift``."""
    return laplacian(n) - (2.0 - 2.0 * np.cos(np.pi / (n + 1)) + shift) * sp.eye(n, format="csc")


def test_an_indefinite_matrix_is_refused():
    with pytest.raises(NotPositiveDefiniteError):
        pivots(shifted_laplacian(50, 1.0))


def test_a_singular_matrix_is_refused_or_shows_a_zero_pivot():
    """Singular in exact arithmetic: in floating point the last pivot is a round-off, of either sign."""
    try:
        d = pivots(shifted_laplacian(50, 0.0))
    except NotPositiveDefiniteError:
        return
    assert d.min() <= 1e-10 * d.max()
