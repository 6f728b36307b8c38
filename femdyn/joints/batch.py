"""All quadratic constraint families of a model as one batch of sparse linear maps.

A ``QuadraticConstraint`` has an affine Jacobian, G(q) = g + H q on its structural non-zeros
("slots"), and phi = 1/2 (G + g).q + c row by row (``joints.base``). Stacking the slots of every
quadratic family gives global arrays and three constant sparse matrices:

    G(q)             = g + Hq @ q                       (slots)
    phi(q)           = 1/2 rows((G + g) * q[slot col]) + c
    Gbar^T lam       = cols(Gbar * lam[slot row])         (Gbar = (G(qa) + G(qb))/2, 000 eq. 26)
    d(Gbar^T lam)/dq = 1/2 Hl @ lam                     (the tangent entries)

so that one Newton iteration evaluates every orthonormality, carrier and joint-pair row with a few
sparse products instead of a Python call per family.
"""
import numpy as np
import scipy.sparse as sp

from ..numerics.linalg import RowPattern, operator


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
        self._G = RowPattern(self.slot_row, self.slot_col, (m, n))
        self._row_sums = sp.csr_matrix((np.ones(slots), (self.slot_row, np.arange(slots))), shape=(m, slots))
        self.H = operator(sp.csr_matrix((cat(h_vals), (cat(h_rows, np.int64), cat(h_cols, np.int64))),
                                        shape=(slots, n))[order])
        self.tangent = operator(sp.csr_matrix((cat(t_vals), (cat(t_rows, np.int64), cat(t_cols, np.int64))),
                                              shape=(tangents, m)))
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
        self._keep = g_rows >= 0
        phi_rows = position[self.rows]
        self._phi_at = n + phi_rows[phi_rows >= 0]  # where the kept rows' phi go in the residual
        self._phi_rows = self.rows[phi_rows >= 0]
        rows += [self.tangent_i, self.slot_col[self._keep], n + g_rows[self._keep]]
        cols += [self.tangent_j, n + g_rows[self._keep], self.slot_col[self._keep]]

    def contribute(self, G_a, qb, lam, R, scale, tangent=1.0):
        """Writes ``scale`` phi(qb) into the batch's rows of the residual R; returns Gbar^T lam and
        the Newton-matrix data in ``place`` order -- the tangent multiplied by ``tangent`` (None: the
        residual only, no data), Gbar, G; ``G_a`` None: the mid-point is qb itself (Gbar = G(qb))."""
        G_b = self.jacobian(qb)
        G_bar = G_b if G_a is None else 0.5 * (G_a + G_b)
        R[self._phi_at] = scale * self._phi(G_b, qb)[self._phi_rows]
        force = self._G.transpose_times(G_bar, lam)
        if tangent is None:
            return force, []
        G = scale * G_b[self._keep]
        return force, [tangent * (self.tangent @ lam), G if G_a is None else scale * G_bar[self._keep], G]

    def jacobian(self, q):
        """G at the slots."""
        return self.g + self.H @ q

    def _phi(self, G, q):
        """phi(q) at all m rows (zero outside the batch's) from G = G(q)."""
        return self._G.times(0.5 * (G + self.g), q) + self.c

    def phi(self, q):
        """phi(q) at ``rows``."""
        return self._phi(self.jacobian(q), q)[self.rows]

    def phi_history(self, Q):
        """phi at ``rows`` for each row of Q (F, n), (F, len(rows)): the products for all F at once."""
        G = self.g[:, None] + self.H @ Q.T  # (slots, F)
        return (self._row_sums @ (0.5 * (G + self.g[:, None]) * Q.T[self.slot_col]) + self.c[:, None])[self.rows].T
