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

from ..numerics import kinematics as kin

J = np.array([[0.0, -1.0], [1.0, 0.0]])


def _carrier_blocks(s1, s2):
    """(P, 2, 2 n) blocks [S_1j I + S_2j J]_j for rows s1, s2 (P, n)."""
    blocks = s1[..., None, None] * np.eye(2) + s2[..., None, None] * J  # (P, n, 2, 2)
    return np.swapaxes(blocks, -3, -2).reshape(*s1.shape[:-1], 2, 2 * s1.shape[-1])


class FlexibleBody:
    """The director-form coordinates of one ``BeamBody``. ``offset``: its ``[phi, d_1, d_2]`` in the
    global vector; ``elastic``: the global indices of its elastic coordinates (n,); ``carriers``: those
    of its carrier vectors (n, 2)."""

    def __init__(self, name, beam, stiffening, offset, elastic, carriers):
        self.name, self.beam, self.stiffening = name, beam, stiffening
        self.rigid = offset + np.arange(6)
        self.elastic, self.carriers = np.asarray(elastic), np.asarray(carriers).reshape(-1, 2)
        inv = beam.invariants
        self.mass = inv.mass
        self.centre = inv.first_moment / inv.mass  # centre of mass in the body frame

    @property
    def n_elastic(self):
        return len(self.elastic)

    def slot_blocks(self):
        """Mass-matrix coefficients (A, B) over the body's slots [phi, d_1, d_2, c_1..c_n] (module
        docstring): A symmetric, B skew, both sparse (3 + n, 3 + n)."""
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
        return A, B

    def gravity_weights(self, g):
        """Generalised gravity force int rho N^T g on [phi, d_1, d_2] (6,) and the carriers (n, 2)."""
        inv = self.beam.invariants
        rigid = np.concatenate([inv.mass * g, inv.first_moment[0] * g, inv.first_moment[1] * g])
        carriers = inv.s_bar[0][:, None] * g + inv.s_bar[1][:, None] * (J.T @ g)
        return rigid, carriers

    def _rows(self, X):
        """Elastic rows [u_1, u_2, theta] at body-frame point X on the centre line: (3, n)."""
        if self.n_elastic == 0:
            return np.zeros((3, 0))
        return self.beam.shape_at(np.asarray(X, dtype=float)[None, :])[0]

    def side(self, X, frame):
        """Local dofs (n_local,), point matrix (2, n_local) and the joint-frame axes (list of (2,
        n_local)) at material point X for a joint frame (2, 2), columns = axes in body coordinates."""
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

    def positions(self, q, X):
        """World positions (..., P, 2) of body-frame points X (P, 2) for coordinates q (..., n_global)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        rows = self.beam.shape_at(X) if self.n_elastic else np.zeros((len(X), 3, 0))
        phi, d1, d2 = (q[..., self.rigid[2 * i : 2 * i + 2]] for i in range(3))
        c = q[..., self.carriers]  # (..., n, 2)
        x = phi[..., None, :] + X[:, 0, None] * d1[..., None, :] + X[:, 1, None] * d2[..., None, :]
        return (x + np.einsum("pj,...ja->...pa", rows[:, 0], c)
                + np.einsum("pj,...ja->...pa", rows[:, 1], c @ J.T))
