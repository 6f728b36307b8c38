"""Flexible bodies from case files against beam theory, through the commands a user runs: ``femdyn
static`` gives the closed-form static deflection of cantilevers (planar and spatial, under gravity and
tip loads, with the probes' 3D components in the world and the body frame), ``femdyn modes`` the beta L
frequencies of a clamped beam; and a rigid body welded to an element's interior (section carriers
there) loads the beam as the closed form says."""
import json

import numpy as np
import pytest
import pyvista

from femdyn.beam.body import BeamBody, Section, torsion_constant
from femdyn.cli import main
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.io.tables import read_csv
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d
from femdyn.studies.cantilever import CANTILEVER_BETA_L

E, NU, RHO, L, B, H = 70e9, 0.3, 2700.0, 1.0, 0.02, 0.04
G = E / (2 * (1 + NU))
IZ, IY, A, J = B * H**3 / 12, H * B**3 / 12, B * H, torsion_constant(B, H)
AXIS, ANGLE = [1.0, -2.0, 0.5], 0.7  # the 3D beam's orientation in the world
C, F2, F3 = 0.2, 2e-4, -3e-4  # arm length along d_2 [m], tip forces along d_2 and d_3 [N]


def static(tmp_path, text, capsys):
    path = tmp_path / "case.toml"
    path.write_text(text)
    out = tmp_path / "static"
    assert main(["static", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 0 and (out / "static.json").is_file() and (out / "motion.pvd").is_file()
    return summary["static"], read_csv(out / "probes.csv"), printed


def test_probes_of_a_spatial_cantilever_are_beam_theory(tmp_path, capsys):
    """A cantilever turned in space (rotation R about (1, -2, 0.5) by 0.7 rad), clamped at its root, with a
    rigid arm of length c welded to its tip along d_2 and forces F2 d_2 + F3 d_3 at the arm's end: at the
    tip the forces and the torque c F3 d_1. Along the directors the elastic displacement is
    (0, F2 L^3/3EI_z, F3 L^3/3EI_y) and the section's rotation (psi, theta_y, theta_z) = (c F3 L/GJ,
    -F3 L^2/2EI_y, F2 L^2/2EI_z) (I_z = b h^3/12, I_y = h b^3/12, J of the b x h rectangle); in the world
    frame R times them -- to 1e-7. Linear theory holds to first order in the rotations (8e-8 here): the
    tip also moves back along d_1 by the bent centre line's foreshortening, (1/2) int w'^2 dx =
    (3/5)(w_2^2 + w_3^2)/L for the cubic deflection curve (3e-8 of the deflection, included), and the
    section's rotation components differ from the linear ones by products such as theta_y theta_z / 2
    (1e-8 of the largest)."""
    R = rotation_3d(AXIS, ANGLE)
    rotation = f"{{axis = {AXIS}, angle = {ANGLE}}}"
    force = [float(f) for f in R @ [0.0, F2, F3]]
    arm = [float(x) for x in R @ [L, C / 2, 0.0]]
    text = f"""\
dimension = 3
[solver]
dt = 0.01
t_end = 0.02
[[bodies]]
name = "beam"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}, poisson = {NU}}}
[[bodies]]
name = "arm"
mass = 0.5
euler = [0.001, 0.002, 0.001]
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
relative_rotation = {rotation}
[[joints]]
name = "weld"
type = "fixed"
bodies = ["beam", "arm"]
points = [[{L}, 0.0, 0.0], [0.0, {-C / 2}, 0.0]]
[[loads]]
type = "point_force"
body = "arm"
point = [0.0, {C / 2}, 0.0]
force = [{force[0]!r}, {force[1]!r}, {force[2]!r}]
[[probes]]
name = "tip"
body = "beam"
point = [{L}, 0.0, 0.0]
[initial.bodies.beam]
rotation = {rotation}
[initial.bodies.arm]
position = [{arm[0]!r}, {arm[1]!r}, {arm[2]!r}]
rotation = {rotation}
"""
    result, probes, printed = static(tmp_path, text, capsys)
    along = np.array([0.0, F2 * L**3 / (3 * E * IZ), F3 * L**3 / (3 * E * IY)])
    along[0] = -0.6 * (along[1] ** 2 + along[2] ** 2) / L
    turned = np.array([C * F3 * L / (G * J), -F3 * L**2 / (2 * E * IY), F2 * L**2 / (2 * E * IZ)])
    tip = result["probes"]["tip"]
    scale, spin = np.abs(along).max(), np.abs(turned).max()
    assert np.abs([tip[f"elastic_{a}"] for a in "123"] - along).max() <= 1e-7 * scale
    assert np.abs([tip[f"elastic_r{a}"] for a in "123"] - turned).max() <= 1e-7 * spin
    assert np.abs([tip[f"elastic_{a}"] for a in "xyz"] - R @ along).max() <= 1e-7 * scale
    assert np.abs([tip[f"elastic_r{a}"] for a in "xyz"] - R @ turned).max() <= 1e-7 * spin
    assert np.abs(np.array(tip["displacement"]) - R @ along).max() <= 1e-7 * scale  # the root is clamped
    assert probes["tip.elastic_2"][0] == pytest.approx(tip["elastic_2"], rel=1e-15)  # one frame, the same
    assert "probe tip: displacement from the initial configuration" in printed and "(along the body's d1" in printed


@pytest.mark.parametrize("dim", [2, 3])
def test_static_cantilever_under_gravity_and_a_tip_load(tmp_path, capsys, dim):
    """A clamped cantilever with gravity and a tip force P, both across it (along -y in the plane, -z in
    space, bending about the b-side's axis): tip deflection q L^4/8EI + P L^3/3EI and rotation
    q L^3/6EI + P L^2/2EI (q = rho A g), exact for Hermite elements at the nodes, to 1e-8."""
    g, p = 9.81, 5.0
    across = "y" if dim == 2 else "z"
    zero = [0.0] * dim
    down = list(zero)
    down[dim - 1] = -1.0
    poisson = f", poisson = {NU}" if dim == 3 else ""
    text = f"""\
dimension = {dim}
gravity = {[g * c for c in down]}
[solver]
dt = 0.01
t_end = 0.02
[flexible]
elements = 3
[[bodies]]
name = "beam"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}{poisson}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[[loads]]
type = "point_force"
body = "beam"
point = {[L] + zero[1:]}
force = {[p * c for c in down]}
[[probes]]
name = "tip"
body = "beam"
point = {[L] + zero[1:]}
[initial.bodies.beam]
position = {zero}
"""
    result, _, _ = static(tmp_path, text, capsys)
    ei = E * (IZ if dim == 2 else IY)
    q = RHO * A * g
    deflection = -(q * L**4 / (8 * ei) + p * L**3 / (3 * ei))
    slope = q * L**3 / (6 * ei) + p * L**2 / (2 * ei)
    tip = result["probes"]["tip"]
    assert tip[f"elastic_{across}"] == pytest.approx(deflection, rel=1e-8)
    rotation = -slope if dim == 2 else slope  # theta (2D, about z) is dv/dx; theta_y (about y) is -dw/dx
    assert tip["elastic_angle" if dim == 2 else "elastic_ry"] == pytest.approx(rotation, rel=1e-8)


def test_modes_of_a_clamped_beam_are_the_beta_l_frequencies(tmp_path, capsys):
    """A clamped 3D cantilever of 16 elements (b = 20 mm, h = 40 mm): ``femdyn modes`` gives the lowest
    bending frequencies of both planes, omega = (beta L)^2 sqrt(EI/(rho A L^4)) with I_y for bending along
    d_3 and I_z along d_2, in order, to 1e-5 (the Hermite element converges at order 4: 1.3e-7 for the
    first and 5.1e-6 for the second beta L at 16 elements), each mode a deformation of the beam; one
    ParaView series per mode, 24 frames of a period."""
    path = tmp_path / "beam.toml"
    path.write_text(f"""\
dimension = 3
[solver]
dt = 0.01
t_end = 0.02
[flexible]
elements = 16
[[bodies]]
name = "beam"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}, poisson = {NU}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[initial.bodies.beam]
position = [0.0, 0.0, 0.0]
""")
    out = tmp_path / "modes"
    assert main(["modes", str(path), "--count", "4", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    modes = json.loads((out / "modes.json").read_text())["modes"]
    exact = sorted((beta**2 * np.sqrt(E * inertia / (RHO * A * L**4)), beta) for beta in CANTILEVER_BETA_L[:2]
                   for inertia in (IY, IZ))
    omega = [m["omega_rad_s"] for m in modes]
    np.testing.assert_allclose(omega, [w for w, _ in exact], rtol=1e-5)
    assert all("deformation of 'beam'" in m["description"] for m in modes)
    assert "omega [rad/s]" in printed and "f [Hz]" in printed
    reader = pyvista.get_reader(str(out / "mode_1.pvd"))
    assert len(reader.time_values) == 24


def test_a_rigid_arm_welded_inside_an_element_loads_the_beam():
    """A cantilever (1 to 5 elements) with a rigid arm welded at x = a = 0.3 L, inside an element (its
    section carriers there), and a force P along d_3 at the arm's end, a distance c along d_2: the beam
    carries P and the torque c P from x = a on, so the tip sinks by P a^3/3EI_y + P a^2 (L - a)/2EI_y
    and twists by c P a/GJ (to 2e-5: rotations of 2e-3, the geometric nonlinearity)."""
    a, c, p = 0.3 * L, 0.2, 50.0
    section = Section.rectangle(B, H)
    for n in (1, 2, 5):
        b = ModelBuilder(3)
        b.add_beam("beam", BeamBody.straight(L, n, section, E, RHO, dim=3, poisson=NU), stiffening=False)
        b.add_body("arm", 1.0, [0.01, 0.01, 0.01])
        b.add_joint("clamp", "fixed", "ground", "beam")
        b.add_joint("weld", "fixed", "beam", "arm", point1=[a, 0, 0], point2=[0, -c / 2, 0])
        b.add_point_force("arm", [0, c / 2, 0], [0, 0, p], lambda t: 1.0)
        model = b.build()
        q, v = place(model, {"beam": {"position": [0, 0, 0]}, "arm": {"position": [a, c / 2, 0]}}, {})
        setup = prepare(model, q, v)
        eq = static_equilibrium(setup)
        world = setup.model.worlds[0]
        tip = world.positions(eq.q, [[L, 0, 0]])[0]
        ei = E * section.iy
        assert tip[2] == pytest.approx(p * a**3 / (3 * ei) + p * a**2 * (L - a) / (2 * ei), rel=2e-5)
        assert world.elastic_coordinates(eq.q)[-3] == pytest.approx(p * c * a / (G * section.j), rel=2e-5)
