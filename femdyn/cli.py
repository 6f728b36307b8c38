"""Command line: ``femdyn run CASE`` simulates a case file into a result folder, ``femdyn check CASE``
validates it and describes the model (both with ``--flexible``/``--elements`` overriding the case's
flexible bodies), ``femdyn sensitivity CASE`` differentiates a probe's motion with respect to the beam
parameters, ``femdyn sweep CASE`` runs parameter sweeps and that study on Dask (``sweep``),
``femdyn view RESULT`` shows a result's ParaView series. Bad input is reported as one line
``error: <file>: <field>: <message>`` on stderr with exit code 2.

Exit codes: 0 done, 1 the run stopped early (Newton failure) or the results could not be written,
2 bad input or a refused output folder, 130 interrupted (Ctrl-C).
"""
import argparse
import contextlib
import dataclasses
import math
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import __version__
from .integrators.newton import NEWTON_METHODS
from .integrators.setup import prepare
from .integrators.time_loop import INTEGRATORS, check_run, simulate
from .io import viewer
from .io.beams import MAX_ELEMENTS, MODELS, PARAMETERS, Options
from .io.case import CaseError, check_case_run, load_case
from .io.meshes import write_straight_beam
from .io.plots import plot_overlay
from .io.progress import Progress
from .io.results import write_results
from .io.tables import read_csv
from .model.errors import GROUND, ModelError
from .studies import sweep as sweeps
from .studies.convergence import FILES as STUDY_FILES
from .studies.convergence import ConvergenceError, convergence_benchmark, study_folder
from .studies.sensitivity import (
    SensitivityError,
    parse_parameters,
    plan_study,
    run_study,
    step_warnings,
    table,
    write_study,
)

INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """Reports usage errors in one line."""

    def error(self, message):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def _spectral_radius(text):
    value = _finite_float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def _positive_float(text):
    value = _finite_float(text)
    if not value > 0:
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
    if value > MAX_ELEMENTS:
        raise argparse.ArgumentTypeError(f"at most {MAX_ELEMENTS} elements, got {value}")
    return value


def _relative_step(text):
    value = _positive_float(text)
    if not value <= 0.1:
        raise argparse.ArgumentTypeError(f"a relative step must be at most 0.1, got {text}")
    return value


def _parameters(text):
    try:
        return parse_parameters(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _sweep_parameter(text):
    try:
        return sweeps.parse_parameter(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _seed(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got '{text}'")
    return int(text)


def _frame(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a frame number >= 0, got '{text}'")
    return int(text)


def _flexible_options(parser):
    """--flexible and --elements: override the case's [flexible] settings."""
    parser.add_argument("--flexible", choices=MODELS,
                        help="model of the flexible (beam) bodies: fem, rayleigh-ritz or rigid (the rigid "
                        "limit, no elastic coordinates); overrides flexible.model")
    parser.add_argument("--elements", type=_elements, metavar="N",
                        help="elements of each straight fem beam (overrides flexible.elements)")


def _parser():
    parser = _Parser(prog="femdyn", description="Energy-momentum dynamics of parallel manipulators "
                     "(rigid director bodies, flexible FFR beams). Cases are TOML files; see femdyn/io/case.py.",
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
    run.add_argument("--integrator", choices=INTEGRATORS,
                     help="time integrator (overrides solver.integrator; default energy-momentum)")
    run.add_argument("--rho-inf", type=_spectral_radius, metavar="R",
                     help="spectral radius in [0, 1] of generalized-alpha (overrides solver.rho_inf)")
    run.add_argument("--newton", choices=NEWTON_METHODS,
                     help="full Newton, or modified Newton reusing the factorised matrix while it "
                     "contracts fast enough (overrides solver.newton; default full)")
    run.add_argument("--out", type=Path, metavar="DIR",
                     help="result folder (default: results/<case file stem>); an existing folder is "
                     "replaced only if it is empty or an earlier result folder (has summary.json)")
    run.add_argument("--every", type=_positive_int, metavar="K",
                     help="write every K-th step as a ParaView frame, and the last (overrides "
                     "output.every; default: about 500 frames)")
    run.add_argument("--no-vtk", action="store_true", help="do not write the ParaView series")
    run.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    _flexible_options(run)
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
    compare.add_argument("--table", default="inputs", choices=("inputs", "history", "bodies", "probes"),
                         help="which CSV to read (default: inputs, the servo inputs; probes: e.g. the end effector of a rigid and a flexible run)")
    compare.add_argument("--columns", nargs="+", metavar="NAME",
                         help="columns to plot (default: all but t; for history: the joint coordinates)")
    compare.add_argument("--out", type=Path, default=Path("comparison.png"), metavar="PNG",
                         help="plot file (default: comparison.png)")
    compare.set_defaults(handler=_compare)

    bench = commands.add_parser("bench", help="benchmarks: convergence studies",
                                description="Benchmarks that a user runs on a case.")
    studies = bench.add_subparsers(dest="study", required=True, metavar="STUDY")
    convergence = studies.add_parser(
        "convergence", help="refinement study in dt or in elements: errors and observed orders",
        description="Run the case at dt, dt/2, ... (or, with --refine elements, with n, 2n, ... elements "
        "per beam at one time step), compare the chosen outputs at the end time with a reference "
        "(Richardson extrapolation of two finer runs by default), print a table of errors and observed "
        "orders, and write convergence.txt, convergence.json and a log-log convergence.png. Exit code 1 "
        "if an order cannot be observed (errors at round-off, errors that do not decrease).")
    convergence.add_argument("case", metavar="CASE", help="case file (TOML)")
    convergence.add_argument("--refine", choices=("dt", "elements"), default="dt",
                             help="what is refined: the time step (default) or the elements of every fem "
                             "beam, starting from --elements or the case's flexible.elements")
    convergence.add_argument("--quantity", nargs="+", metavar="Q",
                             help="outputs: a joint coordinate, BODY.x/.y/.z/.angle, PROBE.x/.y/.z/.angle and "
                             "on a flexible body PROBE.elastic_x/.elastic_y/.elastic_angle (a probe of the case, "
                             "e.g. the end effector), input:COORD (a servo input), energy_error (default: all "
                             "joint coordinates and servo inputs)")
    convergence.add_argument("--levels", type=_levels, default=4,
                             help="number of runs dt, dt/2, ... or meshes n, 2n, ... (2 to 12, default 4)")
    convergence.add_argument("--dt", type=_positive_float, nargs="+", metavar="DT",
                             help="explicit time steps instead of halving the case's dt; with --refine "
                             "elements one time step for every run (default the case's)")
    convergence.add_argument("--reference", default="richardson",
                             help="richardson (default), finest, differences, or an exact value")
    convergence.add_argument("--order", type=_positive_float, metavar="P",
                             help="nominal order of the Richardson reference (default 2 in dt, 4 in elements)")
    convergence.add_argument("--time", type=_positive_float, help="compare at this time (default: the end)")
    convergence.add_argument("--t-end", type=_positive_float, metavar="T", help="end time (overrides solver.t_end)")
    convergence.add_argument("--out", type=Path, metavar="DIR",
                             help="folder for the files (default: results/<case>_convergence, with --refine "
                             "elements results/<case>_elements_convergence)")
    _flexible_options(convergence)
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
    _flexible_options(check)
    check.set_defaults(handler=_check)

    sensitivity = commands.add_parser(
        "sensitivity", help="gradients of a probe's motion w.r.t. the beam parameters E, rho, b, h",
        description="Central differences of the first probe's (or --probe's) deformed position x, y and "
        "orientation theta over time with respect to E, rho, b, h, each scaled by 1 +- STEP in every beam "
        "body (003 section 8.4), checked against the step 2 STEP. Prints a table and writes "
        "sensitivity.csv (time histories of dY/dp and p dY/dp), sensitivity.json and a bar plot "
        "sensitivity.png. Exit code 1 if a run stops early.")
    sensitivity.add_argument("case", metavar="CASE", help="case file (TOML) with beam bodies and a probe")
    sensitivity.add_argument("--params", type=_parameters, default=tuple(PARAMETERS), metavar="P,P,..",
                             help=f"parameters, comma-separated, of {', '.join(PARAMETERS)} (default: all)")
    sensitivity.add_argument("--step", type=_relative_step, default=1e-4, metavar="H",
                             help="relative step of the central differences (default 1e-4, at most 0.1)")
    sensitivity.add_argument("--probe", metavar="NAME", help="probe to study (default: the first)")
    sensitivity.add_argument("--t-end", type=_positive_float, metavar="T", help="end time (overrides solver.t_end)")
    sensitivity.add_argument("--out", type=Path, metavar="DIR",
                             help="folder for the files (default: results/<case>_sensitivity); an existing "
                             "folder is replaced only if it is empty or an earlier study (has sensitivity.json)")
    _flexible_options(sensitivity)
    sensitivity.add_argument("--quiet", action="store_true", help="no progress bar")
    sensitivity.set_defaults(handler=_sensitivity)

    sweep = commands.add_parser(
        "sweep", help="parameter sweeps and sensitivities on a dask cluster",
        description="Run the case for every sample of a design on dask.distributed workers (a LocalCluster "
        "of --workers processes, or the running scheduler at --scheduler) and write one row per sample: the "
        "parameter values, max and RMS elastic displacement of the first probe (or --probe), max section "
        "stress, energy balance error, max constraint residual, Newton iterations, steps, wall time and "
        "error (the message of a failed sample). OUT holds sweep.json, samples.csv (appended as samples "
        "complete), samples.parquet, response.png and scatter_matrix.png; running the same sweep into "
        "OUT again resumes it, running only the missing samples. With --sensitivity: the study of "
        "'femdyn sensitivity', one task per parameter, written like it.")
    sweep.add_argument("case", metavar="CASE", help="case file (TOML)")
    study = sweep.add_mutually_exclusive_group(required=True)
    study.add_argument("--param", action="append", type=_sweep_parameter, metavar="NAME=SPEC",
                       help="a swept parameter (repeat for more): NAME is E, rho, b or h (that value in every "
                       "beam body) or a dotted path to a number in the case file, with an entry of an array "
                       "by its name or index from 0 (bodies.leg1.beam.h, bodies.3.beam.h, solver.dt, "
                       "gravity.1); SPEC is a:b:n (n values from a to b), a list v1,v2,.. or, for --design "
                       "lhs, a range a:b")
    study.add_argument("--sensitivity", type=_parameters, metavar="P,P,..",
                       help=f"central-difference sensitivities of the probe's motion w.r.t. these of "
                       f"{', '.join(PARAMETERS)} (as femdyn sensitivity, parameters in parallel)")
    sweep.add_argument("--design", choices=sweeps.DESIGNS,
                       help="full factorial (default) or Latin hypercube of --samples points")
    sweep.add_argument("--samples", type=_positive_int, metavar="N", help="points of the Latin hypercube")
    sweep.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the Latin hypercube (default 0)")
    sweep.add_argument("--step", type=_relative_step, metavar="H",
                       help="--sensitivity: relative step of the central differences (default 1e-4)")
    sweep.add_argument("--probe", metavar="NAME", help="probe whose elastic displacement is reported (default: the first)")
    sweep.add_argument("--t-end", type=_positive_float, metavar="T", help="end time (overrides solver.t_end)")
    _flexible_options(sweep)
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running dask scheduler, e.g. tcp://10.0.0.5:8786 (default: start a LocalCluster)")
    sweep.add_argument("--workers", type=_positive_int, metavar="N",
                       help="worker processes of the LocalCluster (default: one per core)")
    sweep.add_argument("--out", type=Path, metavar="OUT",
                       help="result folder (default: results/<case>_sweep, or results/<case>_sensitivity)")
    sweep.add_argument("--restart", action="store_true", help="discard an earlier sweep in OUT instead of resuming it")
    sweep.add_argument("--retry-errors", action="store_true", help="when resuming, run the failed samples again")
    sweep.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(handler=_sweep)

    view = commands.add_parser(
        "view", help="show a result folder's ParaView series (motion.pvd) in pyvista",
        description="Open RESULT/motion.pvd in an interactive pyvista window with a time slider, or with "
        "--screenshot render one frame off-screen to a PNG and exit.")
    view.add_argument("result", metavar="RESULT", type=Path, help="result folder of femdyn run (or its motion.pvd)")
    view.add_argument("--screenshot", type=Path, metavar="PNG", help="render off-screen into this PNG file")
    view.add_argument("--frame", type=_frame, metavar="K", help="frame to show (default: the last)")
    view.add_argument("--scalars", metavar="NAME", help="colour by this point or cell array (default: by body)")
    view.set_defaults(handler=_view)
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


def _output_folder(out, marker="summary.json", what="a femdyn result folder", published=True):
    """``out``, checked before any run as the folder of a new result of the kind that ``marker``
    identifies: CaseError (--out) if it holds something else (a file, or a non-empty folder without
    ``marker``) or cannot be written (``_try_folder``). ``published``: the result is written beside
    ``out`` and moved there (``_publish``); else into ``out`` itself."""
    try:
        if out.exists() and not out.is_dir():
            raise CaseError(out, "--out", "exists and is not a folder; not replacing it")
        if out.is_dir() and any(out.iterdir()) and not (out / marker).is_file():
            raise CaseError(out, "--out", f"exists and is not {what} (no {marker}); not replacing it")
        _try_folder(out, published)
    except OSError as err:
        raise CaseError(out, "--out", f"cannot be created ({err.strerror or err})") from None
    return out


def _try_folder(out, published):
    """Create the folders missing above ``out`` and a trial folder where the result will be written --
    beside ``out`` if ``published`` (as ``_publish`` does) or ``out`` does not exist yet, else in it --
    then remove all of them; CaseError if the nearest existing folder above ``out`` is a file, OSError if
    creating fails."""
    path = out.resolve()  # without the '..' of a path through folders that do not exist yet
    made = [folder for folder in path.parents if not folder.exists()]  # the deepest first
    above = path.parents[len(made)]
    if not above.is_dir():
        raise CaseError(out, "--out", f"{above} is not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        trial = _partial(path) if published or not path.is_dir() else Path(tempfile.mkdtemp(dir=path))
        trial.rmdir()
    finally:
        for folder in made:
            if folder.is_dir():
                folder.rmdir()


def _partial(out):
    """A new empty folder beside ``out`` for its contents until they are complete."""
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))


def _sensitivity_folder(args, plan):
    """The folder of a sensitivity study (``_output_folder``)."""
    out = args.out or Path("results") / f"{plan.case.path.stem}_sensitivity"
    return _output_folder(out, "sensitivity.json", "an earlier sensitivity study")


def _publish(out, write):
    """Call ``write(folder)`` on a temporary sibling of ``out``, then move it into place (an earlier
    folder is put back if the move fails); returns what ``write`` returns."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial(out)
    umask = os.umask(0)
    os.umask(umask)
    partial.chmod(0o777 & ~umask)  # mkdtemp makes it private; a result folder is an ordinary one
    old = None
    try:
        value = write(partial)
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
    return value


def _load(args):
    """The case with the --flexible/--elements overrides of ``args``."""
    _check_elements(args)
    case = load_case(args.case, Options(model=args.flexible, elements=args.elements))
    _check_overrides(args, case)
    return case


def _check_elements(args, t_end=None):
    """Refuse --elements before the model is built with them if its run would store too long a history
    (``check_run``): the case as written is built, and its beams' elastic coordinates and carriers (unless
    modally reduced) are counted in proportion to the elements (3 (n + 1) minus the suppressed ones per
    beam of n elements), the rest as they are. ``t_end``: the end time that the case is loaded with, if
    not its own."""
    if not args.elements:
        return
    case = load_case(args.case, Options(model=args.flexible), None if t_end is None else {"solver.t_end": t_end})
    written = case.flexible.elements  # a case without fem beams has no elastic coordinates to scale
    if args.elements > written and case.flexible.modes is None:
        elastic = 3 * sum(f.n_elastic for f in case.model.flexible)
        coordinates = case.model.n - elastic + -(-elastic * args.elements // written)
        try:
            check_run(coordinates, case.dt, case.t_end)
        except ModelError as err:
            raise CaseError(case.path, "--elements", f"{args.elements} elements per beam give about {coordinates} "
                            f"coordinates: {err.message}, or fewer elements") from None


def _check_overrides(args, case):
    """Refuse --flexible/--elements where they change nothing: no beam bodies, or no fem model."""
    given = [option for option, value in (("--flexible", args.flexible), ("--elements", args.elements)) if value]
    if given and not case.model.flexible:
        raise CaseError(case.path, given[0], "the case has no flexible (beam) bodies")
    if args.elements and case.flexible.model != "fem":
        raise CaseError(case.path, "--elements", f"sets the elements of fem beams; the flexible bodies "
                        f"are {case.flexible.model}")


def _flexible_line(case):
    """One line on the model of the flexible bodies, or None if there are none."""
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
    return (f"flexible bodies ({len(bodies)}): {', '.join(parts)}; "
            f"{sum(b.n_elastic for b in bodies)} elastic coordinates")


def _run(args):
    case = _load(args)
    case = dataclasses.replace(
        case, dt=args.dt or case.dt, t_end=args.t_end or case.t_end, every=args.every or case.every,
        integrator=args.integrator or case.integrator,
        early_stop=(case.early_stop and (args.integrator or case.integrator) == "generalized-alpha"
                    and (args.newton or case.newton) == "full"),
        newton=args.newton or case.newton,
        rho_inf=case.rho_inf if args.rho_inf is None else args.rho_inf,
        vtk=case.vtk and not args.no_vtk, plots=case.plots and not args.no_plots)
    check_case_run(case)
    out = _output_folder(args.out or Path("results") / case.path.stem)
    setup = _prepare(case)
    options = case.newton_options
    compare = []
    with _CtrlC() as ctrl_c:
        start = time.perf_counter()
        with Progress(case.steps, case.path.stem, enabled=not args.quiet) as bar:
            results = simulate(case.model, setup, case.dt, case.t_end, options, progress=bar,
                               integrator=case.integrator, rho_inf=case.rho_inf)
        wall_time = time.perf_counter() - start
        for dt in args.compare_dt or ():
            if ctrl_c.seen:
                break
            other = simulate(case.model, setup, dt, case.t_end, options, integrator=case.integrator,
                             rho_inf=case.rho_inf)
            if not other.complete:
                print(f"note: the comparison run with dt = {dt:g} stopped early: {other.message}",
                      file=sys.stderr)
            coords = {name: other.q[:, i] for name, i in case.model.joint_coordinates.items()}
            compare.append((f"dt = {other.dt:g}", other.t, coords))
    try:
        summary = _publish(out, lambda folder: write_results(folder, case, results, wall_time, compare))
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    _say(_report(summary, out, _flexible_line(case)))
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


def _report(s, out, flexible=None):
    """A short paragraph on a finished run from its summary (and the line on its flexible bodies)."""
    dropped = _dropped((d["constraint"], d["depends_on"]) for d in s["dropped_constraints"])
    steps = s["steps"] if s["complete"] else f"{s['steps']} of {s['steps_planned']}"
    return "\n".join(([flexible] if flexible else []) + [
        f"{steps} steps of dt = {s['dt']:g} to t = {s['t_reached']:g} in "
        f"{s['wall_time_s']:.3g} s ({s['ms_per_step']:.3g} ms/step)",
        f"Newton iterations per step ({s['newton']} Newton): mean {s['newton_iterations_mean']:.3g}, "
        f"max {s['newton_iterations_max']}; Newton matrices factorised: {s['newton_factorisations']}",
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
    case = _load(args)
    reference = args.reference
    if reference not in ("richardson", "finest", "differences"):
        try:
            reference = float(reference)
        except ValueError:
            reference = float("nan")
        if not math.isfinite(reference):
            raise CaseError(args.case, "--reference", f"'{args.reference}' is not richardson, finest, "
                            "differences or a finite number")
    out = _output_folder(args.out or study_folder(case.path, args.refine == "elements"), STUDY_FILES["json"],
                         "an earlier convergence study", published=False)
    study = dict(dts=args.dt)
    if args.refine == "elements":
        study = _element_levels(args, case)
    else:  # refuse runs that cannot be carried out before spending time on the others
        smallest = min(args.dt) if args.dt else case.dt / 2 ** (args.levels - 1)
        try:
            check_run(case.model.n, smallest / 4, args.t_end or case.t_end)
        except ModelError as err:
            raise CaseError(args.case, f"solver.{err.field}", f"the finest run of the study: {err.message}") from None
    try:
        convergence_benchmark(case, args.quantity, levels=args.levels, reference=reference, order=args.order,
                              time=args.time, t_end=args.t_end, folder=out, echo=_say, **study,
                              log=lambda line: print(line, file=sys.stderr), progress=True)
    except ConvergenceError as err:
        print(f"error: {args.case}: {err}", file=sys.stderr)
        return 1
    except ModelError as err:
        raise CaseError(args.case, err.field, err.message) from None
    except OSError as err:
        raise CaseError(out, "--out", f"cannot write the study ({err.strerror or err})") from None
    except CaseError:
        raise
    except ValueError as err:
        raise CaseError(args.case, "--quantity/--dt/--time/--elements", str(err)) from None
    return 0


def _element_levels(args, case):
    """The meshes n, 2n, ... (n = --elements or flexible.elements) and the one time step of a study in
    elements, refused where they cannot be run."""
    if not case.model.flexible:
        raise CaseError(case.path, "--refine", "elements: the case has no flexible (beam) bodies")
    if case.flexible.model != "fem":
        raise CaseError(case.path, "--refine", f"elements refines fem beams; the flexible bodies are "
                        f"{case.flexible.model} (add --flexible fem)")
    if args.dt and len(args.dt) > 1:
        raise CaseError(case.path, "--dt", "with --refine elements give one time step (every mesh runs with it)")
    first = case.flexible.elements
    return dict(elements=[first * 2**k for k in range(args.levels)], dt=args.dt[0] if args.dt else None)


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
    case = _load(args)
    setup = _prepare(case)
    model = case.model
    names = [b.name for b in model.bodies] + [GROUND]
    active = len(setup.active_rows)
    lines = [f"{case.path}: {case.title}", f"dimension {model.dim}", *filter(None, [_flexible_line(case)]),
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
        f"dropped constraints: {_dropped(setup.dropped)}",
        f"initial constraint violation {setup.initial_violation:.3g} (tolerance {case.initial_tolerance:g})",
    ]
    _say("\n".join(lines))
    return 0


def _sensitivity(args):
    _check_elements(args)
    options = Options(model=args.flexible, elements=args.elements)
    plan = plan_study(args.case, args.params, args.step, args.t_end, args.probe, options)
    _check_overrides(args, plan.case)
    out = _sensitivity_folder(args, plan)
    with _CtrlC() as ctrl_c:
        try:
            with Progress(plan.steps, f"{plan.case.path.stem} sensitivity", enabled=not args.quiet) as bar:
                study = run_study(plan, bar)
        except SensitivityError as err:
            if ctrl_c.seen:
                raise KeyboardInterrupt from None
            print(f"error: {plan.case.path}: {err}", file=sys.stderr)
            return 1
    return _write_study(out, plan, study)


def _write_study(out, plan, study):
    """Publish a sensitivity study into ``out``, print its table and the step-check warnings."""
    try:
        files = _publish(out, lambda folder: write_study(folder, study))
    except OSError as err:
        print(f"error: {out}: cannot write the study: {err}", file=sys.stderr)
        return 1
    _say("\n".join([table(study), _flexible_line(plan.case), f"results in {out}: {', '.join(files)}"]))
    for line in step_warnings(study):
        print(f"warning: {line}", file=sys.stderr)
    return 0


def _samples(count):
    return f"{count} sample{'s' * (count != 1)}"


def _sweep(args):
    """femdyn sweep: the samples of a design, or the sensitivity study, on dask.distributed."""
    if args.scheduler and args.workers:
        raise CaseError(args.case, "--workers", "sets the size of the LocalCluster; the scheduler at "
                        "--scheduler has its own workers")
    options = Options(model=args.flexible, elements=args.elements)
    design = [o for o, v in (("--design", args.design), ("--samples", args.samples)) if v is not None]
    if args.sensitivity and design:
        raise CaseError(args.case, design[0], "sets the design of a sweep (--param), not of --sensitivity")
    if args.param and args.step is not None:
        raise CaseError(args.case, "--step", "sets the step of --sensitivity, not of a sweep (--param)")
    _check_elements(args, None if args.sensitivity else args.t_end)
    if args.sensitivity:
        plan = plan_study(args.case, args.sensitivity, args.step or 1e-4, args.t_end, args.probe, options)
        _check_overrides(args, plan.case)
        out = _sensitivity_folder(args, plan)
        rows, todo = [], plan.params
    else:
        plan = sweeps.plan_sweep(args.case, args.param, args.design or "factorial", args.samples, args.seed, args.probe,
                                 args.t_end, options)
        _check_overrides(args, plan.case)
        out = _output_folder(args.out or Path("results") / f"{plan.case.path.stem}_sweep", sweeps.PLAN,
                             "a femdyn sweep folder", published=False)
        rows = sweeps.earlier_rows(out, plan, args.restart, args.retry_errors)
        done = {r["sample"] for r in rows}
        todo = [i for i in range(len(plan.values)) if i not in done]
        _say(f"sweep of {_samples(len(plan.values))} ({plan.design}) over {', '.join(plan.names)}"
             + (f"; resuming: {len(done)} done, {len(todo)} to run" if done else ""))
    start = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            client = stack.enter_context(sweeps.connect(args.scheduler, args.workers)) if todo else None
            if not args.sensitivity:  # once the cluster answers: a bad --scheduler leaves no folder
                sweeps.write_folder(out, plan, rows, args.restart)
            if client is not None:
                workers = len(client.scheduler_info().get("workers", {}))
                link, answers = sweeps.dashboard(client)
                _say(f"dask: {args.scheduler or 'LocalCluster'}, {workers} worker{'s' * (workers != 1)}; "
                     f"dashboard: {link if answers else f'none ({link} does not answer)'}")
            label = f"{plan.case.path.stem} {'sensitivity' if args.sensitivity else 'sweep'}"
            bar = stack.enter_context(sweeps.SampleProgress(len(todo), label, enabled=bool(todo) and not args.quiet))
            if args.sensitivity:
                study = sweeps.sensitivity_study(client, plan, bar)
            elif todo:
                samples_csv = sweeps.Table(out / sweeps.TABLE, plan.columns)

                def record(row):
                    try:
                        samples_csv.append(row)
                    except OSError as err:
                        raise sweeps.SweepError(f"{samples_csv.path}: cannot write: {err}") from None
                    rows.append(row)
                    bar.errors += bool(row["error"])
                    bar.update(bar.step + 1, 0.0)

                sweeps.run_on_cluster(client, [plan.task(i) for i in todo], record)
    except sweeps.ConnectError as err:
        raise CaseError(args.case, "--scheduler", str(err)) from None
    except SensitivityError as err:
        print(f"error: {plan.case.path}: {err}", file=sys.stderr)
        return 1
    except sweeps.SweepError as err:
        resume = "" if args.sensitivity else f"; the samples done are in {out}: run the same command to resume"
        print(f"error: {err}{resume}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if args.sensitivity:
            raise
        kept = len(sweeps.Table(out / sweeps.TABLE, plan.columns).read())
        print(f"interrupted: {kept} of {len(plan.values)} samples are in {out / sweeps.TABLE}; run the "
              "same command again to resume", file=sys.stderr)
        return INTERRUPTED
    if args.sensitivity:
        return _write_study(out, plan, study)
    try:
        files = sweeps.finish(out, plan, rows, plots=not args.no_plots)
    except OSError as err:
        print(f"error: {out}: cannot write the table or plots: {err}", file=sys.stderr)
        return 1
    failed = sum(1 for r in rows if r["error"])
    _say(f"{_samples(len(todo))} run in {time.perf_counter() - start:.3g} s"
         + (f"; {failed} of {len(rows)} failed (see the error column)" if failed else "")
         + f"; results in {out}: {', '.join(files)}")
    return 0


def _view(args):
    pvd, times = viewer.series_times(args.result)
    frame = viewer.check_frame(pvd, times, args.frame)
    if args.screenshot is None:
        viewer.show(pvd, times, frame, args.scalars)
        return 0
    viewer.render_png(pvd, times, frame, args.screenshot, args.scalars)
    _say(f"wrote {args.screenshot}: frame {frame} of {len(times) - 1}, t = {times[frame]:g}")
    return 0
