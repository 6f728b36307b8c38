"""Workspace map of the flexible Delta robot: wall time of an N x N map of ``cases/delta_flexible.toml``
over the tool plane (tcp.x, tcp.y from -0.15 to 0.15 m, 3 modes), as ``femdyn map`` runs it on a
LocalCluster, and the cost per point: the median and 90th percentile of the points' own times on their
workers (one static solve, the compliance solves, one Lanczos eigen-solve, the inverse kinematics), the
wall time per point of the whole map (workers' start-up and the files included), the points per second,
the workers' start-up (the command's own line) and the machine's load average before and after.

The README states the 40 x 40 map's time as measured here on the project's 2-core machine; a smaller
``--size`` gives the per-point cost, from which the 40 x 40 time is extrapolated: this map's time plus
the further points at the median point's time, the workers in parallel (printed with the machine's
load average, and marked as extrapolated in the JSON).

Usage: python benchmarks/map_delta.py [--size 40] [--workers N] [--elements 4] [--json FILE]
"""
import argparse
import contextlib
import csv
import io
import json
import os
import pathlib
import statistics
import tempfile
import time

from femdyn.cli import main

CASE = pathlib.Path(__file__).resolve().parent.parent / "cases" / "delta_flexible.toml"
FULL = 40  # the map the README states


def run(size, workers, elements):
    """Time one size x size map; its numbers as a dict."""
    with tempfile.TemporaryDirectory() as folder:
        out = pathlib.Path(folder) / "map"
        argv = ["map", str(CASE), "--grid", f"tcp.x=-0.15:0.15:{size}", "--grid", f"tcp.y=-0.15:0.15:{size}",
                "--modes", "3", "--out", str(out), "--quiet", "--elements", str(elements)]
        if workers:
            argv += ["--workers", str(workers)]
        load_before = os.getloadavg()
        printed = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(printed):
            code = main(argv)
        wall = time.perf_counter() - start
        load_after = os.getloadavg()
        print(printed.getvalue(), end="")
        with open(out / "map.csv") as f:
            rows = list(csv.DictReader(f))
    points = len(rows)
    own = [float(r["wall_time"]) for r in rows]
    statuses = {s: sum(r["status"] == s for r in rows) for s in {r["status"] for r in rows}}
    per_point = wall / points
    count = workers or len(os.sched_getaffinity(0))
    # the 40 x 40 map: this map's time (start-up, the first point's preparation on each worker, files)
    # and the further points at the median point's time, the workers in parallel
    full = wall + (FULL * FULL - points) * statistics.median(own) / count
    return {"size": size, "points": points, "exit_code": code, "elements": elements, "workers": workers,
            "wall_s": wall, "wall_per_point_s": per_point, "points_per_s": points / wall,
            "point_median_s": statistics.median(own), "point_p90_s": statistics.quantiles(own, n=10)[-1],
            "point_max_s": max(own), "statuses": statuses,
            "worker_startup": next((line for line in printed.getvalue().splitlines()
                                    if line.startswith("worker start-up")), None),
            "full_points": FULL * FULL, "full_wall_s": wall if size == FULL else None,
            "full_wall_extrapolated_s": full, "extrapolated": size != FULL, "load_average_before": load_before,
            "load_average_after": load_after}


def main_():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=FULL, help=f"points per axis (default {FULL})")
    parser.add_argument("--workers", type=int, default=None, help="LocalCluster workers (default: one per core)")
    parser.add_argument("--elements", type=int, default=4, help="elements per arm (the case's: 4)")
    parser.add_argument("--json", type=pathlib.Path, help="write the numbers to this file")
    args = parser.parse_args()
    result = run(args.size, args.workers, args.elements)
    print(f"{result['points']} points ({args.size} x {args.size}) in {result['wall_s']:.1f} s: "
          f"{result['wall_per_point_s']:.3f} s per point of the map's wall time, {result['points_per_s']:.2f} "
          f"points/s; a point's own time {result['point_median_s']:.3f} s median, {result['point_p90_s']:.3f} s p90, "
          f"{result['point_max_s']:.3f} s max "
          f"on its worker; statuses {result['statuses']}; load average (1, 5, 15 min) "
          f"{result['load_average_before']} before, {result['load_average_after']} after")
    if result["extrapolated"]:
        print(f"{FULL} x {FULL} = {FULL * FULL} points extrapolated (this map's time, the further points at the "
              f"median point's time on the workers in parallel): {result['full_wall_extrapolated_s']:.0f} s "
              f"({result['full_wall_extrapolated_s'] / 60:.1f} min); load average {os.getloadavg()[0]:.1f}")
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main_()
