"""Sweep workers and numba's kernel cache (issue 37 item 4): a sweep of the flexible 3-PRR on a LocalCluster
of ``--workers`` processes (default 16, whatever the number of cores), and what each worker compiled.

What runs is what ``femdyn sweep cases/3prr_sine.toml --param b=0.10:0.20:N --t-end T --workers W`` runs
(``studies.sweep_cluster``: ``connect``, ``run_on_cluster``, ``worker_startup``), in a child process with
``NUMBA_DEBUG_CACHE=1``, whose output (the workers' included: they inherit its standard streams) is
counted: numba's "data loaded" (a kernel's machine code read from the cache) and "data saved" (a kernel
compiled and written) lines. Per worker it prints the start-up that the worker's plugin recorded (the
import of femdyn's sweep code, the time under numba's compiler lock) and the kernels it compiled
(numba's "numba:compile" events; none where every kernel came from the cache), and how many distinct
values the workers have of what decides a cache hit besides the kernel (``sweep_cluster._cache_key``:
the cache folder, the source file's stamp, numba's CPU key): a worker that differs misses.

``--cache warm`` (default): the checkout's cache, filled first by one sample run in the child before the
cluster starts (as ``tests/package/test_worker_cache.py`` does); every worker should load, none compile.
``--cache cold``: an empty ``NUMBA_CACHE_DIR`` and no sample before: every worker finds the cache being
written by the others (minutes of CPU per worker for the 3-PRR's kernels: on a small machine use
``--workers 4``).

Reported with the load average at the start and the end, the wall and CPU time of the whole run (the
workers are the child's descendants: ``RUSAGE_CHILDREN``). A benchmark, not a test.

Usage: python benchmarks/sweep_workers.py [--workers 16] [--t-end 0.02] [--cache warm|cold]
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "cases" / "3prr_sine.toml"

INNER = """
import json, sys
from femdyn.studies import sweep as sweeps, sweep_cluster
workers, t_end, warm = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "warm"
plan = sweeps.plan_sweep(sys.argv[4], [sweeps.parse_parameter(f"b=0.10:0.20:{workers}")], t_end=t_end)
if warm:
    sweeps.run_sample(plan.task(0))  # fills the cache where it is cold
rows = []
with sweep_cluster.connect(workers=workers) as client:
    sweep_cluster.run_on_cluster(client, [plan.task(i) for i in range(workers)], rows.append)
    startup = sweep_cluster.worker_startup(client)
print("STARTUP " + json.dumps(dict(startup=startup, errors=[r["error"] for r in rows if r["error"]])), flush=True)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--t-end", type=float, default=0.02)
    parser.add_argument("--cache", choices=("warm", "cold"), default="warm")
    args = parser.parse_args()
    import json

    env = dict(os.environ, NUMBA_DEBUG_CACHE="1", PYTHONPATH=str(ROOT))
    load = os.getloadavg()
    print(f"{args.workers} workers, {os.cpu_count()} CPUs, {args.cache} cache (load average {load[0]:.2f}); "
          f"3prr_sine, t_end = {args.t_end} s, one sample per worker", flush=True)
    with tempfile.TemporaryDirectory(prefix="femdyn-sweep-cache-") as cache:
        if args.cache == "cold":
            env["NUMBA_CACHE_DIR"] = cache
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        child = subprocess.run([sys.executable, "-c", INNER, str(args.workers), str(args.t_end), args.cache, str(CASE)],
                               env=env, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = child.stdout + child.stderr
    line = next((x for x in child.stdout.splitlines() if x.startswith("STARTUP ")), None)
    if child.returncode != 0 or line is None:
        raise SystemExit(f"the sweep failed (exit {child.returncode}):\n{output[-3000:]}")
    result = json.loads(line[len("STARTUP "):])
    saved = len(re.findall(r"\[cache\] data saved", output))
    loaded = len(re.findall(r"\[cache\] data loaded", output))
    print(f"{'worker':28s} {'import s':>9s} {'kernel load s':>14s}  compiled")
    for record in result["startup"]:
        print(f"{record['worker']:28s} {record['import_s']:9.2f} {record['kernel_load_s']:14.2f}  "
              f"{len(record['compiled'])}" + (f" ({', '.join(record['compiled'][:3])}, ...)" if record["compiled"] else ""))
    for key in ("cache", "source_stamp", "cpu"):  # what decides a cache hit, besides the kernel (all equal: hits)
        values = sorted({str(r[key]) for r in result["startup"]})
        print(f"workers' {key}: {len(values)} distinct: " + "; ".join(values))
    compiling = sum(bool(r["compiled"]) for r in result["startup"])
    print(f"\nworkers that compiled: {compiling} of {len(result['startup'])}; numba's cache: {loaded} 'data loaded', "
          f"{saved} 'data saved' lines (the sample before the cluster included); sample errors: {len(result['errors'])}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"whole run {wall:.1f} s wall, {cpu:.1f} s CPU; load average at the start {load[0]:.2f}, "
          f"at the end {os.getloadavg()[0]:.2f}")
    return 0 if result["errors"] == [] else 1


if __name__ == "__main__":
    sys.exit(main())
