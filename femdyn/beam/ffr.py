"""Flexible planar beam bodies in director form: the floating frame of reference with constant mass.

A flexible body carries the director frame ``phi, d_1, d_2`` of a rigid body (the reference motion,
000 eq. 8) and the elastic coordinates ``q`` of its ``beam.BeamBody`` (003 eqs. 1-4): a material point
with body-frame position ``X`` and elastic displacement ``u = S(X) q`` sits at

    x = phi + X_a d_a + u_a d_a.                                                  (003 eq. 4)

The last term is bilinear in ``(q, d)``, which makes the FFR mass matrix configuration dependent
(003 eqs. 9-32). In the plane ``d_2 = J d_1`` (J the rotation by 90 degrees; the orthonormality
constraints keep the frame right-handed), so with one *carrier* vector ``c_j = q_j d_1`` per elastic
coordinate

    x = phi + X_a d_a + sum_j (S_1j I + S_2j J) c_j,   c_j . d_1 - q_j = 0,   c_j . d_2 = 0,

i.e. positions are linear in ``(phi, d_a, c_j)`` with constant coefficients, and the carrier
constraints (``joints.carrier``) are bilinear and rotation invariant. The kinetic energy ``1/2 int rho |x'|^2`` is then a constant quadratic form
whose blocks are the FFR inertia invariants (``elements.Invariants``): with slots (2-vectors)
``[phi, d_1, d_2, c_1, .., c_n]`` every block is ``A I + B J``,

    phi-phi: m,   phi-d_a: I1_a,   d_a-d_b: int rho X_a X_b,    phi-c_j: (sbar_1j, sbar_2j),
    d_a-c_j: (Ibar_a1j, Ibar_a2j),   c_i-c_j: (S_11 + S_22, S_12 - S_21)_ij       [(A, B) pairs]

(003 eqs. 16-32 in director form). The elastic energy stays the linear FE one in ``q``
(``beam.elasticity``). Everything is at most quadratic, so the energy-momentum scheme of the rigid
core conserves energy and momentum for FFR bodies too: the nonlinearity of the floating frame lives
in the bilinear constraints, whose mid-point Jacobians are exact discrete gradients (000 eq. 26).

Material points and section directions of a joint are linear maps of the body's rigid coordinates and
of the carriers that move them (``side``): the joint uses the deformed position and, for directions,
the deformed section (rotated by the section rotation ``theta(X)``, linearised as in the small-strain
FFR: ``a + theta J a``; 003 eqs. 64-84, 139-151).
"""
import numpy as np
import scipy.sparse as sp

from ..joints.carrier import Carrier
from ..numerics import kinematics as kin
from .elasticity import carrier_elasticity

J = np.array([[0.0, -1.0], [1.0, 0.0]])


def _carrier_blocks(s1, s2):
    """(P, 2, 2 n) blocks [S_1j I + S_2j J]_j for rows s1, s2 (P, n)."""
    blocks = s1[..., None, None] * np.eye(2) + s2[..., None, None] * J  # (P, n, 2, 2)
    return np.swapaxes(blocks, -3, -2).reshape(*s1.shape[:-1], 2, 2 * s1.shape[-1])


class FlexibleBody:
    """The director-form coordinates of one ``BeamBody``. ``offset``: its ``[phi, d_1, d_2]`` in the
    global vector; ``elastic``: the global indices of its elastic coordinates (n,); ``carriers``: those
    of its carrier vectors (n, 2).

    It implements ``flexible.Flexible``, the interface that the model and its outputs use for every
    embedding."""

    def __init__(self, name, beam, stiffening, offset, elastic, carriers):
        self.name, self.beam, self.stiffening = name, beam, stiffening
        self.dim = 2
        self.rigid = offset + np.arange(6)
        self.elastic, self.carriers = np.asarray(elastic), np.asarray(carriers).reshape(-1, 2)
        self.slots = np.concatenate([self.rigid[::2], self.carriers[:, 0]])  # [phi, d_1, d_2, c_1 .. c_n]
        self.twists = np.zeros(0, dtype=np.int64)  # no scalar massive coordinates in the plane
        inv = beam.invariants
        self.mass = inv.mass
        self.centre = inv.first_moment / inv.mass  # centre of mass in the body frame

    @property
    def n_elastic(self):
        return len(self.elastic)

    @property
    def n_coordinates(self):
        """The model coordinates of the body's elastic part: its elastic coordinates and carriers."""
        return 3 * self.n_elastic

    def coordinate_names(self):
        """``<body>.q<j>``, then ``<body>.c<j>x``, ``<body>.c<j>y`` for the carrier c_j."""
        n = self.n_elastic
        return [f"{self.name}.q{j + 1}" for j in range(n)] + [f"{self.name}.c{j + 1}{a}" for j in range(n) for a in "xy"]

    def turning_vectors(self):
        """First coordinates of the 2-vectors that turn with the body: phi, d_1, d_2 and the carriers."""
        return self.slots

    @staticmethod
    def families(bodies):
        """The carrier rows of the bodies' elastic coordinates as one ``joints.carrier.Carrier`` family
        over [d_1, d_2, c_j, q_j]."""
        elastic = [f for f in bodies if f.n_elastic]
        if not elastic:
            return []
        dofs = np.concatenate([np.column_stack([np.repeat(f.rigid[None, 2:6], f.n_elastic, axis=0),
                                                f.carriers, f.elastic]) for f in elastic])
        return [Carrier(dofs, [f"{f.name}.q{j + 1}" for f in elastic for j in range(f.n_elastic)])]

    @staticmethod
    def elastic_forces(bodies):
        """The linear FE elastic force of the bodies' elastic coordinates (``elasticity``)."""
        return carrier_elasticity(bodies)

    def slot_blocks(self):
        """Mass-matrix coefficients (A, B) over the body's slots [phi, d_1, d_2, c_1..c_n] (module
        docstring): A symmetric, B skew, both sparse (3 + n, 3 + n); and the empty scalar mass matrix
        (no twists in the plane)."""
        inv = self.beam.invariants
        rigid_a = np.zeros((3, 3))
        rigid_a[0, 0] = inv.mass
        rigid_a[0, 1:] = rigid_a[1:, 0] = inv.first_moment
        rigid_a[1:, 1:] = inv.second_moment
        coupling = np.stack([inv.s_bar, inv.i_bar[0], inv.i_bar[1]])  # (3, 2, n): rows phi, d_1, d_2
        A = sp.bmat([[rigid_a, sp.csr_matrix(coupling[:, 0])],
                     [sp.csr_matrix(coupling[:, 0].T), inv.mass_matrix]], format="csr")
        B = sp.bmat([[sp.csr_matrix((3, 3)), sp.csr_matrix(coupling[:, 1])],
                     [sp.csr_matrix(-coupling[:, 1].T), inv.s_tilde]], format="csr")
        A.eliminate_zeros()
        B.eliminate_zeros()
        return A, B, sp.csr_matrix((0, 0))

    def gravity_weights(self, g):
        """Generalised gravity force int rho N^T g over the slots [phi, d_1, d_2, c_1..c_n], (3 + n, 2)."""
        inv = self.beam.invariants
        rigid = np.concatenate([inv.mass * g, inv.first_moment[0] * g, inv.first_moment[1] * g])
        carriers = inv.s_bar[0][:, None] * g + inv.s_bar[1][:, None] * (J.T @ g)
        return np.concatenate([rigid.reshape(3, 2), carriers])

    def _rows(self, X):
        """Elastic rows [u_1, u_2, theta] at body-frame point X on the centre line: (3, n)."""
        if self.n_elastic == 0:
            return np.zeros((3, 0))
        return self.beam.shape_at(np.asarray(X, dtype=float)[None, :])[0]

    def side(self, X, frame, oriented=False):
        """Local dofs (n_local,), point matrix (2, n_local) and the joint-frame axes (list of (2,
        n_local)) at material point X for a joint frame (2, 2), columns = axes in body coordinates.
        The axes turn with the section whether or not the side uses them (``oriented``): the carriers
        that move the point turn them too, at no extra unknowns."""
        rows = self._rows(X)
        used = np.flatnonzero(np.any(np.abs(rows) > 1e-14 * max(1.0, np.abs(rows).max(initial=0.0)), axis=0))
        r = rows[:, used]
        point = np.concatenate([kin.point_matrix(X)[0], _carrier_blocks(r[0], r[1])], axis=1)
        axes = []
        for a in frame.T:
            turned = J @ a  # d(a + theta J a)/d theta, components on d_1, d_2
            axes.append(np.concatenate([kin.direction_matrix(a)[0],
                                        _carrier_blocks(turned[0] * r[2], turned[1] * r[2])], axis=1))
        return np.concatenate([self.rigid, self.carriers[used].ravel()]), point, axes

    def elastic_coordinates(self, q):
        """The body's elastic coordinates (..., n_coordinates of the ``BeamBody``) for coordinates q
        (..., n)."""
        return q[..., self.elastic]

    def with_elastic(self, q, v, elastic, rate=None):
        """Copies of the coordinates q and velocities v (n,) whose body has the elastic coordinates
        ``elastic`` and their ``rate`` (default zero): the carriers c_j = q_j d_1 and their rates
        c_j' = q_j' d_1 + q_j d_1', with the frame's d_1 and d_1' of q and v."""
        q, v = np.array(q, dtype=float), np.array(v, dtype=float)
        elastic = np.asarray(elastic, dtype=float)
        rate = np.zeros_like(elastic) if rate is None else np.asarray(rate, dtype=float)
        d1, d1_rate = q[self.rigid[2:4]], v[self.rigid[2:4]]
        q[self.elastic], v[self.elastic] = elastic, rate
        q[self.carriers] = elastic[:, None] * d1
        v[self.carriers] = rate[:, None] * d1 + elastic[:, None] * d1_rate
        return q, v

    def element_points(self, q, xi):
        """World positions (..., K, P, 2) of the points ``xi`` (P,) of every element for coordinates q
        (..., n): ``phi + X_a d_a + sum_i (S_1i I + S_2i J) c_i`` with the body-frame shape matrices
        ``C S(xi) Cbar`` of the nodal coordinates i (003 eq. 110), whose carriers are the body's
        carriers mapped by the basis (q_nodal = B q). Linear in q: applied to velocities, the
        material velocities."""
        elements = self.beam.elements
        rigid = kin.material_points(q[..., self.rigid], elements.positions(xi).reshape(-1, 2))
        shape = elements.body_shape(xi)  # (K, P, 2, 6)
        carriers = q[..., self.carriers]  # (..., n, 2)
        flat = np.moveaxis(carriers, -2, 0).reshape(self.n_elastic, 2 * int(np.prod(q.shape[:-1])))
        nodal = np.asarray(self.beam.basis @ flat).reshape((-1,) + carriers.shape[:-2] + (2,))
        nodal = np.moveaxis(nodal, 0, -2)[..., elements.dofs, :]  # (..., K, 6, 2)
        u = (np.einsum("kpj,...kja->...kpa", shape[:, :, 0], nodal)
             + np.einsum("kpj,ab,...kjb->...kpa", shape[:, :, 1], J, nodal))
        return rigid.reshape(u.shape) + u

    def positions(self, q, X):
        """World positions (..., P, 2) of body-frame points X (P, 2) for coordinates q (..., n_global)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        rows = self.beam.shape_at(X) if self.n_elastic else np.zeros((len(X), 3, 0))
        phi, d1, d2 = (q[..., self.rigid[2 * i : 2 * i + 2]] for i in range(3))
        c = q[..., self.carriers]  # (..., n, 2)
        x = phi[..., None, :] + X[:, 0, None] * d1[..., None, :] + X[:, 1, None] * d2[..., None, :]
        return (x + np.einsum("pj,...ja->...pa", rows[:, 0], c)
                + np.einsum("pj,...ja->...pa", rows[:, 1], c @ J.T))
