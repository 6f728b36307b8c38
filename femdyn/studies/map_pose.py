"""Workspace maps, the pose of a grid point: the rigid mechanism assembled where the grid asks, with its
effector Jacobian, or the word why not (``unreachable``, ``singular``).

A grid names either **actuated coordinates** (``model.assembly.actuated``: the servo inputs and
the coordinates joint loads drive), set to the grid's values with the others as in the case, or
**effector coordinates** ``P.x``, ``P.y`` (3D ``P.z``) of a probe P, set by the rigid mechanism's
inverse kinematics with the rest of the effector's pose as in the case.

Inverse kinematics. With the effector the probe's material point X and the points X + e_a (a = 1..dim)
of its body, whose world positions p(a) (stacked) give the body's whole pose, the actuated coordinates a
bring P's named coordinates to the grid's values and the rest of the pose p as near to the case's as
the mechanism allows (p* the case's pose with P's named coordinates replaced by the grid's): Gauss-Newton
steps with the velocity map J = dp/da of the rigid mechanism (``RigidMechanism.jacobian``) from the
case's actuated coordinates, by task priority ([Nakamura1987]): the named rows J_1 first, the others J_2
in the null space N = I - J_1^+ J_1 that they leave,

    da = -J_1^+ e_1 + (J_2 N)^+ (-e_2 + J_2 J_1^+ e_1),    e = p(a) - p*,

so that a mechanism with fewer degrees of freedom than the pose (a two-link arm's tool angle) keeps
what it can. A pose is reached where the named residual left falls below ``REACH`` (relative to
max(1, |p*|)); the least-squares point of a target outside the workspace leaves a residual, and the
point is **unreachable**, as where
the rigid mechanism cannot be assembled at all. A target the direct iteration does not reach is
approached again along the straight path from the case's pose in ``PATH_STEPS`` steps (continuation):
the answer depends on the point alone, never on the order the map visits the points.

Conditioning. The Jacobian of P's world point, J_P = dx_P/da (the first dim rows of J), has the
singular values s_1 >= .. >= s_r (r its rank at the case's pose: ``RigidMechanism.rank``'s rule); the
map reports kappa = s_1/s_r and s_r ([Gosselin1990]; ``rigid_mechanism``), and a point with
s_r < ``SINGULAR`` s_1 (kappa above 1/``SINGULAR``), or where the rigid mechanism's matrix is singular
(the actuated coordinates no longer fix it, a parallel singularity), is **singular**.
"""
from dataclasses import dataclass

import numpy as np

from ..model.errors import ModelError
from ..model.initial import wrong_angle_branch
from ..model.model import Model
from ..model.assembly import actuated
from ..model.rigid_mechanism import RigidMechanism

AXES = "xyz"
SINGULAR = 1e-3  # a point with s_r < SINGULAR s_1 is singular (the stated bound)
REACH = 1e-9  # the largest residual of a reached effector pose, relative to max(1, |p*|)
MAX_ITERATIONS = 30
PATH_STEPS = 8


def effector_axes(names: list, probe: str, dim: int) -> list:
    """The axes (0..dim-1) the grid ``names`` set of the probe ``probe``'s point (``P.x``, ..), or
    [] where they are actuated coordinates."""
    return [AXES.index(n.split(".", 1)[1]) for n in names if n.startswith(probe + ".")]


@dataclass(frozen=True)
class Pose:
    """A grid point's rigid pose: its status ("ok", "unreachable", "singular"), a message, the rigid
    coordinates ``q_rigid`` (n_r; None where unreachable), the actuated coordinates, P's world point, and
    the effector Jacobian ``J`` (dim (1 + dim) rows: P and P + e_a, x actuated) with P's conditioning."""

    status: str
    message: str
    q_rigid: np.ndarray | None = None
    actuated: np.ndarray | None = None
    point: np.ndarray | None = None
    J: np.ndarray | None = None
    condition: float = np.nan
    smallest: float = np.nan


class Poser:
    """The poses of the grid points of ``model`` (the case's, flexible) for the grid ``names`` and the
    probe (name, body index, body-frame point); ``q_start``: the case's assembled pose (its rigid part
    is the reference: the case's actuated coordinates and effector pose); ``singular``: the bound
    ``SINGULAR`` on s_r/s_1."""

    def __init__(self, model: Model, names: list, probe: tuple, q_start: np.ndarray, singular: float = SINGULAR):
        self.names, self.singular = list(names), singular
        name, body, point = probe
        dim = model.dim
        self.dim = dim
        points = [(body, np.asarray(point, dtype=float) + offset) for offset in np.vstack([np.zeros(dim), np.eye(dim)])]
        self.mechanism = RigidMechanism(model, points, q_start)
        self.coordinates = actuated(model)
        if not self.coordinates:
            raise ModelError("model", "the model has no actuated coordinate (servo inputs or joint loads) to map over")
        self.axes = effector_axes(self.names, name, dim)
        if self.axes:
            if len(self.axes) != len(self.names):
                raise ModelError("--grid", f"a grid sets effector coordinates {name}.x, .. or actuated coordinates "
                                "(not both)")
        else:
            unknown = [n for n in self.names if n not in self.coordinates]
            if unknown:
                effector = ", ".join(f"{name}.{a}" for a in AXES[:dim])
                raise ModelError("--grid", f"'{unknown[0]}' is neither an actuated coordinate "
                                 f"({', '.join(self.coordinates)}) nor an effector coordinate of the probe ({effector})")
            self.columns = [self.coordinates.index(n) for n in self.names]
        reference = self.mechanism.solve(q_start[None])[0]
        if not np.isfinite(reference).all():
            raise ModelError("initial", "the rigid mechanism cannot be assembled at the case's actuated coordinates")
        self.reference = reference
        self.a0 = reference[self.mechanism.act]
        self.p0 = self.mechanism.E @ reference
        self.rank = self._rank(self.mechanism.jacobian(reference))

    def _rank(self, J):
        if not np.isfinite(J).all():
            return min(self.dim, len(self.coordinates))
        s = np.linalg.svd(J[: self.dim], compute_uv=False)
        return max(1, int(np.sum(s > 1e-8 * s[0]))) if s[0] > 0 else len(s)

    def _assemble(self, a, start):
        """The rigid pose at the actuated coordinates a from the rigid pose ``start``; NaN if none, or if
        Newton went over to a joint angle off by pi from its bodies' turn (a root of the same rows)."""
        Q = start.copy()
        Q[self.mechanism.act] = a
        q = self.mechanism.solve(Q[None])[0]
        if np.isfinite(q).all() and wrong_angle_branch(self.mechanism.rigid, q):
            q[:] = np.nan
        return q

    def _reach(self, a, q, target):
        """Gauss-Newton on a towards the effector points ``target`` from (a, q), P's grid axes first and
        the rest of the pose in what they leave free (module docstring); (a, q, P's residual)."""
        scale = max(1.0, np.abs(target).max())
        first = np.zeros(len(target), dtype=bool)
        first[self.axes] = True
        for _ in range(MAX_ITERATIONS):
            J = self.mechanism.jacobian(q)
            error = self.mechanism.E @ q - target
            if not np.isfinite(J).all():
                return a, q, np.inf
            step = self._step(J[first], error[first], J[~first], error[~first])
            for _ in range(6):  # halved where the rigid mechanism cannot be assembled at the full step
                trial = self._assemble(a + step, q)
                if np.isfinite(trial).all():
                    break
                step = step / 2
            else:
                return a, q, np.inf
            a, q = a + step, trial
            if np.abs(step).max() <= 1e-13 * max(1.0, np.abs(a).max()):
                break
        return a, q, float(np.abs((self.mechanism.E @ q - target)[first]).max()) / scale

    @staticmethod
    def _step(J1, e1, J2, e2):
        """The task-priority least-squares step: J1 da = -e1 first, then J2 da = -e2 in its null space
        (Y. Nakamura, H. Hanafusa, T. Yoshikawa, Task-priority based redundancy control of robot
        manipulators, Int. J. Robotics Research 6(2) (1987) 3-15: [Nakamura1987]); singular values below
        1e-10 of the Jacobian's largest count as zero (the round-off of J2 N where N is empty)."""
        cutoff = 1e-10 * max(np.abs(J1).max(initial=0.0), np.abs(J2).max(initial=0.0))
        pinv = np.linalg.pinv(J1, rcond=cutoff / max(np.linalg.norm(J1, 2), 1e-300))
        step = -pinv @ e1
        N = np.eye(len(step)) - pinv @ J1
        J2N = J2 @ N
        norm = np.linalg.norm(J2N, 2)
        if norm <= cutoff:
            return step
        return step + np.linalg.pinv(J2N, rcond=cutoff / norm) @ (-e2 - J2 @ step)

    def _inverse(self, values):
        """The rigid pose whose effector reaches the grid's values (module docstring), or None."""
        shift = np.zeros(self.dim)
        for axis, value in zip(self.axes, values):
            shift[axis] = value - self.p0[axis]
        target = self.p0 + np.tile(shift, self.dim + 1)
        a, q, residual = self._reach(self.a0, self.reference, target)
        if residual > REACH:  # again along the path from the case's pose
            a, q = self.a0, self.reference
            for k in range(1, PATH_STEPS + 1):
                a, q, residual = self._reach(a, q, self.p0 + k / PATH_STEPS * (target - self.p0))
                if not np.isfinite(residual):
                    return None, residual
        return (q if residual <= REACH else None), residual

    def pose(self, values) -> Pose:
        """The ``Pose`` of the grid point with the grid's ``values`` (in the order of ``names``)."""
        values = np.asarray(values, dtype=float)
        if self.axes:
            q, residual = self._inverse(values)
            if q is None:
                return Pose("unreachable", "the rigid mechanism's inverse kinematics leaves the effector "
                            + (f"{residual:.3g} (relative) from the point" if np.isfinite(residual)
                               else "unassembled on the way to the point"))
        else:
            a = self.a0.copy()
            a[self.columns] = values
            q = self._assemble(a, self.reference)
            if not np.isfinite(q).all():  # again along the path from the case's pose
                q = self.reference
                for k in range(1, PATH_STEPS + 1):
                    q = self._assemble(self.a0 + k / PATH_STEPS * (a - self.a0), q)
                    if not np.isfinite(q).all():
                        return Pose("unreachable", "the rigid mechanism cannot be assembled at these actuated "
                                    "coordinates")
        J = self.mechanism.jacobian(q)
        a, point = q[self.mechanism.act], (self.mechanism.E @ q)[: self.dim]
        if not np.isfinite(J).all():
            return Pose("singular", "the rigid mechanism's matrix is singular: the actuated coordinates do not fix it",
                        q, a, point, J, np.inf, 0.0)
        s = np.linalg.svd(J[: self.dim], compute_uv=False)[: self.rank]
        kappa = s[0] / s[-1] if s[-1] > 0 else np.inf
        if not s[-1] >= self.singular * s[0]:
            return Pose("singular", f"the effector Jacobian's smallest singular value {s[-1]:.3g} is below "
                        f"{self.singular:g} times its largest", q, a, point, J, kappa, s[-1])
        return Pose("ok", "", q, a, point, J, kappa, s[-1])
