"""A built ``Model`` is immutable in fact: nothing can be set on it after its constructor, and two runs
prepared from different initial angles of a pendulum whose angle a relative servo turns at 2 rad/s each hold their
own start (gamma = b(q0) + trajectory(t) - trajectory(0), 000 eq. 78) in their own model, while the
built model keeps the targets at zero."""
import numpy as np
import pytest

import femdyn
from femdyn.integrators.setup import prepare


def pendulum():
    b = femdyn.ModelBuilder(2)
    b.add_body("rod", 1.0, [0.01, 0.0833])
    b.add_joint("pin", "revolute", "ground", "rod", point1=[0.0, 0.0], point2=[0.0, 0.5], angle="theta")
    b.add_servo_coordinate("turn", "theta", femdyn.trajectories.Polynomial([[0.0, 2.0]]))  # 2 rad/s from the start
    b.set_inputs(["theta"])
    return b.build()


def test_nothing_is_set_on_a_built_model():
    model = pendulum()
    with pytest.raises(AttributeError, match="immutable"):
        model.constraints = []
    with pytest.raises(AttributeError, match="immutable"):
        model.inputs = ["theta"]
    assert model.inputs == ["theta"]


def test_runs_from_different_starts_hold_their_own_servo_targets_and_leave_the_model_as_built():
    model = pendulum()
    row = model.input_rows[0]
    theta = model.joint_coordinates["theta"]
    starts = []
    for angle in (0.3, -0.7):
        q, v = femdyn.place(model, {}, {"pin": {"angle": angle}})
        setup = prepare(model, q, v)
        assert setup.model is not model and setup.model.constraints is not model.constraints
        starts.append((setup, angle))
    for setup, angle in starts:  # each run's servo row vanishes on its own path theta0 + 2 t, and only there
        q = setup.q0.copy()
        assert abs(setup.model.phi(q)[row]) < 1e-12
        q[theta] += 1.0
        assert abs(setup.model.phi(q, 0.5)[row]) < 1e-12
        assert setup.model.phi(q, 0.25)[row] == pytest.approx(0.5, abs=1e-12)
        assert model.phi(setup.q0)[row] == pytest.approx(angle, abs=1e-12)  # the built model: from 0
