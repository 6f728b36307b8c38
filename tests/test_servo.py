"""Servo constraints: inverse dynamics in one step (000 section 5, 001 section 5)."""
import numpy as np
import pytest
import tomllib
from conftest import angular_momentum_scale

from femdyn.cli import main
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.io.case import load_case
from femdyn.joints.servo import Servo
from femdyn.joints.trajectories import (
    FigureEight,
    Polynomial,
    SmoothRampAngle,
    smooth_step,
    smooth_step_integral,
)
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place


def run(path, dt=None, t_end=None):
    case = load_case(path)
    setup = prepare(case.model, case.q0, case.v0, case.settings.initial_tolerance)
    return case, simulate(setup, SolverSettings(dt or case.settings.dt, t_end or case.settings.t_end))


def effector(case, r):
    k = [b.name for b in case.model.bodies].index("effector")
    centres, rotations = case.model.frames(r.q)
    return centres[:, k], rotations[:, k]


def test_smooth_ramp_is_the_integral_of_its_rate():
    """Eqs. 79-81: the rate ramps 0 -> omega0 -> 0 with the 9th-order step; the angle integrates it
    (checked by quadrature) and ends at 2 pi for t = 1, 2, 3 s and omega0 = pi."""
    s = SmoothRampAngle(1.0, 2.0, 3.0, np.pi)
    x = np.linspace(0.0, 1.0, 2001)
    assert np.trapezoid(smooth_step(x), x) == pytest.approx(smooth_step_integral(1.0), rel=1e-6)
    t = np.linspace(0.0, 3.5, 70001)
    rate = np.array([s.rate(ti)[0] for ti in t])
    angle = np.array([s.value(ti)[0] for ti in t])
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1]) * np.diff(t))])
    assert np.abs(angle - integral).max() < 1e-7
    assert angle[-1] == pytest.approx(2 * np.pi, rel=1e-12) and rate[-1] == 0.0
    assert s.rate(1.5)[0] == pytest.approx(np.pi)


def test_rpr_follows_the_figure_eight_and_keeps_its_momenta(case_path):
    case, r = run(case_path("rpr_figure8.toml"))
    assert r.complete
    centre, rotation = effector(case, r)
    path = FigureEight(1 / 12, 1 / 16, SmoothRampAngle(1.0, 2.0, 3.0, np.pi))
    target = centre[0] + np.array([path.value(t) for t in r.t])
    assert np.abs(centre - target).max() <= 1e-10
    assert np.abs(rotation[:, 1, 0]).max() <= 1e-10  # d1 stays along e1: no rotation (eq. 82)
    assert np.abs(r.momentum).max() <= 1e-10
    assert np.abs(r.angular_momentum).max() <= 1e-10 * angular_momentum_scale(case.model, r)
    # the centre of mass of the whole system does not move
    masses = np.array([b.mass for b in case.model.bodies])
    centres = case.model.frames(r.q)[0]
    com = np.einsum("b,tbi->ti", masses, centres) / masses.sum()
    assert np.abs(com - com[0]).max() <= 1e-10
    # the inputs do the work: H - H0 = W to round-off
    assert np.abs(r.energy_balance).max() <= 1e-10 * np.abs(r.total).max()
    assert np.abs(r.inputs).max() > 1.0


def forward_case(path, tmp_path, inputs, t_mid):
    """The same manipulator without servo constraints, driven by joint torques that take the given
    values at the mid-times (a piecewise-linear table evaluated exactly there)."""
    data = tomllib.loads(path.read_text())
    names = data.pop("control")["inputs"]
    data.pop("servos")
    data["loads"] = [{"type": "joint", "coordinate": name,
                      "function": {"type": "table", "times": [0.0, *t_mid, t_mid[-1] + 1.0],
                                   "values": [0.0, *inputs[:, k], inputs[-1, k]]}}
                     for k, name in enumerate(names)]
    out = tmp_path / "forward.toml"
    out.write_text(_toml(data))
    return out


def _toml(data, prefix=""):
    """Minimal TOML writer for the case dictionaries used here."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict) and not prefix.startswith("loads"):
            tables.append((key, value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {_value(value)}")
    for key, value in tables:
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, list):
            for item in value:
                lines += [f"[[{name}]]", *(f"{k} = {_value(v)}" for k, v in item.items())]
        else:
            lines += [f"[{name}]", _toml(value, name)]
    return "\n".join(lines)


def _value(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(float(v)) if isinstance(v, float) else str(v).lower() if isinstance(v, bool) else str(v)


def test_inputs_drive_the_forward_dynamics_along_the_path(case_path, tmp_path):
    """Applied as joint torques in a forward simulation (no servo constraints), the inputs of the
    servo solve reproduce the prescribed motion: the discrete equations are the same, so the effector
    path agrees to the Newton tolerance."""
    path = case_path("rpr_figure8.toml")
    case, r = run(path)
    forward = forward_case(path, tmp_path, r.inputs, r.t_mid)
    fcase, f = run(forward)
    assert f.complete
    np.testing.assert_allclose(effector(fcase, f)[0], effector(case, r)[0], atol=1e-8)
    assert np.abs(f.q[:, :48] - r.q[:, :48]).max() <= 1e-8


def test_rpr_torques_converge_at_second_order(case_path):
    """The inputs are mid-step values; at the step nodes t = 0.5 + k 0.01, common to dt = 0.02 / 2^i,
    each run is read as the mean of its two neighbouring mid-step values (an O(dt^2) interpolation,
    the same for every run). Successive differences then shrink by 4."""
    case = load_case(case_path("rpr_figure8.toml"))
    setup = prepare(case.model, case.q0, case.v0)
    probes = np.arange(0.5, 2.99, 0.02)
    values = []
    for i in range(4):
        dt = 0.02 / 2**i
        r = simulate(setup, SolverSettings(dt, 3.0))
        values.append(np.stack([np.interp(probes, r.t_mid, r.inputs[:, k]) for k in range(3)]))
    differences = [np.abs(b - a).max() for a, b in zip(values, values[1:])]
    orders = np.log2(np.array(differences[:-1]) / np.array(differences[1:]))
    assert np.all(np.abs(orders - 2.0) <= 0.15), (differences, orders)


SERVO_ARM = """\
dimension = 2
[solver]
dt = 0.01
t_end = 2.0
[[bodies]]
name = "upper"
mass = 1.0
euler = ["1/12", 0.001]
[[bodies]]
name = "lower"
mass = 1.0
euler = ["1/12", 0.001]
[[joints]]
name = "shoulder"
type = "revolute"
bodies = ["ground", "upper"]
points = [[0, 0], [-0.5, 0]]
angle = "q1"
[[joints]]
name = "elbow"
type = "revolute"
bodies = ["upper", "lower"]
points = [[0.5, 0], [-0.5, 0]]
angle = "q2"
[[servos]]
name = "tip"
type = "point"
body = "lower"
point = [0.5, 0]
trajectory = TRAJECTORY
[control]
inputs = ["q1", "q2"]
[initial.joints.shoulder]
angle = 0.3
[initial.joints.elbow]
angle = 1.2
"""


def test_trajectory_leaving_the_workspace_stops_with_a_clear_message(tmp_path, capsys):
    """A two-link arm whose tip is pulled straight out beyond its reach (2 m): Newton fails near the
    time the target leaves the workspace; the steps before are kept, exit code 1."""
    case = tmp_path / "arm.toml"
    case.write_text(SERVO_ARM.replace("TRAJECTORY", '{ type = "polynomial", coefficients = [[0, 1.0], [0, 0]] }'))
    out = tmp_path / "out"
    assert main(["run", str(case), "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "Newton failed in the step to t =" in err and "servo constraints (tip)" in err
    summary = __import__("json").loads((out / "summary.json").read_text())
    assert not summary["complete"] and 0.2 < summary["t_reached"] < 2.0


def test_dependent_servo_constraints_are_refused(tmp_path, capsys):
    """Two servos that both hold the shoulder angle: the second row depends on the first. Refused at
    set-up, naming it; and an input listed twice is refused too."""
    tip = SERVO_ARM[SERVO_ARM.index("[[servos]]"):SERVO_ARM.index("[control]")]
    holds = "".join(f'[[servos]]\nname = "{name}"\ntype = "coordinate"\ncoordinate = "q1"\n'
                    'trajectory = { type = "constant", value = 0 }\n' for name in ("hold", "again"))
    case = tmp_path / "arm.toml"
    case.write_text(SERVO_ARM.replace(tip, holds))
    assert main(["run", str(case), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {case}: servos:") and "again" in err and "\n" not in err
    assert not (tmp_path / "out").exists()
    case.write_text(SERVO_ARM.replace("TRAJECTORY", '{ type = "constant", value = [0, 0] }')
                    .replace('inputs = ["q1", "q2"]', 'inputs = ["q1", "q1"]'))
    assert main(["run", str(case), "--out", str(tmp_path / "out")]) == 2
    assert "control.inputs" in capsys.readouterr().err


def test_absolute_angle_servo_turned_by_pi_is_refused(tmp_path, capsys, case_path):
    """sin(theta - alpha) = 0 also at alpha = theta + pi: an absolute target of pi for a body at
    angle 0 is refused at set-up instead of silently holding the body at 0."""
    text = case_path("rpr_figure8.toml").read_text().replace(
        'trajectory = { type = "constant", value = 0.0 }', 'trajectory = { type = "constant", value = "pi" }\nrelative = false')
    case = tmp_path / "rpr.toml"
    case.write_text(text)
    assert main(["run", str(case), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {case}: servos:") and "turned by pi" in err and "\n" not in err


def test_runs_prepared_from_different_states_keep_their_own_servo_targets():
    """A two-link arm whose tip follows a relative point servo, gamma(t) = b(q0) + trajectory(t) -
    trajectory(0) (000 eq. 78), prepared from two initial poses: each setup's model targets its own
    initial tip position at t = 0 (its servo rows vanish there), and each run moves its own tip by the
    trajectory's displacement although the other setup was prepared in between. The built model is
    unchanged: the same servo families, still with zero start values (its targets are trajectory(t))."""
    b = ModelBuilder(2)
    for name in ("upper", "lower"):
        b.add_body(name, 1.0, [1 / 12, 0.001])
    b.add_joint("shoulder", "revolute", "ground", "upper", point2=[-0.5, 0.0], angle="q1")
    b.add_joint("elbow", "revolute", "upper", "lower", point1=[0.5, 0.0], point2=[-0.5, 0.0], angle="q2")
    path = Polynomial([[0.3, 0.0, 0.2], [-0.1, 0.1, 0.0]])  # trajectory(0) = (0.3, -0.1)
    b.add_servo_point("tip", "lower", [0.5, 0.0], path)
    b.set_inputs(["q1", "q2"])
    model = b.build()
    built = list(model.constraints)
    servos = [c for c in built if isinstance(c, Servo)]
    before = [c.reference.copy() for c in servos]

    def tip(q):
        centres, rotations = model.frames(q)
        return centres[..., 1, :] + rotations[..., 1, :, :] @ [0.5, 0.0]

    poses = ({"shoulder": {"angle": 0.3}, "elbow": {"angle": 1.2}},
             {"shoulder": {"angle": -0.4}, "elbow": {"angle": 0.9}})
    setups = [prepare(model, *place(model, {}, pose)) for pose in poses]
    starts = [tip(s.q0) for s in setups]
    assert np.abs(starts[0] - starts[1]).min() > 0.1
    for s, start in zip(setups, starts):
        assert s.model is not model
        servo = next(c for c in s.model.constraints if isinstance(c, Servo))
        np.testing.assert_allclose(servo.targets(0.0), start, rtol=0, atol=1e-14)
        assert np.abs(s.model.phi(s.q0)[model.input_rows]).max() <= 1e-14
    assert len(model.constraints) == len(built) and all(a is c for a, c in zip(model.constraints, built))
    for c, reference in zip(servos, before):
        np.testing.assert_array_equal(c.reference, reference)
        np.testing.assert_array_equal(c.targets(0.0), path.value(0.0))
    for s, start in zip(setups, starts):
        r = simulate(s, SolverSettings(0.01, 0.2))
        assert r.complete, r.message
        target = start + np.array([path.value(t) - path.value(0.0) for t in r.t])
        assert np.abs(tip(r.q) - target).max() <= 1e-10
