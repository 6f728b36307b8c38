"""Where the first run's compilation goes (issue 37): a femdyn command run in this process with numba's
compile events recorded (``numba.core.event.install_recorder("numba:compile")``), and per kernel (numba
dispatcher) the signatures compiled, the seconds of its own compilation (exclusive: the kernels it calls,
compiled inside its typing, taken out) and with them (inclusive). A kernel that calls another links the
callee's code into its own and optimises and emits it again, so a big callee costs in every caller too:
that is in the caller's exclusive time.

Run it on an empty cache, else it reports only what the cache lacked:

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_breakdown.py --top 10 --json FILE \\
        run cases/3prr_sine.toml --t-end 0.02 --no-vtk --no-plots

A benchmark (a table, JSON in seconds), not a test.
"""
import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path


def record(argv):
    """Runs ``femdyn argv`` here; returns its wall time (s) and the compilations as (kernel, signature,
    inclusive s, exclusive s), in the order they ended."""
    from numba.core import event

    start = time.perf_counter()
    with event.install_recorder("numba:compile") as recorder:
        from femdyn.cli import main

        try:
            main(argv)
        except SystemExit:
            pass
    wall = time.perf_counter() - start
    stack, rows = [], []
    for stamp, ev in recorder.buffer:
        if ev.is_start:
            stack.append([stamp, 0.0])
            continue
        begun, inner = stack.pop()
        spent = stamp - begun
        function = ev.data["dispatcher"].py_func
        rows.append((f"{function.__module__}.{function.__qualname__}", str(ev.data["args"]), spent, spent - inner))
        if stack:
            stack[-1][1] += spent
    return wall, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=10, help="kernels listed, by exclusive time (default 10)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the femdyn command and its arguments")
    args = parser.parse_args()
    wall, rows = record(args.command)
    kernels = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for name, _, inclusive, exclusive in rows:
        entry = kernels[name]
        entry[0] += 1
        entry[1] += inclusive
        entry[2] += exclusive
    total = sum(row[3] for row in rows)
    print(f"femdyn {' '.join(args.command)}: wall {wall:.1f} s, compiling {total:.1f} s, {len(rows)} compilations "
          f"(load average {os.getloadavg()[0]:.2f})")
    print(f"{'exclusive s':>11s} {'inclusive s':>11s} {'signatures':>10s}  kernel")
    for name, (count, inclusive, exclusive) in sorted(kernels.items(), key=lambda item: -item[1][2])[: args.top]:
        print(f"{exclusive:11.2f} {inclusive:11.2f} {count:10d}  {name}")
    if args.json:
        args.json.write_text(json.dumps(dict(command=args.command, wall_seconds=wall, compile_seconds=total,
                                             load_average=os.getloadavg(),
                                             compilations=[dict(kernel=n, signature=s, inclusive_seconds=i,
                                                                exclusive_seconds=e) for n, s, i, e in rows]),
                                        indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
