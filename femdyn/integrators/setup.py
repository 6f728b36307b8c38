"""The setup of a run: the placed initial state assembled where asked (``model.assembly``), the model of
the run (the built model with its servo references fixed from the initial state), the state checked
against the constraints, the independent constraint rows chosen, and the state projected onto the
constraint manifold (``model.initial``)."""
from dataclasses import dataclass

import numpy as np

from ..model.assembly import Assembly
from ..model.assembly import assemble as close_loops
from ..model.errors import ModelError
from ..model.initial import check_inertia_fixed, independent_rows, project, wrong_angle_branch


@dataclass
class Setup:
    model: object  # the model the run steps: the built one with its servo references fixed from q0
    q0: np.ndarray
    v0: np.ndarray
    active_rows: np.ndarray
    dropped: list  # (row label, [joints it depends on])
    initial_violation: float
    assembly: Assembly | None = None  # what ``assemble`` did, where the pose was assembled
    pose: np.ndarray | None = None  # the assembled (projected) pose before a start in equilibrium replaced q0

    @property
    def start(self) -> np.ndarray:
        """The pose the run was set up from: assembled and projected, before any static equilibrium
        (``studies.run.prepare_case``) -- the rigid pose from which a sag is measured."""
        return self.q0 if self.pose is None else self.pose


def prepare(model, q, v, tolerance=1e-6, assemble=False, hold=None) -> Setup:
    """Assemble the placed configuration q where asked (``assemble``: close the loops holding the
    coordinates or bodies named in ``hold``, by default ``assembly.default_hold``), fix the relative servo
    targets from it in the model of the run (``Model.with_servo_references``; ``model`` itself is
    unchanged), check q against the constraints (to ``tolerance``), find independent constraints,
    project onto the manifold."""
    if not (np.isfinite(q).all() and np.isfinite(v).all()):
        raise ModelError("initial", "the initial coordinates or velocities are not finite")
    if hold is not None and not assemble:
        raise ModelError("initial.hold", "holds coordinates in an assembly: only with assemble = true")
    report = None
    if assemble:
        q, report = close_loops(model, q, hold)
    model = model.with_servo_references(q)  # from here on: the model of this run
    residual = model.phi(q)
    if not np.isfinite(residual).all():
        bad = model.constraint_labels()[int(np.flatnonzero(~np.isfinite(residual))[0])]
        raise ModelError("initial", f"the initial configuration's residual of {bad} is not finite (points, positions "
                         "or angles too large to represent)")
    worst = int(np.argmax(np.abs(residual))) if model.m else 0
    violation = float(np.abs(residual[worst])) if model.m else 0.0
    if not violation <= tolerance:
        raise ModelError("initial", f"the initial configuration violates {model.constraint_labels()[worst]} "
                         f"by {violation:.3g} (tolerance {tolerance:g})")
    wrong = wrong_angle_branch(model, q)
    turned = sorted({label for c in model.constraints if c.time_dependent
                     for label, ok in zip(c.labels, c.on_branch(q[c.dofs])) if not ok})
    if turned:
        raise ModelError("servos", f"servo {', '.join(turned)}: the initial orientation is turned by pi "
                         "from its target (the servo rows also vanish there)")
    if wrong:
        raise ModelError("initial", f"the angle of joint {', '.join(wrong)} is off by pi from the "
                         "relative rotation of its bodies")
    problems = [problem for f in model.forces for problem in f.check_initial(q[f.dofs])]
    if problems:
        raise ModelError(*problems[0])
    active, dropped = independent_rows(model, q)
    servo = set(model.input_rows.tolist())
    bad = [(row, on) for (row, on), r in zip(dropped, np.setdiff1d(np.arange(model.m), active)) if r in servo]
    if bad:
        raise ModelError("servos", "servo constraints that depend on the joints or on each other: "
                         + "; ".join(f"{row} (with {', '.join(on) or 'the bodies'})" for row, on in bad))
    check_inertia_fixed(model, q, active)
    q, v = project(model, q, v, active)
    return Setup(model, q, v, active, dropped, violation, report)
