"""Material damping of a flexible beam body, on its elastic coordinates: modal damping ratios or
Rayleigh damping.

The damping matrix D acts on the body's elastic coordinates e (``BeamBody.n_coordinates``: the nodal
displacements and rotations measured in the body's floating frame under its reference conditions, or
its modal coordinates), with the body's elastic mass M and stiffness K in the same coordinates (the
FE matrices, ``BeamBody.mass`` and ``stiffness``):

- Rayleigh damping [Clough1993]: D = alpha M + beta K, whose ratio in mode i is
  zeta_i = alpha / (2 omega_i) + beta omega_i / 2;
- modal damping [Clough1993]: with the mass-normalised modes Phi of K Phi = M Phi diag(omega^2),
  Phi^T M Phi = I (all of them: the elastic modes of the body under its reference conditions),
  D = M Phi diag(2 zeta_i omega_i) Phi^T M (``modes.lowest_modes``, all of them), so that
  Phi^T D Phi = diag(2 zeta_i omega_i): mode i has
  the ratio zeta_i exactly. ``ratio`` is one zeta for every mode or a list, mode 1 first; the modes
  beyond the list are undamped. D is dense on the body's elastic coordinates (n^2 entries, its set-up
  a dense eigenproblem of n^3 operations): for a few hundred coordinates; Rayleigh damping keeps the
  sparsity of M and K on any mesh.

The reference conditions remove the rigid motions from e (``body``), so D never acts on them: e is
invariant under every rigid motion of the body, and its rate is zero for a rigid velocity whatever the
deformation (``forces.viscous``, which applies D).
"""
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..forces.viscous import ViscousDamping
from .modes import lowest_modes


@dataclass(frozen=True)
class Damping:
    """A beam body's material damping (module docstring): ``ratio`` (modal: zeta >= 0, one for every
    mode or a tuple, mode 1 first) or the Rayleigh coefficients ``alpha`` [1/s] and ``beta`` [s]
    (>= 0), not both."""

    ratio: float | tuple | None = None
    alpha: float = 0.0
    beta: float = 0.0

    def __post_init__(self):
        if self.ratio is not None:
            if self.alpha or self.beta:
                raise ValueError("give either ratio (modal damping) or alpha and beta (Rayleigh damping), not both")
            ratios = np.atleast_1d(np.asarray(self.ratio, dtype=float))
            if ratios.ndim != 1 or not ratios.size or not np.all(np.isfinite(ratios) & (ratios >= 0)):
                raise ValueError(f"damping ratio must be a finite number >= 0 or a list of them, got {self.ratio}")
            object.__setattr__(self, "ratio", float(ratios[0]) if np.ndim(self.ratio) == 0 else tuple(ratios))
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"damping {name} must be a finite number >= 0, got {value}")

    @property
    def modal(self):
        return self.ratio is not None

    def ratios(self, count):
        """The modal ratios zeta of ``count`` modes, lowest first (0 beyond the list)."""
        if np.ndim(self.ratio) == 0:
            return np.full(count, float(self.ratio))
        zeta = np.zeros(count)
        given = np.asarray(self.ratio)[:count]
        zeta[: given.size] = given
        return zeta


def damping_matrix(damping, mass, stiffness):
    """The damping matrix D (sparse CSR, n x n) of ``damping`` on elastic coordinates with mass ``mass``
    and stiffness ``stiffness`` (sparse, n x n; module docstring)."""
    if not damping.modal:
        return sp.csr_matrix(damping.alpha * sp.csr_matrix(mass) + damping.beta * sp.csr_matrix(stiffness))
    M = sp.csr_matrix(mass)
    if not M.shape[0]:
        return sp.csr_matrix(M.shape)
    omega2, Phi = lowest_modes(sp.csr_matrix(stiffness), M, M.shape[0])  # all of them, Phi^T M Phi = I
    rates = 2.0 * damping.ratios(len(omega2)) * np.sqrt(np.maximum(omega2, 0.0))
    MPhi = M @ Phi
    return sp.csr_matrix((MPhi * rates) @ MPhi.T)


def _world_entries(world):
    """The damped coordinates of a world-vector beam (``world.embedding``): its elastic coordinates
    e = B^T (nodal local values) with the Boolean basis B of the kept nodal coordinates, each a
    dot product of a director and a nodal vector (d_a . w_k; in the plane theta_k = d_2 . s_k, in
    space theta_z = d_2 . s_k, theta_y = -d_3 . s_k) or the twist psi_k itself. Returns the rows'
    (sign, director index or -1, first global index of the vector or the twist)."""
    beam, dim = world.beam, world.dim
    kept = sp.csc_matrix(beam.basis).indices  # the nodal coordinate of each elastic one
    node, component = np.divmod(kept, beam.elements.node_size)
    if dim == 2:  # [w . d_1, w . d_2, s . d_2]
        table = [(1.0, 0, world.w[:, 0]), (1.0, 1, world.w[:, 0]), (1.0, 1, world.s[:, 0])]
    else:  # [w . d_1, w . d_2, w . d_3, psi, -s . d_3, s . d_2]
        table = [(1.0, 0, world.w[:, 0]), (1.0, 1, world.w[:, 0]), (1.0, 2, world.w[:, 0]), (1.0, -1, world.psi),
                 (-1.0, 2, world.s[:, 0]), (1.0, 1, world.s[:, 0])]
    sign = np.array([table[c][0] for c in range(len(table))])[component]
    director = np.array([table[c][1] for c in range(len(table))], dtype=np.int64)[component]
    start = np.stack([table[c][2] for c in range(len(table))])[component, node].astype(np.int64)
    return sign, director, start


def jacobian_entries(flexible):
    """The entries of the Jacobian of a flexible body's elastic coordinates e(q) (``forces.viscous``):
    rows (its elastic coordinates, from 0), global columns, coefficients and global sources (-1:
    constant), grouped by row. A carrier body's elastic coordinates are model coordinates
    (``ffr``, ``spatial_ffr``: e = q[elastic]); a world-vector beam's are bilinear (``_world_entries``)."""
    if not hasattr(flexible, "unknowns"):  # carriers: the elastic coordinates themselves
        count = len(flexible.elastic)
        return np.arange(count), np.asarray(flexible.elastic), np.ones(count), -np.ones(count, dtype=np.int64)
    dim = flexible.dim
    sign, director, start = _world_entries(flexible)
    rows = np.arange(len(sign))
    linear, bilinear = director < 0, director >= 0
    d = flexible.d.reshape(dim, dim)[director[bilinear]]  # (B, dim): the global indices of each row's d_a
    vector = start[bilinear, None] + np.arange(dim)  # (B, dim): those of its vector
    pairs = np.concatenate([d, vector], axis=1)  # entries (d_a, vector) with sources (vector, d_a), row by row
    sources = np.concatenate([vector, d], axis=1)
    rows = np.concatenate([rows[linear], np.repeat(rows[bilinear], 2 * dim)])
    columns = np.concatenate([start[linear], pairs.ravel()])
    coefficients = np.concatenate([sign[linear], np.repeat(sign[bilinear], 2 * dim)])
    sources = np.concatenate([-np.ones(linear.sum(), dtype=np.int64), sources.ravel()])
    order = np.argsort(rows, kind="stable")  # grouped by row
    return rows[order], columns[order], coefficients[order], sources[order]


def viscous_damping(bodies):
    """The ``forces.viscous.ViscousDamping`` of the flexible ``bodies`` (their embeddings, each with a
    ``BeamBody`` whose ``damping`` is set): one component, D block-diagonal over the bodies."""
    entries, blocks, offset = [], [], 0
    for f in bodies:
        rows, columns, coefficients, sources = jacobian_entries(f)
        entries.append((rows + offset, columns, coefficients, sources))
        beam = f.beam
        blocks.append(damping_matrix(beam.damping, beam.mass, beam.stiffness))
        offset += beam.n_coordinates
    rows, columns, coefficients, sources = (np.concatenate(part) for part in zip(*entries))
    dofs = np.unique(np.concatenate([columns, sources[sources >= 0]]))
    local = lambda g: np.searchsorted(dofs, g)  # noqa: E731
    return ViscousDamping(dofs, rows, local(columns), coefficients, np.where(sources >= 0, local(sources), -1),
                          sp.block_diag(blocks, format="csr"), [f.name for f in bodies])
