"""The constant mass matrix of a model and the momenta it defines.

Every massive coordinate belongs to a *slot*: a dim-vector of the global vector (a body's centre or
reference point phi, its directors d_a, the carriers of a flexible body). The kinetic energy is
T = 1/2 sum_ik v_i.(A_ik I + B_ik J) v_k over slots, with A symmetric and B skew (B = 0 in space and
for rigid bodies; J the rotation by 90 degrees), so M = A (x) I + B (x) J. Some massive coordinates
are scalars instead, with T = 1/2 sum_ij S_ij v_i v_j: the twist angles of spatial beams
(``beam.world``), whose kinetic energy rho I_p int psi'^2 / 2 is invariant under rotations of the
slots. Augmented joint coordinates, the elastic coordinates of the carrier embedding (``beam.ffr``)
and the section carriers of the beams' material points are massless (000 eq. 27).

Momenta follow from x = sum_i N_i q_i with the slots' shape coefficients: p = int rho x' is the
reference-point row of M times v (summed over bodies), and the angular momentum about the origin is
L = int rho x x x' = sum_ik A_ik q_i x v_k + B_ik q_i . v_k (in the plane x x Jv = x.v). The scalar
coordinates take no part in them: a rotation of all slots leaves them and their kinetic energy
unchanged, so they carry no momentum of the symmetry (Noether).
"""
import numpy as np
import scipy.sparse as sp


class Inertia:
    """The mass matrix ``matrix`` (n, n, CSR) from ``slots`` (S,) first coordinate of each slot,
    ``A``/``B`` (S, S) sparse, ``scalars`` the scalar massive coordinates with their mass matrix ``S``
    (sparse); ``reference`` the slots of the bodies' reference points (phi), ``n`` the number of
    coordinates."""

    def __init__(self, dim, n, slots, A, B, reference, scalars=(), S=None):
        self.dim, self.n = dim, n
        self.slots = np.asarray(slots, dtype=np.int64)
        self.reference = np.asarray(reference, dtype=np.int64)
        index = self.slots[:, None] + np.arange(dim)  # (S, dim) coordinates of each slot
        self._index = index
        # A (x) I: (i, a)-(k, a) gets A_ik
        a, b = sp.coo_matrix(A), sp.coo_matrix(B)
        rows, cols, data = [index[a.row].ravel()], [index[a.col].ravel()], [np.repeat(a.data, dim)]
        if dim == 2 and b.nnz:  # J = [[0, -1], [1, 0]]: (i, x)-(k, y) gets -B, (i, y)-(k, x) gets +B
            rows += [index[b.row, 0], index[b.row, 1]]
            cols += [index[b.col, 1], index[b.col, 0]]
            data += [-b.data, b.data]
        scalars = np.asarray(scalars, dtype=np.int64)
        if scalars.size:
            s = sp.coo_matrix(S)
            rows, cols, data = rows + [scalars[s.row]], cols + [scalars[s.col]], data + [s.data]
        self.matrix = sp.csr_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                                    shape=(n, n))

    def _products(self, v):
        """The rows v (F, n) of a state or history and M v (F, n), one sparse product for all rows."""
        flat = np.asarray(v).reshape(-1, self.n)
        return flat, (self.matrix @ flat.T).T

    def kinetic(self, v):
        """1/2 v.M v of one state (n,) or a history (..., n)."""
        v = np.asarray(v)
        flat, Mv = self._products(v)
        return (0.5 * np.einsum("fi,fi->f", flat, Mv)).reshape(v.shape[:-1])

    def momenta(self, q, v):
        """Linear momentum (..., dim) and angular momentum about the origin (..., 1 or 3)."""
        return self.kinetic_momenta(q, v)[1:]

    def kinetic_momenta(self, q, v):
        """The kinetic energy (``kinetic``), linear momentum (..., dim) and angular momentum about the
        origin (..., 1 or 3) of one state or a history, from one product M v: on the slots
        (M v)_i = sum_k A_ik v_k + B_ik J v_k, so p = sum over the reference slots of (M v)_i and
        L = sum_i q_i x (M v)_i (in the plane q x J w = q.w gives the B terms of the module docstring);
        the scalar coordinates are no slot's."""
        q, v = np.asarray(q), np.asarray(v)
        lead = q.shape[:-1]
        flat, Mv = self._products(v)
        kinetic = 0.5 * np.einsum("fi,fi->f", flat, Mv)
        Q = q.reshape(-1, self.n)[:, self._index]  # (F, S, dim)
        P = Mv[:, self._index]
        linear = P[:, self.reference].sum(axis=1)
        if self.dim == 2:
            angular = np.sum(Q[..., 0] * P[..., 1] - Q[..., 1] * P[..., 0], axis=1)[:, None]
        else:
            angular = np.cross(Q, P).sum(axis=1)
        return kinetic.reshape(lead), linear.reshape(*lead, self.dim), angular.reshape(*lead, -1)
