"""Start-up of ``femdyn run``: the wall time of the whole command in a fresh process, with an empty and
with a warm cache of the compiled kernels (numba's on-disk cache, ``femdyn.numerics.compiled``).

For each case (default: ``cases/nm_logo.toml``, rigid, and ``cases/3prr_sine.toml``, FEM links of
world-vector beams whose elastic kernels are compiled) the command ``femdyn run CASE --out DIR`` (every
output: CSV, ParaView series, plots) runs in fresh processes:

* cold: ``NUMBA_CACHE_DIR`` a new, empty folder -- the first run after an install, which compiles every
  kernel the case calls and writes the cache;
* warm: ``NUMBA_CACHE_DIR`` a folder filled by one run before the rounds -- every later run;
* bare: warm, with ``--no-plots --no-vtk`` -- the run's own process alone: its imports (numpy, scipy.sparse,
  numba, femdyn), kernel loads, steps and tables, without the plot children (which import matplotlib and
  draw, ``post/plot_child.py``) and meshio's VTK files. warm - bare is what the plots and VTK files cost.

(numba uses ``NUMBA_CACHE_DIR`` in place of the package's ``__pycache__``; the cache files are the same.
Python's own bytecode is warm in both.) The runs are interleaved: in each of ``--rounds`` rounds every
case runs cold and warm, the order alternating from round to round (C W / W C); medians. Reported: the
wall time of the command (from starting the process to its exit), its CPU time (user + system: less
sensitive to other processes on a shared machine than the wall time), the cold - warm difference (the
compilation), and the run's own time for its steps from its summary.json (``wall_time_s``). The target: nm_logo warm
within 1.5 s wall and 2 s CPU on an idle machine. The load average is printed at the start and the end (the CPU
time of a run grows with the load too, but less than its wall time).

A benchmark (a table and JSON in SI units), not a test.

Usage: python benchmarks/startup.py [--cases cases/nm_logo.toml cases/3prr_sine.toml] [--rounds 5]
                                    [--json results/startup.json]
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = [ROOT / "cases" / "nm_logo.toml", ROOT / "cases" / "3prr_sine.toml"]
TARGET_WARM = 1.5  # s, nm_logo
TARGET_CPU = 2.0  # s, nm_logo
KINDS = ("cold", "warm", "bare")
FLAGS = dict(cold=(), warm=(), bare=("--no-plots", "--no-vtk"))


def femdyn_run(case, cache, out, *flags):
    """Wall time and CPU time (user + system, s, of the process and its children) of ``femdyn run case``
    (with ``flags``) in a fresh process with NUMBA_CACHE_DIR = cache, and its summary."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    child = subprocess.run([sys.executable, "-m", "femdyn", "run", str(case), "--out", str(out), "--quiet", *flags],
                           env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if child.returncode != 0:
        raise SystemExit(f"femdyn run {case} failed (exit {child.returncode}):\n{child.stderr}")
    summary = json.loads((out / "summary.json").read_text())
    shutil.rmtree(out)
    return wall, cpu, summary


def step_seconds(summary):
    """The run's own time for its steps (summary.json ``wall_time_s``)."""
    return float(summary["wall_time_s"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", type=Path, default=CASES)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "startup.json")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs (load average {load[0]:.2f}); "
          f"{args.rounds} interleaved rounds, fresh processes; wall time of `femdyn run CASE` (s)", flush=True)
    walls = {(c.name, kind): [] for c in args.cases for kind in KINDS}
    cpus, steps = {key: [] for key in walls}, {key: [] for key in walls}
    with tempfile.TemporaryDirectory(prefix="femdyn-startup-") as tmp:
        tmp = Path(tmp)
        warm_cache = tmp / "warm"
        for case in args.cases:  # fills the warm cache
            femdyn_run(case, warm_cache, tmp / "out")
        for k in range(args.rounds):
            for i, case in enumerate(args.cases):
                kinds = KINDS if (k + i) % 2 == 0 else KINDS[::-1]
                for kind in kinds:
                    cache = tmp / f"cold-{k}-{i}" if kind == "cold" else warm_cache
                    wall, cpu, summary = femdyn_run(case, cache, tmp / "out", *FLAGS[kind])
                    walls[(case.name, kind)].append(wall)
                    cpus[(case.name, kind)].append(cpu)
                    steps[(case.name, kind)].append(step_seconds(summary))
                    if kind == "cold":
                        shutil.rmtree(cache, ignore_errors=True)
                    print(f"  round {k + 1}: {case.name:18s} {kind}  wall {wall:7.3f} s, CPU {cpu:7.3f} s", flush=True)
    rows = []
    print(f"\n{'case':18s} {'cold s':>8s} {'warm s':>8s} {'bare s':>8s} {'cold - warm':>12s} {'CPU cold':>9s} "
          f"{'CPU warm':>9s} {'CPU bare':>9s}   (medians; wall of all runs)")
    for case in args.cases:
        cold, warm, bare = (statistics.median(walls[(case.name, k)]) for k in KINDS)
        cpu_cold, cpu_warm, cpu_bare = (statistics.median(cpus[(case.name, k)]) for k in KINDS)
        rows.append(dict(case=case.name, cold_seconds=cold, warm_seconds=warm, compile_seconds=cold - warm,
                         cold_cpu_seconds=cpu_cold, warm_cpu_seconds=cpu_warm,
                         bare_seconds=bare, bare_cpu_seconds=cpu_bare, bare_runs=walls[(case.name, "bare")],
                         bare_cpu_runs=cpus[(case.name, "bare")],
                         cold_runs=walls[(case.name, "cold")], warm_runs=walls[(case.name, "warm")],
                         cold_cpu_runs=cpus[(case.name, "cold")], warm_cpu_runs=cpus[(case.name, "warm")],
                         cold_step_seconds=steps[(case.name, "cold")], warm_step_seconds=steps[(case.name, "warm")]))
        print(f"{case.name:18s} {cold:8.3f} {warm:8.3f} {bare:8.3f} {cold - warm:12.3f} {cpu_cold:9.3f} {cpu_warm:9.3f} "
              f"{cpu_bare:9.3f}   cold "
              + " ".join(f"{t:.2f}" for t in walls[(case.name, 'cold')]) + "; warm "
              + " ".join(f"{t:.2f}" for t in walls[(case.name, 'warm')]))
    logo = next((r for r in rows if r["case"] == "nm_logo.toml"), None)
    if logo:
        print(f"nm_logo warm: {logo['warm_seconds']:.3f} s wall (target <= {TARGET_WARM} s), {logo['warm_cpu_seconds']:.3f} s "
              f"CPU (target <= {TARGET_CPU} s; {logo['bare_cpu_seconds']:.3f} s without plots and VTK)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(dict(rounds=args.rounds, load_average_start=load, load_average_end=os.getloadavg(),
                                         python=platform.python_version(), cpus=os.cpu_count(),
                                         target_warm_seconds_nm_logo=TARGET_WARM,
                                         target_warm_cpu_seconds_nm_logo=TARGET_CPU, cases=rows), indent=2))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
