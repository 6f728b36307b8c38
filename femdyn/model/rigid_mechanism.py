"""The rigid mechanism of a model: its rigid limit, assembled at given actuated joint coordinates, and
the Jacobian of the actuated-to-effector map with its conditioning.

Rigid limit (``rigid_limit``). Every flexible body (a beam, each segment of a segmented link) becomes a
rigid body with its frame, mass and Euler tensor (``BeamBody.rigid_inertia``: the body's rigid
block, 003 eq. 125), with every joint, point, load and augmented coordinate as it was and no servo:
the model that ``flexible.model = "rigid"`` (``femdyn run --flexible rigid``) reads, numbered alike --
its coordinates are the first ``n_r`` of the flexible model's (bodies, ground, joint coordinates; the
elastic unknowns come after them, ``model.Model``), so a flexible state's frames and joint coordinates
are a rigid state's start. Welded segments become rigid bodies welded at their frames, one rigid link.

Actuated coordinates (``actuated``): the servo inputs (``[control] inputs``, 000 eq. 84) and the joint
coordinates that joint loads drive, in that order, each once.

Assembly (``RigidMechanism.solve``). At each time the rigid configuration q_r solves the rigid
constraints Phi_r(q_r) = 0 (the independent rows, ``initial.independent_rows``) with the actuated
coordinates held at the flexible run's values a, q_r[act] = a. Where these fix q_r (a mechanism whose
actuated coordinates determine it: the generic case) that is the unique nearby solution; the motions
they leave free (a free-floating base, an unactuated joint) are set to the rigid configuration nearest to
the flexible run's frames and joint coordinates q_ref in the metric W = diag(m, E_a) of the rigid
bodies (floored, as for the initial projection, ``assembly.weights``):

    min 1/2 |q_r - q_ref|_W^2   subject to   c(q_r) = [Phi_r(q_r); q_r[act] - a] = 0,

by Gauss-Newton on its KKT conditions (the constraints' curvature times the multipliers left out, so
each iteration is one solve of the fixed-pattern saddle-point matrix K = [[W, C^T], [C, 0]], C = dc/dq_r,
factored by KLU with its ordering kept, ``numerics.linalg.FixedPatternLU``):

    K [dq; mu] = [-W (q_r - q_ref); -c(q_r)],

whose fixed points are exactly the KKT points; where C is square and regular the step is Newton's,
dq = -C^-1 c, whatever W. Every time of a table starts from its own q_ref, which lies within the
elastic deformation of the solution, so that each time's answer depends on that time alone (a table
given in chunks gets the same numbers whatever the chunks); the residuals and Jacobians of all times
are evaluated at once (the quadratic families' affine Jacobian G = g + H q as one sparse product, the
joint angles' rows over the history, as ``Model.residual_history``), and only the factorisation and
solve go time by time. A time whose iteration fails (a segmented link bent far from its rigid pose)
is taken again from the previous time's solution; a time that fails then too is NaN.

Conditioning (``RigidMechanism.jacobian``). With the effector the world points of the probes (x = C(X)
q_r on their rigid bodies, stacked) the actuated-to-effector Jacobian is J = E dq_r/da, dq_r/da the
solution of K [dq; mu] = [0; 0; I] at the assembled pose: the velocity map of the rigid mechanism
([Gosselin1990]). Its singular values s_1 >= .. >= s_k (k the rank of J at
the start: the directions the probes' points see, ``rank``) give the condition number kappa =
s_1/s_k and the smallest s_k: kappa grows without bound as the pose nears a singularity
of either kind (s_k -> 0 where the effector loses a direction, a serial singularity; s_1 -> infinity
where the actuated coordinates no longer fix the mechanism, a parallel one, K singular there).
A pose with kappa > ``CONDITION_BOUND`` = 100 is reported as near a singular one: there an input error
moves the effector 100 times more in one direction than in another, and (by the duality of the
velocity and force maps) the actuator forces that hold a load grow by as much (Merlet, *Parallel
Robots*, 2nd ed., 2006, ch. 6: [Merlet2006]; the bound is ours). With actuated coordinates of mixed
kinds (angles and slides) kappa depends on the units and is a rough guide.
"""
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..numerics import kinematics as kin
from ..numerics.linalg import FixedPatternLU, SingularMatrixError
from .assembly import actuated, weights
from .initial import independent_rows
from .model import Model

CONDITION_BOUND = 100.0  # a condition number above this: near a singular pose (``near_singular``)
MAX_ITERATIONS = 50
TOLERANCE = 1e-13  # on the step or the error it leaves (Hairer & Wanner's estimate), relative to max(1, |q_r|)


def rigid_limit(model: Model) -> Model:
    """The rigid limit of ``model`` (module docstring): its flexible bodies rigid, no servos or inputs."""
    spec = model.spec
    bodies = tuple(replace(b, beam=None, stiffening=False) if b.beam is not None else b for b in spec.bodies)
    return Model(replace(spec, bodies=bodies, servos=(), inputs=()))


class RigidMechanismError(RuntimeError):
    pass


class RigidMechanism:
    """The rigid limit of ``model`` assembled at the actuated coordinates of flexible states; ``points``:
    the effector, [(body index, body-frame point)] (the probes' material points) for ``jacobian``;
    ``q_start``: a state at which the independent constraint rows are chosen."""

    def __init__(self, model: Model, points, q_start):
        self.model = model
        self.rigid = rigid_limit(model)
        self.n = self.rigid.n
        self.names = actuated(model)
        self.act = np.array([model.joint_coordinates[name] for name in self.names], dtype=np.int64)
        self.points = list(points)
        q0 = np.asarray(q_start, dtype=float)[: self.n]
        self._start, self._rank = np.asarray(q_start, dtype=float), None
        self.rows, _ = independent_rows(self.rigid, q0)
        self.weights = weights(self.rigid)
        self._pattern()
        self._effector()
        self.free = self._free_motions(q0)
        try:  # KLU's ordering chosen at q_start
            self._factor(self._evaluate(q0[None], q0[None, self.act])[1][0])
        except SingularMatrixError:
            pass

    def _pattern(self):
        """The fixed CSC pattern of K, the map from its entries to the CSC values, and the constraint
        families as the quadratic batch (slots) and the joint angles (``Model.residual_history``)."""
        n, rigid = self.n, self.rigid
        self.batch, self.angles = rigid._constraint_batch
        position = np.full(rigid.m, -1)
        position[self.rows] = np.arange(len(self.rows))
        H = self.batch._H
        self._H = sp.csr_matrix((H[2], H[1], H[0]), shape=(self.batch.g.size, n))
        rows, cols = [self.batch.slot_row], [self.batch.slot_col]
        for fam in self.angles:
            shape = (fam.count, fam.m, fam.dofs.shape[1])
            rows.append(np.broadcast_to(fam.rows[:, :, None], shape).ravel())
            cols.append(np.broadcast_to(fam.dofs[:, None, :], shape).ravel())
        r = position[np.concatenate(rows)]
        self._keep = r >= 0  # entries of dependent rows dropped
        r, c = r[self._keep] + n, np.concatenate(cols)[self._keep]
        m = len(self.rows)
        ra = n + m + np.arange(len(self.act))  # the actuated rows: q_r[act] = a
        self.size = n + m + len(self.act)
        diag = np.arange(n)
        R = np.concatenate([diag, r, c, ra, self.act])  # W, C, C^T (constraints), the actuated rows and columns
        Cc = np.concatenate([diag, c, r, self.act, ra])
        unique, self._slot = np.unique(Cc * self.size + R, return_inverse=True)  # CSC order: column-major
        cols_u, rows_u = np.divmod(unique, self.size)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(cols_u, minlength=self.size))])
        self._lu = FixedPatternLU(indptr, rows_u)
        self._lu.fill_growth = np.inf  # every factorisation pivots for its own matrix (``_factor``)
        self._count = len(unique)
        self._sum = sp.csr_matrix((np.ones(len(R)), (np.arange(len(R)), self._slot)), shape=(len(R), self._count))
        self._ones = np.ones((1, len(self.act)))

    def _effector(self):
        """E: the effector points' world positions as rows on q_r (x = C(X) q_body)."""
        dim, rows, cols, vals = self.rigid.dim, [], [], []
        for k, (body, point) in enumerate(self.points):
            C = kin.point_matrix(point)[0]  # (dim, body size)
            dofs = self.rigid.body_dofs(body)
            rows.append(np.repeat(k * dim + np.arange(dim), len(dofs)))
            cols.append(np.tile(dofs, dim))
            vals.append(C.ravel())
        shape = (dim * len(self.points), self.n)
        self.E = (sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=shape)
                  if self.points else sp.csr_matrix(shape))

    def _free_motions(self, q):
        """The number of motions of the rigid mechanism that the actuated coordinates leave free at q."""
        G = self.rigid.jacobian(q, self.rows).toarray()
        A = np.zeros((len(self.act), self.n))
        A[np.arange(len(self.act)), self.act] = 1.0
        s = np.linalg.svd(np.vstack([G, A]), compute_uv=False)
        return self.n - int(np.sum(s > 1e-9 * (s.max() if s.size else 1.0)))

    def _factor(self, values):
        """Factor K with these values, its pivots chosen for it (not kept from another time's K): a time's
        numbers then depend on that time alone, however a run is cut into chunks or resumed (KLU's
        ordering is fixed at ``q_start``)."""
        self._lu.factor(values, pivot=True)

    def _evaluate(self, Q, a):
        """The residuals c (F, m + k) and the CSC values of K (F, entries) at the rigid states Q (F, n_r)
        with the actuated coordinates at a (F, k)."""
        F = len(Q)
        phi = np.empty((F, self.rigid.m))
        phi[:, self.batch.rows] = self.batch.phi_history(Q)
        G = [self.batch.g + (self._H @ Q.T).T]
        for fam in self.angles:
            local = Q[:, fam.dofs]
            phi[:, fam.rows] = fam.phi(local)
            G.append(fam.jacobian_history(local).reshape(F, -1))
        G = np.concatenate(G, axis=1)[:, self._keep]
        data = np.concatenate([np.broadcast_to(self.weights, (F, self.n)), G, G,
                               np.broadcast_to(self._ones, (F, len(self.act))),
                               np.broadcast_to(self._ones, (F, len(self.act)))], axis=1)
        return np.concatenate([phi[:, self.rows], Q[:, self.act] - a], axis=1), np.asarray(data @ self._sum)

    def _newton(self, Q, Q_ref, a, J=None):
        """Gauss-Newton (module docstring) on every row of Q at once; returns the solutions with NaN rows
        where a row does not converge or K is singular. ``J`` (F, effector rows, k): filled with each
        converged row's J from K's factors at its last iterate (``_map``), where given."""
        Q = np.array(Q, dtype=float)
        n = self.n
        active = np.arange(len(Q))
        last = np.full(len(Q), np.inf)  # each row's last step, for the stopping estimate
        for _ in range(MAX_ITERATIONS):
            residual, values = self._evaluate(Q[active], a[active])
            still = []
            for row, c, data in zip(active, residual, values):
                try:
                    self._factor(data)
                except SingularMatrixError:
                    Q[row] = np.nan
                    continue
                step = self._lu.solve(np.concatenate([-self.weights * (Q[row] - Q_ref[row]), -c]))[:n]
                Q[row] += step
                size = np.abs(step).max(initial=0.0)
                rate = size / last[row] if np.isfinite(last[row]) else 0.0  # Newton's contraction so far
                last[row] = size
                if not np.isfinite(Q[row]).all():
                    Q[row] = np.nan
                elif min(size, rate / (1.0 - rate) * size if 0.0 < rate < 0.5 else size) > \
                        TOLERANCE * max(1.0, np.abs(Q[row]).max()):
                    still.append(row)
                elif J is not None:
                    J[row] = self._map()
            active = np.array(still, dtype=np.int64)
            if not active.size:
                return Q
        Q[active] = np.nan
        return Q

    def solve(self, Q, jacobians=False):
        """Rigid configurations (F, n_r) for the flexible states Q (F, n), each at Q's actuated
        coordinates (module docstring); NaN rows where the rigid mechanism cannot be assembled. With
        ``jacobians``: also J (F, effector rows, k) at each (NaN where not assembled)."""
        Q = np.atleast_2d(np.asarray(Q, dtype=float))
        Q_ref, a = Q[:, : self.n], Q[:, self.act]
        J = np.full((len(Q), self.E.shape[0], len(self.act)), np.nan) if jacobians else None
        out = self._newton(Q_ref, Q_ref, a, J)
        for k in np.flatnonzero(~np.isfinite(out).all(axis=1)):  # again from the time before
            if k > 0 and np.isfinite(out[k - 1]).all():
                out[k] = self._newton(out[k - 1 : k], Q_ref[k : k + 1], a[k : k + 1])[0]
                if jacobians and np.isfinite(out[k]).all():
                    J[k] = self.jacobian(out[k])
        return (out, J) if jacobians else out

    def _map(self):
        """E dq_r/da from the current factors of K: one solve per actuated coordinate."""
        n, k = self.n, len(self.act)
        unit = np.zeros(self.size)
        dq = np.empty((n, k))
        for i in range(k):
            unit[:] = 0.0
            unit[self.size - k + i] = 1.0
            dq[:, i] = self._lu.solve(unit, refine=1)[:n]
        return self.E @ dq

    def jacobian(self, q):
        """J = E dq_r/da (effector coordinates x actuated) at the assembled rigid pose q (module
        docstring); NaN where K is singular there."""
        try:
            self._factor(self._evaluate(q[None], q[None, self.act])[1][0])
        except SingularMatrixError:
            return np.full((self.E.shape[0], len(self.act)), np.nan)
        return self._map()

    def conditioning(self, J):
        """Condition number s_1/s_k and smallest singular value s_k of the Jacobians J (F, rows, k), (F,)
        each (s_k the ``rank``-th); infinite and 0 where J is singular, NaN where it is (the pose not
        assembled, K singular there), and everywhere for a model without actuated coordinates or probes
        (no map to condition)."""
        J = np.asarray(J, dtype=float)
        kappa, smallest = np.full(len(J), np.nan), np.full(len(J), np.nan)
        if not len(self.act) or not self.points:
            return kappa, smallest
        known = np.isfinite(J).all(axis=(1, 2))
        if known.any():
            s = np.linalg.svd(J[known], compute_uv=False)[:, : self.rank]
            smallest[known] = s[:, -1]
            with np.errstate(divide="ignore"):
                kappa[known] = np.where(s[:, -1] > 0, s[:, 0] / np.where(s[:, -1] > 0, s[:, -1], 1.0), np.inf)
        return kappa, smallest

    @property
    def rank(self):
        """How many singular values of J count: the rank of J at the assembled start pose (the directions
        of the actuated coordinates' motion the probes' points see: two points of a spatial platform do not
        see its turn about the line through them), so that a J short of rank by the probes' choice is not
        reported as a singular pose; min(rows, columns) where the start is not assembled."""
        if self._rank is None:
            size = min(self.E.shape[0], len(self.act))
            self._rank = size
            q = self.solve(self._start[None])[0]
            J = self.jacobian(q) if np.isfinite(q).all() and size else None
            if J is not None and np.isfinite(J).all():
                s = np.linalg.svd(J, compute_uv=False)
                self._rank = max(1, int(np.sum(s > 1e-8 * s[0]))) if s[0] > 0 else size
        return self._rank
