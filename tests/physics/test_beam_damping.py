"""Material damping of flexible bodies (``beam.damping``, ``forces.viscous``): a damped cantilever
started in its first mode decays per cycle by exp(-2 pi zeta / sqrt(1 - zeta^2)) in both integrators;
Rayleigh damping gives each mode zeta_i = alpha / (2 omega_i) + beta omega_i / 2; free damped bodies
(no joints, spinning, translating, deformed) keep their linear and angular momentum to round-off, and
the energy-momentum scheme's balance H - H0 - W = 0 with the damping's loss inside W and counted in
``dissipation`` holds to round-off."""
import numpy as np
import pytest
from shared import STEEL, damped_free_bodies

from femdyn.beam.body import BeamBody, Section
from femdyn.beam.damping import Damping
from femdyn.beam.modes import lowest_modes
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place


def cantilever(damping, elements=4, mode=1, amplitude=1e-3):
    """A 1 m steel cantilever (10 x 10 mm, world-vector FEM, no stiffening: linear), clamped to the ground
    at its first node, started at rest in its ``mode``-th mode (tip deflection about ``amplitude``)."""
    beam = BeamBody.straight(1.0, elements, Section.rectangle(0.01, 0.01), STEEL["young"], STEEL["rho"],
                             damping=damping)
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "beam")
    model = b.build()
    q, v = place(model, {"beam": {"position": [0.0, 0.0], "angle": 0.0}}, {})
    omega2, shapes = lowest_modes(beam.stiffness, beam.mass, mode)
    shape = shapes[:, mode - 1]
    q, v = model.flexible[0].with_elastic(q, v, amplitude * shape / np.abs(shape).max())
    return model, prepare(model, q, v), np.sqrt(omega2[mode - 1])


def peaks(t, y):
    """Times and values of the maxima of the sampled y(t), each refined by the parabola through it and
    its neighbours."""
    k = np.flatnonzero((y[1:-1] > y[:-2]) & (y[1:-1] >= y[2:])) + 1
    a, b, c = y[k - 1], y[k], y[k + 1]
    shift = 0.5 * (a - c) / (a - 2 * b + c)
    h = t[1] - t[0]
    return t[k] + shift * h, b - 0.25 * (a - c) * shift


@pytest.mark.parametrize("integrator", ["energy-momentum", "generalized-alpha"])
@pytest.mark.parametrize("zeta", [0.01, 0.05])
def test_damped_cantilever_decays_per_cycle_as_its_modal_ratio_says(zeta, integrator):
    """Modal damping ratio zeta on every mode, the first mode alone: successive maxima of the tip
    deflection fall by exp(-2 pi zeta / sqrt(1 - zeta^2)) per cycle, the logarithmic decrement within
    1 % (measured: far closer; the steps' own error at 400 per period is O((omega dt)^2) ~ 2e-4), and the
    damped period is 2 pi / (omega_1 sqrt(1 - zeta^2)) within 1e-3."""
    model, setup, omega = cantilever(Damping(ratio=zeta))
    period = 2 * np.pi / omega
    r = simulate(setup, SolverSettings(dt=period / 400, t_end=4.2 * period, integrator=integrator, rho_inf=0.9))
    tip = model.flexible[0].elastic_coordinates(r.q)[:, -2]  # u_2 of the last node
    times, maxima = peaks(r.t, tip)
    assert len(maxima) >= 4
    decrement = np.log(maxima[:-1] / maxima[1:])
    expected = 2 * np.pi * zeta / np.sqrt(1 - zeta**2)
    assert np.abs(decrement / expected - 1).max() <= 1e-2
    assert np.abs(np.diff(times) * omega * np.sqrt(1 - zeta**2) / (2 * np.pi) - 1).max() <= 1e-3
    # the energy lost, about 1 - exp(-2 zeta omega t) of it, is the damping's dissipation (generalized-alpha:
    # its trapezoidal work, and the numerical damping of rho_inf = 0.9 at omega dt = 0.016, 1e-7 per cycle)
    assert r.dissipation[-1] > 0.3 * r.total[0]
    assert abs(r.total[0] - r.total[-1] - r.dissipation[-1]) <= 1e-4 * r.total[0]


def test_energy_momentum_dissipation_is_the_energy_lost():
    """Energy-momentum, damped cantilever: the energy falls by exactly the damping's dissipation D of
    every step, H_n - H_0 + D_n = 0 to round-off (W = -D: no loads, the clamp does no work)."""
    model, setup, omega = cantilever(Damping(alpha=3.0, beta=1e-4))
    r = simulate(setup, SolverSettings(dt=2 * np.pi / omega / 100, t_end=0.3, tolerance=1e-13))
    scale = r.total[0]
    assert r.dissipation[-1] > 0.1 * scale
    assert np.all(np.diff(r.dissipation) >= 0)
    assert np.abs(r.total - r.total[0] + r.dissipation).max() <= 1e-12 * scale
    assert np.abs(r.work + r.dissipation).max() <= 1e-12 * scale


@pytest.mark.parametrize("dim", [2, 3])
def test_free_damped_bodies_keep_momenta_and_the_energy_balance(dim):
    """Two free bodies spinning, translating and vibrating, one of world vectors (Rayleigh damping),
    one of carriers (modal ratios): the damping takes a large share of the energy, yet linear and
    angular momentum stay constant to round-off (the damped coordinates are invariant under rigid
    motions), and H - H0 - W = 0 with W = -D to round-off."""
    model, setup = damped_free_bodies(dim, rate=0.05)
    r = simulate(setup, SolverSettings(dt=1e-3, t_end=0.15, tolerance=1e-13))
    H0 = r.total[0]
    assert r.dissipation[-1] > 0.05 * H0  # the damping worked
    assert np.abs(r.energy_balance).max() <= 1e-12 * H0
    assert np.abs(r.work + r.dissipation).max() <= 1e-12 * H0
    p_scale = np.sqrt(2.0 * r.kinetic.max() * sum(b.mass for b in model.bodies))
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-12 * p_scale
    L = np.abs(r.angular_momentum).max()
    assert L > 0
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-12 * L
