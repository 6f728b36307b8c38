"""``femdyn run CASE``: simulate a case and publish its result folder (``io.results``). Command-line
overrides of the solver settings make new settings (``SolverSettings.replace``), checked for the model
before anything is written; a refused setting names its option. Exit codes: 0 done, 1 the run stopped
early (the steps so far are written) or its results could not be written, 130 Ctrl-C (the steps so far
are written)."""
import dataclasses
import sys
from pathlib import Path

from ..integrators.newton import NEWTON_METHODS
from ..integrators.settings import INTEGRATORS
from ..io.folders import default_folder, output_folder, publish
from ..io.interrupt import CtrlC
from ..io.progress import Progress
from ..io.results import write_results
from ..studies.run import checked_settings, prepare_case, run_case
from .arguments import (
    finite_float,
    flexible_options,
    load,
    positive_float,
    positive_int,
)
from .output import INTERRUPTED, dropped, flexible_line, say

OPTIONS = {"dt": "--dt", "t_end": "--t-end", "integrator": "--integrator", "rho_inf": "--rho-inf",
           "newton": "--newton"}  # solver settings field -> the option that overrides it


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
                     help="full Newton, or modified Newton reusing the factorised matrix while it "
                     "contracts fast enough (overrides solver.newton; default full)")
    run.add_argument("--out", type=Path, metavar="DIR",
                     help="result folder (default: results/<case file stem>); an existing folder is "
                     "replaced only if it is empty or an earlier result folder (has summary.json)")
    run.add_argument("--every", type=positive_int, metavar="K",
                     help="write every K-th step as a ParaView frame, and the last (overrides "
                     "output.every; default: about 500 frames)")
    run.add_argument("--no-vtk", action="store_true", help="do not write the ParaView series")
    run.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    flexible_options(run)
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--compare-dt", type=positive_float, nargs="+", metavar="DT",
                     help="also run with each of these time steps (quietly) and overlay the joint "
                     "coordinates of all runs in joint_coordinates_dt.png; put CASE before this option")
    run.set_defaults(handler=handle)


def handle(args):
    case = load(args)
    changes = {field: getattr(args, field) for field in OPTIONS if getattr(args, field) is not None}
    case = dataclasses.replace(case, settings=checked_settings(case, OPTIONS, **changes),
                               every=args.every or case.every, vtk=case.vtk and not args.no_vtk,
                               plots=case.plots and not args.no_plots)
    for dt in args.compare_dt or ():  # refused before the run, not after it
        checked_settings(case, {"dt": "--compare-dt"}, dt=dt)
    out = output_folder(args.out or default_folder(case.path))
    setup = prepare_case(case)
    compare = []
    with CtrlC() as ctrl_c:
        with Progress(case.settings.steps, case.path.stem, enabled=not args.quiet) as bar:
            run = run_case(case, bar, setup)
        for dt in args.compare_dt or ():
            if ctrl_c.seen:
                break
            other = run_case(case, setup=setup, dt=dt).results
            if not other.complete:
                print(f"note: the comparison run with dt = {dt:g} stopped early: {other.message}",
                      file=sys.stderr)
            coords = {name: other.q[:, i] for name, i in case.model.joint_coordinates.items()}
            compare.append((f"dt = {other.dt:g}", other.t, coords))
    results = run.results
    try:
        summary = publish(out, lambda folder: write_results(folder, case, results, run.wall_time, compare))
    except OSError as err:
        print(f"error: {out}: cannot write the results: {err}", file=sys.stderr)
        return 1
    say(report(summary, out, flexible_line(case)))
    if ctrl_c.seen:
        print(f"interrupted: the steps up to t = {results.t[-1]:g} are kept in {out}", file=sys.stderr)
        return INTERRUPTED
    if not results.complete:
        print(f"error: the run stopped early: {results.message}", file=sys.stderr)
        return 1
    return 0


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
        f"max constraint residual: {s['max_constraint_residual']:.3g}",
        f"dropped redundant constraints: {lost}",
        f"results in {out}: {', '.join(s['files'])}",
    ])
