"""Where the entries of one constraint family outside the affine batch go in the Newton matrix of the
saddle-point system (``saddle``), and how they are added to its CSC data."""
import numpy as np

from ..numerics.lazy import compiled
from ..numerics.pattern import block_entries

SCATTER = "femdyn.numerics.scatter"  # numba: imported where the refill runs


class FamilyLayout:
    """Where the Newton-matrix entries of constraint family ``c`` go -- its tangent block, the force
    directions Gbar^T and the Jacobian G, in this order, appended to ``rows``/``cols`` -- and what the
    assembly needs to fill them. ``position``: place of each constraint row among the active ones
    (-1: dropped); the multiplier unknowns follow the n coordinates."""

    def __init__(self, c, position, n, rows, cols):
        t_i, t_j = block_entries(c.dofs, c.dofs, c.tangent_mask)
        r_g, c_g = np.nonzero(c.jacobian_mask)
        r_f, c_f = np.nonzero(c.force_mask)
        g_rows, g_cols = position[c.rows[:, r_g]].ravel(), c.dofs[:, c_g].ravel()
        f_rows, f_cols = position[c.rows[:, r_f]].ravel(), c.dofs[:, c_f].ravel()
        self.g_keep, self.f_keep = g_rows >= 0, f_rows >= 0
        rows += [t_i, f_cols[self.f_keep], n + g_rows[self.g_keep]]
        cols += [t_j, n + f_rows[self.f_keep], g_cols[self.g_keep]]
        phi_rows = position[c.rows]
        self.c, self.n, self.f_cols, self.lam_rows = c, n, f_cols, c.rows[:, r_f]
        self.phi_keep, self.phi_at = phi_rows >= 0, n + phi_rows[phi_rows >= 0]
        self.servo = c.time_dependent
        self.compiled = hasattr(c, "contribute")  # evaluated and placed by its own kernel (``places``)

    def add(self, values, scale, tangent, Gbar, G, T):
        """Adds the family's Newton-matrix entries -- ``tangent`` T, scale Gbar, scale G -- to the CSC
        data ``values`` at their places ``at`` (set by ``SaddleSystem``)."""
        add_at(values, self.at, np.concatenate([tangent * T.ravel(), scale * Gbar.ravel()[self.f_keep],
                                              scale * G.ravel()[self.g_keep]]))

    def forces(self, Gbar, lam):
        """The constraint forces Gbar^T lam (n,) of the family; ``Gbar`` at ``force_mask`` (or 1.0:
        the Boolean input matrix B of a servo family), ``lam`` all m multipliers."""
        return np.bincount(self.f_cols, weights=(Gbar * lam[self.lam_rows]).ravel(), minlength=self.n)


def add_at(values, at, data, factor=1.0):
    """values[at] += factor data, duplicates summed in order (``scatter.add``)."""
    compiled(SCATTER).add(values, at, np.ascontiguousarray(data, dtype=np.float64).reshape(-1), float(factor))
