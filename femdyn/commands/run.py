"""``femdyn run CASE``: simulate a case into its result folder, written as the run goes
(``post.results.ResultWriter``), and ``femdyn run CASE --resume DIR``: continue a killed or interrupted
run from its last saved step. Command-line overrides of the solver settings make new settings
(``SolverSettings.replace``), checked for the model before anything is written; a refused setting names
its option. Exit codes: 0 done, 1 the run stopped early (a Newton failure, a step that is no solution:
the steps so far are written) or its results could not be written, 2 bad input (nothing written),
128 + the signal's number after Ctrl-C, SIGTERM or SIGHUP (130, 143, 129: the steps so far are written
and the run can be resumed)."""
import importlib.util
import math
import shlex
import sys
from pathlib import Path

from ..integrators.diagnostics import step_check
from ..integrators.newton import NEWTON_METHODS
from ..integrators.settings import INTEGRATORS
from ..integrators.time_loop import CheckpointError
from ..casefile.beams import MAX_ELEMENTS, MODELS
from ..casefile.case import MAX_EVERY, CaseError
from ..post.folders import check_state, check_unlocked, default_folder, output_folder, read_checkpoint
from ..post import plot_child
from ..post import plots
from ..post.probes import deflection_lines, deviation_lines
from ..model.gauges import gauge_lines
from ..post.progress import Progress
from ..post.results import SAVE_SECONDS, TABLES, ResultWriter, draw_plots, fingerprint
from .arguments import every, finite_float, flexible_options, load_problem, out_options, positive_float
from ..api.check import dropped, flexible_line
from .output import say
from ..numerics.lazy import deferred

OPTIONS = {"dt": "--dt", "t_end": "--t-end", "integrator": "--integrator", "rho_inf": "--rho-inf",
           "newton": "--newton"}  # solver settings field -> the option that overrides it
# the other options a resumed run keeps
RUN_OPTIONS = ("every", "no_vtk", "no_plots", "flexible", "elements", "segments")


def add(commands):
    """Add the ``run`` subcommand (its arguments and handler) to ``commands``."""
    run = commands.add_parser(
        "run", help="simulate a case and write a result folder",
        description="Load the case, check the initial configuration, simulate, and write history.csv, "
        "bodies.csv, plots, a ParaView series (motion.pvd, vtk/) and summary.json into the result "
        "folder. Exit code 1 if the run stops early (the steps computed so far are written).")
    run.add_argument("case", metavar="CASE", help="case file (TOML)")
    run.add_argument("--dt", type=positive_float, help="time step (overrides solver.dt)")
    run.add_argument("--t-end", type=positive_float, metavar="T", help="end time (overrides solver.t_end)")
    run.add_argument("--integrator", choices=INTEGRATORS,
                     help="time integrator (overrides solver.integrator; default energy-momentum)")
    run.add_argument("--rho-inf", type=finite_float, metavar="R",
                     help="spectral radius in [0, 1] of generalized-alpha (overrides solver.rho_inf)")
    run.add_argument("--newton", choices=NEWTON_METHODS,
                     help="full Newton, or simplified ('modified') Newton reusing a step's first "
                     "factorised matrix while it contracts fast enough (overrides solver.newton; default: modified "
                     "with generalized-alpha without early stop, else full)")
    out_options(run, "result folder (default: results/<case file stem>); an existing folder is "
                "replaced only if it is empty or an earlier result folder femdyn made (has .femdyn and "
                "summary.json), unless --force")
    run.add_argument("--every", type=every, metavar="K",
                     help="write every K-th step as a ParaView frame, and the last (overrides "
                     "output.every; default: about 500 frames)")
    run.add_argument("--no-vtk", action="store_true", help="do not write the ParaView series")
    run.add_argument("--states", action="store_true",
                     help="also write states.csv, the full state (q, v) of every frame, at which "
                     "`femdyn linearize`/`modes --result DIR --frame K` linearise (output.states; off by "
                     "default: 2 n numbers a frame)")
    run.add_argument("--no-plots", action="store_true",
                     help="do not write the PNG plots (else drawn by a child process started with the run, two "
                     "where the load average leaves a core idle; FEMDYN_PLOT_PROCESSES=N sets how many processes "
                     "draw, 0 to 8, 0: the run's own)")
    flexible_options(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--resume", type=Path, metavar="DIR",
                     help="continue the run that was killed or interrupted in the result folder DIR (it holds "
                     "incomplete.json) from its last saved step, with the options it started with; the "
                     "folder it ends with is that of a run that did not stop")
    run.add_argument("--save-every", type=positive_float, default=SAVE_SECONDS, metavar="SECONDS",
                     help=f"write the steps so far into the result folder, with what --resume needs, every "
                     f"SECONDS of wall time (default {SAVE_SECONDS:g})")
    run.add_argument("--compare-dt", type=positive_float, nargs="+", metavar="DT",
                     help="also run with each of these time steps (quietly) and overlay the joint "
                     "coordinates of all runs in joint_coordinates_dt.png; put CASE before this option")
    run.set_defaults(handler=handle)


def _saved_options(args, meta):
    """Set ``args`` to the options of the run that ``--resume`` continues (``meta["options"]``, checked as
    the command line would: untrusted input); CaseError naming an option given with a different value: a
    run resumes with the settings it started with."""
    saved = meta["options"]
    for field in (*OPTIONS, *RUN_OPTIONS):
        if not _saved_option(field, saved.get(field)):
            raise CaseError(args.resume / "checkpoint.npz", "file", f"the run's option {field} is "
                            f"{saved.get(field)!r}, not one femdyn run takes; not resuming")
    given = {OPTIONS.get(field, f"--{field.replace('_', '-')}"): (getattr(args, field), saved[field])
             for field in (*OPTIONS, *RUN_OPTIONS) if getattr(args, field) not in (None, False)}
    for option, (value, was) in given.items():
        if value != was:
            raise CaseError(args.resume, "--resume", f"the run in it has {option} {was}, not {value}; resume it "
                            f"with the options it started with (or without {option})")
    for field in (*OPTIONS, *RUN_OPTIONS):
        setattr(args, field, saved[field])


def _saved_option(field, value):
    """Whether ``value`` is one the command line gives the ``args`` field ``field`` (``_saved_options``)."""
    if value is None:
        return field not in ("no_vtk", "no_plots")
    if field in ("no_vtk", "no_plots"):
        return isinstance(value, bool)
    choices = {"integrator": INTEGRATORS, "newton": NEWTON_METHODS, "flexible": MODELS}
    if field in choices:
        return value in choices[field]
    if field in ("every", "elements", "segments"):
        return type(value) is int and 1 <= value <= (MAX_ELEMENTS if field != "every" else MAX_EVERY)
    return type(value) is float and math.isfinite(value) and (value > 0 or field == "rho_inf")


def handle(args):
    """Run the case (module docstring). The plots are drawn by a child process forked now, before numba
    and the case are loaded (``post.plot_child``), unless there are none to draw."""
    plotter = None if args.no_plots else plot_child.start(prepare_plots, draw_plots, plot_child.drawers())
    try:
        return _run(args, plotter)
    finally:
        if plotter is not None:
            plotter.close()


def prepare_plots() -> None:
    """What the plot child does before its job comes: ``plots.prepare``, with fontTools' list of glyph names
    (``fontTools.agl``) and the package around it, which matplotlib's TeX support imports (0.02 s of CPU) and
    the plots never use, and matplotlib's unit converters of strings and dates (``plots.CONVERTERS``, with
    dateutil's parser and time zones: 19 modules), which ``Axes`` imports only to register them for data of
    those types (the plots' data are floats), registered as loaded on first use (``numerics.lazy.deferred``):
    in the plot child they stay unrun, and unregistered."""
    if "fontTools" not in sys.modules and importlib.util.find_spec("fontTools") is not None:
        deferred("fontTools")
        deferred("fontTools.agl")
    for name in plots.CONVERTERS:
        if name not in sys.modules:
            deferred(name)
    plots.prepare()


def _run(args, plotter):
    signals = args.signals
    meta = checkpoint = None
    if args.resume is not None:
        meta, checkpoint = read_checkpoint(args.resume, TABLES)
        _saved_options(args, meta)
    changes = {field: getattr(args, field) for field in OPTIONS if getattr(args, field) is not None}
    problem = load_problem(args).with_settings(OPTIONS, **changes)
    given = problem.case  # the case file's output options, which the command line's narrow
    problem = problem.with_output(args.every, given.vtk and not args.no_vtk, given.plots and not args.no_plots,
                                  given.states or args.states)
    case = problem.case
    if plotter is not None and not case.plots:
        plotter.close()
        plotter = None
    for dt in args.compare_dt or ():  # refused before the run, not after it
        problem.with_settings({"dt": "--compare-dt"}, dt=dt)
    if args.resume is not None and args.out is not None and args.out.resolve() != args.resume.resolve():
        raise CaseError(args.out, "--out", f"a resumed run is written into its folder {args.resume}")
    out = args.resume or output_folder(args.out or default_folder(case.path), force=args.force)
    check_unlocked(out, "--out" if args.resume is None else "--resume")
    setup = problem.setup()
    if setup.assembly and meta is None:
        say(setup.assembly.line())
    warning = step_check(case.settings, case.model).get("step_warning")
    if warning and meta is None:  # said when the run starts (a resumed run said it then), and in the summary
        print(f"warning: {warning}", file=sys.stderr)
    options = {field: getattr(args, field) for field in (*OPTIONS, *RUN_OPTIONS)}
    run = {"fingerprint": fingerprint(case, setup), "options": options,
           "command": f"femdyn run {shlex.quote(str(args.case))} --resume {shlex.quote(str(out))}"}
    if meta is not None and meta["fingerprint"] != run["fingerprint"]:
        raise CaseError(out, "--resume", f"the run in it is not of {case.path} as it is now (the case file, a mesh "
                        "file or the model changed)")
    if meta is not None:
        check_state(out, checkpoint, meta["origin"], case.model, case.settings.steps)
        meta["command"] = run["command"]  # as it is now, not as the folder says
    try:
        if meta is None:
            writer = ResultWriter.create(out, case, run, signals, args.save_every, plotter)
        else:
            writer = ResultWriter.resume(out, case, meta, signals, args.save_every, plotter)
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    first = checkpoint.step if checkpoint is not None else 0
    try:
        with Progress(case.settings.steps, case.path.stem, enabled=not args.quiet) as bar, signals.deferred():
            bar.update(first, first * case.settings.step)
            results = problem.run(bar, setup=setup, output=writer, resume=checkpoint).results
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    except CheckpointError as err:  # refused before the folder was written
        writer.release()
        raise CaseError(out / "checkpoint.npz", "file", f"{err}; not resuming (the folder is left as it is)") from None
    compare = []
    try:
        for dt in () if signals.seen else args.compare_dt or ():
            other = problem.run(setup=setup, dt=dt).results
            if not other.complete:
                print(f"note: the comparison run with dt = {dt:g} stopped early: {other.message}", file=sys.stderr)
            coords = {name: other.q[:, i] for name, i in case.model.joint_coordinates.items()}
            compare.append((f"dt = {other.dt:g}", other.t, coords))
    except KeyboardInterrupt:  # a signal stops the comparison runs, not the writing of the run's results
        compare = []
    try:
        summary = writer.finish(compare)
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    say(report(summary, out, flexible_line(case)))
    for key in ("energy_warning", "validity_warning"):
        if key in summary:
            print(f"warning: {summary[key]}", file=sys.stderr)
    for about in (summary.get("conditioning") or {}, (summary.get("deviation") or {}).get("singular", {})):
        if "warning" in about:  # a singular pose on the way: the deviation undefined there, the run complete
            print(f"warning: {about['warning']}", file=sys.stderr)
    if signals.seen and not results.complete:
        print(f"interrupted: the steps up to t = {summary['t_reached']:g} are kept in {out}; continue with "
              f"{run['command']}", file=sys.stderr)
    elif signals.seen:
        print(f"interrupted after the run was complete (in {out})", file=sys.stderr)
    elif not results.complete:
        print(f"error: the run stopped early: {results.message}", file=sys.stderr)
        return 1
    return signals.exit_code if signals.seen else 0


def report(s, out, flexible=None):
    """A short paragraph on a finished run from its summary (and the line on its flexible bodies)."""
    lost = dropped((d["constraint"], d["depends_on"]) for d in s["dropped_constraints"])
    steps = s["steps"] if s["complete"] else f"{s['steps']} of {s['steps_planned']}"
    return "\n".join(([flexible] if flexible else []) + [
        f"{steps} steps of dt = {s['dt']:g} to t = {s['t_reached']:g} in "
        f"{s['wall_time_s']:.3g} s ({s['ms_per_step']:.3g} ms/step)",
        f"Newton iterations per step ({s['newton']} Newton): mean {s['newton_iterations_mean']:.3g}, "
        f"max {s['newton_iterations_max']}; Newton matrices factorised: {s['newton_factorisations']}",
        f"energy balance error max |H - H0 - W|: {s['max_abs_energy_balance']:.3g}; "
        f"energy drift (H - H0 - W at the end)/max(|H|, T): {s['energy_drift']:.3g}",
        *([f"energy: {s['energy_expected']}"] if "energy_expected" in s else []),
        f"max constraint residual: {s['max_constraint_residual']:.3g}",
        f"dropped redundant constraints: {lost}",
        *deviation_lines(s),
        *deflection_lines(s.get("probes", {})),
        *gauge_lines(s.get("gauges", {})),
        f"results in {out}: {', '.join(s['files'])}",
    ])
