"""Work-precision comparison with Exudyn: the pinned flexible pendulum
(femdyn/Exudyn wall time at equal tip error, N = 16 to 1024 elements).

One straight steel beam, L = 1 m, 10 x 10 mm (E = 2.1e11 Pa, rho = 7850 kg/m^3: EA = 2.1e7 N,
EI = 175 N m^2, rho A = 0.785 kg/m), pinned at one end to the ground at the origin, gravity 9.81 m/s^2
in -y, released horizontal (along +x) from rest and undeformed; 1 s of motion with N = 16, 64, 256
(and, on request, 1024) elements.

The femdyn / Exudyn figures the README quotes come from ``exudyn_compare.py`` (generalized-alpha in both
codes, femdyn's full and modified Newton, the ratios at the dts of equal error). This script draws the
work-precision curves over dt = 1e-2 .. 2.5e-4 with femdyn's energy-momentum scheme by default
(``--femdyn-integrator``), and its study, printers and command line serve ``exudyn_fourbar.py``. Its
equal-error ratios interpolate time along the error axis, which the tip error's oscillation in dt makes
fragile (``exudyn_compare.py``): its earlier 0.83 / 0.77 at 3e-5 (N = 16 / 64) did not reproduce.

* femdyn: the FFR Euler-Bernoulli beam with geometric stiffening (``BeamBody.straight``,
  ``ModelBuilder.add_beam(stiffening=True)``, reference conditions fixed-free), a revolute joint to
  the ground at its first node, the BEM energy-momentum stepper (``EnergyMomentum``), KLU.
* Exudyn: N ``ObjectANCFCable2D`` elements on ``NodePoint2DSlope1`` nodes (``GenerateBeamElementsAlongLine``)
  with the same EA, EI and rho A, read from the femdyn beam; the first node's position held by two
  ``CoordinateConstraint``s to the ground (its slope is free: a pin); ``LoadMassProportional`` gravity
  on every element; generalized-alpha (spectral radius 0.9, index 3), modified Newton (its default),
  Eigen sparse LU with the analysed pattern reused, one thread, no output files.

Exudyn's Newton criterion. With its default criterion (residual 2-norm below relativeTolerance 1e-8
times the initial residual, or below absoluteTolerance 1e-10) Exudyn cannot integrate this model: the
axial stiffness EA / h (2.1e7 N times N per metre) puts a round-off floor under the residual (of the
order of 1e-6 N at N = 16 and 1e-3 N at N = 1024) above the tolerance, so Newton stalls and the step
is cut again and again (N = 16, dt = 1e-3: 1.6 million Newton iterations, 220 s for what takes 0.3 s
otherwise); at N = 256 even absoluteTolerance 1e-6 ends at the minimum step size. Loosening the
tolerance far enough to pass the floor (1e-2 at N = 256 and 1024) moves the tip by 1e-6 to 1e-5 m. This script
therefore gives Exudyn an increment-based criterion (``newton.residualMode = 1``, relative and
absolute tolerance 1e-10, as Exudyn asks for that mode), the same kind and size as femdyn's (Newton
increment below 1e-10 max(1, |q|)). ``--exudyn-residual-newton`` restores Exudyn's default criterion
(expect very long runs or failures).

Model difference. The ANCF cable is geometrically exact (axial strain |r'| - 1, exact curvature); the
FFR beam is a small-strain model in a floating frame (linear bending, axial strain u' + w'^2 / 2 for the
stiffening). Each code's errors are therefore measured against its own converged reference, and
the distance between the two references -- the model (and mesh) difference -- is reported next to them.

Error: max-norm of the tip (free end) position at t = 1 s against the code's own reference, its run
at the finest step ``REFERENCE_DT`` (the error of this problem does not follow one power of dt cleanly
-- unresolved higher bending modes make it oscillate in dt -- so no Richardson extrapolation). The
reference's error is estimated by its distance to the run at 2 ``REFERENCE_DT`` (conservative for any
order >= 1); runs less than ``FLOOR_FACTOR`` times above the larger of the two codes' estimates are
left out of the equal-error ratios. Work: wall time of the time integration (femdyn: stepper
construction + steps; Exudyn: SolveDynamic), the median of ``--repeat`` rounds; building the model is
left out in both codes. The runs are interleaved (``exudyn_chain.interleaved``: femdyn and Exudyn at one dt
back to back, their order alternating from round to round, ``--repeat`` rounds). The table gives the
femdyn/Exudyn wall-time ratio at equal error, interpolated
log-log along each code's Pareto front (never extrapolated), the lower bounds "femdyn run / cheapest
Exudyn run at least as accurate", the time per step of both codes at dt = 1e-3, and femdyn's time per
step split into assembly, CSC refill, KLU factorisation and solve, end-of-step work and the Python
remainder. The analysis helpers (medians, Pareto fronts, ratios, observed orders, the time split) are
imported from ``exudyn_chain.py``. ``study``, the printers, the plot and the command line take the
model as a problem class (``FemdynPendulum`` here; ``exudyn_fourbar.py`` passes its four-bar).

Exudyn is an optional benchmark dependency, never a runtime one: ``.venv/bin/pip install exudyn``.
This is a benchmark (figures, JSON and a PNG), not a test.

Usage: python benchmarks/exudyn_flexible.py [--elements 16 64 256 [1024]] [--quick] [--repeat 3]
                                            [--out results/bench_exudyn_flexible] [--profile]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread, both codes
    os.environ.setdefault(_var, "1")

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exudyn_chain import (
    FEMDYN_NEWTON,
    MISSING_EXUDYN,
    add_femdyn_arguments,
    against_cheapest_as_accurate,
    equal_error_ratios,
    exudyn_settings,
    exudyn_solve,
    femdyn_profile,
    femdyn_run,
    femdyn_scheme,
    femdyn_split,
    import_exudyn,
    interleaved,
    median_run,
    observed_orders,
    print_equal_error,
    print_lower_bounds,
    print_split,
)
from provenance import git_state

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.newton import NewtonFailure
from femdyn.integrators.setup import prepare
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

T_END = 1.0
LENGTH, WIDTH, DEPTH, YOUNG, DENSITY = 1.0, 0.01, 0.01, 2.1e11, 7850.0
GRAVITY = (0.0, -9.81)
ELEMENTS = [16, 64, 256]  # 1024 on request (--elements 16 64 256 1024): about 20 minutes more
DTS = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4]  # the last is 2 REFERENCE_DT: it also gives the reference's error
REFERENCE_DT = 1.25e-4
LARGE_DT = 5e-3  # the large steps of the work-precision curves: dt = 5e-3 .. 1e-2
FLOOR_FACTOR = 2.0
QUICK = dict(elements=[16], dts=[1e-2, 5e-3, 2e-3, 1e-3, 5e-4], reference=2.5e-4, repeat=1)
SPLIT_DT, SPLIT_STEPS = 1e-3, 200
CODES = {"femdyn": "femdyn FFR Euler-Bernoulli + stiffening, BEM energy-momentum",
         "exudyn": "Exudyn ANCFCable2D, generalized-alpha (rho_inf 0.9), modified Newton"}


# ---------------------------------------------------------------------------------------------- femdyn

class FemdynPendulum:
    """femdyn's flexible pendulum (as ``benchmarks/3prr.py::pendulum``) and the data Exudyn needs.

    A problem class of ``study``: built from the number of elements, it gives ``model``, ``setup``,
    ``tip(q)`` (the output point), ``exudyn_build(exu)``, ``exudyn_coordinates``, and the labels
    ``title`` and ``point``."""

    title, point = "flexible pendulum", "tip"

    def __init__(self, n_elements):
        self.n_elements = n_elements
        beam = BeamBody.straight(LENGTH, n_elements, Section.rectangle(WIDTH, DEPTH), YOUNG, DENSITY)
        b = ModelBuilder(2)
        b.add_beam("beam", beam, stiffening=True)
        b.add_joint("pin", "revolute", "ground", "beam")  # at the beam's first node, the ground origin
        b.set_gravity(list(GRAVITY))
        self.model = b.build()
        q, v = place(self.model, {}, {"pin": {"angle": 0.0}})
        self.setup = prepare(self.model, q, v)
        section = beam.section
        self.length = float(beam.nodes[-1, 0] - beam.nodes[0, 0])
        self.axial = float(beam.young * section.area)  # EA
        self.bending = float(beam.young * section.inertia)  # EI
        self.mass_per_length = float(beam.rho * section.area)  # rho A
        self.tip_point = np.array([[self.length, 0.0]])

    def tip(self, q):
        return self.model.flexible[0].positions(q, self.tip_point)[0]

    @property
    def exudyn_coordinates(self):
        return 4 * (self.n_elements + 1)

    def exudyn_build(self, exu):
        return exudyn_build(exu, self)


# ---------------------------------------------------------------------------------------------- Exudyn

def exudyn_build(exu, fp):
    """The same pendulum in Exudyn: N ANCF cable elements, the first node's position held."""
    from exudyn.beams import GenerateBeamElementsAlongLine
    from exudyn.itemInterface import ObjectANCFCable2D
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    cable = ObjectANCFCable2D(massPerLength=fp.mass_per_length, bendingStiffness=fp.bending,
                              axialStiffness=fp.axial)
    beam = GenerateBeamElementsAlongLine(mbs, [0.0, 0.0, 0.0], [fp.length, 0.0, 0.0], fp.n_elements, cable,
                                         gravity=[GRAVITY[0], GRAVITY[1], 0.0],
                                         groundConstraintsStart=[1, 1, 0, 0])  # x, y held; slope free
    mbs.Assemble()
    return sc, mbs, beam["nodes"][-1]


def exudyn_run(exu, fp, dt, residual_newton=False, t_end=T_END):
    """One timed SolveDynamic (model building excluded) of ``fp``'s Exudyn model."""
    sc, mbs, tip_node = fp.exudyn_build(exu)
    settings = exudyn_settings(exu, dt, t_end)
    if not residual_newton:  # increment criterion, as femdyn's (module docstring)
        newton = settings.timeIntegration.newton
        newton.residualMode = 1
        newton.relativeTolerance = newton.absoluteTolerance = 1e-10
    run = exudyn_solve(mbs, settings, exu.DynamicSolverType.GeneralizedAlpha, dt, t_end)
    tip = mbs.GetNodeOutput(tip_node, exu.OutputVariableType.Position)
    del sc
    return dict(run, tip=[float(tip[0]), float(tip[1])])


# ---------------------------------------------------------------------------------------------- study

def femdyn_try(fp, dt, scheme, t_end=T_END):
    """``exudyn_chain.femdyn_run``, with a Newton failure recorded instead of raised."""
    start = time.perf_counter()
    try:
        return dict(femdyn_run(fp, dt, t_end=t_end, scheme=scheme), completed=True)
    except NewtonFailure as err:
        return dict(seconds=time.perf_counter() - start, tip=[math.nan, math.nan], steps=round(t_end / dt),
                    completed=False, reached=err.time, failure=str(err).splitlines()[0],
                    newton_per_step=math.nan)


def timed(code, fp, dt, args, exu, repeat):
    if code == "femdyn":
        r = median_run(lambda: femdyn_try(fp, dt, femdyn_scheme(args)), repeat, args.single_above)
    else:
        r = median_run(lambda: exudyn_run(exu, fp, dt, args.exudyn_residual_newton), repeat, args.single_above)
    r["dt"] = dt
    r.setdefault("completed", True)
    return r


def report_run(code, r, error=None):
    note = "" if r["completed"] else f"  FAILED (t = {r['reached']:.4g}: {r['failure']})"
    extra = f", {r['extra_steps']} extra (reduced) steps" if r.get("extra_steps") else ""
    err = f"  tip error {error:.3e}" if error is not None else ""
    print(f"  {code:7s} dt = {r['dt']:<8g} {r['seconds']:8.3f} s  {1e3 * r['seconds'] / r['steps']:7.3f} ms/step"
          f"{err}  Newton/step {r['newton_per_step']:.2f}{extra}{note}", flush=True)


def study(n_elements, args, exu, problem=FemdynPendulum):
    fp = problem(n_elements)
    print(f"\n=== N = {n_elements} elements (femdyn unknowns {fp.model.n + len(fp.setup.active_rows)}, "
          f"Exudyn ODE2 coordinates {fp.exudyn_coordinates}) ===", flush=True)
    h = args.reference_dt
    references, coarse_tips = {}, {}
    femdyn_try(fp, 1e-2, femdyn_scheme(args), t_end=3e-2)  # warm-up: compiled kernels loaded (or compiled)
    exudyn_run(exu, fp, 1e-2, args.exudyn_residual_newton, t_end=3e-2)
    plan = [(dt, {code: (lambda dt=dt, code=code: timed(code, fp, dt, args, exu, 1)) for code in CODES})
            for dt in args.dts]
    # 2 REFERENCE_DT gives the reference's error estimate, 1e-3 the time-per-step comparison
    runs = interleaved(plan, args.repeat, args.single_above, args.max_run,
                       keep=lambda dt: math.isclose(dt, 2 * h) or math.isclose(dt, 1e-3), report=report_run)
    for code in CODES:
        coarse = next((r for r in runs[code] if math.isclose(r["dt"], 2 * h)), None)
        if coarse is None:  # not in the dt list: run it for the estimate only
            coarse = timed(code, fp, 2 * h, args, exu, 1)
            report_run(code, coarse)
        ref = timed(code, fp, h, args, exu, 1)
        report_run(code, ref)
        tip = np.array(ref["tip"])
        coarse_tips[code] = coarse["tip"]
        estimate = float(np.abs(np.array(coarse["tip"]) - tip).max())
        references[code] = dict(dt=h, tip=tip.tolist(), seconds=ref["seconds"], completed=ref["completed"],
                                newton_per_step=ref["newton_per_step"], error_estimate=estimate,
                                error_estimate_method=f"|x(dt = {2 * h:g}) - x(dt = {h:g})|, max-norm")
        for r in runs[code]:
            r["error"] = float(np.abs(np.array(r["tip"]) - tip).max())
        print(f"  {code} reference: dt = {h:g}, {fp.point} = ({tip[0]:.10f}, {tip[1]:.10f}), estimated error "
              f"{estimate:.2e}", flush=True)

    floor = FLOOR_FACTOR * max(references[c]["error_estimate"] for c in CODES)
    distance = float(np.abs(np.array(references["femdyn"]["tip"]) - np.array(references["exudyn"]["tip"])).max())
    same_dt = [dict(dt=f["dt"], femdyn_seconds=f["seconds"], exudyn_seconds=e["seconds"],
                    time_ratio=f["seconds"] / e["seconds"], femdyn_error=f["error"], exudyn_error=e["error"],
                    error_ratio=f["error"] / e["error"] if e["error"] > 0 else math.nan)
               for f in runs["femdyn"] for e in runs["exudyn"]
               if math.isclose(f["dt"], e["dt"]) and f["completed"] and e["completed"]]
    extrapolated = {}  # order-2 Richardson of each code's two finest runs: a check of the model difference
    for code in CODES:
        x_h, x_2h = np.array(references[code]["tip"]), np.array(coarse_tips[code])
        extrapolated[code] = (4.0 * x_h - x_2h) / 3.0
    large = large_steps(runs)
    at_1ms = {c: next((r for r in runs[c] if math.isclose(r["dt"], 1e-3)), None) for c in CODES}
    per_step = None
    if all(at_1ms.values()):
        ms = {c: 1e3 * at_1ms[c]["seconds"] / at_1ms[c]["steps"] for c in CODES}
        per_step = dict(dt=1e-3, femdyn_ms=ms["femdyn"], exudyn_ms=ms["exudyn"], ratio=ms["femdyn"] / ms["exudyn"],
                        femdyn_newton=at_1ms["femdyn"]["newton_per_step"],
                        exudyn_newton=at_1ms["exudyn"]["newton_per_step"])
    result = dict(elements=n_elements, femdyn_unknowns=fp.model.n + len(fp.setup.active_rows),
                  exudyn_coordinates=fp.exudyn_coordinates, model=fp.title, point=fp.point, references=references,
                  reference_distance=dict(value=distance, what="max-norm |tip femdyn reference - tip Exudyn reference| "
                                                               "(FFR small strain vs ANCF geometrically exact)",
                                          extrapolated=float(np.abs(extrapolated["femdyn"] - extrapolated["exudyn"]).max()),
                                          extrapolated_what="the same between the order-2 Richardson values "
                                                            "(4 x(h) - x(2h)) / 3 of each code's two finest runs"),
                  same_dt=same_dt,
                  error_floor=floor, runs=runs,
                  observed_orders={c: observed_orders([r for r in rs if r["error"] > 0]) for c, rs in runs.items()},
                  ratios_at_equal_error=equal_error_ratios(runs["femdyn"], runs["exudyn"], floor),
                  ratios_against_cheapest_as_accurate=against_cheapest_as_accurate(runs["femdyn"], runs["exudyn"], floor),
                  time_per_step_at_1ms=per_step, large_steps=large,
                  femdyn_split=femdyn_split(fp, SPLIT_DT, args.split_steps, femdyn_scheme(args)))
    if args.profile:
        result["femdyn_profile"] = femdyn_profile(fp, SPLIT_DT, args.split_steps, scheme=femdyn_scheme(args))
    return result


def large_steps(runs, from_dt=LARGE_DT):
    """The runs at dt >= ``from_dt``: each code's error (or failure) and step cuts, and for each femdyn
    run the largest Exudyn dt whose (completed, uncut) run is at least as accurate, with its wall time."""
    rows = []
    for f in runs["femdyn"]:
        if f["dt"] < from_dt * (1 - 1e-9):
            continue
        e = next((r for r in runs["exudyn"] if math.isclose(r["dt"], f["dt"])), None)
        good = [r for r in runs["exudyn"] if r["completed"] and r.get("extra_steps", 0) <= 0
                and f["completed"] and r["error"] <= f["error"]]
        needed = max(good, key=lambda r: r["dt"]) if good else None
        rows.append(dict(dt=f["dt"], femdyn_completed=f["completed"], femdyn_error=f["error"], femdyn_seconds=f["seconds"],
                         femdyn_newton_per_step=f["newton_per_step"],
                         exudyn_completed=e["completed"] if e else None, exudyn_error=e["error"] if e else None,
                         exudyn_extra_steps=e.get("extra_steps", 0) if e else None,
                         exudyn_newton_per_step=e["newton_per_step"] if e else None,
                         exudyn_failure=e.get("failure") if e else None,
                         exudyn_dt_for_femdyn_error=needed["dt"] if needed else None,
                         exudyn_seconds_for_femdyn_error=needed["seconds"] if needed else None))
    return rows


def print_large_steps(res):
    print(f"large steps (dt >= {LARGE_DT:g}): femdyn energy-momentum against Exudyn generalized-alpha")
    for row in res["large_steps"]:
        femdyn = f"{row['femdyn_error']:.2e}" if row["femdyn_completed"] else "FAILED"
        if row["exudyn_completed"] is None:
            exudyn = "not run"
        else:
            exudyn = f"{row['exudyn_error']:.2e}" if row["exudyn_completed"] else f"FAILED ({row['exudyn_failure']})"
            if row["exudyn_extra_steps"]:
                exudyn += f", cut the step ({row['exudyn_extra_steps']} extra steps)"
            exudyn += f", Newton/step {row['exudyn_newton_per_step']:.2f}"
        need = (f"Exudyn needs dt = {row['exudyn_dt_for_femdyn_error']:g} ({row['exudyn_seconds_for_femdyn_error']:.3f} s) "
                f"for that error" if row["exudyn_dt_for_femdyn_error"] else "no Exudyn run reaches that error")
        print(f"    dt {row['dt']:<7g} femdyn error {femdyn} ({row['femdyn_seconds']:.3f} s, Newton/step "
              f"{row['femdyn_newton_per_step']:.2f}); Exudyn error {exudyn}; {need}")


def mesh_convergence(results):
    """Distance of each code's reference at every N from its reference at the largest N."""
    finest = results[-1]
    return {code: [dict(elements=res["elements"], distance=float(np.abs(np.array(res["references"][code]["tip"])
                                                                         - np.array(finest["references"][code]["tip"])).max()))
                   for res in results[:-1]]
            for code in CODES}


# ---------------------------------------------------------------------------------------------- output

def print_summary(results, mesh):
    for res in results:
        n = res["elements"]
        print(f"\n--- N = {n}: work-precision (wall time of 1 s of motion, median; error = {res['point']} max-norm "
              f"against the code's own reference) ---")
        print(f"{'code':7s} {'dt':>8s} {'steps':>6s} {'seconds':>9s} {'ms/step':>8s} {'error':>10s} {'Newton/step':>11s}")
        for code, runs in res["runs"].items():
            for r in runs:
                flag = "" if r["completed"] else "  failed"
                print(f"{code:7s} {r['dt']:8g} {r['steps']:6d} {r['seconds']:9.3f} {1e3 * r['seconds'] / r['steps']:8.3f} "
                      f"{r['error']:10.3e} {r['newton_per_step']:11.2f}{flag}")
        for code, ref in res["references"].items():
            print(f"reference {code:7s}: dt = {ref['dt']:g} ({ref['seconds']:.1f} s), {res['point']} = ({ref['tip'][0]:.9f}, "
                  f"{ref['tip'][1]:.9f}), estimated error {ref['error_estimate']:.1e}")
        print(f"|femdyn reference - Exudyn reference| = {res['reference_distance']['value']:.2e} "
              f"(model difference; runs with error below {res['error_floor']:.1e} stay out of the ratios); "
              f"between their order-2 Richardson values {res['reference_distance']['extrapolated']:.2e}")
        print("same dt: femdyn / Exudyn wall time and error")
        for row in res["same_dt"]:
            print(f"    dt {row['dt']:<8g} time ratio {row['time_ratio']:6.2f}   error femdyn {row['femdyn_error']:.2e}, "
                  f"Exudyn {row['exudyn_error']:.2e} (ratio {row['error_ratio']:.2f})")
        for code, orders in res["observed_orders"].items():
            print(f"observed orders {code:7s}: " + ", ".join(f"{o['order']:.2f}" for o in orders))
        print_large_steps(res)
        print_equal_error("Exudyn", res["ratios_at_equal_error"])
        print_lower_bounds("Exudyn", res["ratios_against_cheapest_as_accurate"])
        print_split(res)

    print("\n--- time per step at dt = 1e-3 (1000 steps, median) ---")
    print(f"{'N':>6s} {'femdyn ms':>10s} {'Newton':>7s} {'Exudyn ms':>10s} {'Newton':>7s} {'ratio':>6s}")
    for res in results:
        p = res["time_per_step_at_1ms"]
        if p:
            print(f"{res['elements']:6d} {p['femdyn_ms']:10.3f} {p['femdyn_newton']:7.2f} {p['exudyn_ms']:10.3f} "
                  f"{p['exudyn_newton']:7.2f} {p['ratio']:6.2f}")
    print("\n--- same dt: femdyn / Exudyn wall-time ratio (first block) and error ratio (second block) ---")
    dts = sorted({row["dt"] for res in results for row in res["same_dt"]}, reverse=True)
    print(f"{'N':>6s} " + " ".join(f"{dt:>9g}" for dt in dts))
    for res in results:
        by_dt = {row["dt"]: row for row in res["same_dt"]}
        print(f"{res['elements']:6d} " + " ".join(f"{by_dt[dt]['time_ratio']:9.2f}" if dt in by_dt else f"{'-':>9s}"
                                                  for dt in dts))
    print(f"{'N':>6s} " + " ".join(f"{'error':>9s}" for _ in dts))
    for res in results:
        by_dt = {row["dt"]: row for row in res["same_dt"]}
        print(f"{res['elements']:6d} " + " ".join(f"{by_dt[dt]['error_ratio']:9.2f}" if dt in by_dt else f"{'-':>9s}"
                                                  for dt in dts))
    print("\n--- femdyn / Exudyn wall-time ratios at equal error ---")
    for res in results:
        rows = res["ratios_at_equal_error"]
        text = ", ".join(f"{r['error']:.0e}: {r['ratio']:.2f}" for r in rows) if rows else "no overlap"
        print(f"N = {res['elements']:5d}: {text}")
    print("\n--- references: model difference and mesh convergence ---")
    for res in results:
        print(f"N = {res['elements']:5d}: |femdyn ref - Exudyn ref| = {res['reference_distance']['value']:.2e} "
              f"(Richardson values: {res['reference_distance']['extrapolated']:.2e}); "
              f"reference error estimates femdyn {res['references']['femdyn']['error_estimate']:.1e}, "
              f"Exudyn {res['references']['exudyn']['error_estimate']:.1e}")
    if mesh:
        for code, rows in mesh.items():
            print(f"{code:7s} reference distance from its N = {results[-1]['elements']} reference: "
                  + ", ".join(f"N = {r['elements']}: {r['distance']:.2e}" for r in rows))


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(results), figsize=(max(5.2 * len(results), 9.0), 5.0), squeeze=False)
    styles = {"femdyn": ("o-", "C0"), "exudyn": ("s--", "C1")}
    for ax, res in zip(axes[0], results):
        for code, runs in res["runs"].items():
            ok = [r for r in runs if r["completed"] and r["error"] > 0]
            if not ok:
                continue
            fmt, color = styles[code]
            ax.loglog([r["error"] for r in ok], [r["seconds"] for r in ok], fmt, color=color, label=CODES[code])
            for r in ok:
                cut = "*" if r.get("extra_steps", 0) > 0 else ""  # the solver cut the step somewhere
                ax.annotate(f"{r['dt']:g}{cut}", (r["error"], r["seconds"]), fontsize=7, color=color,
                            textcoords="offset points", xytext=(3, 3))
        ax.axvline(res["reference_distance"]["value"], color="0.4", lw=0.8, ls=":",
                   label="|femdyn ref - Exudyn ref| (model difference)")
        ax.axvspan(ax.get_xlim()[0], res["error_floor"], color="0.9", zorder=0, label="below the reference floor")
        ax.set_xlabel(f"{res['point']} position error at t = 1 s (max-norm, m)")
        ax.set_ylabel("wall time for 1 s of motion (s)")
        ax.set_title(f"{res['model']}, N = {res['elements']} elements")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.text(0.99, 0.01, "labels: dt; * = Exudyn cut the step (adaptive reduction after Newton failures)",
             fontsize=7, ha="right", va="bottom", color="0.3")
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def argument_parser(description, out, quick, elements_help):
    """The command line of the flexible benchmarks (``out``: the default folder under results/)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--elements", type=int, nargs="+", default=None, help=elements_help)
    parser.add_argument("--quick", action="store_true",
                        help=f"N = {' '.join(map(str, quick['elements']))} only (unless --elements), fewer dt, "
                             "coarser reference, one repeat")
    parser.add_argument("--repeat", type=int, default=None,
                        help="interleaved rounds, the median of each point is kept (default 3)")
    parser.add_argument("--single-above", type=float, default=5.0,
                        help="runs longer than this many seconds are not repeated (default 5)")
    parser.add_argument("--max-run", type=float, default=60.0,
                        help="skip a code's finer dt once a run is expected to take longer (s, default 60); the "
                             "runs at dt = 1e-3, REFERENCE_DT and 2 REFERENCE_DT are always made")
    parser.add_argument("--split-steps", type=int, default=SPLIT_STEPS,
                        help=f"steps for femdyn's time split at dt = {SPLIT_DT:g} (default {SPLIT_STEPS})")
    parser.add_argument("--exudyn-residual-newton", action="store_true",
                        help="Exudyn's default residual-based Newton criterion (stalls on these models; see the "
                             "docstring of exudyn_flexible.py)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / out),
                        help="folder for the JSON and the PNG")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of femdyn's steps")
    add_femdyn_arguments(parser, "for the timed runs and femdyn's reference")
    return parser


def plan(args, full, quick):
    """Sets the elements, dts, reference dt and repeat of the default (``full``) or ``--quick`` run."""
    chosen = quick if args.quick else full
    args.dts, args.reference_dt = chosen["dts"], chosen["reference"]
    args.elements = args.elements or chosen["elements"]
    args.repeat = args.repeat or chosen.get("repeat", 3)


def print_header(exu, args):
    """The femdyn commit, the versions, the machine and its load; returns the load average and git state."""
    load, git = os.getloadavg(), git_state()
    print(f"femdyn at {git['commit']} ({git['subject']})"
          + (f", with uncommitted changes: {', '.join(git['femdyn_changes'])}" if git["femdyn_changes"] else ""))
    print(f"Exudyn {exu.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs (load average {load[0]:.2f}); one thread; t_end = {T_END} s; "
          f"median of {args.repeat} (runs over {args.single_above:g} s once)")
    return load, git


def run_meta(exu, args, load, git):
    """The JSON meta data common to the flexible benchmarks."""
    return dict(femdyn_git=git, t_end=T_END, exudyn_version=exu.__version__, numpy=np.__version__,
                python=platform.python_version(), machine=platform.machine(), cpus=os.cpu_count(),
                load_average_start=load, load_average_end=os.getloadavg(), repeat=args.repeat,
                single_above=args.single_above, quick=args.quick, floor_factor=FLOOR_FACTOR)


def save(out, name, meta, results, mesh):
    """``out/name.json`` and ``out/work_precision.png``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(dict(meta=meta, results=results, mesh_convergence=mesh), indent=2))
    plot(results, out / "work_precision.png")
    print(f"\nwrote {out / f'{name}.json'} and {out / 'work_precision.png'} ({meta['total_seconds']:.0f} s in all)")


def main():
    args = argument_parser(__doc__.splitlines()[0], "bench_exudyn_flexible", QUICK,
                           f"elements per beam (default {' '.join(map(str, ELEMENTS))}; add 1024 for the long run)"
                           ).parse_args()
    plan(args, dict(elements=ELEMENTS, dts=DTS, reference=REFERENCE_DT), QUICK)
    exu = import_exudyn()
    if exu is None:
        print(MISSING_EXUDYN, file=sys.stderr)
        return 2
    load, git = print_header(exu, args)

    start = time.perf_counter()
    results = [study(n, args, exu) for n in args.elements]
    mesh = mesh_convergence(results) if len(results) > 1 else {}
    print_summary(results, mesh)
    meta = dict(benchmark="flexible pendulum (pinned steel beam, L = 1 m, 10 x 10 mm, gravity), femdyn vs Exudyn",
                error="tip position max-norm at t_end against the code's own reference",
                beam=dict(length=LENGTH, width=WIDTH, depth=DEPTH, young=YOUNG, density=DENSITY, gravity=GRAVITY),
                **run_meta(exu, args, load, git),
                femdyn=dict(model="FFR Euler-Bernoulli beam, geometric stiffening, fixed-free reference conditions, "
                                  "revolute joint to the ground", scheme=args.femdyn_integrator,
                            newton=FEMDYN_NEWTON[args.femdyn_newton], linear_solver="KLU (fixed pattern)",
                            timing="stepper construction + steps"),
                exudyn=dict(model="ObjectANCFCable2D + NodePoint2DSlope1 (GenerateBeamElementsAlongLine), "
                                  "CoordinateConstraint x, y at the first node, LoadMassProportional",
                            scheme="generalized-alpha, spectral radius 0.9, index 3",
                            newton=("modified (default), default residual criterion" if args.exudyn_residual_newton else
                                    "modified (default), residualMode 1 (increment), relative = absolute tolerance 1e-10"),
                            linear_solver="EigenSparse, reuseAnalyzedPattern", threads=1, timing="mbs.SolveDynamic"),
                total_seconds=time.perf_counter() - start)
    save(args.out, "exudyn_flexible", meta, results, mesh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
