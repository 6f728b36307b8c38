"""``femdyn static CASE``: the static equilibrium of a case under gravity and its loads at a time, the
servos held at their targets (``integrators.statics``), written as the result folder of a run with one
frame (``post.equilibrium``); it prints the servo inputs that hold the pose, every probe's deflection
(the end effector's static deflection) and every strain gauge's strain and stress. Exit code 1 if there
is no equilibrium (its reason on one line)."""
import math
import sys

from ..integrators.statics import StaticsError
from ..model.deviation import SINGULAR_WORDS
from ..post.folders import default_folder, output_folder
from ..post.probes import ELASTIC
from .arguments import at_option, flexible_options, load_problem, out_options
from ..api.check import flexible_line
from .output import say


def add(commands):
    """Add the ``static`` subcommand (its arguments and handler) to ``commands``."""
    static = commands.add_parser(
        "static", help="static equilibrium under gravity and the loads, servos held; the deflection it implies",
        description="Solve the static equilibrium of the case (Newton's method from its initial configuration, "
        "gravity and loads taken at --at, servos held at their targets there, dampers carrying nothing) and "
        "write it as the result folder of a run with one frame (history.csv, bodies.csv, probes.csv, the "
        "ParaView frame, summary.json with the equilibrium, static.json). Prints the servo inputs that hold "
        "the pose and every probe's displacement from the initial configuration and elastic deflection. "
        "Exit code 1 if there is no equilibrium.")
    static.add_argument("case", metavar="CASE", help="case file (TOML)")
    at_option(static)
    out_options(static, "result folder (default: results/<case>_static); an existing folder is replaced only if it "
                "is empty or an earlier result folder femdyn made, unless --force")
    static.add_argument("--no-vtk", action="store_true", help="do not write the ParaView frame")
    flexible_options(static)
    static.set_defaults(handler=handle)


def _vector(values, unit):
    return "(" + ", ".join(f"{v:.6g}" for v in values) + f") {unit}"


def report(case, static):
    """The lines printed for the equilibrium ``static`` (the part ``post.equilibrium.write_static`` returns)."""
    dim = case.model.dim
    lines = [f"static equilibrium at t = {static['t']:g} s: {static['newton_iterations']} Newton iterations, "
             f"force residual {static['force_residual']:.3g}, constraint residual {static['constraint_residual']:.3g}"]
    if static["inputs"]:
        lines.append("servo inputs holding the pose: " + ", ".join(
            f"{name} = {entry['value']:.6g} {entry['unit']}" for name, entry in static["inputs"].items()))
    if static.get("deviation"):
        lines.append(f"rigid mechanism {static['deviation']['against']}")
    for name, entry in static["probes"].items():
        rotation = "angle" if dim == 2 else "rotation vector"
        if not all(map(math.isfinite, entry["deviation"])):
            lines.append(f"probe {name}: deviation from the rigid mechanism undefined: {SINGULAR_WORDS}")
            continue
        lines.append(f"probe {name}: deviation from the rigid mechanism {_vector(entry['deviation'], 'm')}, "
                     f"{rotation} {_vector(entry['deviation_rotation'], 'rad')}")
    for name, entry in static["probes"].items():
        line = f"probe {name}: displacement from the initial configuration {_vector(entry['displacement'], 'm')}"
        if "elastic_x" in entry:
            world = [entry[c] for c in ELASTIC[dim][:dim]]
            turned = [entry["elastic_angle"]] if dim == 2 else [entry[f"elastic_r{a}"] for a in "xyz"]
            line += f"; elastic deflection from its body frame {_vector(world, 'm')} (world axes)"
            if dim == 3:
                line += f", {_vector([entry[f'elastic_{a}'] for a in '123'], 'm')} (along the body's d1, d2, d3)"
            line += f", section rotation {_vector(turned, 'rad')}"
        lines.append(line)
    for name, strain in static.get("gauges", {}).items():
        if name.endswith(".strain"):
            gauge = name.removesuffix(".strain")
            lines.append(f"gauge {gauge}: strain {strain:.6g}, stress {static['gauges'][gauge + '.stress']:.6g} Pa "
                         "(tension positive)")
    return lines


def handle(args):
    problem = load_problem(args)
    problem = problem.with_output(vtk=problem.case.vtk and not args.no_vtk)
    case = problem.case
    out = output_folder(args.out or default_folder(case.path, "static"), force=args.force)
    try:
        result = problem.static(t=args.at)
    except StaticsError as err:
        print(f"error: {case.path}: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    try:
        written = result.write(out, force=args.force)
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    assembled = result.setup.assembly and result.setup.assembly.line()
    say("\n".join(filter(None, [flexible_line(case), assembled, *report(case, written), f"results in {out}"])))
    return 0
