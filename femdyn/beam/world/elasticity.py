"""The elastic forces of all world-vector beams of a model (``embedding``) as one ``forces.Force``.

The strains, their energy and Gonzalez's discrete gradient are those of ``kernels``; this module
gathers the element data of every beam once -- the strains' coefficients (t, beta, lambda, gamma, C),
their stiffnesses k and the elements' coordinates among the force's ``dofs`` (each beam's directors
and its unknowns w, s, psi) -- and the fixed sparsity pattern of the tangent: per element the full
block over [d, w, s] and the twist block, without the removed coordinates. Strain data per element
(l its length, xi_g = 1/2 -+ 1/(2 sqrt 3) the Gauss points, b_j the Hermite coefficients of u''):

    axial:   t = t_e (tangent on the directors), beta = (-1, 1, 0, 0) / l, gamma, k = EA l
    bending: t = n_e (plane) or e_2, e_3 (space), beta = b(xi_g), k = EI l / 2 per point
    torsion: lambda = (-1, 1) / l, k = GJ l
"""
import numpy as np

from ...forces.base import Force
from ...numerics.lazy import compiled
from ..elements import GAUSS_WEIGHTS, GAUSS_XI, curvature_rows, slope_rows
from .hermite import hermite

KERNELS = __package__ + ".kernels"  # numba is imported where the kernels run (``numerics.lazy``)
BENDING_XI = 0.5 + np.array([-0.5, 0.5]) / np.sqrt(3.0)  # 2-point Gauss on [0, 1]


def _strain_data(world):
    """The element data of one beam (module docstring): t (K, ns, dim), beta (K, ns, 4),
    lam (K, ns, 2), gamma (K, ns), C (K, 4, 4), k (K, ns)."""
    dim, el, le = world.dim, world.beam.elements, world.length
    K = len(le)
    slopes = hermite(slope_rows(GAUSS_XI, le))  # (K, P, 4): u' coefficients at the quadrature points
    C = np.einsum("p,kpi,kpj->kij", GAUSS_WEIGHTS, slopes, slopes)  # exact: |u'|^2 is of degree 4
    curvature = hermite(curvature_rows(BENDING_XI, le))  # (K, 2, 4)
    zero4 = np.zeros((K, 4))
    axial_beta = np.column_stack([-1.0 / le, 1.0 / le, np.zeros(K), np.zeros(K)])
    if dim == 2:
        c, s = world.tangent.T
        directions = [np.column_stack([c, s]), np.column_stack([-s, c]), np.column_stack([-s, c])]
        betas = [axial_beta, curvature[:, 0], curvature[:, 1]]
        stiffness = [el.young * el.area * le] + [0.5 * el.young * el.inertia * le] * 2
    else:
        e = np.eye(3)
        directions = [np.broadcast_to(e[0], (K, 3))] + [np.broadcast_to(e[1], (K, 3))] * 2 + \
            [np.broadcast_to(e[2], (K, 3))] * 2 + [np.zeros((K, 3))]
        betas = [axial_beta, curvature[:, 0], curvature[:, 1], curvature[:, 0], curvature[:, 1], zero4]
        stiffness = ([el.young * el.area * le] + [0.5 * el.young * el.iz * le] * 2
                     + [0.5 * el.young * el.iy * le] * 2 + [el.shear * el.torsion * le])
    ns = len(betas)
    lam = np.zeros((K, ns, 2))
    if dim == 3:
        lam[:, -1] = np.column_stack([-1.0 / le, 1.0 / le])
    gamma = np.zeros((K, ns))
    gamma[:, 0] = float(world.stiffening)
    return (np.stack(directions, axis=1), np.stack(betas, axis=1), lam, gamma, C,
            np.column_stack(np.broadcast_arrays(*stiffness)))


class WorldElasticity(Force):
    """Elastic forces of the world beams ``worlds`` (all of one dimension, each with unknowns) in one
    component over ``dofs`` (1, n): each beam's directors and its unknowns, one beam after the other."""

    tangent_mask = True  # depends on q_n+1; the entries come from ``tangent_pattern``
    conservative = True  # Gonzalez's discrete gradient (``kernels``)

    def __init__(self, worlds):
        self.dim = dim = worlds[0].dim
        columns = np.concatenate([np.concatenate([w.d, w.unknowns]) for w in worlds])
        super().__init__(columns[None, :])
        index, data = [], []
        for world in worlds:
            connectivity = world.beam.elements.connectivity
            psi = world.psi[connectivity] if dim == 3 else np.zeros((len(connectivity), 0), dtype=np.int64)
            elements = np.arange(len(connectivity))
            global_index = np.concatenate([np.broadcast_to(world.d, (len(elements), dim * dim)),
                                           world.element_columns(elements), psi], axis=1)
            index.append(world.index_of(columns, global_index))
            data.append((world.turns(np.arange(len(connectivity))), *_strain_data(world)))
        self.index = np.ascontiguousarray(np.concatenate(index))
        self.data = tuple(np.ascontiguousarray(np.concatenate(parts)) for parts in zip(*data))
        E, nz = self.index.shape
        mask = np.zeros((nz, nz), dtype=bool)
        moving = dim * dim + 4 * dim
        mask[:moving, :moving] = mask[moving:, moving:] = True
        present = self.index >= 0
        keep = mask[None] & present[:, :, None] & present[:, None, :]  # (E, nz, nz)
        e, r, c = np.nonzero(keep)  # element by element, row by row: the order ``kernels.step`` writes
        self._pattern = (self.index[e, r], self.index[e, c])
        self._last = (None, None, None)  # (qa, qb) bytes, F, values: the step's force and tangent, asked for apart
        ns = self.data[1].shape[1]
        self._start = None  # the bytes of the qa whose strains and gradients ``_at_start`` holds
        self._at_start = (np.zeros((E, ns)), np.zeros((E, ns, nz)))
        self._arguments = (dim, self.index, *self.data)  # the kernels' element data, one tuple for every call
        self._no_tangent = np.zeros((1, 0))
        self._no_start = np.zeros((1, columns.size))  # ``loop_arguments``' qa of the continuous forms

    def tangent_pattern(self):
        return self._pattern

    def loop_arguments(self, qa):
        """What ``integrators.kernels.newton_loop`` takes to evaluate this force in its iterations
        (``kernels.step``'s arguments but the iterate's and the outputs): the step's start qa (1, n),
        or None for the continuous forms at each iterate, then whether the strains at qa are held
        already, and the element data. As ``_evaluate``, it records qa as the start whose strains the
        first iteration leaves held (the loop always evaluates the force in its first iteration)."""
        if qa is None:
            return (self._no_start, True, False, *self._arguments, *self._at_start)
        start = qa.tobytes()
        known, self._start = start == self._start, start
        return (qa, False, known, *self._arguments, *self._at_start)

    def _evaluate(self, qa, qb, same, tangent=True, start=None):
        """F (1, n) and the tangent's values (1, nnz) of ``kernels.step``, discrete from qa to qb or, with
        ``same``, continuous at qb; ``start``: the bytes of qa where the caller has them."""
        F = np.empty((1, self.dofs.shape[1]))
        values = np.empty((1, self._pattern[0].size)) if tangent else self._no_tangent
        if not same and start is None:
            start = qa.tobytes()
        known = not same and start == self._start
        compiled(KERNELS).step(qa, qb, same, *self._arguments, F, values, *self._at_start, known)
        if not same:
            self._start = start
        return F, values

    def _step(self, qa, qb):
        """Force and tangent of the step (``kernels.step``), evaluated once for both requests."""
        key = (qa.tobytes(), qb.tobytes())
        if self._last[0] != key:
            self._last = (key, *self._evaluate(qa, qb, False, start=key[0]))
        return self._last[1:]

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self._step(qa, qb)[0]

    def tangent_values(self, qa, qb, t_mid, dt, state=None):
        return self._step(qa, qb)[1]

    def continuous_force(self, q, v, t, dt, state=None):
        return self._evaluate(q, q, True, tangent=False)[0]

    def continuous_tangents(self, q, v, t, dt, state=None):
        F, dF_dq = self._evaluate(q, q, True)
        return F, dF_dq, None

    def potential(self, q, state=None):
        return float(self.potential_history(q[None], None)[0])

    def potential_history(self, Q, states):
        kernels = compiled(KERNELS)
        return kernels.energies(np.ascontiguousarray(Q[:, 0, :]), self.dim, self.index, *self.data)


# ``WorldElasticity.loop_arguments`` of no force: a step without beams in the loop, the dimension None (so that
# numba prunes the beams' kernel from the loop's machine code, ``integrators.kernels.newton_loop``)
NO_STEP = (np.zeros((1, 0)), True, False, None, np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0, 0, 0)),
           np.zeros((0, 0, 0)), np.zeros((0, 0, 0)), np.zeros((0, 0, 0)), np.zeros((0, 0)), np.zeros((0, 0, 0)),
           np.zeros((0, 0)), np.zeros((0, 0)), np.zeros((0, 0, 0)))
