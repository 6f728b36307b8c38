"""``Problem.check``: the problem loaded and prepared without simulating, and its model described
(``CheckResult``, what ``femdyn check`` prints): the bodies and joints, the numbers of coordinates and of
constraint rows by kind, the degrees of freedom (coordinates minus independent constraint rows), the
redundant rows dropped (``integrators.setup.prepare``), the initial constraint violation, the servo
problem's zero dynamics at the initial pose (``integrators.zero_dynamics``), the conditioning of the rigid
mechanism the probes' deviation is measured from (``model.deviation``) and the step check
(``integrators.diagnostics.step_check``). Also the one-line descriptions the commands share: the dropped
rows (``dropped``) and the flexible bodies' model (``flexible_line``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..casefile.case import Case
    from ..integrators.setup import Setup
    from ..integrators.zero_dynamics import ZeroDynamics
    from ..model.model import Model


@dataclass(frozen=True)
class CheckResult:
    """What ``Problem.check`` found (module docstring): the problem described, nothing simulated.

    Attributes:
        case: the case's path (a Python-built problem: its name); title: its title.
        dimension: 2 (planar) or 3 (spatial).
        flexible: the line on the flexible bodies' model, or None without flexible bodies.
        bodies: one line per body: its mass [kg], Euler values [kg m^2] and, for a flexible body, its beam
            (elements, length [m], elastic and model coordinates).
        joints: one line per joint: its type, the bodies it joins and its joint coordinates.
        n: the number of coordinates; m: of constraint rows; active: of the independent rows kept.
        coordinate_kinds: {"body frames", "joint coordinates", "flexible bodies": number of coordinates}.
        constraint_kinds: {kind: number of rows}, in the order of the rows (the first word of their labels:
            orthonormality, anchor, a joint type, slope, carrier, section, servo).
        dropped: the redundant rows dropped: (row label, [joints it depends on]).
        initial_violation: the largest constraint residual of the initial pose before it was projected
            (the rows' units, m or 1); initial_tolerance: the largest the settings accept.
        assembly: the line on the assembly of the initial pose, or None where it was not assembled.
        servos: whether the model has servo constraints (its inputs the servos' forces or torques).
        zero_dynamics: the servo problem's ``ZeroDynamics`` at the initial pose, or None (no servos, or not
            linearised: ``zero_dynamics_error`` says why).
        rigid_mechanism: what the rigid mechanism of the probes' deviation is held at, or None without
            probes; effector: the points of its Jacobian.
        condition_number: the condition number of its actuated-to-effector Jacobian at the start (NaN where
            it has none, None without probes); smallest_singular_value: that Jacobian's smallest singular
            value [m per unit of the actuated coordinates].
        condition_bound: the condition number above which a pose is near singular.
        step: the time step [s]; shortest_period: (what, period [s]) of the shortest prescribed motion, or
            None; step_warning: the warning where the step exceeds half that period, else None.
    """

    case: str
    title: str
    dimension: int
    flexible: str | None
    bodies: tuple[str, ...]
    joints: tuple[str, ...]
    n: int
    m: int
    active: int
    coordinate_kinds: dict[str, int]
    constraint_kinds: dict[str, int]
    dropped: tuple[tuple[str, tuple[str, ...]], ...]
    initial_violation: float
    initial_tolerance: float
    assembly: str | None
    servos: bool
    zero_dynamics: ZeroDynamics | None
    zero_dynamics_error: str | None
    rigid_mechanism: str | None
    effector: str | None
    condition_number: float | None
    smallest_singular_value: float | None
    condition_bound: float
    step: float
    shortest_period: tuple[str, float] | None
    step_warning: str | None

    @property
    def degrees_of_freedom(self) -> int:
        """The coordinates less the independent constraint rows: n - active."""
        return self.n - self.active

    @property
    def near_singular(self) -> bool:
        """Whether the rigid mechanism's Jacobian at the start is near singular (condition number above
        ``condition_bound``)."""
        return self.condition_number is not None and self.condition_number > self.condition_bound

    @property
    def warnings(self) -> list[str]:
        """The warnings ``femdyn check`` prints on stderr: near a singular pose, a step too long."""
        from ..post.probes import near_singular

        singular = [near_singular(self.condition_number)] if self.near_singular else []
        return singular + [self.step_warning] * (self.step_warning is not None)

    def lines(self) -> list[str]:
        """The lines ``femdyn check`` prints on stdout."""
        lines = [f"{self.case}: {self.title}", f"dimension {self.dimension}", *filter(None, [self.flexible]),
                 f"bodies ({len(self.bodies)}):", *(f"  {b}" for b in self.bodies), f"joints ({len(self.joints)}):",
                 *(f"  {j}" for j in self.joints),
                 f"coordinates n = {self.n}, constraints m = {self.m}, active rows {self.active}, "
                 f"degrees of freedom {self.degrees_of_freedom}",
                 f"  coordinates: {', '.join(f'{kind} {count}' for kind, count in self.coordinate_kinds.items())}",
                 f"  constraint rows: {', '.join(f'{k} {c}' for k, c in self.constraint_kinds.items()) or 'none'}",
                 f"dropped constraints: {dropped(self.dropped)}",
                 f"initial constraint violation {self.initial_violation:.3g} (tolerance {self.initial_tolerance:g})",
                 *filter(None, [self.assembly])]
        if self.servos:
            lines.append("servo problem (zero dynamics at the initial pose):")
            zero = self.zero_dynamics
            lines += zero.lines() if zero else [f"  not linearised: {self.zero_dynamics_error}"]
        if self.rigid_mechanism is not None:
            lines.append(f"rigid mechanism (the probes' deviation from it): {self.rigid_mechanism}")
            kappa, smallest = self.condition_number, self.smallest_singular_value
            none = kappa is None or math.isnan(kappa)
            lines.append("  conditioning: none (no actuated coordinate, or no assembled pose)" if none else
                         f"  conditioning at the start (actuated coordinates to {self.effector}): condition number "
                         f"{kappa:.4g}, smallest singular value {smallest:.4g} (effector m per unit of the actuated "
                         f"coordinates; near a singular pose above {self.condition_bound:g})")
        return lines

    def summary(self) -> str:
        """The text ``femdyn check`` prints on stdout (``lines`` joined)."""
        return "\n".join(self.lines())

    def __repr__(self) -> str:
        zero = self.zero_dynamics
        servos = "" if not self.servos else (f"; zero dynamics {'minimum' if zero.minimum_phase else 'non-minimum'} phase"
                                             if zero else "; zero dynamics not linearised")
        kappa = "" if self.condition_number is None else f"; condition number {self.condition_number:.4g}"
        return (f"<CheckResult {self.title!r}: {self.dimension}D, {len(self.bodies)} bodies, {len(self.joints)} "
                f"joints, n = {self.n}, m = {self.m}, {self.degrees_of_freedom} degrees of freedom, "
                f"{len(self.dropped)} dropped rows, initial violation {self.initial_violation:.3g}{servos}{kappa}"
                f"{'; ' + str(len(self.warnings)) + ' warnings' if self.warnings else ''}>")


def check(case: Case, setup: Setup) -> CheckResult:
    """The ``CheckResult`` of ``case`` prepared as ``setup`` (``Problem.check``)."""
    from ..integrators.diagnostics import shortest_period, step_check
    from ..model.errors import GROUND
    from ..model.rigid_mechanism import CONDITION_BOUND

    model = case.model
    names = [b.name for b in model.bodies] + [GROUND]
    joints = tuple(f"{j.name}: {j.type}, {names[j.body1]} - {names[j.body2]}"
                   + "".join(f", {kind} '{model.coordinate_names[i]}'" for kind, i in j.coordinates.items())
                   for j in model.joints)
    rigid: tuple[Any, ...] = _rigid_mechanism(case, setup) if case.probes else (None, None, None, None)
    period = shortest_period(model)
    return CheckResult(
        case=str(case.path), title=case.title, dimension=model.dim, flexible=flexible_line(case),
        bodies=tuple(f"{b.name}: mass {b.mass:g}, Euler values {', '.join(f'{e:g}' for e in b.euler)}"
                     f"{_beam(b.flexible)}" for b in model.bodies),
        joints=joints, n=model.n, m=model.m, active=len(setup.active_rows),
        coordinate_kinds=_coordinate_kinds(model), constraint_kinds=_constraint_kinds(model),
        dropped=tuple((row, tuple(on)) for row, on in setup.dropped),
        initial_violation=float(setup.initial_violation),
        initial_tolerance=case.settings.initial_tolerance, assembly=setup.assembly.line() if setup.assembly else None,
        servos=bool(model.inputs), **_zero_dynamics(setup, bool(model.inputs)),
        rigid_mechanism=rigid[0], effector=rigid[1], condition_number=rigid[2], smallest_singular_value=rigid[3],
        condition_bound=CONDITION_BOUND, step=case.settings.step,
        shortest_period=None if period is None else (period[0], float(period[1])),
        step_warning=step_check(case.settings, model).get("step_warning"))


def _rigid_mechanism(case: Case, setup: Setup) -> tuple[str, str, float, float]:
    """The rigid mechanism the probes' deviation is measured from (``model.deviation``): what it is held
    at, its effector, and the condition number and smallest singular value of its actuated-to-effector
    Jacobian at the initial pose (NaN where it has none)."""
    from ..model.deviation import Deviation

    deviation = Deviation(setup.model, case.probes, setup.q0)
    about = deviation.describe()
    kappa, smallest = deviation.conditioning(setup.q0)
    return about["against"], about["effector"], kappa, smallest


def _zero_dynamics(setup: Setup, servos: bool) -> dict[str, Any]:
    """The servo problem's zero dynamics (``zero_dynamics``), or why it is not found; none without servos."""
    import numpy as np

    from ..integrators.modes import ModesError
    from ..integrators.zero_dynamics import zero_dynamics

    if not servos:
        return {"zero_dynamics": None, "zero_dynamics_error": None}
    try:
        return {"zero_dynamics": zero_dynamics(setup), "zero_dynamics_error": None}
    except (ModesError, ValueError, np.linalg.LinAlgError) as err:
        return {"zero_dynamics": None, "zero_dynamics_error": str(err)}


def _beam(flexible: Any) -> str:
    """', beam of K elements, L m, N coordinates' for a flexible body ('' for a rigid one)."""
    if flexible is None:
        return ""
    elements = flexible.beam.elements
    return (f"; beam of {len(elements.length)} element{'s' * (len(elements.length) > 1)}, "
            f"{elements.length.sum():g} m, {flexible.beam.n_coordinates} elastic coordinates in "
            f"{flexible.n_coordinates} model coordinates")


def _coordinate_kinds(model: Model) -> dict[str, int]:
    """The model's coordinates by kind: the bodies' frames, the joint coordinates, the flexible bodies'
    elastic parts."""
    flexible = sum(f.n_coordinates for f in model.flexible)
    joints = len(model.joint_coordinates)
    return {"body frames": model.n - joints - flexible, "joint coordinates": joints, "flexible bodies": flexible}


def _constraint_kinds(model: Model) -> dict[str, int]:
    """The constraint rows by kind (the first word of their labels: orthonormality, anchor, a joint type,
    the flexible bodies' slope, carrier and section rows, servo), in the order of the rows."""
    kinds: dict[str, int] = {}
    for label in model.constraint_labels():
        kind = label.split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def dropped(pairs: Any) -> str:
    """One line on the dropped redundant constraint rows: (row, [joints it depends on]) pairs."""
    return "; ".join(f"{row} (depends on {', '.join(on) or 'the bodies alone'})" for row, on in pairs) or "none"


def flexible_line(case: Case) -> str | None:
    """One line on the model of the flexible bodies, or None if there are none."""
    from ..model.segments import SEPARATOR  # loaded with the case already: not at start-up

    bodies = case.model.flexible
    if not bodies:
        return None
    s = case.flexible
    counts = sorted({len(b.beam.nodes) - 1 for b in bodies})
    per_body = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    parts = ["rigid limit"] if s.model == "rigid" else [
        f"{s.model}, {per_body} element{'s' if counts[-1] > 1 else ''} per body"]
    parts += [f"{s.modes} modes per body"] if s.modes and s.model != "rigid" else []
    parts += ["geometric stiffening"] if s.stiffening else []
    links = sum(SEPARATOR not in b.name for b in bodies)  # a segmented link's first segment has its name
    parts += [f"{len(bodies)} floating-frame segments in {links} link{'s' * (links > 1)}"] * (links < len(bodies))
    return (f"flexible bodies ({len(bodies)}): {', '.join(parts)}; "
            f"{sum(b.beam.n_coordinates for b in bodies)} elastic coordinates")
