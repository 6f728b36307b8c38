"""Joint friction as 1D plasticity with the energy-consistent algorithmic force (001 sections 4-6)."""
import numpy as np

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case


def run(path, dt=None):
    case = load_case(path)
    setup = prepare(case.model, case.q0, case.v0, case.settings.initial_tolerance)
    return case, simulate(setup, SolverSettings(dt or case.settings.dt, case.settings.t_end))


def test_friction_oscillator_energy_balance_in_every_step(case_path):
    """H_n+1 - H_n + D_n = W_n (001 eq. 14 and the consistency condition R = 0) in every step, with
    the work of the drive W_n = f(t_mid) (x_n+1 - x_n) computed here; D_n >= 0; the mass both sticks
    (D_n = 0) and slips (D_n > 0)."""
    case, r = run(case_path("friction_oscillator.toml"))
    assert r.complete
    x = r.q[:, case.model.joint_coordinates["x"]]
    drive = 8.0 * np.sin(2 * np.pi * 0.5 * r.t_mid) * np.diff(x)
    dissipated = np.diff(r.dissipation)
    balance = np.diff(r.total) + dissipated - drive
    assert np.abs(balance).max() <= 1e-12 * np.abs(r.total).max()
    assert dissipated.min() >= 0.0
    stick, slip = np.sum(dissipated == 0.0), np.sum(dissipated > 0.0)
    assert stick > 50 and slip > 50
    assert r.dissipation[-1] > 1.0  # a real share of the drive's work is dissipated


def test_friction_raises_the_rpr_driving_torques_where_the_joints_slide(case_path):
    """001 Fig. 5a: with friction (E = 350, F_max = 50, dt = 0.01) the torques exceed the
    conservative ones wherever a joint slides; the path is still followed exactly."""
    _, plain = run(case_path("rpr_figure8.toml"), dt=0.01)
    case, rough = run(case_path("rpr_figure8_friction.toml"))
    assert rough.complete and np.array_equal(plain.t, rough.t)
    sliding = np.diff(rough.dissipation) > 0
    assert sliding.sum() > 50
    top_rough = np.abs(rough.inputs).max(axis=1)
    top_plain = np.abs(plain.inputs).max(axis=1)
    assert np.all(top_rough[sliding] > top_plain[sliding])
    assert np.abs(rough.inputs).max() > 45.0  # close to F_max = 50 while sliding
    assert np.abs(rough.energy_balance).max() <= 1e-10 * np.abs(rough.total + rough.dissipation).max()
