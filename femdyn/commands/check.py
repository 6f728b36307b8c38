"""``femdyn check CASE``: load and prepare a case without simulating, and describe its model."""
import sys

import numpy as np

from ..integrators.diagnostics import step_check
from ..integrators.modes import ModesError
from ..integrators.zero_dynamics import zero_dynamics
from ..post.probes import near_singular
from ..model.deviation import Deviation
from ..model.errors import GROUND
from ..model.rigid_mechanism import CONDITION_BOUND
from .arguments import flexible_options, load_problem
from .output import dropped, flexible_line, say


def add(commands):
    """Add the ``check`` subcommand (its arguments and handler) to ``commands``."""
    check = commands.add_parser(
        "check", help="validate a case and describe its model",
        description="Load the case and check the initial configuration without simulating; print the "
        "bodies, joints, numbers of coordinates and constraints, degrees of freedom, redundant "
        "(dropped) constraints and the initial constraint violation.")
    check.add_argument("case", metavar="CASE", help="case file (TOML)")
    flexible_options(check)
    check.set_defaults(handler=handle)


def handle(args):
    problem = load_problem(args)
    case, setup = problem.case, problem.setup()
    model = case.model
    names = [b.name for b in model.bodies] + [GROUND]
    active = len(setup.active_rows)
    lines = [f"{case.path}: {case.title}", f"dimension {model.dim}", *filter(None, [flexible_line(case)]),
             f"bodies ({len(model.bodies)}):"]
    lines += [f"  {b.name}: mass {b.mass:g}, Euler values {', '.join(f'{e:g}' for e in b.euler)}{_beam(b.flexible)}"
              for b in model.bodies]
    lines.append(f"joints ({len(model.joints)}):")
    for j in model.joints:
        coords = "".join(f", {kind} '{model.coordinate_names[i]}'" for kind, i in j.coordinates.items())
        lines.append(f"  {j.name}: {j.type}, {names[j.body1]} - {names[j.body2]}{coords}")
    lines += [
        f"coordinates n = {model.n}, constraints m = {model.m}, active rows {active}, "
        f"degrees of freedom {model.n - active}",
        f"  coordinates: {_coordinate_kinds(model)}",
        f"  constraint rows: {_constraint_kinds(model)}",
        f"dropped constraints: {dropped(setup.dropped)}",
        f"initial constraint violation {setup.initial_violation:.3g} "
        f"(tolerance {case.settings.initial_tolerance:g})",
        *([setup.assembly.line()] if setup.assembly else []),
    ]
    if model.inputs:
        lines += ["servo problem (zero dynamics at the initial pose):", *_zero_dynamics(setup)]
    singular = None
    if case.probes:
        rigid, singular = _rigid_mechanism(case, setup)
        lines += rigid
    say("\n".join(lines))
    if singular:
        print(f"warning: {singular}", file=sys.stderr)
    warning = step_check(case.settings, model).get("step_warning")
    if warning:  # the run would go on: a warning, not a refusal
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _rigid_mechanism(case, setup):
    """The lines on the rigid mechanism the probes' deviation is measured from (``model.deviation``) and
    the conditioning of its actuated-to-effector Jacobian at the initial pose; the warning near a
    singular pose (None elsewhere)."""
    deviation = Deviation(setup.model, case.probes, setup.q0)
    about = deviation.describe()
    kappa, smallest = deviation.conditioning(setup.q0)
    lines = [f"rigid mechanism (the probes' deviation from it): {about['against']}"]
    if np.isnan(kappa):
        return lines + ["  conditioning: none (no actuated coordinate, or no assembled pose)"], None
    lines += [f"  conditioning at the start (actuated coordinates to {about['effector']}): condition number "
             f"{kappa:.4g}, smallest singular value {smallest:.4g} (effector m per unit of the actuated "
             f"coordinates; near a singular pose above {CONDITION_BOUND:g})"]
    return lines, near_singular(kappa) if kappa > CONDITION_BOUND else None


def _zero_dynamics(setup):
    """The servo section: collocation and transmission zeros (``zero_dynamics``), or why not found."""
    try:
        return zero_dynamics(setup).lines()
    except (ModesError, ValueError, np.linalg.LinAlgError) as err:
        return [f"  not linearised: {err}"]


def _beam(flexible):
    """', beam of K elements, L m, N coordinates' for a flexible body ('' for a rigid one)."""
    if flexible is None:
        return ""
    elements = flexible.beam.elements
    return (f"; beam of {len(elements.length)} element{'s' * (len(elements.length) > 1)}, "
            f"{elements.length.sum():g} m, {flexible.beam.n_coordinates} elastic coordinates in "
            f"{flexible.n_coordinates} model coordinates")


def _coordinate_kinds(model):
    """The model's coordinates by kind: the bodies' frames, the joint coordinates, the flexible bodies'
    elastic parts."""
    flexible = sum(f.n_coordinates for f in model.flexible)
    joints = len(model.joint_coordinates)
    return f"body frames {model.n - joints - flexible}, joint coordinates {joints}, flexible bodies {flexible}"


def _constraint_kinds(model):
    """The constraint rows by kind (the first word of their labels: orthonormality, anchor, a joint type,
    the flexible bodies' slope, carrier and section rows, servo), in the order of the rows."""
    kinds = {}
    for label in model.constraint_labels():
        kind = label.split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{kind} {count}" for kind, count in kinds.items()) or "none"
