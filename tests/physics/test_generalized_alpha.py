"""The generalized-alpha stepper (Arnold & Bruls 2007, index 3; Chung & Hulbert parameters) against
physics: second-order convergence against an independent minimal-coordinate solution, multipliers
included, constraints to round-off, the numerical dissipation set by rho_inf (high frequencies decay
per step by the spectral radius, low ones are kept) and energy errors of second order. Its Newton
matrices and early stop are in ``units/test_generalized_alpha_newton.py``."""
import math

import numpy as np
import pytest
from shared import CASES, double_pendulum_ode, flexible_pendulum, oscillator

from femdyn.integrators.generalized_alpha import GeneralizedAlpha, chung_hulbert, damped_extrapolation
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

GA = "generalized-alpha"


def orders(errors):
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


# --- accuracy --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def moving_double_pendulum():
    """The double pendulum released from -60 / +45 deg with joint rates 2 and -1 rad/s."""
    case = load_case(CASES / "double_pendulum.toml")
    model = case.model
    q, v = place(model, {}, {"hinge1": {"angle": -math.pi / 3, "angle_rate": 2.0},
                             "hinge2": {"angle": math.pi / 4, "angle_rate": -1.0}})
    return model, prepare(model, q, v)


def joint_states(model, y, k):
    """Coordinates and velocities of the reference solution y at sample k."""
    return place(model, {}, {"hinge1": {"angle": y[0][k], "angle_rate": y[2][k]},
                             "hinge2": {"angle": y[1][k] - y[0][k], "angle_rate": y[3][k] - y[2][k]}})


@pytest.mark.parametrize("rho_inf", [0.0, 0.8, 1.0])
def test_double_pendulum_converges_at_second_order(moving_double_pendulum, rho_inf):
    """Absolute angles and their rates against solve_ivp (rtol 1e-12) over 0.5 s: the errors of q and
    v fall by 4 per halving of dt (order 2 +- 0.1) for any rho_inf, and the constraints hold to
    round-off in every step."""
    model, setup = moving_double_pendulum
    i1, i2 = model.joint_coordinates["theta1"], model.joint_coordinates["theta2"]
    eq, ev = [], []
    for dt in (0.01, 0.005, 0.0025):
        r = simulate(setup, SolverSettings(dt, 0.5, integrator=GA, rho_inf=rho_inf))
        assert r.complete and r.integrator == GA
        y = double_pendulum_ode(r.t, (r.q[0, i1], r.q[0, i1] + r.q[0, i2]), (2.0, 1.0))
        eq.append(max(np.abs(r.q[:, i1] - y[0]).max(), np.abs(r.q[:, i1] + r.q[:, i2] - y[1]).max()))
        ev.append(max(np.abs(r.v[:, i1] - y[2]).max(), np.abs(r.v[:, i1] + r.v[:, i2] - y[3]).max()))
        assert r.residual.max() <= 1e-12
    assert np.all(np.abs(orders(eq) - 2.0) <= 0.1), (eq, orders(eq))
    assert np.all(np.abs(orders(ev) - 2.0) <= 0.1), (ev, orders(ev))
    assert eq[-1] < 1e-4 and ev[-1] < 1e-3, (eq, ev)


def test_multipliers_converge_at_second_order_after_the_start(moving_double_pendulum):
    """rho_inf = 0.5: the multipliers carry an O(dt) start-up transient (index 3) that decays like
    rho_inf^n; at t = 0.3 .. 0.5 s they match the exact multipliers of the reference state (from the
    consistent-acceleration solve) at second order."""
    model, setup = moving_double_pendulum
    probes, t_end = (0.3, 0.4, 0.5), 0.5
    errors = []
    for dt in (0.01, 0.005, 0.0025):
        stepper = GeneralizedAlpha(model, dt, setup.active_rows, rho_inf=0.5)
        q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
        steps = round(t_end / dt)
        samples = {round(p / dt) for p in probes}
        got = {}
        for k in range(steps):
            r = stepper.step(k * dt, q, v, lam, states)
            q, v, lam, states = r.q, r.v, r.lam, r.states
            if k + 1 in samples:
                got[k + 1] = lam.copy()
        y = double_pendulum_ode(np.arange(steps + 1) * dt, (-math.pi / 3, -math.pi / 12), (2.0, 1.0))
        reference = GeneralizedAlpha(model, dt, setup.active_rows)
        err = 0.0
        for k, lam in got.items():
            _, exact = reference.accelerations(k * dt, *joint_states(model, y, k), states)
            err = max(err, np.abs(lam - exact)[setup.active_rows].max())
        errors.append(err)
    assert np.all(np.abs(orders(errors) - 2.0) <= 0.2), (errors, orders(errors))


# --- numerical dissipation -------------------------------------------------------------------
def linear_scheme(rho_inf, omega_h, steps):
    """The scheme written out for x'' = -omega^2 x in units of h, independently of the stepper:
    (x, h v, h^2 a) of steps 1..steps (rows) from x_0 = 1, v_0 = 0, a_0 = -omega^2, and the spectral radius of its
    amplification matrix on (x, h v, h^2 a)."""
    am, af, gamma, beta = chung_hulbert(rho_inf)
    w2 = omega_h**2

    def one_step(x, v, a):
        known = x + v + (0.5 - beta) * a
        x1 = ((1 - am) / beta * known - am * a - af * w2 * x) / ((1 - am) / beta + (1 - af) * w2)
        a1 = (x1 - known) / beta
        return np.array([x1, v + (1 - gamma) * a + gamma * a1, a1])

    A = np.column_stack([one_step(*e) for e in np.eye(3)])
    state, states = np.array([1.0, 0.0, -w2]), []
    for _ in range(steps):
        state = A @ state
        states.append(state)
    return np.array(states), max(abs(np.linalg.eigvals(A)))


@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.8, 1.0])
def test_high_frequencies_decay_by_the_spectral_radius(rho_inf):
    """A stiff oscillator, omega dt = 100, released from a stretch x_0: the stepper reproduces the
    written-out linear scheme step by step, and the amplitude falls per step by its spectral radius,
    rho_inf + O(1/(omega dt)) (within 0.05): the roots of the three-term recurrence fitted to the
    displacements (the per-step amplification factors, independent of the phase) match it.
    rho_inf = 0 removes the oscillation within three steps (after a transient of x_0/2 in step 2),
    rho_inf = 1 keeps its energy."""
    k, stretch = 1e6, 1e-3
    model, setup = oscillator(k, stretch=stretch)
    x = model.joint_coordinates["x"]
    dt = 100.0 / math.sqrt(k)
    r = simulate(setup, SolverSettings(dt, 30 * dt, integrator=GA, rho_inf=rho_inf))
    displacement = r.q[1:, x] - 10.0
    expected, radius = linear_scheme(rho_inf, 100.0, 30)
    np.testing.assert_allclose(displacement, stretch * expected[:, 0], atol=1e-10)
    assert abs(radius - rho_inf) <= 0.05
    if rho_inf == 0.0:
        assert np.abs(displacement[2:]).max() <= 1e-3 * stretch
    elif rho_inf == 1.0:
        assert np.ptp(r.total) <= 1e-9 * r.total[0]
    else:  # x_n+1 = p x_n + q x_n-1 + r x_n-2 over steps 1..20
        d = displacement[:20]
        coefficients = np.linalg.lstsq(np.column_stack([d[2:-1], d[1:-2], d[:-3]]), d[3:], rcond=None)[0]
        measured = np.abs(np.roots([1.0, *-coefficients])).max()
        assert abs(measured - radius) <= 0.01, (measured, radius)
    assert r.residual.max() <= 1e-12


@pytest.mark.parametrize("rho_inf", [0.5, 0.8, 0.9])
def test_the_damped_newton_start_follows_stiff_accelerations(rho_inf):
    """Newton's second start (``damped_extrapolation``: a_n+1 from a_n, a_n-1, a_n-2) is exact for constant
    accelerations and for (B + C n) (-rho_inf)^n, and on the scheme written out for a stiff oscillator
    released from a stretch -- whose accelerations alternate in sign and shrink by about rho_inf per step --
    it predicts a_n+1 within O(1/(omega h)^2) of max |a| -- 1e-5 at omega h = 1e4, 2e-2 at 100, and the
    error 100 times smaller at 1e4 than at 1e3 (within 20 %) --, where the linear extrapolation 2 a_n - a_n-1
    is off by more than 3 max |a|."""
    d = np.array(damped_extrapolation(rho_inf))
    n = np.arange(12.0)
    a = 2.0 + (0.3 - 1.7 * n) * (-rho_inf) ** n
    predicted = d[0] * a[2:-1] + d[1] * a[1:-2] + d[2] * a[:-3]
    assert np.abs(predicted - a[3:]).max() <= 1e-14 * np.abs(a).max()
    errors = {}
    for omega_h in (1e4, 1e3, 100.0):
        a = linear_scheme(rho_inf, omega_h, 30)[0][:, 2]
        predicted = d[0] * a[2:-1] + d[1] * a[1:-2] + d[2] * a[:-3]
        errors[omega_h] = np.abs(predicted - a[3:]).max() / np.abs(a[3:]).max()
        assert np.abs(2.0 * a[2:-1] - a[1:-2] - a[3:]).max() >= 3.0 * np.abs(a[3:]).max()
    assert errors[1e4] <= 1e-5 and errors[100.0] <= 2e-2, errors
    assert 80.0 <= errors[1e3] / errors[1e4] <= 120.0, errors  # second order in 1 / (omega h)


@pytest.mark.parametrize("rho_inf", [0.0, 0.5, 0.9])
def test_low_frequencies_keep_their_energy(rho_inf):
    """omega dt = 2 pi / 25 .. 2 pi / 100 (period 1 s): over 3 periods the oscillator loses a
    fraction of its energy that vanishes faster than dt^2 (measured: dt^3), and is small."""
    model, setup = oscillator(4.0 * math.pi**2, stretch=0.3)
    losses = []
    for dt in (0.04, 0.02, 0.01):
        r = simulate(setup, SolverSettings(dt, 3.0, integrator=GA, rho_inf=rho_inf))
        losses.append(1.0 - r.total[-1] / r.total[0])
    assert all(loss > 0 for loss in losses)
    assert np.all(orders(losses) >= 2.5), (losses, orders(losses))
    assert losses[-1] <= {0.0: 1e-2, 0.5: 5e-4, 0.9: 2e-6}[rho_inf]


def test_rho_one_keeps_the_energy_of_a_linear_oscillator():
    """rho_inf = 1 is the trapezoidal rule: the energy of a linear oscillator is kept to round-off."""
    model, setup = oscillator(4.0 * math.pi**2, stretch=0.3, rate=1.0)
    r = simulate(setup, SolverSettings(0.02, 5.0, integrator=GA, rho_inf=1.0))
    assert np.ptp(r.total) <= 1e-10 * r.total[0]


def swinging_pendulum():
    b = ModelBuilder(2)
    b.add_body("rod", 1.0, [1.0 / 12.0, 0.05**2 / 12.0])
    b.add_joint("hinge", "revolute", "ground", "rod", point1=[0.0, 0.0], point2=[-0.5, 0.0], angle="theta")
    b.set_gravity([0.0, -9.81])
    model = b.build()
    q, v = place(model, {}, {"hinge": {"angle": -0.3, "angle_rate": 4.0}})
    return model, prepare(model, q, v)


def test_conservative_pendulum_energy_error_is_small_and_second_order():
    """A pendulum swinging to 160 deg over 3 s, rho_inf = 0.8: the energy error stays below 1 % of
    the kinetic energy and falls by about 4 per halving of dt (no secular growth)."""
    model, setup = swinging_pendulum()
    errors = []
    for dt in (0.02, 0.01):
        r = simulate(setup, SolverSettings(dt, 3.0, integrator=GA, rho_inf=0.8))
        drift = np.abs(r.total - r.total[0]) / r.kinetic.max()
        half = len(drift) // 2
        assert drift[half:].max() <= 2.0 * drift[:half].max()
        errors.append(drift.max())
        assert r.residual.max() <= 1e-12
    assert errors[0] <= 1e-2
    assert 3.0 <= errors[0] / errors[1] <= 5.0, errors


def test_rho_one_is_only_weakly_stable_on_constraints():
    """The documented limitation of the index-3 scheme without numerical dissipation: for
    rho_inf = 1 the velocity component normal to the constraints, G v, grows (a Jordan block at -1),
    while rho_inf = 0.8 keeps it at the O(dt^2) level."""
    model, setup = swinging_pendulum()
    normal = {}
    for rho_inf in (1.0, 0.8):
        r = simulate(setup, SolverSettings(0.01, 2.0, integrator=GA, rho_inf=rho_inf))
        normal[rho_inf] = [np.abs(model.jacobian(r.q[k]) @ r.v[k]).max() for k in (100, 200)]
    assert normal[1.0][1] >= 10.0 * normal[1.0][0]
    assert max(normal[0.8]) <= 1e-2


# --- loads -------------------------------------------------------------------------------------
def test_energy_balance_with_a_torque_is_second_order(case_path):
    """NM logo under the hat torque: H_n - H_0 - W_n (trapezoidal work) is O(dt^2), not round-off."""
    case = load_case(case_path("nm_logo.toml"))
    setup = prepare(case.model, case.q0, case.v0)
    balance = []
    for dt in (0.02, 0.01):
        r = simulate(setup, SolverSettings(dt, case.settings.t_end, integrator=GA, rho_inf=0.8))
        balance.append(np.abs(r.energy_balance).max())
        assert r.work[-1] > 4.0
    assert balance[0] <= 0.03 * r.work[-1]
    assert abs(orders(balance)[0] - 2.0) <= 0.2, balance


def test_elasticity_does_no_work_and_the_energy_error_is_second_order():
    """The falling flexible pendulum under gravity and its own elasticity (conservative forces only):
    the step's work is zero to round-off (the elastic forces do no work, their potential is in H), so
    H_n - H_0 is the scheme's own energy error, and it converges at order 2."""
    model, setup = flexible_pendulum(8)
    energy_errors = []
    for dt in (2e-3, 1e-3, 5e-4):
        r = simulate(setup, SolverSettings(dt, 0.2, integrator=GA, rho_inf=0.9))
        assert r.complete and np.abs(r.work).max() <= 1e-14 * r.kinetic.max()
        energy_errors.append(np.abs(r.energy_balance).max())
    assert energy_errors[0] <= 2e-5 * r.kinetic.max()
    assert np.all(np.abs(orders(energy_errors) - 2.0) <= 0.1), energy_errors
