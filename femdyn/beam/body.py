"""A flexible beam body: a centre line of Euler-Bernoulli elements, its reference conditions and its
elastic coordinates (FEM nodal, Rayleigh-Ritz or modal).

Body frame. The nodes are given in the body frame, the frame whose origin and axes the rigid
reference motion (the director frame ``phi, d_1, d_2``) carries: a material point sits at
``x = phi + sum_a (X_a + u_a) d_a`` with ``u = S q`` (003 eqs. 1-4). ``BeamBody.straight`` and
``meshes.centreline_frame`` put the origin at the first node of the centre line and the x1 axis
along its chord, as the joint frames of 003 Fig. 4.

Reference conditions (003 section 4) name the end conditions at the first and the last node,
``"start-end"``, each one of

- ``fixed``: ``ux, uy, theta`` suppressed,
- ``pinned``: ``ux, uy`` suppressed, the slope stays,
- ``rolled``: ``uy`` suppressed (the end slides along the body's x1 axis, the axial direction of a
  straight beam), ``ux`` and the slope stay,
- ``free``: nothing suppressed.

Suppressing coordinates is the Boolean reduction ``q_nodal = B2 q`` of 003 eqs. 117 and 156. The six
pairs of 003 section 4 are ``fixed-free`` (the default, 003 eq. 156), ``fixed-pinned``,
``pinned-pinned``, ``pinned-free``, ``fixed-rolled`` and ``pinned-rolled``. A choice whose suppressed
coordinates do not stop all three rigid motions of the plane (``free-free``, ``pinned-free``,
``rolled-rolled``, ...) leaves a zero-stiffness elastic motion that duplicates the reference motion,
so the body's stiffness and its FFR mass matrix are singular (003 section 4 says so of pinned-free);
it is refused with a ``ValueError`` that names the motion left.

Discretisations. FEM: one element between consecutive nodes. Rayleigh-Ritz (003 section 5): one
element spanning the straight centre line, i.e. the shape matrix of 003 eq. 46 (linear axial,
cubic Hermite transverse) on the end points; with ``fixed-free`` its columns are the reduced shape
functions ``[xi, 0, 0; 0, 3xi^2 - 2xi^3, L (xi^3 - xi^2)]`` of 003 eq. 51, and the other reference
conditions select other columns of eq. 46 in the same way. Modal reduction (either discretisation):
``q = B2 Phi eta`` with ``Phi`` the ``modes`` lowest mass-normalised eigenvectors; ``modes=0`` removes
every elastic coordinate and leaves the rigid body.
"""
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .elements import BeamElements, frame_rotations, shape_matrix, slope_rows
from .modes import lowest_modes

END_CONDITIONS = {"fixed": (0, 1, 2), "pinned": (0, 1), "rolled": (1,), "free": ()}


@dataclass(frozen=True)
class Section:
    """Cross-section: area ``A``, second moment of area ``I`` about the bending axis (normal to the
    plane), and ``fibre``, the distance ``c`` of the outer fibre from the neutral axis (needed only for
    stresses). Scalars, or (K,) arrays for a body whose elements differ."""

    area: float
    inertia: float
    fibre: float | None = None

    def __post_init__(self):
        for name in ("area", "inertia", "fibre"):
            value = getattr(self, name)
            if value is not None and not np.all(np.asarray(value, dtype=float) > 0):
                raise ValueError(f"section {name} must be positive, got {value}")

    @classmethod
    def rectangle(cls, b, h):
        """Rectangle of width ``b`` (normal to the plane) and depth ``h`` (in the plane):
        ``A = b h``, ``I = b h^3 / 12``, ``c = h / 2`` (003 section 8.1)."""
        return cls(b * h, b * h**3 / 12.0, h / 2.0)


def suppressed_coordinates(reference, n_nodes):
    """Indices of the nodal coordinates ``[ux, uy, theta]`` (node after node) that the reference
    conditions ``"start-end"`` suppress (003 eq. 156)."""
    parts = reference.split("-") if isinstance(reference, str) else []
    if len(parts) != 2 or not all(p in END_CONDITIONS for p in parts):
        raise ValueError(f"reference conditions must be 'start-end' with each end one of "
                         f"{', '.join(END_CONDITIONS)} (e.g. 'fixed-free'), got {reference!r}")
    start, end = (np.array(END_CONDITIONS[p], dtype=np.int64) for p in parts)
    return np.unique(np.concatenate([start, 3 * (n_nodes - 1) + end]))


def check_reference(nodes, suppressed, reference):
    """Refuse reference conditions that leave a rigid motion of the elastic coordinates.

    A rigid motion of the plane gives the nodal coordinates ``(c0 - c2 Y, c1 + c2 X, c2)``. The
    reduced stiffness is regular exactly when no such motion vanishes on all suppressed coordinates,
    i.e. when the 3 columns of rigid motions restricted to them have rank 3.
    """
    nodes = np.asarray(nodes, dtype=float)
    size = np.ptp(nodes, axis=0).max()
    node, component = np.divmod(suppressed, 3)
    x, y = nodes[node, 0] / size, nodes[node, 1] / size
    rigid = np.zeros((len(suppressed) + 3, 3))  # 3 zero rows keep the SVD defined and change nothing
    rows = rigid[:len(suppressed)]
    rows[np.arange(len(suppressed)), component] = 1.0
    rows[component == 0, 2] = -y[component == 0]
    rows[component == 1, 2] = x[component == 1]
    _, singular, vt = np.linalg.svd(rigid)
    rank = int(np.sum(singular > 1e-10 * max(singular.max(), 1.0)))
    if rank == 3:
        return
    left = 3 - rank
    if left == 1:
        c0, c1, c2 = vt[-1] * [1.0, 1.0, 1.0 / size]
        if abs(c2) * size < 1e-10 * np.hypot(c0, c1):
            motion = f"the translation along ({c0 / np.hypot(c0, c1):.3g}, {c1 / np.hypot(c0, c1):.3g})"
        else:
            motion = f"the rotation about the point ({-c1 / c2 + 0.0:.6g}, {c0 / c2 + 0.0:.6g})"
    else:
        motion = f"{left} independent rigid motions of the plane"
    raise ValueError(f"reference conditions {reference!r} leave {motion} to the elastic coordinates, "
                     f"without stiffness and duplicating the reference motion: the body would be "
                     f"singular (003 section 4); suppress more coordinates, e.g. 'fixed-free'")


class ModesError(ValueError):
    """More ``modes`` asked of a ``BeamBody`` than the ``available`` elastic coordinates (or fewer than 0)."""

    def __init__(self, modes, available):
        super().__init__(f"modes must be between 0 and {available} (the elastic coordinates left by the "
                         f"reference conditions), got {modes}")
        self.modes, self.available = modes, available


class BeamBody:
    """A flexible planar beam body.

    ``nodes`` (n_nodes, 2): the centre line in the body frame, consecutive nodes joined by elements
    (a straight line or a polyline); ``section`` a ``Section``; ``young`` (E) and ``rho`` scalars or
    (K,) arrays; ``reference`` the reference conditions (module docstring); ``modes`` None (nodal
    coordinates) or the number of lowest modes kept; ``eigensolver`` as in ``analysis.lowest_modes``.

    The elastic coordinates ``q`` (``n_coordinates``) map to the body's nodal coordinates by
    ``basis``: ``q_nodal = basis @ q``.
    """

    def __init__(self, nodes, section, young, rho, reference="fixed-free", modes=None,
                 eigensolver="cholmod"):
        nodes = np.asarray(nodes, dtype=float)
        if nodes.ndim != 2 or nodes.shape[1] != 2 or len(nodes) < 2:
            raise ValueError(f"a beam centre line needs at least 2 nodes of 2 coordinates, "
                             f"got an array of shape {nodes.shape}")
        steps = np.hypot(*np.diff(nodes, axis=0).T)
        if not np.all(steps > 1e-12 * steps.max()):
            raise ValueError(f"the centre line has coincident consecutive nodes "
                             f"(element {int(np.argmin(steps))} has zero length)")
        for name, value in (("young's modulus", young), ("density", rho)):
            if not np.all(np.asarray(value, dtype=float) > 0):
                raise ValueError(f"{name} must be positive, got {value}")
        self.section, self.young, self.rho, self.reference = section, young, rho, reference
        connectivity = np.column_stack([np.arange(len(nodes) - 1), np.arange(1, len(nodes))])
        self.elements = BeamElements(nodes, connectivity, young, rho, section.area, section.inertia)
        self.suppressed = suppressed_coordinates(reference, len(nodes))
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
    def straight(cls, length, n_elements, section, young, rho, **options):
        """A straight beam of ``n_elements`` equal elements from the origin along the body x1 axis."""
        if int(n_elements) != n_elements or n_elements < 1:
            raise ValueError(f"a beam needs at least one element, got n_elements = {n_elements}")
        if not length > 0:
            raise ValueError(f"beam length must be positive, got {length}")
        x = np.linspace(0.0, length, int(n_elements) + 1)
        return cls(np.column_stack([x, np.zeros_like(x)]), section, young, rho, **options)

    @classmethod
    def rayleigh_ritz(cls, nodes, section, young, rho, **options):
        """The Rayleigh-Ritz body of 003 section 5: one element between the first and the last node
        of a straight centre line (any nodes in between only have to lie on it)."""
        nodes = np.asarray(nodes, dtype=float)
        chord = nodes[-1] - nodes[0]
        rel = nodes - nodes[0]
        offset = np.abs(chord[0] * rel[:, 1] - chord[1] * rel[:, 0]) / np.hypot(*chord)
        if np.any(offset > 1e-9 * np.hypot(*chord)):
            raise ValueError(f"Rayleigh-Ritz bodies are straight (003 eqs. 45-51): a node lies "
                             f"{offset.max():.3g} off the chord of the centre line")
        return cls(nodes[[0, -1]], section, young, rho, **options)

    def _reduce(self, matrix):
        return sp.csc_matrix(self.basis.T @ (matrix @ self.basis))

    @property
    def nodes(self):
        return self.elements.nodes

    @property
    def n_coordinates(self):
        return self.basis.shape[1]

    @cached_property
    def invariants(self):
        """FFR inertia invariants (``elements.Invariants``) in the body's elastic coordinates."""
        return self.elements.invariants().reduce(self.basis)

    def geometric_stiffness(self, axial_force):
        """Geometric stiffness in the elastic coordinates for element axial forces (K,) or (K, 2)."""
        return self._reduce(self.elements.geometric_stiffness(axial_force))

    def nodal_displacements(self, q):
        """Body-frame nodal ``[ux, uy, theta]`` of the elastic coordinates ``q``: (n_nodes, 3)."""
        return np.asarray(self.basis @ np.asarray(q, dtype=float)).reshape(-1, 3)

    def element_coordinates(self, q):
        """Element-frame nodal coordinates ``Cbar e`` of every element: (K, 6)."""
        nodal = np.asarray(self.basis @ np.asarray(q, dtype=float))
        return np.einsum("kij,kj->ki", self.elements.cbar, nodal[self.elements.dofs])

    def locate(self, points):
        """Element index (P,) and ``xi`` (P,) of body-frame points on the centre line; a point
        farther than 1e-9 of the body size from it is refused."""
        points = np.atleast_2d(np.asarray(points, dtype=float))
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
        """Elastic displacement ``[ux, uy]`` and section rotation ``theta`` of body-frame material
        points on the centre line as rows on ``q``: (P, 3, n_coordinates). Rows 0-1 are ``S(X)`` of
        003 eqs. 70-84 / 142-151; row 2 the rotation a revolute joint's angle needs."""
        element, xi = self.locate(points)
        length = self.elements.length[element]
        rot, cbar = frame_rotations(self.elements.beta[element])
        local = np.concatenate([shape_matrix(xi[:, None], length)[:, 0],
                                slope_rows(xi[:, None], length)[:, 0, None, :]], axis=1)  # (P, 3, 6)
        turn = np.zeros((len(element), 3, 3))
        turn[:, :2, :2], turn[:, 2, 2] = rot, 1.0
        rows = np.einsum("pab,pbc,pcj->paj", turn, local, cbar)
        full = np.zeros((len(element), 3, self.elements.n_dofs))
        full[np.arange(len(element))[:, None, None], np.arange(3)[None, :, None],
             self.elements.dofs[element][:, None, :]] = rows
        reduced = self.basis.T @ full.reshape(-1, self.elements.n_dofs).T
        return np.asarray(reduced).T.reshape(len(element), 3, -1)
