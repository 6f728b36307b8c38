"""The generalized-alpha stepper (Arnold & Bruls 2007, index 3; Chung & Hulbert parameters): exact
Newton matrices for every constraint family and force, second-order convergence against an
independent minimal-coordinate solution, constraints to round-off, and the numerical dissipation
set by rho_inf (high frequencies decay per step by the spectral radius, low ones are kept)."""
import math

import numpy as np
import pytest
from conftest import CASES, flexible_pendulum
from test_accuracy import double_pendulum_ode
from test_components import all_joints_model
from test_flexible import free_beam

from femdyn.integrators.generalized_alpha import GeneralizedAlpha, chung_hulbert
from femdyn.integrators.newton import NewtonOptions
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.io.case import load_case
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place

GA = "generalized-alpha"


def orders(errors):
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


# --- Newton matrix ---------------------------------------------------------------------------
def friction_slipping():
    case = load_case(CASES / "friction_oscillator.toml")
    states = [s - 0.2 if s is not None else s for s in case.model.initial_states(case.q0)]  # |E e| > F_max
    return case.model, case.q0, case.v0, states


def rpr_servos():
    case = load_case(CASES / "rpr_figure8.toml")
    setup = prepare(case.model, case.q0, case.v0)
    return setup.model, setup.q0, setup.v0, None


def random_state(model, seed):
    rng = np.random.default_rng(seed)
    return model, rng.normal(size=model.n), rng.normal(size=model.n), None


def beam_with_stiffening():
    model, setup = free_beam(True)
    return model, setup.q0 + 1e-2 * np.random.default_rng(2).normal(size=model.n), setup.v0, None


MODELS = {
    "planar-joints-spring-damper-loads": lambda: random_state(all_joints_model(2), 1),
    "spatial-joints-spring-damper-loads": lambda: random_state(all_joints_model(3), 1),
    "flexible-beam-stiffening": beam_with_stiffening,
    "friction-slipping": friction_slipping,
    "servos-rpr": rpr_servos,
}


@pytest.mark.parametrize("name", MODELS)
def test_newton_matrix_is_the_derivative_of_the_residual(name):
    """At random (a_n, vd_n) and off-manifold q_n+1 with large multipliers, the assembled Newton
    matrix equals central differences of the residual in (q_n+1, scaled lam): the doubled mid-point
    tangents of the constraint families and forces, the continuous damper (with gamma' dF/dv) and the
    friction return map are the exact derivatives."""
    model, q, v, states = MODELS[name]()
    states = model.initial_states(q) if states is None else states
    rng = np.random.default_rng(0)
    stepper = GeneralizedAlpha(model, 0.01, rho_inf=0.7)
    stepper._carry = stepper.start(0.3, q, v, states)  # continue from (q, v) with random a_n, vd_n
    stepper._carry.a, stepper._carry.vd = rng.normal(size=model.n), rng.normal(size=model.n)
    step = stepper._begin(0.3, q, v, states)
    n, active = model.n, stepper.system.active

    def residual(x):
        lam = np.zeros(model.m)
        lam[active] = stepper.scale * x[n:]
        return stepper._newton_system(step, x[:n], lam)

    x = np.concatenate([q + 1e-3 * rng.normal(size=n), 1e3 * rng.normal(size=active.size) / stepper.scale])
    K = stepper.system.pattern.matrix(residual(x)[1]).toarray()
    J = np.empty_like(K)
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = 1e-6
        J[:, j] = (residual(x + e)[0] - residual(x - e)[0]) / 2e-6
    # the entries beyond the mass matrix (tangents) against their own scale
    mass = np.zeros_like(K)
    mass[:n, :n] = stepper.beta_p * model.mass_matrix.toarray()
    tangent = (K - mass)[:n, :n]
    np.testing.assert_allclose(J[:n, :n] - mass[:n, :n], tangent, atol=1e-7 * np.abs(tangent).max())
    np.testing.assert_allclose(J, K, atol=1e-8 * np.abs(K).max())


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


def test_early_stop_keeps_the_solution_within_the_tolerance_with_fewer_iterations():
    """``NewtonOptions.early_stop`` on the FEM 3-PRR (0.1 s, 50 steps of 2 ms, before its motion
    turns sensitive): the solution stays within the Newton tolerance of the plainly converged one,
    the constraints hold to the tolerance, and Newton needs fewer iterations per step."""
    case = load_case(CASES / "3prr_sine.toml", overrides={"solver.t_end": 0.1})
    setup = prepare(case.model, case.q0, case.v0)
    plain, early = (simulate(setup, SolverSettings(case.settings.dt, case.settings.t_end, integrator=GA,
                                                   rho_inf=case.settings.rho_inf, early_stop=flag))
                    for flag in (False, True))
    assert plain.complete and early.complete
    tolerance = NewtonOptions().tolerance
    assert np.abs(early.q - plain.q).max() <= tolerance * max(1.0, np.abs(plain.q).max())
    assert early.residual.max() <= tolerance
    assert early.iterations[1:].mean() <= plain.iterations[1:].mean() - 0.3


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
def oscillator(stiffness, mass=1.0, free_length=10.0, stretch=1e-3, rate=0.0):
    """A mass on a straight guide held by a spring to the ground: a linear oscillator along the
    guide, omega^2 = k/m. The long free length keeps the mirrored spring branch out of reach."""
    b = ModelBuilder(2)
    b.add_body("mass", mass, [0.01, 0.02])
    b.add_joint("guide", "prismatic", "ground", "mass", slide="x")
    b.add_spring_damper("spring", "ground", [0.0, 0.0], "mass", [0.0, 0.0], stiffness, 0.0, free_length)
    model = b.build()
    q, v = place(model, {}, {"guide": {"slide": free_length + stretch, "slide_rate": rate}})
    return model, prepare(model, q, v)


def linear_scheme(rho_inf, omega_h, steps):
    """The scheme written out for x'' = -omega^2 x in units of h, independently of the stepper:
    x_1..x_steps from x_0 = 1, v_0 = 0, a_0 = -omega^2, and the spectral radius of its amplification
    matrix on (x, h v, h^2 a)."""
    am, af, gamma, beta = chung_hulbert(rho_inf)
    w2 = omega_h**2

    def one_step(x, v, a):
        known = x + v + (0.5 - beta) * a
        x1 = ((1 - am) / beta * known - am * a - af * w2 * x) / ((1 - am) / beta + (1 - af) * w2)
        a1 = (x1 - known) / beta
        return np.array([x1, v + (1 - gamma) * a + gamma * a1, a1])

    A = np.column_stack([one_step(*e) for e in np.eye(3)])
    state, xs = np.array([1.0, 0.0, -w2]), []
    for _ in range(steps):
        state = A @ state
        xs.append(state[0])
    return np.array(xs), max(abs(np.linalg.eigvals(A)))


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
    np.testing.assert_allclose(displacement, stretch * expected, atol=1e-10)
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


# --- loads, servos, options --------------------------------------------------------------------
def test_servo_inputs_agree_with_the_energy_momentum_scheme(case_path):
    """The free-floating RPR manipulator following the figure-8 for 1.5 s (servo rows with the Boolean input
    matrix): constraints to round-off, linear momentum stays zero (the inputs are internal), and the
    step-mean inputs approach those of the energy-momentum scheme at second order."""
    case = load_case(case_path("rpr_figure8.toml"))
    setup = prepare(case.model, case.q0, case.v0)
    differences = []
    for dt in (0.02, 0.01):
        g = simulate(setup, SolverSettings(dt, 1.5, integrator=GA, rho_inf=0.8))
        e = simulate(setup, SolverSettings(dt, 1.5))
        assert g.complete and g.residual.max() <= 1e-12
        assert np.abs(g.momentum).max() <= 1e-10
        differences.append(np.abs(g.inputs - e.inputs).max())
    assert differences[1] <= 1e-3 * np.abs(e.inputs).max()
    assert abs(orders(differences)[0] - 2.0) <= 0.2, differences


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


def test_simulate_keeps_the_default_and_checks_the_options():
    model, setup = oscillator(40.0, stretch=0.3)
    r = simulate(setup, SolverSettings(0.05, 1.0))
    assert r.integrator == "energy-momentum"
    assert np.ptp(r.total) <= 1e-12 * r.total[0]
    with pytest.raises(ModelError, match="integrator"):
        simulate(setup, SolverSettings(0.05, 1.0, integrator="newmark"))
    for bad in (1.5, -0.1, float("nan"), "high"):
        with pytest.raises(ModelError, match="rho_inf"):
            simulate(setup, SolverSettings(0.05, 1.0, integrator=GA, rho_inf=bad))


def test_case_file_and_command_line_select_generalized_alpha(tmp_path):
    """``[solver] integrator``/``rho_inf`` and ``femdyn run --integrator --rho-inf`` reach the
    stepper: the double pendulum run through the CLI with generalized-alpha (rho_inf = 0.8, with its
    numerical dissipation) loses energy, and its angles match the minimal-coordinate solution to
    O(dt^2)."""
    from femdyn.cli import main
    from femdyn.io.tables import read_csv
    case = CASES / "double_pendulum.toml"
    out = tmp_path / "ga"
    assert main(["run", str(case), "--integrator", "generalized-alpha", "--rho-inf", "0.8", "--t-end", "1",
                 "--dt", "0.001", "--out", str(out), "--quiet", "--no-vtk", "--no-plots"]) == 0
    history = read_csv(out / "history.csv")
    model = load_case(case).model
    names = list(model.joint_coordinates)
    theta = double_pendulum_ode(history["t"], (history[names[0]][0], history[names[0]][0] + history[names[1]][0]))
    assert np.abs(history[names[0]] - theta[0]).max() < 1e-3
    assert history["total"][-1] < history["total"][0]  # generalized-alpha dissipates, a little
    text = (tmp_path / "ga.toml")
    text.write_text(case.read_text().replace("[solver]", "[solver]\nintegrator = \"generalized-alpha\"\nrho_inf = 0.5"))
    c = load_case(text)
    assert (c.settings.integrator, c.settings.rho_inf) == ("generalized-alpha", 0.5)
