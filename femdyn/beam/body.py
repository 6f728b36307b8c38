"""A flexible beam body: a centre line of Euler-Bernoulli elements, its reference conditions and its
elastic coordinates (FEM nodal, Rayleigh-Ritz or modal), in the plane or in space.

Body frame. The nodes are given in the body frame, the frame whose origin and axes the rigid
reference motion (the director frame ``phi, d_1, .., d_dim``) carries: a material point sits at
``x = phi + sum_a (X_a + u_a) d_a`` with ``u = S q`` (003 eqs. 1-4). ``BeamBody.straight`` and
``meshes.centreline_frame`` put the origin at the first node of the centre line and the x1 axis
along its chord, as the joint frames of 003 Fig. 4. A centre line may be a polyline, in the plane and
in space (elements ``spatial.SpatialElements``: the section's depth h along x2 and its width b along
x3 on a straight beam along x1, turned with each element by the minimal rotation from x1 to its
tangent).

Reference conditions (003 section 4, ``reference``) name the end conditions at the first and the
last node, ``"start-end"``, each one of ``fixed``, ``pinned``, ``rolled`` or ``free``. The six pairs
of 003 section 4 are ``fixed-free`` (the default, 003 eq. 156), ``fixed-pinned``, ``pinned-pinned``,
``pinned-free``, ``fixed-rolled`` and ``pinned-rolled``; ``pinned-pinned`` keeps the stretch between
the ends (the frame of ``pinned-rolled``), ``pinned-held`` is the axially rigid link (``reference``). A choice whose suppressed coordinates do not
stop all rigid motions (3 in the plane, 6 in space: ``free-free``, ``pinned-free``,
``rolled-rolled``, ...) leaves a zero-stiffness elastic motion that duplicates the reference motion;
it is refused with a ``ValueError`` that names the motion left.

Discretisations. FEM: one element between consecutive nodes; the axial shape (``elements``) is
``"cubic"`` (the default: the element of the world-vector beams, ``world``, free of membrane locking)
or ``"linear"`` (the element of 003, embedded by carriers, ``ffr`` and ``spatial_ffr``). Rayleigh-Ritz (003 section 5): one element with the linear axial shape spanning the
straight centre line, i.e. the shape matrix of 003 eq. 46 on the end points; with ``fixed-free``
its columns are the reduced shape functions ``[xi, 0, 0; 0, 3xi^2 - 2xi^3, L (xi^3 - xi^2)]`` of
003 eq. 51 (in space in both bending planes, with the linear twist), and the other reference
conditions select other columns of eq. 46 in the same way. Modal
reduction (either discretisation): ``q = B2 Phi eta`` with ``Phi`` the ``modes`` lowest
mass-normalised eigenvectors; ``modes=0`` removes every elastic coordinate and leaves the rigid body.

Damping. ``damping`` (``damping.Damping``: modal ratios or Rayleigh coefficients) gives the body material
damping on its elastic coordinates; the model applies it (``forces.viscous``).
"""
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .damping import Damping
from .elements import BeamElements
from .modes import lowest_modes
from .reference import check_reference, suppressed_coordinates
from .spatial import SpatialElements


def torsion_constant(b, h):
    """St-Venant torsion constant of a b x h rectangle (a >= c its longer and shorter side):
    J = a c^3 [1/3 - 64/pi^5 (c/a) sum_{n odd} tanh(n pi a / 2c) / n^5] (the series solution of the
    Prandtl stress function, Timoshenko & Goodier ch. 10). The sum is (31/32) zeta(5) plus
    sum (tanh - 1)/n^5, whose terms fall like exp(-n pi a/c): 30 of them reach round-off for every
    aspect ratio."""
    from scipy.special import zeta  # here: importing scipy.special costs every run a tenth of a second

    a, c = np.maximum(b, h), np.minimum(b, h)
    n = 2.0 * np.arange(30) + 1.0
    series = 31.0 / 32.0 * zeta(5.0) + np.sum((np.tanh(np.multiply.outer(np.pi * a / (2.0 * c), n)) - 1.0) / n**5,
                                              axis=-1)
    return a * c**3 * (1.0 / 3.0 - 64.0 / np.pi**5 * (c / a) * series)


@dataclass(frozen=True)
class Section:
    """Cross-section: area ``A``; ``inertia`` the second moment of area I_z for bending in the body's
    x1-x2 plane (the plane of a planar model: the axis of bending is normal to it); ``fibre`` the
    distance c of the outer fibre along x2 (needed only for stresses). Spatial beams also need
    ``iy``, the second moment I_y for bending in the x1-x3 plane, ``j`` the St-Venant torsion
    constant (not the polar moment I_y + I_z, which gives the rotary inertia of the twist) and, for
    stresses, ``fibre_z`` along x3. Scalars, or (K,) arrays for a body whose elements differ."""

    area: float
    inertia: float
    fibre: float | None = None
    iy: float | None = None
    j: float | None = None
    fibre_z: float | None = None

    def __post_init__(self):
        for name in ("area", "inertia", "fibre", "iy", "j", "fibre_z"):
            value = getattr(self, name)
            if value is not None and not np.all(np.asarray(value, dtype=float) > 0):
                raise ValueError(f"section {name} must be positive, got {value}")

    @property
    def iz(self):
        return self.inertia

    def has_fibres(self, dim):
        """Whether the outer-fibre distances that stresses need are known: c along x2, in space also
        c_z along x3."""
        return self.fibre is not None and (dim == 2 or self.fibre_z is not None)

    @classmethod
    def rectangle(cls, b, h):
        """Rectangle of width ``b`` (normal to the plane, along x3) and depth ``h`` (in the plane, along
        x2): ``A = b h``, ``I_z = b h^3 / 12``, ``c = h / 2`` (003 section 8.1), ``I_y = h b^3 / 12``,
        ``J = torsion_constant(b, h)``, ``c_z = b / 2``."""
        return cls(b * h, b * h**3 / 12.0, h / 2.0, h * b**3 / 12.0, torsion_constant(b, h), b / 2.0)


def _shear_modulus(young, shear, poisson):
    """G given, or E / (2 (1 + nu)) from Poisson's ratio."""
    if shear is not None:
        if not np.all(np.asarray(shear, dtype=float) > 0):
            raise ValueError(f"the shear modulus must be positive, got {shear}")
        return shear
    if poisson is None:
        raise ValueError("a spatial beam needs its shear modulus: give shear (G) or poisson (nu)")
    if not np.all((np.asarray(poisson, dtype=float) > -1.0) & (np.asarray(poisson, dtype=float) < 0.5)):
        raise ValueError(f"Poisson's ratio must lie in (-1, 1/2), got {poisson}")
    return np.asarray(young, dtype=float) / (2.0 * (1.0 + np.asarray(poisson, dtype=float)))


def chord_offset(nodes):
    """The largest distance of the nodes (n, dim) of a centre line from its chord, the straight line
    through its first and last node (0 for a straight centre line)."""
    nodes = np.asarray(nodes, dtype=float)
    chord = nodes[-1] - nodes[0]
    rel = nodes - nodes[0]
    return float(np.linalg.norm(rel - np.outer(rel @ chord, chord) / (chord @ chord), axis=1).max())


def _check_centre_line(nodes):
    """Refuse fewer than 2 nodes, a dimension other than 2 or 3 and coincident consecutive nodes."""
    if nodes.ndim != 2 or nodes.shape[1] not in (2, 3) or len(nodes) < 2:
        raise ValueError(f"a beam centre line needs at least 2 nodes of 2 or 3 coordinates, "
                         f"got an array of shape {nodes.shape}")
    steps = np.linalg.norm(np.diff(nodes, axis=0), axis=1)
    if not np.all(steps > 1e-12 * steps.max()):
        raise ValueError(f"the centre line has coincident consecutive nodes "
                         f"(element {int(np.argmin(steps))} has zero length)")
    return steps


class ModesError(ValueError):
    """More ``modes`` asked of a ``BeamBody`` than the ``available`` elastic coordinates (or fewer than 0)."""

    def __init__(self, modes, available):
        super().__init__(f"modes must be between 0 and {available} (the elastic coordinates left by the "
                         f"reference conditions), got {modes}")
        self.modes, self.available = modes, available


class BeamBody:
    """A flexible beam body, planar or spatial.

    ``nodes`` (n_nodes, 2 or 3): the centre line in the body frame, consecutive nodes joined by
    elements (a straight line or a polyline); ``section`` a
    ``Section``; ``young`` (E) and ``rho`` scalars or (K,) arrays; ``reference`` the reference
    conditions (module docstring); ``modes`` None (nodal coordinates) or the number of lowest modes
    kept; ``eigensolver`` as in ``modes.lowest_modes``; ``axial`` the elements' axial shape
    ("cubic", the default: the world-vector beams'; "linear": 003's, embedded by carriers); spatial beams also need ``shear`` (G) or
    ``poisson`` (nu, G = E / (2 (1 + nu))); ``damping`` a ``damping.Damping`` (modal ratios or Rayleigh
    coefficients on the elastic coordinates) or None (undamped).

    The elastic coordinates ``q`` (``n_coordinates``) map to the body's nodal coordinates
    (``elements.node_size`` per node) by ``basis``: ``q_nodal = basis @ q``.
    """

    def __init__(self, nodes, section, young, rho, reference="fixed-free", modes=None,
                 eigensolver="cholmod", axial="cubic", shear=None, poisson=None, damping=None):
        nodes = np.asarray(nodes, dtype=float)
        steps = _check_centre_line(nodes)
        for name, value in (("young's modulus", young), ("density", rho)):
            if not np.all(np.asarray(value, dtype=float) > 0):
                raise ValueError(f"{name} must be positive, got {value}")
        self.dim = nodes.shape[1]
        self.section, self.young, self.rho, self.reference = section, young, rho, reference
        self.ritz = False  # a Rayleigh-Ritz body (``rayleigh_ritz``): no geometric stiffening by default
        if damping is not None and not isinstance(damping, Damping):
            raise ValueError(f"damping must be a beam.damping.Damping or None, got {damping!r}")
        self.damping = damping
        connectivity = np.column_stack([np.arange(len(nodes) - 1), np.arange(1, len(nodes))])
        if self.dim == 2:
            self.shear = shear
            self.elements = BeamElements(nodes, connectivity, young, rho, section.area, section.inertia, axial)
        else:
            if section.iy is None or section.j is None:
                raise ValueError("a spatial beam's section needs iy (bending in the x1-x3 plane) and j "
                                 "(St-Venant torsion), e.g. Section.rectangle(b, h)")
            self.shear = _shear_modulus(young, shear, poisson)
            self.elements = SpatialElements(nodes, connectivity, young, self.shear, rho, section.area,
                                            section.inertia, section.iy, section.j, axial)
        self.suppressed = suppressed_coordinates(reference, len(nodes), self.dim)
        check_reference(nodes, self.suppressed, reference)
        kept = np.setdiff1d(np.arange(self.elements.n_dofs), self.suppressed)
        boolean = sp.csc_matrix((np.ones(len(kept)), (kept, np.arange(len(kept)))),
                                shape=(self.elements.n_dofs, len(kept)))
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # refused below if not finite
            stiffness, mass = self.elements.stiffness(), self.elements.mass()
        if not (np.isfinite(stiffness.data).all() and np.isfinite(mass.data).all()):
            raise ValueError(f"the stiffness or mass matrix is not finite in floating point (elements "
                             f"{steps.min():.3g} to {steps.max():.3g} long): a beam too short, too stiff or too heavy")
        if modes is None:
            self.basis, self.modal_frequencies = boolean, None
        else:
            if not 0 <= modes <= len(kept):
                raise ModesError(modes, len(kept))
            omega2, shapes = lowest_modes(boolean.T @ stiffness @ boolean, boolean.T @ mass @ boolean,
                                          modes, eigensolver)
            self.basis, self.modal_frequencies = boolean @ shapes, np.sqrt(omega2)
        self.stiffness = self._reduce(stiffness)
        self.mass = self._reduce(mass)

    @classmethod
    def straight(cls, length, n_elements, section, young, rho, dim=2, **options):
        """A straight beam of ``n_elements`` equal elements from the origin along the body x1 axis, in
        ``dim`` dimensions."""
        if int(n_elements) != n_elements or n_elements < 1:
            raise ValueError(f"a beam needs at least one element, got n_elements = {n_elements}")
        if not length > 0:
            raise ValueError(f"beam length must be positive, got {length}")
        nodes = np.zeros((int(n_elements) + 1, dim))
        nodes[:, 0] = np.linspace(0.0, length, int(n_elements) + 1)
        return cls(nodes, section, young, rho, **options)

    @classmethod
    def rayleigh_ritz(cls, nodes, section, young, rho, **options):
        """The Rayleigh-Ritz body of 003 section 5: one element with the linear axial shape between the
        first and the last node of a straight centre line (any nodes in between only have to lie on
        it)."""
        nodes = np.asarray(nodes, dtype=float)
        offset = chord_offset(nodes)
        if offset > 1e-9 * np.linalg.norm(nodes[-1] - nodes[0]):
            raise ValueError(f"Rayleigh-Ritz bodies are straight (003 eqs. 45-51): a node lies "
                             f"{offset:.3g} off the chord of the centre line")
        body = cls(nodes[[0, -1]], section, young, rho, axial="linear", **options)
        body.ritz = True
        return body

    def _reduce(self, matrix):
        return sp.csc_matrix(self.basis.T @ (matrix @ self.basis))

    @property
    def nodes(self):
        return self.elements.nodes

    @property
    def axial(self):
        return self.elements.axial

    @property
    def n_coordinates(self):
        return self.basis.shape[1]

    @cached_property
    def invariants(self):
        """FFR inertia invariants (``elements.Invariants``) in the body's elastic coordinates (planar)."""
        return self.elements.invariants().reduce(self.basis)

    @cached_property
    def rigid_inertia(self):
        """Mass, first moment (dim,) and second moment (dim, dim) of the undeformed body in its frame."""
        return self.elements.rigid_inertia()

    @cached_property
    def load_rows(self):
        """int rho S dV (dim, n_coordinates): the generalised force of a force per unit mass b (body
        frame) is its transpose times b (003 eq. 19)."""
        return np.asarray(self.basis.T @ self.elements.load_rows().T).T

    def geometric_stiffness(self, axial_force):
        """Geometric stiffness in the elastic coordinates for element axial forces (K,) or (K, 2)."""
        return self._reduce(self.elements.geometric_stiffness(axial_force))

    def nodal_displacements(self, q):
        """Body-frame nodal coordinates of the elastic coordinates ``q``: (n_nodes, node_size)."""
        return np.asarray(self.basis @ np.asarray(q, dtype=float)).reshape(-1, self.elements.node_size)

    def element_coordinates(self, q):
        """Element-frame nodal coordinates of every element for the elastic coordinates q (...,
        n_coordinates): (..., K, 2 node_size), ``Cbar e`` (003 eq. 114; in space ``spatial``)."""
        q = np.asarray(q, dtype=float)
        flat = q.reshape(int(np.prod(q.shape[:-1])), q.shape[-1])
        nodal = np.asarray(self.basis @ flat.T).T.reshape(q.shape[:-1] + (-1,))[..., self.elements.dofs]
        return np.einsum("kij,...kj->...ki", self.elements.cbar, nodal)

    def locate(self, points):
        """Element index (P,) and ``xi`` (P,) of body-frame points on the centre line; a point
        farther than 1e-9 of the body size from it is refused."""
        points = np.atleast_2d(np.asarray(points, dtype=float))
        if points.shape[1] != self.dim:
            raise ValueError(f"points on a {self.dim}D beam need {self.dim} coordinates, got {points.shape[1]}")
        start = self.nodes[self.elements.connectivity[:, 0]]
        chord = self.nodes[self.elements.connectivity[:, 1]] - start
        rel = points[:, None, :] - start[None]
        length = self.elements.length
        along = np.einsum("pka,ka->pk", rel, chord / length[:, None]) / length  # xi before clipping
        xi = np.clip(along, 0.0, 1.0)
        distance = np.linalg.norm(rel - xi[..., None] * chord, axis=-1)
        element = np.argmin(distance, axis=1)
        off = distance[np.arange(len(points)), element]
        size = np.ptp(self.nodes, axis=0).max()
        if np.any(off > 1e-9 * size):
            bad = int(np.argmax(off))
            past = ((0, -along[bad, 0]), (-1, along[bad, -1] - 1.0))  # beyond the first / last node
            ends = [node for node, x in past if x > 1e-9
                    and np.isclose(np.linalg.norm(points[bad] - self.nodes[node]), off[bad], rtol=1e-9)]
            where = (f", beyond its end node {self.nodes[ends[0]].tolist()} (the centre line is "
                     f"{length.sum():.6g} long)" if ends else "")
            raise ValueError(f"point {points[bad].tolist()} is {off[bad]:.3g} off the beam centre line{where}")
        return element, xi[np.arange(len(points)), element]

    def shape_at(self, points):
        """Elastic displacement and section rotation of body-frame material points on the centre line
        as rows on ``q``: (P, 3, n_coordinates) in the plane, rows ``[ux, uy, theta]`` (rows 0-1 are
        ``S(X)`` of 003 eqs. 70-84 / 142-151, row 2 the rotation a revolute joint's angle needs);
        (P, 6, n_coordinates) in space, rows ``[ux, uy, uz, psi, theta_y, theta_z]``."""
        element, xi = self.locate(points)
        rows = self.elements.point_rows(element, xi)  # (P, r, 2 node_size)
        P, r, _ = rows.shape
        full = np.zeros((P, r, self.elements.n_dofs))
        full[np.arange(P)[:, None, None], np.arange(r)[None, :, None], self.elements.dofs[element][:, None, :]] = rows
        reduced = self.basis.T @ full.reshape(-1, self.elements.n_dofs).T
        return np.asarray(reduced).T.reshape(P, r, -1)
