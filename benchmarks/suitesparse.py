"""femdyn with the kvxopt wheel's KLU (the default, ``numerics/suitesparse.py``) against the system's
libklu (``FEMDYN_KLU=system``, SuiteSparse of the distribution: 5.12 on Debian 12), interleaved.

Runs ``benchmarks/3prr.py --repeat 1 --elements 64 1024 --pendulum-steps STEPS --json FILE`` (the FEM
3-PRR of 003 with both steppers, and the flexible pendulum with N = 64 and 1024 elements) in a fresh
process per run, wheel and system in alternating order (W S / S W / ...) for ``--rounds`` rounds, and
prints the median of every timing figure for each library with the ratio wheel/system, and the load
average (``os.getloadavg``) before and after: the machine may be shared. Numba's cache should be warm
(``femdyn warm-up``): a compilation would be timed in the first run.

With ``--klu-only`` it times KLU alone instead, far less exposed to the load: the Newton matrices of
those three problems (energy-momentum, after 3 steps; ``solvers.captured_matrix``, in a child process)
refactored and solved (``klu_refactor`` + ``klu_solve``, the calls of a time step) by both libraries
loaded side by side in one process (each ``RTLD_LOCAL``, femdyn's ordering), alternating for
``--rounds`` rounds of ``--calls`` calls each, medians. A benchmark, not a test.

Usage: python benchmarks/suitesparse.py [--rounds 3] [--pendulum-steps 500] [--klu-only [--calls 200]]
                                        [--json results/suitesparse.json]
"""
import argparse
import ctypes
import ctypes.util
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


def capture(path):
    """The energy-momentum Newton matrices (after 3 steps) of the pendulum N = 64, 1024 and the FEM
    3-PRR, saved to ``path`` (run in a child process: its KLU calls come from compiled code)."""
    from exudyn_flexible import FemdynPendulum
    from solvers import captured_matrix

    from femdyn.integrators.energy_momentum import EnergyMomentum
    from femdyn.integrators.setup import prepare
    from femdyn.casefile.beams import Options
    from femdyn.casefile.case import load_case

    problems = {}
    for n in (64, 1024):
        p = FemdynPendulum(n)
        problems[f"pendulum N={n}"] = (p.model, p.setup)
    case = load_case(HERE.parent / "cases" / "3prr_sine.toml", Options(model="fem", elements=4))
    problems["3-PRR FEM"] = (case.model, prepare(case.model, case.q0, case.v0))
    arrays = {}
    for k, (name, (model, setup)) in enumerate(problems.items()):
        A = captured_matrix(model, EnergyMomentum(model, 1e-3, setup.active_rows), setup)
        arrays.update({f"{k}_name": name, f"{k}_indptr": A.indptr, f"{k}_indices": A.indices, f"{k}_data": A.data})
    import numpy as np

    np.savez(path, **arrays)


def _klu(path):
    """libklu at ``path`` with the argument types of the calls timed."""
    from femdyn.numerics.linalg import _KluCommon

    lib = ctypes.CDLL(path)
    p, c = ctypes.c_void_p, ctypes.POINTER(_KluCommon)
    for fn, res, args in [("klu_defaults", ctypes.c_int, [c]), ("klu_analyze", p, [ctypes.c_int, p, p, c]),
                          ("klu_factor", p, [p, p, p, p, c]), ("klu_refactor", ctypes.c_int, [p, p, p, p, p, c]),
                          ("klu_solve", ctypes.c_int, [p, p, ctypes.c_int, ctypes.c_int, p, c])]:
        getattr(lib, fn).restype, getattr(lib, fn).argtypes = res, args
    return lib


def klu_only(rounds, calls):
    """{matrix: {library: [ms per refactor + solve, per round]}} (module docstring)."""
    import time

    import numpy as np

    from femdyn.numerics.linalg import ORDERINGS, FixedPatternLU, _KluCommon
    from femdyn.numerics.suitesparse import klu_library

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "matrices.npz"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")])))
        env.pop("FEMDYN_KLU", None)
        subprocess.run([sys.executable, __file__, "--capture", str(path)], env=env, check=True)
        saved = dict(np.load(path))
    libraries = {"wheel": _klu(klu_library()), "system": _klu(ctypes.util.find_library("klu") or "libklu.so.1")}
    out = {}
    for k in range(len(saved) // 4):
        name = str(saved[f"{k}_name"])
        Ap, Ai = (np.ascontiguousarray(saved[f"{k}_{a}"], dtype=np.int32) for a in ("indptr", "indices"))
        Ax = np.ascontiguousarray(saved[f"{k}_data"])
        ordering = FixedPatternLU(Ap, Ai)
        ordering.factor(Ax)
        handles = {}
        for label, lib in libraries.items():
            common = _KluCommon()
            lib.klu_defaults(ctypes.byref(common))
            common.ordering, common.btf = ORDERINGS[ordering.ordering]
            symbolic = lib.klu_analyze(len(Ap) - 1, Ap.ctypes.data, Ai.ctypes.data, ctypes.byref(common))
            numeric = lib.klu_factor(Ap.ctypes.data, Ai.ctypes.data, Ax.ctypes.data, symbolic, ctypes.byref(common))
            handles[label] = (lib, symbolic, numeric, common)
        b = np.random.default_rng(0).standard_normal(len(Ap) - 1)
        out[name] = {label: [] for label in libraries}
        for round_ in range(rounds):
            for label in list(libraries)[:: 1 if round_ % 2 == 0 else -1]:
                lib, symbolic, numeric, common = handles[label]
                times = []
                for _ in range(calls):
                    x = b.copy()
                    start = time.perf_counter()
                    lib.klu_refactor(Ap.ctypes.data, Ai.ctypes.data, Ax.ctypes.data, symbolic, numeric, ctypes.byref(common))
                    lib.klu_solve(symbolic, numeric, len(x), 1, x.ctypes.data, ctypes.byref(common))
                    times.append(time.perf_counter() - start)
                out[name][label].append(1e3 * statistics.median(times))
        print(f"{name}: n = {len(Ap) - 1}, ordering {ordering.ordering}, ms per refactor + solve, median of "
              f"{rounds} rounds: wheel {statistics.median(out[name]['wheel']):.4f}, system "
              f"{statistics.median(out[name]['system']):.4f}, wheel/system "
              f"{statistics.median(out[name]['wheel']) / statistics.median(out[name]['system']):.3f}  (rounds: "
              + " ".join(f"{a:.4f}/{b:.4f}" for a, b in zip(out[name]['wheel'], out[name]['system'])) + ")")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pendulum-steps", type=int, default=500)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--klu-only", action="store_true", help="time KLU alone on captured matrices")
    parser.add_argument("--calls", type=int, default=200, help="--klu-only: calls per round (default 200)")
    parser.add_argument("--capture", type=Path, help=argparse.SUPPRESS)  # the child process of --klu-only
    args = parser.parse_args(argv)
    if args.capture:
        return capture(args.capture)
    load_before = os.getloadavg()
    if args.klu_only:
        times = klu_only(args.rounds, args.calls)
        load_after = os.getloadavg()
        print(f"load average (1, 5, 15 min) before {' '.join(f'{x:.2f}' for x in load_before)}, "
              f"after {' '.join(f'{x:.2f}' for x in load_after)}")
        if args.json:
            args.json.write_text(json.dumps(dict(load_before=load_before, load_after=load_after, klu_ms=times),
                                            indent=2))
        return None
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
