"""``femdyn check CASE``: load and prepare a case without simulating, and describe its model
(``Problem.check``, ``api.check.CheckResult``): its lines on stdout, its warnings on stderr."""
import sys

from .arguments import flexible_options, load_problem
from .output import say


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
    result = load_problem(args).check()
    say(result.summary())
    for warning in result.warnings:  # the run would go on: warnings, not refusals
        print(f"warning: {warning}", file=sys.stderr)
    return 0
