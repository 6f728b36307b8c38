"""Command line: ``femdyn run CASE`` simulates a case file into a result folder, ``femdyn check CASE``
validates it and describes the model. Bad input is reported as one line
``error: <file>: <field>: <message>`` on stderr with exit code 2.

Exit codes: 0 done, 1 the run stopped early (Newton failure) or the results could not be written,
2 bad input or a refused output folder, 130 interrupted (Ctrl-C).
"""
import argparse
import math
import dataclasses
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import __version__
from .beam.meshes import write_straight_beam
from .convergence import ConvergenceError, convergence_benchmark
from .integrators.energy_momentum import NewtonOptions
from .io.case import CaseError, check_case_run, load_case
from .io.output import write_results
from .io.plots import plot_overlay
from .io.tables import read_csv
from .model import GROUND, ModelError
from .progress import Progress
from .simulate import check_run, prepare, simulate

INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """Reports usage errors in one line."""

    def error(self, message):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _finite_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def _positive_int(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got '{text}'")
    return int(text)


def _levels(text):
    value = _positive_int(text)
    if not 2 <= value <= 12:
        raise argparse.ArgumentTypeError(f"must be between 2 and 12, got {value}")
    return value


def _elements(text):
    value = _positive_int(text)
    if value > 1_000_000:
        raise argparse.ArgumentTypeError(f"at most 1000000 elements, got {value}")
    return value


def _parser():
    parser = _Parser(prog="femdyn", description="Energy-momentum dynamics of parallel manipulators "
                     "(rigid director bodies). Cases are TOML files; see femdyn/io/case.py.",
                     epilog="exit codes: 0 done, 1 the run stopped early or its results could not be "
                     "written, 2 bad input or a refused output folder, 130 interrupted")
    parser.add_argument("--version", action="version", version=f"femdyn {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run", help="simulate a case and write a result folder",
        description="Load the case, check the initial configuration, simulate, and write history.csv, "
        "bodies.csv, plots, a ParaView series (motion.pvd, vtk/) and summary.json into the result "
        "folder. Exit code 1 if the run stops early (the steps computed so far are written).")
    run.add_argument("case", metavar="CASE", help="case file (TOML)")
    run.add_argument("--dt", type=_positive_float, help="time step (overrides solver.dt)")
    run.add_argument("--t-end", type=_positive_float, metavar="T", help="end time (overrides solver.t_end)")
    run.add_argument("--out", type=Path, metavar="DIR",
                     help="result folder (default: results/<case file stem>); an existing folder is "
                     "replaced only if it is empty or an earlier result folder (has summary.json)")
    run.add_argument("--every", type=_positive_int, metavar="K",
                     help="write every K-th step as a ParaView frame, and the last (overrides "
                     "output.every; default: about 500 frames)")
    run.add_argument("--no-vtk", action="store_true", help="do not write the ParaView series")
    run.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--compare-dt", type=_positive_float, nargs="+", metavar="DT",
                     help="also run with each of these time steps (quietly) and overlay the joint "
                     "coordinates of all runs in joint_coordinates_dt.png; put CASE before this option")
    run.set_defaults(handler=_run)

    compare = commands.add_parser(
        "compare", help="overlay a quantity from several result folders in one plot",
        description="Read the same CSV from several result folders (e.g. a case with and without joint "
        "friction, 001 Fig. 5a) and overlay its columns in one PNG.")
    compare.add_argument("folders", metavar="DIR", type=Path, nargs="+", help="result folders of femdyn run")
    compare.add_argument("--table", default="inputs", choices=("inputs", "history", "bodies"),
                         help="which CSV to read (default: inputs, the servo inputs)")
    compare.add_argument("--columns", nargs="+", metavar="NAME",
                         help="columns to plot (default: all but t; for history: the joint coordinates)")
    compare.add_argument("--out", type=Path, default=Path("comparison.png"), metavar="PNG",
                         help="plot file (default: comparison.png)")
    compare.set_defaults(handler=_compare)

    bench = commands.add_parser("bench", help="benchmarks: convergence studies",
                                description="Benchmarks that a user runs on a case.")
    studies = bench.add_subparsers(dest="study", required=True, metavar="STUDY")
    convergence = studies.add_parser(
        "convergence", help="refinement study in dt: errors and observed orders",
        description="Run the case at dt, dt/2, ..., compare the chosen outputs at the end time with a "
        "reference (Richardson extrapolation by default), print a table of errors and observed orders, "
        "and write convergence.txt, convergence.json and a log-log convergence.png. Exit code 1 if an "
        "order cannot be observed (errors at round-off, errors that do not decrease).")
    convergence.add_argument("case", metavar="CASE", help="case file (TOML)")
    convergence.add_argument("--quantity", nargs="+", metavar="Q",
                             help="outputs: a joint coordinate, BODY.x/.y/.z/.angle, input:COORD (a servo "
                             "input), energy_error (default: all joint coordinates and servo inputs)")
    convergence.add_argument("--levels", type=_levels, default=4,
                             help="number of runs dt, dt/2, ... (2 to 12, default 4)")
    convergence.add_argument("--dt", type=_positive_float, nargs="+", metavar="DT",
                             help="explicit time steps instead of halving the case's dt")
    convergence.add_argument("--reference", default="richardson",
                             help="richardson (default), finest, differences, or an exact value")
    convergence.add_argument("--time", type=_positive_float, help="compare at this time (default: the end)")
    convergence.add_argument("--t-end", type=_positive_float, metavar="T", help="end time (overrides solver.t_end)")
    convergence.add_argument("--out", type=Path, metavar="DIR",
                             help="folder for the files (default: results/<case>_convergence)")
    convergence.set_defaults(handler=_bench_convergence)

    mesh = commands.add_parser(
        "mesh", help="write a straight-beam centre-line mesh",
        description="Write the centre line of a straight beam of N equal elements (line cells) as VTK "
        ".vtu or gmsh .msh, for flexible links.")
    mesh.add_argument("out", metavar="FILE", type=Path, help="mesh file to write (.vtu or .msh)")
    mesh.add_argument("--length", type=_positive_float, required=True, help="beam length")
    mesh.add_argument("--elements", type=_elements, required=True, metavar="N", help="number of elements")
    mesh.add_argument("--start", type=_finite_float, nargs=2, default=(0.0, 0.0), metavar=("X", "Y"),
                      help="first node (default 0 0)")
    mesh.add_argument("--angle", type=_finite_float, default=0.0,
                      help="direction from the x axis in radians (default 0)")
    mesh.set_defaults(handler=_mesh)

    check = commands.add_parser(
        "check", help="validate a case and describe its model",
        description="Load the case and check the initial configuration without simulating; print the "
        "bodies, joints, numbers of coordinates and constraints, degrees of freedom, redundant "
        "(dropped) constraints and the initial constraint violation.")
    check.add_argument("case", metavar="CASE", help="case file (TOML)")
    check.set_defaults(handler=_check)
    return parser


def main(argv=None):
    """Run the command line ``argv`` (default: sys.argv[1:]); returns the exit code."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as done:  # --help, --version and usage errors
        return int(done.code or 0)
    try:
        return args.handler(args)
    except CaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; no results written", file=sys.stderr)
        return INTERRUPTED


def _prepare(case):
    """``prepare`` with configuration errors reported against the case file."""
    try:
        return prepare(case.model, case.q0, case.v0, tolerance=case.initial_tolerance)
    except ModelError as err:
        raise CaseError(case.path, err.field, err.message) from None


class _CtrlC:
    """Notes whether Ctrl-C arrived while active; KeyboardInterrupt is raised as usual. A run that
    ``simulate`` ends early on Ctrl-C (returning the steps so far) is told apart from a Newton failure
    by this flag. Only the main thread can handle signals; elsewhere it notes nothing."""

    def __enter__(self):
        self.seen = False
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        self.seen = True
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def _refusal(out):
    """Why the folder ``out`` may not be replaced by a result folder, or None."""
    if not out.exists():
        return None
    if not out.is_dir():
        return "exists and is not a folder; not replacing it"
    if (out / "summary.json").is_file() or not any(out.iterdir()):
        return None
    return "exists and is not a femdyn result folder (no summary.json); not replacing it"


def _write(out, case, results, wall_time, compare):
    """Write the results into a temporary sibling of ``out``, then move it into place; an earlier
    result folder is put back if the move fails."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    partial.chmod(0o777 & ~umask)  # mkdtemp makes it private; a result folder is an ordinary one
    old = None
    try:
        summary = write_results(partial, case, results, wall_time, compare)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            out.replace(old)  # onto the empty placeholder
        try:
            partial.rename(out)
        except OSError:
            if old is not None:
                old.rename(out)
                old = None
            raise
    finally:
        for leftover in (partial, old):
            if leftover is not None and leftover.exists():
                shutil.rmtree(leftover)
    return summary


def _run(args):
    case = load_case(args.case)
    case = dataclasses.replace(
        case, dt=args.dt or case.dt, t_end=args.t_end or case.t_end, every=args.every or case.every,
        vtk=case.vtk and not args.no_vtk, plots=case.plots and not args.no_plots)
    check_case_run(case)
    out = args.out or Path("results") / case.path.stem
    refusal = _refusal(out)
    if refusal:
        print(f"error: {out}: {refusal}", file=sys.stderr)
        return 2
    setup = _prepare(case)
    options = NewtonOptions(case.tolerance, case.max_iterations)
    compare = []
    with _CtrlC() as ctrl_c:
        start = time.perf_counter()
        with Progress(case.steps, case.path.stem, enabled=not args.quiet) as bar:
            results = simulate(case.model, setup, case.dt, case.t_end, options, progress=bar)
        wall_time = time.perf_counter() - start
        for dt in args.compare_dt or ():
            if ctrl_c.seen:
                break
            other = simulate(case.model, setup, dt, case.t_end, options)
            if not other.complete:
                print(f"note: the comparison run with dt = {dt:g} stopped early: {other.message}",
                      file=sys.stderr)
            coords = {name: other.q[:, i] for name, i in case.model.joint_coordinates.items()}
            compare.append((f"dt = {other.dt:g}", other.t, coords))
    try:
        summary = _write(out, case, results, wall_time, compare)
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    _say(_report(summary, out))
    if ctrl_c.seen:
        print(f"interrupted: the steps up to t = {results.t[-1]:g} are kept in {out}", file=sys.stderr)
        return INTERRUPTED
    if not results.complete:
        print(f"error: the run stopped early: {results.message}", file=sys.stderr)
        return 1
    return 0


def _say(text):
    """Print to stdout; a reader that closed the pipe (e.g. head) does not change the exit code."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _dropped(pairs):
    """One line on the dropped redundant constraint rows: (row, [joints it depends on]) pairs."""
    return "; ".join(f"{row} (depends on {', '.join(on) or 'the bodies alone'})" for row, on in pairs) or "none"


def _report(s, out):
    """A short paragraph on a finished run from its summary."""
    dropped = _dropped((d["constraint"], d["depends_on"]) for d in s["dropped_constraints"])
    steps = s["steps"] if s["complete"] else f"{s['steps']} of {s['steps_planned']}"
    return "\n".join([
        f"{steps} steps of dt = {s['dt']:g} to t = {s['t_reached']:g} in "
        f"{s['wall_time_s']:.3g} s ({s['ms_per_step']:.3g} ms/step)",
        f"Newton iterations per step: mean {s['newton_iterations_mean']:.3g}, "
        f"max {s['newton_iterations_max']}",
        f"energy balance error max |H - H0 - W|: {s['max_abs_energy_balance']:.3g}; "
        f"energy drift (H - H0 - W at the end)/max(|H|, T): {s['energy_drift']:.3g}",
        f"max constraint residual: {s['max_constraint_residual']:.3g}",
        f"dropped redundant constraints: {dropped}",
        f"results in {out}: {', '.join(s['files'])}",
    ])


def _compare(args):
    runs = []
    for folder in args.folders:
        path = folder / f"{args.table}.csv"
        try:
            table = read_csv(path)
        except OSError as err:
            raise CaseError(path, "file", f"cannot read ({err.strerror or err})") from None
        except ValueError as err:
            raise CaseError(path, "file", f"not a femdyn table ({err})") from None
        columns = args.columns or [c for c in table if c != "t"]
        if not columns:
            raise CaseError(path, "columns", "nothing to plot (the table has only t)")
        missing = [c for c in columns if c not in table]
        if missing or "t" not in table:
            raise CaseError(path, "columns", f"no column {', '.join(missing or ['t'])} "
                            f"(has: {', '.join(table)})")
        runs += [(f"{c}, {folder.name}", table["t"], table[c]) for c in columns]
    if args.out.suffix.lower() != ".png":
        raise CaseError(args.out, "--out", "the plot is written as PNG: give a file name ending in .png")
    try:
        plot_overlay(args.out, runs, args.table, " vs ".join(f.name for f in args.folders))
    except OSError as err:
        raise CaseError(args.out, "--out", f"cannot write ({err.strerror or err})") from None
    _say(f"wrote {args.out}")
    return 0


def _bench_convergence(args):
    case = load_case(args.case)
    reference = args.reference
    if reference not in ("richardson", "finest", "differences"):
        try:
            reference = float(reference)
        except ValueError:
            reference = float("nan")
        if not math.isfinite(reference):
            raise CaseError(args.case, "--reference", f"'{args.reference}' is not richardson, finest, "
                            "differences or a finite number")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise CaseError(args.out, "--out", "exists and is not a folder")
    # refuse runs that cannot be carried out before spending time on the others
    smallest = min(args.dt) if args.dt else case.dt / 2 ** (args.levels - 1)
    try:
        check_run(case.model, smallest / 4, args.t_end or case.t_end)
    except ModelError as err:
        raise CaseError(args.case, f"solver.{err.field}", f"the finest run of the study: {err.message}") from None
    try:
        convergence_benchmark(case, args.quantity, dts=args.dt, levels=args.levels, reference=reference,
                              time=args.time, t_end=args.t_end, folder=args.out, echo=_say,
                              log=lambda line: print(line, file=sys.stderr))
    except ConvergenceError as err:
        print(f"error: {args.case}: {err}", file=sys.stderr)
        return 1
    except ModelError as err:
        raise CaseError(args.case, err.field, err.message) from None
    except OSError as err:
        raise CaseError(args.out or args.case, "--out", f"cannot write the study ({err.strerror or err})") from None
    except ValueError as err:
        raise CaseError(args.case, "--quantity/--dt/--time", str(err)) from None
    return 0


def _mesh(args):
    try:
        path = write_straight_beam(args.out, args.length, args.elements, args.start, args.angle)
    except ValueError as err:
        raise CaseError(args.out, "file", str(err).removeprefix(f"{args.out}: ")) from None
    except OSError as err:
        raise CaseError(args.out, "file", f"cannot write ({err.strerror or err})") from None
    _say(f"wrote {path}: {args.elements} elements, length {args.length:g}")
    return 0


def _check(args):
    case = load_case(args.case)
    setup = _prepare(case)
    model = case.model
    names = [b.name for b in model.bodies] + [GROUND]
    active = len(setup.active_rows)
    lines = [f"{case.path}: {case.title}", f"dimension {model.dim}", f"bodies ({len(model.bodies)}):"]
    lines += [f"  {b.name}: mass {b.mass:g}, Euler values {', '.join(f'{e:g}' for e in b.euler)}"
              for b in model.bodies]
    lines.append(f"joints ({len(model.joints)}):")
    for j in model.joints:
        coords = "".join(f", {kind} '{model.coordinate_names[i]}'" for kind, i in j.coordinates.items())
        lines.append(f"  {j.name}: {j.type}, {names[j.body1]} - {names[j.body2]}{coords}")
    lines += [
        f"coordinates n = {model.n}, constraints m = {model.m}, active rows {active}, "
        f"degrees of freedom {model.n - active}",
        f"dropped constraints: {_dropped(setup.dropped)}",
        f"initial constraint violation {setup.initial_violation:.3g} (tolerance {case.initial_tolerance:g})",
    ]
    _say("\n".join(lines))
    return 0
