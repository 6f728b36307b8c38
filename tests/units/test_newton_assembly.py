"""The Newton iteration's residual and matrix in one compiled call (``SaddleSystem.assemble``,
``integrators.kernels.assemble``) against the NumPy composition it replaces -- the forces summed by
``SaddleSystem.applied``/``continuous_forces``, the constraints by ``constrain``, the forces' tangents
by ``add_tangent`` -- bit for bit, for both steppers, on models with several varying forces (two
spring-dampers, friction), constraint families outside the batch, a flexible beam and damped beams; and the
energy-momentum matrix against central differences of its residual (000 eqs. 5-7)."""
import numpy as np
import pytest
from shared import damped_free_bodies, flexible_pendulum, newton_matrix_by_differences
from test_components import all_joints_builder

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.generalized_alpha import GeneralizedAlpha

DT = 1e-3


def several_forces(dim):
    """Every joint type (joint-angle rows outside the batch), two spring-dampers, friction, gravity and
    loads; random coordinates."""
    b = all_joints_builder(dim)
    b.add_spring_damper("k2", "b1", [0.1] * dim, "b2", [-0.2] * dim, stiffness=12.0, damping=0.5, free_length=0.4)
    b.add_friction("theta", stiffness=50.0, max_force=0.3)
    model = b.build()
    return model, np.random.default_rng(dim).normal(size=model.n)


def pendulum():
    """The flexible pendulum of 6 elements at its initial configuration."""
    model, setup = flexible_pendulum(6)
    return model, setup.q0


def damped(dim):
    """Free beams with material damping (world vectors and carriers) at their initial state."""
    model, setup = damped_free_bodies(dim)
    return model, setup.q0


@pytest.fixture(params=["planar", "spatial", "pendulum", "damped-planar", "damped-spatial"])
def case(request):
    """(model, qa, va, qb, lam, states): a step's start and an iterate near it."""
    model, qa = {"planar": lambda: several_forces(2), "spatial": lambda: several_forces(3), "pendulum": pendulum,
                 "damped-planar": lambda: damped(2), "damped-spatial": lambda: damped(3)}[request.param]()
    rng = np.random.default_rng(7)
    va = rng.normal(size=model.n)
    qb = qa + DT * va + 1e-4 * rng.normal(size=model.n)
    return model, qa, va, qb, rng.normal(size=model.m), model.initial_states(qa)


def test_case_has_what_the_assembly_gathers(case):
    """The models exercise the paths of ``assemble``: two varying forces or more, or a beam."""
    model = case[0]
    system = EnergyMomentum(model, DT).system
    assert len(system.varying) >= 2 or model.flexible


def energy_momentum_parts(stepper, qa, va, qb, lam, states):
    system, dt = stepper.system, stepper.dt
    t_mid = 0.3 + 0.5 * dt
    inertia = 2.0 / dt * (system.mass_operator @ va)
    constant = system.applied(qa, qa, t_mid, dt, states, system.constant)
    return t_mid, inertia, constant, system.begin_step(qa, 0.3 + dt)


@pytest.mark.parametrize("tangents", [True, False], ids=["matrix", "residual"])
def test_energy_momentum_assembly_is_the_numpy_composition_bit_for_bit(case, tangents):
    model, qa, va, qb, lam, states = case
    stepper = EnergyMomentum(model, DT)
    system, dt = stepper.system, DT
    t_mid, inertia, constant, starts = energy_momentum_parts(stepper, qa, va, qb, lam, states)
    R, values = stepper._system(qa, qb, lam, t_mid, inertia, constant, starts, states, tangents)
    expected = np.empty(system.size)
    expected[: system.n] = (2.0 / dt**2 * (system.mass_operator @ (qb - qa)) - inertia - constant
                            - system.applied(qa, qb, t_mid, dt, states, system.varying))
    data = system.newton_values(2.0 / dt**2) if tangents else None
    system.constrain(expected, starts, qa, qb, lam, stepper.scale, 1.0 if tangents else None, data)
    if tangents:
        for k in system.varying:
            f = system.forces[k]
            system.add_tangent(data, k, f.tangent_values(qa[f.dofs], qb[f.dofs], t_mid, dt, states[k]), -1.0)
    assert np.array_equal(R, expected)
    assert (values is None) if not tangents else np.array_equal(values, data)


@pytest.mark.parametrize("tangents", [True, False], ids=["matrix", "residual"])
def test_generalized_alpha_assembly_is_the_numpy_composition_bit_for_bit(case, tangents):
    model, qa, va, qb, lam, states = case
    stepper = GeneralizedAlpha(model, DT)
    system, t = stepper.system, 0.3 + DT
    rng = np.random.default_rng(1)
    inertia, constant = rng.normal(size=system.n), rng.normal(size=system.n)
    starts = system.begin_step(qa, t, midpoint=False)
    R, values = stepper._system(qb, va, lam, t, inertia, constant, starts, states, tangents)
    data = system.newton_values(stepper.beta_p) if tangents else None
    F = system.continuous_forces(qb, va, t, DT, states, system.varying, data, stepper.gamma_p)
    expected = np.empty(system.size)
    expected[: system.n] = stepper.beta_p * (system.mass_operator @ qb) - inertia - constant - F
    system.constrain(expected, starts, qb, qb, lam, stepper.scale, 2.0 if tangents else None, data)
    assert np.array_equal(R, expected)
    assert (values is None) if not tangents else np.array_equal(values, data)


def test_energy_momentum_matrix_is_the_derivative_of_its_residual(case):
    """The Newton matrix's columns of q_n+1 are central differences of the residual in qb (the
    friction's return map is smooth at these slips), and those of the scaled multipliers lam/s are
    its differences in lam/s (it is linear in them). The matrix is dominated by 2/dt^2 M (8e6 here):
    the bound 1e-9 max|K| is some 5 times the differences' round-off, eps max|K| |q| / h, and some
    30 times below 1 % of a spring's tangent (about 25)."""
    model, qa, va, qb, lam, states = case
    stepper = EnergyMomentum(model, DT)
    system = stepper.system
    t_mid, inertia, constant, starts = energy_momentum_parts(stepper, qa, va, qb, lam, states)

    def residual(q, multipliers):
        return stepper._system(qa, q, multipliers, t_mid, inertia, constant, starts, states, False)[0]

    _, values = stepper._system(qa, qb, lam, t_mid, inertia, constant, starts, states)
    K = system.pattern.csc(values).toarray()
    numeric = newton_matrix_by_differences(residual, qb, lam, system.active, stepper.scale)
    assert np.abs(K - numeric).max() <= 1e-9 * np.abs(K).max()
