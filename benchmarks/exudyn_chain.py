"""Work-precision comparison with Exudyn: the planar rigid N-link pendulum chain of benchmarks/chain.py.

Both codes integrate the same model for 1 s from rest: N uniform links (m = 0.1 kg, L = 0.1 m, polar
inertia m (L^2 + 0.01^2) / 12), hinged to the ground and to each other, gravity 9.81 m/s^2 in -y,
released as a straight line at -0.3 rad. The Exudyn model is built from the femdyn model object
(masses, inertias, joint points, gravity and the consistent initial state), so the physics is identical.

* femdyn: the BEM energy-momentum scheme (``EnergyMomentum.step``), director coordinates, KLU.
* Exudyn: NodeRigidBody2D + ObjectRigidBody2D (x, y, angle: the minimal 2D rigid body),
  MarkerBodyPosition + ObjectJointRevolute2D, LoadMassProportional; implicit solver with Eigen sparse
  LU (analysed pattern reused), modified Newton (its default), one thread, no output files. Two
  variants: generalized-alpha (index 3, spectral radius 0.9) and the trapezoidal/Newmark index-2
  variant (``DynamicSolverType.TrapezoidalIndex2``).

Error: max-norm of the tip (free end of the last link) position at t = 1 s against a reference, the
Richardson extrapolation (4 x(h/2) - x(h)) / 3 of two fine femdyn runs (the scheme is symmetric, its
error expands in even powers of dt), cross-checked against the finest run of each Exudyn variant.
Work: wall time of the time integration (femdyn: stepper construction + steps; Exudyn: SolveDynamic),
median of ``--repeat`` rounds, interleaved (``interleaved``: the codes of one dt run back to back, in
alternating order from round to round); model building is left out in both codes. The table gives the
femdyn/Exudyn wall-time ratio at equal error, interpolated log-log along each code's Pareto front
(never extrapolated). Also reported: femdyn's time per step split into assembly, CSC refill, KLU
factorisation and solve, end-of-step work and the Python remainder of the Newton loop.

Exudyn is an optional benchmark dependency, never a runtime one: ``.venv/bin/pip install exudyn``.
This is a benchmark (figures, JSON and a PNG), not a test.

Usage: python benchmarks/exudyn_chain.py [--links 10 100 [1000]] [--quick] [--repeat 3]
                                         [--out results/bench_exudyn_chain] [--profile]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread, both codes
    os.environ.setdefault(_var, "1")

import argparse
import cProfile
import importlib
import io
import json
import math
import platform
import pstats
import statistics
import sys
import time
from itertools import pairwise
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chain import chain, run_steps

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from femdyn.integrators.newton import NEWTON_METHODS, NewtonOptions

T_END = 1.0
FEMDYN_DTS = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4]
EXUDYN_DTS = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4]
REFERENCE_DT = 2e-4  # Richardson on REFERENCE_DT and REFERENCE_DT / 2
QUICK = dict(links=[10], femdyn=[1e-2, 4e-3, 2e-3, 1e-3], exudyn=[1e-2, 4e-3, 2e-3, 1e-3, 5e-4],
             reference=4e-4, repeat=1)
SPLIT_DT, SPLIT_STEPS = 1e-3, 300
VARIANTS = {"exudyn_ga": "Exudyn generalized-alpha (rho_inf 0.9, index 3)",
            "exudyn_idx2": "Exudyn trapezoidal index 2 (Newmark)"}
MISSING_EXUDYN = ("Exudyn is not installed. It is an optional benchmark dependency (never a runtime one); "
                  "install it into the venv with\n    .venv/bin/pip install exudyn\nand run this again.")


def import_exudyn():
    try:
        import exudyn
    except ImportError:
        return None
    return exudyn


# ---------------------------------------------------------------------------------------------- femdyn

class FemdynChain:
    """femdyn's chain (benchmarks/chain.py) and the physical data Exudyn needs, read from the model."""

    def __init__(self, n_links):
        self.n_links = n_links
        self.model, self.setup = chain(n_links)
        model, q0, v0 = self.model, self.setup.q0, self.setup.v0
        centres, rotations = model.frames(q0)
        nb = model.dim + 1
        V = v0[: len(model.bodies) * nb * 2].reshape(len(model.bodies), nb, 2)
        d1, d1_rate = rotations[:, :, 0], V[:, 1, :]
        self.bodies = [dict(mass=b.mass, inertia=float(np.sum(b.euler)),  # 2D: J = E_1 + E_2
                            centre=centres[i], angle=math.atan2(rotations[i, 1, 0], rotations[i, 0, 0]),
                            velocity=V[i, 0, :], angular_velocity=float(d1[i, 0] * d1_rate[i, 1] - d1[i, 1] * d1_rate[i, 0]))
                       for i, b in enumerate(model.bodies)]
        self.joints = []
        for j in model.joints:
            if j.type != "revolute":
                raise ValueError(f"joint {j.name}: only revolute joints are mapped to Exudyn")
            self.joints.append((None if j.body1 == model.ground else j.body1, j.point1,
                                None if j.body2 == model.ground else j.body2, j.point2))
        self.gravity = np.zeros(2) if model.gravity is None else model.gravity
        last = len(model.bodies) - 1  # its hinge to the previous link is at -L/2: the tip is at +L/2
        hinge = [j.point2 for j in model.joints if j.body2 == last]
        self.tip_point = -np.asarray(hinge[0], dtype=float)
        ground_c, ground_R = model.frames(q0, ground=True)
        if not (np.allclose(ground_c[-1], 0.0) and np.allclose(ground_R[-1], np.eye(2))):
            raise ValueError("the ground frame is expected at the origin, unrotated")

    def tip(self, q):
        c, R = self.model.frames(q)
        return c[-1] + R[-1] @ self.tip_point


FEMDYN_INTEGRATORS = ("energy-momentum", "generalized-alpha")
DEFAULT_SCHEME = (FEMDYN_INTEGRATORS[0], NEWTON_METHODS[0])  # (integrator, Newton method)
FEMDYN_NEWTON = {"full": "full Newton, error estimate (Hairer & Wanner) <= 1e-10 max(1, |q|)",
                 "modified": "modified Newton (matrix kept while each increment is below 0.1 times the one "
                             "before), increment <= 1e-10 max(1, |q|)"}


def femdyn_stepper(model, dt, active_rows, scheme):
    """femdyn's stepper for ``scheme`` = (integrator, Newton method): the BEM energy-momentum scheme,
    or generalized-alpha with Exudyn's spectral radius 0.9 and (with full Newton) Newton's early stop
    (``NewtonOptions.early_stop``); modified Newton keeps the factorised matrix (``newton.Newton``)."""
    integrator, newton = scheme
    modified = newton == "modified"
    if integrator == "generalized-alpha":
        return GeneralizedAlpha(model, dt, active_rows, NewtonOptions(early_stop=not modified, modified=modified),
                                rho_inf=0.9)
    return EnergyMomentum(model, dt, active_rows, NewtonOptions(modified=modified))


def add_femdyn_arguments(parser, reference):
    """--femdyn-integrator and --femdyn-newton; ``reference`` says what femdyn's reference run uses."""
    parser.add_argument("--femdyn-integrator", choices=FEMDYN_INTEGRATORS, default=FEMDYN_INTEGRATORS[0],
                        help="femdyn's scheme (default energy-momentum; generalized-alpha: rho_inf 0.9 as Exudyn's, "
                             f"with Newton's early stop unless --femdyn-newton modified); {reference}")
    parser.add_argument("--femdyn-newton", choices=NEWTON_METHODS, default=NEWTON_METHODS[0],
                        help="femdyn's Newton method (default full; modified: the factorised matrix kept while "
                             "the iteration contracts, as Exudyn's default)")


def femdyn_scheme(args):
    return args.femdyn_integrator, args.femdyn_newton


def femdyn_run(fc, dt, t_end=T_END, scheme=DEFAULT_SCHEME):
    """One timed run: stepper construction + all steps. Returns seconds, tip, Newton iterations."""
    model, setup = fc.model, fc.setup
    steps = round(t_end / dt)
    start = time.perf_counter()
    stepper = femdyn_stepper(model, dt, setup.active_rows, scheme)
    q, v, lam = setup.q0, setup.v0, np.zeros(model.m)
    states = model.initial_states(q)
    iterations = 0
    for k in range(steps):
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states, iterations = r.q, r.v, r.lam, r.states, iterations + r.iterations
    seconds = time.perf_counter() - start
    return dict(seconds=seconds, tip=fc.tip(q).tolist(), steps=steps, newton_per_step=iterations / steps,
                unknowns=stepper.size)


class _Timer:
    """Wraps a bound method and accumulates its wall time."""

    def __init__(self, fn):
        self.fn, self.seconds, self.calls = fn, 0.0, 0

    def __call__(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1


def femdyn_split(fc, dt=SPLIT_DT, steps=SPLIT_STEPS, scheme=DEFAULT_SCHEME):
    """Time per step split by wrapping the stepper's parts (those that exist in this femdyn version)."""
    model, setup = fc.model, fc.setup
    stepper = femdyn_stepper(model, dt, setup.active_rows, scheme)
    holder = getattr(stepper, "system", stepper)  # the pattern and the LU moved into the SaddleSystem
    kernels = importlib.import_module("femdyn.integrators.kernels")  # the compiled Newton parts (newer versions)
    parts = {"whole Newton iteration compiled (kernels.newton_loop)": (kernels, "newton_loop"),
             "assembly (residual + constraint kernels, _system)": (stepper, "_system"),
             "assembly compiled (residual and CSC data, SaddleSystem.assemble)": (holder, "assemble"),
             "CSC refill (pattern.values)": (getattr(holder, "pattern", None), "values"),
             "KLU refactorisation + solve + update (kernels.refactor_solve)": (kernels, "refactor_solve"),
             "KLU factorisation (lu.factor)": (getattr(holder, "lu", None), "factor"),
             "KLU solve (lu.solve)": (getattr(holder, "lu", None), "solve"),
             "end of step: velocities, work, states (_finish)": (stepper, "_finish")}
    timers, originals = {}, []
    for label, (owner, name) in parts.items():
        if owner is not None and callable(getattr(owner, name, None)):
            originals.append((owner, name, getattr(owner, name)))
            timers[label] = _Timer(getattr(owner, name))
            setattr(owner, name, timers[label])
    try:
        _, _, iterations, total = run_steps(model, setup, stepper, steps)
    finally:  # the module's kernels unwrapped for the runs that follow
        for owner, name, original in originals:
            setattr(owner, name, original)
    rows = {label: 1e3 * t.seconds / steps for label, t in timers.items()}
    rows["Python remainder of the Newton loop (step)"] = 1e3 * total / steps - sum(rows.values())
    return dict(dt=dt, steps=steps, ms_per_step=1e3 * total / steps, newton_per_step=iterations / steps,
                unknowns=stepper.size, split_ms_per_step=rows,
                split_percent={k: 100.0 * v / (1e3 * total / steps) for k, v in rows.items()})


def femdyn_profile(fc, dt=SPLIT_DT, steps=SPLIT_STEPS, top=15, scheme=DEFAULT_SCHEME):
    model, setup = fc.model, fc.setup
    stepper = femdyn_stepper(model, dt, setup.active_rows, scheme)
    q, v, lam = setup.q0, setup.v0, np.zeros(model.m)
    states = model.initial_states(q)
    profiler = cProfile.Profile()
    profiler.enable()
    for k in range(steps):
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------- Exudyn

def exudyn_build(exu, fc):
    """The same chain in Exudyn: minimal 2D rigid bodies (x, y, angle) and 2D revolute joints."""
    from exudyn.itemInterface import (
        LoadMassProportional,
        MarkerBodyMass,
        MarkerBodyPosition,
        NodeRigidBody2D,
        ObjectGround,
        ObjectJointRevolute2D,
        ObjectRigidBody2D,
    )
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    gravity = [float(fc.gravity[0]), float(fc.gravity[1]), 0.0]
    objects = []
    for b in fc.bodies:
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[float(b["centre"][0]), float(b["centre"][1]), b["angle"]],
                                           initialVelocities=[float(b["velocity"][0]), float(b["velocity"][1]),
                                                              b["angular_velocity"]]))
        body = mbs.AddObject(ObjectRigidBody2D(nodeNumber=node, mass=b["mass"], inertia=b["inertia"]))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)),
                                         loadVector=gravity))
        objects.append(body)
    for body1, point1, body2, point2 in fc.joints:
        markers = [mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground if b is None else objects[b],
                                                    localPosition=[float(p[0]), float(p[1]), 0.0]))
                   for b, p in ((body1, point1), (body2, point2))]
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=markers))
    mbs.Assemble()
    return sc, mbs, objects


def exudyn_settings(exu, dt, t_end=T_END):
    s = exu.SimulationSettings()
    ti = s.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = round(t_end / dt)
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = 0.9
    ti.newton.useModifiedNewton = True
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    s.linearSolver.reuseAnalyzedPattern = True
    s.parallel.numberOfThreads = 1
    s.solution.file.write = False
    s.solution.sensors.active = False
    s.show.statistics = False
    s.show.computationTime = False
    return s


def exudyn_solve(mbs, settings, solver, dt, t_end):
    """One timed ``mbs.SolveDynamic`` (model building excluded): seconds, whether it reached t_end
    (else the failure), Newton iterations per step, Jacobians and extra (reduced) steps."""
    start = time.perf_counter()
    try:
        ok = mbs.SolveDynamic(settings, solverType=solver, storeSolver=True)
    except (RuntimeError, ValueError) as err:  # Exudyn raises on some solver failures
        ok, failure = False, str(err).splitlines()[0] if str(err) else type(err).__name__
    else:
        failure = None
    seconds = time.perf_counter() - start
    it = mbs.sys["dynamicSolver"].it if "dynamicSolver" in mbs.sys else None
    reached = float(it.currentTime) if it is not None else float("nan")
    ok = bool(ok) and abs(reached - t_end) < 1e-9
    steps = round(t_end / dt)
    return dict(seconds=seconds, steps=steps, completed=ok, reached=reached, failure=failure if not ok else None,
                newton_per_step=it.newtonStepsCount / steps if it is not None else float("nan"),
                jacobians=int(it.newtonJacobiCount) if it is not None else 0,
                extra_steps=int(it.currentStepIndex) - 1 - steps if it is not None else 0)


def exudyn_run(exu, fc, dt, variant, t_end=T_END):
    """One timed SolveDynamic of the chain. ``variant``: exudyn_ga or exudyn_idx2."""
    _, mbs, objects = exudyn_build(exu, fc)
    solver = exu.DynamicSolverType.GeneralizedAlpha if variant == "exudyn_ga" else exu.DynamicSolverType.TrapezoidalIndex2
    run = exudyn_solve(mbs, exudyn_settings(exu, dt, t_end), solver, dt, t_end)
    tip = mbs.GetObjectOutputBody(objects[-1], exu.OutputVariableType.Position,
                                  localPosition=[float(fc.tip_point[0]), float(fc.tip_point[1]), 0.0])
    return dict(run, tip=[float(tip[0]), float(tip[1])])


# ---------------------------------------------------------------------------------------------- analysis

def interleaved(plan, rounds, single_above, max_run, keep=lambda dt: False, report=None):
    """Runs ``plan`` -- [(dt, {code: run})] by decreasing dt, ``run()`` one timed run returning a dict with
    ``seconds``, ``steps`` (and ``extra_steps``) -- interleaved: in ``rounds`` rounds, the codes of one dt
    run back to back, in the given order when round + (index of the dt) is even and reversed when odd
    (A B / B A / A B), so that all codes see the same state of a shared machine. Returns {code: [runs]},
    each the first round's run dict with ``seconds`` the median of its rounds and ``times`` all of them.

    In the first round a code's dt is dropped when its expected time (the least seconds per step taken
    so far, times the steps) exceeds ``max_run`` unless ``keep(dt)``; a run longer than ``single_above``
    seconds is not repeated. ``report(code, run)`` is called after each first-round run."""
    runs, per_step, times = {}, {}, {}
    for k in range(rounds):
        for i, (dt, codes) in enumerate(plan):
            order = list(codes) if (k + i) % 2 == 0 else list(codes)[::-1]
            for code in order:
                key = (code, dt)
                if k == 0:
                    expected = per_step.get(code, 0.0) * round(T_END / dt)
                    if expected > max_run and not keep(dt):
                        print(f"  {code:12s} dt = {dt:<8g} skipped: about {expected:.0f} s expected "
                              f"(> --max-run {max_run:g} s)", flush=True)
                        continue
                    r = dict(codes[code](), dt=dt)
                    runs[key], times[key] = r, [r["seconds"]]
                    taken = r["seconds"] / (r["steps"] + max(r.get("extra_steps", 0), 0))
                    per_step[code] = min(per_step.get(code, taken), taken)
                    if report:
                        report(code, r)
                elif key in runs and runs[key]["seconds"] < single_above:
                    times[key].append(codes[code]()["seconds"])
    out = {code: [] for _, codes in plan for code in codes}
    for (code, _), r in runs.items():
        r["times"] = times[(code, r["dt"])]
        r["seconds"] = statistics.median(r["times"])
        out[code].append(r)
    for code in out:
        out[code].sort(key=lambda r: -r["dt"])
    return out


def median_run(fn, repeat, single_above):
    """Median wall time of ``repeat`` runs (one run only if it takes longer than ``single_above`` s)."""
    first = fn()
    times = [first["seconds"]]
    if first["seconds"] < single_above:
        times += [fn()["seconds"] for _ in range(repeat - 1)]
    first["times"] = times
    first["seconds"] = statistics.median(times)
    return first


def pareto(points):
    """(error, seconds) pairs on the lower-left front, sorted by decreasing error."""
    front = []
    for e, t in sorted(points, key=lambda p: (p[1], p[0])):  # by increasing time
        if not front or e < front[-1][0]:
            front.append((e, t))
    return front


def time_at(front, error):
    """log-log interpolated wall time at ``error`` along a Pareto front; None outside its range."""
    for (e0, t0), (e1, t1) in pairwise(front):
        if e1 <= error <= e0:
            if e0 == e1:
                return min(t0, t1)
            w = math.log(error / e0) / math.log(e1 / e0)
            return math.exp(math.log(t0) + w * math.log(t1 / t0))
    if len(front) == 1 and math.isclose(front[0][0], error):
        return front[0][1]
    return None


def equal_error_ratios(femdyn_runs, other_runs, floor):
    """femdyn/other wall-time ratios at half-decade errors covered by both fronts (above ``floor``)."""
    fronts = [pareto([(r["error"], r["seconds"]) for r in runs if r.get("completed", True) and r["error"] > floor])
              for runs in (femdyn_runs, other_runs)]
    if any(len(f) < 2 for f in fronts):
        return []
    lo = max(min(e for e, _ in f) for f in fronts)
    hi = min(max(e for e, _ in f) for f in fronts)
    rows = []
    for k in range(math.ceil(2 * math.log10(lo) - 1e-9), math.floor(2 * math.log10(hi) + 1e-9) + 1):
        e = 10.0 ** (k / 2)
        tf, to = time_at(fronts[0], e), time_at(fronts[1], e)
        if tf is not None and to is not None:
            rows.append(dict(error=e, femdyn_seconds=tf, exudyn_seconds=to, ratio=tf / to))
    return rows


def observed_orders(runs):
    """log2 of successive error ratios of runs sorted by dt (completed runs only)."""
    ok = sorted((r for r in runs if r.get("completed", True)), key=lambda r: -r["dt"])
    return [dict(dt=b["dt"], order=math.log(a["error"] / b["error"]) / math.log(a["dt"] / b["dt"]))
            for a, b in pairwise(ok) if a["error"] > 0 and b["error"] > 0]


def exudyn_cross_check(runs, reference):
    """Distance of Exudyn's finest run, and of the Richardson value of its two finest runs, from the
    femdyn reference: the second is an independent estimate of how well the two codes agree."""
    ok = sorted((r for r in runs if r["completed"]), key=lambda r: r["dt"])
    if not ok:
        return None
    out = dict(dt=ok[0]["dt"], distance=ok[0]["error"])
    if len(ok) > 1:
        ratio = ok[1]["dt"] / ok[0]["dt"]
        x1, x0 = np.array(ok[1]["tip"]), np.array(ok[0]["tip"])
        extrapolated = (ratio**2 * x0 - x1) / (ratio**2 - 1.0)
        out.update(richardson_dt=[ok[1]["dt"], ok[0]["dt"]],
                   richardson_distance=float(np.abs(extrapolated - reference).max()))
    return out


def against_cheapest_as_accurate(femdyn_runs, other_runs, floor):
    """For each femdyn run: its time over that of the cheapest run of the other code that is at least as
    accurate. The other code reaches femdyn's error in at most that time, so this is a lower bound of
    the equal-error ratio; it also covers errors where the other curve cannot be interpolated."""
    rows = []
    for f in femdyn_runs:
        if f["error"] <= floor:
            continue
        better = [r for r in other_runs if r.get("completed", True) and r["error"] <= f["error"]]
        if better:
            o = min(better, key=lambda r: r["seconds"])
            rows.append(dict(femdyn_dt=f["dt"], femdyn_error=f["error"], femdyn_seconds=f["seconds"],
                             exudyn_dt=o["dt"], exudyn_error=o["error"], exudyn_seconds=o["seconds"],
                             ratio_lower_bound=f["seconds"] / o["seconds"]))
    return rows


def study(n_links, args, exu):
    fc = FemdynChain(n_links)
    print(f"\n=== N = {n_links} links ({len(fc.model.joints)} revolute joints, femdyn unknowns "
          f"{fc.model.n + len(fc.setup.active_rows)}) ===", flush=True)

    # reference: Richardson extrapolation of two fine femdyn runs
    h = args.reference_dt
    coarse, fine = femdyn_run(fc, h), femdyn_run(fc, h / 2)
    x_h, x_h2 = np.array(coarse["tip"]), np.array(fine["tip"])
    reference = (4.0 * x_h2 - x_h) / 3.0
    fine_error = float(np.abs(x_h2 - x_h).max() / 3.0)  # Richardson estimate of the error of x(h/2)
    floor = fine_error  # the extrapolated value is far better than this; runs below it stay out of the ratios
    print(f"reference: femdyn Richardson on dt = {h:g} and {h / 2:g} ({coarse['seconds'] + fine['seconds']:.1f} s); "
          f"tip = ({reference[0]:.10f}, {reference[1]:.10f}); estimated error of the dt = {h / 2:g} run "
          f"{fine_error:.2e}", flush=True)

    def femdyn_timed(dt):
        return lambda: femdyn_run(fc, dt, scheme=femdyn_scheme(args))

    def exudyn_timed(dt, code):
        return lambda: exudyn_run(exu, fc, dt, code)

    def report(code, r):
        r["error"] = float(np.abs(np.array(r["tip"]) - reference).max())
        note = "" if r.get("completed", True) else f"  FAILED (t = {r['reached']:.4g}: {r['failure']})"
        extra = f", {r['extra_steps']} extra (reduced) steps" if r.get("extra_steps") else ""
        print(f"  {code:12s} dt = {r['dt']:<8g} {r['seconds']:8.3f} s  error {r['error']:.3e}  "
              f"Newton/step {r['newton_per_step']:.2f}{extra}{note}", flush=True)

    femdyn_run(fc, 1e-2, t_end=3e-2, scheme=femdyn_scheme(args))  # warm-up of both codes
    exudyn_run(exu, fc, 1e-2, "exudyn_ga", t_end=3e-2)
    dts = sorted(set(args.femdyn_dts) | set(args.exudyn_dts), reverse=True)
    plan = [(dt, {**({"femdyn": femdyn_timed(dt)} if dt in args.femdyn_dts else {}),
                  **{v: exudyn_timed(dt, v) for v in VARIANTS if dt in args.exudyn_dts}}) for dt in dts]
    runs = interleaved(plan, args.repeat, args.single_above, args.max_run, report=report)

    cross = {v: exudyn_cross_check(runs[v], reference) for v in VARIANTS}
    cross = {v: c for v, c in cross.items() if c}
    ratios = {v: equal_error_ratios(runs["femdyn"], runs[v], floor) for v in VARIANTS}
    split = femdyn_split(fc, scheme=femdyn_scheme(args))
    result = dict(links=n_links, bodies=len(fc.model.bodies), femdyn_unknowns=split["unknowns"],
                  reference=dict(method="Richardson (4 x(h/2) - x(h)) / 3 of femdyn runs", dt=[h, h / 2],
                                 tip=reference.tolist(), fine_run_error_estimate=fine_error,
                                 seconds=coarse["seconds"] + fine["seconds"], error_floor=floor,
                                 exudyn_finest_distance=cross),
                  runs=runs, observed_orders={code: observed_orders(rs) for code, rs in runs.items()},
                  ratios_at_equal_error=ratios,
                  ratios_against_cheapest_as_accurate={v: against_cheapest_as_accurate(runs["femdyn"], runs[v], floor)
                                                       for v in VARIANTS},
                  femdyn_split=split)
    if args.profile:
        result["femdyn_profile"] = femdyn_profile(fc, scheme=femdyn_scheme(args))
    return result


def print_summary(results):
    for res in results:
        n = res["links"]
        print(f"\n--- N = {n}: work-precision (wall time of 1 s of motion, median; error = tip max-norm) ---")
        print(f"{'code':12s} {'dt':>8s} {'steps':>6s} {'seconds':>9s} {'ms/step':>8s} {'error':>10s} {'Newton/step':>11s}")
        for code, runs in res["runs"].items():
            for r in runs:
                flag = "" if r.get("completed", True) else "  failed"
                print(f"{code:12s} {r['dt']:8g} {r['steps']:6d} {r['seconds']:9.3f} {1e3 * r['seconds'] / r['steps']:8.3f} "
                      f"{r['error']:10.3e} {r['newton_per_step']:11.2f}{flag}")
        ref = res["reference"]
        print(f"reference: {ref['method']} on dt = {ref['dt'][0]:g}, {ref['dt'][1]:g}; estimated error of "
              f"the dt = {ref['dt'][1]:g} run {ref['fine_run_error_estimate']:.1e} (runs below it stay out of the ratios)")
        for v, c in ref["exudyn_finest_distance"].items():
            line = f"cross-check: |reference - {v} at dt = {c['dt']:g}| = {c['distance']:.2e}"
            if "richardson_distance" in c:
                line += (f"; |reference - Richardson of {v} on dt = {c['richardson_dt'][0]:g}, "
                         f"{c['richardson_dt'][1]:g}| = {c['richardson_distance']:.2e}")
            print(line)
            smallest = min(r["error"] for r in res["runs"]["femdyn"])
            if c.get("richardson_distance", c["distance"]) > smallest:
                print(f"WARNING: femdyn and {v} converge to answers {c.get('richardson_distance', c['distance']):.1e} "
                      f"apart, more than the smallest error compared ({smallest:.1e}): the two models differ "
                      "and the ratios below do not compare equal physics")
        for code, orders in res["observed_orders"].items():
            print(f"observed orders {code:12s}: " + ", ".join(f"{o['order']:.2f}" for o in orders))
        for v, rows in res["ratios_at_equal_error"].items():
            print_equal_error(v, rows)
        for v, rows in res["ratios_against_cheapest_as_accurate"].items():
            print_lower_bounds(v, rows)
        print_split(res)


def print_equal_error(variant, rows):
    """The femdyn/``variant`` wall-time ratios at equal error."""
    print(f"femdyn / {variant} wall time at equal error (log-log interpolation):")
    if not rows:
        print("    no overlap of the two error ranges")
    for row in rows:
        print(f"    error {row['error']:8.1e}: femdyn {row['femdyn_seconds']:8.3f} s, "
              f"Exudyn {row['exudyn_seconds']:8.3f} s, ratio {row['ratio']:6.2f}")


def print_lower_bounds(variant, rows):
    """Each femdyn run against the cheapest ``variant`` run at least as accurate."""
    print(f"femdyn run / cheapest {variant} run at least as accurate (a lower bound of the equal-error ratio):")
    for row in rows:
        print(f"    femdyn dt {row['femdyn_dt']:<7g} ({row['femdyn_error']:.1e}, {row['femdyn_seconds']:.3f} s) / "
              f"Exudyn dt {row['exudyn_dt']:<7g} ({row['exudyn_error']:.1e}, {row['exudyn_seconds']:.3f} s): "
              f"{row['ratio_lower_bound']:6.2f}")


def print_split(res):
    """femdyn's time per step split into its parts (and the profile, if taken)."""
    sp = res["femdyn_split"]
    print(f"femdyn time per step at dt = {sp['dt']:g} ({sp['steps']} steps, {sp['newton_per_step']:.2f} Newton "
          f"iterations per step): {sp['ms_per_step']:.3f} ms")
    for label, ms in sp["split_ms_per_step"].items():
        print(f"    {label:52s} {ms:8.3f} ms  {sp['split_percent'][label]:5.1f} %")
    if "femdyn_profile" in res:
        print(res["femdyn_profile"])


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.5), squeeze=False)
    styles = {"femdyn": ("o-", "C0", "femdyn BEM energy-momentum"),
              "exudyn_ga": ("s--", "C1", VARIANTS["exudyn_ga"]),
              "exudyn_idx2": ("^:", "C2", VARIANTS["exudyn_idx2"])}
    for ax, res in zip(axes[0], results):
        for code, runs in res["runs"].items():
            ok = [r for r in runs if r.get("completed", True)]
            if not ok:
                continue
            fmt, color, label = styles[code]
            ax.loglog([r["error"] for r in ok], [r["seconds"] for r in ok], fmt, color=color, label=label)
            for r in ok:
                ax.annotate(f"{r['dt']:g}", (r["error"], r["seconds"]), fontsize=7, color=color,
                            textcoords="offset points", xytext=(3, 3))
        ax.set_xlabel("tip position error at t = 1 s (max-norm, m)")
        ax.set_ylabel("wall time for 1 s of motion (s)")
        ax.set_title(f"rigid chain, N = {res['links']} links")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, nargs="+", default=None, help="chain lengths (default 10 100)")
    parser.add_argument("--quick", action="store_true",
                        help="N = 10 only (unless --links), fewer dt, coarser reference, one repeat")
    parser.add_argument("--repeat", type=int, default=None, help="interleaved rounds, the median of each point is kept (default 3)")
    parser.add_argument("--single-above", type=float, default=10.0,
                        help="runs longer than this many seconds are not repeated (default 10)")
    parser.add_argument("--max-run", type=float, default=60.0,
                        help="skip finer dt of a code once a run is expected to take longer (s, default 60)")
    parser.add_argument("--out", default="results/bench_exudyn_chain", help="folder for the JSON and the PNG")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of femdyn's steps")
    add_femdyn_arguments(parser, "for the timed runs (the reference stays energy-momentum)")
    args = parser.parse_args()

    exu = import_exudyn()
    if exu is None:
        print(MISSING_EXUDYN, file=sys.stderr)
        return 2
    args.femdyn_dts = QUICK["femdyn"] if args.quick else FEMDYN_DTS
    args.exudyn_dts = QUICK["exudyn"] if args.quick else EXUDYN_DTS
    args.reference_dt = QUICK["reference"] if args.quick else REFERENCE_DT
    links = args.links or (QUICK["links"] if args.quick else [10, 100])
    args.repeat = args.repeat or (QUICK["repeat"] if args.quick else 3)
    from provenance import git_state
    load, git = os.getloadavg(), git_state()
    print(f"femdyn at {git['commit']} ({git['subject']})"
          + (f", with uncommitted changes: {', '.join(git['femdyn_changes'])}" if git["femdyn_changes"] else ""))
    print(f"Exudyn {exu.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs (load average {load[0]:.2f}); one thread; t_end = {T_END} s; median of "
          f"{args.repeat} interleaved rounds")

    start = time.perf_counter()
    results = [study(n, args, exu) for n in links]
    print_summary(results)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = dict(benchmark="rigid N-link chain, femdyn vs Exudyn", femdyn_git=git, t_end=T_END, error="tip position max-norm at t_end",
                exudyn_version=exu.__version__, numpy=np.__version__, python=platform.python_version(),
                machine=platform.machine(), cpus=os.cpu_count(), rounds=args.repeat, interleaved=True,
                load_average_start=load, load_average_end=os.getloadavg(), quick=args.quick,
                femdyn=dict(scheme=args.femdyn_integrator, newton=args.femdyn_newton, linear_solver="KLU (fixed pattern)",
                            timing="stepper construction + steps"),
                exudyn=dict(bodies="NodeRigidBody2D + ObjectRigidBody2D", joints="MarkerBodyPosition + ObjectJointRevolute2D",
                            gravity="MarkerBodyMass + LoadMassProportional", variants=VARIANTS,
                            spectral_radius=0.9, newton="modified (default tolerances: relative 1e-8, absolute 1e-10)",
                            linear_solver="EigenSparse, reuseAnalyzedPattern", threads=1, timing="mbs.SolveDynamic"),
                total_seconds=time.perf_counter() - start)
    (out / "exudyn_chain.json").write_text(json.dumps(dict(meta=meta, results=results), indent=2))
    plot(results, out / "work_precision.png")
    print(f"\nwrote {out / 'exudyn_chain.json'} and {out / 'work_precision.png'} "
          f"({meta['total_seconds']:.0f} s in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
