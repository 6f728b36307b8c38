"""Time per step of the flexible pendulum at two sizes for two femdyn checkouts, measured in turns
(issue 37: the scaling target on a shared machine).

On a 2-core machine shared with other jobs a step's time moves by a factor 2-4 with their load, so that
fresh processes one after the other (``scaling.py``) give a ratio N = 4096 / N = 256 anywhere between 13
and 22. Here one process per (checkout, N) builds the pendulum of ``exudyn_flexible.py`` and steps it from
the release (after ``--warm`` steps), kept alive; the processes then take turns, one at a time, each
running 10 further steps per turn (``--steps``; the same steps in both checkouts where their numbers agree),
the order of the processes rotating from one cycle to the next, for ``--cycles`` cycles. Reported per
process: the least and the median CPU and wall time per step over the turns, Newton iterations per step,
and the ratios 4096 / 256 (least: the turns least disturbed by others) and branch / main per N, with the
load average. A benchmark, not a test: nothing is asserted.

Usage: python benchmarks/paired.py --main PATH [--branch PATH] [--elements 256 4096] [--integrator ..]
       [--newton full|modified] [--cycles 40] [--steps N=STEPS ..]
``PATH``: a folder that holds the ``femdyn`` package to import (``PYTHONPATH`` of that process).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def child(n, integrator, newton, warm):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np
    from exudyn_flexible import FemdynPendulum
    from scaling import stepper_class

    from femdyn.integrators.newton import NewtonOptions
    fp = FemdynPendulum(n)
    model, setup = fp.model, fp.setup
    stepper = stepper_class(integrator)(model, 1e-3, setup.active_rows, NewtonOptions(modified=newton == "modified"))
    state = [0, setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)]

    def run(steps):
        k, q, v, lam, states = state
        iterations = 0
        for i in range(steps):
            r = stepper.step((k + i) * 1e-3, q, v, lam, states)
            q, v, lam, states, iterations = r.q, r.v, r.lam, r.states, iterations + r.iterations
        state[:] = [k + steps, q, v, lam, states]
        return iterations

    run(warm)
    print("ready", flush=True)
    for line in sys.stdin:
        steps = int(line)
        cpu, wall = time.process_time(), time.perf_counter()
        iterations = run(steps)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps(dict(cpu_ms=1e3 * cpu / steps, wall_ms=1e3 * wall / steps, newton=iterations / steps,
                              tip=float(state[1][-1]))), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--main", help="folder holding the femdyn to compare against (required)")
    parser.add_argument("--branch", default=str(Path(__file__).resolve().parents[1]),
                        help="folder holding the other femdyn (default: this checkout)")
    parser.add_argument("--elements", type=int, nargs="+", default=[256, 4096])
    parser.add_argument("--integrator", default="energy-momentum", choices=["energy-momentum", "generalized-alpha"])
    parser.add_argument("--newton", default="full", choices=["full", "modified"])
    parser.add_argument("--cycles", type=int, default=40)
    parser.add_argument("--warm", type=int, default=10, help="steps before the turns (default 10)")
    parser.add_argument("--steps", nargs="+", default=[],
                        help="steps per turn for an N, N=steps (default 10 for every N: both sizes then take the same "
                             "steps of the swing, whose Newton iterations change along it)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1], args.child[2], int(args.child[3]))
        return
    if not args.main:
        parser.error("--main is required")
    per_turn = {int(k): int(v) for k, v in (s.split("=") for s in args.steps)}
    load = os.getloadavg()
    print(f"{args.integrator}, {args.newton} Newton; {args.cycles} cycles; load average {load[0]:.2f}", flush=True)
    procs = {}
    for who, path in (("main", args.main), ("branch", args.branch)):
        for n in args.elements:
            env = dict(os.environ, PYTHONPATH=str(Path(path).resolve()), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
            p = subprocess.Popen([sys.executable, __file__, "--child", str(n), args.integrator, args.newton,
                                  str(args.warm)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
            assert p.stdout.readline().strip() == "ready"  # built and warm, one at a time
            procs[(who, n)] = p
    keys, turns = list(procs), {k: [] for k in procs}
    for c in range(args.cycles):
        order = keys[c % len(keys):] + keys[:c % len(keys)]
        for key in (order if c % 2 == 0 else order[::-1]):
            p = procs[key]
            p.stdin.write(f"{per_turn.get(key[1], 10)}\n")
            p.stdin.flush()
            turns[key].append(json.loads(p.stdout.readline()))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    table = {}
    print(f"{'':8s} {'N':>5s} {'CPU ms/step least':>18s} {'median':>8s} {'wall least':>11s} {'median':>8s} "
          f"{'Newton':>7s}")
    for (who, n), ts in turns.items():
        row = dict(cpu_least=min(t["cpu_ms"] for t in ts), cpu_median=statistics.median(t["cpu_ms"] for t in ts),
                   wall_least=min(t["wall_ms"] for t in ts), wall_median=statistics.median(t["wall_ms"] for t in ts),
                   newton=statistics.mean(t["newton"] for t in ts), tip=ts[-1]["tip"])
        table[(who, n)] = row
        print(f"{who:8s} {n:5d} {row['cpu_least']:18.3f} {row['cpu_median']:8.3f} {row['wall_least']:11.3f} "
              f"{row['wall_median']:8.3f} {row['newton']:7.3f}")
    lo, hi = min(args.elements), max(args.elements)
    for who in ("main", "branch"):
        a, b = table[(who, lo)], table[(who, hi)]
        print(f"{who}: N = {hi} / N = {lo}: CPU least {b['cpu_least'] / a['cpu_least']:.2f}, median "
              f"{b['cpu_median'] / a['cpu_median']:.2f}; wall least {b['wall_least'] / a['wall_least']:.2f}, median "
              f"{b['wall_median'] / a['wall_median']:.2f}; Newton per step {b['newton']:.2f} / {a['newton']:.2f}")
    for n in args.elements:
        a, b = table[("main", n)], table[("branch", n)]
        print(f"N = {n}: branch / main CPU least {b['cpu_least'] / a['cpu_least']:.3f}, median "
              f"{b['cpu_median'] / a['cpu_median']:.3f}; the same last tip: {a['tip'] == b['tip']}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
