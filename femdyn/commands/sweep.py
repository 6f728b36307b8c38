"""``femdyn sweep CASE``: a parameter sweep (``studies.sweep``) or the sensitivity study on a
dask.distributed cluster (``studies.sweep_cluster``), written into a result folder that a repeated
command resumes (``studies.sweep_files``). Exit codes: 0 done, every sample with its outputs;
``SAMPLES_FAILED`` (3) done, but samples failed (rows with their message, and a table of them on
stderr); 1 the cluster failed or a run of the sensitivity study stopped early; 128 + the signal's number
after Ctrl-C, SIGTERM or SIGHUP (the rows done are kept)."""
import contextlib
import statistics
import sys
import time

from ..casefile.beams import PARAMETERS
from ..casefile.case import CaseError
from ..post.folders import default_folder, output_folder
from ..post.interrupt import exit_code
from ..studies import sweep_cluster as cluster
from ..studies import sweep_files as files
from ..studies.run import check_elements
from ..studies.sensitivity import SensitivityError, plan_study
from ..studies.sweep import DESIGNS, plan_sweep
from .arguments import (
    check_cluster,
    check_overrides,
    flexible_options,
    nonnegative_int,
    options,
    out_options,
    parameters,
    positive_float,
    positive_int,
    relative_step,
    sweep_parameter,
)
from .extras import require
from .output import say
from .sensitivity import folder as sensitivity_folder
from .sensitivity import publish_study


def add(commands):
    """Add the ``sweep`` subcommand (its arguments and handler) to ``commands``."""
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
    study.add_argument("--param", action="append", type=sweep_parameter, metavar="NAME=SPEC",
                       help="a swept parameter (repeat for more): NAME is E, rho, b or h (that value in every "
                       "beam body) or a dotted path to a number in the case file, with an entry of an array "
                       "by its name or index from 0 (bodies.leg1.beam.h, bodies.3.beam.h, solver.dt, "
                       "gravity.1); SPEC is a:b:n (n values from a to b), a list v1,v2,.. or, for --design "
                       "lhs, a range a:b")
    study.add_argument("--sensitivity", type=parameters, metavar="P,P,..",
                       help=f"central-difference sensitivities of the probe's motion w.r.t. these of "
                       f"{', '.join(PARAMETERS)} (as femdyn sensitivity, parameters in parallel)")
    sweep.add_argument("--design", choices=DESIGNS,
                       help="full factorial (default) or Latin hypercube of --samples points")
    sweep.add_argument("--samples", type=positive_int, metavar="N", help="points of the Latin hypercube")
    sweep.add_argument("--seed", type=nonnegative_int, default=0, metavar="S", help="seed of the Latin hypercube (default 0)")
    sweep.add_argument("--step", type=relative_step, metavar="H",
                       help="--sensitivity: relative step of the central differences (default 1e-4)")
    sweep.add_argument("--probe", metavar="NAME", help="probe whose elastic displacement is reported (default: the first)")
    sweep.add_argument("--t-end", type=positive_float, metavar="T", help="end time (overrides solver.t_end)")
    flexible_options(sweep)
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running dask scheduler, e.g. tcp://10.0.0.5:8786 (default: start a LocalCluster)")
    sweep.add_argument("--workers", type=positive_int, metavar="N",
                       help="worker processes of the LocalCluster (default: one per core)")
    out_options(sweep, "result folder (default: results/<case>_sweep, or results/<case>_sensitivity)")
    sweep.add_argument("--restart", action="store_true", help="discard an earlier sweep in DIR instead of resuming it")
    sweep.add_argument("--retry-errors", action="store_true", help="when resuming, run the failed samples again")
    sweep.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(handler=handle)


SAMPLES_FAILED = 3  # exit code of a sweep that ran to its end with failed samples


def failure_table(plan, rows):
    """The failed samples of ``rows`` as a table for stderr: sample, parameter values, error."""
    failed = [r for r in sorted(rows, key=lambda r: r["sample"]) if r["error"]]
    header = ["sample", *plan.names, "error"]
    lines = [[str(r["sample"]), *(f"{r[n]:.6g}" for n in plan.names), r["error"]] for r in failed]
    widths = [max(len(line[k]) for line in [header, *lines]) for k in range(len(header) - 1)]
    return "\n".join([f"failed samples ({len(failed)} of {len(rows)}):"] + [
        "  " + "  ".join([*(cell.ljust(w) for cell, w in zip(line, widths)), line[-1]]) for line in [header, *lines]])


def startup_summary(startup):
    """One line on the workers' start-up (``sweep_cluster.worker_startup``): the import and kernel-loading
    times, median and slowest, and the kernels compiled (none where every worker loaded them from the cache)."""
    imports = [r["import_s"] for r in startup]
    loads = [r["kernel_load_s"] for r in startup]
    compiled = sum(len(r["compiled"]) for r in startup)
    return (f"worker start-up ({len(startup)} workers): import {statistics.median(imports):.2f} s median, "
            f"{max(imports):.2f} s max; kernels loaded in {statistics.median(loads):.2f} s median, {max(loads):.2f} s max; "
            + (f"{compiled} kernel compilations in {sum(bool(r['compiled']) for r in startup)} workers (not in numba's cache)"
               if compiled else "no compilation (every kernel from numba's cache)"))


def _samples(count):
    return f"{count} sample{'s' * (count != 1)}"


def handle(args):
    """The samples of a design, or the sensitivity study, on dask.distributed."""
    if require("sweep"):
        return 2
    check_cluster(args)
    design = [o for o, v in (("--design", args.design), ("--samples", args.samples)) if v is not None]
    if args.sensitivity and design:
        raise CaseError(args.case, design[0], "sets the design of a sweep (--param), not of --sensitivity")
    if args.param and args.step is not None:
        raise CaseError(args.case, "--step", "sets the step of --sensitivity, not of a sweep (--param)")
    check_elements(args.case, args.flexible, args.elements, None if args.sensitivity else args.t_end)
    if args.sensitivity:
        plan = plan_study(args.case, args.sensitivity, args.step or 1e-4, args.t_end, args.probe, options(args))
        check_overrides(args, plan.case)
        out = sensitivity_folder(args, plan)
        rows, todo = [], plan.params
    else:
        plan = plan_sweep(args.case, args.param, args.design or "factorial", args.samples, args.seed, args.probe,
                          args.t_end, options(args))
        check_overrides(args, plan.case)
        out = output_folder(args.out or default_folder(plan.case.path, "sweep"), files.PLAN,
                            "a femdyn sweep folder", published=False, force=args.force)
        rows = files.earlier_rows(out, plan, args.restart, args.retry_errors, args.force)
        done = {r["sample"] for r in rows}
        todo = [i for i in range(len(plan.values)) if i not in done]
        say(f"sweep of {_samples(len(plan.values))} ({plan.design}) over {', '.join(plan.names)}"
            + (f"; resuming: {len(done)} done, {len(todo)} to run" if done else ""))
    start = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            client = stack.enter_context(cluster.connect(args.scheduler, args.workers)) if todo else None
            if not args.sensitivity:  # once the cluster answers: a bad --scheduler leaves no folder
                files.write_folder(out, plan, rows, args.restart, args.force)
            if client is not None:
                workers = len(client.scheduler_info().get("workers", {}))
                link, answers = cluster.dashboard(client)
                say(f"dask: {args.scheduler or 'LocalCluster'}, {workers} worker{'s' * (workers != 1)}; "
                    f"dashboard: {link if answers else f'none ({link} does not answer)'}")
            label = f"{plan.case.path.stem} {'sensitivity' if args.sensitivity else 'sweep'}"
            bar = stack.enter_context(cluster.SampleProgress(len(todo), label, enabled=bool(todo) and not args.quiet))
            if args.sensitivity:
                study = cluster.sensitivity_study(client, plan, bar)
            elif todo:
                samples_csv = files.Table(out / files.TABLE, plan.columns)

                def record(row):
                    try:
                        samples_csv.append(row)
                    except OSError as err:
                        raise cluster.SweepError(f"{samples_csv.path}: cannot write: {err}") from None
                    rows.append(row)
                    bar.errors += bool(row["error"])
                    bar.update(bar.step + 1, 0.0)

                cluster.run_on_cluster(client, [plan.task(i) for i in todo], record)
            startup = cluster.worker_startup(client) if client is not None else []
    except cluster.ConnectError as err:
        raise CaseError(args.case, "--scheduler", str(err)) from None
    except SensitivityError as err:
        print(f"error: {plan.case.path}: {err}", file=sys.stderr)
        return 1
    except cluster.SweepError as err:
        resume = "" if args.sensitivity else f"; the samples done are in {out}: run the same command to resume"
        print(f"error: {err}{resume}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:
        if args.sensitivity:
            raise
        kept = len(files.Table(out / files.TABLE, plan.columns).read())
        print(f"interrupted: {kept} of {len(plan.values)} samples are in {out / files.TABLE}; run the "
              "same command again to resume", file=sys.stderr)
        return exit_code(err)
    if args.sensitivity:
        return publish_study(out, plan, study)
    try:
        written = files.finish(out, plan, rows, plots=not args.no_plots)
    except OSError as err:
        print(f"error: {out}: cannot write the table or plots: {err}", file=sys.stderr)
        return 1
    if startup:
        say(startup_summary(startup))
    failed = sum(1 for r in rows if r["error"])
    say(f"{_samples(len(todo))} run in {time.perf_counter() - start:.3g} s"
        + (f"; {failed} of {len(rows)} failed (see the error column)" if failed else "")
        + f"; results in {out}: {', '.join(written)}")
    if failed:
        print(failure_table(plan, rows), file=sys.stderr)
        return SAMPLES_FAILED
    return 0
