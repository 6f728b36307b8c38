"""The vector interpolation of the world-vector beams (``embedding``): every component of an
element's displacement u_e(xi) = H1 w_a + H3 w_b + l (G1 sigma_a + G2 sigma_b) uses the cubic
Hermite functions of the planar transverse field (003 eq. 46), read from the planar element rows;
J the rotation by 90 degrees that turns a planar slope into the element's normal."""
import numpy as np

HERMITE = [1, 4, 2, 5]  # the planar transverse columns of w_a, w_b, sigma_a, sigma_b
J = np.array([[0.0, -1.0], [1.0, 0.0]])


def hermite(rows):
    """The coefficients (..., 4) of w_a, w_b, sigma_a, sigma_b in the planar element rows (..., 6)
    of a transverse quantity (``elements.shape_matrix`` row 1, ``slope_rows``, ``curvature_rows``):
    the vector interpolation of the ``embedding`` module docstring uses the transverse functions
    for every component."""
    return rows[..., HERMITE]
