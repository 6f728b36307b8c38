"""Bodies without rotational inertia along a director (point masses, flat discs) and the trajectories a
case file can now name (the plain sine, the ramp to a held speed, Kane's spin-up law), against exact
solutions: the mathematical pendulum, the torque-free flat disc (Euler's equations), the kinematics of
the prescribed motions and the energy balance of the servo inputs."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.joints.trajectories import Harmonic, SmoothRampAngle, SpinUp
from femdyn.model import ModelBuilder, place
from femdyn.model.errors import ModelError
from femdyn.numerics.kinematics import rotation_3d

G, L, THETA0 = 9.81, 0.75, 1.2  # gravity (m/s^2), pendulum length (m), release angle from the vertical (rad)


def point_pendulum(dt, t_end):
    """A point mass of 0.3 kg (Euler values 0: no rotational inertia) on a pivot L above it (a revolute
    joint at the body point (0, L)): the mathematical pendulum, released at rest at THETA0."""
    b = ModelBuilder(2)
    b.add_body("bob", 0.3, [0.0, 0.0])
    b.add_joint("pivot", "revolute", "ground", "bob", point2=[0.0, L], angle="theta")
    b.set_gravity([0.0, -G])
    model = b.build()
    q, v = place(model, {}, {"pivot": {"angle": THETA0}})
    r = simulate(prepare(model, q, v), SolverSettings(dt=dt, t_end=t_end))
    assert r.complete, r.message
    return model, r


def exact_angle(t):
    """theta'' = -g/L sin(theta) from rest at THETA0, by solve_ivp at rtol 1e-12."""
    sol = solve_ivp(lambda _, y: [y[1], -G / L * np.sin(y[0])], (0.0, t[-1]), [THETA0, 0.0],
                    t_eval=t, rtol=1e-12, atol=1e-13, method="DOP853")
    return sol.y[0]


def test_point_mass_pendulum_is_the_mathematical_pendulum():
    """The bob's swing angle follows the exact mathematical pendulum (no rotational inertia: period
    4 K(sin(theta0/2)) sqrt(L/g)) at the scheme's order 2; energy and the pivot distance are kept to
    round-off."""
    errors = []
    for dt in (4e-3, 2e-3, 1e-3):
        model, r = point_pendulum(dt, 1.5)
        phi = r.q[:, model.bodies[0].offset : model.bodies[0].offset + 2]
        angle = np.arctan2(phi[:, 0], -phi[:, 1])  # from the downward vertical, pivot at the origin
        assert np.abs(np.linalg.norm(phi, axis=1) - L).max() < 1e-12
        assert np.abs(r.total - r.total[0]).max() < 1e-10 * abs(r.total).max()
        errors.append(np.abs(angle - exact_angle(r.t)).max())
    orders = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(orders - 2.0) < 0.05), (errors, orders)


def test_point_mass_whose_rotation_is_free_is_refused():
    """A point mass held at its centre alone: its rotation has neither inertia nor a constraint."""
    b = ModelBuilder(2)
    b.add_body("bob", 0.3, [0.0, 0.0])
    b.add_joint("pivot", "revolute", "ground", "bob")
    model = b.build()
    q, v = place(model, {"bob": {"position": [0.0, 0.0]}}, {})
    with pytest.raises(ModelError, match="bob: no rotational inertia"):
        prepare(model, q, v)


def flat_disc(dt, t_end):
    """A free thin disc (J1 = J3 = m r^2/4 about diameters, J2 = J1 + J3 about its normal d_2) spinning
    about an axis tilted from its normal: Euler values (J_j + J_k - J_i)/2 = (J1, 0, J3)."""
    m, radius = 2.0, 0.3
    J1 = m * radius**2 / 4
    b = ModelBuilder(3)
    b.add_body("disc", m, [J1, 0.0, J1])
    model = b.build()
    omega_body = np.array([0.8, 15.0, 0.0])  # rad/s, in the disc's frame: mostly about the normal d_2
    R = rotation_3d([1.0, 1.0, 0.0], 0.4)
    q, v = place(model, {"disc": {"position": [0.1, 0.2, 0.3], "rotation": R, "velocity": [0.5, -0.2, 0.1],
                                  "angular_velocity": R @ omega_body}}, {})
    r = simulate(prepare(model, q, v), SolverSettings(dt=dt, t_end=t_end))
    assert r.complete, r.message
    return model, r, J1, omega_body


def test_flat_disc_conserves_and_precesses_as_euler_says():
    """Torque-free axisymmetric body with J_normal = 2 J_diameter: energy, linear and angular momentum
    constant to round-off, and in the body frame the angular velocity's diametral part turns about
    the normal at the rate omega_n (J_n - J_d)/J_d = omega_n (Euler's equations), observed order 2."""
    errors = []
    for dt in (2e-3, 1e-3, 5e-4):
        model, r, J1, omega_body = flat_disc(dt, 0.4)
        assert np.abs(r.total - r.total[0]).max() < 1e-11 * abs(r.total[0])
        assert np.abs(r.momentum - r.momentum[0]).max() < 1e-11 * np.abs(r.momentum[0]).max()
        assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() < 1e-11 * np.abs(r.angular_momentum[0]).max()
        o = model.bodies[0].offset
        d = r.q[:, o + 3 : o + 12].reshape(-1, 3, 3)  # rows d_1, d_2, d_3
        dd = r.v[:, o + 3 : o + 12].reshape(-1, 3, 3)
        # body-frame angular velocity from the directors: omega_1 = d_2'.d_3, omega_3 = d_1'.d_2
        w1 = np.einsum("fi,fi->f", dd[:, 1], d[:, 2])
        w3 = np.einsum("fi,fi->f", dd[:, 0], d[:, 1])
        rate = omega_body[1]  # (J_n - J_d)/J_d = 1 for the flat disc
        exact_w1 = omega_body[0] * np.cos(rate * r.t)
        exact_w3 = -omega_body[0] * np.sin(rate * r.t)
        errors.append(max(np.abs(w1 - exact_w1).max(), np.abs(np.abs(w3) - np.abs(exact_w3)).max()))
    orders = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(orders - 2.0) < 0.1), (errors, orders)


def test_plain_sine_ramp_and_hold_and_spin_up_kinematics():
    """Each trajectory's rate is the derivative of its value (central differences, O(h^2)), and each
    takes the closed form: the plain sine A sin(w t) from t = 0, the held speed w (t - t1/2) after the
    ramp, the spin-up's w (t - T/2) after T."""
    sine, held, spin = Harmonic([0.02], [0.0], 2 * np.pi), SmoothRampAngle(0.5, omega0=3.0), SpinUp(6.0, 15.0)
    t = np.linspace(0.0, 20.0, 401)
    assert np.allclose([sine.value(x)[0] for x in t], 0.02 * np.sin(2 * np.pi * t), rtol=0, atol=1e-15)
    assert np.allclose([held.value(x)[0] for x in t[t >= 0.5]], 3.0 * (t[t >= 0.5] - 0.25), rtol=1e-14, atol=0)
    assert np.allclose([spin.value(x)[0] for x in t[t >= 15]], 6.0 * (t[t >= 15] - 7.5), rtol=1e-14, atol=0)
    h = 1e-5
    for tr in (sine, held, spin):
        for x in t[1:]:
            fd = (tr.value(x + h)[0] - tr.value(x - h)[0]) / (2 * h)
            assert abs(fd - tr.rate(x)[0]) < 1e-6 * max(1.0, abs(tr.rate(x)[0]))


def test_a_slider_driven_along_a_plain_sine_takes_the_inertial_force():
    """A 1.5 kg carriage on a prismatic joint driven by a coordinate servo along 0.02 sin(2 pi t) with no
    start-up ramp (the initial velocity is projected onto the trajectory's rate): the slide is the sine
    to round-off at the nodes, the input work equals the kinetic energy, and the input force is the
    inertial force m x'' at the scheme's order 2 at the nodes (the mean of the mid-point inputs of the
    two steps that meet there)."""
    errors = []
    for dt in (1e-2, 5e-3, 2.5e-3):
        b = ModelBuilder(2)
        b.add_body("carriage", 1.5, [0.01, 0.01])
        b.add_joint("guide", "prismatic", "ground", "carriage", slide="s")
        b.add_servo_coordinate("drive", "s", Harmonic([0.02], [0.0], 2 * np.pi))
        b.set_inputs(["s"])
        model = b.build()
        q, v = place(model, {}, {"guide": {"slide": 0.0, "slide_rate": 0.0}})
        r = simulate(prepare(model, q, v), SolverSettings(dt=dt, t_end=1.0))
        assert r.complete, r.message
        s = r.q[:, model.joint_coordinates["s"]]
        assert np.abs(s - 0.02 * np.sin(2 * np.pi * r.t)).max() < 1e-13
        assert np.abs(r.total - r.total[0] - r.work).max() < 1e-12
        u = np.asarray(r.inputs)[:, 0]
        nodal = 0.5 * (u[1:] + u[:-1])  # at the inner nodes: the mean of the two steps' mid-point inputs
        force = -1.5 * 0.02 * (2 * np.pi) ** 2 * np.sin(2 * np.pi * r.t[1:-1])
        errors.append(np.abs(nodal - force).max())
    orders = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(orders > 1.9), (errors, orders)


SPIN_UP_CASE = """\
dimension = 2
[solver]
dt = 0.02
t_end = 15.0
[flexible]
elements = 8
[[bodies]]
name = "beam"
beam = {length = 10.0, young = 7e10, density = 3000.0, area = 4e-4, iz = 2e-7}
[[joints]]
name = "hub"
type = "revolute"
bodies = ["ground", "beam"]
angle = "theta"
[[servos]]
type = "coordinate"
name = "spin"
coordinate = "theta"
trajectory = {type = "spin_up", angular_speed = 6.0, t_ramp = 15.0}
[control]
inputs = ["theta"]
[initial.bodies.beam]
position = [0.0, 0.0]
"""


def test_spin_up_case_file_reproduces_the_python_model(tmp_path):
    """Kane's spin-up beam (10 m, 6 rad/s reached in 15 s, stiffening on) written as a case file with
    the ``spin_up`` trajectory steps exactly as the model built in Python with ``SpinUp``."""
    from femdyn.beam.body import BeamBody, Section
    from femdyn.casefile.case import load_case

    path = tmp_path / "spin_up.toml"
    path.write_text(SPIN_UP_CASE)
    case = load_case(path)
    from_file = simulate(prepare(case.model, case.q0, case.v0), case.settings)
    body = BeamBody.straight(10.0, 8, Section(4e-4, 2e-7), 7e10, 3000.0, dim=2, axial="cubic")
    b = ModelBuilder(2)
    b.add_beam("beam", body, stiffening=True)
    b.add_joint("hub", "revolute", "ground", "beam", angle="theta")
    b.add_servo_coordinate("spin", "theta", SpinUp(6.0, 15.0))
    b.set_inputs(["theta"])
    model = b.build()
    q, v = place(model, {}, {"hub": {"angle": 0.0}})
    from_python = simulate(prepare(model, q, v), SolverSettings(0.02, 15.0))
    assert from_file.complete and from_python.complete
    assert case.model.n == model.n and from_file.q.shape == from_python.q.shape
    assert np.abs(from_file.q - from_python.q).max() <= 1e-12 * np.abs(from_python.q).max()
    tip = model.worlds[0].elastic_coordinates(from_python.q)[:, 1 - body.elements.node_size]
    assert 0.1 < np.abs(tip).max() < 1.0  # the bounded peak of the stiffened beam (m)


POINT_AND_DISC = """\
dimension = 3
gravity = [0.0, 0.0, -9.81]
[solver]
dt = 0.002
t_end = 0.5
[[bodies]]
name = "bob"
mass = 0.3
inertia = [0.0, 0.0, 0.0]
[[bodies]]
name = "disc"
mass = 2.0
inertia = [0.045, 0.09, 0.045]
[[joints]]
name = "rod"
type = "universal"
bodies = ["ground", "bob"]
points = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.75]]
[initial.bodies.bob]
position = [0.0, 0.0, -0.75]
velocity = [0.5, 0.0, 0.0]
[initial.bodies.disc]
position = [1.0, 0.0, 0.0]
angular_velocity = [0.8, 15.0, 0.0]
"""


def test_point_mass_and_flat_disc_from_a_case_file(tmp_path, capsys):
    """A point mass (inertia 0) on a universal joint (its spin about the rod fixed by the joint) and a
    free flat disc (J2 = J1 + J3) from a case file: both run, energy kept to round-off; the same point
    mass on a spherical joint, whose spin about the rod is free and massless, is refused in one line."""
    from femdyn.cli import main
    from femdyn.casefile.case import load_case

    path = tmp_path / "bodies.toml"
    path.write_text(POINT_AND_DISC)
    case = load_case(path)
    r = simulate(prepare(case.model, case.q0, case.v0), case.settings)
    assert r.complete, r.message
    assert np.abs(r.total - r.total[0]).max() < 1e-11 * np.abs(r.kinetic).max()
    path.write_text(POINT_AND_DISC.replace('type = "universal"', 'type = "spherical"'))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "bob: no rotational inertia" in err and "\n" not in err
