"""``femdyn map CASE --grid NAME=a:b:n ..``: the workspace map of a case (``studies.map_plan``) on a
dask.distributed cluster as ``femdyn sweep`` runs its samples (``studies.sweep_cluster``), into a result
folder that a repeated command resumes (``studies.sweep_files``, ``studies.map_files``). Exit codes: 0
done (points that are unreachable or singular are results, marked in ``status``); 3 done, but points
failed (their messages on stderr); 1 the cluster failed; 128 + the signal's number after Ctrl-C, SIGTERM
or SIGHUP (the points done are kept)."""
import contextlib
import sys
import time
from pathlib import Path

from ..casefile.case import CaseError
from ..post.folders import default_folder, output_folder
from ..post.interrupt import exit_code
from ..studies import map_files
from ..studies import sweep_cluster as cluster
from ..studies import sweep_files as files
from ..studies.map_plan import complete_row, load_plan, parse_grid, point_row
from ..studies.map_pose import SINGULAR
from ..studies.run import check_elements
from .arguments import check_cluster, flexible_options, options, out_options, positive_int
from .extras import require
from .output import say
from .sweep import SAMPLES_FAILED, startup_summary


def _grid(text):
    import argparse

    try:
        return parse_grid(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _payload(text):
    import argparse

    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a payload is F (N, along gravity) or fx,fy[,fz] (N), got '{text}'") from None
    return values[0] if len(values) == 1 else values


def add(commands):
    """Add the ``map`` subcommand (its arguments and handler) to ``commands``."""
    parser = commands.add_parser(
        "map", help="workspace maps: sag, compliance, frequencies, efforts and conditioning over a grid of poses",
        description="At every point of a grid of poses -- actuated coordinates set, or a probe's effector "
        "coordinates P.x, P.y (3D P.z) reached by the rigid mechanism's inverse kinematics, the rest of the "
        "effector's pose as in the case -- solve the static equilibrium with the servos held (gravity, the "
        "case's constant loads, --payload at P) and the constrained eigenproblem there, and write one row: the "
        "sag of P from the rigid mechanism (sag_x ..), its compliance (compliance_xx .., the largest eigenvalue "
        "compliance_max and its direction), the --modes lowest frequencies frequency_k [Hz] with the effector's "
        "participation, the inputs holding the pose (input:NAME), the rigid mechanism's Jacobian conditioning "
        "and a status: ok, unreachable, singular (s_min < --singular s_max) or failed (with its message). OUT "
        "holds map.json, map.csv (appended as points complete; the same command again resumes), units.json, "
        "map.parquet, map.vts (ParaView) and map_<quantity>.png (1-D lines, 2-D heat maps); a summary prints "
        "the worst point of each quantity.")
    parser.add_argument("case", metavar="CASE", help="case file (TOML)")
    parser.add_argument("--grid", action="append", type=_grid, required=True, metavar="NAME=a:b:n",
                        help="a grid axis (repeat for more; the first varies slowest): an actuated coordinate or "
                        "a probe's P.x, P.y, P.z; a:b:n (n values from a to b) or a list v1,v2,..")
    parser.add_argument("--probe", metavar="P", help="the effector point (default: the case's first probe)")
    parser.add_argument("--modes", type=positive_int, default=3, metavar="K", help="natural frequencies (default 3)")
    parser.add_argument("--payload", type=_payload, metavar="F",
                        help="a force at P [N]: F along gravity, or its components fx,fy[,fz]")
    parser.add_argument("--singular", type=float, metavar="S",
                        help=f"a point is singular where the Jacobian's s_min < S s_max (default {SINGULAR:g})")
    flexible_options(parser)
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a running dask scheduler, e.g. tcp://10.0.0.5:8786 (default: start a LocalCluster)")
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="worker processes of the LocalCluster (default: one per core)")
    out_options(parser, "result folder (default: results/<case>_map)")
    parser.add_argument("--restart", action="store_true", help="discard an earlier map in DIR instead of resuming it")
    parser.add_argument("--retry-errors", action="store_true",
                        help="when resuming, run the failed points again (unreachable and singular points are "
                        "results and stay)")
    parser.add_argument("--no-plots", action="store_true", help="do not write the PNG plots")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=handle)


def handle(args):
    """The points of the map on dask.distributed, then its files and summary."""
    if require("sweep"):
        return 2
    check_cluster(args)
    check_elements(args.case, args.flexible, args.elements)
    plan = load_plan(args.case, args.grid, args.probe, args.modes, args.payload, args.singular, options(args))
    out = output_folder(args.out or default_folder(Path(args.case), "map"), map_files.PLAN, "a femdyn map folder",
                        published=False, force=args.force)
    rows = files.earlier_rows(out, plan, args.restart, False, args.force)
    if args.retry_errors:
        rows = [r for r in rows if r["status"] != "failed"]
    done = {r["sample"] for r in rows}
    todo = [i for i in range(len(plan.values)) if i not in done]
    say(f"map of {len(plan.values)} points ({' x '.join(map(str, plan.shape))}) over {', '.join(plan.names)} at "
        f"probe {plan.probe}" + (f"; resuming: {len(done)} done, {len(todo)} to run" if done else ""))
    start = time.perf_counter()
    try:
        with contextlib.ExitStack() as stack:
            client = stack.enter_context(cluster.connect(args.scheduler, args.workers)) if todo else None
            files.write_folder(out, plan, rows, args.restart, args.force)  # once the cluster answers
            if client is not None:
                workers = len(client.scheduler_info().get("workers", {}))
                link, answers = cluster.dashboard(client)
                say(f"dask: {args.scheduler or 'LocalCluster'}, {workers} worker{'s' * (workers != 1)}; "
                    f"dashboard: {link if answers else f'none ({link} does not answer)'}")
            bar = stack.enter_context(cluster.SampleProgress(len(todo), f"{Path(args.case).stem} map",
                                                             enabled=bool(todo) and not args.quiet))
            table = files.Table(out / map_files.TABLE, plan.columns, plan.text)

            def record(row):
                row = complete_row(plan, row)
                try:
                    table.append(row)
                except OSError as err:
                    raise cluster.SweepError(f"{table.path}: cannot write: {err}") from None
                rows.append(row)
                bar.errors += row["status"] == "failed"
                bar.update(bar.step + 1, 0.0)

            if todo:
                cluster.run_on_cluster(client, [plan.task(i) for i in todo], record, run=point_row)
            startup = cluster.worker_startup(client) if client is not None else []
    except cluster.ConnectError as err:
        raise CaseError(args.case, "--scheduler", str(err)) from None
    except cluster.SweepError as err:
        print(f"error: {err}; the points done are in {out}: run the same command to resume", file=sys.stderr)
        return 1
    except KeyboardInterrupt as err:
        kept = len(files.Table(out / map_files.TABLE, plan.columns, plan.text).read())
        print(f"interrupted: {kept} of {len(plan.values)} points are in {out / map_files.TABLE}; run the same "
              "command again to resume", file=sys.stderr)
        return exit_code(err)
    try:
        written = map_files.write_map(out, plan, rows, plots=not args.no_plots)
    except OSError as err:
        print(f"error: {out}: cannot write the map's files: {err}", file=sys.stderr)
        return 1
    if startup:
        say(startup_summary(startup))
    say("\n".join([f"{len(todo)} points run in {time.perf_counter() - start:.3g} s; results in {out}: "
                   f"{', '.join(written)}", *map_files.summary(plan, rows)]))
    failed = sorted((r for r in rows if r["status"] == "failed"), key=lambda r: r["sample"])
    if failed:
        print(f"failed points ({len(failed)} of {len(rows)}):\n" + "\n".join(
            "  " + ", ".join(f"{n} = {r[n]:.6g}" for n in plan.names) + f": {r['message']}" for r in failed),
            file=sys.stderr)
        return SAMPLES_FAILED
    return 0
