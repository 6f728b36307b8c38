"""Servo (control) constraints, 000 eqs. 58-59 and 84, 001 eqs. 27-28.

A servo row prescribes a quantity b(q), linear in q, to follow a trajectory: Phi_C = b(q) - gamma(t).
Its multiplier is the input u = -lambda of one actuated coordinate (a joint angle or slide), and the
force it applies is B^T u with the Boolean B of 000 eq. 84 -- not the gradient of Phi_C. Servo rows
therefore add no reaction of their own: the trajectory is realised by the actuators alone, and a free-
floating system keeps its momenta. The discrete form (000 eq. 59) enforces Phi_C(q_n+1, t_n+1) = 0.

Local coordinates of an instance: the coordinates b depends on, then the actuated coordinate. In the
component interface, ``discrete_jacobian`` is the direction of the row's force (B), ``jacobian``
the derivative of Phi_C (the Newton row). Relative targets are
gamma(t) = b(q0) + trajectory(t) - trajectory(0): a family never changes once made; ``referenced(q0)``
makes a new one whose start values b(q0) are fixed from a run's initial configuration (the built
family's are zero).
"""
import copy
from abc import abstractmethod
from dataclasses import dataclass

import numpy as np

from ..numerics.lazy import compiled
from .base import Constraint

KERNELS = __package__ + ".servo_kernels"  # numba: imported where the kernel runs
_NO_PLACES = np.zeros((0, 0), dtype=np.int64)
_NO_VALUES = np.zeros(0)
_NO_ROWS = np.zeros(0, dtype=np.int64)
# ``LoopServos.loop_arguments`` of no servo family, of the same types: a Newton loop without servo rows
NO_SERVO = (False, np.zeros((0, 0)), _NO_VALUES, _NO_PLACES, _NO_ROWS, _NO_ROWS, _NO_PLACES, _NO_PLACES)


@dataclass(frozen=True)
class ServoRow:
    """One servo row before batching: the servo's name and kind, the coordinates b depends on, its
    coefficients (for constant ones), the target (trajectory or rotation function), the component of
    the target it follows, and whether the target is relative to the start."""

    servo: str
    kind: str
    dofs: tuple
    coefficients: tuple
    target: object
    component: int
    relative: bool


class Servo(Constraint):
    m = 1
    time_dependent = True

    @abstractmethod
    def coefficients(self, t):
        """a(t), (K, n_c): b(q) = a . q_c."""

    @abstractmethod
    def targets(self, t):
        """gamma(t), (K,)."""

    @abstractmethod
    def time_derivative(self, q, t):
        """dPhi_C/dt at fixed q, (K,): the velocity condition is G v + dPhi_C/dt = 0."""

    @abstractmethod
    def referenced(self, q):
        """This family with the start values of its relative targets fixed from the initial local
        coordinates q (K, n): a new family, this one unchanged."""

    def on_branch(self, q, t=0.0):
        """(K,) whether q is on the intended solution of the rows (not the one turned by pi)."""
        return np.ones(self.count, dtype=bool)

    def coefficients_history(self, t: np.ndarray) -> np.ndarray:
        """a at the times t (F,): (F, K, n_c), ``coefficients`` time by time (vectorised where a family can)."""
        return np.array([self.coefficients(tk) for tk in t], dtype=float).reshape(len(t), self.count, -1)

    def targets_history(self, t: np.ndarray) -> np.ndarray:
        """gamma at the times t (F,): (F, K), ``targets`` time by time (vectorised where a family can)."""
        return np.array([self.targets(tk) for tk in t], dtype=float).reshape(len(t), self.count)

    def phi(self, q, t=0.0):
        return (np.sum(self.coefficients(t) * q[:, :-1], axis=1) - self.targets(t))[:, None]

    def phi_history(self, q: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``phi`` at the local coordinates q (F, K, n) of the times t (F,) at once: (F, K, 1), the same numbers
        (``Model.residual_history``)."""
        return (np.sum(self.coefficients_history(t) * q[..., :-1], axis=-1) - self.targets_history(t))[..., None]

    def jacobian(self, q, t=0.0):
        G = np.zeros((q.shape[0], 1, q.shape[1]))
        G[:, 0, :-1] = self.coefficients(t)
        return G

    def discrete_jacobian(self, qa, qb):
        B = np.zeros((qa.shape[0], 1, qa.shape[1]))
        B[:, 0, -1] = 1.0
        return B

    def discrete_tangent(self, qa, qb, lam):
        return np.zeros((qa.shape[0], qa.shape[1], qa.shape[1]))

    def begin_step(self, qa, t):
        return (np.ascontiguousarray(self.coefficients(t), dtype=np.float64),
                np.ascontiguousarray(self.targets(t), dtype=np.float64))

    def contribute(self, start, qa, qb, lam, R, scale, tangent, values, places):
        """The family's part of ``SaddleSystem.constrain`` in one compiled call (``servo_kernels``):
        global qb and all multipliers lam, ``start`` from ``begin_step``, ``places`` from ``places``."""
        _, F_at, G_at, phi_at, rows = places
        if tangent is None:
            F_at = G_at = _NO_PLACES
        compiled(KERNELS).contribute(qb, *start, lam, float(scale), R, _NO_VALUES if values is None else values,
                                     self.dofs, rows, phi_at, F_at, G_at)

    @property
    def jacobian_mask(self):
        return np.arange(self.dofs.shape[1])[None, :] < self.dofs.shape[1] - 1

    @property
    def force_mask(self):
        return ~self.jacobian_mask

    @property
    def tangent_mask(self):
        return np.zeros((self.dofs.shape[1],) * 2, dtype=bool)


def joinable(families: list) -> bool:
    """Whether the servo families ``families`` can be added as one (``LoopServos``): no
    coordinate actuated twice, so that each entry of their forces B^T lam and each Newton-matrix place
    takes one family's value alone."""
    actuated = np.concatenate([c.dofs[:, -1] for c in families])
    return np.unique(actuated).size == actuated.size


class LoopServos:
    """The servo families ``families`` (``joinable``; their ``places``; added before the joint angles or
    after them, ``first``) as the one family of servo rows that ``integrators.kernels.newton_loop`` adds in
    its iterations (``loop_arguments``). Their instances one after the other, each with the widest
    family's q_c: a narrower one's q_c filled up with its first coordinate at coefficient 0 and no
    Newton-matrix place (-1). The kernel's numbers are those of the families added one by one bit for
    bit: a . q_c gains exact zeros (a sum that starts at +0 is never -0), the forces B^T lam of one family
    are zero where another's act, and no place is written twice."""

    def __init__(self, families: list, places: list, first: bool):
        width = max(c.dofs.shape[1] for c in families)

        def filled(c, at):  # the family's coordinates and G's places, width wide
            more = width - c.dofs.shape[1]
            return (np.concatenate([c.dofs[:, :-1], np.repeat(c.dofs[:, :1], more, axis=1), c.dofs[:, -1:]], axis=1),
                    np.pad(at[2], ((0, 0), (0, more)), constant_values=-1))

        dofs, G_at = (np.concatenate(x).astype(np.int64) for x in zip(*map(filled, families, places)))
        join = lambda k: np.concatenate([at[k] for at in places]).astype(np.int64)  # noqa: E731
        self.first, self.arrays = bool(first), (dofs, join(4), join(3), join(1), G_at)
        self.bounds = np.cumsum([0] + [c.count for c in families])
        self.shape = (int(self.bounds[-1]), width - 1)

    def loop_arguments(self, starts: list) -> tuple:
        """What ``newton_loop`` takes to add the families (``Servo.contribute``'s arguments but the iterate's,
        the multipliers, the scale and the outputs), a tuple of the types of ``NO_SERVO``: ``first``, a(t_n+1)
        and gamma(t_n+1) (each family's ``begin_step``, ``starts``) joined, the instances' coordinates, rows and
        places."""
        if len(starts) == 1:
            a, gamma = starts[0]
        else:
            a, gamma = np.zeros(self.shape), np.empty(self.shape[0])
            for k, (a_k, gamma_k) in enumerate(starts):
                a[self.bounds[k] : self.bounds[k + 1], : a_k.shape[1]] = a_k
                gamma[self.bounds[k] : self.bounds[k + 1]] = gamma_k
        return (self.first, a, gamma, *self.arrays)


class ServoTrajectory(Servo):
    """Rows a . q_c = gamma(t) with constant a: a component of a body point (a = a row of C(X): a
    material point, or on a flexible body the point x = phi + X_a d_a its floating frame carries, whose
    q_c are the frame's phi, d_a -- a servo on the reference motion, [Seifried2014]) or an augmented
    joint coordinate (a = 1). ``groups``: (trajectory, rows, components, relative) -- rows
    (indices of instances) follow the given components of one trajectory."""

    def __init__(self, dofs, labels, coefficients, groups):
        super().__init__(dofs, labels)
        self.a = np.asarray(coefficients, dtype=float)
        self.groups = groups
        self.reference = _read_only(np.zeros(self.count))

    @classmethod
    def from_rows(cls, dofs, rows):
        groups = {}  # one group per target object and relative flag
        for k, row in enumerate(rows):
            group = groups.setdefault((id(row.target), row.relative), (row.target, [], [], row.relative))
            group[1].append(k)
            group[2].append(row.component)
        return cls(dofs, [r.servo for r in rows], [r.coefficients for r in rows],
                   [(tr, np.array(ks), np.array(cs), rel) for tr, ks, cs, rel in groups.values()])

    def time_targets(self):
        return [(f"servo '{self.labels[rows[0]]}'", trajectory) for trajectory, rows, _, _ in self.groups]

    def coefficients(self, t):
        return self.a

    def _gather(self, method, t):
        out = np.empty(np.shape(t) + (self.count,))
        for trajectory, rows, components, _ in self.groups:  # one call per servo, not per row
            out[..., rows] = getattr(trajectory, method)(t)[..., components]
        return out

    def coefficients_history(self, t: np.ndarray) -> np.ndarray:
        return np.broadcast_to(self.a, (len(t), *self.a.shape))

    def targets(self, t):
        return self.reference + self._gather("value", t)

    def targets_history(self, t: np.ndarray) -> np.ndarray:
        if not all(hasattr(trajectory, "value_history") for trajectory, _, _, _ in self.groups):  # a duck-typed motion
            return super().targets_history(t)
        return self.reference + self._gather("value_history", np.asarray(t, dtype=float))

    def time_derivative(self, q, t):
        return -self._gather("rate", t)

    def referenced(self, q):
        """gamma(t) = b(q0) + trajectory(t) - trajectory(0) for the relative rows, b = a . q_c
        (000 eq. 78); absolute rows keep gamma = trajectory(t)."""
        relative = np.zeros(self.count, dtype=bool)
        for _, rows, _, rel in self.groups:
            relative[rows] = rel
        start = np.sum(self.a * q[:, :-1], axis=1) - self._gather("value", 0.0)
        return _with_reference(self, np.where(relative, start, 0.0))


class ServoAngle(Servo):
    """Planar body orientation: the director d1 at angle theta(t) from e1,
    Phi_C = sin(theta) d1_x - cos(theta) d1_y (= sin(theta - angle of d1); 000 eq. 82 for theta = 0).
    Local coordinates: d1 (2), then the actuated coordinate."""

    def __init__(self, dofs, labels, trajectories, relative):
        super().__init__(dofs, labels)
        self.trajectories, self.relative = trajectories, np.asarray(relative, dtype=bool)
        self.reference = _read_only(np.zeros(self.count))

    @classmethod
    def from_rows(cls, dofs, rows):
        return cls(dofs, [r.servo for r in rows], [r.target for r in rows], [r.relative for r in rows])

    def time_targets(self):
        return [(f"servo '{name}'", trajectory) for name, trajectory in zip(self.labels, self.trajectories)]

    def _theta(self, t):
        return self.reference + np.array([tr.value(t)[0] for tr in self.trajectories])

    def coefficients(self, t):
        theta = self._theta(t)
        return np.column_stack([np.sin(theta), -np.cos(theta)])

    def targets(self, t):
        return np.zeros(self.count)

    def time_derivative(self, q, t):
        theta = self._theta(t)
        rate = np.array([tr.rate(t)[0] for tr in self.trajectories])
        return rate * (np.cos(theta) * q[:, 0] + np.sin(theta) * q[:, 1])

    def referenced(self, q):
        """theta(t) = alpha(q0) + trajectory(t) - trajectory(0) for the relative rows, alpha the
        angle of d1 (000 eq. 82 for a constant trajectory); absolute rows keep theta = trajectory(t)."""
        start = np.arctan2(q[:, 1], q[:, 0]) - np.array([tr.value(0.0)[0] for tr in self.trajectories])
        return _with_reference(self, np.where(self.relative, start, 0.0))

    def on_branch(self, q, t=0.0):
        """sin(theta - alpha) = 0 also at alpha = theta + pi: require cos(theta - alpha) > 0."""
        theta = self._theta(t)
        return np.cos(theta) * q[:, 0] + np.sin(theta) * q[:, 1] > 0


class ServoOrientation(Servo):
    """Spatial body orientation: the directors follow a target rotation R(t) (columns r_1..3), by the
    three rows r_2.d_3 = 0, r_3.d_1 = 0, r_1.d_2 = 0 (linear in q for given t; independent near
    R(t)). Local coordinates: d_1, d_2, d_3 (9), then the actuated coordinate. ``rotation(t)``
    returns (R, omega) with the target's angular velocity omega (R' = omega x R); an absolute servo
    follows it, a relative one R(t) = rotation(t) rotation(0)^T R_0 from the body's initial orientation
    R_0 (the rotation of the trajectory since t = 0, in world axes, applied to R_0: the same omega)."""

    PAIRS = ((1, 2), (2, 0), (0, 1))  # row k: r_a . d_b

    def __init__(self, dofs, labels, rotation, rows, relative=False):
        super().__init__(dofs, labels)
        self.rotation, self.row = rotation, np.asarray(rows)  # which of the three rows
        self.relative = relative
        self.reference = _read_only(np.eye(3))  # R(t) = rotation(t) @ reference

    @classmethod
    def from_rows(cls, dofs, rows):
        if len({id(r.target) for r in rows}) > 1:
            raise ValueError("one orientation servo per model is supported")
        return cls(dofs, [r.servo for r in rows], rows[0].target, [r.component for r in rows], rows[0].relative)

    def time_targets(self):
        return [(f"servo '{self.labels[0]}'", self.rotation)]

    def _target(self, t):
        R, omega = self.rotation(t)
        return R @ self.reference, omega

    def coefficients(self, t):
        R, _ = self._target(t)
        return self._coefficients(R)

    def coefficients_history(self, t: np.ndarray) -> np.ndarray:
        if not hasattr(self.rotation, "history"):  # a rotation given time by time
            return super().coefficients_history(t)
        return self._coefficients(self.rotation.history(np.asarray(t, dtype=float))[0] @ self.reference)

    def _coefficients(self, R):
        """a (..., K, 9) of the target rotations R (..., 3, 3)."""
        a = np.zeros((*R.shape[:-2], self.count, 9))
        for k, (i, j) in enumerate(self.PAIRS):
            a[..., self.row == k, 3 * j : 3 * j + 3] = R[..., None, :, i]
        return a

    def targets(self, t):
        return np.zeros(self.count)

    def time_derivative(self, q, t):
        R, omega = self._target(t)
        rates = np.cross(omega, R.T)  # rows: r_i'
        return np.array([rates[self.PAIRS[k][0]] @ q[n, 3 * self.PAIRS[k][1] : 3 * self.PAIRS[k][1] + 3]
                         for n, k in enumerate(self.row)])

    def referenced(self, q):
        """A relative servo with its reference rotation(0)^T R_0 fixed from the initial directors (rows of
        q[:, :9]); an absolute one is the family itself."""
        if not self.relative:
            return self
        start = q[0, :9].reshape(3, 3).T  # columns d_1, d_2, d_3
        return _with_reference(self, self.rotation(0.0)[0].T @ start)

    def on_branch(self, q, t=0.0):
        """The three rows also hold for directors turned by pi about a target axis: require
        r_k . d_k > 0 for k = 1, 2, 3 (a positive diagonal of R(t)^T [d_1 d_2 d_3])."""
        R, _ = self._target(t)
        D = q[:, :9].reshape(-1, 3, 3)  # rows d_1, d_2, d_3
        return np.all(np.einsum("ik,nki->nk", R, D) > 0, axis=1)


class ServoPolar(ServoAngle):
    """Planar polar angle of a body point about the world origin: the point x = C q_c (rows a_x, a_y
    of its point matrix) lies on the ray at angle theta(t),
    Phi_C = sin(theta) x - cos(theta) y (= |x| sin(theta - atan2(y, x))), linear in q for given t.
    On a flexible body this is the classic non-collocated output of a single flexible link (the tip
    seen from the hub, Bayo 1987). Local coordinates: the point's coordinates, then the actuated one."""

    def __init__(self, dofs, labels, trajectories, relative, point):
        super().__init__(dofs, labels, trajectories, relative)
        self.point = np.asarray(point, dtype=float)  # (K, 2, k): the point matrices

    @classmethod
    def from_rows(cls, dofs, rows):
        point = np.array([np.reshape(r.coefficients, (2, -1)) for r in rows])
        return cls(dofs, [r.servo for r in rows], [r.target for r in rows], [r.relative for r in rows], point)

    def coefficients(self, t):
        theta = self._theta(t)
        return np.sin(theta)[:, None] * self.point[:, 0] - np.cos(theta)[:, None] * self.point[:, 1]

    def time_derivative(self, q, t):
        theta = self._theta(t)
        rate = np.array([tr.rate(t)[0] for tr in self.trajectories])
        x = np.einsum("kij,kj->ki", self.point, q[:, :-1])
        return rate * (np.cos(theta) * x[:, 0] + np.sin(theta) * x[:, 1])

    def referenced(self, q):
        """theta(t) = atan2(y0, x0) + trajectory(t) - trajectory(0) for the relative rows."""
        x = np.einsum("kij,kj->ki", self.point, q[:, :-1])
        start = np.arctan2(x[:, 1], x[:, 0]) - np.array([tr.value(0.0)[0] for tr in self.trajectories])
        return _with_reference(self, np.where(self.relative, start, 0.0))

    def on_branch(self, q, t=0.0):
        """The ray, not the opposite one: cos(theta - atan2(y, x)) > 0."""
        theta = self._theta(t)
        x = np.einsum("kij,kj->ki", self.point, q[:, :-1])
        return np.cos(theta) * x[:, 0] + np.sin(theta) * x[:, 1] > 0


def _read_only(values):
    """A read-only float copy of ``values``: the start values of a family stay as made."""
    values = np.array(values, dtype=float)
    values.flags.writeable = False
    return values


def _with_reference(family, reference):
    """A new family like ``family`` (the same rows, coordinates and trajectories) with the start values
    ``reference`` (K,; an orientation servo's reference rotation (3, 3))."""
    new = copy.copy(family)
    new.reference = _read_only(reference)
    return new


FAMILIES = {"point": ServoTrajectory, "coordinate": ServoTrajectory, "angle": ServoAngle,
            "orientation": ServoOrientation, "polar": ServoPolar}
