"""Work-precision comparison with Exudyn: the spatial flexible pendulum
(femdyn/Exudyn wall time at equal tip error, N = 16 to 256 elements, interleaved runs).

The model (``spatial_pendulum.SpatialPendulum``): one straight steel beam, L = 1 m, 10 x 10 mm
(E = 2.1e11 Pa, rho = 7850 kg/m^3: EA = 2.1e7 N, EI = 175 N m^2 in both bending planes,
rho A = 0.785 kg/m), held at its first node by a spherical joint to the ground at the origin, gravity
9.81 m/s^2 along -z, released horizontal (along +x) and undeformed, turning rigidly at 2 rad/s about
the vertical: a spherical pendulum that falls while it swings round, bending in both planes; 1 s of
motion.

* femdyn: N world-vector Euler-Bernoulli elements (``BeamBody(..., dim=3, axial="cubic")``,
  fixed-free reference conditions, geometric stiffening, G from nu = 0.3), a spherical joint at the
  first node, the BEM energy-momentum stepper, full Newton, KLU.
* Exudyn: N ``ObjectANCFCable`` elements (the 3D ANCF cable) on ``NodePointSlope1`` nodes (position
  and slope vector, 6 coordinates per node; ``GenerateBeamElementsAlongLine``) with the same EA, EI
  and rho A, read from the femdyn beam; the first node's position held by three
  ``CoordinateConstraint``s to the ground, its slope free (a ball joint); ``LoadMassProportional``
  gravity; every node's initial velocity and slope rate those of the rigid rotation
  (omega x r, omega x e_x); generalized-alpha (spectral radius 0.9, index 3), modified Newton,
  Eigen sparse LU with the analysed pattern reused, one thread, no output files.

Why the ANCF cable. It is Exudyn's spatial Euler-Bernoulli element: axial strain and bending
curvature, no shear, isotropic bending stiffness -- the physics of femdyn's element for a square
section. ``ObjectBeamGeometricallyExact`` is a Simo-Reissner (Timoshenko) beam: shear flexible, and
made Euler-Bernoulli only by a shear stiffness many orders above EI / L^2, which stiffens the
system. The cable has no torsion: its sections carry no twist and no rotary inertia. femdyn's beam
has the St-Venant twist (GJ) and the sections' rotary inertia of the rigid motion (rho I per length in
the frame's second moments); the twist is hardly excited here (square section, no torque), the rotary
inertia changes the moment of inertia by 3 I / (A L^2) = 2.5e-5. So the two references differ by
the model difference, which the script reports; each code's error is measured against its own
reference.

Exudyn's Newton criterion: the increment criterion (``newton.residualMode = 1``, tolerances 1e-10), as
in ``exudyn_flexible.py`` and for the same reason (EA / h puts a round-off floor under the residual
that the default residual criterion stalls on); ``--exudyn-residual-newton`` restores the default.

Error: max-norm of the tip position (3 components) at t = 1 s against the code's own reference, its
run at ``REFERENCE_DT``; that reference's error is estimated by its distance to the run at
2 ``REFERENCE_DT``, and runs less than ``FLOOR_FACTOR`` times above the larger estimate stay out of the
equal-error ratios. Work: wall time of the time integration (femdyn: stepper construction + steps;
Exudyn: SolveDynamic), building the models left out in both.

Interleaved: after a short warm-up run of each code (first calls), for every dt the two codes
alternate, femdyn-Exudyn then Exudyn-femdyn, ``--repeat`` rounds (default 3), and each code's median
is kept (a run longer than ``--single-above`` s is made once); the references are made one after the
other. The ratios: femdyn/Exudyn wall time at equal
error, log-log interpolated along each code's Pareto front (``exudyn_chain.equal_error_ratios``), the
lower bounds "femdyn run / cheapest Exudyn run at least as accurate", the same-dt time and error
ratios, and the time per step of both at dt = 1e-3.

Exudyn is an optional benchmark dependency, never a runtime one: ``.venv/bin/pip install exudyn``.
This is a benchmark (figures, JSON and a PNG), not a test.

Usage: python benchmarks/exudyn_spatial.py [--elements 16 64 256] [--quick] [--repeat 3]
                                           [--out results/bench_exudyn_spatial]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):  # one thread
    os.environ.setdefault(_var, "1")

import argparse
import json
import math
import platform
import statistics
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
    femdyn_run,
    femdyn_scheme,
    femdyn_split,
    import_exudyn,
    observed_orders,
    print_equal_error,
    print_lower_bounds,
    print_split,
)
from provenance import git_state
from spatial_pendulum import SPIN, SpatialPendulum

from femdyn.integrators.newton import NewtonFailure

T_END = 1.0
ELEMENTS = [16, 64, 256]
DTS = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4]  # the last is 2 REFERENCE_DT: it also gives the reference's error
REFERENCE_DT = 1.25e-4
FLOOR_FACTOR = 2.0
QUICK = dict(elements=[16], dts=[1e-2, 5e-3, 2e-3, 1e-3, 5e-4], reference=2.5e-4, repeat=1)
SPLIT_DT, SPLIT_STEPS = 1e-3, 200
CODES = {"femdyn": "femdyn 3D world-vector Euler-Bernoulli + stiffening, BEM energy-momentum",
         "exudyn": "Exudyn ANCFCable (3D), generalized-alpha (rho_inf 0.9), modified Newton"}


def exudyn_build(exu, fp):
    """The same pendulum in Exudyn: N 3D ANCF cable elements, the first node's position held, every node
    moving with the rigid rotation at the release."""
    from exudyn.beams import GenerateBeamElementsAlongLine
    from exudyn.itemInterface import ObjectANCFCable
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    cable = ObjectANCFCable(massPerLength=fp.mass_per_length, bendingStiffness=fp.bending, axialStiffness=fp.axial)
    beam = GenerateBeamElementsAlongLine(mbs, [0.0, 0.0, 0.0], [fp.length, 0.0, 0.0], fp.n_elements, cable,
                                         gravity=list(fp.gravity),
                                         groundConstraintsStart=[1, 1, 1, 0, 0, 0])  # position held, slope free
    slope_rate = np.cross(fp.spin, [1.0, 0.0, 0.0])
    for node, position in zip(beam["nodes"], beam["nodePositions"]):
        mbs.SetNodeParameter(node, "initialVelocities", [*np.cross(fp.spin, position), *slope_rate])
    mbs.Assemble()
    return sc, mbs, beam["nodes"][-1]


def exudyn_run(exu, fp, dt, residual_newton=False, t_end=T_END):
    """One timed SolveDynamic (model building excluded)."""
    sc, mbs, tip_node = exudyn_build(exu, fp)
    settings = exudyn_settings(exu, dt, t_end)
    if not residual_newton:  # increment criterion, as femdyn's (module docstring)
        newton = settings.timeIntegration.newton
        newton.residualMode = 1
        newton.relativeTolerance = newton.absoluteTolerance = 1e-10
    run = exudyn_solve(mbs, settings, exu.DynamicSolverType.GeneralizedAlpha, dt, t_end)
    tip = mbs.GetNodeOutput(tip_node, exu.OutputVariableType.Position)
    del sc
    return dict(run, tip=[float(x) for x in tip[:3]])


def femdyn_try(fp, dt, scheme):
    """``exudyn_chain.femdyn_run``, with a Newton failure recorded instead of raised."""
    start = time.perf_counter()
    try:
        return dict(femdyn_run(fp, dt, scheme=scheme), completed=True)
    except NewtonFailure as err:
        return dict(seconds=time.perf_counter() - start, tip=[math.nan] * 3, steps=round(T_END / dt),
                    completed=False, reached=err.time, failure=str(err).splitlines()[0], newton_per_step=math.nan)


def one_run(code, fp, dt, args, exu):
    if code == "femdyn":
        r = femdyn_try(fp, dt, femdyn_scheme(args))
    else:
        r = exudyn_run(exu, fp, dt, args.exudyn_residual_newton)
    r.setdefault("completed", True)
    r["dt"] = dt
    return r


def merged(runs):
    """One record from repeated runs of a code at one dt: the first's data, the median time."""
    out = dict(runs[0])
    out["times"] = [r["seconds"] for r in runs]
    out["seconds"] = statistics.median(out["times"])
    return out


def report_run(code, r):
    note = "" if r["completed"] else f"  FAILED (t = {r['reached']:.4g}: {r['failure']})"
    extra = f", {r['extra_steps']} extra (reduced) steps" if r.get("extra_steps") else ""
    times = "/".join(f"{t:.3f}" for t in r.get("times", [r["seconds"]]))
    print(f"  {code:7s} dt = {r['dt']:<8g} {r['seconds']:8.3f} s ({times})  {1e3 * r['seconds'] / r['steps']:7.3f} "
          f"ms/step  Newton/step {r['newton_per_step']:.2f}{extra}{note}", flush=True)


def study(n_elements, args, exu):
    fp = SpatialPendulum(n_elements)
    unknowns = fp.model.n + len(fp.setup.active_rows)
    print(f"\n=== N = {n_elements} elements (femdyn unknowns {unknowns}, Exudyn ODE2 coordinates "
          f"{6 * (n_elements + 1)}) ===", flush=True)
    h = args.reference_dt
    codes = list(CODES)
    femdyn_run(fp, args.dts[0], t_end=5 * args.dts[0])  # warm-up, not timed: first calls (numba's kernels)
    exudyn_run(exu, fp, args.dts[0], args.exudyn_residual_newton, t_end=5 * args.dts[0])
    runs = {c: [] for c in codes}
    per_step = {c: 0.0 for c in codes}
    for k, dt in enumerate(args.dts):
        steps = round(T_END / dt)
        mandatory = math.isclose(dt, 2 * h) or math.isclose(dt, 1e-3)
        active = []
        for c in codes:
            if per_step[c] * steps > args.max_run and not mandatory:
                print(f"  {c:7s} dt = {dt:<8g} skipped: about {per_step[c] * steps:.0f} s expected "
                      f"(> --max-run {args.max_run:g} s)", flush=True)
            else:
                active.append(c)
        done = {c: [] for c in active}
        for rep in range(args.repeat):  # interleaved: the order alternates with the round and the dt
            order = active if (rep + k) % 2 == 0 else active[::-1]
            for c in order:
                if done[c] and done[c][0]["seconds"] > args.single_above:
                    continue
                done[c].append(one_run(c, fp, dt, args, exu))
        for c in active:
            r = merged(done[c])
            runs[c].append(r)
            report_run(c, r)
            per_step[c] = r["seconds"] / (r["steps"] + max(r.get("extra_steps", 0), 0))
    references, coarse = {}, {}
    for c in codes:  # the references one after the other
        coarse[c] = next((r for r in runs[c] if math.isclose(r["dt"], 2 * h)), None) or one_run(c, fp, 2 * h, args, exu)
        ref = one_run(c, fp, h, args, exu)
        report_run(c, ref)
        tip = np.array(ref["tip"])
        estimate = float(np.abs(np.array(coarse[c]["tip"]) - tip).max())
        references[c] = dict(dt=h, tip=tip.tolist(), seconds=ref["seconds"], completed=ref["completed"],
                             newton_per_step=ref["newton_per_step"], error_estimate=estimate,
                             error_estimate_method=f"|x(dt = {2 * h:g}) - x(dt = {h:g})|, max-norm")
        for r in runs[c]:
            r["error"] = float(np.abs(np.array(r["tip"]) - tip).max())
        print(f"  {c} reference: dt = {h:g}, tip = ({tip[0]:.9f}, {tip[1]:.9f}, {tip[2]:.9f}), estimated error "
              f"{estimate:.2e}", flush=True)
    floor = FLOOR_FACTOR * max(references[c]["error_estimate"] for c in codes)
    distance = float(np.abs(np.array(references["femdyn"]["tip"]) - np.array(references["exudyn"]["tip"])).max())
    richardson = {c: (4.0 * np.array(references[c]["tip"]) - np.array(coarse[c]["tip"])) / 3.0 for c in codes}
    same_dt = [dict(dt=f["dt"], femdyn_seconds=f["seconds"], exudyn_seconds=e["seconds"],
                    time_ratio=f["seconds"] / e["seconds"], femdyn_error=f["error"], exudyn_error=e["error"],
                    error_ratio=f["error"] / e["error"] if e["error"] > 0 else math.nan)
               for f in runs["femdyn"] for e in runs["exudyn"]
               if math.isclose(f["dt"], e["dt"]) and f["completed"] and e["completed"]]
    at_1ms = {c: next((r for r in runs[c] if math.isclose(r["dt"], 1e-3)), None) for c in codes}
    per_step_1ms = None
    if all(at_1ms.values()):
        ms = {c: 1e3 * at_1ms[c]["seconds"] / at_1ms[c]["steps"] for c in codes}
        per_step_1ms = dict(dt=1e-3, femdyn_ms=ms["femdyn"], exudyn_ms=ms["exudyn"], ratio=ms["femdyn"] / ms["exudyn"],
                            femdyn_newton=at_1ms["femdyn"]["newton_per_step"],
                            exudyn_newton=at_1ms["exudyn"]["newton_per_step"])
    return dict(elements=n_elements, femdyn_unknowns=unknowns, exudyn_coordinates=6 * (n_elements + 1),
                references=references,
                reference_distance=dict(value=distance, what="max-norm |tip femdyn reference - tip Exudyn reference| "
                                                             "(world-vector beam with twist and rotary inertia vs "
                                                             "ANCF cable)",
                                        extrapolated=float(np.abs(richardson["femdyn"] - richardson["exudyn"]).max())),
                error_floor=floor, runs=runs, same_dt=same_dt,
                observed_orders={c: observed_orders([r for r in rs if r["error"] > 0]) for c, rs in runs.items()},
                ratios_at_equal_error=equal_error_ratios(runs["femdyn"], runs["exudyn"], floor),
                ratios_against_cheapest_as_accurate=against_cheapest_as_accurate(runs["femdyn"], runs["exudyn"], floor),
                time_per_step_at_1ms=per_step_1ms,
                femdyn_split=femdyn_split(fp, SPLIT_DT, args.split_steps, femdyn_scheme(args)))


def print_summary(results):
    for res in results:
        print(f"\n--- N = {res['elements']}: work precision (wall time of 1 s, median of interleaved runs; error = "
              f"tip max-norm against the code's own reference) ---")
        print(f"{'code':7s} {'dt':>8s} {'seconds':>9s} {'ms/step':>8s} {'error':>10s} {'Newton/step':>11s}")
        for code, rs in res["runs"].items():
            for r in rs:
                print(f"{code:7s} {r['dt']:8g} {r['seconds']:9.3f} {1e3 * r['seconds'] / r['steps']:8.3f} "
                      f"{r['error']:10.3e} {r['newton_per_step']:11.2f}" + ("" if r["completed"] else "  failed"))
        print(f"|femdyn reference - Exudyn reference| = {res['reference_distance']['value']:.2e} (model difference; "
              f"between their Richardson values {res['reference_distance']['extrapolated']:.2e}); reference error "
              f"estimates femdyn {res['references']['femdyn']['error_estimate']:.1e}, Exudyn "
              f"{res['references']['exudyn']['error_estimate']:.1e}; runs below {res['error_floor']:.1e} stay out")
        for row in res["same_dt"]:
            print(f"    dt {row['dt']:<8g} time ratio {row['time_ratio']:6.2f}   "
                  f"error femdyn {row['femdyn_error']:.2e}, "
                  f"Exudyn {row['exudyn_error']:.2e} (ratio {row['error_ratio']:.2f})")
        for code, orders in res["observed_orders"].items():
            print(f"observed orders {code:7s}: " + ", ".join(f"{o['order']:.2f}" for o in orders))
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
    print("\n--- same dt: femdyn / Exudyn wall time (first block) and error (second block) ---")
    dts = sorted({row["dt"] for res in results for row in res["same_dt"]}, reverse=True)
    print(f"{'N':>6s} " + " ".join(f"{dt:>9g}" for dt in dts))
    for key in ("time_ratio", "error_ratio"):
        for res in results:
            by_dt = {row["dt"]: row for row in res["same_dt"]}
            print(f"{res['elements']:6d} " + " ".join(f"{by_dt[dt][key]:9.2f}" if dt in by_dt else f"{'-':>9s}"
                                                      for dt in dts))
    print("\n--- femdyn / Exudyn wall time at equal error ---")
    for res in results:
        rows = res["ratios_at_equal_error"]
        print(f"N = {res['elements']:5d}: " + (", ".join(f"{r['error']:.0e}: {r['ratio']:.2f}" for r in rows)
                                              if rows else "no overlap"))


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(results), figsize=(max(5.2 * len(results), 9.0), 5.0), squeeze=False)
    styles = {"femdyn": ("o-", "C0"), "exudyn": ("s--", "C1")}
    for ax, res in zip(axes[0], results):
        for code, rs in res["runs"].items():
            ok = [r for r in rs if r["completed"] and r["error"] > 0]
            fmt, color = styles[code]
            ax.loglog([r["error"] for r in ok], [r["seconds"] for r in ok], fmt, color=color, label=CODES[code])
            for r in ok:
                ax.annotate(f"{r['dt']:g}", (r["error"], r["seconds"]), fontsize=7, color=color,
                            textcoords="offset points", xytext=(3, 3))
        ax.axvline(res["reference_distance"]["value"], color="0.4", lw=0.8, ls=":",
                   label="|femdyn ref - Exudyn ref| (model difference)")
        ax.axvspan(ax.get_xlim()[0], res["error_floor"], color="0.9", zorder=0, label="below the reference floor")
        ax.set_xlabel("tip position error at t = 1 s (max-norm, m)")
        ax.set_ylabel("wall time for 1 s of motion (s)")
        ax.set_title(f"spatial flexible pendulum, N = {res['elements']}")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=None, help="elements (default 16 64 256)")
    parser.add_argument("--quick", action="store_true", help="N = 16 (unless --elements), fewer dt, coarser "
                                                             "reference, one round")
    parser.add_argument("--repeat", type=int, default=None, help="interleaved rounds per dt, medians (default 3)")
    parser.add_argument("--single-above", type=float, default=5.0,
                        help="a code's run longer than this many seconds is not repeated (default 5)")
    parser.add_argument("--max-run", type=float, default=60.0,
                        help="skip a code's finer dt once a run is expected to take longer (s, default 60); the "
                             "runs at dt = 1e-3 and 2 REFERENCE_DT are always made")
    parser.add_argument("--split-steps", type=int, default=SPLIT_STEPS)
    parser.add_argument("--exudyn-residual-newton", action="store_true",
                        help="Exudyn's default residual criterion (see exudyn_flexible.py)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "bench_exudyn_spatial"))
    add_femdyn_arguments(parser, "for the timed runs and femdyn's reference")
    args = parser.parse_args()
    chosen = QUICK if args.quick else dict(elements=ELEMENTS, dts=DTS, reference=REFERENCE_DT)
    args.dts, args.reference_dt = chosen["dts"], chosen["reference"]
    args.elements = args.elements or chosen["elements"]
    args.repeat = args.repeat or chosen.get("repeat", 3)
    exu = import_exudyn()
    if exu is None:
        print(MISSING_EXUDYN, file=sys.stderr)
        return 2
    load, git = os.getloadavg(), git_state()
    print(f"femdyn at {git['commit']} ({git['subject']})"
          + (f", with uncommitted changes: {', '.join(git['femdyn_changes'])}" if git["femdyn_changes"] else ""))
    print(f"Exudyn {exu.__version__}, numpy {np.__version__}, Python {platform.python_version()}, {os.cpu_count()} "
          f"CPUs (load average {load[0]:.2f}); one thread; t_end = {T_END} s; {args.repeat} interleaved rounds "
          f"(runs over {args.single_above:g} s once)")
    start = time.perf_counter()
    results = [study(n, args, exu) for n in args.elements]
    print_summary(results)
    meta = dict(benchmark="spatial flexible pendulum (ball joint, gravity, spin about the vertical), femdyn vs "
                          "Exudyn", error="tip position max-norm at t_end against the code's own reference",
                spin=SPIN, t_end=T_END, femdyn_git=git, exudyn_version=exu.__version__, numpy=np.__version__,
                python=platform.python_version(), machine=platform.machine(), cpus=os.cpu_count(),
                load_average_start=load, load_average_end=os.getloadavg(), repeat=args.repeat,
                single_above=args.single_above, quick=args.quick, floor_factor=FLOOR_FACTOR,
                femdyn=dict(model="3D world-vector Euler-Bernoulli beam, geometric stiffening, fixed-free, spherical "
                                  "joint to the ground", scheme=args.femdyn_integrator,
                            newton=FEMDYN_NEWTON[args.femdyn_newton], timing="stepper construction + steps"),
                exudyn=dict(model="ObjectANCFCable + NodePointSlope1 (GenerateBeamElementsAlongLine), "
                                  "CoordinateConstraint x, y, z at the first node, LoadMassProportional",
                            scheme="generalized-alpha, spectral radius 0.9, index 3",
                            newton=("modified (default), default residual criterion" if args.exudyn_residual_newton
                                    else "modified (default), residualMode 1 (increment), tolerances 1e-10"),
                            linear_solver="EigenSparse, reuseAnalyzedPattern", threads=1, timing="mbs.SolveDynamic"),
                total_seconds=time.perf_counter() - start)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "exudyn_spatial.json").write_text(json.dumps(dict(meta=meta, results=results), indent=2))
    plot(results, out / "work_precision.png")
    print(f"\nwrote {out / 'exudyn_spatial.json'} and {out / 'work_precision.png'} ({meta['total_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
