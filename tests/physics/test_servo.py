"""Servo constraints: inverse dynamics in one step (000 section 5, 001 section 5). The RPR effector
follows the figure-8 exactly with zero momenta, its torques converge at order 2, and the inputs of
the 3-RRR's servo run do exactly the work that changes its energy."""
import numpy as np
from shared import angular_momentum_scale, effector
from shared import run_file as run

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.joints.trajectories import FigureEight, SmoothRampAngle
from femdyn.reference import rrr
from femdyn.reference.models import rrr_platform


def test_rpr_follows_the_figure_eight_and_keeps_its_momenta(case_path):
    case, r = run(case_path("rpr_figure8.toml"))
    assert r.complete
    centre, rotation = effector(case, r)
    path = FigureEight(1 / 12, 1 / 16, SmoothRampAngle(1.0, 2.0, 3.0, np.pi))
    target = centre[0] + np.array([path.value(t) for t in r.t])
    assert np.abs(centre - target).max() <= 1e-10
    assert np.abs(rotation[:, 1, 0]).max() <= 1e-10  # d1 stays along e1: no rotation (eq. 82)
    assert np.abs(r.momentum).max() <= 1e-10
    assert np.abs(r.angular_momentum).max() <= 1e-10 * angular_momentum_scale(case.model, r)
    # the centre of mass of the whole system does not move
    masses = np.array([b.mass for b in case.model.bodies])
    centres = case.model.frames(r.q)[0]
    com = np.einsum("b,tbi->ti", masses, centres) / masses.sum()
    assert np.abs(com - com[0]).max() <= 1e-10
    # the inputs do the work: H - H0 = W to round-off
    assert np.abs(r.energy_balance).max() <= 1e-10 * np.abs(r.total).max()
    assert np.abs(r.inputs).max() > 1.0


def test_rpr_torques_converge_at_second_order(case_path):
    """The inputs are mid-step values; at the step nodes t = 0.5 + k 0.01, common to dt = 0.02 / 2^i,
    each run is read as the mean of its two neighbouring mid-step values (an O(dt^2) interpolation,
    the same for every run). Successive differences then shrink by 4."""
    case = load_case(case_path("rpr_figure8.toml"))
    setup = prepare(case.model, case.q0, case.v0)
    probes = np.arange(0.5, 2.99, 0.02)
    values = []
    for i in range(4):
        dt = 0.02 / 2**i
        r = simulate(setup, SolverSettings(dt, 3.0))
        values.append(np.stack([np.interp(probes, r.t_mid, r.inputs[:, k]) for k in range(3)]))
    differences = [np.abs(b - a).max() for a, b in zip(values, values[1:])]
    orders = np.log2(np.array(differences[:-1]) / np.array(differences[1:]))
    assert np.all(np.abs(orders - 2.0) <= 0.15), (differences, orders)


def test_servo_run_conserves_the_energy_balance(case_path):
    """The servo inputs do exactly the work that changes the energy: H - H0 = W to round-off."""
    case = load_case(case_path("3rrr_inverse.toml"))
    r = simulate(prepare(case.model, case.q0, case.v0), SolverSettings(0.01, 0.8))
    assert r.complete
    assert np.abs(r.energy_balance).max() <= 1e-11 * np.abs(r.total).max()
    np.testing.assert_allclose(rrr_platform(case.model, r.q), rrr.circle_trajectory(r.t)[0], rtol=0, atol=1e-12)
