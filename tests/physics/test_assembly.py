"""Automatic assembly (``[initial] assemble``, ``prepare(assemble=True)``, ``femdyn.model.assembly``): a
five-bar with a flexible distal link, a 3-RRR (cases/3rrr_*.toml) and the Delta (cases/delta_flexible.toml)
given with every body that is not actuated off by 1 cm and 0.05 rad close their loops to the constraint
tolerance onto the exact pose (their held coordinates fix it: a mechanism of as many degrees of freedom
as coordinates held, on the assembly branch of the rough pose), the held coordinates unchanged to the
bit, and ``femdyn static`` measures the same sag from there as from the exact pose. A pose that cannot
be closed is refused in one line with exit code 2, naming the joint left open."""
import dataclasses
import json

import numpy as np
import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.casefile.case import load_case
from femdyn.post.equilibrium import deflections
from femdyn.casefile.reader import CaseError
from femdyn.model.assembly import default_hold
from femdyn.model.errors import ModelError
from femdyn.numerics import kinematics as kin
from femdyn.studies.run import prepare_case

R, L = 0.1, 0.25  # crank and distal link lengths of the five-bar [m]
CONSTRAINT_TOLERANCE = 1e-12  # the assembly's residual, relative to max(1, |q|) (``assembly.TOLERANCE``)


def five_bar_pose(theta1, theta2, base):
    """The exact pose of the five-bar (``five_bar``): crank ends P1, P2 and the distal joint C above
    them, the circles of radius L about P1 and P2 intersected."""
    p1 = R * np.array([np.cos(theta1), np.sin(theta1)])
    p2 = np.array([base, 0.0]) + R * np.array([np.cos(theta2), np.sin(theta2)])
    half = np.linalg.norm(p2 - p1) / 2
    along = (p2 - p1) / (2 * half)
    c = (p1 + p2) / 2 + np.sqrt(L**2 - half**2) * np.array([-along[1], along[0]])
    angle = lambda a, b: float(np.arctan2(*(b - a)[::-1]))  # noqa: E731
    return {"crank1": ((R / 2) * np.array([np.cos(theta1), np.sin(theta1)]), theta1),
            "crank2": (np.array([base, 0.0]) + (R / 2) * np.array([np.cos(theta2), np.sin(theta2)]), theta2),
            "link1": ((p1 + c) / 2, angle(p1, c)), "link2": (p2, angle(p2, c)), "tool": (c, angle(p2, c))}


def five_bar(theta1=2.2, theta2=0.9, base=0.2, off=(0.0, 0.0), initial=""):
    """A planar five-bar: cranks of R = 0.1 m on the ground at (0, 0) and (base, 0), servo-held at
    theta1, theta2 (their motors' inputs), a rigid distal link and a flexible one (aluminium strip
    20 x 5 mm, FEM, 6 elements) of L = 0.25 m meeting at C, where a 0.5 kg tool is welded; gravity -y.
    ``off`` = (shift [m], turn [rad]): every body but the cranks is given that far off its exact pose."""
    pose = five_bar_pose(theta1, theta2, base)
    lines = []
    for k, (name, (position, angle)) in enumerate(pose.items()):
        direction = np.array([np.cos(1.0 + 2.0 * k), np.sin(1.0 + 2.0 * k)])
        if not name.startswith("crank"):
            position, angle = position + off[0] * direction, angle + off[1] * (-1) ** k
        lines.append(f"[initial.bodies.{name}]\nposition = [{float(position[0])!r}, {float(position[1])!r}]\n"
                     f"angle = {float(angle)!r}\n")
    return f"""\
dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = 0.001
t_end = 0.01
[flexible]
model = "fem"
elements = 6
[[bodies]]
name = "crank1"
mass = 0.3
euler = [{0.3 * R**2 / 12}, 1e-6]
[[bodies]]
name = "crank2"
mass = 0.3
euler = [{0.3 * R**2 / 12}, 1e-6]
[[bodies]]
name = "link1"
mass = 0.2
euler = [{0.2 * L**2 / 12}, 1e-6]
[[bodies]]
name = "link2"
beam = {{length = {L}, young = 70e9, density = 2700, b = 0.02, h = 0.005}}
[[attachments]]
name = "tool"
body = "link2"
point = [{L}, 0.0]
mass = 0.5
[[probes]]
name = "tcp"
body = "tool"
point = [0.0, 0.0]
[[joints]]
name = "A1"
type = "revolute"
bodies = ["ground", "crank1"]
points = [[0.0, 0.0], [{-R / 2}, 0.0]]
angle = "theta1"
[[joints]]
name = "A2"
type = "revolute"
bodies = ["ground", "crank2"]
points = [[{base}, 0.0], [{-R / 2}, 0.0]]
angle = "theta2"
[[joints]]
name = "P1"
type = "revolute"
bodies = ["crank1", "link1"]
points = [[{R / 2}, 0.0], [{-L / 2}, 0.0]]
[[joints]]
name = "P2"
type = "revolute"
bodies = ["crank2", "link2"]
points = [[{R / 2}, 0.0], [0.0, 0.0]]
[[joints]]
name = "C"
type = "revolute"
bodies = ["link1", "link2"]
points = [[{L / 2}, 0.0], [{L}, 0.0]]
[[servos]]
name = "m1"
type = "coordinate"
coordinate = "theta1"
trajectory = {{type = "constant", value = 0.0}}
[[servos]]
name = "m2"
type = "coordinate"
coordinate = "theta2"
trajectory = {{type = "constant", value = 0.0}}
[control]
inputs = ["theta1", "theta2"]
[initial]
{initial}
[initial.joints.A1]
angle = {theta1!r}
[initial.joints.A2]
angle = {theta2!r}
{''.join(lines)}"""


def static_sag(tmp_path, text, name, capsys):
    """``femdyn static`` of the case ``text``: its exit code, stdout and the tcp's displacement [m]."""
    case = tmp_path / f"{name}.toml"
    case.write_text(text)
    code = main(["static", str(case), "--out", str(tmp_path / name), "--no-vtk"])
    out = capsys.readouterr().out
    static = json.loads((tmp_path / name / "static.json").read_text()) if code == 0 else None
    return code, out, static and np.array(static["probes"]["tcp"]["displacement"])


def check_assembled(case, setup, exact, held_names):
    """The assembled pose closes the loops to the tolerance, is the exact pose, and the held
    coordinates are those of the rough pose, bit for bit."""
    model = setup.model
    assert np.abs(model.phi(setup.q0)).max() <= CONSTRAINT_TOLERANCE * max(1.0, np.abs(setup.q0).max())
    held = [model.joint_coordinates[name] for name in held_names]
    assert np.array_equal(setup.q0[held], case.q0[held])
    rigid = np.arange(len(model.bodies) * kin.body_size(model.dim))
    assert np.abs(setup.q0[rigid] - exact[rigid]).max() <= 1e-12


def test_a_rough_five_bar_assembles_onto_the_exact_pose_and_sags_as_much(tmp_path, capsys):
    """Link, flexible link and tool given 1 cm and 0.05 rad off: ``assemble = true`` holds the servo-held
    crank angles (the default), closes the loops onto the exact pose, prints every frame's correction
    in one line, and the tool's static sag from there equals the sag from the exact pose to 1e-5
    relative: the sag is 1.5e-7 m, and the equilibrium's Newton iteration stops within 1e-12 of the
    coordinates, 4e-13 m here (measured 3e-6 relative). Without assembly the rough pose is refused."""
    code, out, exact_sag = static_sag(tmp_path, five_bar(), "exact", capsys)
    assert code == 0, out
    rough = five_bar(off=(0.01, 0.05), initial="assemble = true")
    code, out, sag = static_sag(tmp_path, rough, "rough", capsys)
    assert code == 0
    line = [x for x in out.splitlines() if x.startswith("assembled the initial pose")]
    assert len(line) == 1 and "holding theta1, theta2" in line[0] and "link2 0.01 m 0.05 rad" in line[0]
    assert 1e-8 < np.linalg.norm(exact_sag) < 1e-5  # a sag, not a correction of 1 cm
    assert np.linalg.norm(sag - exact_sag) <= 1e-5 * np.linalg.norm(exact_sag)
    path = tmp_path / "rough.toml"
    case = load_case(path)
    assert case.assemble and case.hold is None and default_hold(case.model) == ["theta1", "theta2"]
    exact_case = load_case(tmp_path / "exact.toml")
    check_assembled(case, prepare_case(case), prepare_case(exact_case).q0, ["theta1", "theta2"])
    (tmp_path / "unassembled.toml").write_text(rough.replace("assemble = true", ""))
    assert main(["check", str(tmp_path / "unassembled.toml")]) == 2
    assert "initial: the initial configuration violates" in capsys.readouterr().err


def test_a_loosely_closed_pose_sags_from_its_projection_not_by_the_correction(tmp_path, capsys):
    """Without ``assemble`` but with initial_tolerance = 0.01 the placed pose (1 mm off) is projected: the
    projection moves the frames, not the links' elastic coordinates, so that ``static`` reports the sag
    at the projected pose -- within 2 % of the exact pose's (measured: 1e-9), where a projection that
    bends the links reported their release, 5.4e-4 m, 4000 times the sag of 1.5e-7 m."""
    _, _, exact_sag = static_sag(tmp_path, five_bar(), "exact", capsys)
    loose = five_bar(off=(0.001, 0.002)).replace("t_end = 0.01", "t_end = 0.01\ninitial_tolerance = 0.01")
    code, _, sag = static_sag(tmp_path, loose, "loose", capsys)
    assert code == 0
    assert np.linalg.norm(sag - exact_sag) <= 0.02 * np.linalg.norm(exact_sag)


def test_a_pose_that_cannot_close_is_refused_in_one_line(tmp_path, capsys):
    """Cranks 0.7 m apart turned outward: their ends are 0.9 m apart, and two 0.25 m links cannot meet.
    Refused with exit code 2 in one line that names the joints left open (the loop) and their gaps."""
    pose = five_bar_pose(2.2, 0.9, 0.2)  # a pose of the feasible five-bar, wrong for the wide one
    with np.errstate(invalid="ignore"):  # no pose of its own: its links are placed as the narrow one's
        text = five_bar(theta1=np.pi, theta2=0.0, base=0.7, initial="assemble = true")
    for name, (position, angle) in pose.items():  # the links placed as in the narrow five-bar
        start = text.index(f"[initial.bodies.{name}]")
        end = text.index("\n[", start + 1) if "\n[" in text[start + 1:] else len(text)
        text = text[:start] + (f"[initial.bodies.{name}]\nposition = [{float(position[0])!r}, {float(position[1])!r}]\n"
                               f"angle = {float(angle)!r}\n") + text[end + 1:]
    case = tmp_path / "wide.toml"
    case.write_text(text)
    assert main(["static", str(case), "--out", str(tmp_path / "wide"), "--no-vtk"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"error: {case}: initial.assemble: the initial pose cannot be assembled")
    assert "with theta1, theta2 held" in err and "revolute 'C'" in err and "stay open" in err
    most = float(err.split(" at most")[0].split()[-1])
    # the cranks' ends are 0.9 m apart and the links 0.5 m long: the gaps of the loop's six joints (five
    # revolutes and the tool's weld, the bodies kept rigid) add up to at least 0.4 m, so the largest is
    # at least a sixth of that
    assert 0.4 / 6 <= most <= 0.4
    assert not (tmp_path / "wide").exists()


def turned_off(model, q, bodies, shift=0.01, turn=0.05, seed=1):
    """q with the frames of ``bodies`` moved by ``shift`` [m] and turned by ``turn`` [rad], each along and
    about its own random direction."""
    q, rng = q.copy(), np.random.default_rng(seed)
    index = {b.name: i for i, b in enumerate(model.bodies)}
    dim = model.dim
    for name in bodies:
        dofs = model.body_dofs(index[name])
        direction = rng.normal(size=dim)
        q[dofs[:dim]] += shift * direction / np.linalg.norm(direction)
        R = q[dofs[dim:]].reshape(dim, dim).T
        if dim == 2:
            R = kin.rotation_2d(turn * rng.choice([-1, 1])) @ R
        else:
            axis = rng.normal(size=3)
            R = kin.rotation_3d(axis / np.linalg.norm(axis), turn) @ R
        q[dofs[dim:]] = R.T.ravel()
    return q


@pytest.mark.parametrize("name, actuated", [
    ("3rrr_inverse.toml", ("crank1", "crank2", "crank3")),
    ("3rrr_forward.toml", ("crank1", "crank2", "crank3")),
    ("delta_flexible.toml", ("arm1", "arm2", "arm3")),
])
def test_rough_poses_of_shipped_mechanisms_assemble(name, actuated):
    """The 3-RRR (inverse: servo-held platform; forward: crank torques) and the Delta with couplers,
    rods, elbows, platform and effector 1 cm and 0.05 rad off (from Python: ``prepare(assemble=True)``):
    assembled onto the exact pose with the crank or motor angles held; the static equilibrium of the
    Delta (its arms flexible, servo-held) sags from it exactly as from the exact pose, 1e-6 relative."""
    case = load_case(CASES / name)
    model = case.model
    exact = prepare(model, case.q0, case.v0)
    rough = turned_off(model, case.q0, [b.name for b in model.bodies if b.name not in actuated])
    with pytest.raises(ModelError, match="violates"):
        prepare(model, rough, case.v0)
    setup = prepare(model, rough, case.v0, assemble=True)
    held = default_hold(model)
    assert held == ["theta1", "theta2", "theta3"]
    check_assembled(dataclasses.replace(case, q0=rough), setup, exact.q0, held)
    moved = {body for body, _, _ in setup.assembly.corrections}
    assert moved == {b.name for b in model.bodies} - set(actuated)
    if model.flexible:
        sags = [deflections(case, static_equilibrium(s).q, s.start)["tcp"]["displacement"] for s in (exact, setup)]
        assert abs(sags[0][2]) > 1e-5  # the effector sinks (14 um)
        assert np.linalg.norm(np.subtract(*sags)) <= 1e-6 * np.linalg.norm(sags[0])


def test_held_bodies_and_bad_names(tmp_path):
    """``hold`` names joint coordinates or bodies (a body keeps its frame); a name that is neither, or hold
    without assemble, is refused against its field."""
    case = load_case(CASES / "3rrr_inverse.toml")
    model = case.model
    rough = turned_off(model, case.q0, ["coupler1", "coupler2", "coupler3"])
    platform = model.body_dofs([b.name for b in model.bodies].index("platform"))
    setup = prepare(model, rough, case.v0, assemble=True, hold=["platform"])
    assert np.array_equal(setup.q0[platform], rough[platform])  # the cranks moved instead
    assert np.abs(setup.model.phi(setup.q0)).max() <= CONSTRAINT_TOLERANCE
    with pytest.raises(ModelError, match="initial.hold: 'nothing' is neither a joint coordinate"):
        prepare(model, rough, case.v0, assemble=True, hold=["nothing"])
    text = (CASES / "3rrr_inverse.toml").read_text()
    for initial, field in (('[initial]\nhold = ["theta1"]\n', "initial.hold"),
                           ('[initial]\nassemble = true\nhold = ["theta9"]\n', "initial.hold[0]")):
        path = tmp_path / "bad.toml"
        path.write_text(text.replace("[initial.bodies.platform]", initial + "[initial.bodies.platform]", 1))
        with pytest.raises(CaseError, match=field.replace("[", r"\[").replace("]", r"\]")):
            load_case(path)


def test_a_rough_pose_assembles_from_python(tmp_path):
    """``femdyn.Problem(..., assemble=True)``: the five-bar's model with its links and tool placed 1 cm and
    0.05 rad off (the cranks through their joint angles) sags as the case file's exact pose does, and
    ``femdyn.load`` of a case with ``[initial] assemble`` does the same."""
    import femdyn

    path = tmp_path / "exact.toml"
    path.write_text(five_bar())
    case = load_case(path)
    exact = femdyn.load(path).static().deflections["tcp"]["displacement"]
    bodies = {name: {"position": position + [0.01, 0.0], "angle": angle + 0.05}
              for name, (position, angle) in five_bar_pose(2.2, 0.9, 0.2).items() if not name.startswith("crank")}
    cranks = {"A1": {"angle": 2.2}, "A2": {"angle": 0.9}}
    problem = femdyn.Problem(case.model, case.settings, bodies=bodies, joints=cranks, assemble=True,
                             probes={"tcp": ("tool", [0.0, 0.0])})
    assert problem.setup().assembly.held == ("theta1", "theta2")
    sag = problem.static().deflections["tcp"]["displacement"]
    assert np.linalg.norm(np.subtract(sag, exact)) <= 1e-5 * np.linalg.norm(exact)
    rough = tmp_path / "rough.toml"
    rough.write_text(five_bar(off=(0.01, 0.05), initial="assemble = true"))
    loaded = femdyn.load(rough).static().deflections["tcp"]["displacement"]
    assert np.linalg.norm(np.subtract(loaded, exact)) <= 1e-5 * np.linalg.norm(exact)
