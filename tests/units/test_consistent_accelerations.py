"""The consistent accelerations and multipliers of a state (``SaddleSystem.consistent``: generalized-alpha's
start, the multipliers of a run's first and last node), solved through KLU on the Newton matrix's fixed
pattern, satisfy the index-1 equations M a + Gbar^T lam = F and G a = -d/dt(G) v - d^2 Phi/dt^2 to
round-off (Gbar^T lam the constraint forces as the steps assemble them: G^T lam, and B^T lam of the
servo rows, 000 eq. 84), with d/dt(G v + dPhi/dt) taken independently by central differences of
``Model.jacobian``; and the
products G v on the fixed pattern (``model.jacobian.JacobianRows``) are those of ``Model.jacobian``, bit
for bit, with time-dependent rows and dropped rows."""
import numpy as np
import pytest
from shared import CASES, pinned_beam

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators.saddle import SaddleSystem
from femdyn.integrators.setup import prepare
from femdyn.model.jacobian import JacobianRows


def case_setup(name, **options):
    case = load_case(CASES / name, Options(**options) if options else None)
    return case.model, prepare(case.model, case.q0, case.v0, tolerance=case.settings.initial_tolerance)


MODELS = {
    "3prr-fem": lambda: case_setup("3prr_sine.toml", model="fem", elements=2),  # beams, a joint-angle family
    "spatial-pendulum": lambda: pinned_beam(3, elements=2),
    "rpr-servos": lambda: case_setup("rpr_figure8.toml"),  # servo rows: G and Phi depend on t
}


def moving_state(model, setup, seed):
    """q_0 and a velocity with G v = -dPhi/dt at t = 0.3 s (v_0 plus a random one projected onto the
    constraints' null space, least squares)."""
    q, t, rows = setup.q0, 0.3, setup.active_rows
    G = model.jacobian(q, rows, t).toarray()
    v = setup.v0 + np.random.default_rng(seed).normal(size=model.n)
    v -= np.linalg.lstsq(G, G @ v + model.phi_time_derivative(q, t)[rows], rcond=None)[0]
    return q, v, t


@pytest.mark.parametrize("name", MODELS)
def test_consistent_accelerations_solve_the_index_one_equations(name):
    model, setup = MODELS[name]()
    q, v, t = moving_state(model, setup, 4)
    system, states, dt = SaddleSystem(model, setup.active_rows), model.initial_states(q), 1e-3
    a, lam = system.consistent(t, q, v, states, dt)
    rows = setup.active_rows
    G = model.jacobian(q, rows, t)
    F = system.applied(q, q, t, dt, states, system.constant) + system.continuous_forces(q, v, t, dt, states,
                                                                                        system.varying)
    R = np.zeros(system.size)
    system.constrain(R, system.begin_step(q, t, midpoint=False), q, q, lam, 1.0)
    Ma, forces = model.mass_matrix @ a, R[: model.n]  # Gbar^T lam
    scale = max(np.abs(F).max(), np.abs(Ma).max(), np.abs(forces).max())
    assert np.abs(Ma + forces - F).max() <= 1e-11 * scale
    assert np.all(lam[np.setdiff1d(np.arange(model.m), rows)] == 0.0)

    def velocity_residual(s):  # G v + dPhi/dt along (q + s v, t + s)
        return model.jacobian(q + s * v, rows, t + s) @ v + model.phi_time_derivative(q + s * v, t + s)[rows]

    h = 1e-5
    gamma = (velocity_residual(h) - velocity_residual(-h)) / (2 * h)  # d/dt(G v + dPhi/dt), error O(h^2)
    assert np.abs(G @ a + gamma).max() <= 1e-8 * max(1.0, np.abs(gamma).max(), np.abs(G @ a).max())


@pytest.mark.parametrize("name", MODELS)
def test_jacobian_products_on_the_fixed_pattern_are_model_jacobians(name):
    model, setup = MODELS[name]()
    q, v, t = moving_state(model, setup, 5)
    q = q + 1e-2 * np.random.default_rng(6).normal(size=model.n)  # off the manifold: every entry generic
    for rows in (None, setup.active_rows, setup.active_rows[::2]):
        G = JacobianRows(model, rows)
        assert not G.duplicates
        assert np.array_equal(G.times(q, v, t), model.jacobian(q, rows, t) @ v)
