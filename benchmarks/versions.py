"""Two versions of femdyn measured interleaved by one benchmark script.

Runs ``benchmarks/SCRIPT ARGS --json FILE`` from two checkouts (each with its own femdyn on
PYTHONPATH) in alternating order, A B / B A / A B ..., for ``--rounds`` rounds, and prints the median
of every number the two JSON reports share, with the ratio B/A. Shared machines drift: a run of all
A then all B would compare the machine's load, not the versions.

    .venv/bin/python benchmarks/versions.py --a ../before --b . --rounds 3 3prr.py --repeat 1 --elements 64

Entries of JSON lists are named by their string fields (e.g. ``three_prr[fem generalized-alpha]``) or
first integer field (``pendulum[N=64]``);
timing fields (``seconds``, ``ms_per_step``, ...) and all others are reported alike.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def _leaves(node, path=""):
    """(path, number) of every number in a parsed JSON report."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, f"{path}.{key}" if path else key)
    elif isinstance(node, list):
        for k, item in enumerate(node):
            yield from _leaves(item, f"{path}[{_label(item, k)}]")
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path, float(node)


def _label(item, index):
    """The name of a list entry: its string fields, else its first integer field (e.g. N = 64), else
    its index; fields that may differ between versions (unknowns, steps) then do not split entries."""
    if not isinstance(item, dict):
        return str(index)
    words = [v for v in item.values() if isinstance(v, str)]
    if words:
        return " ".join(words)
    first = next(((k, v) for k, v in item.items() if isinstance(v, int) and not isinstance(v, bool)), None)
    return f"{first[0]}={first[1]}" if first else str(index)


def _run(checkout, script, args, out):
    env = dict(os.environ, PYTHONPATH=str(checkout))
    command = [sys.executable, str(checkout / "benchmarks" / script), *args, "--json", str(out)]
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{checkout}: {' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(out.read_text())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, required=True, help="checkout of version A (its root folder)")
    parser.add_argument("--b", type=Path, required=True, help="checkout of version B")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one A and one B run (default 3)")
    parser.add_argument("script", help="benchmark script in benchmarks/ that writes --json FILE")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    args = parser.parse_args(argv)
    versions = {"A": args.a.resolve(), "B": args.b.resolve()}
    figures = {"A": {}, "B": {}}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
            for name in order:
                report = _run(versions[name], args.script, args.args, Path(folder) / f"{name}{round_}.json")
                for path, value in _leaves(report):
                    figures[name].setdefault(path, []).append(value)
                print(f"round {round_ + 1}: {name} done", file=sys.stderr)
    shared = [p for p in figures["A"] if p in figures["B"]]
    width = max(map(len, shared), default=10)
    print(f"medians of {args.rounds} interleaved runs; A = {versions['A']}, B = {versions['B']}")
    print(f"{'figure':{width}s} {'A':>12s} {'B':>12s} {'B/A':>7s}")
    for path in shared:
        a, b = statistics.median(figures["A"][path]), statistics.median(figures["B"][path])
        ratio = f"{b / a:7.3f}" if a else "      -"
        print(f"{path:{width}s} {a:12.4g} {b:12.4g} {ratio}")


if __name__ == "__main__":
    main()
