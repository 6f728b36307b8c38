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
    """``slots`` (S,) first coordinate of each slot, ``A``/``B`` (S, S) sparse, ``reference`` the slots
    of the bodies' reference points (phi), ``n`` the number of coordinates; ``scalars`` the scalar
    massive coordinates with their mass matrix ``S`` (sparse)."""

    def __init__(self, dim, n, slots, A, B, reference, scalars=(), S=None):
        self.dim, self.n = dim, n
        self.slots = np.asarray(slots, dtype=np.int64)
        self.A, self.B = sp.csr_matrix(A), sp.csr_matrix(B)
        self.reference = np.asarray(reference, dtype=np.int64)
        index = self.slots[:, None] + np.arange(dim)  # (S, dim) coordinates of each slot
        self._index = index
        # A (x) I: (i, a)-(k, a) gets A_ik
        a, b = self.A.tocoo(), self.B.tocoo()
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

    def kinetic(self, v):
        """1/2 v.M v of one state (n,) or a history (..., n)."""
        v = np.asarray(v)
        flat = v.reshape(-1, self.n)
        out = 0.5 * np.einsum("fi,fi->f", flat, (self.matrix @ flat.T).T)
        return out.reshape(v.shape[:-1])

    @staticmethod
    def _times(matrix, V):
        """sum_k matrix_ik V_fkd for a history of slot vectors V (F, S, dim)."""
        F, S, dim = V.shape
        flat = matrix @ V.transpose(1, 0, 2).reshape(S, F * dim)
        return np.asarray(flat).reshape(S, F, dim).transpose(1, 0, 2)

    def momenta(self, q, v):
        """Linear momentum (..., dim) and angular momentum about the origin (..., 1 or 3)."""
        q, v = np.asarray(q), np.asarray(v)
        lead = q.shape[:-1]
        Q = q.reshape(-1, self.n)[:, self._index]  # (F, S, dim)
        V = v.reshape(-1, self.n)[:, self._index]
        AV, BV = self._times(self.A, V), self._times(self.B, V)
        linear = AV[:, self.reference].sum(axis=1)
        if self.dim == 2:
            J_BV = np.stack([-BV[..., 1], BV[..., 0]], axis=-1)
            linear = linear + J_BV[:, self.reference].sum(axis=1)
            angular = (np.sum(Q[..., 0] * AV[..., 1] - Q[..., 1] * AV[..., 0], axis=1)
                       + np.sum(Q * BV, axis=(1, 2)))[:, None]
        else:
            angular = np.cross(Q, AV).sum(axis=1)
        return linear.reshape(*lead, self.dim), angular.reshape(*lead, -1)
