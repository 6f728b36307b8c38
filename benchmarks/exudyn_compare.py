"""femdyn against Exudyn: the one command whose figures the README quotes (planar and spatial flexible
pendulum at equal error, FEM 3-PRR), both codes interleaved, every ratio printed with the machine's load.

The three problems (each code measured against its own converged reference):

* planar pendulum (``exudyn_flexible.FemdynPendulum``): steel beam L = 1 m, 10 x 10 mm (EA = 2.1e7 N,
  EI = 175 N m^2, rho A = 0.785 kg/m), pinned at one end, gravity -y, released horizontal from rest, 1 s,
  N = 16, 64, 256, 1024 elements. femdyn: FFR Euler-Bernoulli beam with geometric stiffening, revolute
  joint. Exudyn: N ``ObjectANCFCable2D``, the first node's x, y held.
* spatial pendulum (``spatial_pendulum.SpatialPendulum``): the same beam on a ball joint, gravity -z,
  released horizontal spinning at 2 rad/s about the vertical, 1 s, N = 16, 64, 256. femdyn: 3D
  world-vector Euler-Bernoulli beam (twist, stiffening), spherical joint. Exudyn: N ``ObjectANCFCable``
  (3D), the first node's position held.
* FEM 3-PRR (``cases/3prr_sine.toml``, ``ThreePRR`` below) with 16 elements per link in both codes: femdyn
  its world-vector beams, Exudyn ``ObjectANCFCable2D`` links, rigid sliders held in y and angle,
  ``ObjectJointRevolute2D`` joints, the sine loads on the sliders; 1 s at the case's dt = 2 ms.

Both codes: generalized-alpha, index 3, spectral radius rho_inf = 0.9 (the 3-PRR: its case's 0.5), one
thread, Newton stopped at the same size of increment: femdyn's error estimate of q below 1e-10 max(1, |q|)
(``NewtonOptions.tolerance``), Exudyn's increment criterion ``newton.residualMode = 1`` with relative =
absolute tolerance 1e-10 (its residual criterion stalls on the beams' round-off: ``exudyn_flexible.py``).
femdyn runs twice: with full Newton ("femdyn"; the 3-PRR: the case's full Newton with the early stop, its
default) and with simplified Newton ("femdyn modified", ``newton = "modified"``: generalized-alpha's
default where there is no early stop, so the pendulums' default since femdyn 0.1.0); Exudyn with its
modified Newton (its default), Eigen sparse LU with the pattern reused, no output files.

Work: each code's time integration only, femdyn's ``integrators.time_loop.simulate`` (what ``femdyn run``
reports as ``wall_time_s``: stepper, consistent start and end, history) against Exudyn's
``mbs.SolveDynamic``; building the models is left out. Wall time and the process's CPU time of every run.

Equal error (the pendulums). The error is the max-norm of the tip position at t = 1 s against the code's
own run at ``REFERENCE_DT`` (untimed). It is not monotone in dt: the beam's vibration puts the tip's phase
error through zero and back (planar N = 16: 2.7e-5 at dt = 4e-3, 1.9e-4 at 3.2e-3, 2.0e-4 at 2e-3, 5.2e-5 at
1.6e-3, 6.2e-5 at 1.25e-3, 3.9e-5 at 6.25e-4, 2.6e-5 at 5e-4), so interpolating time along an error axis
would reward a lucky dt. The two codes' errors at the same dt agree within about 10 % at every dt (the same
scan), so equal dt is equal error here and the ratios are taken at the same dt: ``STEPS`` = 1.25e-3 and
6.25e-4, the steps at which both codes stay below about 1e-4 and 3e-5, with both errors printed beside every
ratio (the check that equal dt is equal error, made in every run). ``--scan`` prints both codes' errors over
``SCAN`` (one round) to check the choice of ``STEPS`` for any N. The 3-PRR is timed at its case's dt, its
effector's errors printed beside the ratio.

Interleaved: for every problem and dt the three runs (femdyn full, femdyn modified, Exudyn) follow one
another, their order rotating from round to round, ``--rounds`` rounds (default 3); each figure is the
median over the rounds, the ratios are those of the medians, with the range of the rounds' own ratios
beside them. ``os.getloadavg()`` is recorded before and after every such group. Prints the tables and
a markdown table to paste; writes JSON (``--out``).

Exudyn is an optional benchmark dependency, never a runtime one: ``.venv/bin/pip install exudyn==1.13.6``.
A benchmark: nothing is asserted.

Usage: python benchmarks/exudyn_compare.py [--quick] [--scan] [--rounds 3] [--only planar spatial 3prr]
                                           [--out results/exudyn_compare.json]
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
from exudyn_chain import MISSING_EXUDYN, exudyn_settings, exudyn_solve, import_exudyn
from exudyn_flexible import FemdynPendulum
from provenance import git_state
from spatial_pendulum import SpatialPendulum

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate

TARGETS = (1e-4, 3e-5)  # tip errors of the equal-error ratios (m)
STEPS = (1.25e-3, 6.25e-4)  # the dt of the errors TARGETS in both codes (issue 37: about 1.3e-3 and 6e-4)
REFERENCE_DT = 2e-4  # 1.7e-6 (femdyn) and 2e-7 m (Exudyn) from the runs at 1.25e-4, planar N = 16
SCAN = (4e-3, 3.2e-3, 2.5e-3, 2e-3, 1.6e-3, 1.25e-3, 1e-3, 8e-4, 6.25e-4, 5e-4, 4e-4)
PLANAR, SPATIAL = (16, 64, 256, 1024), (16, 64, 256)
PRR_ELEMENTS, PRR_T_END = 16, 1.0
NEWTON_TOLERANCE = 1e-10
QUICK = dict(planar=(16, 64), spatial=(16,), reference=2.5e-4, rounds=1, prr_t_end=0.2)
CODES = ("femdyn", "femdyn modified", "Exudyn")
TARGET_RATIOS = {"planar 16": 0.7, "planar": 0.5, "spatial": 0.3, "3-PRR": 0.4}  # issue 37
CASE = Path(__file__).resolve().parent.parent / "cases" / "3prr_sine.toml"


# ---------------------------------------------------------------------------------------------- problems

class Pendulum:
    """A pendulum problem: femdyn's model (``FemdynPendulum`` or ``SpatialPendulum``) with its Exudyn
    twin, generalized-alpha at rho_inf 0.9, femdyn's full Newton without the early stop."""

    rho_inf, t_end, early_stop, point = 0.9, 1.0, False, "tip"

    def __init__(self, kind, n):
        self.kind, self.n = kind, n
        self.femdyn = FemdynPendulum(n) if kind == "planar" else SpatialPendulum(n)
        self.model, self.setup = self.femdyn.model, self.femdyn.setup
        self.label = f"{kind} N = {n}"

    def tip(self, q):
        return np.asarray(self.femdyn.tip(q), dtype=float)

    def exudyn_build(self, exu):
        return self.femdyn.exudyn_build(exu)


class ThreePRR:
    """The FEM 3-PRR of ``cases/3prr_sine.toml`` with ``n`` elements per link in both codes. Exudyn's model
    is built from femdyn's: the sliders' masses, inertias and places, each beam's EA, EI, rho A and end
    points at the start; the joints' topology read from the model (a revolute joint on a beam sits on its
    first or last node). The slider loads 10, -2, -2 N sin(20 t) are those of the case file."""

    point = "effector"
    LOADS = (10.0, -2.0, -2.0)  # N, on the sliders' x (the case's [[loads]])
    OMEGA = 20.0  # rad/s

    def __init__(self, n, t_end):
        self.n, self.t_end, self.label = n, t_end, f"3-PRR {n} el/link"
        case = load_case(CASE, Options(model="fem", elements=n))
        self.model = case.model
        self.setup = prepare(case.model, case.q0, case.v0, tolerance=case.settings.initial_tolerance)
        self.rho_inf, self.early_stop = case.settings.rho_inf, case.settings.early_stop
        self.dt = case.settings.dt
        self.beams = {wb.name: wb for wb in self.model.flexible}
        self.lengths = {name: float(np.sum(wb.length)) for name, wb in self.beams.items()}  # elements' lengths

    def tip(self, q):
        end = np.array([[self.lengths["platform"], 0.0]])
        return np.asarray(self.beams["platform"].positions(q, end)[0], dtype=float)

    def exudyn_build(self, exu):
        from exudyn.beams import GenerateBeamElementsAlongLine
        from exudyn.itemInterface import (CoordinateConstraint, LoadCoordinate, MarkerBodyPosition, MarkerNodeCoordinate,
                                          MarkerNodePosition, NodePointGround, NodeRigidBody2D, ObjectANCFCable2D,
                                          ObjectJointRevolute2D, ObjectRigidBody2D)
        model, q0 = self.model, self.setup.q0
        sc = exu.SystemContainer()
        mbs = sc.AddSystem()
        ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
        gravity = [float(model.gravity[0]), float(model.gravity[1]), 0.0]
        centres, rotations = model.frames(q0)
        names = [b.name for b in model.bodies]
        rigid, nodes = {}, {}
        for i, b in enumerate(model.bodies):
            if b.name in self.beams:
                wb = self.beams[b.name]
                beam = wb.beam
                ends = wb.positions(q0, np.array([[0.0, 0.0], [self.lengths[b.name], 0.0]]))
                cable = ObjectANCFCable2D(massPerLength=float(beam.rho * beam.section.area),
                                          bendingStiffness=float(beam.young * beam.section.inertia),
                                          axialStiffness=float(beam.young * beam.section.area))
                made = GenerateBeamElementsAlongLine(mbs, [*ends[0], 0.0], [*ends[1], 0.0], self.n, cable, gravity=gravity)
                nodes[b.name] = (made["nodes"][0], made["nodes"][-1])
                continue
            angle = math.atan2(rotations[i, 1, 0], rotations[i, 0, 0])
            node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[*map(float, centres[i]), angle]))
            rigid[b.name] = mbs.AddObject(ObjectRigidBody2D(nodeNumber=node, mass=b.mass, inertia=float(np.sum(b.euler))))
            for coordinate in (1, 2):  # prismatic joint along the ground's x: y and the angle held (offsets
                # are on the displacements from the reference coordinates, 0 here)
                held = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=node, coordinate=coordinate))
                mbs.AddObject(CoordinateConstraint(markerNumbers=[ground, held]))
            slider = len(rigid) - 1
            marker = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=node, coordinate=0))
            amplitude = self.LOADS[slider]
            mbs.AddLoad(LoadCoordinate(markerNumber=marker, load=0.0,
                                       loadUserFunction=lambda mbs, t, load, a=amplitude: a * math.sin(self.OMEGA * t)))
        for j in model.joints:
            if j.type == "prismatic":
                continue
            markers = []
            for body, point in ((j.body1, j.point1), (j.body2, j.point2)):
                name = names[body]
                if name in rigid:
                    markers.append(mbs.AddMarker(MarkerBodyPosition(bodyNumber=rigid[name],
                                                                    localPosition=[*map(float, point), 0.0])))
                else:
                    end = 0 if abs(point[0]) < 1e-12 else 1
                    if end and abs(point[0] - self.lengths[name]) > 1e-12:
                        raise ValueError(f"joint {j.name}: not at an end of {name}")
                    markers.append(mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[name][end])))
            mbs.AddObject(ObjectJointRevolute2D(markerNumbers=markers))
        mbs.Assemble()
        return sc, mbs, nodes["platform"][1]


# ---------------------------------------------------------------------------------------------- runs

def femdyn_run(problem, dt, newton, t_end):
    """One run of ``simulate`` (femdyn's time integration as ``femdyn run`` times it), wall and CPU time."""
    settings = SolverSettings(dt=dt, t_end=t_end, integrator="generalized-alpha", rho_inf=problem.rho_inf,
                              tolerance=NEWTON_TOLERANCE, newton=newton,
                              early_stop=problem.early_stop and newton == "full")
    wall, cpu = time.perf_counter(), time.process_time()
    results = simulate(problem.setup, settings)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    steps = settings.steps
    return dict(wall=wall, cpu=cpu, steps=steps, tip=problem.tip(results.q[-1]).tolist(), completed=bool(results.complete),
                failure=None if results.complete else results.message,
                newton_per_step=float(np.sum(results.iterations)) / steps,
                factorisations_per_step=results.factorisations / steps)


def exudyn_run(exu, problem, dt, t_end):
    """One ``SolveDynamic`` of the problem's Exudyn model (built before the clock starts)."""
    sc, mbs, tip_node = problem.exudyn_build(exu)
    settings = exudyn_settings(exu, dt, t_end)
    settings.timeIntegration.generalizedAlpha.spectralRadius = problem.rho_inf
    newton = settings.timeIntegration.newton  # the increment criterion, as femdyn's (module docstring)
    newton.residualMode = 1
    newton.relativeTolerance = newton.absoluteTolerance = NEWTON_TOLERANCE
    cpu = time.process_time()
    run = exudyn_solve(mbs, settings, exu.DynamicSolverType.GeneralizedAlpha, dt, t_end)
    cpu = time.process_time() - cpu
    tip = mbs.GetNodeOutput(tip_node, exu.OutputVariableType.Position)
    del sc
    return dict(wall=run["seconds"], cpu=cpu, steps=run["steps"], tip=[float(x) for x in tip[:problem.model.dim]],
                completed=run["completed"], failure=run["failure"], newton_per_step=run["newton_per_step"],
                factorisations_per_step=run["jacobians"] / run["steps"], extra_steps=run["extra_steps"])


def one_run(code, exu, problem, dt, t_end):
    if code == "Exudyn":
        return exudyn_run(exu, problem, dt, t_end)
    return femdyn_run(problem, dt, "modified" if code == "femdyn modified" else "full", t_end)


def measure(problem, dts, reference_dt, rounds, exu):
    """Every code at every dt in ``rounds`` interleaved rounds (the codes' order rotating), the load
    average before and after each group; then each code's reference run. Returns the raw record."""
    t_end = problem.t_end
    for code in CODES:  # warm-up, untimed: first calls, numba's kernels loaded
        one_run(code, exu, problem, dts[0], 5 * dts[0])
    runs = {code: {dt: [] for dt in dts} for code in CODES}
    groups = []
    for r in range(rounds):
        for i, dt in enumerate(dts):
            shift = (r + i) % len(CODES)
            order = CODES[shift:] + CODES[:shift]
            before = os.getloadavg()[0]
            for code in order:
                runs[code][dt].append(one_run(code, exu, problem, dt, t_end))
            after = os.getloadavg()[0]
            groups.append(dict(round=r, dt=dt, order=order, load_before=before, load_after=after))
            line = "  ".join(f"{c} {runs[c][dt][-1]['wall']:.3f}/{runs[c][dt][-1]['cpu']:.3f} s" for c in CODES)
            print(f"  [{problem.label}] round {r + 1} dt {dt:<7g} {line}   (wall/CPU; load {before:.2f} -> {after:.2f})",
                  flush=True)
    references = {}
    for code in ("femdyn", "Exudyn"):
        ref = one_run(code, exu, problem, reference_dt, t_end)
        references[code] = dict(dt=reference_dt, tip=ref["tip"], wall=ref["wall"], completed=ref["completed"])
        print(f"  [{problem.label}] {code} reference dt {reference_dt:g}: {problem.point} {np.round(ref['tip'], 9).tolist()} "
              f"({ref['wall']:.1f} s)", flush=True)
    return runs, groups, references


# ---------------------------------------------------------------------------------------------- analysis

def summarise(runs, references):
    """Per code and dt: medians over the rounds, the error against the code's own reference."""
    out = {}
    for code, by_dt in runs.items():
        ref = np.array(references["Exudyn" if code == "Exudyn" else "femdyn"]["tip"])
        rows = []
        for dt, records in by_dt.items():
            first = records[0]
            rows.append(dict(dt=dt, steps=first["steps"], wall=statistics.median(r["wall"] for r in records),
                             cpu=statistics.median(r["cpu"] for r in records), walls=[r["wall"] for r in records],
                             cpus=[r["cpu"] for r in records], completed=all(r["completed"] for r in records),
                             failure=next((r["failure"] for r in records if not r["completed"]), None),
                             error=float(np.abs(np.array(first["tip"]) - ref).max()), tip=first["tip"],
                             newton_per_step=first["newton_per_step"],
                             factorisations_per_step=first["factorisations_per_step"],
                             extra_steps=first.get("extra_steps", 0)))
        out[code] = rows
    return out


def ratio_row(summary, dt, target):
    """femdyn (full, modified) over Exudyn at ``dt`` (standing for the error ``target``, None for none):
    both codes' errors, the medians' ratios (wall, CPU) and the rounds' own wall-time ratios."""
    rows = {code: next(r for r in summary[code] if math.isclose(r["dt"], dt)) for code in CODES}
    e = rows["Exudyn"]
    out = dict(dt=dt, target=target, **{code: dict(wall=r["wall"], cpu=r["cpu"], error=r["error"],
                                                   completed=r["completed"]) for code, r in rows.items()})
    for code in CODES[:2]:
        f = rows[code]
        ok = f["completed"] and e["completed"]
        out[code].update(ratio_wall=f["wall"] / e["wall"] if ok else None, ratio_cpu=f["cpu"] / e["cpu"] if ok else None,
                         round_ratios=[a / b for a, b in zip(f["walls"], e["walls"])] if ok else [])
    return out


def target_of(problem):
    if isinstance(problem, ThreePRR):
        return TARGET_RATIOS["3-PRR"]
    if problem.kind == "spatial":
        return TARGET_RATIOS["spatial"]
    return TARGET_RATIOS["planar 16"] if problem.n <= 16 else TARGET_RATIOS["planar"]


def study(problem, dts, reference_dt, rounds, exu):
    unknowns = problem.model.n + len(problem.setup.active_rows)
    print(f"\n=== {problem.label} (femdyn unknowns {unknowns}) ===", flush=True)
    runs, groups, references = measure(problem, dts, reference_dt, rounds, exu)
    summary = summarise(runs, references)
    targets = TARGETS if len(dts) == len(TARGETS) else [None] * len(dts)
    ratios = [ratio_row(summary, dt, target) for dt, target in zip(dts, targets)]
    loads = [g["load_before"] for g in groups] + [g["load_after"] for g in groups]
    distance = float(np.abs(np.array(references["femdyn"]["tip"]) - np.array(references["Exudyn"]["tip"])).max())
    result = dict(problem=problem.label, femdyn_unknowns=unknowns, rho_inf=problem.rho_inf, t_end=problem.t_end,
                  summary=summary, ratios=ratios, groups=groups, references=references, reference_distance=distance,
                  load=[min(loads), max(loads)], target=target_of(problem))
    print_study(result)
    return result


# ---------------------------------------------------------------------------------------------- output

def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def print_study(res):
    print(f"--- {res['problem']}: medians of the rounds (wall / CPU s), error against the code's own reference ---")
    for code, rows in res["summary"].items():
        for r in rows:
            note = "" if r["completed"] else f"  FAILED: {r['failure']}"
            cut = f", {r['extra_steps']} extra steps" if r["extra_steps"] > 0 else ""
            print(f"  {code:16s} dt {r['dt']:<7g} {r['wall']:8.3f} / {r['cpu']:8.3f} s  error {r['error']:.2e}  "
                  f"Newton/step {r['newton_per_step']:.2f}  factorisations/step {r['factorisations_per_step']:.2f}"
                  f"{cut}{note}")
    print(f"  |femdyn reference - Exudyn reference| = {res['reference_distance']:.2e} m (the models' difference)")
    for row in res["ratios"]:
        aim = f" (standing for the error {row['target']:.0e})" if row["target"] else ""
        errors = ", ".join(f"{c} {row[c]['error']:.2e}" for c in CODES)
        print(f"  at dt {row['dt']:g}{aim}: errors {errors}")
        for code in CODES[:2]:
            f = row[code]
            spread = (f" (rounds {min(f['round_ratios']):.2f}-{max(f['round_ratios']):.2f})"
                      if len(f["round_ratios"]) > 1 else "")
            print(f"    {code:16s}/ Exudyn: wall {f['wall']:.3f} / {row['Exudyn']['wall']:.3f} s = "
                  f"{fmt(f['ratio_wall'], '.2f')}{spread}, CPU {f['cpu']:.3f} / {row['Exudyn']['cpu']:.3f} s = "
                  f"{fmt(f['ratio_cpu'], '.2f')}")
    print(f"  load average during {res['problem']}: {res['load'][0]:.2f}-{res['load'][1]:.2f}", flush=True)


def met(ratio, target):
    """A wall-time ratio for the table, in bold where it meets its target."""
    text = fmt(ratio, ".2f")
    return f"**{text}**" if ratio is not None and math.isfinite(ratio) and ratio <= target else text


def markdown(results):
    """The table to paste into the README."""
    lines = ["| problem | dt (s) | tip error femdyn / Exudyn (m) | femdyn s | femdyn modified s | Exudyn s | "
             "full / Exudyn wall (CPU) | modified / Exudyn wall (CPU) | target | load |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for res in results:
        for row in res["ratios"]:
            f, m, e = (row[c] for c in CODES)
            lines.append(f"| {res['problem']} | {row['dt']:g} | {f['error']:.1e} / {e['error']:.1e} | "
                         f"{f['wall']:.3f} | {m['wall']:.3f} | {e['wall']:.3f} | "
                         f"{met(f['ratio_wall'], res['target'])} ({fmt(f['ratio_cpu'], '.2f')}) | "
                         f"{met(m['ratio_wall'], res['target'])} ({fmt(m['ratio_cpu'], '.2f')}) | <= {res['target']} | "
                         f"{res['load'][0]:.1f}-{res['load'][1]:.1f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a short check: planar N = 16, 64, spatial N = 16, one round, coarser references (dt 2.5e-4), "
                             "the 3-PRR over 0.2 s")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds, medians (default 3; --quick 1)")
    parser.add_argument("--scan", action="store_true", help="the pendulums' errors over SCAN instead (one round): "
                        "the dt each error needs in both codes")
    parser.add_argument("--only", nargs="+", choices=("planar", "spatial", "3prr"), default=("planar", "spatial", "3prr"))
    parser.add_argument("--planar", type=int, nargs="+", default=None, help=f"planar N (default {PLANAR})")
    parser.add_argument("--spatial", type=int, nargs="+", default=None, help=f"spatial N (default {SPATIAL})")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "exudyn_compare.json")
    args = parser.parse_args()
    exu = import_exudyn()
    if exu is None:
        print(MISSING_EXUDYN, file=sys.stderr)
        return 2
    quick = args.quick
    rounds = args.rounds or (QUICK["rounds"] if quick or args.scan else 3)
    steps = SCAN if args.scan else STEPS
    reference_dt = QUICK["reference"] if quick else REFERENCE_DT
    git, load = git_state(), os.getloadavg()
    print(f"femdyn {git['commit']} ({git['subject']})" + (f", uncommitted: {', '.join(git['femdyn_changes'])}"
                                                          if git["femdyn_changes"] else ""))
    print(f"Exudyn {exu.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {rounds} interleaved rounds; one thread; work = femdyn "
          "simulate() (femdyn run's wall_time_s) against Exudyn SolveDynamic, wall and process CPU time")
    start = time.perf_counter()
    problems = []
    if "planar" in args.only:
        problems += [Pendulum("planar", n) for n in (args.planar or (QUICK["planar"] if quick else PLANAR))]
    if "spatial" in args.only:
        problems += [Pendulum("spatial", n) for n in (args.spatial or (QUICK["spatial"] if quick else SPATIAL))]
    results = []
    for problem in problems:
        results.append(study(problem, steps, reference_dt, rounds, exu))
    if "3prr" in args.only and not args.scan:
        prr = ThreePRR(PRR_ELEMENTS, QUICK["prr_t_end"] if quick else PRR_T_END)
        results.append(study(prr, (prr.dt,), prr.dt / 8, rounds, exu))
    table = markdown(results)
    seconds = time.perf_counter() - start
    end = os.getloadavg()
    print(f"\n--- femdyn / Exudyn (femdyn {git['commit']}, Exudyn {exu.__version__}; load average {load[0]:.2f} at the "
          f"start, {end[0]:.2f} at the end; {seconds:.0f} s) ---\n{table}")
    meta = dict(femdyn_git=git, exudyn=exu.__version__, python=platform.python_version(), cpus=os.cpu_count(),
                rounds=rounds, quick=quick, steps=steps, reference_dt=reference_dt, targets=TARGETS,
                newton_tolerance=NEWTON_TOLERANCE, load_start=load, load_end=end, seconds=seconds,
                command=" ".join(sys.argv),
                work=dict(femdyn="integrators.time_loop.simulate (femdyn run's wall_time_s)", exudyn="mbs.SolveDynamic"),
                femdyn=dict(integrator="generalized-alpha (index 3)", newton="full (3-PRR: the case's full "
                            "with early stop, its default); modified (simplified: the pendulums' default)", tolerance="error estimate of q <= 1e-10 max(1, |q|)"),
                exudyn_settings=dict(integrator="generalized-alpha (index 3)", newton="modified, residualMode 1 "
                                     "(increment), relative = absolute tolerance 1e-10", linear_solver="EigenSparse, "
                                     "reuseAnalyzedPattern", threads=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(dict(meta=meta, results=results, markdown=table), indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
