"""Torques at material points (``forces.loads.TimeTorque``): a clamped cantilever under a tip torque
against beam theory (``femdyn static`` of a case file with a ``torque`` load), and free bodies, rigid
and flexible, under a torque: the discrete energy balance and the angular momentum changed by the
torque's impulse, both to round-off."""
import json

import numpy as np
import pytest
from shared import TIGHT, clamped_cantilever_text

from femdyn.beam.body import BeamBody, Section, torsion_constant
from femdyn.cli import main
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d

E, NU, RHO, L, B, H = 70e9, 0.3, 2700.0, 1.0, 0.02, 0.04
G = E / (2 * (1 + NU))
IZ, IY, J = B * H**3 / 12, H * B**3 / 12, torsion_constant(B, H)
ROTATION = 2e-5  # [rad] the tip's rotation under the torque: linear theory holds to (2e-5)^2


@pytest.mark.parametrize("stiffening", [False, True])
@pytest.mark.parametrize("dim, axis", [(2, 2), (3, 0), (3, 1), (3, 2)])
def test_cantilever_under_a_tip_torque(tmp_path, capsys, dim, axis, stiffening):
    """A clamped cantilever with a torque M at its tip about the body axis ``axis``: about the beam's
    axis the twist psi = M L/(G J) (J of the b x h rectangle); about d_3 (d_2) the bending rotation
    M L/(E I) and deflection M L^2/(2 E I) with I_z (I_y), in d_2 (along -d_3, since theta_y = -w');
    in the plane the rotation and deflection with I = b h^3/12 -- with geometric stiffening and without,
    to 1e-9 (the torque's rotation, 2e-5, makes the nonlinear terms 4e-10). With stiffening the axial
    Green strain relaxes to zero: the tip moves back by the foreshortening int w'^2/2 dx = theta^2 L/6
    of the bent centre line, w' = theta x/L (6.7e-11 m, 7e-6 of the deflection), asserted with it."""
    stiffness = {0: G * J, 1: E * IY, 2: E * IZ}[axis]
    M = float(ROTATION * stiffness / L)
    torque = M if dim == 2 else [M * (k == axis) for k in range(3)]
    path = tmp_path / "case.toml"
    poisson = f", poisson = {NU}" if dim == 3 else ""
    beam = f"length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}{poisson}"
    path.write_text(clamped_cantilever_text(dim, beam, stiffening, [("torque", "torque", torque)], probe=True))
    assert main(["static", str(path), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    tip = json.loads((tmp_path / "out" / "summary.json").read_text())["static"]["probes"]["tip"]
    rotation, deflection = M * L / stiffness, M * L**2 / (2 * stiffness)
    shortening = rotation**2 * L / 6 if stiffening and axis else 0.0  # int w'^2/2 dx, w' = rotation x/L
    if dim == 2:
        assert tip["elastic_angle"] == pytest.approx(rotation, rel=1e-9)
        assert tip["elastic_y"] == pytest.approx(deflection, rel=1e-9)
        assert abs(tip["elastic_x"] + shortening) <= 1e-9 * deflection
        return
    turned = [tip[f"elastic_r{k}"] for k in "123"]
    along = [tip[f"elastic_{k}"] for k in "123"]
    expected_turn = np.eye(3)[axis] * rotation
    expected_along = {0: np.zeros(3), 1: [-shortening, 0.0, -deflection], 2: [-shortening, deflection, 0.0]}[axis]
    assert np.abs(np.subtract(turned, expected_turn)).max() <= 1e-9 * rotation
    assert np.abs(np.subtract(along, expected_along)).max() <= 1e-9 * deflection


def torque_scale(t):
    return 0.5 + np.sin(3.0 * t)


@pytest.mark.parametrize("kind", ["rigid", "beam"])
@pytest.mark.parametrize("dim", [2, 3])
def test_free_body_under_a_torque(dim, kind):
    """A free body, rigid or a flexible beam (6 elements, stiffening, the torque on the section at an
    interior point, which turns with it), spinning about a skew axis under the torque (0.5 + sin 3t) T:
    the energy balance H - H0 - W of the energy-momentum scheme holds to round-off (1e-12 of H), the
    linear momentum stays constant, and the angular momentum grows by the torque's impulse,
    sum dt (0.5 + sin 3 t_mid) T over the steps (the scheme's mid-point rule), to 1e-12 of it."""
    b = ModelBuilder(dim)
    rotation = rotation_3d([1.0, 2.0, 3.0], 0.4)  # the body's initial orientation in space
    torque = rotation @ [0.02, -0.5, 0.8] if dim == 3 else 0.7  # little about d_1 (a beam's rho I_p L is small)
    if kind == "rigid":
        b.add_body("body", 2.0, [0.1, 0.2, 0.3][:dim])
        point = None
    else:
        section = Section.rectangle(0.01, 0.02)
        b.add_beam("body", BeamBody.straight(1.0, 6, section, 2.1e11, 7850.0, dim=dim, axial="cubic",
                                             poisson=NU), stiffening=True)
        point = [0.4] + [0.0] * (dim - 1)
    b.add_point_torque("body", torque, torque_scale, point)
    model = b.build()
    if dim == 2:
        pose = {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2], "angular_velocity": 5.0}
    else:
        pose = {"position": [0.2, -0.1, 0.3], "rotation": rotation,
                "velocity": [0.5, -0.2, 0.1], "angular_velocity": np.array([3.0, 5.0, -5.0])}
    q, v = place(model, {"body": pose}, {})
    r = simulate(prepare(model, q, v), SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    if kind == "beam":
        assert np.abs(model.worlds[0].elastic_coordinates(r.q)).max() > 1e-7  # the torque bends it
    assert np.abs(r.work).max() > 0.05 * r.total.max()  # the torque does work
    assert np.abs(r.total - r.total[0] - r.work).max() <= 1e-12 * r.total.max()
    p_scale = np.sqrt(2.0 * r.kinetic.max() * model.bodies[0].mass)
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-12 * p_scale
    impulse = np.concatenate([[0.0], np.cumsum(torque_scale(r.t_mid) * r.dt)])[:, None] * np.atleast_1d(torque)
    change = r.angular_momentum - r.angular_momentum[0]
    assert np.abs(change - impulse).max() <= 1e-12 * np.abs(r.angular_momentum).max()
