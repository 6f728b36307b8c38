"""Automatic assembly of an approximate initial pose: the loops closed by moving the rigid coordinates
that are not held, the links kept undeformed.

A pose given to a few millimetres and degrees (bodies placed by hand, ``initial.place``) violates the
loop-closure constraints Phi(q) = 0. ``assemble`` finds the pose of the rigid mechanism nearest to it in
the kinetic-energy metric W (``weights``) with the held coordinates fixed: the free
coordinates f -- the frames [phi, d_a] of the bodies and the augmented joint coordinates, less the held
ones -- move by Levenberg-Marquardt steps on Phi_f (Levenberg 1944, Marquardt 1963; Nocedal & Wright
2006, sec. 10.3) in their dual, least-W-norm form

    dq_f = -W_f^-1 G_f^T (A + mu diag(A))^-1 Phi,      A = G_f W_f^-1 G_f^T,  G_f = dPhi/dq_f,

which for mu -> 0 is the minimal-norm Gauss-Newton step of the existing projection (``initial.project``,
quadratically convergent where G_f has full row rank) and for larger mu a short step down the gradient
of |Phi|^2 (Marquardt's scaling by diag(A): the damping does not depend on the rows' units), so that a
pose that cannot be closed goes towards the least-squares point, whose largest residuals name the loop
that stays open. mu starts at ``DAMPING`` (enough to regularise redundant rows, which a consistent pose
satisfies anyway), is divided by 10 after a step that lowers |Phi| (down to ``DAMPING``) and multiplied
by 10 after one that does not; beyond ``STALLED``, or after 100 steps, the pose is refused. After each
step the directors of the frames moved are made orthonormal again (the nearest rotation, Higham 1986:
U V^T of their SVD): the bodies stay rigid, so that a loop that cannot close is left open in its joints,
never by a body stretched; near an assembly that changes the step by its square, and the convergence
stays quadratic (3 or 4 steps from 1 cm and 0.05 rad off, ``tests/physics/test_assembly.py``).

The elastic coordinates of flexible bodies (and their carriers) are not moved: the assembly is that of
the rigid limit of the model, so that a later static equilibrium measures the sag from a pose whose
links are straight, never the assembly correction. A given elastic state (``elastic = {mode, ..}``) is
taken off before and embedded again after (``with_elastic`` of the body), in its body frame. The servo
rows are not part of the assembly: the relative targets start from the assembled pose
(``Model.with_servo_references``); an absolute target is checked against it by ``prepare``.

Held by default (``default_hold``): the actuated coordinates (the servo inputs of ``[control]``), the
joint coordinates that coordinate servos drive or joint loads act on, and the coordinates of the joints
with the ground -- the coordinates a designer sets a mechanism by. A body named in ``hold`` keeps its
whole frame.
"""
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..joints.servo import Servo
from ..numerics import kinematics as kin
from ..numerics.cholesky import cholesky
from .errors import ModelError

FIELD = "initial.assemble"  # the field an assembly's refusal names
TOLERANCE = 1e-12  # the largest residual of an assembled pose, relative to max(1, |q|)
DAMPING = 1e-12  # the least damping mu, relative to the diagonal of G W^-1 G^T
STALLED = 1e4  # mu beyond this: no step lowers |Phi| (a pose at a least-squares point)


@dataclass(frozen=True)
class Assembly:
    """What ``assemble`` did: the names held, the Levenberg-Marquardt steps taken, the largest residual
    left and, per body moved, the correction of its frame: (name, origin moved [m], turned [rad]),
    largest first."""

    held: tuple
    iterations: int
    residual: float
    corrections: tuple

    def line(self) -> str:
        """One line: what was held and every body's correction."""
        moved = ", ".join(f"{name} {shift:.3g} m {turn:.3g} rad" for name, shift, turn in self.corrections)
        return (f"assembled the initial pose in {self.iterations} steps (residual {self.residual:.2g}), "
                f"holding {', '.join(self.held) or 'nothing'}; frames moved: {moved or 'none'}")


def rigid_count(model) -> int:
    """The number of rigid coordinates: the bodies' frames (the ground's included) and the augmented
    joint coordinates, which come first in q (``model.Model``); the rest are elastic."""
    return (len(model.bodies) + (model.ground is not None)) * kin.body_size(model.dim) + len(model.joint_coordinates)


def actuated(model) -> list:
    """Names of the actuated joint coordinates: the servo inputs, then those joint loads drive."""
    names = list(model.inputs) + [load.coordinate for load in model.spec.coordinate_loads]
    return list(dict.fromkeys(names))


def default_hold(model) -> list:
    """The names of the coordinates held by default (module docstring), in the order of q."""
    coordinate = {i: name for name, i in model.joint_coordinates.items()}
    held = {model.joint_coordinates[name] for name in actuated(model)}
    for servo in model.constraints:  # the joint coordinates that coordinate servos drive
        if isinstance(servo, Servo):
            held |= {int(i) for i in np.ravel(servo.dofs[:, :-1]) if i in coordinate}  # the last: its input
    for joint in model.joints:
        if model.ground in (joint.body1, joint.body2):
            held |= set(joint.coordinates.values())
    return [coordinate[i] for i in sorted(held)]


def held_indices(model, names, field="initial.hold"):
    """The coordinates (indices into q) that the ``names`` hold: a joint coordinate, or a body's frame."""
    bodies = {b.name: i for i, b in enumerate(model.bodies)}
    out = []
    for name in names:
        if name in model.joint_coordinates:
            out.append([model.joint_coordinates[name]])
        elif name in bodies:
            out.append(model.body_dofs(bodies[name]))
        else:
            known = ", ".join(model.joint_coordinates) or "none"
            raise ModelError(field, f"'{name}' is neither a joint coordinate ({known}) nor a body")
    return np.unique(np.concatenate(out)).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


def weights(model):
    """Kinetic-energy metric of the projections, floored at 1e-8 of the largest mass entry so that
    massless augmented coordinates and nearly massless directors (slender bodies) keep G W^-1 G^T
    well conditioned; any positive metric gives a consistent state."""
    w = model.mass_matrix.diagonal().copy()
    return np.maximum(w, 1e-8 * (w.max() if np.any(w > 0) else 1.0))


def close(model, q, free, rows, weights, tolerance=TOLERANCE, max_iterations=100, rigid=False):
    """Levenberg-Marquardt steps (module docstring) on the coordinates ``free`` (a Boolean mask) that
    bring Phi_rows(q) to at most tolerance * max(1, |q|). Returns (q, steps, converged, residual vector
    over ``rows``); rows that the free coordinates do not enter keep their residual. ``rigid``: after each
    step the free frames' directors are made orthonormal again (``orthonormal``), so that a pose that
    cannot be closed is left open in its joints, never by a body stretched."""
    q = np.array(q, dtype=float)
    columns = np.flatnonzero(free)
    w_inv = sp.diags(1.0 / weights[columns])
    bound = tolerance * max(1.0, np.abs(q).max(initial=0.0))
    frames = _free_frames(model, free) if rigid else None

    def phi(q):
        return model.phi(q)[rows]

    residual = phi(q)
    steps, mu = 0, DAMPING
    while np.abs(residual).max(initial=0.0) > bound and steps < max_iterations:
        G = model.jacobian(q, rows)[:, columns]
        entered = np.flatnonzero(np.abs(G).sum(axis=1).A1 > 0)
        if np.abs(residual[entered]).max(initial=0.0) <= bound:
            break  # what is left, the free coordinates cannot change
        G = G[entered]
        A = (G @ w_inv @ G.T).tocsc()
        D = sp.diags(A.diagonal())
        norm = np.linalg.norm(residual)
        while True:
            factor = cholesky((A + mu * D).tocsc())
            trial = q.copy()
            trial[columns] -= w_inv @ (G.T @ factor(residual[entered]))
            if frames is not None:
                trial = orthonormal(model, trial, frames)
            after = phi(trial)
            if np.all(np.isfinite(after)) and np.linalg.norm(after) < norm:
                q, residual, mu = trial, after, max(mu / 10.0, DAMPING)
                break
            mu *= 10.0
            if mu > STALLED:
                return q, steps, False, residual
        steps += 1
    return q, steps, bool(np.abs(residual).max(initial=0.0) <= bound), residual


def _free_frames(model, free):
    """Indices (F, dim, dim) of the directors of the frames whose directors are all free."""
    dim, size = model.dim, kin.body_size(model.dim)
    starts = np.arange(len(model.bodies)) * size + dim
    blocks = starts[:, None] + np.arange(dim * dim)
    return blocks[free[blocks].all(axis=1)].reshape(-1, dim, dim)


def orthonormal(model, q, frames):
    """q with the directors at ``frames`` (F, dim, dim: rows d_a) replaced by the nearest orthonormal
    ones with the same handedness (the rotation of the polar decomposition, U V^T of the SVD)."""
    U, _, Vt = np.linalg.svd(q[frames])
    flip = np.linalg.det(U @ Vt) < 0  # a reflection: turn the least singular direction back
    U[flip, :, -1] *= -1
    q = q.copy()
    q[frames] = U @ Vt
    return q


def _frame_corrections(model, before, after):
    """(name, origin moved [m], turned [rad]) of every body whose frame moved, largest first."""
    c0, R0 = model.frames(before)
    c1, R1 = model.frames(after)
    shift = np.linalg.norm(c1 - c0, axis=-1)
    relative = np.einsum("bij,bkj->bik", R1, R0)  # R1 R0^T
    if model.dim == 2:
        turn = np.abs(np.arctan2(relative[:, 1, 0], relative[:, 0, 0]))
    else:
        turn = np.arccos(np.clip((np.trace(relative, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0))
    noise = TOLERANCE * max(1.0, np.abs(before).max(initial=0.0))  # round-off of an unmoved frame
    moved = [(b.name, float(s), float(t)) for b, s, t in zip(model.bodies, shift, turn) if s > noise or t > noise]
    return tuple(sorted(moved, key=lambda m: (-m[1], -m[2])))


def _open_loops(model, rows, residual, count=5):
    """'the joints X, Y stay open, by R at most and S in all' from the residual over ``rows``: the
    constraints (joints by name) with the largest residual norms (the length of a joint's gap, for its
    position rows), down to a tenth of the largest, at most ``count``."""
    labels = model.constraint_labels()[rows]
    squares = {}
    for label, r in zip(labels, residual):
        name = label.split(" row ")[0]
        squares[name] = squares.get(name, 0.0) + float(r) ** 2
    ranked = sorted(((name, np.sqrt(s)) for name, s in squares.items()), key=lambda item: -item[1])
    top = [(name, r) for name, r in ranked[:count] if r >= 0.1 * ranked[0][1]]
    return (f"{', '.join(name for name, _ in top)} stay{'s' * (len(top) == 1)} open, by {top[0][1]:.3g} at most and "
            f"{sum(r for _, r in top):.3g} in all (the norm of each one's residual)")


def assemble(model, q, hold=None) -> tuple:
    """The pose nearest q of the rigid mechanism that closes every loop with the coordinates named in
    ``hold`` (joint coordinates or bodies; None: ``default_hold``) fixed (module docstring). Returns
    (q, ``Assembly``); a pose that cannot be closed is a ModelError naming the joints with the largest
    residual and that residual."""
    hold = default_hold(model) if hold is None else list(hold)
    held = held_indices(model, hold)
    free = np.zeros(model.n, dtype=bool)
    free[:rigid_count(model)] = True
    free[held] = False
    if model.ground is not None:
        free[model.body_dofs(model.ground)] = False
    rows = np.concatenate([np.zeros(0, dtype=np.int64), *(c.rows.ravel() for c in model.constraints
                                                          if not c.time_dependent)]).astype(np.int64)
    elastic = [(b.flexible, b.flexible.elastic_coordinates(q)) for b in model.bodies if b.flexible is not None]
    rigid = np.array(q, dtype=float)
    scratch = np.zeros(model.n)
    for body, coordinates in elastic:
        rigid, _ = body.with_elastic(rigid, scratch, np.zeros_like(coordinates))
    closed, steps, converged, residual = close(model, rigid, free, rows, weights(model), rigid=True)
    if not converged:
        held_text = f"with {', '.join(hold)} held" if hold else "with nothing held"
        raise ModelError(FIELD, f"the initial pose cannot be assembled {held_text}: at the pose nearest to it "
                         f"{_open_loops(model, rows, residual)}; give a pose nearer to an assembly, or hold other "
                         "coordinates (initial.hold)")
    for body, coordinates in elastic:
        closed, _ = body.with_elastic(closed, scratch, coordinates)
    report = Assembly(tuple(hold), steps, float(np.abs(residual).max(initial=0.0)),
                      _frame_corrections(model, q, closed))
    return closed, report
