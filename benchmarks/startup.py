"""Start-up of ``femdyn run``: the wall time of the whole command in a fresh process, with an empty and
with a warm cache of the compiled kernels (numba's on-disk cache, ``femdyn.numerics.compiled``).

For each case (default: ``cases/nm_logo.toml``, rigid, and ``cases/3prr_sine.toml``, FEM links of
world-vector beams whose elastic kernels are compiled) the command ``femdyn run CASE --out DIR`` (every
output: CSV, ParaView series, plots) runs in fresh processes:

* cold: ``NUMBA_CACHE_DIR`` a new, empty folder -- the first run after an install, which compiles every
  kernel the case calls and writes the cache;
* warm: ``NUMBA_CACHE_DIR`` a folder filled by one run before the rounds -- every later run;
* bare: warm, with ``--no-plots --no-vtk`` -- the run's own process alone: its imports (numpy, scipy.sparse,
  numba, femdyn), kernel loads, steps and tables, without the plot child (which imports matplotlib and
  draws, ``post/plot_child.py``) and the ParaView series (``io/vtkxml.py``). warm - bare is what the plots
  and the ParaView series cost.

(numba uses ``NUMBA_CACHE_DIR`` in place of the package's ``__pycache__``; the cache files are the same.
Python's own bytecode is warm in both.) The runs are interleaved: in each of ``--rounds`` rounds every
case runs cold and warm, the order alternating from round to round (C W / W C); medians. Reported: the
wall time of the command (from starting the process to its exit), its CPU time (user + system: less
sensitive to other processes on a shared machine than the wall time), the cold - warm difference (the
compilation), and the run's own time for its steps from its summary.json (``wall_time_s``). The CPU time is
that of the whole process tree: ``getrusage(RUSAGE_CHILDREN)`` of this process counts every descendant
that was waited for, the plot child the run forks (and reaps) included, with the second drawing process it
forks where the load average leaves a core idle (``post.plot_child.idle_core``; ``FEMDYN_PLOT_PROCESSES``
in the environment fixes the number for every run). The target: nm_logo warm
within 1.5 s wall and 2 s CPU on an idle machine. The load average (1 min) is printed with every run and at
the start and the end (the CPU time of a run grows with the load too, but less than its wall time).

``--trees OLD NEW``: the same rounds for each source tree (a checkout of femdyn, imported through
PYTHONPATH; each its own warm numba cache, filled before the rounds -- with ``--tree-caches`` the tree's own
``__pycache__``, which a warm tree has filled already), interleaved, to compare two versions on a shared
machine. Python's bytecode is written and used (PYTHONDONTWRITEBYTECODE
is removed from the runs' environment), as for an installed package; ``--kinds`` picks the kinds run (the warm
caches are filled only where warm or bare runs are asked for); ``--flags`` adds options to every run (e.g.
``--flags="--t-end 0.02"``: the first run's compilation of issue 37 with a short span).

A benchmark (a table and JSON in SI units), not a test.

Usage: python benchmarks/startup.py [--cases cases/nm_logo.toml cases/3prr_sine.toml] [--rounds 5]
                                    [--kinds cold warm bare] [--trees OLD NEW] [--tree-caches]
                                    [--flags="--t-end 0.02"]
                                    [--json results/startup.json]
"""
import argparse
import json
import os
import platform
import resource
import shlex
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


def femdyn_run(case, cache, out, *flags, tree=ROOT):
    """Wall time and CPU time (user + system, s, of the process and its children) of ``femdyn run case``
    (with ``flags``) in a fresh process with NUMBA_CACHE_DIR = cache (None: the tree's own cache) and the
    femdyn of ``tree``, and its summary."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "NUMBA_CACHE_DIR")}
    env["PYTHONPATH"] = str(tree)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    child = subprocess.run([sys.executable, "-m", "femdyn", "run", str(case), "--out", str(out), "--quiet", *flags],
                           env=env, cwd=tree, capture_output=True, text=True)
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
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--trees", nargs="+", type=Path, default=[ROOT])
    parser.add_argument("--tree-caches", action="store_true",
                        help="warm and bare runs use each tree's own numba cache (its __pycache__, as a plain "
                        "`femdyn run` does) instead of a new folder filled before the rounds: nothing is compiled "
                        "where the trees' caches are warm")
    parser.add_argument("--flags", type=shlex.split, default=[],
                        help='options added to every `femdyn run`, one string (e.g. --flags="--t-end 0.02")')
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "startup.json")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.trees]
    load = os.getloadavg()
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs (load average {load[0]:.2f}); "
          f"{args.rounds} interleaved rounds, fresh processes; `femdyn run CASE {' '.join(args.flags)}` of "
          f"{', '.join(map(str, trees))}", flush=True)
    keys = [(tree, c.name, kind) for tree in trees for c in args.cases for kind in args.kinds]
    walls, cpus, steps = ({key: [] for key in keys} for _ in range(3))
    with tempfile.TemporaryDirectory(prefix="femdyn-startup-") as tmp:
        tmp = Path(tmp)
        warm_caches = {tree: None if args.tree_caches else tmp / f"warm-{i}" for i, tree in enumerate(trees)}
        for tree in trees:  # fills each warm cache (and writes the tree's bytecode)
            for case in args.cases if {"warm", "bare"} & set(args.kinds) else ():
                femdyn_run(case, warm_caches[tree], tmp / "out", *args.flags, tree=tree)
        for k in range(args.rounds):
            for i, case in enumerate(args.cases):
                order = [(tree, kind) for tree in trees for kind in args.kinds]
                for tree, kind in order if (k + i) % 2 == 0 else order[::-1]:
                    cache = tmp / f"cold-{k}-{i}" if kind == "cold" else warm_caches[tree]
                    wall, cpu, summary = femdyn_run(case, cache, tmp / "out", *FLAGS[kind], *args.flags, tree=tree)
                    walls[(tree, case.name, kind)].append(wall)
                    cpus[(tree, case.name, kind)].append(cpu)
                    steps[(tree, case.name, kind)].append(step_seconds(summary))
                    if kind == "cold":
                        shutil.rmtree(cache, ignore_errors=True)
                    print(f"  round {k + 1}: {tree.name:10s} {case.name:18s} {kind}  wall {wall:7.3f} s, CPU {cpu:7.3f} s"
                          f"  (load {os.getloadavg()[0]:.2f})", flush=True)
    rows = []
    print(f"\n{'tree':10s} {'case':18s} {'kind':5s} {'wall s':>8s} {'CPU s':>8s}   (medians; all runs' wall / CPU)")
    for tree, name, kind in keys:
        wall, cpu = statistics.median(walls[(tree, name, kind)]), statistics.median(cpus[(tree, name, kind)])
        rows.append(dict(tree=str(tree), case=name, kind=kind, wall_seconds=wall, cpu_seconds=cpu,
                         wall_runs=walls[(tree, name, kind)], cpu_runs=cpus[(tree, name, kind)],
                         step_seconds=steps[(tree, name, kind)]))
        print(f"{tree.name:10s} {name:18s} {kind:5s} {wall:8.3f} {cpu:8.3f}   "
              + " ".join(f"{t:.2f}" for t in walls[(tree, name, kind)]) + " / "
              + " ".join(f"{t:.2f}" for t in cpus[(tree, name, kind)]))
    for row in rows:
        if row["case"] == "nm_logo.toml" and row["kind"] == "warm":
            print(f"nm_logo warm ({Path(row['tree']).name}): {row['wall_seconds']:.3f} s wall (target <= {TARGET_WARM} s), "
                  f"{row['cpu_seconds']:.3f} s CPU (target <= {TARGET_CPU} s)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(dict(rounds=args.rounds, flags=args.flags, load_average_start=load, load_average_end=os.getloadavg(),
                                         python=platform.python_version(), cpus=os.cpu_count(),
                                         target_warm_seconds_nm_logo=TARGET_WARM,
                                         target_warm_cpu_seconds_nm_logo=TARGET_CPU, runs=rows), indent=2))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
