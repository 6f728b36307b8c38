"""Spatial Euler-Bernoulli beam elements of a straight centre line along the body's x1 axis.

Each node has six elastic coordinates in the body frame, ``[ux, uy, uz, psi, theta_y, theta_z]``:
the displacement, the twist psi about x1 and the two bending rotations theta_y = -dw/dx,
theta_z = dv/dx (v = uy, w = uz): a rigid rotation omega of the body gives the nodal rotations
(psi, theta_y, theta_z) = omega. An element is the planar element of ``elements`` twice -- in the
x1-x2 plane on ``[ux, uy, theta_z]`` with the second moment I_z, in the x1-x3 plane on
``[ux, uz, -theta_y]`` with I_y (its axial part once) -- plus linear torsion: the strain energy
1/2 int (EA u'^2 + EI_z v''^2 + EI_y w''^2 + GJ psi'^2) dx (003 eq. 38 with the second bending plane
and torsion), with the axial stiffness EA/l of the element-averaged strain; the mass of the
translations rho A (003 eq. 125 in each plane, the axial shape ``"cubic"`` or ``"linear"`` as in
``elements``) and the torsional inertia rho I_p int psi'^2 dx / 2 with the linear shape's
consistent mass rho I_p l / 6 [2, 1; 1, 2], I_p = I_y + I_z (no rotary inertia of the bending
motion, as in 003 eq. 125). The element frame is the body frame, so no rotations as in 003 eqs.
112-114 are needed.
"""
import numpy as np

from ..numerics.pattern import SparsePattern
from .elements import (
    GAUSS_WEIGHTS,
    GAUSS_XI,
    check_axial,
    curvature_gradient_row,
    curvature_rows,
    geometric_stiffness_matrices,
    mass_matrices,
    shape_matrix,
    slope_rows,
    stiffness_matrices,
)

# the planar element's coordinates [u1, v1, theta1, u2, v2, theta2] among the 12 of a spatial one,
# with the signs that turn them into these: x1-x2 plane [ux, uy, theta_z], x1-x3 plane [ux, uz, -theta_y]
PLANE_XY = np.array([0, 1, 5, 6, 7, 11])
PLANE_XZ = np.array([0, 2, 4, 6, 8, 10])
SIGN_XZ = np.array([1.0, 1.0, -1.0, 1.0, 1.0, -1.0])
TWIST = np.array([3, 9])


def _place(xy=None, xz=None, twist=None):
    """(K, 12, 12) blocks from the planar blocks of the two planes (K, 6, 6) and torsion (K, 2, 2)."""
    blocks = next(b for b in (xy, xz, twist) if b is not None)
    out = np.zeros((blocks.shape[0], 12, 12))
    if xy is not None:
        out[:, PLANE_XY[:, None], PLANE_XY] += xy
    if xz is not None:
        out[:, PLANE_XZ[:, None], PLANE_XZ] += SIGN_XZ[:, None] * xz * SIGN_XZ
    if twist is not None:
        out[:, TWIST[:, None], TWIST] += twist
    return out


def _rows(xy, xz, twist=None):
    """(..., 12) rows from planar rows (..., 6) of the two planes and torsion rows (..., 2)."""
    out = np.zeros(np.broadcast_shapes(xy.shape, xz.shape)[:-1] + (12,))
    out[..., PLANE_XY] += xy
    out[..., PLANE_XZ] += xz * SIGN_XZ
    if twist is not None:
        out[..., TWIST] += twist
    return out


def _spring(stiffness):
    """(K, 2, 2) blocks k [1, -1; -1, 1]."""
    return stiffness[:, None, None] * np.array([[1.0, -1.0], [-1.0, 1.0]])


class SpatialElements:
    """The elements of a straight spatial centre line along x1 with their section data.

    ``nodes`` (n_nodes, 3) on the x1 axis, ``connectivity`` (K, 2); ``young``, ``shear`` (G),
    ``rho``, ``area``, ``iz``, ``iy`` and ``torsion`` (St-Venant J) scalars or (K,) arrays; ``axial``
    the axial shape. Body-level nodal coordinates are ``[ux, uy, uz, psi, theta_y, theta_z]`` per
    node, node after node (module docstring).
    """

    node_size = 6

    def __init__(self, nodes, connectivity, young, shear, rho, area, iz, iy, torsion, axial="cubic"):
        check_axial(axial)
        self.axial = axial
        self.nodes = np.asarray(nodes, dtype=float)
        self.connectivity = np.asarray(connectivity, dtype=np.int64)
        k = len(self.connectivity)
        self.young, self.shear, self.rho, self.area, self.iz, self.iy, self.torsion = (
            np.broadcast_to(np.asarray(v, dtype=float), (k,)) for v in (young, shear, rho, area, iz, iy, torsion))
        chord = self.nodes[self.connectivity[:, 1]] - self.nodes[self.connectivity[:, 0]]
        self.length = np.linalg.norm(chord, axis=1)
        self.n_dofs = 6 * len(self.nodes)
        self.dofs = (6 * self.connectivity[:, :, None] + np.arange(6)).reshape(k, 12)
        rows = np.repeat(self.dofs, 12, axis=1).ravel()
        cols = np.tile(self.dofs, (1, 12)).ravel()
        self.pattern = SparsePattern((self.n_dofs, self.n_dofs), rows, cols)

    @property
    def polar(self):
        """The polar second moment I_p = I_y + I_z of the sections (the rotary inertia of twist)."""
        return self.iy + self.iz

    def assemble(self, blocks):
        """Body matrix (sparse CSC) from element blocks (K, 12, 12)."""
        return self.pattern.matrix(blocks.reshape(-1))

    def stiffness(self):
        """Body stiffness matrix before reference conditions (module docstring)."""
        le = self.length
        return self.assemble(_place(stiffness_matrices(le, self.young, self.area, self.iz),
                                    stiffness_matrices(le, self.young, 0.0 * le, self.iy),
                                    _spring(self.shear * self.torsion / le)))

    def mass(self):
        """Body mass matrix before reference conditions (module docstring)."""
        le = self.length
        xy = mass_matrices(le, self.rho, self.area, self.axial)
        xz = xy.copy()
        xz[:, [0, 0, 3, 3], [0, 3, 0, 3]] = 0.0  # the axial part once
        twist = (self.rho * self.polar * le / 6.0)[:, None, None] * np.array([[2.0, 1.0], [1.0, 2.0]])
        return self.assemble(_place(xy, xz, twist))

    def geometric_stiffness(self, axial_force):
        """Geometric stiffness int N (v'^2 + w'^2) dx of both bending planes for element axial forces
        (K,) or (K, 2) (``elements.geometric_stiffness_matrices``)."""
        g = geometric_stiffness_matrices(self.length, axial_force)
        return self.assemble(_place(g, g))

    def positions(self, xi):
        """Undeformed body-frame positions of the points ``xi`` ((P,) or (K, P)) of every element:
        (K, P, 3)."""
        xi = np.asarray(xi, dtype=float)
        xi = (xi[None, :] if xi.ndim == 1 else xi)[..., None]
        start = self.nodes[self.connectivity[:, 0]]
        end = self.nodes[self.connectivity[:, 1]]
        return start[:, None] * (1 - xi) + end[:, None] * xi

    def point_rows(self, element, xi):
        """Displacement ``[ux, uy, uz]`` and section rotation ``[psi, theta_y, theta_z]`` of the points
        ``xi`` (P,) of the elements ``element`` (P,) as rows on their nodal coordinates: (P, 6, 12)."""
        length, xi = self.length[element], np.asarray(xi, dtype=float)[:, None]
        shape = shape_matrix(xi, length, self.axial)[:, 0]  # (P, 2, 6): axial, transverse
        slope = slope_rows(xi, length)[:, 0]  # (P, 6)
        zero = np.zeros_like(slope)
        twist = np.concatenate([1.0 - xi, xi], axis=1)
        return np.stack([_rows(shape[:, 0], zero), _rows(shape[:, 1], zero), _rows(zero, shape[:, 1]),
                         _rows(zero, zero, twist), _rows(zero, -slope), _rows(slope, zero)], axis=1)

    def load_rows(self):
        """int rho A S dV (3, n_dofs): the generalised force of a force per unit mass b is its
        transpose times b (003 eq. 19)."""
        weight = (self.rho * self.area * self.length)[:, None] * GAUSS_WEIGHTS  # (K, P)
        K, P = weight.shape
        rows = self.point_rows(np.repeat(np.arange(K), P), np.tile(GAUSS_XI, K))[:, :3]  # (K P, 3, 12)
        values = (weight.reshape(-1, 1, 1) * rows).reshape(K, P, 3, 12).sum(axis=1)  # (K, 3, 12)
        out = np.zeros((3, self.n_dofs))
        for a in range(3):
            np.add.at(out[a], self.dofs, values[:, a])
        return out

    def rigid_inertia(self):
        """Mass, first moment int rho X dV (3,) and second moment int rho X X^T dV (3, 3) of the
        undeformed body: the centre line by Gauss quadrature, plus the sections' int rho y^2 dA
        = rho I_z and int rho z^2 dA = rho I_y per length."""
        weight = (self.rho * self.area * self.length)[:, None] * GAUSS_WEIGHTS
        x = self.positions(GAUSS_XI)
        second = np.einsum("kp,kpa,kpb->ab", weight, x, x, optimize=True) + self.section_moment()
        return float(weight.sum()), np.einsum("kp,kpa->a", weight, x), second

    def section_moment(self):
        """The sections' part of the second moment (3, 3): diag(0, rho I_z, rho I_y) times the length,
        the rotary inertia of the sections turning with the body frame."""
        return np.diag([0.0, np.sum(self.rho * self.iz * self.length), np.sum(self.rho * self.iy * self.length)])

    def section_rows(self, xi):
        """Rows on each element's coordinates (K, 12) at the points ``xi`` (P,): the element-averaged
        axial strain (K, 12), the curvatures v'' and w'' (K, P, 12) each, their x-derivatives (K, 12)
        each, and the twist rate psi' (K, 12)."""
        le = self.length
        zero = np.zeros(len(le))
        axial = _rows(np.stack([-1 / le, zero, zero, 1 / le, zero, zero], axis=-1), np.zeros((len(le), 6)))
        curvature = curvature_rows(xi, le)
        gradient = curvature_gradient_row(le)
        none = np.zeros_like(curvature)
        twist = _rows(np.zeros((len(le), 6)), np.zeros((len(le), 6)), np.stack([-1 / le, 1 / le], axis=-1))
        return (axial, _rows(curvature, none), _rows(none, curvature), _rows(gradient, 0 * gradient),
                _rows(0 * gradient, gradient), twist)
