"""Spatial Euler-Bernoulli beam elements of a centre line in the body frame, straight or a polyline.

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
motion, as in 003 eq. 125).

These are element-frame statements. An element of body-frame unit tangent t_e has the section frame
(t_e, n_e, b_e) = R_e (e_1, e_2, e_3), R_e the minimal rotation taking the body's x1 axis e_1 to t_e
(about e_1 x t_e, by the angle between them: Rodrigues' R = I + [v] + [v]^2/(1 + c), v = e_1 x t_e,
c = e_1 . t_e; for t_e = -e_1 the half turn about e_3). The section's depth h lies along n_e and its
width b along b_e: along a straight beam on x1 they are e_2 and e_3, and along a centre line in the
x1-x2 plane every R_e turns about e_3, so b_e = e_3 throughout and n_e = e_3 x t_e (the planar
normal). Element coordinates are the body's nodal coordinates turned into the element frame,
e = Cbar u with Cbar = diag(R_e^T, R_e^T, R_e^T, R_e^T) on [u_a, theta_a, u_b, theta_b] (003 eqs.
112-114 in space; the rotations are vectors, so they turn like the displacements), and element
matrices go to the body as Cbar^T B Cbar: elements meeting at a kink share the node's displacement
and its rotation vector, i.e. they are welded there.
"""
import numpy as np

from ..numerics.kinematics import least_rotations
from ..numerics.pattern import SparsePattern
from .elements import (
    GAUSS_WEIGHTS,
    GAUSS_XI,
    axial_strain_row,
    check_axial,
    element_invariants,
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


def section_frames(tangent):
    """The element section frames R_e (K, 3, 3), columns (t_e, n_e, b_e), of unit body-frame tangents
    (K, 3): the minimal rotation taking e_1 to t_e (module docstring; ``kinematics.least_rotations``)."""
    t = np.asarray(tangent, dtype=float)
    return least_rotations(np.broadcast_to(np.eye(3)[0], t.shape), t)


def _spring(stiffness):
    """(K, 2, 2) blocks k [1, -1; -1, 1]."""
    return stiffness[:, None, None] * np.array([[1.0, -1.0], [-1.0, 1.0]])


class SpatialElements:
    """The elements of a spatial centre line with their section data.

    ``nodes`` (n_nodes, 3) in the body frame, ``connectivity`` (K, 2); ``young``, ``shear`` (G),
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
        self.rot = section_frames(chord / self.length[:, None])  # (K, 3, 3): columns t_e, n_e, b_e
        self.cbar = np.zeros((k, 12, 12))  # body nodal coordinates -> element coordinates
        for block in range(4):
            self.cbar[:, 3 * block:3 * block + 3, 3 * block:3 * block + 3] = np.swapaxes(self.rot, 1, 2)
        self.n_dofs = 6 * len(self.nodes)
        self.dofs = (6 * self.connectivity[:, :, None] + np.arange(6)).reshape(k, 12)
        rows = np.repeat(self.dofs, 12, axis=1).ravel()
        cols = np.tile(self.dofs, (1, 12)).ravel()
        self.pattern = SparsePattern((self.n_dofs, self.n_dofs), rows, cols)

    @property
    def straight(self):
        """Whether every element lies along the body's x1 axis (element frames = the body frame)."""
        return bool(np.allclose(self.rot, np.eye(3), rtol=0.0, atol=1e-12))

    def to_body(self, blocks):
        """Element-frame blocks (K, 12, 12) in body-frame nodal coordinates: Cbar^T B Cbar."""
        return np.swapaxes(self.cbar, 1, 2) @ blocks @ self.cbar

    @property
    def polar(self):
        """The polar second moment I_p = I_y + I_z of the sections (the rotary inertia of twist)."""
        return self.iy + self.iz

    def assemble(self, blocks):
        """Body matrix (sparse CSC) from element blocks (K, 12, 12)."""
        return self.pattern.matrix(blocks.reshape(-1))

    def stiffness(self):
        """Body stiffness matrix before reference conditions (module docstring)."""
        return self.assemble(self.stiffness_blocks())

    def stiffness_blocks(self, axial=True):
        """Element stiffness blocks (K, 12, 12) (module docstring); ``axial=False`` leaves out EA."""
        le = self.length
        return self.to_body(_place(stiffness_matrices(le, self.young, self.area if axial else 0.0 * le, self.iz),
                                   stiffness_matrices(le, self.young, 0.0 * le, self.iy),
                                   _spring(self.shear * self.torsion / le)))

    def stiffening_rows(self, xi):
        """The rows of geometric stiffening (``elasticity``): the axial strain u' (K, 1, 12) and the
        slopes v' and w' of both bending planes at the points ``xi`` (P,), (K, 2 P, 12)."""
        le = self.length
        slope = slope_rows(xi, le)
        return (_rows(axial_strain_row(le), np.zeros((len(le), 6)))[:, None, :] @ self.cbar,
                np.concatenate([_rows(slope, 0.0 * slope), _rows(0.0 * slope, slope)], axis=1) @ self.cbar)

    def mass(self):
        """Body mass matrix before reference conditions (module docstring)."""
        le = self.length
        xy = mass_matrices(le, self.rho, self.area, self.axial)
        xz = xy.copy()
        xz[:, [0, 0, 3, 3], [0, 3, 0, 3]] = 0.0  # the axial part once
        return self.assemble(self.to_body(_place(xy, xz))) + self.twist_mass()

    def twist_mass(self):
        """The torsional part of the mass matrix, rho I_p l / 6 [2, 1; 1, 2] on the twists of every
        element (module docstring)."""
        blocks = (self.rho * self.polar * self.length / 6.0)[:, None, None] * np.array([[2.0, 1.0], [1.0, 2.0]])
        return self.assemble(self.to_body(_place(twist=blocks)))

    def body_shape(self, xi):
        """Displacement rows ``[ux, uy, uz]`` of the points ``xi`` (P,) of every element on its nodal
        coordinates: (K, P, 3, 12)."""
        K, P = len(self.length), len(xi)
        return self.point_rows(np.repeat(np.arange(K), P), np.tile(xi, K))[:, :3].reshape(K, P, 3, 12)

    def invariants(self):
        """FFR inertia invariants of the body before reference conditions (``elements.element_invariants``)."""
        return element_invariants(self)

    def geometric_stiffness(self, axial_force):
        """Geometric stiffness int N (v'^2 + w'^2) dx of both bending planes for element axial forces
        (K,) or (K, 2) (``elements.geometric_stiffness_matrices``)."""
        g = geometric_stiffness_matrices(self.length, axial_force)
        return self.assemble(self.to_body(_place(g, g)))

    def positions(self, xi):
        """Undeformed body-frame positions of the points ``xi`` ((P,) or (K, P)) of every element:
        (K, P, 3)."""
        xi = np.asarray(xi, dtype=float)
        xi = (xi[None, :] if xi.ndim == 1 else xi)[..., None]
        start = self.nodes[self.connectivity[:, 0]]
        end = self.nodes[self.connectivity[:, 1]]
        return start[:, None] * (1 - xi) + end[:, None] * xi

    def point_rows(self, element, xi):
        """Body-frame displacement ``[ux, uy, uz]`` and section rotation ``[psi, theta_y, theta_z]`` (a
        rotation vector) of the points ``xi`` (P,) of the elements ``element`` (P,) as rows on their
        nodal coordinates: (P, 6, 12), the element-frame rows turned by R_e on both sides."""
        length, xi = self.length[element], np.asarray(xi, dtype=float)[:, None]
        shape = shape_matrix(xi, length, self.axial)[:, 0]  # (P, 2, 6): axial, transverse
        slope = slope_rows(xi, length)[:, 0]  # (P, 6)
        zero = np.zeros_like(slope)
        twist = np.concatenate([1.0 - xi, xi], axis=1)
        local = np.stack([_rows(shape[:, 0], zero), _rows(shape[:, 1], zero), _rows(zero, shape[:, 1]),
                          _rows(zero, zero, twist), _rows(zero, -slope), _rows(slope, zero)], axis=1)
        turn = np.zeros((len(element), 6, 6))
        turn[:, :3, :3] = turn[:, 3:, 3:] = self.rot[element]
        return turn @ local @ self.cbar[element]

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
        = rho I_z along n_e and int rho z^2 dA = rho I_y along b_e per length."""
        weight = (self.rho * self.area * self.length)[:, None] * GAUSS_WEIGHTS
        x = self.positions(GAUSS_XI)
        second = np.einsum("kp,kpa,kpb->ab", weight, x, x, optimize=True) + self.section_moment()
        return float(weight.sum()), np.einsum("kp,kpa->a", weight, x), second

    def section_moment(self):
        """The sections' part of the second moment (3, 3): int rho y^2 dA = rho I_z along n_e and
        int rho z^2 dA = rho I_y along b_e per length (the element's section axes, ``rot``; diag(0,
        rho I_z L, rho I_y L) on a straight body), the rotary inertia of the sections."""
        n, b = self.rot[:, :, 1], self.rot[:, :, 2]  # the section's axes along h and b
        return (np.einsum("k,ka,kb->ab", self.rho * self.iz * self.length, n, n)
                + np.einsum("k,ka,kb->ab", self.rho * self.iy * self.length, b, b))

    def section_rows(self, xi):
        """Rows on each element's element-frame coordinates (K, 12) at the points ``xi`` (P,): the element-averaged
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
