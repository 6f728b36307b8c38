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
bodies (floored, as for the initial projection, ``initial._weights``):

    min 1/2 |q_r - q_ref|_W^2   subject to   c(q_r) = [Phi_r(q_r); q_r[act] - a] = 0,

by Gauss-Newton on its KKT conditions (the constraints' curvature times the multipliers left out, so
each iteration is one solve of the fixed-pattern saddle-point matrix K = [[W, C^T], [C, 0]], C = dc/dq_r,
factored by KLU with its ordering kept, ``numerics.linalg.FixedPatternLU``):

    K [dq; mu] = [-W (q_r - q_ref); -c(q_r)],

whose fixed points are exactly the KKT points; where C is square and regular the step is Newton's,
dq = -C^-1 c, whatever W. Each time starts from the previous time's solution (the first from q_ref).

Conditioning (``RigidMechanism.jacobian``). With the effector the world points of the probes (x = C(X)
q_r on their rigid bodies, stacked) the actuated-to-effector Jacobian is J = E dq_r/da, dq_r/da the
solution of K [dq; mu] = [0; 0; I] at the assembled pose: the velocity map of the rigid mechanism
(Gosselin & Angeles 1990, [Gosselin1990]). Its singular values s_1 >= .. >= s_k give the condition
number kappa = s_1/s_k and the smallest s_k: kappa grows without bound as the pose nears a singularity
of either kind (s_k -> 0 where the effector loses a direction, a serial singularity; s_1 -> infinity
where the actuated coordinates no longer fix the mechanism, a parallel one, K singular there).
"""
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from ..numerics import kinematics as kin
from ..numerics.linalg import FixedPatternLU, SingularMatrixError
from .initial import _weights, independent_rows
from .model import Model

MAX_ITERATIONS = 50
TOLERANCE = 1e-13  # on the step, relative to max(1, |q_r|)


def rigid_limit(model: Model) -> Model:
    """The rigid limit of ``model`` (module docstring): its flexible bodies rigid, no servos or inputs."""
    spec = model.spec
    bodies = tuple(replace(b, beam=None, stiffening=False) if b.beam is not None else b for b in spec.bodies)
    return Model(replace(spec, bodies=bodies, servos=(), inputs=()))


def actuated(model: Model) -> list:
    """Names of the actuated joint coordinates: the servo inputs, then those joint loads drive."""
    names = list(model.inputs) + [load.coordinate for load in model.spec.coordinate_loads]
    return list(dict.fromkeys(names))


class RigidMechanismError(RuntimeError):
    pass


class RigidMechanism:
    """The rigid limit of ``model`` assembled at the actuated coordinates of flexible states; ``points``:
    the effector, [(body index, body-frame point)] (the probes' material points) for ``jacobian``."""

    def __init__(self, model: Model, points=(), q_start=None):
        self.model = model
        self.rigid = rigid_limit(model)
        self.n = self.rigid.n
        self.names = actuated(model)
        self.act = np.array([model.joint_coordinates[name] for name in self.names], dtype=np.int64)
        self.points = list(points)
        q0 = np.zeros(self.n) if q_start is None else np.asarray(q_start, dtype=float)[: self.n]
        self.rows, _ = independent_rows(self.rigid, q0)
        self.weights = _weights(self.rigid)
        self._pattern()
        self._effector()
        self.free = self._free_motions(q0)

    def _pattern(self):
        """The fixed CSC pattern of K and the map from its COO entries to the CSC values."""
        n, families = self.n, self.rigid.constraints
        position = np.full(self.rigid.m, -1)
        position[self.rows] = np.arange(len(self.rows))
        rows, cols = [], []
        for fam in families:
            shape = (fam.count, fam.m, fam.dofs.shape[1])
            rows.append(np.broadcast_to(position[fam.rows][:, :, None], shape).ravel())
            cols.append(np.broadcast_to(fam.dofs[:, None, :], shape).ravel())
        r, c = np.concatenate(rows), np.concatenate(cols)
        self._keep = r >= 0  # entries of dependent rows dropped
        r, c = r[self._keep] + n, c[self._keep]
        m = len(self.rows)
        ra = n + m + np.arange(len(self.act))  # the actuated rows: q_r[act] = a
        self.size = n + m + len(self.act)
        diag = np.arange(n)
        R = np.concatenate([diag, r, c, ra, self.act])  # W, C, C^T (constraints), the actuated rows and columns
        Cc = np.concatenate([diag, c, r, self.act, ra])
        key = Cc * self.size + R  # CSC order: column-major
        unique, self._slot = np.unique(key, return_inverse=True)
        cols_u, rows_u = np.divmod(unique, self.size)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(cols_u, minlength=self.size))])
        self._lu = FixedPatternLU(indptr, rows_u)
        self._count = len(unique)
        self._ones = np.ones(len(self.act))

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
        C = np.vstack([G, A])
        s = np.linalg.svd(C, compute_uv=False) if C.size else np.zeros(0)
        rank = int(np.sum(s > 1e-9 * (s.max() if s.size else 1.0)))
        return self.n - rank

    def _factor(self, q):
        """Factor K at q (the constraint Jacobian's values there)."""
        values = []
        for fam in self.rigid.constraints:
            values.append(np.ravel(fam.jacobian(q[fam.dofs])))
        G = np.concatenate(values)[self._keep]
        data = np.concatenate([self.weights, G, G, self._ones, self._ones])
        self._lu.factor(np.bincount(self._slot, weights=data, minlength=self._count))

    def _residual(self, q, a):
        return np.concatenate([self.rigid.phi(q)[self.rows], q[self.act] - a])

    def assemble(self, q, q_ref, a):
        """The rigid configuration at the actuated coordinates a nearest q_ref, Gauss-Newton from q
        (module docstring); RigidMechanismError where it does not converge or K is singular."""
        q = np.array(q, dtype=float)
        n = self.n
        for _ in range(MAX_ITERATIONS):
            try:
                self._factor(q)
            except SingularMatrixError:
                raise RigidMechanismError("the rigid mechanism is singular at these actuated coordinates") from None
            rhs = np.concatenate([-self.weights * (q - q_ref), -self._residual(q, a)])
            step = self._lu.solve(rhs, refine=1)[:n]
            q += step
            if not np.isfinite(q).all():
                break
            if np.abs(step).max(initial=0.0) <= TOLERANCE * max(1.0, np.abs(q).max()):
                return q
        raise RigidMechanismError("the rigid mechanism cannot be assembled at these actuated coordinates "
                                  f"(no convergence in {MAX_ITERATIONS} iterations)")

    def solve(self, Q, start=None):
        """Rigid configurations (F, n_r) for the flexible states Q (F, n), each at Q's actuated
        coordinates, warm-started from the one before (the first from ``start``, default Q[0]'s frames);
        NaN rows where the rigid mechanism cannot be assembled. Returns (q_r, last solution)."""
        Q = np.atleast_2d(np.asarray(Q, dtype=float))
        out = np.full((len(Q), self.n), np.nan)
        q = None if start is None else np.asarray(start, dtype=float)
        for k, qf in enumerate(Q):
            q_ref = qf[: self.n]
            try:
                q = self.assemble(q_ref if q is None or not np.isfinite(q).all() else q, q_ref, qf[self.act])
            except RigidMechanismError:
                q = None
                continue
            out[k] = q
        return out, q

    def jacobian(self, q):
        """J = E dq_r/da (effector coordinates x actuated) at the assembled rigid pose q (module
        docstring); NaN where K is singular there."""
        n, k = self.n, len(self.act)
        try:
            self._factor(q)
        except SingularMatrixError:
            return np.full((self.E.shape[0], k), np.nan)
        rhs = np.zeros((self.size, k))
        rhs[self.size - k + np.arange(k), np.arange(k)] = 1.0
        dq = np.column_stack([self._lu.solve(rhs[:, i], refine=1)[:n] for i in range(k)])
        return self.E @ dq

    def conditioning(self, Q_rigid):
        """Condition number s_1/s_k and smallest singular value s_k of J at each rigid pose (F,) each;
        infinite and 0 where J is singular or K is, NaN where the pose is."""
        kappa, smallest = np.full(len(Q_rigid), np.nan), np.full(len(Q_rigid), np.nan)
        for i, q in enumerate(np.atleast_2d(Q_rigid)):
            if not np.isfinite(q).all():
                continue
            J = self.jacobian(q)
            if not np.isfinite(J).all():
                kappa[i], smallest[i] = np.inf, 0.0
                continue
            s = np.linalg.svd(J, compute_uv=False)
            smallest[i] = s[-1]
            kappa[i] = s[0] / s[-1] if s[-1] > 0 else np.inf
        return kappa, smallest
