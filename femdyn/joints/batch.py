"""All quadratic constraint families of a model as one batch of sparse linear maps.

A ``QuadraticConstraint`` has an affine Jacobian, G(q) = g + H q on its structural non-zeros
("slots"), and phi = 1/2 (G + g).q + c row by row (``joints.base``). Stacking the slots of every
quadratic family gives global arrays and two constant sparse matrices (CSR arrays), H of G and the
Hessians at the tangent's entries:

    G(q)             = g + H q                          (slots)
    phi(q)           = 1/2 rows((G + g) * q[slot col]) + c
    Gbar^T lam       = cols(Gbar * lam[slot row])         (Gbar = (G(qa) + G(qb))/2, 000 eq. 26)
    d(Gbar^T lam)/dq = 1/2 Hl @ lam                     (the tangent entries)

so that one Newton iteration evaluates every orthonormality, carrier and joint-pair row, and writes
the residual and the Newton-matrix data, in one call of the compiled ``kernels.residual``.
"""
import numpy as np
import scipy.sparse as sp

from ..numerics.lazy import compiled, floats

KERNELS = __package__ + ".kernels"  # numba: imported where the kernels run


class AffineConstraints:
    """The quadratic families ``families`` of a model with n coordinates and m constraint rows."""

    def __init__(self, families, n, m):
        slot_row, slot_col, g, h_rows, h_cols, h_vals, t_rows, t_cols, t_i, t_j, t_vals = ([] for _ in range(11))
        self.c = np.zeros(m)
        self.rows = np.concatenate([f.rows.ravel() for f in families]) if families else np.zeros(0, int)
        slots = tangents = 0
        for f in families:
            g_f, h_f, j, to_slot, _, i, c_f, H_t = f._affine
            r, _ = np.nonzero(f.jacobian_mask)
            K, S = g_f.shape
            slot_row.append(f.rows[:, r].ravel())
            slot_col.append(f.dofs[:, i].ravel())
            g.append(g_f.ravel())
            slot_of = np.argmax(to_slot, axis=1)  # slot of each Hessian entry
            h_rows.append((slots + np.arange(K)[:, None] * S + slot_of[None, :]).ravel())
            h_cols.append(f.dofs[:, j].ravel())
            h_vals.append(h_f.ravel())
            self.c[f.rows] = c_f
            ti, tj = np.nonzero(f.tangent_mask)
            P = ti.size
            entry = tangents + np.arange(K)[:, None, None] * P + np.arange(P)[None, None, :]  # (K, 1, P)
            t_rows.append(np.broadcast_to(entry, (K, f.m, P)).ravel())
            t_cols.append(np.broadcast_to(f.rows[:, :, None], (K, f.m, P)).ravel())
            t_vals.append(0.5 * H_t.ravel())
            t_i.append(f.dofs[:, ti].ravel())
            t_j.append(f.dofs[:, tj].ravel())
            slots += K * S
            tangents += K * P
        cat = lambda parts, dtype=float: np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)  # noqa: E731
        slot_row, slot_col = cat(slot_row, np.int64), cat(slot_col, np.int64)
        order = np.argsort(slot_row, kind="stable")  # slots grouped by row: the CSR of G
        self.slot_row, self.slot_col, self.g = slot_row[order], slot_col[order], cat(g)[order]
        self._G_indptr = np.concatenate([[0], np.cumsum(np.bincount(self.slot_row, minlength=m))]).astype(np.int64)
        H = _csr((cat(h_vals), (cat(h_rows, np.int64), cat(h_cols, np.int64))), (slots, n))[order]
        T = _csr((cat(t_vals), (cat(t_rows, np.int64), cat(t_cols, np.int64))), (tangents, m))
        self._H = tuple(np.ascontiguousarray(a, dtype=d) for a, d in zip((H.indptr, H.indices, H.data),
                                                                          (np.int64, np.int64, float)))
        self._T = tuple(np.ascontiguousarray(a, dtype=d) for a, d in zip((T.indptr, T.indices, T.data),
                                                                          (np.int64, np.int64, float)))
        self.tangent_i, self.tangent_j = cat(t_i, np.int64), cat(t_j, np.int64)

    @staticmethod
    def split(constraints):
        """The families that can join the batch (plain ``QuadraticConstraint`` linearisation) and
        the others."""
        from .base import QuadraticConstraint
        batch = [c for c in constraints if type(c).linearize is QuadraticConstraint.linearize]
        return batch, [c for c in constraints if not any(c is b for b in batch)]

    def place(self, position, n, rows, cols):
        """Appends the batch's Newton-matrix entries -- tangent, Gbar^T, G -- to ``rows``/``cols``;
        ``position``: place of each constraint row among the active ones (-1: dropped), the
        multipliers following the n coordinates."""
        g_rows = position[self.slot_row]
        self._keep = np.flatnonzero(g_rows >= 0)
        phi_rows = position[self.rows]
        self._phi_at = n + phi_rows[phi_rows >= 0]  # where the kept rows' phi go in the residual
        self._phi_rows = self.rows[phi_rows >= 0]
        rows += [self.tangent_i, self.slot_col[self._keep], n + g_rows[self._keep]]
        cols += [self.tangent_j, n + g_rows[self._keep], self.slot_col[self._keep]]
        # what ``kernels.residual`` takes after ``at``, fixed from here on (G: its work array)
        self.arguments = (np.empty(self.g.size), self.g, self.c, self.slot_row, self.slot_col, self._G_indptr,
                          *self._H, *self._T, self._keep, self._phi_rows, self._phi_at)

    def contribute(self, G_a, qb, lam, R, scale, tangent=None, values=None, at=None):
        """Writes ``scale`` phi(qb) into the batch's rows of the residual R and adds Gbar^T lam to
        R[:n]; with ``tangent`` (else the residual only) adds the Newton-matrix entries in ``place``
        order -- the tangent multiplied by ``tangent``, scale Gbar, scale G -- to the CSC data
        ``values`` at their places ``at``; ``G_a`` None: the mid-point is qb itself (Gbar = G(qb))."""
        kernels = compiled(KERNELS)
        if tangent is None:
            values, at = NONE, NO_PLACES
        kernels.residual(floats(qb), NONE if G_a is None else G_a, floats(lam), float(scale),
                         0.0 if tangent is None else float(tangent), R, values, at, *self.arguments)

    def jacobian(self, q):
        """G at the slots."""
        kernels = compiled(KERNELS)
        G = np.empty(self.g.size)
        kernels.jacobian(floats(q), self.g, *self._H, G)
        return G

    def phi(self, q):
        """phi(q) at ``rows``."""
        return self.phi_history(np.asarray(q)[None])[0]

    def phi_history(self, Q):
        """phi at ``rows`` for each row of Q (F, n), (F, len(rows))."""
        kernels = compiled(KERNELS)
        return kernels.phis(np.ascontiguousarray(Q, dtype=float), self.rows, self.g, self.c, self.slot_col,
                            self._G_indptr, *self._H)


NONE = np.zeros(0)  # no G(qa): the kernels then take Gbar = G(qb); no values
NO_PLACES = np.zeros(0, dtype=np.int64)


def _csr(coo, shape):
    """The CSR matrix of (values, (rows, cols)), duplicates summed."""
    matrix = sp.csr_matrix(coo, shape=shape)
    matrix.sum_duplicates()
    return matrix
