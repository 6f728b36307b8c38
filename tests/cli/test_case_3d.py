"""Case files of 3D models with flexible bodies and orientation servos: what they refuse, one line each
(``error: FILE: FIELD: message``, exit code 2, nothing written), the 3D centre-line meshes they read, and
what ``femdyn check`` reports of them."""
import json

import numpy as np
import pytest

from femdyn.beam import natural_frequencies
from femdyn.beam.body import torsion_constant
from femdyn.cli import main
from femdyn.casefile.case import load_case

BEAM = 'beam = {length = 1.0, young = 70e9, density = 2700, b = 0.02, h = 0.04, poisson = 0.33}'
CASE = f"""\
dimension = 3
gravity = [0.0, 0.0, -9.81]
[solver]
dt = 0.001
t_end = 0.003
[flexible]
elements = 4
[[bodies]]
name = "beam"
{BEAM}
[[bodies]]
name = "hub"
mass = 1.0
inertia = [0.01, 0.01, 0.01]
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[[joints]]
name = "spin"
type = "spherical"
bodies = ["ground", "hub"]
points = [[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]
[[probes]]
name = "tip"
body = "beam"
point = [1.0, 0.0, 0.0]
[initial.bodies.beam]
position = [0.0, 0.0, 0.0]
[initial.bodies.hub]
position = [0.0, 0.0, 0.5]
"""
GENERAL = 'area = 8e-4, iy = 2.667e-8, iz = 1.0667e-7, j = 7.3e-8'
REFUSED = {  # what is replaced, by what, the field and words of the message
    "no-section": (", b = 0.02, h = 0.04", "", "bodies[0].beam: the section is missing"),
    "inertia-no-body-has": ("inertia = [0.01, 0.01, 0.01]", "inertia = [0.01, 0.01, 0.03]",
                            "bodies[1].inertia: principal moments [0.01, 0.01, 0.03]: J3 > J1 + J2 (no body has that"),
    "half-rectangle": (", h = 0.04", "", "bodies[0].beam.h: missing: a rectangle needs b and h"),
    "both-sections": ("b = 0.02", f"b = 0.02, {GENERAL}", "bodies[0].beam.area: give either b and h"),
    "general-incomplete": ("b = 0.02, h = 0.04", "area = 8e-4, iy = 2.667e-8, iz = 1.0667e-7",
                           "bodies[0].beam.j: missing: a general section needs area, iy, iz, j"),
    "poisson-high": ("poisson = 0.33", "poisson = 0.5", "bodies[0].beam.poisson: Poisson's ratio must lie in (-1, 0.5)"),
    "poisson-low": ("poisson = 0.33", "poisson = -1.0", "bodies[0].beam.poisson: Poisson's ratio must lie in (-1, 0.5)"),
    "poisson-and-shear": ("poisson = 0.33", "poisson = 0.33, shear = 26e9", "bodies[0].beam.shear: give one of poisson or shear"),
    "shear-too-small": ("poisson = 0.33", "shear = 23e9",
                        "bodies[0].beam.shear: G = 2.3e+10 with E = 7e+10 implies Poisson's ratio E / (2 G) - 1 = 0.521739, outside (-1, 0.5)"),
    "j-above-polar": ("b = 0.02, h = 0.04", "area = 8e-4, iy = 2.667e-8, iz = 1.0667e-7, j = 1.4e-7",
                      "bodies[0].beam.j: the torsion constant j = 1.4e-07 exceeds the polar moment iy + iz = 1.3334e-07"),
    "torque-components": ("[initial.bodies.beam]", '[[loads]]\ntype = "torque"\nbody = "beam"\ntorque = [1.0, 2.0]\n'
                          '[initial.bodies.beam]', "loads[0].torque: expected 3 values, got 2"),
    "torque-nan": ("[initial.bodies.beam]", '[[loads]]\ntype = "torque"\nbody = "hub"\ntorque = [1.0, nan, 0.0]\n'
                   '[initial.bodies.beam]', "loads[0].torque[1]"),
    "torque-off-beam": ("[initial.bodies.beam]", '[[loads]]\ntype = "torque"\nbody = "beam"\npoint = [0.5, 0.1, 0.0]\n'
                        'torque = [0.0, 0.0, 1.0]\n[initial.bodies.beam]', "loads[0].point: point [0.5, 0.1, 0.0] is 0.1 off the beam centre line"),
    "no-poisson": (", poisson = 0.33", "", "bodies[0].beam: a 3D beam needs poisson"),
    "2d-only-servo": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "angle"\nbody = "hub"\n'
                      'trajectory = {type = "constant", value = 0.0}\n[initial.bodies.beam]',
                      'servos[0].type: angle servos exist only in 2D models (a 3D body\'s orientation: type = "orientation")'),
    "euler-components": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "orientation"\nbody = "hub"\n'
                         'trajectory = {type = "constant", value = [0.0, 0.0]}\n[initial.bodies.beam]',
                         "servos[0].trajectory: needs 3 components"),
    "axis-zero": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "orientation"\nbody = "hub"\n'
                  'axis = [0.0, 0.0, 0.0]\ntrajectory = {type = "constant", value = 0.0}\n[initial.bodies.beam]',
                  "servos[0].axis: must not be zero"),
    "axis-angle-components": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "orientation"\nbody = "hub"\n'
                              'axis = [0.0, 0.0, 1.0]\ntrajectory = {type = "constant", value = [0.0, 0.0, 0.0]}\n'
                              '[initial.bodies.beam]', "servos[0].trajectory: needs 1 component, this trajectory has 3"),
    "harmonic-sizes": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "orientation"\nbody = "hub"\n'
                       'trajectory = {type = "harmonic", sine = [0.1, 0.0, 0.0], versine = [0.1], angular_speed = 1.0, '
                       't_ramp = 0.5}\n[initial.bodies.beam]',
                       "servos[0].trajectory: sine and versine need the same number of components"),
    "servos-without-inputs": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "orientation"\nbody = "hub"\n'
                              'trajectory = {type = "constant", value = [0.0, 0.0, 0.0]}\n[initial.bodies.beam]',
                              "control.inputs: 3 servo rows need as many input coordinates, got 0"),
}
REFUSED_2D = {  # 3D-only fields in a 2D case and the reverse
    "iy-in-2d": ("b = 0.02, h = 0.04", "area = 8e-4, iz = 1.0667e-7, iy = 2.667e-8", "bodies[0].beam.iy: only for beams in 3D models"),
    "vector-torque-in-2d": ("[initial.bodies.beam]", '[[loads]]\ntype = "torque"\nbody = "beam"\ntorque = [0.0, 0.0, 1.0]\n'
                            '[initial.bodies.beam]', "loads[0].torque: expected a number"),
    "poisson-in-2d": ("h = 0.04", "h = 0.04, poisson = 0.3", "bodies[0].beam.poisson: only for beams in 3D models"),
    "orientation-in-2d": ("[initial.bodies.beam]", '[[servos]]\nname = "s"\ntype = "orientation"\nbody = "hub"\n'
                          'trajectory = {type = "constant", value = [0.0, 0.0, 0.0]}\n[initial.bodies.beam]',
                          "servos[0].type: orientation servos exist only in 3D models"),
    "rotation-in-2d": ("position = [0.0, 0.0]", "position = [0.0, 0.0]\nrotation = {axis = [0.0, 0.0, 1.0], angle = 0.1}",
                       "initial.bodies.beam.rotation: unknown key 'rotation'"),
}
CASE_2D = """\
dimension = 2
[solver]
dt = 0.001
t_end = 0.003
[[bodies]]
name = "beam"
beam = {length = 1.0, young = 70e9, density = 2700, b = 0.02, h = 0.04}
[[bodies]]
name = "hub"
mass = 1.0
euler = [0.01, 0.01]
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[initial.bodies.beam]
position = [0.0, 0.0]
[initial.bodies.hub]
position = [0.0, 0.5]
"""


def one_line_error(capsys, code, text):
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert text in err, err


@pytest.mark.parametrize("name", [*REFUSED, *REFUSED_2D])
def test_refused_in_one_line(name, tmp_path, capsys):
    old, new, message = REFUSED[name] if name in REFUSED else REFUSED_2D[name]
    text = CASE if name in REFUSED else CASE_2D
    assert old in text
    path = tmp_path / "case.toml"
    path.write_text(text.replace(old, new, 1))
    one_line_error(capsys, main(["check", str(path)]), f"{path}: {message}")
    one_line_error(capsys, main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]), f"{path}: {message}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.toml"]


def write_mesh(path, points):
    import meshio

    lines = np.column_stack([np.arange(len(points) - 1), np.arange(1, len(points))])
    meshio.write(path, meshio.Mesh(np.asarray(points, dtype=float), [("line", lines)]))


def test_3d_meshes(tmp_path, capsys):
    """A straight line mesh anywhere in space is a beam of its chord's length, meshed with the case's
    elements along the body's x1 axis; a curved one keeps its polyline, moved rigidly into the frame of
    its chord (x1 along it, a planar curve in the x1-x2 plane, the farthest node at x2 > 0); one whose
    centre line ends where it starts has no direction."""
    direction = np.array([1.0, 2.0, 2.0]) / 3.0
    write_mesh(tmp_path / "straight.vtu", 0.3 + np.outer(np.linspace(0.0, 1.5, 4), direction))
    curved = np.array([[0, 0, 0], [0.5, 0.0, 0.1], [1.0, 0.2, 0.0]]) + 0.7
    write_mesh(tmp_path / "curved.vtu", curved)
    write_mesh(tmp_path / "back.vtu", [[0, 0, 0], [0.5, 0.3, 0.1], [0.0, 0.0, 0.0]])
    path = tmp_path / "case.toml"
    path.write_text(CASE.replace("length = 1.0", 'mesh = "straight.vtu"'))
    beam = load_case(path).model.bodies[0].flexible.beam
    np.testing.assert_allclose(beam.nodes, np.column_stack([np.linspace(0, 1.5, 5), np.zeros((5, 2))]), atol=1e-15)
    chord = float(np.linalg.norm(curved[-1] - curved[0]))
    path.write_text(CASE.replace("length = 1.0", 'mesh = "curved.vtu"').replace("[1.0, 0.0, 0.0]", f"[{chord!r}, 0.0, 0.0]"))
    nodes = load_case(path).model.bodies[0].flexible.beam.nodes
    np.testing.assert_allclose(nodes[[0, -1]], [[0, 0, 0], [chord, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(nodes[:, None] - nodes, axis=-1),
                               np.linalg.norm(curved[:, None] - curved, axis=-1), rtol=1e-14)
    assert abs(nodes[1, 2]) < 1e-15 and nodes[1, 1] > 0
    path.write_text(CASE.replace("length = 1.0", 'mesh = "back.vtu"'))
    one_line_error(capsys, main(["check", str(path)]), "the beam's direction is undefined: its centre line ends where "
                   "it starts")


L_LEGS = (0.6, 0.4)


def l_case(tmp_path, P):
    """The case of ``STATIC`` with the beam an L-shaped mesh (legs a along x and b along y, 4 elements
    each), the load P along -z and the probe at its last node, on the body's x1 axis (the chord)."""
    a, bl = L_LEGS
    points = np.vstack([np.column_stack([np.linspace(0, a, 5), np.zeros(5), np.zeros(5)]),
                        np.column_stack([np.full(4, a), np.linspace(0, bl, 5)[1:], np.zeros(4)])])
    write_mesh(tmp_path / "l.vtu", points)
    tip = float(np.hypot(a, bl))
    path = tmp_path / "case.toml"
    path.write_text(STATIC.replace("length = 1.0", 'mesh = "l.vtu"').replace("[1.0, 0.0, 0.0]", f"[{tip!r}, 0.0, 0.0]")
                    .replace("force = [0.0, 0.0, -5.0]", f"force = [0.0, 0.0, {-P!r}]"))
    return path


def test_l_shaped_mesh_is_the_l_frame(tmp_path, capsys):
    """An L-shaped centre line in one 3D mesh (legs a = 0.6 m along x and b = 0.4 m along y, 4 elements
    each), clamped at its first node, a load P along -z at its last: ``femdyn static`` gives the tip
    deflection P a^3/3EI + P b^3/3EI + P b^2 a/GJ (bending of both legs, the torsion of leg 1 by the
    torque P b, ``test_spatial_curved_beams``), I = I_y = h b^3/12, to 1e-8 (rotations of 1e-5: the
    linear theory holds to their square)."""
    young, nu, b, h = 70e9, 0.33, 0.02, 0.04
    EI, GJ = young * h * b**3 / 12, young / (2 * (1 + nu)) * torsion_constant(b, h)
    P = 1e-5 * EI / L_LEGS[0] ** 2
    path = l_case(tmp_path, P)
    out = tmp_path / "static"
    assert main(["static", str(path), "--out", str(out)]) == 0
    probe = json.loads((out / "summary.json").read_text())["static"]["probes"]["tip"]
    a, bl = L_LEGS
    expected = P * a**3 / (3 * EI) + P * bl**3 / (3 * EI) + P * bl**2 * a / GJ
    assert probe["elastic_z"] == pytest.approx(-expected, rel=1e-8)


def test_modes_of_an_l_shaped_mesh_are_the_bodys_own(tmp_path, capsys):
    """The L-shaped body in a model is embedded by carriers, its mass by the invariants (quadrature of
    the element shape rows turned into the body frame), the body's own mass matrix by the element
    blocks Cbar^T M_e Cbar: two paths, one spectrum -- ``femdyn modes`` of the clamped L equals
    ``natural_frequencies`` of its ``BeamBody`` to 1e-9."""
    path = l_case(tmp_path, 0.0)
    out = tmp_path / "modes"
    assert main(["modes", str(path), "--count", "4", "--out", str(out), "--no-vtk"]) == 0
    found = [m["omega_rad_s"] for m in json.loads((out / "modes.json").read_text())["modes"]]
    body = load_case(path).model.bodies[0].flexible.beam
    np.testing.assert_allclose(found, natural_frequencies(body, 4).omega, rtol=1e-9)


HUB = """[[bodies]]
name = "hub"
mass = 1.0
inertia = [0.01, 0.01, 0.01]
"""
SPIN = """[[joints]]
name = "spin"
type = "spherical"
bodies = ["ground", "hub"]
points = [[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]
"""
# the clamped beam alone (the hub on its ball joint has no static equilibrium), a tip load along -d_3
STATIC = (CASE.replace("gravity = [0.0, 0.0, -9.81]\n", "").replace(HUB, "").replace(SPIN, "")
          .replace("[initial.bodies.hub]\nposition = [0.0, 0.0, 0.5]\n", "")
          .replace("[[probes]]", '[[loads]]\ntype = "point_force"\nbody = "beam"\npoint = [1.0, 0.0, 0.0]\n'
                   'force = [0.0, 0.0, -5.0]\n[[probes]]'))


@pytest.mark.parametrize("flexible, elastic, coordinates", [
    ('model = "rayleigh-ritz"', 6, 60), ("modes = 24\ngeometric_stiffening = false", 24, 240),
    ('axial = "linear"', 24, 240), ('axial = "linear"\ngeometric_stiffening = false', 24, 240)])
def test_3d_rayleigh_ritz_and_modal_bodies(tmp_path, capsys, flexible, elastic, coordinates):
    """Rayleigh-Ritz bodies, modal reduction and the linear axial shape in 3D case files, embedded by three
    carriers per elastic coordinate (``beam.spatial_ffr``: 10 model coordinates each): ``femdyn static``
    gives the clamped cantilever's tip deflection P L^3/3EI_y under a tip load P along d_3 (the cubic
    Hermite shapes hold the exact deflection; with all 24 modes the modal body is the FE body), to 1e-8."""
    path = tmp_path / "case.toml"
    path.write_text(STATIC.replace("elements = 4", f"elements = 4\n{flexible}"))
    assert main(["check", str(path)]) == 0
    assert f"{elastic} elastic coordinates in {coordinates} model coordinates" in capsys.readouterr().out
    out = tmp_path / "static"
    assert main(["static", str(path), "--out", str(out)]) == 0
    tip = json.loads((out / "summary.json").read_text())["static"]["probes"]["tip"]
    iy = 0.04 * 0.02**3 / 12
    assert tip["elastic_z"] == pytest.approx(-5.0 / (3 * 70e9 * iy), rel=1e-8)


def test_3d_reduced_bodies_refuse_singular_reference_conditions(tmp_path, capsys):
    """As in the plane: reference conditions that leave rigid motions to a Rayleigh-Ritz or modal body's
    elastic coordinates are refused, naming the motions."""
    path = tmp_path / "case.toml"
    for flexible in ('model = "rayleigh-ritz"', "modes = 3\ngeometric_stiffening = false"):
        path.write_text(CASE.replace("elements = 4", f"elements = 4\n{flexible}")
                        .replace("poisson = 0.33}", 'poisson = 0.33, reference = "pinned-free"}'))
        one_line_error(capsys, main(["check", str(path)]), f"{path}: bodies[0].beam.reference: reference "
                       "conditions 'pinned-free' leave 2 independent rigid motions in space to the elastic coordinates")


def test_check_reports_the_3d_flexible_model(tmp_path, capsys):
    """The beam (4 elements, fixed-free: 4 nodes of w, s (3 each) and psi) has 28 coordinates for its 24
    elastic ones; the rows: 2 x 6 orthonormality, 4 slope rows s_k . d_1 = 0, the ground's 12, 3 spherical
    and 6 fixed: 37, leaving the hub's 3 rotations and the 24 elastic coordinates."""
    path = tmp_path / "case.toml"
    path.write_text(CASE)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "beam of 4 elements, 1 m, 24 elastic coordinates in 28 model coordinates" in out
    assert "coordinates n = 64, constraints m = 37" in out and "degrees of freedom 27" in out
    assert "coordinates: body frames 36, joint coordinates 0, flexible bodies 28" in out
    assert "constraint rows: orthonormality 12, slope 4, anchor 12, spherical 3, fixed 6" in out


@pytest.mark.parametrize("flexible", ["modes = 4\ngeometric_stiffening = false", 'model = "rayleigh-ritz"'])
def test_modes_of_3d_reduced_bodies_are_the_bodies_own(tmp_path, capsys, flexible):
    """Independent formulations agree: ``femdyn modes`` linearises the DAE of the clamped body (frame,
    carriers c_aj = q_j d_a and their nine rows per coordinate, the twists' scalar mass) on its constraint
    manifold; its frequencies are the body's own eigenvalues K q = omega^2 M q in its elastic coordinates
    (``natural_frequencies``) to 1e-9."""
    path = tmp_path / "case.toml"
    path.write_text(STATIC.replace("elements = 4", f"elements = 8\n{flexible}"))
    out = tmp_path / "modes"
    assert main(["modes", str(path), "--count", "4", "--out", str(out), "--no-vtk"]) == 0
    found = [m["omega_rad_s"] for m in json.loads((out / "modes.json").read_text())["modes"]]
    body = load_case(path).model.bodies[0].flexible.beam
    np.testing.assert_allclose(found, natural_frequencies(body, 4).omega, rtol=1e-9)
