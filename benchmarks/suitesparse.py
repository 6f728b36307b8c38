"""femdyn with the kvxopt wheel's KLU (the default, ``numerics/suitesparse.py``) against the system's
libklu (``FEMDYN_KLU=system``, SuiteSparse of the distribution: 5.12 on Debian 12), interleaved.

Runs ``benchmarks/3prr.py --repeat 1 --elements 64 1024 --pendulum-steps STEPS --json FILE`` (the FEM
3-PRR of 003 with both steppers, and the flexible pendulum with N = 64 and 1024 elements) in a fresh
process per run, wheel and system in alternating order (W S / S W / ...) for ``--rounds`` rounds, and
prints the median of every timing figure for each library with the ratio wheel/system, and the load
average (``os.getloadavg``) before and after: the machine may be shared. Numba's cache should be warm
(``femdyn warm-up``): a compilation would be timed in the first run. A benchmark, not a test.

Usage: python benchmarks/suitesparse.py [--rounds 3] [--pendulum-steps 500] [--json results/suitesparse.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from versions import _leaves

HERE = Path(__file__).resolve().parent
LIBRARIES = {"wheel": None, "system": "system"}  # the value of FEMDYN_KLU
TIMINGS = ("seconds", "ms_per_step")


def _run(library, steps, out):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")])))
    env.pop("FEMDYN_KLU", None)
    if LIBRARIES[library]:
        env["FEMDYN_KLU"] = LIBRARIES[library]
    command = [sys.executable, str(HERE / "3prr.py"), "--repeat", "1", "--elements", "64", "1024",
               "--pendulum-steps", str(steps), "--json", str(out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{library}: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(out.read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pendulum-steps", type=int, default=500)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    figures = {name: {} for name in LIBRARIES}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            for name in list(LIBRARIES)[:: 1 if round_ % 2 == 0 else -1]:
                report = _run(name, args.pendulum_steps, Path(folder) / f"{name}{round_}.json")
                for path, value in _leaves(report):
                    if path.rsplit(".", 1)[-1] in TIMINGS:
                        figures[name].setdefault(path, []).append(value)
                print(f"round {round_ + 1}: {name} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
    load_after = os.getloadavg()
    medians = {name: {p: statistics.median(v) for p, v in f.items()} for name, f in figures.items()}
    width = max(map(len, medians["wheel"]))
    print(f"medians of {args.rounds} interleaved rounds; load average (1, 5, 15 min) before "
          f"{' '.join(f'{x:.2f}' for x in load_before)}, after {' '.join(f'{x:.2f}' for x in load_after)}")
    print(f"{'figure':{width}s} {'wheel':>10s} {'system':>10s} {'w/s':>6s}   runs wheel | system")
    for path, wheel in medians["wheel"].items():
        system = medians["system"][path]
        runs = " ".join(f"{x:.4g}" for x in figures["wheel"][path]) + " | " + " ".join(
            f"{x:.4g}" for x in figures["system"][path])
        print(f"{path:{width}s} {wheel:10.4g} {system:10.4g} {wheel / system:6.3f}   {runs}")
    if args.json:
        args.json.write_text(json.dumps(dict(load_before=load_before, load_after=load_after, runs=figures,
                                             medians=medians), indent=2))


if __name__ == "__main__":
    main()
