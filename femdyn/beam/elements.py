"""Planar Euler-Bernoulli beam elements in the floating frame of reference (003 section 6).

Each element has two nodes with three elastic coordinates: axial displacement ``u``,
transverse displacement ``v`` and slope ``theta = dv/dx``, ordered ``[u1, v1, theta1, u2, v2, theta2]``.
The transverse field is cubic Hermite (003 eq. 46, the element shape matrix of eq. 109). The axial
field is either linear (``axial="linear"``, 003 eq. 46: the element of 003 and its Rayleigh-Ritz
body) or cubic Hermite with zero nodal axial slope, ``u = (1 - 3xi^2 + 2xi^3) u1 + (3xi^2 - 2xi^3)
u2`` (``axial="cubic"``: the element of the world-vector beams, ``world``, whose nodal displacements
are vectors interpolated with the transverse functions). Both have the axial stiffness EA/l of the
element-averaged strain (u2 - u1)/l (003 eq. 130); they differ in the axial mass, ``m (1/3, 1/6)``
against ``m (13/35, 9/70)``. An element at angle ``beta`` to the body's x1 axis is turned into
body-frame nodal coordinates by the constant rotations ``C`` and ``Cbar`` of 003 eqs. 112-114, so
that the displacement of a material point in the body frame is ``C S(xi) Cbar e`` with ``e`` the
element's nodal coordinates in the body frame (003 eq. 110).

Every function takes arrays over all ``K`` elements of a body (lengths, E, A, I, rho) and returns
``(K, ...)`` blocks; ``BeamElements`` evaluates them once for a centre line and assembles body
matrices through one fixed sparsity pattern: COO triplets are turned into CSC (the format the
sparse factorisations take) once, afterwards only the data array is refilled.

Integrals of products of shape functions (the FFR inertia invariants, the geometric stiffness) are
evaluated by 4-point Gauss-Legendre quadrature, exact for polynomials up to degree 7: the integrands
are at most of degree 6, so the results are the closed forms to round-off.
"""
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..numerics.pattern import SparsePattern

_GAUSS_X, _GAUSS_W = np.polynomial.legendre.leggauss(4)
GAUSS_XI = 0.5 * (_GAUSS_X + 1.0)  # points on [0, 1]
GAUSS_WEIGHTS = 0.5 * _GAUSS_W  # weights on [0, 1], summing to 1
AXIAL_SHAPES = ("linear", "cubic")


def check_axial(axial):
    """Refuse an axial shape other than ``AXIAL_SHAPES``."""
    if axial not in AXIAL_SHAPES:
        raise ValueError(f"the axial shape must be one of {', '.join(AXIAL_SHAPES)}, got {axial!r}")


def _columns(*rows):
    """Stack per-element rows (each a scalar or an array broadcastable to the others) as (..., 6)."""
    return np.stack(np.broadcast_arrays(*rows), axis=-1)


def _points(xi, length):
    """``xi`` as (1, P) or (K, P) and ``length`` as (K, 1), for (K, P) element-point arrays."""
    xi = np.asarray(xi, dtype=float)
    return (xi[None, :] if xi.ndim == 1 else xi), np.asarray(length, dtype=float)[:, None]


def shape_matrix(xi, length, axial="linear"):
    """Element shape matrix ``S(xi)`` in the element frame (003 eq. 46), ``(K, P, 2, 6)``.

    Row 0 is the axial displacement, ``u = (1 - xi) u1 + xi u2`` (``axial="linear"``) or
    ``(1 - 3xi^2 + 2xi^3) u1 + (3xi^2 - 2xi^3) u2`` (``"cubic"``), row 1 the transverse displacement
    with the cubic Hermite functions ``1 - 3xi^2 + 2xi^3``, ``l (xi - 2xi^2 + xi^3)``,
    ``3xi^2 - 2xi^3``, ``l (xi^3 - xi^2)``; ``length`` (K,), ``xi`` in [0, 1] either (P,), the same
    points in every element, or (K, P), points per element.
    """
    xi, le = _points(xi, length)
    zero = np.zeros_like(xi * le)
    h3 = 3 * xi**2 - 2 * xi**3 if axial == "cubic" else xi
    axial = _columns(1.0 - h3, zero, zero, h3, zero, zero)
    transverse = _columns(zero, 1 - 3 * xi**2 + 2 * xi**3, le * (xi - 2 * xi**2 + xi**3),
                          zero, 3 * xi**2 - 2 * xi**3, le * (xi**3 - xi**2))
    return np.stack([axial, transverse], axis=-2)


def axial_strain_row(length):
    """``du/dx`` as a row on the element coordinates, constant along the element: ``(K, 6)``."""
    le = np.asarray(length, dtype=float)
    zero = np.zeros_like(le)
    return _columns(-1.0 / le, zero, zero, 1.0 / le, zero, zero)


def slope_rows(xi, length):
    """``dv/dx`` at ``xi`` (P,) or (K, P) as rows on the element coordinates: ``(K, P, 6)``. At a node it is
    the nodal slope; inside the element it is the rotation of the cross-section."""
    xi, le = _points(xi, length)
    zero = np.zeros_like(xi * le)
    return _columns(zero, (6 * xi**2 - 6 * xi) / le, 1 - 4 * xi + 3 * xi**2,
                    zero, (6 * xi - 6 * xi**2) / le, 3 * xi**2 - 2 * xi)


def curvature_rows(xi, length):
    """``d2v/dx2`` at ``xi`` (P,) or (K, P) as rows on the element coordinates: ``(K, P, 6)``."""
    xi, le = _points(xi, length)
    zero = np.zeros_like(xi * le)
    return _columns(zero, (12 * xi - 6) / le**2, (6 * xi - 4) / le,
                    zero, (6 - 12 * xi) / le**2, (6 * xi - 2) / le)


def curvature_gradient_row(length):
    """``d3v/dx3`` as a row on the element coordinates, constant along the element: ``(K, 6)``."""
    le = np.asarray(length, dtype=float)
    zero = np.zeros_like(le)
    return _columns(zero, 12 / le**3, 6 / le**2, zero, -12 / le**3, 6 / le**2)


def mass_matrices(length, rho, area, axial="linear"):
    """Consistent element mass matrices ``S_ff`` in the element frame (003 eq. 125): ``(K, 6, 6)``.

    ``m (1/3, 1/6)`` couples the axial coordinates of the linear axial shape (``m (13/35, 9/70)``
    those of the cubic one), ``m/420 [156, 22l, 54, -13l; .., 4l^2, 13l, -3l^2; ..]`` the
    transverse ones, with ``m = rho A l`` the element mass.
    """
    le = np.asarray(length, dtype=float)
    m = np.asarray(rho, dtype=float) * np.asarray(area, dtype=float) * le
    one = np.ones_like(le)
    out = np.zeros(le.shape + (6, 6))
    own, other = (156, 54) if axial == "cubic" else (140, 70)
    entries = {(0, 0): own * one, (0, 3): other * one, (3, 3): own * one,
               (1, 1): 156 * one, (1, 2): 22 * le, (1, 4): 54 * one, (1, 5): -13 * le,
               (2, 2): 4 * le**2, (2, 4): 13 * le, (2, 5): -3 * le**2,
               (4, 4): 156 * one, (4, 5): -22 * le, (5, 5): 4 * le**2}
    for (i, j), value in entries.items():
        out[..., i, j] = out[..., j, i] = m * value / 420.0
    return out


def stiffness_matrices(length, young, area, inertia):
    """Element stiffness matrices in the element frame (003 eq. 130), from the strain energy
    ``1/2 int (EA u'^2 + EI v''^2) dx`` (003 eq. 38): ``(K, 6, 6)``."""
    le = np.asarray(length, dtype=float)
    ea = np.asarray(young, dtype=float) * np.asarray(area, dtype=float) / le
    ei = np.asarray(young, dtype=float) * np.asarray(inertia, dtype=float) / le**3
    out = np.zeros(le.shape + (6, 6))
    entries = {(0, 0): ea, (0, 3): -ea, (3, 3): ea,
               (1, 1): 12 * ei, (1, 2): 6 * le * ei, (1, 4): -12 * ei, (1, 5): 6 * le * ei,
               (2, 2): 4 * le**2 * ei, (2, 4): -6 * le * ei, (2, 5): 2 * le**2 * ei,
               (4, 4): 12 * ei, (4, 5): -6 * le * ei, (5, 5): 4 * le**2 * ei}
    for (i, j), value in entries.items():
        out[..., i, j] = out[..., j, i] = value
    return out


def geometric_stiffness_matrices(length, axial_force):
    """Geometric (stress-)stiffness ``int N(x) v'^T v' dx`` in the element frame: ``(K, 6, 6)``.

    This is the Hessian of the axial-transverse coupling ``int N v'^2 / 2 dx`` that the von Karman
    strain ``u' + v'^2 / 2`` adds to the energy of a beam carrying the axial force ``N`` (positive in
    tension). ``axial_force`` is ``(K,)`` (constant per element) or ``(K, 2)`` (values at the two
    nodes, linear in between, as the centrifugal force of a rotating beam is approximated).
    For constant N it is the classical ``N / (30 l) [36, 3l, -36, 3l; .., 4l^2, -3l, -l^2; ..]``.
    """
    le = np.asarray(length, dtype=float)
    n = np.asarray(axial_force, dtype=float)
    n_ends = np.stack([n, n], axis=-1) if n.ndim == le.ndim else n
    n_gauss = n_ends[..., :1] * (1 - GAUSS_XI) + n_ends[..., 1:] * GAUSS_XI  # (K, P)
    g = slope_rows(GAUSS_XI, le)  # (K, P, 6)
    weighted = g * (n_gauss * GAUSS_WEIGHTS * le[:, None])[..., None]
    return np.swapaxes(weighted, 1, 2) @ g


def frame_rotations(beta):
    """Constant rotations of elements at angle ``beta`` (K,) to the body frame: ``C`` (K, 2, 2)
    turns element-frame vectors into body-frame vectors (003 eq. 112), ``Cbar`` (K, 6, 6) turns the
    body-frame nodal coordinates ``[ux, uy, theta]`` of both nodes into element-frame ones
    (003 eqs. 113-114)."""
    c, s = np.cos(beta), np.sin(beta)
    rot = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    cbar = np.zeros(np.shape(beta) + (6, 6))
    for node in (0, 3):
        cbar[..., node:node + 2, node:node + 2] = np.swapaxes(rot, -1, -2)
        cbar[..., node + 2, node + 2] = 1.0
    return rot, cbar


def _scatter(values, dofs, n):
    """Sum element vectors ``values`` (K, ..., 6) into body vectors (..., n) at ``dofs`` (K, 6)."""
    moved = np.moveaxis(values, 0, -2)  # (..., K, 6)
    lead = moved.shape[:-2]
    count = int(np.prod(lead, dtype=int))
    index = (np.arange(count)[:, None, None] * n + dofs[None]).ravel()
    summed = np.bincount(index, weights=moved.reshape(-1), minlength=count * n)
    return summed.reshape(lead + (n,))


@dataclass(frozen=True)
class Invariants:
    """Inertia invariants of a flexible body in its body frame (003 eqs. 16-32), summed over elements.

    With ``X`` the undeformed position of a material point and ``u = S q`` its elastic displacement
    (both in the body frame, ``S`` (dim, n) mapping the body's elastic coordinates ``q``), the kinetic
    energy of the body in any reference motion needs only

    - ``mass`` = int rho dV (003 eq. 16),
    - ``first_moment`` (dim,) = int rho X dV (``I_1``, 003 eq. 18),
    - ``second_moment`` (dim, dim) = int rho X X^T dV (003 eq. 22 as a tensor; includes the
      cross-section terms rho I l n n^T so that it is regular for a straight beam),
    - ``s_bar`` (dim, n) = int rho S dV (003 eq. 19),
    - ``i_bar`` (dim, dim, n) with ``i_bar[k, l]`` = int rho X_k S_l dV (003 eq. 32),
    - ``s_kl`` dim x dim nested tuple of sparse (n, n): int rho S_k^T S_l dV (003 eq. 29).

    In director form ``x = phi + sum_a (X_a + u_a) d_a`` these are exactly the coefficients of the
    mass matrix in ``(phi, d_a, q)``; the angle-based quantities of 003 are derived properties.
    The elastic displacement is that of the centre line (no rotary inertia of the bending motion, as
    in 003 eq. 125).
    """

    mass: float
    first_moment: np.ndarray
    second_moment: np.ndarray
    s_bar: np.ndarray
    i_bar: np.ndarray
    s_kl: tuple

    @property
    def mass_matrix(self):
        """``m_ff = S_11 + S_22 (+ S_33)`` (003 eq. 28), sparse (n, n)."""
        return sum(self.s_kl[a][a] for a in range(len(self.s_kl))).tocsc()

    @property
    def s_tilde(self):
        """``S~ = S_12 - S_21`` = int rho S^T I~ S dV (003 eqs. 26, 127), skew, sparse (n, n)."""
        return (self.s_kl[0][1] - self.s_kl[1][0]).tocsc()

    def reduce(self, basis):
        """The invariants in reduced coordinates ``q = basis @ q_r`` (003 eq. 117 for a Boolean basis,
        or a modal basis ``Phi``); ``basis`` (n, r), sparse or dense."""
        basis_t, dim = basis.T, len(self.s_kl)

        def congruence(matrix):
            return sp.csc_matrix(basis_t @ (matrix @ basis))

        return Invariants(self.mass, self.first_moment, self.second_moment,
                          np.asarray(basis_t @ self.s_bar.T).T,
                          np.asarray(basis_t @ self.i_bar.reshape(dim * dim, -1).T).T.reshape(dim, dim, -1),
                          tuple(tuple(congruence(m) for m in row) for row in self.s_kl))


class BeamElements:
    """The elements of one body's centre line with their section data, evaluated once.

    ``nodes`` (n_nodes, 2) in the body frame, ``connectivity`` (K, 2) node pairs; ``young``, ``rho``,
    ``area``, ``inertia`` scalars or (K,) arrays; ``axial`` the axial shape (module docstring).
    Body-level nodal coordinates are ``[ux, uy, theta]`` per node in the body frame, node after node
    (003 eq. 111).
    """

    node_size = 3  # nodal coordinates per node

    def __init__(self, nodes, connectivity, young, rho, area, inertia, axial="linear"):
        check_axial(axial)
        self.axial = axial
        self.nodes = np.asarray(nodes, dtype=float)
        self.connectivity = np.asarray(connectivity, dtype=np.int64)
        k = len(self.connectivity)
        self.young, self.rho, self.area, self.inertia = (
            np.broadcast_to(np.asarray(v, dtype=float), (k,)) for v in (young, rho, area, inertia))
        chord = self.nodes[self.connectivity[:, 1]] - self.nodes[self.connectivity[:, 0]]
        self.length = np.hypot(chord[:, 0], chord[:, 1])
        self.beta = np.arctan2(chord[:, 1], chord[:, 0])
        self.rot, self.cbar = frame_rotations(self.beta)
        self.n_dofs = 3 * len(self.nodes)
        self.dofs = (3 * self.connectivity[:, :, None] + np.arange(3)).reshape(k, 6)
        rows = np.repeat(self.dofs, 6, axis=1).ravel()
        cols = np.tile(self.dofs, (1, 6)).ravel()
        self.pattern = SparsePattern((self.n_dofs, self.n_dofs), rows, cols)

    def to_body(self, blocks):
        """Element-frame blocks (K, 6, 6) in body-frame nodal coordinates: ``Cbar^T B Cbar``
        (003 eqs. 122, 129)."""
        return np.swapaxes(self.cbar, 1, 2) @ blocks @ self.cbar

    def assemble(self, blocks):
        """Body matrix (sparse CSC, n_dofs x n_dofs) from body-frame element blocks (K, 6, 6)
        (003 eqs. 131, 133)."""
        return self.pattern.matrix(blocks.reshape(-1))

    def mass(self):
        """Body mass matrix ``m_ff`` before reference conditions (003 eqs. 122, 125, 131)."""
        return self.assemble(self.to_body(mass_matrices(self.length, self.rho, self.area, self.axial)))

    def stiffness(self):
        """Body stiffness matrix ``K_ff`` before reference conditions (003 eqs. 129-130, 133)."""
        return self.assemble(self.stiffness_blocks())

    def stiffness_blocks(self, axial=True):
        """Body-frame element stiffness blocks (K, 6, 6); ``axial=False`` leaves out EA (003 eq. 129)."""
        return self.to_body(stiffness_matrices(self.length, self.young, self.area if axial else 0.0, self.inertia))

    def stiffening_rows(self, xi):
        """The rows of geometric stiffening (``elasticity``) in body-frame nodal coordinates: the axial
        strain u' (K, 1, 6) and the transverse slope v' at the points ``xi`` (P,) (K, P, 6)."""
        return axial_strain_row(self.length)[:, None, :] @ self.cbar, slope_rows(xi, self.length) @ self.cbar

    def geometric_stiffness(self, axial_force):
        """Body geometric stiffness for element axial forces (K,) or (K, 2); see
        ``geometric_stiffness_matrices``."""
        return self.assemble(self.to_body(geometric_stiffness_matrices(self.length, axial_force)))

    def body_shape(self, xi):
        """Shape matrices in the body frame, ``C S(xi) Cbar`` (003 eq. 110), ``xi`` (P,) or (K, P):
        (K, P, 2, 6)."""
        return self.rot[:, None] @ shape_matrix(xi, self.length, self.axial) @ self.cbar[:, None]

    def positions(self, xi):
        """Undeformed body-frame positions of the points ``xi`` ((P,) or (K, P)) of every element:
        (K, P, 2)."""
        start = self.nodes[self.connectivity[:, 0]]
        end = self.nodes[self.connectivity[:, 1]]
        xi = _points(xi, self.length)[0][..., None]
        return start[:, None] * (1 - xi) + end[:, None] * xi

    def point_rows(self, element, xi):
        """Body-frame displacement ``[ux, uy]`` and section rotation ``theta`` of the points ``xi`` (P,)
        of the elements ``element`` (P,) as rows on those elements' nodal coordinates: (P, 3, 6).
        Rows 0-1 are ``C S(xi) Cbar`` (003 eq. 110); row 2 is the slope dv/dx of the element, the
        rotation of the cross-section."""
        length, xi = self.length[element], np.asarray(xi, dtype=float)[:, None]
        local = np.concatenate([shape_matrix(xi, length, self.axial)[:, 0],
                                slope_rows(xi, length)[:, 0, None, :]], axis=1)  # (P, 3, 6)
        turn = np.zeros((len(element), 3, 3))
        turn[:, :2, :2], turn[:, 2, 2] = self.rot[element], 1.0
        return turn @ local @ self.cbar[element]

    def load_rows(self):
        """int rho S dV (2, n_dofs) in body-frame nodal coordinates (``Sbar`` of 003 eqs. 19, 126): the
        generalised force of a force per unit mass b is its transpose times b."""
        weight = (self.rho * self.area * self.length)[:, None] * GAUSS_WEIGHTS  # (K, P)
        return _scatter(np.einsum("kp,kpaj->kaj", weight, self.body_shape(GAUSS_XI)), self.dofs, self.n_dofs)

    def rigid_inertia(self):
        """Mass, first moment int rho X dV (2,) and second moment int rho X X^T dV (2, 2) of the
        undeformed body (``Invariants``): the centre line by Gauss quadrature, plus the section's
        rho I l n n^T across each element."""
        weight = (self.rho * self.area * self.length)[:, None] * GAUSS_WEIGHTS  # (K, P)
        x = self.positions(GAUSS_XI)  # (K, P, 2)
        second = np.einsum("kp,kpa,kpb->ab", weight, x, x, optimize=True) + self.section_moment()
        return float(weight.sum()), np.einsum("kp,kpa->a", weight, x), second

    def section_moment(self):
        """The sections' part of the second moment (2, 2): sum of rho I l n n^T over the elements (n the
        element's normal), the rotary inertia of the sections turning with the body frame."""
        normal = np.stack([-np.sin(self.beta), np.cos(self.beta)], axis=-1)
        return np.einsum("k,ka,kb->ab", self.rho * self.inertia * self.length, normal, normal, optimize=True)

    def invariants(self):
        """FFR inertia invariants of the body (``Invariants``), before reference conditions
        (``element_invariants``)."""
        return element_invariants(self)


def element_invariants(elements):
    """FFR inertia invariants (``Invariants``) of the elements of one body (planar ``BeamElements`` or
    ``spatial.SpatialElements``), before reference conditions.

    Element contributions (003 eqs. 119-127, in the body frame) come from Gauss quadrature of
    ``rho A l int_0^1 (..) dxi`` over all elements at once (``body_shape`` at the Gauss points, exact:
    the integrands are of degree 6) and are summed into the body's nodal coordinates.
    """
    dim = elements.nodes.shape[1]
    weight = (elements.rho * elements.area * elements.length)[:, None] * GAUSS_WEIGHTS  # (K, P)
    shape = elements.body_shape(GAUSS_XI)  # (K, P, dim, 2 node_size)
    x = elements.positions(GAUSS_XI)  # (K, P, dim)
    i_bar = _scatter(np.einsum("kp,kpa,kpbj->kabj", weight, x, shape, optimize=True), elements.dofs, elements.n_dofs)
    blocks = np.einsum("kp,kpai,kpbj->kabij", weight, shape, shape, optimize=True)
    s_kl = tuple(tuple(elements.assemble(blocks[:, a, b]) for b in range(dim)) for a in range(dim))
    return Invariants(*elements.rigid_inertia(), elements.load_rows(), i_bar, s_kl)
