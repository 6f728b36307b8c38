"""Spatial beam bodies of few elastic coordinates (Rayleigh-Ritz and modal bodies) in director form,
with a constant mass matrix: the floating frame of reference embedded by three carriers per
coordinate.

A material point of a ``beam.BeamBody`` with body-frame position ``X`` and elastic displacement
``u = S(X) q`` (003 eqs. 1-4) sits at ``x = phi + X_a d_a + sum_j S_aj(X) q_j d_a``: the last term is
bilinear in ``(q, d)``. In the plane ``d_2 = J d_1`` lets one carrier ``q_j d_1`` stand for both
directors (``ffr``); in space there is no such J, so each elastic coordinate q_j gets the three
world vectors ``c_aj = q_j d_a`` (a = 1, 2, 3) with the nine bilinear, rotation-invariant rows

    c_aj . d_b - q_j delta_ab = 0,                                                   (a, b = 1..3)

which fix them given q_j and the (orthonormal) directors. Then

    x = phi + X_a d_a + sum_j S_aj(X) c_aj

is linear in ``(phi, d_a, c_aj)`` with constant coefficients, so the kinetic energy is the constant
form 1/2 sum_ik A_ik v_i . v_k over these slots with the FFR invariants (003 eqs. 16-32,
``elements.Invariants`` in 3D) as coefficients:

    phi-phi: m,   phi-d_a: I1_a,   d_a-d_b: int rho X_a X_b,   phi-c_aj: sbar_aj,
    d_b-c_aj: Ibar_baj,   c_ai-c_bj: (S_ab)_ij.

The twist psi(X) = S_psi(X) q of the sections, a rotation about d_1 that moves no centre-line point,
carries the kinetic energy 1/2 rho I_p int psi'^2 dx (``spatial``): a constant scalar mass on the q_j
(``model.inertia``), which are otherwise massless. The elastic energy is the linear FE one in q, or
with geometric stiffening the element-averaged strain of both bending planes (``elasticity``):
quadratic, so the energy-momentum scheme conserves energy and, since every row is a dot product,
linear and angular momentum (000 eq. 26 for the bilinear rows).

A direction a fixed in the section at X turns with the small rotation theta(X) = (psi, theta_y,
theta_z)(X) q (``spatial``: a rigid rotation omega gives theta = omega) into a + theta x a, in world
components ``a_b d_b + sum_j (Theta_j x a)_b c_bj`` -- linear in the carriers too: joints that use
the section's axes stay at most quadratic without extra unknowns (003 eqs. 64-84, 139-151).

Cost: 10 unknowns and 9 rows per elastic coordinate, so this embedding suits the few coordinates of
Rayleigh-Ritz (6 for a fixed-free body) and modal bodies; nodal FEM bodies use world vectors
(``world``), whose unknowns grow with the nodes only.
"""
import numpy as np
import scipy.sparse as sp

from ..joints.quadratic import QuadraticForm, dot_form
from ..numerics import kinematics as kin
from .elasticity import carrier_elasticity

CARRIER_SIZE = 10  # model coordinates per elastic coordinate: q_j and c_1j, c_2j, c_3j


class SpatialFlexibleBody:
    """The director-form coordinates of one spatial ``BeamBody`` embedded by carriers (module
    docstring). ``offset``: its ``[phi, d_1, d_2, d_3]`` in the global vector; ``elastic``: the global
    indices of its elastic coordinates (n,); ``carriers``: those of its carriers (n, 3, 3), [j, a] the
    vector c_aj. It implements ``flexible.Flexible``."""

    def __init__(self, name, beam, stiffening, offset, elastic, carriers):
        self.name, self.beam, self.stiffening = name, beam, stiffening
        self.dim = 3
        self.rigid = offset + np.arange(12)
        self.elastic = np.asarray(elastic, dtype=np.int64)
        self.carriers = np.asarray(carriers, dtype=np.int64).reshape(-1, 3, 3)
        # the mass slots: [phi, d_1, d_2, d_3], then the carriers director by director (c_a1 .. c_an)
        self.slots = np.concatenate([self.rigid[::3], np.swapaxes(self.carriers, 0, 1)[..., 0].ravel()])
        self.twists = self.elastic  # scalar massive coordinates: the sections' twist

    @property
    def n_elastic(self):
        return len(self.elastic)

    @property
    def n_coordinates(self):
        """The model coordinates of the body's elastic part: its elastic coordinates and carriers."""
        return CARRIER_SIZE * self.n_elastic

    @property
    def d(self):
        """Global indices of the directors d_1, d_2, d_3 (9,)."""
        return self.rigid[3:]

    def coordinate_names(self):
        """``<body>.q<j>``, then ``<body>.c<j><a>x`` .. for the carrier c_aj."""
        n = self.n_elastic
        return ([f"{self.name}.q{j + 1}" for j in range(n)]
                + [f"{self.name}.c{j + 1}{a + 1}{x}" for j in range(n) for a in range(3) for x in "xyz"])

    def turning_vectors(self):
        """First coordinates of the 3-vectors that turn with the body: phi, the directors and the
        carriers c_aj = q_j d_a (the q_j do not turn)."""
        return self.slots

    @staticmethod
    def families(bodies):
        """The carrier rows of every body with elastic coordinates (``constraints``)."""
        return [f.constraints() for f in bodies if f.n_elastic]

    @staticmethod
    def elastic_forces(bodies):
        """The FE elastic force of the bodies' elastic coordinates (``elasticity``)."""
        return carrier_elasticity(bodies)

    def slot_blocks(self):
        """Mass coefficients over ``slots`` (module docstring): A (4 + 3n, 4 + 3n) symmetric, B = 0
        (space), and the twists' scalar mass B2^T M_psi B2 over ``twists``, all sparse."""
        inv, n = self.beam.invariants, self.n_elastic
        twist = sp.csr_matrix(self.beam.basis.T @ self.beam.elements.twist_mass() @ self.beam.basis)
        rigid = np.zeros((4, 4))
        rigid[0, 0] = inv.mass
        rigid[0, 1:] = rigid[1:, 0] = inv.first_moment
        rigid[1:, 1:] = inv.second_moment
        if n == 0:  # the rigid limit
            return sp.csr_matrix(rigid), sp.csr_matrix((4, 4)), twist
        coupling = np.vstack([inv.s_bar.reshape(1, -1), inv.i_bar.reshape(3, -1)])  # (4, 3n): c_a1..c_an per a
        A = sp.bmat([[rigid, sp.csr_matrix(coupling)],
                     [sp.csr_matrix(coupling.T), sp.bmat([list(row) for row in inv.s_kl])]], format="csr")
        A.eliminate_zeros()
        return A, sp.csr_matrix((4 + 3 * n, 4 + 3 * n)), twist

    def gravity_weights(self, g):
        """The generalised gravity force int rho N^T g over ``slots``, (4 + 3n, 3): m g and I1_a g on
        the frame, sbar_aj g on the carriers (003 eq. 19)."""
        inv = self.beam.invariants
        weights = np.concatenate([[inv.mass], inv.first_moment, inv.s_bar.ravel()])
        return weights[:, None] * np.asarray(g, dtype=float)

    def constraints(self):
        """The carrier rows c_aj . d_b - q_j delta_ab = 0 of every elastic coordinate (module
        docstring) as one ``QuadraticForm`` over the local coordinates [d_1, d_2, d_3, c_1j, c_2j,
        c_3j, q_j]."""
        n = self.n_elastic
        select = np.zeros((6, 3, 18))
        select[np.arange(6)[:, None], np.arange(3), 3 * np.arange(6)[:, None] + np.arange(3)] = 1.0
        H = np.zeros((9, 19, 19))
        g = np.zeros((9, 19))
        for a in range(3):
            for b in range(3):
                H[3 * a + b, :18, :18] = dot_form(select[3 + a], select[b])
                g[3 * a + b, 18] = -float(a == b)
        dofs = np.column_stack([np.broadcast_to(self.d, (n, 9)), self.carriers.reshape(n, 9), self.elastic])
        return QuadraticForm(dofs, [f"{self.name}.q{j + 1}" for j in range(n)], "carrier",
                             np.repeat(H[None], n, axis=0), np.repeat(g[None], n, axis=0))

    def _rows(self, X):
        """Rows [ux, uy, uz, psi, theta_y, theta_z] on q at body-frame point X on the centre line: (6, n)."""
        if self.n_elastic == 0:
            return np.zeros((6, 0))
        return self.beam.shape_at(np.asarray(X, dtype=float)[None, :])[0]

    def side(self, X, frame, oriented=False):
        """Local dofs (n_local,), point matrix (3, n_local) and the joint-frame axes (list of (3,
        n_local)) at material point X for a joint frame (3, 3), columns = axes in body coordinates; the
        axes turn with the section (module docstring) whether or not the side uses them
        (``oriented``), at no extra unknowns."""
        rows = self._rows(X)
        used = np.flatnonzero(np.any(np.abs(rows) > 1e-14 * max(1.0, np.abs(rows).max(initial=0.0)), axis=0))
        S, Theta = rows[:3, used], rows[3:, used]  # (3, u) each

        def carrier_blocks(coefficients):  # (3, u) on c_aj -> (3, 9 u): [c_1j, c_2j, c_3j]_j with c_a I
            return np.kron(coefficients.T.reshape(1, -1), np.eye(3))

        point = np.concatenate([kin.point_matrix(X)[0], carrier_blocks(S)], axis=1)
        axes = [np.concatenate([kin.direction_matrix(a)[0], carrier_blocks(np.cross(Theta.T, a).T)], axis=1)
                for a in frame.T]
        return np.concatenate([self.rigid, self.carriers[used].ravel()]), point, axes

    def elastic_coordinates(self, q):
        """The body's elastic coordinates (..., n_coordinates of the ``BeamBody``) for coordinates q
        (..., n)."""
        return q[..., self.elastic]

    def with_elastic(self, q, v, elastic, rate=None):
        """Copies of the coordinates q and velocities v (n,) whose body has the elastic coordinates
        ``elastic`` and their ``rate`` (default zero): the carriers c_aj = q_j d_a and their rates
        q_j' d_a + q_j d_a', with the frame's d and d' of q and v."""
        q, v = np.array(q, dtype=float), np.array(v, dtype=float)
        elastic = np.asarray(elastic, dtype=float)
        rate = np.zeros_like(elastic) if rate is None else np.asarray(rate, dtype=float)
        d, d_rate = q[self.d].reshape(3, 3), v[self.d].reshape(3, 3)  # rows d_a
        q[self.elastic], v[self.elastic] = elastic, rate
        q[self.carriers] = elastic[:, None, None] * d
        v[self.carriers] = rate[:, None, None] * d + elastic[:, None, None] * d_rate
        return q, v

    def _displacements(self, q, S):
        """sum_j S_aj c_aj for shape rows S (..., P, 3, n) and coordinates q (..., n_global): (..., P, 3)."""
        return np.einsum("paj,...jab->...pb", S, q[..., self.carriers])

    def positions(self, q, X):
        """World positions (..., P, 3) of body-frame points X (P, 3) for coordinates q (..., n_global);
        applied to velocities, the material velocities (the map is linear)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        S = self.beam.shape_at(X)[:, :3] if self.n_elastic else np.zeros((len(X), 3, 0))
        return kin.material_points(q[..., self.rigid], X) + self._displacements(q, S)

    def element_points(self, q, xi):
        """World positions (..., K, P, 3) of the points ``xi`` (P,) of every element for coordinates q
        (..., n), without locating the points: the carriers mapped to nodal carriers by the basis
        (q_nodal = B q), then the elements' shape rows. Linear in q: applied to velocities, the
        material velocities."""
        elements = self.beam.elements
        rigid = kin.material_points(q[..., self.rigid], elements.positions(xi).reshape(-1, 3))
        rows = elements.body_shape(np.asarray(xi, dtype=float))  # (K, P, 3, 12)
        carriers = q[..., self.carriers]  # (..., n, 3, 3)
        flat = np.moveaxis(carriers, -3, 0).reshape(self.n_elastic, -1)
        nodal = np.moveaxis(np.asarray(self.beam.basis @ flat).reshape((-1,) + carriers.shape[:-3] + (3, 3)), 0, -3)
        u = np.einsum("kpam,...kmab->...kpb", rows, nodal[..., elements.dofs, :, :])
        return rigid.reshape(u.shape) + u
