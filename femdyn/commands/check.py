"""``femdyn check CASE``: load and prepare a case without simulating, and describe its model."""
from ..model.errors import GROUND
from ..studies.run import prepare_case
from .arguments import flexible_options, load
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
    case = load(args)
    setup = prepare_case(case)
    model = case.model
    names = [b.name for b in model.bodies] + [GROUND]
    active = len(setup.active_rows)
    lines = [f"{case.path}: {case.title}", f"dimension {model.dim}", *filter(None, [flexible_line(case)]),
             f"bodies ({len(model.bodies)}):"]
    lines += [f"  {b.name}: mass {b.mass:g}, Euler values {', '.join(f'{e:g}' for e in b.euler)}"
              for b in model.bodies]
    lines.append(f"joints ({len(model.joints)}):")
    for j in model.joints:
        coords = "".join(f", {kind} '{model.coordinate_names[i]}'" for kind, i in j.coordinates.items())
        lines.append(f"  {j.name}: {j.type}, {names[j.body1]} - {names[j.body2]}{coords}")
    lines += [
        f"coordinates n = {model.n}, constraints m = {model.m}, active rows {active}, "
        f"degrees of freedom {model.n - active}",
        f"dropped constraints: {dropped(setup.dropped)}",
        f"initial constraint violation {setup.initial_violation:.3g} "
        f"(tolerance {case.settings.initial_tolerance:g})",
    ]
    say("\n".join(lines))
    return 0
