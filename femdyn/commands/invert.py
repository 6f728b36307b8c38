"""``femdyn invert CASE``: stable inversion of a case's servo problem (``studies.inversion``): the
inputs over [-pre, t_end + post] with pre- and post-actuation, checked by a forward run of the same
model with those inputs as joint loads (the closed-loop check; its path error is printed). Writes
inputs.csv (t_mid and one column per input coordinate), check.csv (t and the servo rows' residual of
the forward run) and summary.json into the result folder. Exit codes: 0 done, 1 the inversion or the
forward run failed (the reason on one line), 2 bad input."""
import sys

from ..integrators.inversion import InversionError, MovingTarget
from ..integrators.modes import ModesError
from ..integrators.statics import StaticsError
from ..post.folders import default_folder, output_folder
from .arguments import flexible_options, load_problem, out_options, positive_float
from ..api.check import flexible_line
from .output import say


def add(commands):
    """Add the ``invert`` subcommand (its arguments and handler) to ``commands``."""
    invert = commands.add_parser(
        "invert", help="stable inversion of the servo problem (non-minimum phase), checked by a forward run",
        description="Solve the servo constraints of all time steps at once (energy-momentum steps, the "
        "internal dynamics on the unstable manifold at the start and the stable one at the end: pre- and "
        "post-actuation over [inversion] pre and post), then feed the inputs to a forward run of the same "
        "model and print the path error (the servo rows' largest residual).")
    invert.add_argument("case", metavar="CASE", help="case file (TOML) with servos and [control] inputs")
    invert.add_argument("--pre", type=positive_float, metavar="S", help="horizon before t = 0 (overrides inversion.pre)")
    invert.add_argument("--post", type=positive_float, metavar="S",
                        help="horizon after t_end (overrides inversion.post)")
    invert.add_argument("--check-dt", type=positive_float, metavar="DT",
                        help="time step of the forward check (default the case's dt)")
    out_options(invert, "result folder (default: results/<case>_inverse)")
    flexible_options(invert)
    invert.set_defaults(handler=handle)


def handle(args):
    problem = load_problem(args)
    case = problem.case
    problem.inversion_settings()  # a wrong [inversion] is refused first
    out = output_folder(args.out or default_folder(case.path, "inverse"), force=args.force)
    if not case.model.inputs:
        print(f"error: {case.path}: servos: the case has no servo constraints to invert", file=sys.stderr)
        return 2
    try:
        result = problem.invert(args.pre, args.post, args.check_dt)
    except MovingTarget as err:
        print(f"error: {case.path}: servos.{err.servo}.trajectory: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except (InversionError, StaticsError, ModesError) as err:
        print(f"error: {case.path}: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    try:
        result.write(out, force=args.force)
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    inversion, z = result.inversion, result.zero
    say("\n".join(filter(None, [
        flexible_line(case),
        f"stable inversion over [{inversion.t[0]:g}, {inversion.t[-1]:g}] s: {len(inversion.inputs)} steps, "
        f"{inversion.iterations} Newton iterations; zero dynamics: "
        + ("minimum phase" if z.minimum_phase else f"non-minimum phase, {z.sigma_text()}"),
        f"closed-loop check (forward run with these inputs): path error {result.path_error:.3g}",
        f"results in {out}"])))
    return 0
