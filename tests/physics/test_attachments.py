"""Masses attached at material points of a flexible body (``[[attachments]]`` in case files) against beam
theory: a clamped cantilever carrying a tip mass, its static deflection under gravity and its lowest
natural frequency from the exact frequency equation of the Euler-Bernoulli cantilever with a tip mass;
a free link carrying a motor and a tool conserving energy and both momenta."""
from dataclasses import replace

import numpy as np
from scipy.optimize import brentq
from shared import TIGHT

from femdyn.integrators.modes import natural_modes
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case

L, E, RHO, B, H = 0.8, 70e9, 2700.0, 0.02, 0.01  # m, Pa, kg/m^3, m, m
A, I = B * H, B * H**3 / 12
TIP = 0.25  # kg


def cantilever(tmp_path, elements, gravity=0.0, inertia=""):
    text = f"""\
dimension = 2
gravity = [0.0, {-gravity}]
[solver]
dt = 0.001
t_end = 0.01
[flexible]
elements = {elements}
geometric_stiffening = false
[[bodies]]
name = "arm"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[attachments]]
name = "gripper"
body = "arm"
point = [{L}, 0.0]
mass = {TIP}
{inertia}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "arm"]
[initial.bodies.arm]
position = [0.0, 0.0]
"""
    path = tmp_path / f"arm_{elements}.toml"
    path.write_text(text)
    return load_case(path)


def tip_mass_frequency():
    """Lowest root of 1 + cos(bL) cosh(bL) + mu bL (cos(bL) sinh(bL) - sin(bL) cosh(bL)) = 0,
    mu = m_tip / (rho A L) (the clamped-free beam with a point mass at its free end; e.g. Blevins,
    Formulas for Natural Frequency and Mode Shape, table 8-8), omega = (bL/L)^2 sqrt(E I / (rho A))."""
    mu = TIP / (RHO * A * L)
    f = lambda x: 1 + np.cos(x) * np.cosh(x) + mu * x * (np.cos(x) * np.sinh(x) - np.sin(x) * np.cosh(x))
    root = brentq(f, 0.1, 1.875104068711961)  # below the bare cantilever's 1.8751
    return (root / L) ** 2 * np.sqrt(E * I / (RHO * A))


def test_tip_mass_lowers_the_frequency_as_the_exact_equation_says(tmp_path):
    """The attached point mass (no rotary inertia) welded at the tip: the lowest frequency converges at
    order 4 in the elements to the root of the tip-mass frequency equation."""
    exact = tip_mass_frequency()
    errors = []
    for n in (2, 4, 8):
        case = cantilever(tmp_path, n)
        setup = prepare(case.model, case.q0, case.v0)
        modes = natural_modes(setup, k=1)
        errors.append(abs(modes.omega[0] / exact - 1))
    orders = np.log2(np.array(errors[:-1]) / errors[1:])
    assert errors[-1] < 5e-7 and np.all(orders > 3.8), (errors, orders)


def test_tip_mass_under_gravity_deflects_as_beam_theory(tmp_path):
    """Static tip deflection under gravity: the tip weight's m g L^3 / (3 E I) plus the self weight's
    w L^4 / (8 E I) to round-off (Hermite elements are nodally exact for both loads; without stiffening
    the static equilibrium is the linear beam's)."""
    g = 9.81
    case = cantilever(tmp_path, 4, gravity=g, inertia="euler = [1e-4, 2e-5]")
    setup = prepare(case.model, case.q0, case.v0)
    eq = static_equilibrium(setup)
    o = case.model.bodies[1].offset  # the gripper's centre is the tip
    deflection = -eq.q[o + 1]
    exact = TIP * g * L**3 / (3 * E * I) + RHO * A * g * L**4 / (8 * E * I)
    assert abs(deflection / exact - 1) < 1e-12, (deflection, exact)



FREE = """\
dimension = 3
[solver]
dt = 0.002
t_end = 0.3
[flexible]
elements = 4
[[bodies]]
name = "arm"
beam = {length = 0.8, young = 70e9, density = 2700.0, b = 0.02, h = 0.01, poisson = 0.33}
[[attachments]]
name = "motor"
body = "arm"
point = [0.3, 0.0, 0.0]
mass = 0.4
inertia = [2e-4, 3e-4, 4e-4]
[[attachments]]
name = "tool"
body = "arm"
point = [0.8, 0.0, 0.0]
mass = 0.1
[initial.bodies.arm]
position = [0.1, 0.2, 0.3]
velocity = [0.3, -0.1, 0.2]
angular_velocity = [1.0, 4.0, -2.0]
elastic_rate = {mode = 1, amplitude = 0.05}
"""


def test_a_free_link_with_attached_masses_conserves_energy_and_momenta(tmp_path):
    """A free flexible link carrying a motor (mass and inertia) and a tool (a point mass), spinning about a
    skew axis while it vibrates: energy, linear and angular momentum constant to 1e-11 relative with the
    energy-momentum scheme at the Newton tolerance of the conservation tests (the attachments are bodies
    welded by bilinear joint rows)."""
    path = tmp_path / "free.toml"
    path.write_text(FREE)
    case = load_case(path)
    r = simulate(prepare(case.model, case.q0, case.v0), replace(case.settings, **TIGHT))
    assert r.complete, r.message
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    p = np.linalg.norm(r.momentum, axis=1).max()
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-11 * p
    L = np.linalg.norm(r.angular_momentum, axis=1).max()
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * L
