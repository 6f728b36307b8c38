"""The world-vector embedding of a FEM beam body (``body.BeamBody``) into a director body.

A beam body carries the director frame ``phi, d_1, .., d_dim`` of a rigid body (000 eq. 8, 001 eq. 5)
and, at each node k of its centre line, world vectors: the elastic displacement ``w_k`` and the
slope ``s_k`` (dim components each) with the bilinear constraint ``s_k . d_1 = 0``, and in space the
twist angle ``psi_k``. A centre-line point of element e (length l, body-frame unit tangent t_e:
(c, s) in the plane, e_1 in space) sits at

    x = phi + X_a d_a + u_e(xi),
    u_e = H1(xi) w_a + H3(xi) w_b + l (G1(xi) sigma_a + G2(xi) sigma_b),

with the cubic Hermite functions H1 = 1 - 3xi^2 + 2xi^3, G1 = xi - 2xi^2 + xi^3, H3 = 3xi^2 - 2xi^3,
G2 = xi^3 - xi^2 of the transverse field of 003 eq. 46 applied to every component, and sigma_k the
element-end slope of the nodal rotation: in the plane theta_k n_e with n_e = -s d_1 + c d_2 (the
element's normal), which is linear in s_k = theta_k d_2: theta_k n_e = c s_k + s J s_k, so that
kinked centre lines (polylines) work; in space sigma_k = s_k (straight beams along d_1). Positions are
linear in (phi, d, w, s) with constant coefficients: the mass matrix is constant (``inertia``), and
the local coordinates of the body are d_a . w_k, theta_k = d_2 . s_k (space: theta_z = d_2 . s_k,
theta_y = -d_3 . s_k) and psi_k. Along an element the axial displacement t_e . u is cubic with zero
nodal slope (t_e . sigma_k = 0) and the transverse one is the Hermite beam of 003: the element of
``elements``/``spatial`` with ``axial="cubic"``. The strains (``kernels``) are quadratic and invariant
under a common rotation of d, w and s.

The twist psi_k is the section's rotation about d_1 relative to the frame: a torque M on the
section does the work M . (delta theta_frame) + (M . d_1) delta psi_k, so a generalised force on psi_k
alone is a torque between the section and the body's own frame.

Reference conditions (``reference``) at the first and the last node remove unknowns: a node whose
displacement is suppressed has no w, whose rotations are suppressed no s, whose twist is suppressed no
psi; a suppressed component of a kept vector is the bilinear row w_k . d_a = 0 (rolled: w . d_2 = 0,
in space also w . d_3 = 0).

Material points that need the orientation of their section (joint axes, augmented joint angles)
get section carriers (``constraints``): in the plane r = theta(X) d_1, and a body-frame direction a
turns into a + theta J a = a_1 J r - a_2 r (a_a the components on d_a); in space m_2 = theta x d_2,
m_3 = theta x d_3, and the section's axes are d_1 + u'(X), d_2 + m_2, d_3 + m_3. Everything stays
linear in the unknowns, so every joint constraint stays at most quadratic.
"""
import numpy as np

from ...numerics import kinematics as kin
from ..elements import shape_matrix, slope_rows
from .constraints import families
from .elasticity import WorldElasticity
from .hermite import J, hermite
from .inertia import gravity_weights, slot_blocks

def uses_world_embedding(beam):
    """Whether a ``BeamBody`` is embedded by world vectors: the FEM bodies of nodal coordinates with
    the cubic axial shape, planar or, straight along x1, spatial (a spatial node's slope s_k is the
    rotation's effect on d_1, the tangent of every element). Rayleigh-Ritz (linear axial), modal and
    curved spatial bodies keep the carrier embedding (``beam.ffr``, ``beam.spatial_ffr``)."""
    return beam.axial == "cubic" and beam.modal_frequencies is None and (beam.dim == 2 or beam.elements.straight)


def nodal_layout(beam):
    """The world unknowns of every node, from the local coordinates that the reference conditions
    suppress (module docstring): ``kept`` (n_nodes, 3) booleans [w, s, psi] and ``held``, a list of
    (node, vector, a) for the rows vector . d_a = 0 (vector 0: w, 1: s; a the director's index)."""
    size = beam.elements.node_size
    free = np.ones(beam.elements.n_dofs, dtype=bool)
    free[beam.suppressed] = False
    free = free.reshape(-1, size)
    if beam.dim == 2:
        w_free, s_free, psi_free = free[:, :2], free[:, [2]], np.zeros(len(free), dtype=bool)
        s_directors = [1]  # theta = d_2 . s
    else:
        w_free, s_free, psi_free = free[:, :3], free[:, [5, 4]], free[:, 3]
        s_directors = [1, 2]  # theta_z = d_2 . s, theta_y = -d_3 . s
    kept = np.column_stack([w_free.any(axis=1), s_free.any(axis=1), psi_free])
    held = [(node, 0, a) for node, a in zip(*np.nonzero(kept[:, [0]] & ~w_free))]
    held += [(node, 1, s_directors[k]) for node, k in zip(*np.nonzero(kept[:, [1]] & ~s_free))]
    return kept, held


def world_unknowns(beam):
    """The number of world unknowns (w, s, psi) of a beam body, without the section carriers."""
    kept, _ = nodal_layout(beam)
    return int(beam.dim * (kept[:, 0].sum() + kept[:, 1].sum()) + kept[:, 2].sum())


def same_point(a, b):
    """Whether two body-frame points are one material point (to 1e-12 m)."""
    return bool(np.allclose(a, b, rtol=0.0, atol=1e-12))


def padded(q):
    """q (..., n) with a zero appended: index -1 (a removed coordinate) picks it."""
    return np.concatenate([q, np.zeros(q.shape[:-1] + (1,))], axis=-1)


def section_size(dim):
    """Section carrier coordinates of a material point: r (2) in the plane, m_2 and m_3 (6) in space."""
    return 2 if dim == 2 else 6


class WorldBeam:
    """The director-form coordinates of one ``BeamBody`` embedded by world vectors (module docstring).

    ``offset``: the body's ``[phi, d_1, ..]`` in the global vector; ``start``: the global index of its
    first unknown; ``points`` (P, dim): the body-frame material points that carry section carriers.
    Unknowns are numbered node after node (w, s, psi where kept), then the carriers point after point.
    ``w``, ``s`` (n_nodes, dim) and ``psi`` (n_nodes,) hold their global indices, -1 where removed.
    It implements ``flexible.Flexible``, the interface it shares with the carrier embeddings.
    """

    def __init__(self, name, beam, stiffening, offset, start, points=()):
        self.name, self.beam, self.stiffening, self.start = name, beam, stiffening, start
        dim = self.dim = beam.dim
        self.rigid = offset + np.arange(kin.body_size(dim))
        kept, self.held = nodal_layout(beam)
        n_nodes = len(beam.nodes)
        sizes = kept * np.array([dim, dim, 1])
        first = start + np.concatenate([[0], np.cumsum(sizes.ravel())[:-1]]).reshape(n_nodes, 3)
        self.w = np.where(kept[:, [0]], first[:, [0]] + np.arange(dim), -1)
        self.s = np.where(kept[:, [1]], first[:, [1]] + np.arange(dim), -1)
        self.psi = np.where(kept[:, 2], first[:, 2], -1)
        self.unknowns = start + np.arange(int(sizes.sum()))
        # the slots of the mass matrix (``inertia``): [phi, d_1, ..], then w_k and s_k of the kept nodes
        self.slots = np.concatenate([self.rigid[::dim], self.w[kept[:, 0], 0], self.s[kept[:, 1], 0]])
        self.twists = self.psi[kept[:, 2]]
        self.points = np.asarray(points, dtype=float).reshape(-1, dim)
        carried = start + self.unknowns.size
        self.carriers = carried + np.arange(len(self.points) * section_size(dim)).reshape(-1, section_size(dim))
        self.n_coordinates = self.unknowns.size + self.carriers.size
        connectivity = beam.elements.connectivity
        self.length = beam.elements.length
        chord = beam.nodes[connectivity[:, 1]] - beam.nodes[connectivity[:, 0]]
        self.tangent = chord / self.length[:, None]  # t_e in the body frame

    def slot_blocks(self):
        """Mass coefficients (A, B) over ``slots`` and the twists' scalar mass over ``twists``
        (``inertia``)."""
        return slot_blocks(self)

    def gravity_weights(self, g):
        """The generalised gravity force over ``slots``, (S, dim) (``inertia``)."""
        return gravity_weights(self, g)

    def turning_vectors(self):
        """First coordinates of the dim-vectors that turn with the body: phi, the directors, the kept
        w_k and s_k and the section carriers (the twists psi_k do not turn)."""
        return np.concatenate([self.slots, self.carriers.reshape(-1, self.dim)[:, 0]])

    @staticmethod
    def families(bodies):
        """The slope, held and section rows of the beams, batched over them (``constraints``)."""
        return families(bodies)

    @staticmethod
    def elastic_forces(bodies):
        """The elastic force of the beams that have unknowns (``elasticity``)."""
        worlds = [w for w in bodies if w.unknowns.size]
        return [WorldElasticity(worlds)] if worlds else []

    @staticmethod
    def index_of(keys, values):
        """Positions of ``values`` (any shape) in the array ``keys``, -1 where absent (or negative)."""
        values = np.asarray(values)
        if not len(keys):
            return np.full(values.shape, -1)
        order = np.argsort(keys)
        place = order[np.clip(np.searchsorted(keys, values, sorter=order), 0, len(keys) - 1)]
        return np.where((values >= 0) & (keys[place] == values), place, -1)

    def coordinate_names(self):
        """Names of the body's coordinates in their order: ``<body>.w<k>x`` .., ``.s<k>x`` .., ``.psi<k>``
        node after node, then the carriers (``.r<p>x`` in the plane, ``.m2_<p>x``, ``.m3_<p>x`` in space)."""
        axes = "xyz"[:self.dim]
        names = []
        for k in range(len(self.w)):
            names += [f"{self.name}.w{k}{a}" for a in axes] if self.w[k, 0] >= 0 else []
            names += [f"{self.name}.s{k}{a}" for a in axes] if self.s[k, 0] >= 0 else []
            names += [f"{self.name}.psi{k}"] if self.psi[k] >= 0 else []
        carriers = ["r"] if self.dim == 2 else ["m2_", "m3_"]
        return names + [f"{self.name}.{c}{p}{a}" for p in range(len(self.points)) for c in carriers for a in axes]

    @property
    def d(self):
        """Global indices of the directors d_1, .., d_dim (dim * dim,)."""
        return self.rigid[self.dim:]

    def element_vectors(self, element):
        """Global first coordinates of w_a, w_b, s_a, s_b of the elements (P, 4), -1 where removed."""
        a, b = self.beam.elements.connectivity[element].T
        return np.column_stack([self.w[a, 0], self.w[b, 0], self.s[a, 0], self.s[b, 0]])

    def element_columns(self, element):
        """Global coordinates of w_a, w_b, s_a, s_b of the elements, component after component
        (P, 4 dim), -1 where removed."""
        vectors = self.element_vectors(element)[..., None]
        return np.where(vectors >= 0, vectors + np.arange(self.dim), -1).reshape(len(element), -1)

    def turns(self, element):
        """The maps R_j (P, 4, dim, dim) from the element's vectors w_a, w_b, s_a, s_b to its Hermite
        vectors w_a, w_b, sigma_a, sigma_b: I, I and, for the slopes, c I + s J in the plane, I in
        space (module docstring)."""
        dim, P = self.dim, len(element)
        R = np.broadcast_to(np.eye(dim), (P, 4, dim, dim)).copy()
        if dim == 2:
            c, s = self.tangent[element].T
            R[:, 2:] = (c[:, None, None] * np.eye(2) + s[:, None, None] * J)[:, None]
        return R

    def point_maps(self, X):
        """The position x(X) and the slope u'(X) of body-frame points X (P, dim) on the centre line, and
        the twist psi(X) (linear along the element), as linear maps: the global columns (P, n) of
        [phi, d_a, w_a, w_b, s_a, s_b] (-1 for a removed vector), the position matrices (P, dim, n),
        the slope matrices (P, dim, n) and the twist's columns (P, 2) and coefficients (P, 2)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        element, xi = self.beam.locate(X)
        P, dim = len(X), self.dim
        length = self.length[element]
        values = hermite(shape_matrix(xi[:, None], length)[:, 0, 1])  # (P, 4): H1, H3, l G1, l G2
        slopes = hermite(slope_rows(xi[:, None], length)[:, 0])  # H1'/l, H3'/l, G1', G2'
        R = self.turns(element)
        columns = np.concatenate([np.broadcast_to(self.rigid, (P, self.rigid.size)), self.element_columns(element)],
                                 axis=1)

        def blocks(coefficients):  # [c_j R_j] side by side: (P, dim, 4 dim)
            return np.swapaxes(coefficients[:, :, None, None] * R, 1, 2).reshape(P, dim, 4 * dim)

        rigid = kin.point_matrix(X)
        position = np.concatenate([rigid, blocks(values)], axis=2)
        slope = np.concatenate([np.zeros_like(rigid), blocks(slopes)], axis=2)
        ends = self.beam.elements.connectivity[element]
        return columns, position, slope, self.psi[ends], np.column_stack([1.0 - xi, xi])

    def needs_section(self, X):
        """Whether the section at body-frame point X turns with the unknowns: u'(X) or, in space,
        psi(X) has a column that is not removed (at a fixed end neither has, and the section keeps
        the body's orientation)."""
        columns, _, slope, twist, coefficients = self.point_maps(X)
        bending = np.any((columns[0] >= 0) & np.any(slope[0] != 0, axis=0))
        return bool(bending or np.any((twist[0] >= 0) & (coefficients[0] != 0)))

    def carrier_of(self, X):
        """The section carriers (section_size,) of the material point X, or None if it has none."""
        found = [k for k, point in enumerate(self.points) if same_point(point, X)]
        return self.carriers[found[0]] if found else None

    def side(self, X, frame, oriented=False):
        """Local dofs (n_local,), point matrix (dim, n_local) and the joint-frame axes (list of (dim,
        n_local)) at the material point X for a joint frame (dim, dim), columns = axes in body
        coordinates. ``oriented``: the axes turn with the section (module docstring) through the
        point's section carriers; where the section does not turn (``needs_section``) they are the
        body's, as they are for a side that does not use them."""
        columns, position, slope, _, _ = self.point_maps(X)
        columns, position, slope = columns[0], position[0], slope[0]
        dim = self.dim
        axes = [np.concatenate([kin.direction_matrix(a)[0], np.zeros((dim, 4 * dim))], axis=1) for a in frame.T]
        carriers = self.carrier_of(X) if oriented else None
        if oriented and carriers is None and self.needs_section(X):
            raise ValueError(f"the section at {np.asarray(X).tolist()} of beam '{self.name}' turns, but the "
                             "point has no section carriers")
        if carriers is not None:
            if dim == 2:  # a + theta J a = a_1 J r - a_2 r
                extras = [a[0] * J - a[1] * np.eye(2) for a in frame.T]
            else:  # a_1 (d_1 + u') + a_2 (d_2 + m_2) + a_3 (d_3 + m_3)
                axes = [axis + a[0] * slope for a, axis in zip(frame.T, axes)]
                extras = [np.concatenate([a[1] * np.eye(3), a[2] * np.eye(3)], axis=1) for a in frame.T]
            axes = [np.concatenate([axis, extra], axis=1) for axis, extra in zip(axes, extras)]
            columns = np.concatenate([columns, carriers])
            position = np.concatenate([position, np.zeros((dim, carriers.size))], axis=1)
        moving = np.any(position != 0, axis=0) | np.any([np.any(a != 0, axis=0) for a in axes], axis=0)
        used = (columns >= 0) & moving
        return columns[used], position[:, used], [a[:, used] for a in axes]

    def positions(self, q, X):
        """World positions (..., P, dim) of body-frame points X (P, dim) for coordinates q (..., n);
        applied to velocities, the material velocities (the map is linear)."""
        columns, position, _, _, _ = self.point_maps(X)
        return np.einsum("pin,...pn->...pi", position, padded(q)[..., columns])

    def element_points(self, q, xi):
        """World positions (..., K, P, dim) of the points ``xi`` (P,) of every element for coordinates q
        (..., n): ``phi + X_a d_a + u_e(xi)`` (module docstring), element by element without locating
        the points. Linear in q: applied to velocities, the material velocities."""
        dim, elements = self.dim, np.arange(len(self.length))
        rigid = kin.material_points(q[..., self.rigid], self.beam.elements.positions(xi).reshape(-1, dim))
        values = hermite(shape_matrix(xi, self.length)[:, :, 1])  # (K, P, 4): H1, H3, l G1, l G2
        vectors = padded(q)[..., self.element_columns(elements)].reshape(q.shape[:-1] + (len(elements), 4, dim))
        hermite_vectors = np.einsum("kjab,...kjb->...kja", self.turns(elements), vectors)  # w_a, w_b, sigma_a, sigma_b
        u = np.einsum("kpj,...kja->...kpa", values, hermite_vectors)
        return rigid.reshape(u.shape) + u

    def with_elastic(self, q, v, elastic, rate=None):
        """Copies of the coordinates q and velocities v (n,) whose body has the elastic coordinates
        ``elastic`` (n_coordinates of the ``BeamBody``) and their ``rate`` (default zero), the inverse
        of ``elastic_coordinates``: the nodal world vectors w_k = u_a d_a, s_k = theta_k d_2 (space:
        theta_z d_2 - theta_y d_3), the twists and the section carriers (``constraints``: r =
        theta(X) d_1; space m_2 = psi d_3 - theta_z d_1, m_3 = theta_y d_1 - psi d_2), all bilinear in
        (local values, directors), so that their rates are f(rate, d) + f(values, d') with the
        frame's d and d' of q and v."""
        q, v = np.array(q, dtype=float), np.array(v, dtype=float)
        elastic = np.asarray(elastic, dtype=float)
        rate = np.zeros_like(elastic) if rate is None else np.asarray(rate, dtype=float)
        dim = self.dim
        d, d_rate = q[self.d].reshape(dim, dim), v[self.d].reshape(dim, dim)
        kept = np.concatenate([self.unknowns, self.carriers.ravel()])
        q[kept] = self._world_values(elastic, d)
        v[kept] = self._world_values(rate, d) + self._world_values(elastic, d_rate)
        return q, v

    def _world_values(self, elastic, d):
        """The unknowns and carriers (``with_elastic``) of local values ``elastic`` for director rows d
        (bilinear in both), in the order of ``unknowns`` and ``carriers``."""
        dim, beam = self.dim, self.beam
        nodal = beam.nodal_displacements(elastic)  # (n_nodes, node_size)
        out, start = np.zeros(self.n_coordinates), self.start
        w = nodal[:, :dim] @ d
        if dim == 2:
            s, turn = nodal[:, 2, None] * d[1], np.ones(0)
        else:
            s, turn = nodal[:, 5, None] * d[1] - nodal[:, 4, None] * d[2], nodal[:, 3]
        for index, values in ((self.w, w), (self.s, s), (self.psi[:, None], turn[:, None] if dim == 3 else None)):
            if values is not None:
                mask = index >= 0
                out[index[mask] - start] = values[mask]
        if len(self.points):
            rows = beam.shape_at(self.points)[:, dim:] @ elastic  # (P, 1) or (P, 3): theta or (psi, theta_y, theta_z)
            if dim == 2:
                carried = rows[:, :1] * d[0]
            else:
                psi, theta_y, theta_z = rows.T[:, :, None]
                carried = np.concatenate([psi * d[2] - theta_z * d[0], theta_y * d[0] - psi * d[1]], axis=1)
            out[self.carriers.ravel() - start] = carried.ravel()
        return out

    def elastic_coordinates(self, q):
        """The body's elastic coordinates (..., n_coordinates of the ``BeamBody``) for coordinates q
        (..., n): the local nodal coordinates d_a . w_k, the rotations d_2 . s_k (space:
        ``[psi, theta_y, theta_z]`` = ``[psi_k, -d_3 . s_k, d_2 . s_k]``) and the twist, zero where
        removed, at the body's kept coordinates (its Boolean basis)."""
        dim, full = self.dim, padded(q)
        d = full[..., self.d].reshape(q.shape[:-1] + (dim, dim))  # rows d_a
        w, s = full[..., self.w], full[..., self.s]  # (..., n_nodes, dim)
        local = np.einsum("...ab,...kb->...ka", d, w)
        turned = np.einsum("...ab,...kb->...ka", d, s)
        if dim == 2:
            nodal = np.concatenate([local, turned[..., 1:2]], axis=-1)
        else:
            nodal = np.concatenate([local, full[..., self.psi][..., None], -turned[..., 2:3], turned[..., 1:2]],
                                   axis=-1)
        flat = nodal.reshape(q.shape[:-1] + (-1,))
        return np.asarray(self.beam.basis.T @ flat.reshape(-1, flat.shape[-1]).T).T.reshape(
            q.shape[:-1] + (self.beam.n_coordinates,))
