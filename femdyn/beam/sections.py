"""Section forces and stresses of a flexible beam body, recovered from its element solution
(Euler-Bernoulli, 003 eq. 38)."""
from dataclasses import dataclass

import numpy as np

from .elements import axial_strain_row, curvature_gradient_row, curvature_rows


@dataclass(frozen=True)
class SectionForces:
    """Section forces at the points ``xi`` of every element (arrays (K, P)), recovered from the
    element solution (Euler-Bernoulli, 003 eq. 38), in each element's frame (x along the element,
    y to its left):

    - ``s``: arc length from the first node,
    - ``axial`` ``N = EA du/dx``, positive in tension,
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


def section_forces(body, q, xi=(0.0, 0.5, 1.0)):
    """Axial force, shear force and bending moment at the points ``xi`` of every element for the
    elastic coordinates ``q`` (``SectionForces``)."""
    el = body.elements
    xi = np.asarray(xi, dtype=float)
    e = body.element_coordinates(q)  # (K, 6) element frame
    ea, ei = el.young * el.area, el.young * el.inertia
    ones = np.ones((1, len(xi)))
    axial = (ea * np.einsum("kj,kj->k", axial_strain_row(el.length), e))[:, None] * ones
    moment = ei[:, None] * np.einsum("kpj,kj->kp", curvature_rows(xi, el.length), e)
    shear = -(ei * np.einsum("kj,kj->k", curvature_gradient_row(el.length), e))[:, None] * ones
    start = np.concatenate([[0.0], np.cumsum(el.length)[:-1]])
    return SectionForces(start[:, None] + el.length[:, None] * xi, axial, shear, moment,
                         el.area, el.inertia, body.section.fibre)
