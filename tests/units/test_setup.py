"""Setting a run up: a model is built from a frozen specification (``femdyn.model.spec``), unspecified
joint rates are measured from the bodies, each prepared state keeps its own servo targets, and
``simulate`` checks its options and never enlarges the time step."""
import dataclasses

import numpy as np
import pytest
from shared import damped_oscillator, oscillator

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.joints.servo import Servo
from femdyn.joints.trajectories import Polynomial
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place

GA = "generalized-alpha"


def test_a_built_model_keeps_the_specification_it_was_built_from():
    """The records cannot be changed (frozen dataclasses, read-only arrays), and neither changing the
    caller's arrays nor adding to the builder afterwards changes the specification taken or the model
    built; the specification counts the model's coordinates (a body and the ground, one joint angle)."""
    euler, point = np.array([1.0, 2.0]), np.array([0.5, 0.0])
    b = ModelBuilder(2)
    b.add_body("arm", 1.0, euler)
    b.add_joint("pin", "revolute", "ground", "arm", point2=point, angle="theta")
    spec, model = b.spec(), b.build()
    euler[0] = point[0] = 7.0
    b.add_body("other", 1.0, [1.0, 1.0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.bodies[0].mass = 2.0
    with pytest.raises(ValueError, match="read-only"):
        spec.joints[0].point2[0] = 2.0
    assert [x.name for x in spec.bodies] == [x.name for x in model.bodies] == ["arm"]
    assert spec.bodies[0].euler.tolist() == model.bodies[0].euler.tolist() == [1.0, 2.0]
    assert spec.joints[0].point2.tolist() == model.joints[0].point2.tolist() == [0.5, 0.0]
    assert spec.coordinate_count() == model.n == 2 * 6 + 1


def test_unspecified_joint_rates_are_measured_from_the_bodies():
    """Two bodies posed and moving consistently (relative angular velocity 3) with no joint rate
    given: the augmented rate is measured, G v = 0 holds before projection, and the projection leaves
    the given velocities alone."""
    b = ModelBuilder(2)
    b.add_body("A", 1.0, [0.01, 0.02])
    b.add_body("B", 2.0, [0.03, 0.01])
    b.add_joint("AB", "revolute", "A", "B", point1=[0.5, 0.0], point2=[-0.5, 0.0], angle="theta")
    model = b.build()
    w_a, w_b = 1.0, 4.0
    # joint at (0.5, 0); B's centre at (1, 0): velocities of the rigid rotations about the joint
    spec = {"A": {"position": [0.0, 0.0], "angular_velocity": w_a, "velocity": [0.0, 0.0]},
            "B": {"position": [1.0, 0.0], "angular_velocity": w_b, "velocity": [0.0, w_a * 0.5 + w_b * 0.5]}}
    q, v = place(model, spec, {})
    i = model.joint_coordinates["theta"]
    assert q[i] == pytest.approx(0.0, abs=1e-15) and v[i] == pytest.approx(w_b - w_a, rel=1e-14)
    assert np.abs(model.jacobian(q) @ v).max() <= 1e-14
    setup = prepare(model, q, v)
    np.testing.assert_allclose(setup.v0, v, atol=1e-14)


def test_time_step_is_never_enlarged():
    model, setup = damped_oscillator(0.0)
    r = simulate(setup, SolverSettings(0.4, 0.59))
    assert r.dt <= 0.4 and r.t[-1] == pytest.approx(0.59)


def test_simulate_keeps_the_default_and_checks_the_options():
    model, setup = oscillator(40.0, stretch=0.3)
    r = simulate(setup, SolverSettings(0.05, 1.0))
    assert r.integrator == "energy-momentum"
    assert np.ptp(r.total) <= 1e-12 * r.total[0]
    with pytest.raises(ModelError, match="integrator"):
        simulate(setup, SolverSettings(0.05, 1.0, integrator="newmark"))
    for bad in (1.5, -0.1, float("nan"), "high"):
        with pytest.raises(ModelError, match="rho_inf"):
            simulate(setup, SolverSettings(0.05, 1.0, integrator=GA, rho_inf=bad))


def test_runs_prepared_from_different_states_keep_their_own_servo_targets():
    """A two-link arm whose tip follows a relative point servo, gamma(t) = b(q0) + trajectory(t) -
    trajectory(0) (000 eq. 78), prepared from two initial poses: each setup's model targets its own
    initial tip position at t = 0 (its servo rows vanish there), and each run moves its own tip by the
    trajectory's displacement although the other setup was prepared in between. The built model is
    unchanged: the same servo families, still with zero start values (its targets are trajectory(t))."""
    b = ModelBuilder(2)
    for name in ("upper", "lower"):
        b.add_body(name, 1.0, [1 / 12, 0.001])
    b.add_joint("shoulder", "revolute", "ground", "upper", point2=[-0.5, 0.0], angle="q1")
    b.add_joint("elbow", "revolute", "upper", "lower", point1=[0.5, 0.0], point2=[-0.5, 0.0], angle="q2")
    path = Polynomial([[0.3, 0.0, 0.2], [-0.1, 0.1, 0.0]])  # trajectory(0) = (0.3, -0.1)
    b.add_servo_point("tip", "lower", [0.5, 0.0], path)
    b.set_inputs(["q1", "q2"])
    model = b.build()
    built = list(model.constraints)
    servos = [c for c in built if isinstance(c, Servo)]
    before = [c.reference.copy() for c in servos]

    def tip(q):
        centres, rotations = model.frames(q)
        return centres[..., 1, :] + rotations[..., 1, :, :] @ [0.5, 0.0]

    poses = ({"shoulder": {"angle": 0.3}, "elbow": {"angle": 1.2}},
             {"shoulder": {"angle": -0.4}, "elbow": {"angle": 0.9}})
    setups = [prepare(model, *place(model, {}, pose)) for pose in poses]
    starts = [tip(s.q0) for s in setups]
    assert np.abs(starts[0] - starts[1]).min() > 0.1
    for s, start in zip(setups, starts):
        assert s.model is not model
        servo = next(c for c in s.model.constraints if isinstance(c, Servo))
        np.testing.assert_allclose(servo.targets(0.0), start, rtol=0, atol=1e-14)
        assert np.abs(s.model.phi(s.q0)[model.input_rows]).max() <= 1e-14
    assert len(model.constraints) == len(built) and all(a is c for a, c in zip(model.constraints, built))
    for c, reference in zip(servos, before):
        np.testing.assert_array_equal(c.reference, reference)
        np.testing.assert_array_equal(c.targets(0.0), path.value(0.0))
    for s, start in zip(setups, starts):
        r = simulate(s, SolverSettings(0.01, 0.2))
        assert r.complete, r.message
        target = start + np.array([path.value(t) - path.value(0.0) for t in r.t])
        assert np.abs(tip(r.q) - target).max() <= 1e-10
