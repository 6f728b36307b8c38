"""Stable inversion of the non-minimum-phase single flexible link (femdyn.integrators.inversion): the
hub torque that makes the tip follow a rest-to-rest turn, checked by forward runs; the causal
inversion's exponential growth at the rate of the zero dynamics; the pre-actuation."""
import numpy as np
import pytest
from shared import flexible_link, observed_orders

from femdyn.integrators.inversion import forward_check, stable_inversion
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.time_loop import simulate
from femdyn.integrators.zero_dynamics import zero_dynamics

T, PRE, POST = 1.0, 0.2, 0.2  # the turn (0.5 rad, rest to rest) and the horizons around it (sigma PRE = 33)


@pytest.fixture(scope="module")
def link():
    return flexible_link("tip", 4)


def test_forward_run_with_the_stable_inversion_torque_follows_the_tip_path_at_order_2(link):
    model, setup = link
    errors = []
    for dt in (8e-3, 4e-3, 2e-3):
        inversion = stable_inversion(setup, dt, T, PRE, POST)
        forward = flexible_link(torque=inversion.loads()[0])
        # the same scheme and step reproduce the discrete inverse to round-off ...
        assert forward_check(setup, forward, inversion, T).max_error < 1e-10
        # ... and a run 8-32 times finer (the torque linear between the mid-times) follows the path to O(dt^2)
        errors.append(forward_check(setup, forward, inversion, T, dt=2.5e-4).max_error)
    assert errors[-1] < 1e-6  # m at the tip (the tip turns by 0.5 m)
    assert np.all(observed_orders(errors) > 1.9), errors


def test_causal_inversion_grows_at_the_rate_of_the_zero_dynamics(link):
    """The step-by-step servo run (energy-momentum, the trapezoidal rule on the zero dynamics) multiplies
    the deviation from the bounded inversion by g = (1 + sigma dt/2)/(1 - sigma dt/2) per step, the
    discrete exp(sigma dt); at sigma_1 dt ~ 1 the slowest zero's |g| is the largest (the others, with
    sigma dt > 2, give |g| < 2.3)."""
    model, setup = link
    sigma = zero_dynamics(setup).sigma
    dt = 6e-3
    causal = simulate(setup, SolverSettings(dt, T))
    assert not causal.complete  # it blows up ...
    bounded = stable_inversion(setup, dt, T, PRE, POST)
    k = len(causal.inputs)
    deviation = causal.inputs[:, 0] - bounded.inputs[int(round(PRE / dt)):][:k, 0]
    measured = np.log(np.abs(deviation[-9:-1] / deviation[-10:-2])).mean() / dt
    x = sigma[0] * dt
    predicted = np.log((1 + x / 2) / (1 - x / 2)) / dt
    assert abs(measured - predicted) < 0.01 * predicted, (measured, predicted, sigma[0])
    g = np.abs((1 + sigma[1:] * dt / 2) / (1 - sigma[1:] * dt / 2))
    assert np.all(np.log(g) / dt < 0.8 * predicted)  # the slowest zero dominates at this step


def test_stable_inversion_torque_starts_before_the_motion(link):
    """Pre-actuation: before t = 0 the output rests, yet the torque is not zero; it rises along the unstable
    manifold, like exp(sigma_1 t) (discretely g^k), from far below to its start value."""
    model, setup = link
    sigma = zero_dynamics(setup).sigma[0]
    dt = 2e-3
    inversion = stable_inversion(setup, dt, T, PRE, POST)
    u, t = inversion.inputs[:, 0], inversion.t_mid
    peak = np.abs(u).max()
    before = (t > -0.06) & (t < -0.01)
    assert np.all(np.abs(u[before]) > 1e-9 * peak)  # far above the round-off of the solve
    rate = np.polyfit(t[before], np.log(np.abs(u[before])), 1)[0]
    x = sigma * dt
    assert abs(rate - np.log((1 + x / 2) / (1 - x / 2)) / dt) < 0.03 * sigma, (rate, sigma)
    # the tip holds its start angle meanwhile: the hub turns back against the bending
    q = inversion.q[inversion.t < 0]
    assert np.abs(model.phi(q[-1], 0.0)[model.input_rows]).max() < 1e-12


def test_stable_inversion_torque_converges_to_the_rigid_link_torque_as_E_grows():
    """As E grows the zero dynamics stiffen (sigma ~ sqrt(E)) and the torque tends to that of the rigid
    link (modes = 0, a collocated servo problem: the ordinary causal run) at the same dt; the elastic part
    of the torque is quasi-static, of order 1/E: each factor 10 on E divides the difference by 10."""
    dt = 2e-3
    rigid = simulate(flexible_link("tip", modes=0)[1], SolverSettings(dt, T)).inputs[:, 0]
    start = int(round(PRE / dt))
    differences = []
    for young in (70e9, 7e11, 7e12):
        inputs = stable_inversion(flexible_link("tip", young=young)[1], dt, T, PRE, POST).inputs[:, 0]
        differences.append(np.abs(inputs[start : start + rigid.size] - rigid).max())
    ratios = np.array(differences[:-1]) / differences[1:]
    assert np.all(np.abs(ratios - 10.0) < 0.3), (differences, ratios)
    assert differences[-1] < 1e-4 * np.abs(rigid).max()


def test_stable_inversion_input_work_equals_the_change_of_energy(link):
    """The inversion's steps are energy-momentum steps (000 eqs. 5-7): with no dissipation the hub
    torque's work sum u_k (theta_k+1 - theta_k) equals H_k - H_0 at every node, to the Newton tolerance
    (H kinetic plus elastic energy); the energy returns to its start value after the rest-to-rest turn."""
    model, setup = link
    inversion = stable_inversion(setup, 4e-3, T, PRE, POST)
    H = np.array([model.kinetic(v) + model.potential(q) for q, v in zip(inversion.q, inversion.v)])
    theta = inversion.q[:, model.joint_coordinates["theta"]]
    work = np.cumsum(inversion.inputs[:, 0] * np.diff(theta))
    assert np.abs(H[1:] - H[0] - work).max() < 1e-11 * H.max()
    assert abs(H[-1] - H[0]) < 1e-9 * H.max()
