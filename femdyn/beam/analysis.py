"""Linear analyses of one flexible beam body in its body frame: static deflection, natural frequencies
and mode shapes, and section forces and stresses recovered from the element solution.

Functions take a ``body.BeamBody`` (any discretisation, reference conditions and modal basis) and
its elastic coordinates ``q``; nothing here imports the body module, which uses ``lowest_modes``.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse.linalg as spla
from sksparse.cholmod import cholesky

from .elements import axial_strain_row, curvature_gradient_row, curvature_rows

DENSE_LIMIT = 200  # below this many coordinates a dense eigen-solve is faster than any sparse one


def lowest_modes(stiffness, mass, k, solver="cholmod"):
    """The ``k`` lowest eigenpairs of ``K phi = omega^2 M phi`` (K, M sparse, symmetric positive
    definite): ``omega^2`` (k,) ascending and mass-normalised ``Phi`` (n, k), each column signed so
    that its largest entry is positive.

    Both paths work with ``K^{-1} M``, whose largest eigenvalues are the wanted ones: the stiffness
    of a fourth-order operator has a condition number growing like n^4, and methods that reduce
    with ``M^{-1}`` (LAPACK's ``eigh(K, M)``) lose the relative accuracy of the lowest frequencies
    first (3e-6 at 160 elements of a 3-PRR link, against 2e-8 here). Up to ``DENSE_LIMIT``
    coordinates (or when ``k`` is nearly ``n``): LAPACK's ``eigh(M, K)``, ``omega^2 = 1/mu``.
    Otherwise ARPACK in shift-invert mode about 0 (``eigsh(K, k, M, sigma=0)``), with ``K^{-1}``
    applied by a CHOLMOD Cholesky factor (``solver="cholmod"``) or by SciPy's SuperLU
    (``solver="superlu"``). CHOLMOD is the default: it factors 2-3 times and solves 6-15 times
    faster than SuperLU on beam stiffness matrices of 100-100000 elements.
    """
    n = stiffness.shape[0]
    if k == 0:
        return np.zeros(0), np.zeros((n, 0))
    if n <= DENSE_LIMIT or k >= n - 1:
        inverse, shapes = scipy.linalg.eigh(mass.toarray(), stiffness.toarray(),
                                            subset_by_index=[n - k, n - 1])
        omega2 = 1.0 / inverse
    elif solver == "cholmod":
        factor = cholesky(stiffness.tocsc())
        inverse = spla.LinearOperator((n, n), matvec=factor, dtype=float)
        omega2, shapes = spla.eigsh(stiffness, k, mass, sigma=0.0, OPinv=inverse)
    elif solver == "superlu":
        omega2, shapes = spla.eigsh(stiffness.tocsc(), k, mass.tocsc(), sigma=0.0)
    else:
        raise ValueError(f"eigensolver must be 'cholmod' or 'superlu', got {solver!r}")
    order = np.argsort(omega2)
    omega2, shapes = omega2[order], shapes[:, order]
    shapes = shapes / np.sqrt(np.einsum("ik,ik->k", shapes, mass @ shapes))
    largest = shapes[np.argmax(np.abs(shapes), axis=0), np.arange(k)]
    return omega2, shapes * np.sign(largest)


@dataclass(frozen=True)
class Modes:
    """Natural angular frequencies ``omega`` (k,) [rad/s], the modes in the body's elastic
    coordinates ``q`` (k, n) (mass-normalised) and as body-frame nodal ``[ux, uy, theta]``
    (k, n_nodes, 3)."""

    omega: np.ndarray
    q: np.ndarray
    nodal: np.ndarray


def natural_frequencies(body, k, solver="cholmod"):
    """The ``k`` lowest free vibrations of the body about its undeformed state with the reference
    frame held fixed: ``K_ff q = omega^2 m_ff q`` (003 eqs. 41, 131-133 with q_r fixed)."""
    omega2, shapes = lowest_modes(body.stiffness, body.mass, k, solver)
    nodal = np.asarray(body.basis @ shapes).T.reshape(k, len(body.nodes), 3)
    return Modes(np.sqrt(omega2), shapes.T, nodal)


def static_deflection(body, nodal_loads=None, body_force=None):
    """Elastic coordinates ``q`` of the static equilibrium ``K q = f`` under loads fixed in the body
    frame (reference frame held fixed).

    ``nodal_loads``: ``{node: (Fx, Fy, Mz)}`` (negative node indices count from the end) or an
    (n_nodes, 3) array, body frame; load components on suppressed coordinates are carried by the
    reference conditions. ``body_force``: a force per unit mass (2,) in the body frame, e.g. gravity
    turned into the body frame, with the consistent generalised force ``Sbar^T b`` (003 eq. 19; 003
    eq. 33 evaluates S at the centre of mass instead).
    """
    nodal = np.zeros((len(body.nodes), 3))
    if isinstance(nodal_loads, dict):
        for node, load in nodal_loads.items():
            nodal[node] += load
    elif nodal_loads is not None:
        nodal += np.asarray(nodal_loads, dtype=float)
    force = np.asarray(body.basis.T @ nodal.ravel())
    if body_force is not None:
        force = force + body.invariants.s_bar.T @ np.asarray(body_force, dtype=float)
    return np.atleast_1d(spla.spsolve(body.stiffness, force))


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
