"""Servo constraints on the command line: a trajectory that leaves the workspace stops the run with the
time and the servo names (exit code 1, the steps before kept); dependent servo rows, an input listed
twice, an absolute angle off by pi and trajectories with impossible times are refused in one line (exit
code 2)."""
import pytest

from femdyn.cli import main

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


@pytest.mark.parametrize("old, new, field, words", [
    ("t_ramp = 0.5", "t_ramp = -0.5", "servos[0].trajectory.t_ramp", ">= 0"),  # 0 or none: the plain sine
    ('type = "circle", radius = 0.04, angular_speed = "2*pi", t_ramp = 0.5',
     'type = "smooth_ramp", t1 = 0.5, t2 = 1.0, rate = 1.0', "servos[0].trajectory", "both t2 and t3"),
    ('type = "circle", radius = 0.04, angular_speed = "2*pi", t_ramp = 0.5',
     'type = "spin_up", angular_speed = 1.0, t_ramp = 0.0', "servos[0].trajectory.t_ramp", "> 0"),
])
def test_trajectories_in_a_case_are_validated(case_path, tmp_path, capsys, old, new, field, words):
    """A negative ramp time, a ramp down without its end, a spin-up without a ramp: refused with one line
    naming the field."""
    from femdyn.cli import main
    text = case_path("3rrr_inverse.toml").read_text()
    assert old in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new, 1))
    assert main(["check", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert field in err and words in err and "\n" not in err
