"""``femdyn linearize CASE``: the linear plant of a case's mechanism at its static equilibrium
(``integrators.statics``, ``integrators.linearize``), servos held or free, at the initial configuration
or at a time of a run (``--at T --result DIR``: Newton starts from the run's pose there), or about the
steady motion (``--moving``) or the stored state of frame K of a run (``--result DIR --frame K``,
``integrators.motion``), with inputs
(forces on joint coordinates, the case's loads by name, world forces at probes) and outputs (joint
coordinates, probe positions, deviations from the rigid mechanism, reactions):
``statespace.npz``, ``linearize.json`` and a Bode plot per input-output pair (``post.statespace``). Exit
code 1 if there is no equilibrium or the linearisation is refused (its reason on one line)."""
import sys

from ..integrators.modes import ModesError
from ..integrators.statics import StaticsError
from ..casefile.case import CaseError
from ..post.folders import default_folder, output_folder
from ..post.statespace import SUMMARY, default_signals, signals
from .campbell import frame_option
from .arguments import equilibrium_options, flexible_options, load_problem, out_options
from ..api.check import flexible_line
from .output import say


def _names(text):
    return [name for name in text.split(",") if name]


def add(commands):
    """Add the ``linearize`` subcommand (its arguments and handler) to ``commands``."""
    parser = commands.add_parser(
        "linearize", help="linear state-space model (A, B, C, D) at the static equilibrium, poles, zeros, Bode plots",
        description="Find the static equilibrium of the case at --at (from its initial configuration, or from the "
        "pose of the run in --result at that time), linearise there with the bodies' damping, eliminate the "
        "constraints by a null-space basis and write the first-order model from the --inputs to the --outputs: "
        "statespace.npz (A, B, C, D; the descriptor form E, A_d, B_d, C_d, D_d; names and units), linearize.json "
        "(poles in Hz with damping ratios, DC gains, transmission zeros per pair) and bode_<output>_<input>.png. "
        "Exit code 1 if there is no equilibrium or the linearisation is refused.")
    parser.add_argument("case", metavar="CASE", help="case file (TOML)")
    equilibrium_options(parser)
    parser.add_argument("--inputs", type=_names, metavar="NAMES",
                        help="comma-separated inputs: joint coordinates and joint loads by name (a torque [N m] on an "
                        "angle, a force [N] on a slide), PROBE.fx, .fy, .fz (a world force [N] at a probe's point) "
                        "and LOAD.fx .. (at a point-force load's point; a load's name, else loads.K); default: "
                        "the [control] inputs, else every joint coordinate")
    parser.add_argument("--outputs", type=_names, metavar="NAMES",
                        help="comma-separated outputs, deviations from the equilibrium: joint coordinates [rad, m], "
                        "PROBE.x, .y, .z (world position [m] of a probe's point), PROBE.deviation_x .. (its "
                        "deviation from the rigid mechanism [m, rad], as in probes.csv) and joint reactions "
                        "J.B.force_x .. [N, N m] (as in reactions.csv); default: every probe's position, else "
                        "every joint coordinate")
    parser.add_argument("--moving", action="store_true",
                        help="about the steady motion the servos impose at --at (gyroscopic and centrifugal terms) "
                        "instead of a static equilibrium; --observer BODY: the turning frame it is seen from")
    parser.add_argument("--observer", metavar="BODY", help="with --moving or --frame: the body whose turning frame "
                        "the model is seen from ('world': not turning; default: the body that turns fastest)")
    frame_option(parser)
    out_options(parser, "folder for the files (default: results/<case>_linearize); an existing folder is replaced "
                "only if it is empty or an earlier linearize folder (has linearize.json)")
    parser.add_argument("--no-plots", action="store_true", help="do not draw the Bode plots")
    flexible_options(parser)
    parser.set_defaults(handler=handle)


def handle(args):
    problem = load_problem(args)
    case = problem.case
    try:  # the names are checked before anything is solved
        default_inputs, default_outputs = default_signals(case)
        signals(case, args.inputs if args.inputs is not None else default_inputs, "inputs")
    except ValueError as err:
        raise CaseError(case.path, "--inputs", str(err)) from None
    try:
        signals(case, args.outputs if args.outputs is not None else default_outputs, "outputs")
    except ValueError as err:
        raise CaseError(case.path, "--outputs", str(err)) from None
    out = output_folder(args.out or default_folder(case.path, "linearize"), SUMMARY, "an earlier linearize folder",
                        force=args.force)
    try:
        result = problem.linearize(args.inputs, args.outputs, args.at, args.servos, args.result, args.moving,
                                   args.observer, args.frame)
    except (StaticsError, ModesError) as err:
        print(f"error: {case.path}: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    try:
        data = result.write(out, plots=not args.no_plots, force=args.force)
    except OSError as err:
        print(f"error: {out}: cannot write the linear model: {err}", file=sys.stderr)
        return 1
    plant = result.plant
    at = (f"the state of frame {args.frame} of {args.result} (t = {plant.t:g} s)" if args.frame is not None else
          f"the {'steady motion' if args.moving else 'static equilibrium'} at t = {args.at:g} s")
    lines = [f"linear model at {at}, "
             f"servos {args.servos}: "
             f"{len(plant.states)} states, {len(plant.inputs)} inputs, {len(plant.outputs)} outputs",
             f"{'pole':>4}  {'f [Hz]':>12}  {'damping ratio':>13}"]
    lines += [f"{k + 1:>4}  {p['frequency_hz']:>12.6g}  {p['damping_ratio']:>13.4g}"
              for k, p in enumerate(data["poles"][:10])]
    for output, gains in data["dc_gains"].items():
        lines += [f"DC gain {output} / {input}: {g['value']:.6g} {g['unit']}" for input, g in gains.items()]
    say("\n".join(filter(None, [flexible_line(case), *lines, f"results in {out}"])))
    return 0
