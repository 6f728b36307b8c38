"""Time per step and peak memory of femdyn's 3D flexible pendulum against the planar one
(N = 16 to 4096 elements, one fresh process per run, interleaved).

The models (``pendulum``): one straight steel beam, L = 1 m, 10 x 10 mm (E = 2.1e11 Pa, nu = 0.3,
rho = 7850 kg/m^3: EA = 2.1e7 N, EI = 175 N m^2, GJ = 1.1e2 N m^2, rho A = 0.785 kg/m), N equal
world-vector Euler-Bernoulli elements (``BeamBody(..., axial="cubic")``, fixed-free reference
conditions, geometric stiffening), held at its first node:

* spatial (the world-vector beams of ``femdyn.beam.world``, 003 eq. 38 with the second bending plane
  and torsion): a spherical joint to the ground, gravity 9.81 m/s^2 along -z, released
  horizontal (along +x) and undeformed, turning rigidly at ``SPIN`` = 2 rad/s about the vertical
  (the joint's point at rest): a spherical pendulum that falls while it swings round, bending in
  both planes (and twisting a little); 8 unknowns per node (w, s: 3 each, the twist psi, the row
  s . d_1 = 0);
* planar: a revolute joint to the ground, gravity along -y, released horizontal from rest: the
  planar world-vector beam of the same N (5 unknowns per node), the same element in the plane;
* ``--with-ffr`` adds the planar pendulum of ``scaling.py`` / ``exudyn_flexible.py``: the FFR beam
  with carriers and the linear axial shape (003), the planar default of ``BeamBody``.

Each run is a fresh Python process (``--worker``), so that its peak memory is its own: 3 warm-up
steps (first calls, numba's cached kernels), then ``--steps`` steps at ``--dt`` from the release
with a new stepper (its construction timed apart); time per step, Newton iterations per step,
``ru_maxrss`` of the process (everything: Python, NumPy/SciPy, numba, KLU) and the same after the
imports (the baseline). The models of one N are measured interleaved: ``--rounds`` rounds (default
3) alternating the order (planar, spatial / spatial, planar / ...), medians over the rounds; the
3D/planar ratio is given both as the ratio of the medians and as the median of the rounds' ratios
(each from two runs made one after the other).

Prints a table per N, the 3D/planar ratio (target: at most 3), the growth of the 3D time per step from
N = 256 to 4096 (linear: 16) and its fitted exponent, and the peak memory at N = 4096 (target:
< 1 GiB); writes JSON. A benchmark, not a test: nothing is asserted.

``SpatialPendulum`` is also the problem class of ``exudyn_compare.py``.

Usage: python benchmarks/spatial_pendulum.py [--elements 16 32 .. 4096] [--steps 200] [--dt 1e-3]
                                             [--rounds 3] [--with-ffr] [--json FILE]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):  # one thread
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

import numpy as np

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.setup import prepare
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

ELEMENTS = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
LENGTH, WIDTH, DEPTH, YOUNG, DENSITY, POISSON = 1.0, 0.01, 0.01, 2.1e11, 7850.0, 0.3
GRAVITY = 9.81
SPIN = 2.0  # rad/s about the vertical at the release (spatial model)
TARGET_RATIO, TARGET_MEMORY = 3.0, 1024.0  # 3D / planar time per step; MiB at N = 4096
GROWTH_FROM, GROWTH_TO = 256, 4096
MODELS = {"planar": "planar world-vector beam, revolute joint",
          "spatial": "3D world-vector beam, spherical joint",
          "ffr": "planar FFR beam (carriers, linear axial shape), revolute joint"}
MIB = 1024.0  # ru_maxrss is in KiB on Linux


def pendulum(kind, n_elements):
    """(model, setup, beam) of the pendulum ``kind`` (``MODELS``) with ``n_elements`` elements."""
    dim = 3 if kind == "spatial" else 2
    options = dict(axial="cubic") if kind != "ffr" else {}
    if dim == 3:
        options["poisson"] = POISSON
    beam = BeamBody.straight(LENGTH, n_elements, Section.rectangle(WIDTH, DEPTH), YOUNG, DENSITY, dim=dim, **options)
    b = ModelBuilder(dim)
    b.add_beam("beam", beam, stiffening=True)
    b.add_joint("pin", "spherical" if dim == 3 else "revolute", "ground", "beam")  # at the first node, the origin
    b.set_gravity([0.0, -GRAVITY] if dim == 2 else [0.0, 0.0, -GRAVITY])
    model = b.build()
    pose = {"position": np.zeros(dim)}
    if dim == 3:
        pose["angular_velocity"] = np.array([0.0, 0.0, SPIN])
    q, v = place(model, {"beam": pose}, {})
    return model, prepare(model, q, v), beam


class SpatialPendulum:
    """The spatial pendulum as a problem class of ``exudyn_compare.py``: ``model``, ``setup``,
    ``tip(q)`` (world position of the free end), and its Exudyn twin (``exudyn_build``)."""

    title, point = "spatial flexible pendulum", "tip"

    def __init__(self, n_elements):
        self.n_elements = n_elements
        self.model, self.setup, beam = pendulum("spatial", n_elements)
        section = beam.section
        self.length = float(beam.nodes[-1, 0] - beam.nodes[0, 0])
        self.axial = float(beam.young * section.area)  # EA
        self.bending = float(beam.young * section.iz)  # EI (= E I_y: square section)
        self.mass_per_length = float(beam.rho * section.area)  # rho A
        self.gravity = (0.0, 0.0, -GRAVITY)
        self.spin = np.array([0.0, 0.0, SPIN])
        self.tip_point = np.array([[self.length, 0.0, 0.0]])

    def tip(self, q):
        return self.model.worlds[0].positions(q, self.tip_point)[0]

    def exudyn_build(self, exu):
        """The same pendulum in Exudyn (``exudyn_compare.py``): N 3D ANCF cable elements (``ObjectANCFCable``
        on ``NodePointSlope1``: axial strain and bending, no shear, no torsion, no rotary inertia: the
        Euler-Bernoulli physics of femdyn's element for a square section, which twists hardly at all here)
        with the same EA, EI, rho A, the first node's position held by three ``CoordinateConstraint``s (its
        slope free: a ball joint), every node moving with the rigid rotation at the release (omega x r,
        omega x e_x). Returns (system container, mbs, the tip node)."""
        from exudyn.beams import GenerateBeamElementsAlongLine
        from exudyn.itemInterface import ObjectANCFCable
        sc = exu.SystemContainer()
        mbs = sc.AddSystem()
        cable = ObjectANCFCable(massPerLength=self.mass_per_length, bendingStiffness=self.bending,
                                axialStiffness=self.axial)
        beam = GenerateBeamElementsAlongLine(mbs, [0.0, 0.0, 0.0], [self.length, 0.0, 0.0], self.n_elements, cable,
                                             gravity=list(self.gravity), groundConstraintsStart=[1, 1, 1, 0, 0, 0])
        slope_rate = np.cross(self.spin, [1.0, 0.0, 0.0])
        for node, position in zip(beam["nodes"], beam["nodePositions"]):
            mbs.SetNodeParameter(node, "initialVelocities", [*np.cross(self.spin, position), *slope_rate])
        mbs.Assemble()
        return sc, mbs, beam["nodes"][-1]


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / MIB


def worker(kind, n, steps, dt):
    """One run in this (fresh) process; prints one JSON line."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from chain import run_steps

    from femdyn.integrators.energy_momentum import EnergyMomentum
    baseline = peak_rss_mib()
    start = time.perf_counter()
    model, setup, _ = pendulum(kind, n)
    build = time.perf_counter() - start
    run_steps(model, setup, EnergyMomentum(model, dt, setup.active_rows), 3)  # warm-up: first-call costs
    start = time.perf_counter()
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    construction = time.perf_counter() - start
    q, _, iterations, seconds = run_steps(model, setup, stepper, steps)
    world = model.worlds[0] if model.worlds else None
    tip = (world.positions(q, [np.eye(model.dim)[0] * LENGTH])[0] if world is not None
           else model.flexible[0].positions(q, np.array([[LENGTH, 0.0]]))[0])
    print(json.dumps(dict(model=kind, elements=n, unknowns=stepper.size, steps=steps, dt=dt, build_seconds=build,
                          construction_seconds=construction, ms_per_step=1e3 * seconds / steps,
                          newton_per_step=iterations / steps, ms_per_iteration=1e3 * seconds / iterations,
                          tip=np.asarray(tip).tolist(), rss_baseline_mib=baseline, rss_peak_mib=peak_rss_mib())))


def spawn(kind, n, args):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--elements", str(n),
           "--steps", str(args.steps), "--dt", repr(args.dt)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{kind} N = {n} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def slope(pairs):
    """Least-squares exponent p of y ~ N^p over the (N, y) pairs."""
    pts = [(math.log(n), math.log(y)) for n, y in pairs]
    if len(pts) < 2:
        return None
    mx, my = sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)


def measure(n, kinds, args):
    """``args.rounds`` rounds of every model at N = n, the order alternating; medians."""
    runs = {kind: [] for kind in kinds}
    for k in range(args.rounds):
        for kind in (kinds if k % 2 == 0 else kinds[::-1]):
            runs[kind].append(spawn(kind, n, args))
    row = dict(elements=n)
    for kind, rs in runs.items():
        row[kind] = dict(unknowns=rs[0]["unknowns"], ms_per_step=statistics.median(r["ms_per_step"] for r in rs),
                         rounds_ms_per_step=[r["ms_per_step"] for r in rs],
                         newton_per_step=statistics.median(r["newton_per_step"] for r in rs),
                         ms_per_iteration=statistics.median(r["ms_per_iteration"] for r in rs),
                         construction_seconds=statistics.median(r["construction_seconds"] for r in rs),
                         build_seconds=statistics.median(r["build_seconds"] for r in rs),
                         rss_peak_mib=max(r["rss_peak_mib"] for r in rs),
                         rss_baseline_mib=statistics.median(r["rss_baseline_mib"] for r in rs), tip=rs[0]["tip"])
    if "planar" in runs and "spatial" in runs:
        rounds = [s["ms_per_step"] / p["ms_per_step"] for p, s in zip(runs["planar"], runs["spatial"])]
        row["ratio_spatial_planar"] = row["spatial"]["ms_per_step"] / row["planar"]["ms_per_step"]
        row["ratio_spatial_planar_rounds"] = rounds
        row["ratio_spatial_planar_median_of_rounds"] = statistics.median(rounds)
        row["ratio_per_iteration"] = row["spatial"]["ms_per_iteration"] / row["planar"]["ms_per_iteration"]
    if "ffr" in runs and "spatial" in runs:
        row["ratio_spatial_ffr"] = row["spatial"]["ms_per_step"] / row["ffr"]["ms_per_step"]
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=ELEMENTS)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per N, medians (default 3)")
    parser.add_argument("--with-ffr", action="store_true",
                        help="also the planar FFR pendulum of scaling.py (the planar default of BeamBody)")
    parser.add_argument("--json", default=str(Path(__file__).resolve().parent / "results" / "spatial_pendulum.json"))
    parser.add_argument("--worker", choices=list(MODELS), default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.elements[0], args.steps, args.dt)
        return 0

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from provenance import git_state
    load, git = os.getloadavg(), git_state()
    kinds = ["planar", "spatial"] + (["ffr"] if args.with_ffr else [])
    print(f"femdyn at {git['commit']} ({git['subject']})"
          + (f", with uncommitted changes: {', '.join(git['femdyn_changes'])}" if git["femdyn_changes"] else ""))
    print(f"flexible pendulums ({', '.join(kinds)}), energy-momentum, full Newton: {args.steps} steps at dt = "
          f"{args.dt:g}, one fresh process per run, {args.rounds} interleaved rounds per N, medians; Python "
          f"{platform.python_version()}, {os.cpu_count()} CPUs, load average {load[0]:.2f}", flush=True)
    rows = []
    for n in args.elements:
        row = measure(n, kinds, args)
        rows.append(row)
        text = ", ".join(f"{k} {row[k]['ms_per_step']:.2f} ms ({row[k]['newton_per_step']:.2f} Newton)" for k in kinds)
        print(f"  N = {n:5d}: {text}; 3D/planar {row['ratio_spatial_planar']:.2f} (rounds "
              + ", ".join(f"{r:.2f}" for r in row["ratio_spatial_planar_rounds"])
              + f"), peak RSS 3D {row['spatial']['rss_peak_mib']:.0f} MiB", flush=True)

    head = f"{'N':>6s} " + " ".join(f"{k + ' unk':>12s} {k + ' ms':>11s} {'Newton':>6s}" for k in kinds)
    print("\n" + head + f" {'3D/planar':>9s} {'median rnd':>10s} {'per iter':>8s} {'3D growth':>9s} "
          f"{'RSS 3D':>7s} {'RSS 2D':>7s}" + (f" {'3D/FFR':>7s}" if args.with_ffr else ""))
    for k, row in enumerate(rows):
        growth = row["spatial"]["ms_per_step"] / rows[k - 1]["spatial"]["ms_per_step"] if k else float("nan")
        row["spatial_growth_per_step"] = growth
        print(f"{row['elements']:6d} " + " ".join(f"{row[m]['unknowns']:12d} {row[m]['ms_per_step']:11.2f} "
                                                  f"{row[m]['newton_per_step']:6.2f}" for m in kinds)
              + f" {row['ratio_spatial_planar']:9.2f} {row['ratio_spatial_planar_median_of_rounds']:10.2f} "
                f"{row['ratio_per_iteration']:8.2f} {growth:9.2f} {row['spatial']['rss_peak_mib']:7.0f} "
                f"{row['planar']['rss_peak_mib']:7.0f}"
              + (f" {row.get('ratio_spatial_ffr', 0):7.2f}" if args.with_ffr else ""))
    by_n = {r["elements"]: r for r in rows}
    summary = dict(max_ratio_spatial_planar=max(r["ratio_spatial_planar"] for r in rows), target_ratio=TARGET_RATIO,
                   exponent_spatial_all=slope([(r["elements"], r["spatial"]["ms_per_step"]) for r in rows]),
                   exponent_spatial_256_4096=slope([(r["elements"], r["spatial"]["ms_per_step"]) for r in rows
                                                    if GROWTH_FROM <= r["elements"] <= GROWTH_TO]),
                   exponent_planar_256_4096=slope([(r["elements"], r["planar"]["ms_per_step"]) for r in rows
                                                   if GROWTH_FROM <= r["elements"] <= GROWTH_TO]))
    worst = max(rows, key=lambda r: r["ratio_spatial_planar"])
    print(f"\n3D / planar time per step: {min(r['ratio_spatial_planar'] for r in rows):.2f} to "
          f"{summary['max_ratio_spatial_planar']:.2f} (largest at N = {worst['elements']}; target <= {TARGET_RATIO:g})")
    if GROWTH_FROM in by_n and GROWTH_TO in by_n:
        a, b = by_n[GROWTH_FROM]["spatial"], by_n[GROWTH_TO]["spatial"]
        summary.update(growth_spatial=b["ms_per_step"] / a["ms_per_step"],
                       growth_spatial_per_iteration=b["ms_per_iteration"] / a["ms_per_iteration"],
                       linear_growth=GROWTH_TO / GROWTH_FROM)
        print(f"3D time per step N = {GROWTH_TO} / N = {GROWTH_FROM}: {summary['growth_spatial']:.1f} (linear "
              f"{GROWTH_TO // GROWTH_FROM}); per Newton iteration {summary['growth_spatial_per_iteration']:.1f}")
    for key, label in (("exponent_spatial_256_4096", "3D, N = 256-4096"), ("exponent_planar_256_4096",
                                                                            "planar, N = 256-4096"),
                       ("exponent_spatial_all", f"3D, N = {rows[0]['elements']}-{rows[-1]['elements']}")):
        if summary[key] is not None:
            print(f"fitted exponent of time per step ~ N^p, {label}: p = {summary[key]:.2f}")
    if GROWTH_TO in by_n:
        r = by_n[GROWTH_TO]["spatial"]
        summary.update(peak_rss_mib_spatial_at_4096=r["rss_peak_mib"], target_memory_mib=TARGET_MEMORY)
        print(f"peak memory (RSS) of the 3D run at N = {GROWTH_TO}: {r['rss_peak_mib']:.0f} MiB (target < "
              f"{TARGET_MEMORY:.0f} MiB; {r['rss_peak_mib'] - r['rss_baseline_mib']:.0f} MiB above the "
              f"{r['rss_baseline_mib']:.0f} MiB of the imports)")
    meta = dict(benchmark="flexible pendulum, 3D against planar: time per step and peak memory against N",
                femdyn_git=git, models={k: MODELS[k] for k in kinds}, spin=SPIN, steps=args.steps, dt=args.dt,
                rounds=args.rounds, integrator="energy-momentum, full Newton", python=platform.python_version(),
                machine=platform.machine(), cpus=os.cpu_count(), load_average_start=load,
                load_average_end=os.getloadavg(),
                memory="ru_maxrss of a fresh process per run (KiB -> MiB), the largest of the rounds; baseline = "
                       "after the imports")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(meta=meta, summary=summary, rows=rows), indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
