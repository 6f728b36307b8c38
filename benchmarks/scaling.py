"""Scaling and memory of femdyn's flexible pendulum in the number of elements
(time per step and peak memory, N = 16 to 4096).

The pendulum of ``exudyn_flexible.py`` (pinned steel beam, L = 1 m, 10 x 10 mm, gravity, released
horizontal from rest; FFR Euler-Bernoulli with geometric stiffening, KLU; the energy-momentum stepper, or with
``--integrator generalized-alpha`` generalized-alpha with rho_inf = 0.9)
with N = 16, 32, ..., 4096 elements. Each N runs in a fresh Python process, so that its peak memory is
its own, in ``--rounds`` rounds (default 3) alternating the order of N (up, down, up), medians:

* time per step: ``--steps`` steps at ``--dt`` from the start (stepper construction excluded and
  reported apart; 3 warm-up steps first), median of ``--repeat`` runs with a new stepper each (runs longer than
  ``--single-above`` seconds are made once); also per Newton iteration, since the iteration count
  changes with N; wall time, and the process's CPU time too (on a machine shared with other jobs the
  wall time waits for a core: the CPU time leaves those waits out, not the caches that others share);
* peak memory: ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of that process (everything: Python,
  NumPy/SciPy, KLU's C allocations), and the same after the imports, before the model is built (the
  baseline: the libraries); with ``--tracemalloc`` also the peak of Python-tracked
  allocations (NumPy arrays included, KLU's C memory not) in a second fresh process.

With ``--split`` a third fresh process per N and round repeats the run with timers around the parts
of the iteration (``split_run``): ms per step of the whole iteration where it runs compiled
(``kernels.newton_loop``: full Newton after the first step, its parts then not timed apart), of the
assembly (residual and Newton matrix, the refill of
the force tangents among it), KLU's factorisations from the interpreter (``numerics.klu.factor``:
refactorised or pivoting; also ms per factorisation), the first solve, its refinement, the later solves, the end of step and the rest, and
KLU's figures (unknowns, entries of the matrix and of L + U, the ordering kept). The compiled
iteration is then split apart as well (``loop_parts``): the arguments of ``newton_loop`` are taken at
step ``PARTS_STEP`` and each of its parts is timed alone on them, least time per call over batches (us
per call, not per step): the beam kernel (``beam.world.kernels.step``, the step's start held), the
mass product M qb and the copy of the mass entries that start each iteration, ``kernels.assemble``
with and without the scatter of the beams' tangent into the matrix, KLU's refactorisation (with
klu_rcond), the first solve with its refinement, a later solve, and the whole loop of that step again
(its iterations as in the run) -- parts in isolation keep their data in cache, so their sum is below
the loop's time in a run.

Prints a table, the time per step at N = 4096 over that at N = 256 (target: <= 17, linear
growth gives 16) and the peak memory at N = 4096 (target: < 300 MiB), and writes JSON. A benchmark, not
a test: nothing is asserted.

Usage: python benchmarks/scaling.py [--elements 16 32 .. 4096] [--steps 200] [--dt 1e-3] [--repeat 1] [--rounds 3]
                                    [--newton full|modified] [--integrator energy-momentum|generalized-alpha]
                                    [--tracemalloc] [--split]
                                    [--json results/scaling.json]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread
    os.environ.setdefault(_var, "1")

import argparse
import json
import math
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ELEMENTS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
TARGET_RATIO, TARGET_MEMORY = 17.0, 300.0  # time per step N=4096 / N=256; MiB at N = 4096 (issue targets)
RATIO_FROM, RATIO_TO = 256, 4096
MIB = 1024.0  # ru_maxrss is in KiB on Linux


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / MIB


# the parts of an iteration timed by ``split_run``: (module, owner or None for the module, attribute, label); the
# energy-momentum stepper's own (assembly, end of step) read 0 with ``--integrator generalized-alpha``
SPLIT = [("femdyn.integrators.kernels", None, "newton_loop", "compiled Newton iteration (whole)"),
         ("femdyn.integrators.energy_momentum", "EnergyMomentum", "_iterate", "assembly"),
         ("femdyn.integrators.saddle", "SaddleSystem", "add_tangent", "  refill of force tangents"),
         ("femdyn.numerics.klu", None, "factor", "KLU factorisation"),
         ("femdyn.numerics.linalg", "FixedPatternLU", "solve", "first solve"),
         ("femdyn.numerics.linalg", "FixedPatternLU", "refine", "refinement"),
         ("femdyn.integrators.kernels", None, "solve_update", "later solves"),
         ("femdyn.integrators.energy_momentum", "EnergyMomentum", "_finish", "end of step")]


def stepper_class(integrator):
    """The stepper of ``integrator`` (``settings.INTEGRATORS``)."""
    from femdyn.integrators.energy_momentum import EnergyMomentum
    from femdyn.integrators.generalized_alpha import GeneralizedAlpha
    return GeneralizedAlpha if integrator == "generalized-alpha" else EnergyMomentum


def split_run(model, setup, dt, options, steps, integrator="energy-momentum"):
    """A run of ``steps`` with a perf_counter timer around each part of ``SPLIT`` (about 1 us a call
    added): ms per step of each part (``rest``: the total less the parts not indented), the calls
    per step, and KLU's figures of the run."""
    import importlib

    from chain import run_steps
    spent, calls, kept = {}, {}, []

    def timed(label, function):
        def wrapper(*args, **keywords):
            start = time.perf_counter()
            try:
                return function(*args, **keywords)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
                calls[label] = calls.get(label, 0) + 1
        return wrapper

    for module, owner, name, label in SPLIT:
        target = importlib.import_module(module)
        target = getattr(target, owner) if owner else target
        kept.append((target, name, getattr(target, name)))
        setattr(target, name, timed(label, kept[-1][2]))
    try:
        stepper = stepper_class(integrator)(model, dt, setup.active_rows, options)
        _, _, iterations, seconds = run_steps(model, setup, stepper, steps)
    finally:
        for target, name, function in kept:
            setattr(target, name, function)
    parts = {label: 1e3 * spent.get(label, 0.0) / steps for *_, label in SPLIT}
    parts["rest"] = 1e3 * seconds / steps - sum(v for k, v in parts.items() if not k.startswith(" "))
    lu = stepper.system.lu
    refactors = calls.get("KLU factorisation", 0)
    return dict(ms_per_step=1e3 * seconds / steps, newton_per_step=iterations / steps, parts=parts,
                calls_per_step={k: v / steps for k, v in calls.items()},
                ms_per_refactorisation=1e3 * spent.get("KLU factorisation", 0.0) / max(refactors, 1),
                unknowns=stepper.size, matrix_entries=int(lu._Ai.size), lu_entries=int(lu.fill),
                ordering=lu.ordering, factorizations=lu.factorizations, refactorizations=lu.refactorizations)


PARTS_STEP = 30  # the step whose ``newton_loop`` arguments ``loop_parts`` times the parts on


def loop_parts(model, setup, dt, options, batches=15, integrator="energy-momentum"):
    """us per call of each part of the compiled Newton iteration, timed alone on the arguments of
    ``newton_loop`` at step ``PARTS_STEP`` (module docstring), least over ``batches`` batches."""
    import copy
    import inspect

    import numpy as np
    from chain import run_steps
    from numba import njit

    from femdyn.beam.world import kernels as beams
    from femdyn.integrators import kernels
    from femdyn.numerics import klu

    @njit
    def mass_product(indptr, indices, data, q, out):  # newton_loop's M qb
        for i in range(q.size):
            acc = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                acc += data[k] * q[indices[k]]
            out[i] = acc

    loop, taken = kernels.newton_loop, []
    names = list(inspect.signature(loop.py_func).parameters)

    def capture(*args):
        taken.append(copy.deepcopy(args) if len(taken) == PARTS_STEP else None)
        return loop(*args)

    kernels.newton_loop = capture
    try:
        stepper = stepper_class(integrator)(model, dt, setup.active_rows, options)  # alive: it owns the factorisation
        run_steps(model, setup, stepper, PARTS_STEP + 3)
    finally:
        kernels.newton_loop = loop
    a = dict(zip(names, taken[PARTS_STEP]))
    qb, nf, h = a["qb"], a["F_at"].size, a["handles"]
    Qb, F, dF, Mq = a["qb"][a["F_at"]][None], np.zeros((1, nf)), np.zeros((1, a["dF_at"].size)), np.empty(qb.size)
    beam = (a["same"], a["dim"], a["index"], a["R_e"], a["t_e"], a["beta"], a["lam_e"], a["gamma"], a["C_e"], a["k_e"])
    beams.step(Qb if a["same"] else a["Qa"], Qb, *beam, F, dF, a["start"], a["start_grad"], a["known"])
    mass_product(a["M_indptr"], a["M_indices"], a["M_data"], qb, Mq)
    R = np.empty(qb.size + a["active"].size)

    def assemble(values, dF_at):
        kernels.assemble(R, values, qb, a["lam"].copy(), Mq, a["mass_factor"], a["inertia"], a["constant"], F[0],
                         a["F_at"], np.array([0, nf]), dF[0], dF_at, a["tangents"], a["G_a"], a["scale"], a["tangent"],
                         *(a[k] for k in names[names.index("at"):names.index("phi_at") + 1]))

    values = a["mass_values"].copy()
    assemble(values, a["dF_at"])  # one iteration's matrix, for KLU

    def least(call):
        reps = max(3, 200_000 // a["Ai"].size)
        best = math.inf
        for _ in range(batches):
            start = time.perf_counter()
            for _ in range(reps):
                call()
            best = min(best, (time.perf_counter() - start) / reps)
        return 1e6 * best

    work = np.empty_like(values)
    parts = {"beam kernel": least(lambda: beams.step(a["Qa"], Qb, *beam, F, dF, a["start"], a["start_grad"], True)),
             "mass product M qb": least(lambda: mass_product(a["M_indptr"], a["M_indices"], a["M_data"], qb, Mq)),
             "copy of the mass entries": least(lambda: a["mass_values"].copy()),
             "assemble": least(lambda: assemble(work, a["dF_at"])),
             "  of it the beams' tangent": None,
             "KLU refactorisation + rcond": least(lambda: klu.refactor(a["Ap"], a["Ai"], values, *h[:3])),
             "first solve + refinement": least(lambda: kernels.first_solve(h, R, a["bound"], np.zeros(2), a["steps"],
                                                                          a["pause"], a["Ap"], a["Ai"], values)),
             "later solve": least(lambda: kernels.solve(h, R))}
    parts["  of it the beams' tangent"] = parts["assemble"] - least(lambda: assemble(work, a["dF_at"][:0]))
    whole = []
    for _ in range(batches):
        args = copy.deepcopy(taken[PARTS_STEP])
        start = time.perf_counter()
        out = loop(*args)
        whole.append(time.perf_counter() - start)
    parts["whole loop (per iteration)"] = 1e6 * min(whole) / out[1]
    return dict(parts=parts, iterations=out[1], matrix_entries=int(a["Ai"].size),
                tangent_entries=int(a["dF_at"].size))


def worker(n, steps, dt, repeat, single_above, trace, newton, split=False, integrator="energy-momentum"):
    """One N in this (fresh) process; prints one JSON line."""
    if trace:
        import tracemalloc
        tracemalloc.start()
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from chain import run_steps
    from exudyn_flexible import FemdynPendulum

    from femdyn.integrators.newton import NewtonOptions
    options = NewtonOptions(modified=newton == "modified")
    Stepper = stepper_class(integrator)
    baseline = peak_rss_mib()
    if trace:
        tracemalloc.reset_peak()
        traced_baseline = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    fp = FemdynPendulum(n)
    build = time.perf_counter() - start
    after_build = peak_rss_mib()
    model, setup = fp.model, fp.setup
    run_steps(model, setup, Stepper(model, dt, setup.active_rows, options), 3)  # warm-up: first-call costs
    if split:
        print(json.dumps(dict(elements=n, **split_run(model, setup, dt, options, steps, integrator),
                              loop_parts=loop_parts(model, setup, dt, options, integrator=integrator))))
        return
    runs, construction = [], []
    for k in range(repeat if not trace else 1):
        start = time.perf_counter()
        stepper = Stepper(model, dt, setup.active_rows, options)
        construction.append(time.perf_counter() - start)
        cpu = time.process_time()
        q, _, iterations, seconds = run_steps(model, setup, stepper, steps)
        runs.append(dict(seconds=seconds, cpu=time.process_time() - cpu, iterations=iterations))
        if seconds > single_above:
            break
    out = dict(elements=n, unknowns=stepper.size, steps=steps, dt=dt, build_seconds=build,
               construction_seconds=statistics.median(construction),
               ms_per_step=1e3 * statistics.median(r["seconds"] for r in runs) / steps,
               runs_ms_per_step=[1e3 * r["seconds"] / steps for r in runs],
               cpu_ms_per_step=1e3 * statistics.median(r["cpu"] for r in runs) / steps,
               newton_per_step=runs[0]["iterations"] / steps,
               ms_per_iteration=1e3 * statistics.median(r["seconds"] / r["iterations"] for r in runs),
               tip=np.asarray(fp.tip(q)).tolist(),
               rss_baseline_mib=baseline, rss_after_build_mib=after_build, rss_peak_mib=peak_rss_mib())
    if trace:
        out["traced_peak_mib"] = (tracemalloc.get_traced_memory()[1] - traced_baseline) / 2**20
        out = {k: out[k] for k in ("elements", "steps", "traced_peak_mib", "rss_peak_mib")}
    print(json.dumps(out))


def spawn(n, args, trace=False, split=False):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(n), "--steps",
           str(min(args.steps, 20) if trace else args.steps), "--dt", repr(args.dt), "--repeat", str(args.repeat),
           "--single-above", repr(args.single_above), "--newton", args.newton, "--integrator", args.integrator] \
        + (["--tracemalloc"] if trace else []) + (["--split"] if split else [])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"N = {n} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def slope(rows, lo, hi):
    """Least-squares exponent p of time per step ~ N^p over lo <= N <= hi."""
    pts = [(math.log(r["elements"]), math.log(r["ms_per_step"])) for r in rows if lo <= r["elements"] <= hi]
    if len(pts) < 2:
        return None
    mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def print_split(splits):
    """The medians over the rounds of ``split_run``'s figures, a column per N; returns them."""
    ns = list(splits)
    table = {n: dict(runs[0], parts={label: statistics.median(r["parts"][label] for r in runs) for label in runs[0]["parts"]},
                     ms_per_step=statistics.median(r["ms_per_step"] for r in runs),
                     ms_per_refactorisation=statistics.median(r["ms_per_refactorisation"] for r in runs))
             for n, runs in splits.items()}
    print(f"\nwhere the time goes (ms per step, timers on; median of {len(splits[ns[0]])} processes per N):")
    print(f"{'N':>32s}" + "".join(f"{n:>10d}" for n in ns)
          + (f"{f'{ns[-1]}/{ns[0]}':>10s}" if len(ns) > 1 else ""))

    def line(label, values):
        ratio = f"{values[-1] / values[0]:10.1f}" if len(values) > 1 and values[0] else ""
        print(f"{label:>32s}" + "".join(f"{v:10.3f}" for v in values) + ratio)

    for label in table[ns[0]]["parts"]:
        line(label, [table[n]["parts"][label] for n in ns])
    line("total", [table[n]["ms_per_step"] for n in ns])
    line("Newton iterations per step", [table[n]["newton_per_step"] for n in ns])
    line("ms per KLU refactorisation", [table[n]["ms_per_refactorisation"] for n in ns])
    for key in ("unknowns", "matrix_entries", "lu_entries", "factorizations"):
        line(key.replace("_", " "), [float(table[n][key]) for n in ns])
    print(f"{'ordering':>32s}" + "".join(f"{table[n]['ordering']:>10s}" for n in ns))
    if "loop_parts" in table[ns[0]]:
        print(f"\nthe compiled iteration's parts alone (us per call, least over batches, median of the processes; "
              f"arguments of step {PARTS_STEP}):")
        for label in table[ns[0]]["loop_parts"]["parts"]:
            line(label, [statistics.median(r["loop_parts"]["parts"][label] for r in splits[n]) for n in ns])
        line("iterations of that step", [float(table[n]["loop_parts"]["iterations"]) for n in ns])
    return table


def main():
    from femdyn.integrators.newton import NEWTON_METHODS
    from femdyn.integrators.settings import INTEGRATORS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=ELEMENTS)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per N in each process, the median is kept (default 1)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="fresh processes per N, in rounds alternating the order of N; medians (default 3)")
    parser.add_argument("--single-above", type=float, default=20.0,
                        help="a run longer than this many seconds is not repeated (default 20)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="also the tracemalloc peak (a second process per N, 20 steps)")
    parser.add_argument("--split", action="store_true",
                        help="also the time of each part of the iteration (a third process per N and round)")
    parser.add_argument("--json", default=str(Path(__file__).resolve().parent / "results" / "scaling.json"))
    parser.add_argument("--newton", choices=NEWTON_METHODS, default=NEWTON_METHODS[0],
                        help="Newton method (default full; modified: the factorised matrix kept, newton.Newton)")
    parser.add_argument("--integrator", choices=INTEGRATORS, default=INTEGRATORS[0],
                        help="the stepper (default energy-momentum; generalized-alpha with rho_inf = 0.9)")
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.steps, args.dt, args.repeat, args.single_above, args.tracemalloc, args.newton,
               args.split, args.integrator)
        return 0

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from provenance import git_state
    load, git = os.getloadavg(), git_state()
    print(f"femdyn at {git['commit']} ({git['subject']})"
          + (f", with uncommitted changes: {', '.join(git['femdyn_changes'])}" if git["femdyn_changes"] else ""))
    print(f"femdyn flexible pendulum ({args.integrator}, {args.newton} Newton): {args.steps} steps at dt = {args.dt:g}, median of {args.rounds} "
          f"rounds of one fresh process per N, the order of N alternating (in each: median of {args.repeat} runs); Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, load average {load[0]:.2f}", flush=True)
    measured, splits = {n: [] for n in args.elements}, {n: [] for n in args.elements}
    for k in range(args.rounds):  # rounds alternate the order of N (up, down, up): each N sees the same load
        for n in (args.elements if k % 2 == 0 else args.elements[::-1]):
            r = spawn(n, args)
            measured[n].append(r)
            print(f"  round {k + 1}, N = {n:5d}: {r['ms_per_step']:9.2f} ms/step ({r['cpu_ms_per_step']:.2f} CPU), "
                  f"{r['newton_per_step']:.2f} "
                  f"Newton/step, peak RSS {r['rss_peak_mib']:.0f} MiB", flush=True)
            if args.split:
                splits[n].append(spawn(n, args, split=True))
    rows = []
    for n, runs in measured.items():
        r = dict(runs[0], rounds_ms_per_step=[x["ms_per_step"] for x in runs],
                 rounds_rss_peak_mib=[x["rss_peak_mib"] for x in runs])
        r["rounds_cpu_ms_per_step"] = [x["cpu_ms_per_step"] for x in runs]
        for key in ("ms_per_step", "cpu_ms_per_step", "ms_per_iteration", "construction_seconds", "build_seconds", "rss_peak_mib",
                    "rss_baseline_mib"):
            r[key] = statistics.median(x[key] for x in runs)
        if args.tracemalloc:
            r["traced_peak_mib"] = spawn(n, args, trace=True)["traced_peak_mib"]
        rows.append(r)

    print(f"\n{'N':>6s} {'unknowns':>9s} {'build s':>8s} {'stepper s':>9s} {'ms/step':>9s} {'growth':>7s} "
          f"{'Newton':>7s} {'ms/iter':>8s} {'us/iter/el':>10s} {'RSS MiB':>8s} {'above base':>10s}"
          + (f" {'traced MiB':>10s}" if args.tracemalloc else ""))
    for k, r in enumerate(rows):
        growth = r["ms_per_step"] / rows[k - 1]["ms_per_step"] if k else float("nan")
        r["growth_per_step"] = growth
        print(f"{r['elements']:6d} {r['unknowns']:9d} {r['build_seconds']:8.2f} {r['construction_seconds']:9.3f} "
              f"{r['ms_per_step']:9.2f} {growth:7.2f} {r['newton_per_step']:7.2f} {r['ms_per_iteration']:8.2f} "
              f"{1e3 * r['ms_per_iteration'] / r['elements']:10.2f} {r['rss_peak_mib']:8.0f} "
              f"{r['rss_peak_mib'] - r['rss_baseline_mib']:10.0f}"
              + (f" {r['traced_peak_mib']:10.1f}" if args.tracemalloc else ""))
    by_n = {r["elements"]: r for r in rows}
    summary = dict(exponent_256_4096=slope(rows, RATIO_FROM, RATIO_TO), exponent_16_256=slope(rows, 16, RATIO_FROM))
    if RATIO_FROM in by_n and RATIO_TO in by_n:
        a, b = by_n[RATIO_FROM], by_n[RATIO_TO]
        summary.update(ratio_per_step=b["ms_per_step"] / a["ms_per_step"],
                       ratio_cpu_per_step=b["cpu_ms_per_step"] / a["cpu_ms_per_step"],
                       ratio_per_iteration=b["ms_per_iteration"] / a["ms_per_iteration"],
                       linear_ratio=RATIO_TO / RATIO_FROM, target_ratio=TARGET_RATIO)
        print(f"\ntime per step N = {RATIO_TO} / N = {RATIO_FROM}: {summary['ratio_per_step']:.1f} "
              f"(target <= {TARGET_RATIO:g}, linear {RATIO_TO // RATIO_FROM}); per Newton iteration "
              f"{summary['ratio_per_iteration']:.1f}; in CPU time per step {summary['ratio_cpu_per_step']:.1f} "
              f"({b['cpu_ms_per_step']:.2f} / {a['cpu_ms_per_step']:.2f} ms: without the waits for a core of a "
              f"shared machine)")
    if RATIO_TO in by_n:
        peak = by_n[RATIO_TO]["rss_peak_mib"]
        summary.update(peak_rss_mib_at_4096=peak, target_memory_mib=TARGET_MEMORY)
        print(f"peak memory (RSS) at N = {RATIO_TO}: {peak:.0f} MiB (target < {TARGET_MEMORY:.0f} MiB; "
              f"{by_n[RATIO_TO]['rss_peak_mib'] - by_n[RATIO_TO]['rss_baseline_mib']:.0f} MiB above the "
              f"{by_n[RATIO_TO]['rss_baseline_mib']:.0f} MiB of the imports)")
    if args.split:
        summary["split"] = print_split(splits)
    for key, label in (("exponent_16_256", "16-256"), ("exponent_256_4096", "256-4096")):
        if summary[key] is not None:
            print(f"fitted exponent of time per step ~ N^p over N = {label}: p = {summary[key]:.2f}")
    meta = dict(benchmark="femdyn flexible pendulum, time per step and peak memory against N", femdyn_git=git,
                integrator=args.integrator, newton=args.newton, steps=args.steps,
                dt=args.dt, repeat=args.repeat, rounds=args.rounds, single_above=args.single_above, python=platform.python_version(),
                machine=platform.machine(), cpus=os.cpu_count(), load_average_start=load,
                load_average_end=os.getloadavg(),
                memory="ru_maxrss of a fresh process per N (KiB -> MiB); baseline = after the imports")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(meta=meta, summary=summary, rows=rows), indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
