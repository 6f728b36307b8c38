"""Algorithmic conservation of the energy-momentum scheme (000 Remark 2.1, Figs. 5 and 10): once the
loads stop, total energy, linear and angular momentum stay at their values to round-off for any dt,
and the constraints hold at every step."""
import numpy as np
import pytest
from shared import angular_momentum_scale, damped_oscillator, flexible_pendulum

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.model.builder import ModelBuilder, euler_from_inertia
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d

TOL = 1e-10


def run_case(path, dt):
    case = load_case(path)
    setup = prepare(case.model, case.q0, case.v0, case.settings.initial_tolerance)
    return case.model, simulate(setup, SolverSettings(dt, case.settings.t_end))


def assert_conserved(model, r, free):
    """Energy, momenta constant over the steps ``free`` (after the loads), constraints always."""
    assert r.complete, r.message
    H = r.total[free]
    assert np.ptp(H) <= TOL * np.abs(H).max()
    p = r.momentum[free]
    p_scale = np.sqrt(2.0 * r.kinetic.max() * sum(b.mass for b in model.bodies))
    assert np.abs(p - p[0]).max() <= TOL * p_scale
    L = r.angular_momentum[free]
    assert np.abs(L - L[0]).max() <= TOL * angular_momentum_scale(model, r)
    assert r.residual.max() <= TOL


@pytest.mark.parametrize("dt", [0.1, 0.05, 0.01])
def test_nm_logo_conserves_after_the_torque(case_path, dt):
    model, r = run_case(case_path("nm_logo.toml"), dt)
    assert_conserved(model, r, r.t >= 0.5 - 1e-12)
    # an internal torque leaves the momenta at zero from the start
    assert np.abs(r.angular_momentum).max() <= TOL * angular_momentum_scale(model, r)
    assert np.abs(r.momentum).max() <= TOL


@pytest.mark.parametrize("dt", [0.1, 0.05, 0.01])
def test_linear_guide_conserves(case_path, dt):
    model, r = run_case(case_path("linear_guide.toml"), dt)
    assert_conserved(model, r, slice(None))


def test_energy_balance_while_the_torque_acts(case_path):
    """During the hat torque, H_n - H_0 equals the work of the torque to round-off (discrete balance)."""
    model, r = run_case(case_path("nm_logo.toml"), 0.01)
    assert r.work[-1] > 0.1
    assert np.abs(r.energy_balance).max() <= TOL * r.total.max()


def test_torque_free_spatial_body_conserves_energy_and_angular_momentum():
    b = ModelBuilder(3)
    b.add_body("top", 2.0, euler_from_inertia([0.5, 1.0, 1.4]))
    model = b.build()
    q, v = place(model, {"top": {"position": [0.1, 0.0, 0.0], "rotation": rotation_3d([1, 1, 0], 0.4),
                                 "velocity": [0.3, -0.1, 0.2], "angular_velocity": np.array([1.0, 4.0, 0.5])}}, {})
    r = simulate(prepare(model, q, v), SolverSettings(0.02, 10.0))
    L = r.angular_momentum
    assert np.ptp(r.total) <= TOL * r.total[0]
    assert np.abs(L - L[0]).max() <= TOL * np.linalg.norm(L[0])
    assert r.residual.max() <= TOL
    # the body does tumble: the angular velocity in the body frame changes (intermediate axis)
    d = r.q[:, 3:12].reshape(-1, 3, 3)
    dd = r.v[:, 3:12].reshape(-1, 3, 3)
    omega_body = 0.5 * np.einsum("tai,tbi->tab", d, dd)  # skew part gives body angular velocity
    assert np.ptp(omega_body[:, 1, 2]) > 0.5


def test_spring_conserves_and_damper_dissipates_exactly():
    model, setup = damped_oscillator(0.0)
    r = simulate(setup, SolverSettings(0.05, 5.0))
    assert np.ptp(r.total) <= TOL * r.total[0]
    model, setup = damped_oscillator(0.8)
    r = simulate(setup, SolverSettings(0.05, 5.0))
    assert r.total[-1] < 0.2 * r.total[0]
    assert np.abs(r.energy_balance).max() <= TOL * r.total[0]


def test_energy_balance_checks_the_discrete_gradient_of_the_elastic_forces(monkeypatch):
    """The step's work leaves out conservative varying forces (their discrete gradient does no work by
    construction), so H - H_0 - W tests that gradient: with the beams' discrete gradient the falling
    flexible pendulum keeps its balance to round-off of its kinetic energy; with the elastic force at
    the mid-point in its place (eps(q_mid) instead of the mean strain: no discrete gradient) the same
    run is off by far more, which a work that counted the elastic forces would have cancelled."""
    from femdyn.beam.elasticity import BeamElasticity

    model, setup = flexible_pendulum(8)
    exact = simulate(setup, SolverSettings(1e-3, 0.2))
    scale = np.abs(exact.kinetic).max()
    assert np.abs(exact.energy_balance).max() <= 1e-11 * scale

    discrete_gradient = BeamElasticity.discrete_force

    def midpoint(self, qa, qb, t_mid, dt, state=None):
        q_mid = 0.5 * (qa + qb)
        return discrete_gradient(self, q_mid, q_mid, t_mid, dt, state)

    monkeypatch.setattr(BeamElasticity, "discrete_force", midpoint)
    model, setup = flexible_pendulum(8)
    inexact = simulate(setup, SolverSettings(1e-3, 0.2))
    assert inexact.complete
    assert np.abs(inexact.energy_balance).max() >= 100 * np.abs(exact.energy_balance).max()
