"""3-RRR in actuated coordinates (femdyn.reference.rrr) against the physics it must satisfy: closed
loops, velocity and acceleration maps as derivatives of the position maps, the power balance, the
kinetic energy as the quadratic form of the mass matrix, inverse then forward dynamics reproducing the
motion, and singular poses reported."""
import numpy as np
import pytest

from femdyn.reference import SingularPoseError, rrr

PARAMS = rrr.RRRParameters()
GRAVITY = rrr.RRRParameters(gravity=(0.0, -9.81))   # the manipulator in a vertical plane
TIMES = np.linspace(0.1, 1.4, 9)


def random_poses(n, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(-0.08, 0.08, n), rng.uniform(-0.08, 0.08, n), rng.uniform(-0.5, 0.5, n)])


def wrap(x):
    return (x + np.pi) % (2 * np.pi) - np.pi


def central(f, t, h):
    """Central difference; differences are wrapped to [-pi, pi) so that angles may cross +-pi."""
    return wrap(f(t + h) - f(t - h)) / (2 * h)


def second_central(f, t, h):
    f0 = f(t)
    return (wrap(f(t + h) - f0) - wrap(f0 - f(t - h))) / h**2


def pose_rate(twist):
    """(phi_dot, x_dot, y_dot) -> (x_dot, y_dot, phi_dot)."""
    return np.roll(twist, -1)


# ---------------------------------------------------------------------------------- kinematics

def test_forward_of_inverse_kinematics_is_identity():
    for pose in np.vstack([random_poses(20), rrr.circle_trajectory(TIMES)[0]]):
        theta = rrr.inverse_kinematics(PARAMS, pose)
        np.testing.assert_allclose(rrr.forward_kinematics(PARAMS, theta), pose, rtol=0, atol=1e-12)
        np.testing.assert_allclose(rrr.forward_kinematics(PARAMS, theta, guess=pose + 0.01), pose, rtol=0, atol=1e-12)


def test_every_branch_and_assembly_mode_closes_the_loops():
    for pose in random_poses(10, seed=1):
        for branch, theta in zip(rrr.BRANCHES, rrr.inverse_kinematics(PARAMS, pose, all_branches=True)):
            modes = rrr.forward_kinematics_all(PARAMS, theta)
            assert 1 <= len(modes) <= 6 and len(modes) % 2 == 0
            assert np.min(np.max(np.abs(modes - pose), axis=1)) < 1e-12
            for mode in modes:   # each mode is a pose whose inverse kinematics, in its own branches, is theta
                params = rrr.RRRParameters(branch=tuple(rrr._elbow_branches(PARAMS, mode, theta)))
                np.testing.assert_allclose(np.cos(rrr.inverse_kinematics(params, mode) - theta), 1.0, atol=1e-13)
            assert np.array_equal(rrr._elbow_branches(PARAMS, pose, theta), branch)


def test_velocity_maps_are_derivatives_of_position_maps():
    h = 1e-5
    pose_at = lambda t: rrr.circle_trajectory(t)[0]
    for t in TIMES:
        pose, twist, _ = rrr.circle_trajectory(t)
        np.testing.assert_allclose(pose_rate(twist), central(pose_at, t, h), atol=1e-9)
        fd = central(lambda s: rrr.joint_angles(PARAMS, pose_at(s)), t, h)
        np.testing.assert_allclose(rrr.joint_rates(PARAMS, pose, twist), fd, atol=1e-8)
        np.testing.assert_allclose(rrr.actuated_rates(PARAMS, pose, twist), fd[:, 0], atol=1e-8)
        t_links, _ = rrr.link_twists(PARAMS, pose, twist)
        np.testing.assert_allclose(t_links[..., 0], central(lambda s: rrr.body_poses(PARAMS, pose_at(s))[1], t, h), atol=1e-8)
        np.testing.assert_allclose(t_links[..., 1:], central(lambda s: rrr.body_poses(PARAMS, pose_at(s))[0], t, h), atol=1e-9)


def test_forward_velocity_and_acceleration_are_derivatives_of_forward_kinematics():
    theta_home = rrr.inverse_kinematics(PARAMS, [0.0, 0.0, 0.0])
    amp, freq = np.array([0.1, -0.07, 0.05]), np.array([1.0, 1.7, 2.3])
    theta_at = lambda t: theta_home + amp * np.sin(freq * t)
    pose_at = lambda t: rrr.forward_kinematics(PARAMS, theta_at(t), guess=np.zeros(3))
    for t in (0.2, 0.9, 1.6):
        theta_dot, theta_ddot = amp * freq * np.cos(freq * t), -amp * freq**2 * np.sin(freq * t)
        pose = pose_at(t)
        twist = rrr.platform_twist(PARAMS, pose, theta_dot)
        np.testing.assert_allclose(pose_rate(twist), central(pose_at, t, 1e-5), atol=1e-9)
        twist_dot = rrr.platform_twist_rate(PARAMS, pose, theta_dot, theta_ddot)
        np.testing.assert_allclose(pose_rate(twist_dot), second_central(pose_at, t, 1e-4), atol=1e-6)


def test_acceleration_maps_are_second_derivatives_of_position_maps():
    h = 1e-4
    pose_at = lambda t: rrr.circle_trajectory(t)[0]
    for t in TIMES:
        pose, twist, twist_dot = rrr.circle_trajectory(t)
        np.testing.assert_allclose(pose_rate(twist_dot), second_central(pose_at, t, h), atol=2e-6)
        fd = second_central(lambda s: rrr.joint_angles(PARAMS, pose_at(s)), t, h)
        np.testing.assert_allclose(rrr.joint_accelerations(PARAMS, pose, twist, twist_dot), fd, atol=2e-5)
        np.testing.assert_allclose(rrr.actuated_accelerations(PARAMS, pose, twist, twist_dot), fd[:, 0], atol=2e-5)
        t_links, tdot_links = rrr.link_twists(PARAMS, pose, twist, twist_dot)
        twist_at = lambda s: rrr.link_twists(PARAMS, pose_at(s), rrr.circle_trajectory(s)[1])[0]
        np.testing.assert_allclose(tdot_links, central(twist_at, t, 1e-5), atol=1e-7)
        np.testing.assert_allclose(t_links[:, 2], np.broadcast_to(twist, (3, 3)), atol=1e-14)
        np.testing.assert_allclose(tdot_links[:, 2], np.broadcast_to(twist_dot, (3, 3)), atol=1e-12)


# ------------------------------------------------------------------------------------ dynamics

def test_power_of_actuators_is_rate_of_energy():
    h = 1e-5
    total = lambda t: sum(rrr.energy(GRAVITY, *rrr.circle_trajectory(t)[:2]))
    powers, rates = [], []
    for t in np.linspace(0.05, 1.45, 15):
        pose, twist, twist_dot = rrr.circle_trajectory(t)
        tau = rrr.inverse_dynamics(GRAVITY, pose, twist, twist_dot)
        powers.append(tau @ rrr.actuated_rates(GRAVITY, pose, twist))
        rates.append(central(total, t, h))
    np.testing.assert_allclose(powers, rates, rtol=0, atol=1e-8 * np.max(np.abs(rates)))


def energy_from_parameters(params, pose, twist):
    """T and V body by body from the documented parameters: slender bars m l^2 / 12, the platform
    once with its own mass and inertia."""
    t_links = rrr.link_twists(params, pose, twist)[0]
    centres = rrr.body_poses(params, pose)[0]
    g = np.asarray(params.gravity)
    kinetic = 0.5 * (params.platform_mass * twist[1:] @ twist[1:] + params.platform_inertia * twist[0] ** 2)
    potential = -params.platform_mass * g @ pose[:2]
    for k, (m, length) in enumerate([(params.m1, params.l1), (params.m2, params.l2)]):
        kinetic += 0.5 * (m * np.sum(t_links[:, k, 1:] ** 2) + m * length**2 / 12 * np.sum(t_links[:, k, 0] ** 2))
        potential -= m * np.sum(centres[:, k] @ g)
    return kinetic, potential


def test_kinetic_energy_is_the_quadratic_form_of_the_mass_matrix():
    for pose, twist in zip(random_poses(10, seed=2), np.random.default_rng(3).normal(size=(10, 3))):
        M = rrr.mass_matrix(GRAVITY, pose)
        np.testing.assert_allclose(M, M.T, atol=1e-15)
        assert np.all(np.linalg.eigvalsh(M) > 0)
        theta_dot = rrr.actuated_rates(GRAVITY, pose, twist)
        reference = energy_from_parameters(GRAVITY, pose, twist)
        np.testing.assert_allclose(0.5 * theta_dot @ M @ theta_dot, reference[0], rtol=1e-13)
        np.testing.assert_allclose(rrr.energy(GRAVITY, pose, twist), reference, rtol=1e-13)


def test_forward_dynamics_inverts_inverse_dynamics_pointwise():
    for t in TIMES:
        pose, twist, twist_dot = rrr.circle_trajectory(t)
        theta = rrr.inverse_kinematics(GRAVITY, pose)
        tau = rrr.inverse_dynamics(GRAVITY, pose, twist, twist_dot)
        theta_ddot = rrr.forward_dynamics(GRAVITY, theta, rrr.actuated_rates(GRAVITY, pose, twist), tau)
        np.testing.assert_allclose(theta_ddot, rrr.actuated_accelerations(GRAVITY, pose, twist, twist_dot), atol=1e-11)


def test_forward_dynamics_under_inverse_dynamics_torques_reproduces_the_trajectory():
    def torque(t, theta, theta_dot):
        return rrr.inverse_dynamics(GRAVITY, *rrr.circle_trajectory(t))

    t_eval = np.linspace(0.0, 1.2, 13)
    pose0 = rrr.circle_trajectory(0.0)[0]
    motion = rrr.simulate_forward(GRAVITY, rrr.inverse_kinematics(GRAVITY, pose0), np.zeros(3), torque, t_eval)
    poses, twists, _ = rrr.circle_trajectory(t_eval)
    theta_ref = np.array([rrr.inverse_kinematics(GRAVITY, p) for p in poses])
    np.testing.assert_allclose(np.cos(motion.theta - theta_ref), 1.0, atol=1e-15)
    np.testing.assert_allclose(np.sin(motion.theta - theta_ref), 0.0, atol=1e-8)
    np.testing.assert_allclose(motion.pose, poses, atol=1e-8)
    theta_dot_ref = np.array([rrr.actuated_rates(GRAVITY, p, w) for p, w in zip(poses, twists)])
    np.testing.assert_allclose(motion.theta_dot, theta_dot_ref, atol=1e-7)


# ------------------------------------------------------------------------------- singularities

def stretched_pose(params, leg=0):
    """Platform translated along leg 0 until l1 and l2 are collinear (|A B| = l1 + l2)."""
    d = params.platform_points[leg] - params.base_points[leg]
    rho = np.linalg.norm(d)
    return np.append(d / rho * (params.l1 + params.l2 - rho), 0.0)


def test_stretched_leg_is_a_leg_singularity():
    pose = stretched_pose(PARAMS)
    theta = rrr.inverse_kinematics(PARAMS, pose)
    elbows = PARAMS.base_points + PARAMS.l1 * np.column_stack([np.cos(theta), np.sin(theta)])
    assert abs(np.linalg.norm(elbows[0] - PARAMS.base_points[0]) + np.linalg.norm(
        rrr._platform_world(PARAMS, pose)[0] - elbows[0]) - (PARAMS.l1 + PARAMS.l2)) < 1e-12
    for call in (lambda: rrr.inverse_dynamics(PARAMS, pose, np.zeros(3), np.zeros(3)),
                 lambda: rrr.jacobians(PARAMS, pose),
                 lambda: rrr.forward_dynamics(PARAMS, theta, np.zeros(3), np.zeros(3), guess=pose)):
        with pytest.raises(SingularPoseError, match=r"Phi B P") as err:
            call()
        assert isinstance(err.value, ValueError) and err.value.condition > PARAMS.cond_max
        assert "0.17" in str(err.value)


def test_concurrent_distal_links_are_a_platform_singularity():
    """At (0, 0, phi*) the elbows E_j lie on the rays through B_j, |E_j| = R_p + l2: the three
    distal links meet at the platform centre and K (002 eq. 32) is singular."""
    rp, rb = PARAMS.platform_radius + PARAMS.l2, PARAMS.base_radius
    phi = np.arccos((rp**2 + rb**2 - PARAMS.l1**2) / (2 * rp * rb))
    pose = np.array([0.0, 0.0, phi])
    with pytest.raises(SingularPoseError, match=r"cond\(K") as err:
        rrr.inverse_dynamics(PARAMS, pose, np.zeros(3), np.zeros(3))
    assert err.value.condition > 1e12
    other = rrr.RRRParameters(branch=(-1, -1, -1))   # the other assembly mode at the same pose: regular
    assert np.linalg.cond(rrr.jacobians(other, pose)[0]) < 1e3   # measured 35
    tau = rrr.inverse_dynamics(other, pose, np.zeros(3), np.zeros(3))
    np.testing.assert_allclose(tau, 0.0, rtol=0, atol=1e-12)   # at rest, without gravity: no torques


def test_singularity_threshold_is_configurable():
    near = stretched_pose(PARAMS) * (1 - 1e-6)
    tau = rrr.inverse_dynamics(PARAMS, near, np.zeros(3), np.zeros(3))
    assert np.all(np.isfinite(tau))
    with pytest.raises(SingularPoseError):
        rrr.inverse_dynamics(rrr.RRRParameters(cond_max=100.0), near, np.zeros(3), np.zeros(3))


def test_unreachable_pose_is_reported():
    with pytest.raises(ValueError, match="out of reach"):
        rrr.inverse_kinematics(PARAMS, [0.0, 0.3, 0.0])
