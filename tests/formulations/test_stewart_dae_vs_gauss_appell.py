"""The Stewart-Gough platform as a femdyn DAE (universal joint, cylinder, prismatic piston with its
slide augmented, spherical joint; servo constraints on the platform) against Gauss/Appell in the
platform coordinates (femdyn.reference.stewart).

The two agree exactly only if the legs have no inertia about their own axis (the universal joint
drives the cylinder's spin, Gauss/Appell assumes none; femdyn.reference.models): the DAE legs carry an
axial inertia of 1e-10 of their transverse one, and one test shows that the disagreement is that
axial inertia, proportionally.
"""
import numpy as np
import pytest

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model.instantaneous import accelerations, inverse_dynamics
from femdyn.numerics.kinematics import rotation_3d
from femdyn.reference import stewart
from femdyn.reference.models import (
    platform_accelerations,
    platform_target_accelerations,
    stewart_legs,
    stewart_model,
    stewart_platform,
    stewart_state,
)

PARAMS = stewart.StewartParameters()
TIMES = (0.2, 0.45, 0.7, 0.95, 1.2)


@pytest.fixture(scope="module")
def servo_model():
    return stewart_model(PARAMS, servo=True)


def states(model, params=PARAMS, times=TIMES):
    """(t, q, v, twist, twist_dot, position, rotation) along platform_trajectory."""
    for t in times:
        position, rotation, twist, twist_dot = stewart.platform_trajectory(params, t)
        q, v = stewart_state(model, params, position, rotation, twist)
        yield t, q, v, twist, twist_dot, position, rotation


def test_initial_states_lie_on_the_constraints(servo_model):
    """stewart_state places cylinder, piston and platform consistently: every constraint (servos
    included) holds, and so does its velocity form G v + dPhi/dt = 0, to round-off; the slides are the
    leg lengths and the platform twist is returned."""
    m = servo_model
    for t, q, v, twist, _, position, rotation in states(m):
        assert np.abs(m.phi(q, t)).max() <= 1e-14
        assert np.abs(m.jacobian(q, None, t) @ v + m.phi_time_derivative(q, t)).max() <= 1e-13
        np.testing.assert_allclose(stewart_legs(m, q), stewart.inverse_kinematics(PARAMS, position, rotation).lengths,
                                   rtol=0, atol=1e-15)
        p, R, w = stewart_platform(m, q, v)
        np.testing.assert_allclose(np.r_[p, R.ravel(), w], np.r_[position, rotation.ravel(), twist], rtol=0, atol=1e-14)


def test_servo_leg_forces_equal_gauss_appell():
    """The leg forces of the DAE servo solve (BEM), extrapolated to dt -> 0, equal the Gauss/Appell
    inverse dynamics along platform_trajectory to 1e-8 relative; the raw values converge at order 2."""
    model = stewart_model(PARAMS, servo=True)
    position, rotation, twist, _ = stewart.platform_trajectory(PARAMS, 0.0)
    setup = prepare(model, *stewart_state(model, PARAMS, position, rotation, twist))
    t_end = 0.8
    nodes = np.arange(0.02, t_end - 0.01, 0.02)
    values = []
    for dt in (0.01, 0.005, 0.0025):
        r = simulate(setup, SolverSettings(dt, t_end))
        values.append(r.node_inputs(model.input_rows)[np.round(nodes / dt).astype(int)])  # inner nodes
    forces = np.array([stewart.inverse_dynamics(PARAMS, *stewart.platform_trajectory(PARAMS, t)) for t in nodes])
    scale = np.abs(forces).max()
    errors = [np.abs(u - forces).max() / scale for u in values]
    orders = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(orders - 2.0) <= 0.15), errors
    first = [(4.0 * b - a) / 3.0 for a, b in zip(values, values[1:])]
    assert np.abs((16.0 * first[1] - first[0]) / 15.0 - forces).max() / scale <= 1e-8


def test_instantaneous_dae_inverse_dynamics_equals_gauss_appell(servo_model):
    """One saddle-point solve of the DAE with the servo rows at acceleration level gives the
    Gauss/Appell leg forces, and the accelerations it returns move the platform as prescribed."""
    m = servo_model
    for t, q, v, twist, twist_dot, position, rotation in states(m):
        forces = stewart.inverse_dynamics(PARAMS, position, rotation, twist, twist_dot)
        u, a = inverse_dynamics(m, q, v, platform_target_accelerations(m, q, twist, twist_dot), t)
        assert np.abs(u - forces).max() <= 1e-10 * np.abs(forces).max()
        np.testing.assert_allclose(platform_accelerations(m, q, v, a), twist_dot, rtol=0,
                                   atol=1e-10 * np.abs(twist_dot).max())


def test_direct_dynamics_accelerations_equal_gauss_appell(servo_model):
    """Under given leg forces (not those of the trajectory), the DAE's instantaneous forward dynamics
    (femdyn.model.instantaneous.accelerations) and Gauss/Appell's direct dynamics give the same platform
    accelerations to 1e-8 relative; and the slides accelerate as the leg lengths of that motion."""
    m = servo_model
    rng = np.random.default_rng(5)
    for t, q, v, twist, twist_dot, position, rotation in states(m):
        forces = stewart.inverse_dynamics(PARAMS, position, rotation, twist, twist_dot) + rng.normal(0.0, 30.0, 6)
        expected = stewart.direct_dynamics(PARAMS, position, rotation, twist, forces)
        a, _ = accelerations(m, q, v, forces, t)
        got = platform_accelerations(m, q, v, a)
        assert np.abs(got - expected).max() <= 1e-8 * np.abs(expected).max()
        assert np.abs(got - twist_dot).max() > 1e-2 * np.abs(twist_dot).max()   # a different motion
        L_ddot, _ = stewart.leg_accelerations(PARAMS, position, rotation, twist, expected)
        np.testing.assert_allclose(stewart_legs(m, a), L_ddot, rtol=0, atol=1e-8 * np.abs(L_ddot).max())


def test_the_disagreement_is_the_legs_axial_inertia():
    """The modelling statement of femdyn.reference.models: with a universal joint the cylinder spins
    about its axis, Gauss/Appell has no such spin energy. The leg forces of the two differ in
    proportion to the legs' axial inertia eps (relative to the transverse): O(eps), and 100 times
    less for eps 100 times smaller."""
    t, position, rotation = 0.7, *stewart.platform_trajectory(PARAMS, 0.7)[:2]
    twist, twist_dot = stewart.platform_trajectory(PARAMS, t)[2:]
    forces = stewart.inverse_dynamics(PARAMS, position, rotation, twist, twist_dot)
    differences = []
    for eps in (1e-4, 1e-6):
        m = stewart_model(PARAMS, servo=True, axial_inertia=eps)
        q, v = stewart_state(m, PARAMS, position, rotation, twist)
        u, _ = inverse_dynamics(m, q, v, platform_target_accelerations(m, q, twist, twist_dot), t)
        differences.append(np.abs(u - forces).max() / np.abs(forces).max())
    assert 1e-3 * 1e-4 < differences[0] < 1e-4
    assert differences[0] / differences[1] == pytest.approx(100.0, rel=1e-3)


def hold(position, rotation):
    return lambda t: (position, rotation, np.zeros(6))


def held_forces(position, rotation):
    """Leg forces of the servo holding the platform at rest under gravity: a few BEM steps."""
    model = stewart_model(PARAMS, servo=hold(position, rotation))
    setup = prepare(model, *stewart_state(model, PARAMS, position, rotation))
    r = simulate(setup, SolverSettings(0.01, 0.03))
    np.testing.assert_allclose(r.q, np.broadcast_to(setup.q0, r.q.shape), rtol=0, atol=1e-14)   # at rest
    assert np.ptp(r.inputs, axis=0).max() <= 1e-10 * np.abs(r.inputs).max()
    return r.inputs[-1]


def test_home_pose_under_gravity_matches_the_hand_balance():
    """At the symmetric home pose every leg carries the same force f. Each leg, in balance about its
    universal joint (which passes no moment across the leg axis), pushes the platform with
    (f + m_p g.u) u + (h / L) (g - (g.u) u), h = m_c c_c + m_p (L - c_p); the six vertical
    components carry the platform's weight."""
    position, rotation = PARAMS.home_position, np.eye(3)
    f = held_forces(position, rotation)
    legs = stewart.inverse_kinematics(PARAMS, position, rotation)
    u, L = legs.directions[0], legs.lengths[0]
    g = np.asarray(PARAMS.gravity)
    m_c, m_p, c_c, c_p = PARAMS.cylinder_mass, PARAMS.piston_mass, PARAMS.cylinder_length / 2, PARAMS.piston_length / 2
    h = m_c * c_c + m_p * (L - c_p)
    transverse = h / L * (g[2] - (g @ u) * u[2])
    hand = (-PARAMS.platform_mass * g[2] / 6.0 - transverse) / u[2] - m_p * (g @ u)
    np.testing.assert_allclose(f, hand, rtol=1e-10)


def test_static_pose_under_gravity_matches_gauss_appell():
    """A shifted and tilted pose held at rest: the servo's leg forces equal the Gauss/Appell static
    balance (zero twist and twist rate)."""
    position = PARAMS.home_position + np.array([0.03, -0.02, 0.05])
    rotation = rotation_3d([1.0, 2.0, 0.5], 0.12)
    f = held_forces(position, rotation)
    expected = stewart.inverse_dynamics(PARAMS, position, rotation, np.zeros(6), np.zeros(6))
    assert np.abs(f - expected).max() <= 1e-8 * np.abs(expected).max()
    assert np.ptp(expected) > 1.0   # the legs carry different loads


def test_servo_model_needs_six_legs():
    params = stewart.StewartParameters(*stewart.stewart_geometry(8))
    with pytest.raises(ValueError, match="six legs"):
        stewart_model(params, servo=True)
    model = stewart_model(params, forces=[lambda t: 0.0] * 8)   # forward models take any number
    position, rotation = params.home_position + np.array([0.03, -0.02, 0.05]), rotation_3d([1.0, 2.0, 0.5], 0.12)
    q, _ = stewart_state(model, params, position, rotation)   # eight legs assembled at a tilted pose,
    assert np.abs(model.phi(q)).max() <= 1e-14   # on the constraints, the slides the eight leg lengths
    np.testing.assert_allclose(stewart_legs(model, q), stewart.inverse_kinematics(params, position, rotation).lengths,
                               rtol=0, atol=1e-15)
