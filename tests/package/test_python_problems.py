"""Shipped cases built from Python alone (``femdyn.Problem`` from a ``ModelBuilder``, no TOML) run the
history of the case file (``femdyn.load(path).run()``) to round-off; ``load(path).run().write(dir)``
writes the folder of ``femdyn run`` (every table, ParaView file and plot byte for byte, the summary
but for the wall time); ``femdyn.sweep`` of a Python-built flexible model on a LocalCluster gives the
rows of the equivalent TOML sweep (``studies.sweep``, the engine of ``femdyn sweep``).

The cases (16 of the 24 shipped): the double pendulum (rigid, gravity), the NM logo (000 section
4.1.4: a hat torque in free flight), the FEM 3-PRR (003 sections 8.1-8.2: four flexible links, slider
loads, a probe at the end effector), the same built in space, under slider pulses, and with servos on
its platform's reference motion from the static equilibrium ([Seifried2014]), the spatial four-bar (3D
revolute joints, three redundant rows dropped), the linear guide (000 section 4.2.4: initial velocities
and rates), the RPR figure-8 (000 section 5: servos and inputs) and with joint friction (001 section 6),
the friction oscillator (001 section 4.2: stick-slip friction), the slender cantilever (a link in 8
floating-frame segments), the flexible link turned by a servo on its reference motion, the 3-RRR under
crank torques and with its platform on a circle by servos (002 section 4), and the five-bar with
flexible distal links and a tool (coordinate servos, an attachment, a static-equilibrium start); the
flexible link's tip servo (flexible_link, non-minimum phase: its step-by-step run fails by design) is
inverted as its file below. The others: ``test_python_cases_spatial`` (the Stewart-Gough and Delta
cases) and ``test_python_servo_cases`` (3prr_inverse, 3prr_map and the two plants)."""
import json
import math
import sys
from pathlib import Path

import cloudpickle
import numpy as np
import pytest
import python_cases
from python_cases import THREE_PRR_POSE, same_tables, three_prr_mechanism
from shared import CASES

import femdyn
from femdyn.cli import main
from femdyn.numerics.kinematics import rotation_3d
from femdyn.studies.sweep import parse_parameter, plan_sweep, run_local

pi = np.pi


def double_pendulum():
    b = femdyn.ModelBuilder(2)
    for name in ("rod1", "rod2"):
        b.add_body(name, 1.0, [1 / 12, 0.05**2 / 12])
    b.add_joint("hinge1", "revolute", "ground", "rod1", point1=[0.0, 0.0], point2=[-0.5, 0.0], angle="theta1")
    b.add_joint("hinge2", "revolute", "rod1", "rod2", point1=[0.5, 0.0], point2=[-0.5, 0.0], angle="theta2")
    b.set_gravity([0.0, -9.81])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.005, t_end=5.0),
                          joints={"hinge1": {"angle": -pi / 3}, "hinge2": {"angle": pi / 4}},
                          name="double_pendulum", title="Planar double pendulum under gravity")


def nm_logo():
    b = femdyn.ModelBuilder(2)
    b.add_body("N", 1.1, [0.004, 0.0917])
    b.add_body("M", 2.0, [0.0073, 0.1667])
    b.add_joint("NM", "revolute", "N", "M", point1=[0.0, -0.4], point2=[0.0, 0.4], angle="theta")
    b.add_joint_load("theta", femdyn.time_functions.hat(0.25, 0.5, 5.0))
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.05, t_end=2.0),
                          bodies={"N": {"position": [0.0, 0.0], "angle": 0.0}}, joints={"NM": {"angle": pi}},
                          name="nm_logo")


def _spatial(pose):
    """A planar pose {"position", "angle"} as the spatial one: in the plane z = 0, turned about z (as the
    case file's ``rotation = {axis, angle}`` gives it)."""
    return {"position": [*pose["position"], 0.0], "rotation": rotation_3d([0.0, 0.0, 1.0], pose["angle"])}


def three_prr(b=0.15, t_end=4.0, loads=None, dim=2):
    """cases/3prr_sine.toml: ``three_prr_mechanism`` (fixed-free links) under sine loads on the slides (or
    the time functions ``loads``); ``dim = 3``: cases/3prr_3d.toml."""
    m = three_prr_mechanism(b, dim=dim)
    for k, amplitude in zip((1, 2, 3), (10.0, -2.0, -2.0)):
        m.add_joint_load(f"s{k}", femdyn.time_functions.sine(amplitude, 20 / (2 * pi)) if loads is None
                         else loads[k - 1])
    settings = femdyn.SolverSettings(dt=0.002, t_end=t_end, integrator="generalized-alpha", rho_inf=0.5,
                                     early_stop=True)
    pose = THREE_PRR_POSE if dim == 2 else {name: _spatial(pose) for name, pose in THREE_PRR_POSE.items()}
    return femdyn.Problem(m, settings, bodies=pose, probes={"effector": ("platform", [0.315, 0.0, 0.0][:dim])},
                          name="3prr_sine" if dim == 2 else "3prr_3d",
                          title=f"3-PRR with flexible links{' built as a 3D model' if dim == 3 else ''}, sinusoidal slider loads")


def three_prr_reference():
    """cases/3prr_reference.toml: ``three_prr_mechanism`` with pinned-held links, whose platform frame's
    middle point servos move on a 2 cm circle at 1 Hz, its angle held at 0, by the slider forces (the
    reference-motion servos of [Seifried2014]), started at rest in the static equilibrium under gravity."""
    m = three_prr_mechanism(reference="pinned-held")
    m.add_servo_point("middle", "platform", [0.1575, 0.0], femdyn.trajectories.Circle(0.02, 2 * pi, t_ramp=0.5),
                      on="frame")
    m.add_servo_angle("level", "platform", femdyn.trajectories.Constant([0.0]))
    m.set_inputs(["s1", "s2", "s3"])
    return femdyn.Problem(m, femdyn.SolverSettings(dt=0.002, t_end=2.0), bodies=THREE_PRR_POSE, equilibrium=True,
                          probes={"middle": ("platform", [0.1575, 0.0])}, name="3prr_reference")


def three_prr_pulse():
    """cases/3prr_pulse.toml: the 3-PRR of ``three_prr`` under triangular pulses of 10, -2, -2 N on the
    slides, peaking at 0.1 s and over at 0.2 s (003 section 8.2)."""
    table = femdyn.time_functions.table
    return three_prr(loads=[table([0.0, 0.1, 0.2, 4.0], [0.0, peak, 0.0, 0.0]) for peak in (10.0, -2.0, -2.0)])


def flexible_link_reference():
    """cases/flexible_link_reference.toml: an aluminium link (1 m, 20 x 10 mm, 4 FEM elements) on a hub,
    whose floating frame's tip point turns rest to rest along a smooth ramp by the hub torque (the
    reference-motion servo of [Seifried2014] on the link of [Bayo1987]: minimum phase, so a run follows
    it; the tip's own servo, cases/flexible_link.toml, is non-minimum phase and only ``invert`` solves it)."""
    b = femdyn.ModelBuilder(2)
    b.add_beam("link", femdyn.BeamBody.straight(1.0, 4, femdyn.Section.rectangle(0.02, 0.01), 70e9, 2700.0))
    b.add_joint("hub", "revolute", "ground", "link", angle="theta")
    b.add_servo_polar("tip", "link", [1.0, 0.0], femdyn.trajectories.SmoothRampAngle(0.5, 0.5, 1.0, 1.0), on="frame")
    b.set_inputs(["theta"])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.002, t_end=2.0), joints={"hub": {"angle": 0.0}},
                          probes={"tip": ("link", [1.0, 0.0])}, name="flexible_link_reference")


def three_rrr(inverse=False):
    """cases/3rrr_forward.toml: the 3-RRR of 002 section 4 (slender cranks and couplers, a triangular
    platform) under sine torques on the three cranks; ``inverse``: cases/3rrr_inverse.toml, servos move
    the platform's centre on a 4 cm circle and swing its angle by 0.2 sin(2 pi t), the crank torques
    their inputs."""
    b = femdyn.ModelBuilder(2)
    for k in (1, 2, 3):
        b.add_body(f"crank{k}", 0.6, [0.6 * 0.3**2 / 12 * (1 - 1e-6), 0.6 * 0.3**2 / 12 * 1e-6], size=[0.3, 0.02])
        b.add_body(f"coupler{k}", 0.4, [0.4 * 0.25**2 / 12 * (1 - 1e-6), 0.4 * 0.25**2 / 12 * 1e-6],
                   size=[0.25, 0.02])
    b.add_body("platform", 1.5, [0.0027, 0.0027], size=[0.12 * np.sqrt(3)] * 2)
    c = np.cos(pi / 6)
    bases, corners = [[0.0, -0.5], [0.5 * c, 0.25], [-0.5 * c, 0.25]], [[0.0, -0.12], [0.12 * c, 0.06], [-0.12 * c, 0.06]]
    for k in (1, 2, 3):
        b.add_joint(f"A{k}", "revolute", "ground", f"crank{k}", point1=bases[k - 1], point2=[-0.15, 0.0],
                    angle=f"theta{k}")
        b.add_joint(f"E{k}", "revolute", f"crank{k}", f"coupler{k}", point1=[0.15, 0.0], point2=[-0.125, 0.0])
        b.add_joint(f"B{k}", "revolute", f"coupler{k}", "platform", point1=[0.125, 0.0], point2=corners[k - 1])
    sine, path = femdyn.time_functions.sine, femdyn.trajectories
    if inverse:
        b.add_servo_point("centre", "platform", [0.0, 0.0], path.Circle(0.04, 2 * pi, t_ramp=0.5))
        b.add_servo_angle("swing", "platform", path.Swing(0.2, 2 * pi, t_ramp=0.5))
        b.set_inputs(["theta1", "theta2", "theta3"])
    else:
        for k, load in zip((1, 2, 3), (sine(0.08, 1.0), sine(0.06, 1.5, phase=1.0), sine(-0.07, 0.75))):
            b.add_joint_load(f"theta{k}", load)
    crank, elbow = 0.7167460219290184, 1.6248226052921655
    joints = {f"A{k}": {"angle": start - crank} for k, start in zip((1, 2, 3), (pi / 2, 7 * pi / 6, -pi / 6))}
    joints.update({f"E{k}": {"angle": elbow} for k in (1, 2, 3)})
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.005, t_end=2.0),
                          bodies={"platform": {"position": [0.0, 0.0], "angle": 0.0}}, joints=joints,
                          name="3rrr_inverse" if inverse else "3rrr_forward")


def five_bar_flexible():
    """cases/five_bar_flexible.toml: two rigid cranks on motors, two aluminium distal links (0.2 m, 20 x 5
    mm, 6 FEM elements) joined at a 0.5 kg tool, the motor angles swung by coordinate servos from the
    static equilibrium under gravity."""
    b = femdyn.ModelBuilder(2)
    for k in (1, 2):
        b.add_body(f"crank{k}", 0.3, [0.3 * 0.15**2 / 3, 0.3 * 0.01**2 / 12])
    for k in (1, 2):
        b.add_beam(f"link{k}", femdyn.BeamBody.straight(0.2, 6, femdyn.Section.rectangle(0.02, 0.005), 70e9, 2700.0))
    b.add_attachment("tool", "link1", [0.2, 0.0], 0.5)
    b.add_joint("motor1", "revolute", "ground", "crank1", point1=[-0.1, 0.0], point2=[0.0, 0.0], angle="theta1")
    b.add_joint("motor2", "revolute", "ground", "crank2", point1=[0.1, 0.0], point2=[0.0, 0.0], angle="theta2")
    for k in (1, 2):
        b.add_joint(f"elbow{k}", "revolute", f"crank{k}", f"link{k}", point1=[0.15, 0.0], point2=[0.0, 0.0],
                    angle=f"phi{k}")
    b.add_joint("tool_joint", "revolute", "link1", "link2", point1=[0.2, 0.0], point2=[0.2, 0.0])
    b.set_gravity([0.0, -9.81])
    for k, amplitude in ((1, 0.2), (2, -0.2)):
        b.add_servo_coordinate(f"servo{k}", f"theta{k}", femdyn.trajectories.Swing(amplitude, 4 * pi, t_ramp=0.25))
    b.set_inputs(["theta1", "theta2"])
    settings = femdyn.SolverSettings(dt=0.002, t_end=1.0, integrator="generalized-alpha", rho_inf=0.8)
    joints = {"motor1": {"angle": pi / 2}, "motor2": {"angle": pi / 2}, "elbow1": {"angle": -pi / 6},
              "elbow2": {"angle": pi / 6}}
    return femdyn.Problem(b, settings, joints=joints, equilibrium=True, probes={"P": ("link1", [0.2, 0.0])},
                          name="five_bar_flexible")


def four_bar_spatial():
    b = femdyn.ModelBuilder(3)
    for name, mass, length in (("crank", 1.0, 1.0), ("coupler", 2.0, 2.0), ("rocker", 1.8, 1.8)):
        b.add_body(name, mass, [mass * length**2 / 12, 1e-4, 1e-4], size=[length, 0.05, 0.05])
    z = [0.0, 0.0, 1.0]
    b.add_joint("A", "revolute", "ground", "crank", point1=[0, 0, 0], point2=[-0.5, 0, 0], axis=z, angle="crank_angle")
    b.add_joint("B", "revolute", "crank", "coupler", point1=[0.5, 0, 0], point2=[-1.0, 0, 0], axis=z)
    b.add_joint("C", "revolute", "coupler", "rocker", point1=[1.0, 0, 0], point2=[0.9, 0, 0], axis=z)
    b.add_joint("D", "revolute", "rocker", "ground", point1=[-0.9, 0, 0], point2=[2.2, 0, 0], axis=z)
    b.set_gravity([0.0, -9.81, 0.0])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.01, t_end=3.0),
                          joints={"A": {"angle": pi / 3}, "B": {"angle": -0.562069803005627},
                                  "C": {"angle": 1.0471975511965979}}, name="four_bar_spatial")


def linear_guide():
    b = femdyn.ModelBuilder(2)
    b.add_body("guide", 1.1, [0.0229, 5.8667], size=[0.5, 8.0])
    b.add_body("slider", 2.0, [0.1667, 0.1667], size=[1.0, 1.0])
    b.add_joint("slide", "prismatic", "guide", "slider", axis=[0.0, 1.0], slide="u")
    guide = {"position": [0.0, 0.0], "angle": 0.0, "velocity": [4.0, 1.0], "angular_velocity": pi / 2}
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.1, t_end=1.5), bodies={"guide": guide},
                          joints={"slide": {"slide": -3.0, "slide_rate": -6.5}}, name="linear_guide")


def rpr_figure8(friction=False):
    """The free-floating RPR of 000 section 5: three cylinder-piston legs from a floating base to the
    effector, whose centre follows the figure-8 and whose angle is held by servos, with the three
    revolute joint angles at the base as inputs; ``friction``: cases/rpr_figure8_friction.toml, the
    plasticity friction of 001 section 6 on the inputs (E = 350, F_max = 50) at dt = 0.01, no probe."""
    b = femdyn.ModelBuilder(2)
    for k in (1, 2, 3):
        b.add_body(f"cylinder{k}", 3, [0.0125, 0.0275], size=[0.25, 0.05])
    for k in (1, 2, 3):
        b.add_body(f"piston{k}", 4, [0.04, 0.08], size=[0.35, 0.05])
    b.add_body("effector", 3, [0.0408, 0.0408])
    b.add_body("base", 8, [0.1, 0.1])
    base = [[-0.5, -0.288675134594813], [0.5, -0.288675134594813], [0.0, 0.577350269189626]]
    tip = [[-0.2, -0.115470053837925], [0.2, -0.115470053837925], [0.0, 0.23094010767585]]
    for k in (1, 2, 3):
        b.add_joint(f"R{k}", "revolute", "base", f"cylinder{k}", point1=base[k - 1], point2=[-0.125, 0.0],
                    angle=f"Theta{k}")
        b.add_joint(f"P{k}", "prismatic", f"cylinder{k}", f"piston{k}", slide=f"u{k}")
        b.add_joint(f"E{k}", "revolute", f"piston{k}", "effector", point1=[0.175, 0.0], point2=tip[k - 1])
    path = femdyn.trajectories.FigureEight(1 / 12, 1 / 16, femdyn.trajectories.SmoothRampAngle(1.0, 2.0, 3.0, pi))
    b.add_servo_point("figure8", "effector", [0.0, 0.0], path)
    b.add_servo_angle("no-rotation", "effector", femdyn.trajectories.Constant([0.0]))
    b.set_inputs(["Theta1", "Theta2", "Theta3"])
    if friction:
        for k in (1, 2, 3):
            b.add_friction(f"Theta{k}", 350.0, 50.0)
    slide = np.sqrt(3) / 3 - 0.4 / np.sqrt(3) - 0.3
    centre = {"position": [0.0, np.sqrt(3) / 6], "angle": 0.0}
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.01 if friction else 0.02, t_end=3.5),
                          bodies={"base": centre, "effector": centre},
                          joints={"R1": {"angle": pi / 6}, "R2": {"angle": 5 * pi / 6}, "R3": {"angle": -pi / 2},
                                  **{f"P{k}": {"slide": slide} for k in (1, 2, 3)}},
                          probes={} if friction else {"effector": ("effector", [0.0, 0.0])},
                          name="rpr_figure8_friction" if friction else "rpr_figure8")


def friction_oscillator():
    b = femdyn.ModelBuilder(2)
    b.add_body("mass", 1.0, [0.01, 0.01], size=[0.2, 0.2])
    b.add_joint("guide", "prismatic", "ground", "mass", slide="x")
    b.add_friction("x", 100.0, 5.0)
    b.add_joint_load("x", femdyn.time_functions.sine(8.0, 0.5))
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.01, t_end=10.0), joints={"guide": {"slide": 0.0}},
                          name="friction_oscillator")


def slender_cantilever():
    """A steel strip of 16 FEM elements in 8 floating-frame segments, clamped, under gravity."""
    b = femdyn.ModelBuilder(2)
    strip = femdyn.BeamBody.straight(1.0, 16, femdyn.Section.rectangle(0.02, 0.001), 2.1e11, 7850)
    b.add_beam("strip", strip, stiffening=True, segments=8)
    b.add_joint("clamp", "fixed", "ground", "strip")
    b.set_gravity([0.0, -9.81])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.002, t_end=0.6),
                          bodies={"strip": {"position": [0.0, 0.0], "angle": 0.0}},
                          probes={"tip": ("strip", [1.0, 0.0])},
                          gauges={"root": {"body": "strip", "s": 0.0, "fibre": 0.0005}}, name="slender_cantilever")


BUILT = {"double_pendulum": (double_pendulum, 1.0), "nm_logo": (nm_logo, None), "3prr_sine": (three_prr, 0.1),
         "four_bar_spatial": (four_bar_spatial, 1.0), "linear_guide": (linear_guide, None),
         "rpr_figure8": (rpr_figure8, 1.5), "friction_oscillator": (friction_oscillator, 2.0),
         "slender_cantilever": (slender_cantilever, 0.05), "3prr_pulse": (three_prr_pulse, 0.25),
         "3prr_reference": (three_prr_reference, 0.1),
         "3prr_3d": (lambda: three_prr(dim=3), 0.05),
         "five_bar_flexible": (five_bar_flexible, 0.1),
         "flexible_link_reference": (flexible_link_reference, 0.3), "3rrr_forward": (three_rrr, 0.5), "3rrr_inverse": (lambda: three_rrr(inverse=True), 0.5),
         "rpr_figure8_friction": (lambda: rpr_figure8(friction=True), 0.5)}  # case -> (Python build, shorter t_end)


@pytest.mark.parametrize("case", list(BUILT))
def test_a_case_built_in_python_runs_the_history_of_its_file(case):
    build, t_end = BUILT[case]
    changes = {"t_end": t_end} if t_end else {}
    ours, theirs = build().run(**changes), femdyn.load(CASES / f"{case}.toml").run(**changes)
    assert ours.complete and theirs.complete
    assert np.array_equal(ours.t, theirs.t)
    same_tables(ours.tables, theirs.tables)  # every table of the result folder, column by column
    model = ours.problem.model
    if case == "3prr_sine":  # the elastic deflection of the end effector is resolved, not round-off
        assert np.abs(ours["effector.elastic_y"]).max() > 1e-6
    if case == "four_bar_spatial":
        assert len(ours.results.dropped) == 3  # a planar loop of spatial joints: 3 redundant rows
    assert repr(model).startswith(f"<Model {model.dim}D: {len(model.bodies)} bodies")


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in Path(folder).rglob("*") if p.is_file())


def _same_folder(ours, theirs):
    assert _files(ours) == _files(theirs)
    for name in _files(theirs):
        if name == "summary.json":
            a, b = (json.loads((folder / name).read_text()) for folder in (ours, theirs))
            for summary in (a, b):  # the wall time, and what follows from it, is the run's own
                summary.pop("wall_time_s"), summary.pop("ms_per_step")
            assert a == b
        else:
            assert (ours / name).read_bytes() == (theirs / name).read_bytes(), name


@pytest.mark.parametrize("case, options", [("double_pendulum", ["--t-end", "0.5"]),
                                           ("3prr_sine", ["--t-end", "0.1", "--no-plots"])])
def test_the_result_folder_written_from_python_is_the_command_lines(case, options, tmp_path, monkeypatch):
    monkeypatch.setenv("FEMDYN_PLOT_PROCESSES", "0")
    assert main(["run", str(CASES / f"{case}.toml"), "--out", str(tmp_path / "cli"), "--quiet", *options]) == 0
    problem = femdyn.load(CASES / f"{case}.toml", t_end=float(options[1]), plots="--no-plots" not in options)
    summary = problem.run().write(tmp_path / "api")
    assert summary["complete"]
    _same_folder(tmp_path / "api", tmp_path / "cli")


def test_a_python_built_flexible_model_swept_on_dask_gives_the_rows_of_the_toml_sweep():
    """The 3-PRR's links' width b at 0.12 and 0.18 m, 0.02 s: ``femdyn.sweep`` of ``three_prr`` (2
    LocalCluster workers) against the samples of the TOML sweep of cases/3prr_sine.toml with
    --param b=0.12,0.18 (``studies.sweep.run_sample``, what femdyn sweep's workers run)."""
    for module in (sys.modules[__name__], python_cases):  # the workers cannot import the test files
        cloudpickle.register_pickle_by_value(module)
    t_end = 0.02
    plan = plan_sweep(CASES / "3prr_sine.toml", [parse_parameter("b=0.12,0.18")], t_end=t_end)
    rows = run_local(plan)  # the rows of femdyn sweep's samples, here run one after the other
    swept = femdyn.sweep(_three_prr_short, {"b": [0.12, 0.18]}, workers=2)
    assert swept.columns == plan.columns
    assert not swept.errors and not any(r["error"] for r in rows)
    for ours, theirs in zip(swept.rows, rows):
        for column in plan.columns:
            if column in ("wall_time", "error"):
                continue
            assert math.isclose(ours[column], theirs[column], rel_tol=1e-9, abs_tol=1e-15), column


def _three_prr_short(b):
    return three_prr(b=b, t_end=0.02)


RHO, E, B, H, L = 7850.0, 2.1e11, 0.02, 0.02, 1.0


def cantilever(**initial):
    """A steel bar (1 m, 20 x 20 mm, 8 FEM elements) clamped at its origin, under gravity, a probe at
    its tip."""
    b = femdyn.ModelBuilder(2)
    b.add_beam("bar", femdyn.BeamBody.straight(L, 8, femdyn.Section.rectangle(B, H), E, RHO), stiffening=True)
    b.add_joint("clamp", "fixed", "ground", "bar")
    b.set_gravity([0.0, -9.81])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.001, t_end=0.02), probes={"tip": ("bar", [L, 0.0])},
                          **initial)


def test_a_python_problem_starts_in_static_equilibrium_at_the_cantilevers_sag():
    """``equilibrium=True``: the clamped bar starts and stays at w(L) = q L^4/(8 EI), w'(L) = q L^3/(6 EI)
    (cubic Hermite elements are nodally exact under a uniform load); ``static()`` finds the same pose."""
    q, EI = RHO * B * H * 9.81, E * B * H**3 / 12
    sag, slope = q * L**4 / (8 * EI), q * L**3 / (6 * EI)
    result = cantilever(equilibrium=True).run()
    assert np.abs(result["tip.y"] + sag).max() < 1e-12 * sag
    assert np.abs(result["tip.angle"] + slope).max() < 1e-12 * slope
    static = cantilever().static()
    assert static.deflections["tip"]["displacement"][1] == pytest.approx(-sag, rel=1e-12)
    assert static.deflections["tip"]["elastic_y"] == pytest.approx(-sag, rel=1e-12)
    with pytest.raises(femdyn.ModelError, match="at rest"):
        cantilever(equilibrium=True, joints={}, bodies={"bar": {"velocity": [0.0, 1.0]}})


def test_a_python_problem_starts_in_a_natural_mode_as_the_case_file_does(tmp_path):
    """``elastic={body: (mode, amplitude)}`` places the state that ``[initial.bodies.NAME] elastic =
    {mode, amplitude}`` places: the k-th mode of the clamped bar, its largest nodal translation the
    amplitude; the bar then vibrates at that mode's frequency (``modes()`` of the same bar)."""
    problem = cantilever(elastic={"bar": (1, 0.002)}, elastic_rate={"bar": (2, 0.01)})
    text = f"""dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = 0.001
t_end = 0.02
[flexible]
elements = 8
[[bodies]]
name = "bar"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "bar"]
[initial.bodies.bar]
elastic = {{mode = 1, amplitude = 0.002}}
elastic_rate = {{mode = 2, amplitude = 0.01}}
"""
    (tmp_path / "bar.toml").write_text(text)
    from_file = femdyn.load(tmp_path / "bar.toml")
    assert np.array_equal(problem.q0, from_file.q0) and np.array_equal(problem.v0, from_file.v0)
    tip = problem.run()["tip.elastic_y"]
    assert abs(tip[0]) == pytest.approx(0.002, rel=1e-12)  # mode 1 is largest at the tip
    modes = cantilever().modes(count=2)
    beta = 1.8751040687  # the first root of cos(x) cosh(x) = -1: omega_1 = beta^2 sqrt(EI/(rho A L^4))
    assert modes.omega[0] == pytest.approx(beta**2 * np.sqrt(E * H**2 / 12 / (RHO * L**4)), rel=1e-4)


def test_an_attachment_in_python_is_the_case_files_weld():
    """``add_attachment`` welds a mass at a material point as ``[[attachments]]`` does: a gripper of
    0.5 kg at the tip of the clamped bar adds its weight to the clamp's reaction force, exactly, and its
    weight's moment (to the sag's shortening of the lever arms, ~ slope^2 = 1e-6)."""
    b = femdyn.ModelBuilder(2)
    b.add_beam("bar", femdyn.BeamBody.straight(L, 8, femdyn.Section.rectangle(B, H), E, RHO), stiffening=True)
    b.add_joint("clamp", "fixed", "ground", "bar")
    assert b.add_attachment("gripper", "bar", [L, 0.0], 0.5) == "gripper@bar"
    b.set_gravity([0.0, -9.81])
    static = femdyn.Problem(b, femdyn.SolverSettings(dt=0.001, t_end=0.02)).static()
    mass = RHO * B * H * L
    reactions = static.reactions  # of the clamp on the bar
    assert reactions["clamp.bar.force_y"][0] == pytest.approx(9.81 * (mass + 0.5), rel=1e-12)
    assert abs(reactions["clamp.bar.force_x"][0]) <= 1e-12 * 9.81 * mass
    assert reactions["clamp.bar.moment_z"][0] == pytest.approx(9.81 * (mass * L / 2 + 0.5 * L), rel=1e-5)


def test_a_python_servo_problem_is_inverted_as_its_case_file():
    """The flexible link of cases/flexible_link.toml built in Python (the gallery's) is inverted to the
    case file's torque, and its forward check, from the ModelSpec, follows the path as closely."""
    import runpy

    from shared import ROOT

    example = ROOT / "docs" / "examples" / "flexible_link_inverse.py"
    build = runpy.run_path(str(example), run_name="gallery_flexible_link_inverse")["flexible_link"]
    ours = build().with_settings(dt=0.05).invert(pre=0.1, post=0.1)
    theirs = femdyn.load(CASES / "flexible_link.toml", dt=0.05).invert(pre=0.1, post=0.1)
    assert np.abs(ours.inputs["theta"] - theirs.inputs["theta"]).max() <= 1e-9 * np.abs(theirs.inputs["theta"]).max()
    assert ours.path_error <= 1e-9 and theirs.path_error <= 1e-9


def test_results_are_named_and_say_what_they_hold():
    """A run's columns are found by name, its repr gives its time span, steps and tables, a model's and a
    builder's their counts; ``to_pandas`` gives the history as a DataFrame where pandas is installed and
    says how to get it where not."""
    problem = nm_logo()
    result = problem.run(t_end=0.5)
    assert np.array_equal(result["theta"], result.coordinate("theta"))
    assert np.array_equal(result["N.x"], result.bodies["N.x"]) and "NM.M.force_x" in result.reactions
    with pytest.raises(KeyError, match="no column 'nope'"):
        result["nope"]
    text = repr(result)
    assert "t = 0 .. 0.5 s, 10 steps of dt = 0.05 s, complete" in text and "history: 14 columns" in text
    assert repr(problem.model) == ("<Model 2D: 2 bodies, 1 joints, 13 coordinates (joint coordinates: theta), "
                                   "9 constraints, 1 forces, 0 servo inputs>")
    b = femdyn.ModelBuilder(3)
    b.add_body("a", 1.0, [1.0, 1.0, 1.0])
    assert repr(b) == "<ModelBuilder 3D: 1 bodies, 0 joints; bodies a>"
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            result.to_pandas()
    else:
        frame = result.to_pandas("history")
        assert list(frame.columns) == list(result.history) and len(frame) == 11
