"""Bad case files: ``femdyn run`` reports one line ``error: <file>: <field>: <message>``, exits with 2
and leaves neither the output folder nor a temporary sibling behind."""
import os
import pathlib

import meshio
import numpy as np
import pytest
from case_texts import NM_BODIES_AND_JOINT, PINNED_ARM
from shared import CASES as SHIPPED

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

# the pinned arm with its joint points given and pulled at its tip (the points are on its centre line)
BEAM = (PINNED_ARM
        .replace('bodies = ["ground", "arm"]\n', 'bodies = ["ground", "arm"]\npoints = [[0, 0], [0, 0]]\n')
        .replace("[initial.bodies.arm]", '[[loads]]\ntype = "point_force"\nbody = "arm"\npoint = [0.5, 0]\n'
                 'force = [0, -1]\n[initial.bodies.arm]'))
SERVO = """\
[[servos]]
type = "point"
name = "tip"
body = "arm"
point = [0.5, 0.1]
trajectory = {type = "constant", value = [0, 0]}
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
    ("free-point-mass", SPATIAL, "inertia = [0.1, 0.1, 0.02]", "inertia = [0, 0, 0]", "bodies"),
    ("load-frame-unknown", PLANAR, "[initial.bodies.N]",
     '[[loads]]\ntype = "point_force"\nbody = "N"\npoint = [0, 0]\nforce = [1, 0]\nframe = "moon"\n[initial.bodies.N]',
     "loads[1].frame"),
    ("attachment-unknown-body", PLANAR, "[initial.bodies.N]",
     '[[attachments]]\nname = "g"\nbody = "X"\npoint = [0, 0]\nmass = 1\n[initial.bodies.N]', "attachments[0].body"),
    ("attachment-negative-mass", PLANAR, "[initial.bodies.N]",
     '[[attachments]]\nname = "g"\nbody = "N"\npoint = [0, 0]\nmass = -1\n[initial.bodies.N]', "attachments[0].mass"),
    ("attachment-euler-and-inertia", PLANAR, "[initial.bodies.N]",
     '[[attachments]]\nname = "g"\nbody = "N"\npoint = [0, 0]\nmass = 1\neuler = [0, 0]\ninertia = [1, 1, 1]\n'
     '[initial.bodies.N]', "attachments[0]"),
    ("attachment-named-like-a-body", PLANAR, "[initial.bodies.N]",
     '[[attachments]]\nname = "M"\nbody = "N"\npoint = [0, 0]\nmass = 1\n[initial.bodies.N]', "attachments[0].name"),
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
    ("integer-beyond-floats", PLANAR, "mass = 2.0", "mass = 1" + "0" * 400, "bodies[1].mass"),
    ("expression-integer-beyond-floats", PLANAR, "mass = 2.0", f'mass = "1{"0" * 400}"', "bodies[1].mass"),
    ("integer-beyond-the-toml-parser", PLANAR, "t_end = 0.02", "t_end = 1" + "0" * 5000, "syntax"),
    ("expression-too-long", PLANAR, "mass = 2.0", f'mass = "{"+".join(["1"] * 600)}"', "bodies[1].mass"),
    ("expression-too-deep", PLANAR, "mass = 2.0", f'mass = "{"-" * 200}2"', "bodies[1].mass"),
    ("time-function-too-deep", PLANAR, '{type = "constant", value = 1.0}',
     f'{{type = "expression", expr = "{"+".join(["t"] * 200)}"}}', "loads[0].function.expr"),
    ("joint-point-off-the-beam", BEAM, "points = [[0, 0], [0, 0]]", "points = [[0, 0], [0.2, 0.1]]",
     "joints[0].points[1]"),
    ("joint-point-beyond-the-beam", BEAM, "points = [[0, 0], [0, 0]]", "points = [[0, 0], [0.6, 0]]",
     "joints[0].points[1]"),
    ("point-force-off-the-beam", BEAM, "point = [0.5, 0]", "point = [0.5, 0.1]", "loads[0].point"),
    ("servo-point-off-the-beam", BEAM, "[initial.bodies.arm]", SERVO + "[initial.bodies.arm]", "servos[0].point"),
    ("beam-too-short-for-floats", BEAM, "length = 0.5", "length = 1e-200", "bodies[0].beam"),
    ("too-many-elements", BEAM, "elements = 2", "elements = 100000000", "flexible.elements"),
    ("elements-beyond-int64", BEAM, "elements = 2", "elements = 1" + "0" * 30, "flexible.elements"),
    ("more-modes-than-coordinates", BEAM, "elements = 2", "elements = 2\nmodes = 1000\ngeometric_stiffening = false",
     "flexible.modes"),
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
    return lines[0]


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


def test_not_a_regular_file(tmp_path, capsys):
    """A pipe is refused before it is opened (reading it would wait for a writer)."""
    fifo = tmp_path / "case.toml"
    os.mkfifo(fifo)
    run_and_check(tmp_path, capsys, fifo, "file")


def test_endless_device(tmp_path, capsys):
    run_and_check(tmp_path, capsys, pathlib.Path("/dev/zero"), "file")


def test_too_large_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("femdyn.casefile.case.MAX_BYTES", 100)
    case = tmp_path / "case.toml"
    case.write_text(PLANAR)
    assert "larger than" in run_and_check(tmp_path, capsys, case, "file")


def _line_mesh(points, lines):
    return meshio.Mesh(np.column_stack([points, np.zeros(len(points))]), [("line", np.array(lines))])


# (test id, mesh file name, its bytes or a meshio.Mesh, words of the message after the mesh file's name)
MESHES = [
    ("missing-point", "arm.vtu", _line_mesh([[0, 0], [0.5, 0]], [[0, 1], [1, 7]]), "refers to point 7"),
    ("nan-point", "arm.vtu", _line_mesh([[0, 0], [np.nan, 0], [0.5, 0]], [[0, 1], [1, 2]]), "not finite"),
    ("binary-garbage-msh", "arm.msh", b"\xff" * 100, "not a mesh meshio can read"),
    ("truncated-msh", "arm.msh", b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0 0\n2 0.5",
     "not a mesh meshio can read"),
    ("unsupported-format", "arm.xdmf", bytes(range(256)), "unknown mesh format '.xdmf'"),
]


@pytest.mark.parametrize("name, content, words", [c[1:] for c in MESHES], ids=[c[0] for c in MESHES])
def test_bad_mesh_file(tmp_path, capsys, name, content, words):
    """A broken centre-line file is reported against the beam's mesh field, naming the mesh file."""
    mesh = tmp_path / name
    if isinstance(content, bytes):
        mesh.write_bytes(content)
    else:
        meshio.write(mesh, content)
    case = tmp_path / "case.toml"
    case.write_text(BEAM.replace("length = 0.5", f"mesh = '{name}'"))
    line = run_and_check(tmp_path, capsys, case, "bodies[0].beam.mesh")
    assert f"{mesh}: " in line and words in line, line


def test_coordinates_counted_before_the_build_are_the_models(monkeypatch):
    """``ModelBuilder.coordinate_count`` (the history check before a fine mesh is built) gives the n of
    the built model for every shipped case: rigid, spatial, flexible, with joint coordinates and servos."""
    from femdyn.casefile.case import load_case
    from femdyn.model.builder import ModelBuilder

    build, counted = ModelBuilder.build, []

    def recorded(builder):
        model = build(builder)
        counted.append((builder.coordinate_count(), model.n))
        return model

    monkeypatch.setattr(ModelBuilder, "build", recorded)
    paths = sorted(SHIPPED.glob("*.toml"))
    for path in paths:
        load_case(path)
    assert len(counted) == len(paths) > 0 and all(count == n for count, n in counted), counted


def test_a_history_too_long_is_refused_before_the_model_is_built(tmp_path, capsys, monkeypatch):
    """A fine mesh in the file is refused by its history size without building the model, and the
    message names the elements."""
    from femdyn.model.builder import ModelBuilder

    monkeypatch.setattr(ModelBuilder, "build", lambda builder: pytest.fail("the model was built"))
    case = tmp_path / "case.toml"
    case.write_text(BEAM.replace("elements = 2", "elements = 20000").replace("t_end = 0.002", "t_end = 100.0"))
    assert "flexible.elements" in run_and_check(tmp_path, capsys, case, "solver.dt")
