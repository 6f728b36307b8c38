"""Work-precision comparison with Exudyn: a flexible four-bar falling under gravity
(femdyn/Exudyn wall time at equal error of the coupler midpoint, N = 4, 16, 64 elements per link).

The model. A planar crank-rocker (Grashof) four-bar, all three moving links flexible steel beams of
10 x 10 mm (E = 2.1e11 Pa, rho = 7850 kg/m^3: EA = 2.1e7 N, EI = 175 N m^2, rho A = 0.785 kg/m,
rho I = 6.54e-6 kg m), the ground pivots A = (0, 0) and D = (1.1, 0) m: crank A-B 0.5 m, coupler B-C
1 m, rocker D-C 0.9 m, revolute joints at A, B, C, D (the pins sit on the beams' end nodes). Released
from rest and undeformed with the crank at 60 degrees and C above the line B-D, gravity 9.81 m/s^2 in
-y, no drive, no damping; 1 s of motion (the crank turns about 0.9 rad back down, the links vibrate
about their bent shapes). N = elements per link (even: the output is the coupler's middle node).

* femdyn: three FFR Euler-Bernoulli beams with geometric stiffening (``BeamBody.straight``,
  ``ModelBuilder.add_beam(stiffening=True)``), reference conditions ``pinned-rolled`` (the body frame
  is the chord through the end nodes, 003 section 4), four ``revolute`` joints, the BEM
  energy-momentum stepper, KLU.
* Exudyn: per link N ``ObjectANCFCable2D`` elements on ``NodePoint2DSlope1`` nodes
  (``GenerateBeamElementsAlongLine``, ``LoadMassProportional`` gravity) with EA, EI, rho A and the end
  points read from the femdyn model; A and D: the first node's x, y held by ``CoordinateConstraint``s;
  B and C: ``ObjectJointRevolute2D`` between ``MarkerNodePosition``s of the two links' end nodes.
  Solver as in ``exudyn_flexible.py``: generalized-alpha
  (rho_inf 0.9, index 3), modified Newton with the increment criterion (``newton.residualMode = 1``,
  tolerances 1e-10; the docstring there says why), Eigen sparse LU, one thread.

Making the two models the same (measured while writing this script, N = 4 and 16, dt down to 1.25e-4):

- Rotary inertia. femdyn's body frame carries the sections' rotary inertia (the second moment of
  a beam body includes rho I L, ``beam.elements.BeamElements.invariants``); the ANCF cable has none.
  That alone moves the coupler midpoint by about 2e-5 m at t = 1 s (1.8e-5 m on a rigid femdyn
  four-bar with and without it), the whole distance between the references. The timed Exudyn model
  is the plain cable, its own element (a fair timing; the errors are against each code's own
  reference, so the model difference does not enter them). To show that the rotary inertia is the
  whole difference, each N's Exudyn reference is run once more with it added -- one
  ``ObjectGenericODE2`` per element with the constant mass matrix rho I int S'^T S' dx (kinetic
  energy rho I / 2 int |dr'/dt|^2, the section rotation rate squared up to the axial strain rate),
  from the closed-form slope integrals of the cubic Hermite functions -- and its distance to femdyn's
  reference is reported ("same physics"). ``--exudyn-rotary-inertia`` times that model instead: it
  costs Exudyn about 10 % (N = 4) to 40 % (N = 64) more; one such object per link with a sparse mass
  matrix cost 2.6 times the plain cable at N = 64. femdyn has no rotary inertia of the bending
  rotations, the added term has: a difference of order (h/L)^2 of the bending, below what is measured.
- Reference conditions. With femdyn's default ``fixed-free`` (frame tangent at the first node) the
  chord of each link turns against its frame by the end slope, and the stiffening strain u' + w'^2 / 2
  (linear u, cubic w) then locks: the N = 4 result was 1.5e-4 m from the N = 16 one (Exudyn: 7e-6),
  and at dt = 2.5e-4 femdyn took 3 Newton iterations per step instead of 2. The chord frame
  (``pinned-rolled``) is the natural one for a link pinned at both ends and has neither problem.
- Geometric stiffening is needed: without it femdyn's midpoint moves by 2e-5 m (N = 16).

Error: max-norm of the coupler midpoint position at t = 1 s against the code's own reference, its run
at ``REFERENCE_DT``, whose error is estimated by the distance to the run at 2 ``REFERENCE_DT``; the
distance between the two codes' references (small-strain FFR against the geometrically exact cable) is
reported next to them and bounds the "same physics" claim. Work: wall time of the time integration
(femdyn: stepper construction + steps; Exudyn: SolveDynamic), median of ``--repeat`` runs; building
the models is left out. The study (runs, references, same-dt and equal-error ratios, lower bounds,
femdyn's time split), the printers, the plot and the command line are those of
``exudyn_flexible.py``, with this model passed in; the analysis helpers come from ``exudyn_chain.py``.

Sources: the FFR beam and the reference conditions: femdyn's notes 003 (sections 4, 8); the ANCF cable
element and the solver settings: the Exudyn 1.13.6 documentation (ObjectANCFCable2D,
ObjectGenericODE2, ObjectJointRevolute2D, GenerateBeamElementsAlongLine). Exudyn is an optional
benchmark dependency, never a runtime one (``.venv/bin/pip install exudyn``). This is a benchmark
(figures, JSON and a PNG), not a test.

Usage: python benchmarks/exudyn_fourbar.py [--elements 4 16 64] [--quick] [--repeat 3]
                                           [--out results/bench_exudyn_fourbar] [--profile]
                                           [--exudyn-rotary-inertia]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread, both codes
    os.environ.setdefault(_var, "1")

import functools
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exudyn_chain import FEMDYN_NEWTON, MISSING_EXUDYN, import_exudyn
from exudyn_flexible import (
    DENSITY,
    DEPTH,
    GRAVITY,
    WIDTH,
    YOUNG,
    argument_parser,
    exudyn_run,
    mesh_convergence,
    plan,
    print_header,
    print_summary,
    run_meta,
    save,
    study,
)

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.setup import prepare
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

GROUND, CRANK, COUPLER, ROCKER = 1.1, 0.5, 1.0, 0.9  # m: a crank-rocker (0.5 + 1.1 < 1.0 + 0.9)
CRANK_ANGLE = math.pi / 3
REFERENCE_CONDITIONS = "pinned-rolled"
ELEMENTS = [4, 16, 64]  # per link
DTS = [1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2.5e-4]  # the last is 2 REFERENCE_DT: it also gives the reference's error
REFERENCE_DT = 1.25e-4
QUICK = dict(elements=[4], dts=[1e-2, 5e-3, 2e-3, 1e-3, 5e-4], reference=2.5e-4, repeat=1)


def joint_points():
    """A, B, C, D at the release: B from the crank angle, C above the line B-D at the coupler's and
    the rocker's lengths from B and D."""
    a, d = np.zeros(2), np.array([GROUND, 0.0])
    b = CRANK * np.array([math.cos(CRANK_ANGLE), math.sin(CRANK_ANGLE)])
    bd = d - b
    dist = float(np.hypot(*bd))
    along = (COUPLER**2 - ROCKER**2 + dist**2) / (2.0 * dist)
    across = math.sqrt(COUPLER**2 - along**2)
    c = b + (along * bd + across * np.array([-bd[1], bd[0]])) / dist
    return a, b, c, d


# ---------------------------------------------------------------------------------------------- femdyn

class FemdynFourBar:
    """femdyn's flexible four-bar and the data Exudyn needs (a problem class of ``exudyn_flexible.study``)."""

    title, point = "flexible four-bar", "coupler midpoint"

    def __init__(self, n_elements, rotary_inertia=False):
        if n_elements % 2:
            raise ValueError(f"N must be even (the coupler midpoint is a node), got {n_elements}")
        self.n_elements, self.rotary_inertia = n_elements, rotary_inertia
        a, b, c, d = joint_points()
        ends = {"crank": (a, b), "coupler": (b, c), "rocker": (d, c)}
        lengths = {"crank": CRANK, "coupler": COUPLER, "rocker": ROCKER}
        builder = ModelBuilder(2)
        poses = {}
        for name, (start, end) in ends.items():
            beam = BeamBody.straight(lengths[name], n_elements, Section.rectangle(WIDTH, DEPTH), YOUNG, DENSITY,
                                     reference=REFERENCE_CONDITIONS)
            builder.add_beam(name, beam, stiffening=True)
            chord = end - start
            poses[name] = dict(position=start, angle=math.atan2(chord[1], chord[0]))
        # joint points in body frames: a link's first node is its frame origin, its last node (L, 0)
        builder.add_joint("A", "revolute", "ground", "crank", point1=a)
        builder.add_joint("B", "revolute", "crank", "coupler", point1=[CRANK, 0.0])
        builder.add_joint("C", "revolute", "coupler", "rocker", point1=[COUPLER, 0.0], point2=[ROCKER, 0.0])
        builder.add_joint("D", "revolute", "ground", "rocker", point1=d)
        builder.set_gravity(list(GRAVITY))
        self.model = builder.build()
        q, v = place(self.model, poses, {})
        self.setup = prepare(self.model, q, v)

        self.links = {f.name: f for f in self.model.flexible}
        beam = self.links["crank"].beam
        self.axial = float(beam.young * beam.section.area)  # EA
        self.bending = float(beam.young * beam.section.inertia)  # EI
        self.mass_per_length = float(beam.rho * beam.section.area)  # rho A
        self.rotary = float(beam.rho * beam.section.inertia)  # rho I
        self.ends = {name: f.positions(self.setup.q0, [[0.0, 0.0], [lengths[name], 0.0]])
                     for name, f in self.links.items()}  # first and last node at the release
        self.midpoint = np.array([[COUPLER / 2.0, 0.0]])

    def tip(self, q):
        """The output point: the coupler midpoint."""
        return self.links["coupler"].positions(q, self.midpoint)[0]

    @property
    def exudyn_coordinates(self):
        return 3 * 4 * (self.n_elements + 1)

    def exudyn_build(self, exu):
        return exudyn_build(exu, self)


# ---------------------------------------------------------------------------------------------- Exudyn

def rotary_inertia(h, rho_i):
    """rho I int S'^T S' dx of one ANCF cable element of length h, on its nodal coordinates
    [x, y, x', y'] of both nodes (8 x 8): the slope integrals of the cubic Hermite functions,
    [[36, 3h, -36, 3h], [3h, 4h^2, -3h, -h^2], [-36, -3h, 36, -3h], [3h, -h^2, -3h, 4h^2]] / (30 h),
    times the 2 x 2 identity for the x and y components."""
    scalar = np.array([[36.0, 3 * h, -36.0, 3 * h], [3 * h, 4 * h * h, -3 * h, -h * h],
                       [-36.0, -3 * h, 36.0, -3 * h], [3 * h, -h * h, -3 * h, 4 * h * h]]) * rho_i / (30.0 * h)
    return np.kron(scalar, np.eye(2))


def exudyn_build(exu, fb):
    """The same four-bar in Exudyn: three ANCF cable chains, pinned to the ground at A and D and to
    each other at B and C; returns the system container, the system and the coupler's middle node."""
    from exudyn.beams import GenerateBeamElementsAlongLine
    from exudyn.itemInterface import (
        MarkerNodePosition,
        ObjectANCFCable2D,
        ObjectGenericODE2,
        ObjectJointRevolute2D,
    )
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    cable = ObjectANCFCable2D(massPerLength=fb.mass_per_length, bendingStiffness=fb.bending, axialStiffness=fb.axial)
    nodes = {}
    for name, (start, end) in fb.ends.items():
        pinned = [1, 1, 0, 0] if name in ("crank", "rocker") else None  # A, D: x, y held, slope free
        beam = GenerateBeamElementsAlongLine(mbs, [start[0], start[1], 0.0], [end[0], end[1], 0.0], fb.n_elements,
                                             cable, gravity=[GRAVITY[0], GRAVITY[1], 0.0],
                                             groundConstraintsStart=pinned)
        nodes[name] = list(beam["nodes"])
        if fb.rotary_inertia:  # one constant-mass object per element (one per link is slower: docstring)
            block = rotary_inertia(float(np.hypot(*(end - start))) / fb.n_elements, fb.rotary)
            for pair in zip(nodes[name][:-1], nodes[name][1:]):
                mbs.AddObject(ObjectGenericODE2(nodeNumbers=list(pair), massMatrix=exu.MatrixContainer(block)))
    for first, second in ((nodes["crank"][-1], nodes["coupler"][0]),  # B
                          (nodes["coupler"][-1], nodes["rocker"][-1])):  # C
        markers = [mbs.AddMarker(MarkerNodePosition(nodeNumber=n)) for n in (first, second)]
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=markers))
    mbs.Assemble()
    return sc, mbs, nodes["coupler"][fb.n_elements // 2]


# ---------------------------------------------------------------------------------------------- main

def same_physics_check(exu, res, args):
    """The Exudyn reference run again with the sections' rotary inertia added: its distance to femdyn's
    reference is the model difference left once both models carry the same inertia."""
    fb = FemdynFourBar(res["elements"], rotary_inertia=True)
    run = exudyn_run(exu, fb, args.reference_dt, args.exudyn_residual_newton)
    point = np.array(run["tip"])
    refs = res["references"]
    check = dict(dt=args.reference_dt, tip=point.tolist(), seconds=run["seconds"], completed=run["completed"],
                 distance_to_femdyn=float(np.abs(point - refs["femdyn"]["tip"]).max()),
                 rotary_inertia_effect=float(np.abs(point - refs["exudyn"]["tip"]).max()))
    print(f"  same physics: Exudyn + rotary inertia, dt = {args.reference_dt:g} ({run['seconds']:.1f} s): "
          f"coupler midpoint = ({point[0]:.10f}, {point[1]:.10f}), {check['distance_to_femdyn']:.2e} from femdyn's "
          f"reference, {check['rotary_inertia_effect']:.2e} from the plain cable's", flush=True)
    return check


def print_check(results):
    print("\n--- same physics: the references with and without the sections' rotary inertia in Exudyn ---")
    for res in results:
        refs, check = res["references"], res.get("same_physics")
        line = (f"N = {res['elements']:4d}: |femdyn - Exudyn plain cable| = {res['reference_distance']['value']:.2e}")
        if check:
            line += (f", |femdyn - Exudyn + rotary inertia| = {check['distance_to_femdyn']:.2e} "
                     f"(rotary inertia moves Exudyn's point by {check['rotary_inertia_effect']:.2e})")
        print(line + f"; reference error estimates femdyn {refs['femdyn']['error_estimate']:.1e}, "
                     f"Exudyn {refs['exudyn']['error_estimate']:.1e}")


def main():
    parser = argument_parser(__doc__.splitlines()[0], "bench_exudyn_fourbar", QUICK,
                             f"elements per link, even (default {' '.join(map(str, ELEMENTS))})")
    parser.add_argument("--exudyn-rotary-inertia", action="store_true",
                        help="time Exudyn with the sections' rotary inertia added (femdyn's physics, slower); by "
                             "default the plain cable is timed and the addition only checks the references")
    args = parser.parse_args()
    plan(args, dict(elements=ELEMENTS, dts=DTS, reference=REFERENCE_DT), QUICK)
    if any(n % 2 for n in args.elements):
        parser.error("--elements: N must be even (the output is the coupler's middle node)")
    exu = import_exudyn()
    if exu is None:
        print(MISSING_EXUDYN, file=sys.stderr)
        return 2
    load, git = print_header(exu, args)

    start = time.perf_counter()
    problem = functools.partial(FemdynFourBar, rotary_inertia=args.exudyn_rotary_inertia)
    results = []
    for n in args.elements:
        results.append(study(n, args, exu, problem))
        if not args.exudyn_rotary_inertia:
            results[-1]["same_physics"] = same_physics_check(exu, results[-1], args)
    mesh = mesh_convergence(results) if len(results) > 1 else {}
    print_summary(results, mesh)
    print_check(results)
    a, b, c, d = joint_points()
    meta = dict(benchmark="flexible four-bar (crank-rocker, steel links 10 x 10 mm, gravity, from rest), "
                          "femdyn vs Exudyn",
                error="coupler midpoint position max-norm at t_end against the code's own reference "
                      "(stored under the key 'tip')",
                geometry=dict(ground=GROUND, crank=CRANK, coupler=COUPLER, rocker=ROCKER, crank_angle=CRANK_ANGLE,
                              joints=dict(A=a.tolist(), B=b.tolist(), C=c.tolist(), D=d.tolist())),
                section=dict(width=WIDTH, depth=DEPTH, young=YOUNG, density=DENSITY, gravity=GRAVITY),
                **run_meta(exu, args, load, git),
                femdyn=dict(model=f"three FFR Euler-Bernoulli beams, geometric stiffening, {REFERENCE_CONDITIONS} "
                                  "reference conditions, four revolute joints", scheme=args.femdyn_integrator,
                            newton=FEMDYN_NEWTON[args.femdyn_newton], linear_solver="KLU (fixed pattern)",
                            timing="stepper construction + steps"),
                exudyn=dict(model="ObjectANCFCable2D + NodePoint2DSlope1 per link (GenerateBeamElementsAlongLine), "
                                  "CoordinateConstraint x, y at A and D, ObjectJointRevolute2D + MarkerNodePosition "
                                  "at B and C, LoadMassProportional"
                                  + (", section rotary inertia as one ObjectGenericODE2 (constant mass matrix) per "
                                     "element" if args.exudyn_rotary_inertia else
                                     " (no rotary inertia; it is added only for the same-physics check)"),
                            scheme="generalized-alpha, spectral radius 0.9, index 3",
                            newton=("modified (default), default residual criterion" if args.exudyn_residual_newton else
                                    "modified (default), residualMode 1 (increment), relative = absolute tolerance 1e-10"),
                            linear_solver="EigenSparse, reuseAnalyzedPattern", threads=1, timing="mbs.SolveDynamic"),
                total_seconds=time.perf_counter() - start)
    save(args.out, "exudyn_fourbar", meta, results, mesh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
