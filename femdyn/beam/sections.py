"""Section forces and stresses of a flexible beam body, recovered from its element solution
(Euler-Bernoulli, 003 eq. 38): ``SectionForces`` in the plane, ``SpatialSectionForces`` in space.
The axial force is N = EA eps with eps the strain whose energy 1/2 EA l eps^2 the element has: the
element-averaged strain (u2 - u1)/l, and with geometric stiffening the element-averaged Green strain
(``axial_strains``)."""
from dataclasses import dataclass

import numpy as np

from .elements import (
    GAUSS_WEIGHTS,
    GAUSS_XI,
    axial_strain_row,
    curvature_gradient_row,
    curvature_rows,
    slope_rows,
)
from .spatial import PLANE_XY, PLANE_XZ, SIGN_XZ


@dataclass(frozen=True)
class SectionForces:
    """Section forces at the points ``xi`` of every element (arrays (K, P)), recovered from the
    element solution (Euler-Bernoulli, 003 eq. 38), in each element's frame (x along the element,
    y to its left):

    - ``s``: arc length from the first node,
    - ``axial`` ``N = EA eps``, positive in tension, eps the element-averaged strain
      (``axial_strains``),
    - ``moment`` ``M = EI d2v/dx2``, the moment about z of the stresses on the section whose normal
      is +x (what the part beyond x exerts on the part before it),
    - ``shear`` ``Q = -EI d3v/dx3 = -dM/dx``, the y-force on that section (moment balance of a slice).

    Stresses ``sigma(y) = N/A - M y / I`` at the outer fibres ``y = +c`` (``sigma_top``) and
    ``y = -c`` (``sigma_bottom``); ``sigma_max = |N|/A + |M| c / I``.
    """

    s: np.ndarray
    axial: np.ndarray
    shear: np.ndarray
    moment: np.ndarray
    area: np.ndarray
    inertia: np.ndarray
    fibre: float | None

    def _bending(self):
        if self.fibre is None:
            raise ValueError("stresses need the outer-fibre distance c of the section "
                             "(Section(area, inertia, fibre) or Section.rectangle(b, h))")
        return self.moment * (np.asarray(self.fibre) / self.inertia)[:, None]

    @property
    def sigma_top(self):
        return self.axial / self.area[:, None] - self._bending()

    @property
    def sigma_bottom(self):
        return self.axial / self.area[:, None] + self._bending()

    @property
    def sigma_max(self):
        return np.abs(self.axial) / self.area[:, None] + np.abs(self._bending())


@dataclass(frozen=True)
class SpatialSectionForces:
    """Section forces of a spatial beam at the points ``xi`` of every element (arrays (K, P)), on the
    section whose normal is +x1 (what the part beyond x exerts on the part before it): ``s`` the
    arc length, ``axial`` N = EA eps (``axial_strains``), ``torque`` T = GJ dpsi/dx, the bending moments
    ``moment_z`` M_z = EI_z v'' (about x3, bending in the x1-x2 plane, as the planar M) and
    ``moment_y`` M_y = -EI_y w'' (about x2), the shear forces ``shear_y`` = -dM_z/dx and ``shear_z``
    = dM_y/dx. Normal stress sigma(y, z) = N/A - M_z y/I_z + M_y z/I_y; ``sigma_max`` = |N|/A +
    |M_z| c_y/I_z + |M_y| c_z/I_y, its largest value on a rectangle (at a corner)."""

    s: np.ndarray
    axial: np.ndarray
    torque: np.ndarray
    moment_y: np.ndarray
    moment_z: np.ndarray
    shear_y: np.ndarray
    shear_z: np.ndarray
    section: object

    @property
    def sigma_max(self):
        if not self.section.has_fibres(3):
            raise ValueError("stresses need the outer-fibre distances c_y, c_z of the section "
                             "(Section(..., fibre, fibre_z=..) or Section.rectangle(b, h))")
        sec = self.section

        def per_element(value):  # a scalar, or (K,) against the (..., K, P) section forces
            value = np.asarray(value, dtype=float)
            return value[:, None] if value.ndim else value

        return (np.abs(self.axial) / per_element(sec.area)
                + np.abs(self.moment_z) * per_element(np.asarray(sec.fibre) / sec.inertia)
                + np.abs(self.moment_y) * per_element(np.asarray(sec.fibre_z) / sec.iy))


def _slope_component_rows(body):
    """The components of the slope u' (element frame) at the points ``GAUSS_XI`` whose squares the
    stiffening strain averages, as rows on the element coordinates (K, P, c, width): the transverse
    slopes v' (in space also w' = -theta_y ..) with the Hermite functions, and with the cubic axial
    shape also the axial u' = H1' u1 / l + H3' u2 / l (``world``: every component of the world vector
    u is interpolated alike); with the linear axial shape (the carriers' element) v' only
    (``elasticity``)."""
    transverse = slope_rows(GAUSS_XI, body.elements.length)  # (K, P, 6)
    axial = np.zeros_like(transverse)
    axial[..., [0, 3]] = transverse[..., [1, 4]]
    planar = [transverse] + ([axial] if body.axial == "cubic" else [])
    if body.dim == 2:
        return np.stack(planar, axis=2)
    out = np.zeros(transverse.shape[:2] + (len(planar) + 1, 12))
    out[:, :, 0, PLANE_XY] = transverse
    out[:, :, 1, PLANE_XZ] = transverse * SIGN_XZ
    if body.axial == "cubic":
        out[:, :, 2, PLANE_XY] = axial
    return out


def axial_strains(body, e, stiffening):
    """The element-averaged axial strain of element coordinates e (..., K, width): (..., K),

        eps = (u2 - u1) / l + gamma (1/l) int |u'|^2 / 2 dx,

    gamma = 1 with geometric stiffening: the world-vector beams' Green strain t.(w_b - w_a)/l +
    (1/l) int |u'|^2/2 (``world.kernels``), the carriers' u' + (1/l) int v'^2/2 (``elasticity``), by
    4-point Gauss quadrature (exact: |u'|^2 is of degree 4)."""
    el = body.elements
    row = axial_strain_row(el.length) if body.dim == 2 else el.section_rows(np.zeros(1))[0]
    strain = np.einsum("kj,...kj->...k", row, e)
    if not stiffening:
        return strain
    slopes = np.einsum("kpcj,...kj->...kpc", _slope_component_rows(body), e)
    return strain + 0.5 * np.einsum("p,...kpc->...k", GAUSS_WEIGHTS, slopes**2)


def _spatial_section_forces(body, e, xi, stiffening):
    """N, T, M_y, M_z, Q_y, Q_z (each (..., K, P)) of element coordinates e (..., K, 12) at the points
    xi."""
    el = body.elements
    _, curvature_y, curvature_z, gradient_y, gradient_z, twist = el.section_rows(xi)
    ones = np.ones(len(xi))

    def constant(factor, rows):  # along each element
        return (factor * np.einsum("kj,...kj->...k", rows, e))[..., None] * ones

    def varying(factor, rows):
        return factor[:, None] * np.einsum("kpj,...kj->...kp", rows, e)

    ei_z, ei_y = el.young * el.iz, el.young * el.iy
    return ((el.young * el.area * axial_strains(body, e, stiffening))[..., None] * ones,
            constant(el.shear * el.torsion, twist),
            varying(-ei_y, curvature_z), varying(ei_z, curvature_y),
            constant(-ei_z, gradient_y), constant(-ei_y, gradient_z))


def section_forces(body, q, xi=(0.0, 0.5, 1.0), stiffening=False):
    """Axial force, shear force and bending moment at the points ``xi`` of every element for the
    elastic coordinates ``q`` (n_coordinates,) or, for several states at once, (..., n_coordinates):
    ``SectionForces`` of a planar body, ``SpatialSectionForces`` (with the torque) of a spatial one,
    whose forces are (..., K, P); ``stiffening``: the body has geometric stiffening, its axial force
    is EA times the Green strain (``axial_strains``)."""
    el = body.elements
    xi = np.asarray(xi, dtype=float)
    e = body.element_coordinates(q)
    start = np.concatenate([[0.0], np.cumsum(el.length)[:-1]])
    s = start[:, None] + el.length[:, None] * xi
    if body.dim == 3:
        return SpatialSectionForces(s, *_spatial_section_forces(body, e, xi, stiffening), body.section)
    ea, ei = el.young * el.area, el.young * el.inertia
    ones = np.ones(len(xi))
    axial = (ea * axial_strains(body, e, stiffening))[..., None] * ones
    moment = ei[:, None] * np.einsum("kpj,...kj->...kp", curvature_rows(xi, el.length), e)
    shear = -(ei * np.einsum("kj,...kj->...k", curvature_gradient_row(el.length), e))[..., None] * ones
    return SectionForces(s, axial, shear, moment, el.area, el.inertia, body.section.fibre)
