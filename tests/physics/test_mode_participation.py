"""The effector's part in each natural mode (``model.participation``, ``femdyn modes``) against closed
forms: for ground -k1- m1 -k2- m2 on slides along x the mass-normalised modes are the eigenvectors of
K phi = omega^2 M phi with phi^T M phi = 1, the probe on m2 moves by phi_2 [kg^-1/2], and the effective
masses (phi^T M 1)^2 add up to m1 + m2 along x (the translation is free on the slides) and are zero
along y; a flexible link welded to a cart on a spring: over all modes its effective masses along the
guide add up to the cart's and the link's mass (rho A L), the flexible body's momentum included."""
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

import femdyn
from femdyn.beam.body import BeamBody, Section
from femdyn.cli import main
from femdyn.integrators.settings import SolverSettings
from femdyn.io.tables import read_csv
from femdyn.model.builder import ModelBuilder

CASES = Path(__file__).resolve().parents[2] / "cases"
SETTINGS = SolverSettings(dt=1e-3, t_end=0.01)
M1, M2, K1, K2 = 1.2, 0.7, 300.0, 150.0


def test_two_mass_chain_amplitude_and_effective_mass_are_the_closed_form():
    b = ModelBuilder(2)
    b.add_body("m1", M1, [0.01, 0.01])
    b.add_body("m2", M2, [0.01, 0.01])
    b.add_joint("s1", "prismatic", "ground", "m1")
    b.add_joint("s2", "prismatic", "ground", "m2")
    b.add_spring_damper("k1", "ground", [0.0, 0.0], "m1", [0.0, 0.0], K1, 0.0, 1.0)
    b.add_spring_damper("k2", "m1", [0.0, 0.0], "m2", [0.0, 0.0], K2, 0.0, 1.0)
    problem = femdyn.Problem(b, SETTINGS, bodies={"m1": {"position": [1.0, 0.0]}, "m2": {"position": [2.0, 0.0]}},
                             probes={"tip": ("m2", [0.0, 0.0])})
    modes = problem.modes(count=2)
    mass = np.diag([M1, M2])
    omega2, phi = scipy.linalg.eigh(np.array([[K1 + K2, -K2], [-K2, K2]]), mass)  # phi^T M phi = I
    assert modes.omega**2 == pytest.approx(omega2, rel=1e-12)
    a = modes.amplitude["tip"]
    assert np.abs(np.abs(a[:, 0]) - np.abs(phi[1])).max() < 1e-12 * np.abs(phi).max()  # sign: the mode's
    assert np.abs(a[:, 1]).max() < 1e-12 * np.abs(phi).max()
    exact = (phi.T @ mass @ np.ones(2)) ** 2
    assert modes.effective_mass[:, 0] == pytest.approx(exact, rel=1e-12)
    assert modes.effective_mass[:, 0].sum() == pytest.approx(M1 + M2, rel=1e-12) == modes.total_mass
    assert np.abs(modes.effective_mass[:, 1]).max() < 1e-20
    # the reciprocal effective masses at the probe, 1/(a.e)^2, add up to 1/m2 (sum phi phi^T = M^-1)
    assert np.sum(a[:, 0] ** 2) == pytest.approx(1 / M2, rel=1e-12)


def test_flexible_link_on_a_cart_effective_masses_add_up_to_the_total_mass():
    cart, section = 0.5, Section.rectangle(0.02, 0.01)
    link_mass = 7850.0 * section.area * 1.0
    b = ModelBuilder(2)
    b.add_beam("link", BeamBody.straight(1.0, 2, section, 2.1e11, 7850.0))
    b.add_body("cart", cart, [0.01, 0.01])
    b.add_joint("guide", "prismatic", "ground", "cart")
    b.add_joint("weld", "fixed", "cart", "link")
    b.add_spring_damper("k", "ground", [-1.0, 0.0], "cart", [0.0, 0.0], 1e4, 0.0, 1.0)
    pose = {"position": [0.0, 0.0], "angle": 0.0}
    problem = femdyn.Problem(b, SETTINGS, bodies={"cart": pose, "link": pose}, probes={"tip": ("link", [1.0, 0.0])})
    modes = problem.modes(count=50)  # all of them: the cart and the link's 6 elastic coordinates
    assert len(modes.omega) == 7
    assert modes.effective_mass[:, 0].sum() == pytest.approx(cart + link_mass, rel=1e-10)
    assert modes.total_mass == pytest.approx(cart + link_mass, rel=1e-14)
    assert modes.effective_mass[:, 1].sum() < link_mass  # across the guide the ground holds part of the mass


def test_modes_command_leads_with_the_effector(tmp_path, capsys):
    """``femdyn modes``: the printed table's columns after the frequencies are the probe's amplitude and the
    effective masses, before the bodies' motion in words; modes.csv has them with units.json's units."""
    out = tmp_path / "modes"
    assert main(["modes", str(CASES / "five_bar_flexible.toml"), "--count", "2", "--no-vtk", "--out", str(out)]) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if line.lstrip().startswith("mode"))
    assert header.index("f [Hz]") < header.index("|a| P [kg^-1/2]") < header.index("m_eff x [kg]") < header.index(
        "shape")
    table, units = read_csv(out / "modes.csv"), json.loads((out / "units.json").read_text())["modes.csv"]
    assert list(table)[3:] == ["P.amplitude_x", "P.amplitude_y", "effective_mass_x", "effective_mass_y"]
    assert units["P.amplitude_x"] == "kg^-1/2" and units["effective_mass_y"] == "kg"
    total = json.loads((out / "modes.json").read_text())["total_mass_kg"]
    assert 0 <= table["effective_mass_x"].sum() <= total and 0 <= table["effective_mass_y"].sum() <= total
