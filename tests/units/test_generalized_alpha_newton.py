"""The generalized-alpha stepper's Newton iteration: the assembled Newton matrix is the exact
derivative of the residual for every constraint family and force, and the early stop keeps the
solution within the Newton tolerance with fewer iterations."""
import numpy as np
import pytest
from shared import CASES, damped_free_bodies, free_beam
from test_components import all_joints_model

from femdyn.integrators.generalized_alpha import GeneralizedAlpha, _Carry
from femdyn.integrators.newton import NewtonOptions
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case

GA = "generalized-alpha"


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


def damped_beams(dim):
    """Free beams with material damping (world vectors and carriers), deformed off the manifold."""
    model, setup = damped_free_bodies(dim)
    return model, setup.q0 + 1e-2 * np.random.default_rng(3).normal(size=model.n), setup.v0, None


MODELS = {
    "planar-joints-spring-damper-loads": lambda: random_state(all_joints_model(2), 1),
    "spatial-joints-spring-damper-loads": lambda: random_state(all_joints_model(3), 1),
    "flexible-beam-stiffening": beam_with_stiffening,
    "damped-beams-planar": lambda: damped_beams(2),
    "damped-beams-spatial": lambda: damped_beams(3),
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
    # continue from (q, v) with random a_n, vd_n, lam_n (a random q_n is no configuration: the saddle
    # matrix of its consistent accelerations may be singular, so none are solved for)
    a, vd, lam_n = rng.normal(size=model.n), rng.normal(size=model.n), rng.normal(size=model.m)
    force = stepper._worked_forces(q, v, 0.3, states, stepper._constant_forces(q, 0.3, states), lam_n)
    stepper._carry = _Carry(0.3, q.copy(), v.copy(), a, vd, lam_n, force)
    step = stepper._begin(0.3, q, v, states)
    n, active = model.n, stepper.system.active

    def residual(x):
        lam = np.zeros(model.m)
        lam[active] = stepper.scale * x[n:]
        return stepper._newton_system(step, x[:n], lam)

    x = np.concatenate([q + 1e-3 * rng.normal(size=n), 1e3 * rng.normal(size=active.size) / stepper.scale])
    K = stepper.system.pattern.csc(residual(x)[1]).toarray()
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
