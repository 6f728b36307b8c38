"""Bad case files: ``femdyn run`` reports one line ``error: <file>: <field>: <message>``, exits with 2
and leaves neither the output folder nor a temporary sibling behind."""
import pytest

from conftest import NM_BODIES_AND_JOINT

from femdyn.cli import main

PLANAR = """\
dimension = 2
[solver]
dt = 0.01
t_end = 0.02
""" + NM_BODIES_AND_JOINT + """\
[[loads]]
type = "joint"
coordinate = "theta"
function = {type = "constant", value = 1.0}
[initial.bodies.N]
position = [0, 0]
[initial.joints.NM]
angle = "pi"
"""

SPATIAL = """\
dimension = 3
[solver]
dt = 0.01
t_end = 0.02
[[bodies]]
name = "A"
mass = 1.0
inertia = [0.1, 0.1, 0.02]
[initial.bodies.A]
position = [0, 0, 0]
"""

# (test id, base case, text to replace, replacement, field named in the error)
CASES = [
    ("unknown-integrator", PLANAR, "t_end = 0.02", "t_end = 0.02\nintegrator = 'rk4'", "solver.integrator"),
    ("spectral-radius-above-one", PLANAR, "t_end = 0.02", "t_end = 0.02\nrho_inf = 1.5", "solver.rho_inf"),
    ("early-stop-with-energy-momentum", PLANAR, "t_end = 0.02", "t_end = 0.02\nearly_stop = true", "solver.early_stop"),
    ("unknown-newton-method", PLANAR, "t_end = 0.02", "t_end = 0.02\nnewton = 'quasi'", "solver.newton"),
    ("early-stop-with-modified-newton", PLANAR, "t_end = 0.02",
     "t_end = 0.02\nintegrator = 'generalized-alpha'\nearly_stop = true\nnewton = 'modified'", "solver.early_stop"),
    ("unknown-top-level-key", PLANAR, "dimension = 2", "dimension = 2\ncolour = 'red'", "colour"),
    ("unknown-body-key", PLANAR, "mass = 2.0", "mas = 2.0", "bodies[1].mas"),
    ("unknown-joint-key", PLANAR, 'angle = "theta"', 'angel = "theta"', "joints[0].angel"),
    ("unknown-initial-key", PLANAR, "position = [0, 0]", "positon = [0, 0]",
     "initial.bodies.N.positon"),
    ("wrong-type", PLANAR, "mass = 2.0", 'mass = "abc"', "bodies[1].mass"),
    ("wrong-vector-length", PLANAR, "euler = [0.004, 0.0917]", "euler = [0.004, 0.0917, 1.0]",
     "bodies[0].euler"),
    ("unknown-body-in-joint", PLANAR, 'bodies = ["N", "M"]', 'bodies = ["N", "X"]', "joints[0].bodies[1]"),
    ("unknown-joint-in-initial", PLANAR, "[initial.joints.NM]", "[initial.joints.XY]", "initial.joints.XY"),
    ("unknown-coordinate-in-load", PLANAR, 'coordinate = "theta"', 'coordinate = "phi"',
     "loads[0].coordinate"),
    ("non-positive-mass", PLANAR, "mass = 2.0", "mass = 0", "bodies[1].mass"),
    ("non-positive-euler", PLANAR, "euler = [0.004, 0.0917]", "euler = [0.004, -0.0917]",
     "bodies[0].euler[1]"),
    ("inertia-triangle-inequality", SPATIAL, "inertia = [0.1, 0.1, 0.02]", "inertia = [0.1, 0.1, 0.3]",
     "bodies[0].inertia"),
    ("dt-not-positive", PLANAR, "dt = 0.01", "dt = 0", "solver.dt"),
    ("t_end-not-positive", PLANAR, "t_end = 0.02", 't_end = "-pi"', "solver.t_end"),
    ("toml-syntax", PLANAR, "dt = 0.01", "dt = = 0.01", "syntax"),
    ("initial-violates-constraints", PLANAR, '[initial.joints.NM]\nangle = "pi"',
     "[initial.bodies.M]\nposition = [1, 1]", "initial"),
    # both bodies posed upright: the joint angle is 0, and "pi" satisfies sin(Theta - 0) = 0 too
    ("angle-off-by-pi", PLANAR, '[initial.joints.NM]\nangle = "pi"',
     '[initial.bodies.M]\nposition = [0, -0.8]\n[initial.joints.NM]\nangle = "pi"', "initial"),
    ("history-too-large", PLANAR, "dt = 0.01", "dt = 1e-300", "solver.dt"),
    ("coordinate-named-like-a-column", PLANAR, 'angle = "theta"', 'angle = "t"', "joints[0].angle"),
    ("axis-all-zero", PLANAR, 'angle = "theta"', 'angle = "theta"\naxis = [0, 0]', "joints[0].axis"),
    ("spatial-joint-in-2d", PLANAR, 'type = "revolute"', 'type = "spherical"', "joints[0].type"),
]


def run_and_check(tmp_path, capsys, case, field):
    """Run ``case`` and check the error report and that no output was left behind."""
    before = set(tmp_path.iterdir())
    out = tmp_path / "out"
    assert main(["run", str(case), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"error: {case}: {field}: "), lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert set(tmp_path.iterdir()) == before  # no output folder, no temporary sibling


@pytest.mark.parametrize("base, old, new, field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_case(tmp_path, capsys, base, old, new, field):
    assert old in base
    case = tmp_path / "case.toml"
    case.write_text(base.replace(old, new, 1))
    run_and_check(tmp_path, capsys, case, field)


def test_missing_file(tmp_path, capsys):
    run_and_check(tmp_path, capsys, tmp_path / "missing.toml", "file")


def test_unreadable_file(tmp_path, capsys):
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    run_and_check(tmp_path, capsys, folder, "file")


def test_not_utf8(tmp_path, capsys):
    case = tmp_path / "case.toml"
    case.write_bytes(b"title = '\xff'\n")
    run_and_check(tmp_path, capsys, case, "file")
