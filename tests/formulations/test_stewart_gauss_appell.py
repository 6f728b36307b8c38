"""Stewart-Gough platform by Gauss/Appell (femdyn.reference.stewart) against the physics it must
satisfy: leg kinematics as derivatives of the inverse kinematics, the power balance, Newton-Euler
equations of every body by virtual power, a hand-checked static force balance, direct and inverse
dynamics as inverses of each other, other numbers of legs, and singular poses reported."""
import numpy as np
import pytest

from femdyn.numerics.kinematics import rotation_3d
from femdyn.reference import SingularPoseError
from femdyn.reference import stewart as sg

PARAMS = sg.StewartParameters()
TIMES = np.linspace(0.1, 1.4, 8)
G0 = 9.81


def motion(t, params=PARAMS):
    return sg.platform_trajectory(params, t)


def central(f, t, h):
    return (f(t + h) - f(t - h)) / (2 * h)


def second_central(f, t, h):
    return (f(t + h) - 2 * f(t) + f(t - h)) / h**2


def axial(W):
    """Vector of a skew-symmetric matrix."""
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


# ---------------------------------------------------------------------------------- kinematics

def test_forward_of_inverse_kinematics_is_identity():
    for t in TIMES:
        position, rotation, _, _ = motion(t)
        lengths = sg.inverse_kinematics(PARAMS, position, rotation).lengths
        p, R = sg.forward_kinematics(PARAMS, lengths)
        np.testing.assert_allclose(p, position, rtol=0, atol=1e-12)
        np.testing.assert_allclose(R, rotation, rtol=0, atol=1e-12)


def test_trajectory_twist_is_derivative_of_pose():
    h = 1e-5
    for t in TIMES:
        _, rotation, twist, twist_dot = motion(t)
        np.testing.assert_allclose(twist[3:], central(lambda s: motion(s)[0], t, h), atol=1e-9)
        np.testing.assert_allclose(twist[:3], axial(central(lambda s: motion(s)[1], t, h) @ rotation.T), atol=1e-9)
        np.testing.assert_allclose(twist_dot, central(lambda s: motion(s)[2], t, h), atol=1e-7)


def test_leg_rates_are_derivatives_of_inverse_kinematics():
    h = 1e-5
    legs_at = lambda s: sg.inverse_kinematics(PARAMS, *motion(s)[:2])
    rates_at = lambda s: sg.leg_velocities(PARAMS, *motion(s)[:3])
    for t in TIMES:
        position, rotation, twist, twist_dot = motion(t)
        legs = legs_at(t)
        L_dot, omega = sg.leg_velocities(PARAMS, position, rotation, twist)
        np.testing.assert_allclose(L_dot, central(lambda s: legs_at(s).lengths, t, h), atol=1e-9)
        np.testing.assert_allclose(L_dot, sg.jacobian(PARAMS, position, rotation).T @ twist, atol=1e-14)
        u_dot = central(lambda s: legs_at(s).directions, t, h)
        np.testing.assert_allclose(omega, np.cross(legs.directions, u_dot), atol=1e-9)
        L_ddot, omega_dot = sg.leg_accelerations(PARAMS, position, rotation, twist, twist_dot)
        np.testing.assert_allclose(L_ddot, second_central(lambda s: legs_at(s).lengths, t, 1e-4), atol=1e-6)
        np.testing.assert_allclose(L_ddot, central(lambda s: rates_at(s)[0], t, h), atol=1e-8)
        np.testing.assert_allclose(omega_dot, central(lambda s: rates_at(s)[1], t, h), atol=1e-8)


# ------------------------------------------------------------------------------------ dynamics

def test_power_of_leg_forces_is_rate_of_energy():
    h = 1e-5
    total = lambda s: sum(sg.energy(PARAMS, *motion(s)[:3]))
    powers, rates = [], []
    for t in np.linspace(0.05, 1.45, 15):
        position, rotation, twist, twist_dot = motion(t)
        forces = sg.inverse_dynamics(PARAMS, position, rotation, twist, twist_dot)
        powers.append(forces @ sg.leg_velocities(PARAMS, position, rotation, twist)[0])
        rates.append(central(total, t, h))
    np.testing.assert_allclose(powers, rates, rtol=0, atol=1e-8 * np.max(np.abs(rates)))


def newton_euler_virtual_power(params, position, rotation, twist, twist_dot, virtual):
    """Virtual power of the inertia and gravity forces of all bodies, Newton-Euler body by body:
    sum over bodies of (m a - m g) . dv + (J omega_dot + omega x J omega) . domega, for the virtual
    platform twist ``virtual`` (legs: slender bars, omega x J omega = 0)."""
    g = np.asarray(params.gravity)
    u = sg.inverse_kinematics(params, position, rotation).directions
    L = sg.inverse_kinematics(params, position, rotation).lengths
    L_dot, omega = sg.leg_velocities(params, position, rotation, twist)
    L_ddot, omega_dot = sg.leg_accelerations(params, position, rotation, twist, twist_dot)
    dL, domega = sg.leg_velocities(params, position, rotation, virtual)
    c, e = params.cylinder_length / 2, L[:, None] - params.piston_length / 2
    swing = np.cross(omega_dot, u) + np.cross(omega, np.cross(omega, u))
    a_cyl, a_pis = c * swing, L_ddot[:, None] * u + 2 * L_dot[:, None] * np.cross(omega, u) + e * swing
    dv_cyl, dv_pis = c * np.cross(domega, u), dL[:, None] * u + e * np.cross(domega, u)
    I0 = rotation @ np.diag(params.platform_inertia) @ rotation.T
    power = (I0 @ twist_dot[:3] + np.cross(twist[:3], I0 @ twist[:3])) @ virtual[:3]
    power += params.platform_mass * (twist_dot[3:] - g) @ virtual[3:]
    power += params.cylinder_mass * np.sum((a_cyl - g) * dv_cyl) + params.piston_mass * np.sum((a_pis - g) * dv_pis)
    return power + (params.cylinder_inertia + params.piston_inertia) * np.sum(omega_dot * domega)


def test_leg_forces_balance_newton_euler_of_every_body():
    """Virtual power, for six independent virtual twists: f . dL_dot equals the virtual power of the
    inertia and gravity forces -- the full force vector, checked by a route without Gauss' principle."""
    for t in TIMES[::2]:
        state = motion(t)
        forces = sg.inverse_dynamics(PARAMS, *state)
        for virtual in np.eye(6):
            dL = sg.leg_velocities(PARAMS, state[0], state[1], virtual)[0]
            np.testing.assert_allclose(forces @ dL, newton_euler_virtual_power(PARAMS, *state, virtual),
                                       rtol=1e-11, atol=1e-10)


def test_static_pose_under_gravity_matches_hand_force_balance():
    """Platform centred at home, at rest.  By symmetry all six leg forces are equal.  Free body of a
    leg (moments about A): the platform pulls it transversely with (h / L) (1 - u u^T) g, h = m_c c_c +
    m_p (L - c_p); axially the piston carries f + m_p g . u.  Vertical balance of the platform:
    6 (lambda u_z - (h / L) g0 (1 - u_z^2)) = M_0 g0 with lambda = f - m_p g0 u_z."""
    position, rotation = PARAMS.home_position, np.eye(3)
    forces = sg.inverse_dynamics(PARAMS, position, rotation, np.zeros(6), np.zeros(6))
    np.testing.assert_allclose(forces, forces[0], rtol=1e-12)
    L = np.hypot(PARAMS.home_height, np.linalg.norm(PARAMS.platform_points[0] - PARAMS.base_points[0]))
    uz = PARAMS.home_height / L
    h = PARAMS.cylinder_mass * PARAMS.cylinder_length / 2 + PARAMS.piston_mass * (L - PARAMS.piston_length / 2)
    lam = G0 * (PARAMS.platform_mass / 6 + h / L * (1 - uz**2)) / uz
    np.testing.assert_allclose(forces, lam + PARAMS.piston_mass * G0 * uz, rtol=1e-12)

    massless = sg.StewartParameters(cylinder_mass=0.0, piston_mass=0.0)
    forces = sg.inverse_dynamics(massless, position, rotation, np.zeros(6), np.zeros(6))
    # the vertical components of the leg forces carry the weight
    np.testing.assert_allclose(np.sum(forces * uz), massless.platform_mass * G0, rtol=1e-12)
    np.testing.assert_allclose(forces, massless.platform_mass * G0 / (6 * uz), rtol=1e-12)


def test_direct_and_inverse_dynamics_are_inverse_to_each_other():
    rng = np.random.default_rng(0)
    for t in TIMES:
        position, rotation, twist, twist_dot = motion(t)
        forces = sg.inverse_dynamics(PARAMS, position, rotation, twist, twist_dot)
        back = sg.direct_dynamics(PARAMS, position, rotation, twist, forces)
        np.testing.assert_allclose(back, twist_dot, rtol=0, atol=1e-10 * max(1.0, np.max(np.abs(twist_dot))))
        applied = 50.0 * rng.normal(size=6)
        accelerations = sg.direct_dynamics(PARAMS, position, rotation, twist, applied)
        np.testing.assert_allclose(sg.inverse_dynamics(PARAMS, position, rotation, twist, accelerations), applied,
                                   rtol=0, atol=1e-10 * np.max(np.abs(applied)))


def extra_leg(params, base_angle, platform_angle):
    a = 0.5 * np.array([np.cos(base_angle), np.sin(base_angle), 0.0])
    b = 0.3 * np.array([np.cos(platform_angle), np.sin(platform_angle), 0.0])
    return sg.StewartParameters(base_points=np.vstack([params.base_points, a]),
                                platform_points=np.vstack([params.platform_points, b]))


def test_seven_legs_minimum_norm_forces_reproduce_the_motion():
    params = extra_leg(PARAMS, np.pi, 0.8 * np.pi)
    position, rotation, twist, twist_dot = motion(0.9, params)
    with pytest.warns(UserWarning, match="7 legs.*minimum-norm"):
        forces = sg.inverse_dynamics(params, position, rotation, twist, twist_dot)
    np.testing.assert_allclose(sg.direct_dynamics(params, position, rotation, twist, forces), twist_dot, atol=1e-10)
    null = np.linalg.svd(sg.jacobian(params, position, rotation))[2][-1]   # forces that cancel on the platform
    assert abs(forces @ null) < 1e-9 * np.linalg.norm(forces)


def test_five_legs_least_squares_recovers_consistent_forces():
    params = sg.StewartParameters(base_points=PARAMS.base_points[:5], platform_points=PARAMS.platform_points[:5])
    position, rotation, twist, _ = motion(0.9, params)
    applied = np.array([30.0, 20.0, 25.0, 35.0, 28.0])
    accelerations = sg.direct_dynamics(params, position, rotation, twist, applied)
    with pytest.warns(UserWarning, match="5 legs.*least-squares"):
        forces = sg.inverse_dynamics(params, position, rotation, twist, accelerations)
    np.testing.assert_allclose(forces, applied, rtol=1e-10)


def test_twelve_leg_layout_power_balance():
    params = sg.StewartParameters(*sg.stewart_geometry(12))
    position, rotation, twist, twist_dot = motion(0.7, params)
    with pytest.warns(UserWarning):
        forces = sg.inverse_dynamics(params, position, rotation, twist, twist_dot)
    total = lambda s: sum(sg.energy(params, *motion(s, params)[:3]))
    power = forces @ sg.leg_velocities(params, position, rotation, twist)[0]
    np.testing.assert_allclose(power, central(total, 0.7, 1e-5), rtol=1e-7)


# ------------------------------------------------------------------------------- singularities

def test_platform_in_the_base_plane_is_singular():
    """All legs horizontal: no leg force has a vertical component, rank A = 3."""
    with pytest.raises(SingularPoseError, match="leg lines") as err:
        sg.inverse_dynamics(PARAMS, np.zeros(3), np.eye(3), np.zeros(6), np.zeros(6))
    assert isinstance(err.value, ValueError) and not err.value.condition <= PARAMS.cond_max
    assert "position [0.0, 0.0, 0.0]" in str(err.value)


def test_platform_turned_ninety_degrees_is_singular():
    """The semi-regular hexagon turned by +-90 degrees about the vertical: det A changes sign there."""
    position = PARAMS.home_position
    dets = [np.linalg.det(sg.jacobian(PARAMS, position, rotation_3d([0, 0, 1], a))) for a in np.radians([89.0, 91.0])]
    assert dets[0] * dets[1] < 0
    turned = rotation_3d([0, 0, 1], np.pi / 2)
    with pytest.raises(SingularPoseError) as err:
        sg.inverse_dynamics(PARAMS, position, turned, np.zeros(6), np.zeros(6))
    assert err.value.condition > 1e12
    # the equations of motion themselves stay regular: under given forces the platform just moves
    assert np.all(np.isfinite(sg.direct_dynamics(PARAMS, position, turned, np.zeros(6), np.full(6, 30.0))))
    with pytest.raises(SingularPoseError):   # a tighter threshold reports a pose merely near it
        sg.inverse_dynamics(sg.StewartParameters(cond_max=100.0), position, rotation_3d([0, 0, 1], np.radians(88.0)),
                            np.zeros(6), np.zeros(6))
