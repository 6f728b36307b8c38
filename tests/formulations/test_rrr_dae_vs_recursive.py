"""The 3-RRR as a femdyn DAE (director bodies, revolute joints, servo constraints) against the
recursive DeNOC formulation in actuated coordinates (femdyn.reference.rrr): two independent
descriptions of one manipulator must give the same torques and the same motion.

BEM servo inputs are mid-step values whose error is an even expansion in dt (the scheme is
symmetric). Read at common step nodes (``Results.node_inputs``, as inputs.csv gives them: at an inner
node the mean of the two neighbouring mid-step values, which keeps the expansion even), two Richardson
extrapolations over dt, dt/2, dt/4 remove the dt^2 and dt^4 terms.
"""
import numpy as np
import pytest

from femdyn.forces.loads import TimeLoad
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.reference import rrr
from femdyn.reference.models import rrr_actuated, rrr_model, rrr_platform, rrr_state

PARAMS = rrr.RRRParameters()
STEPS = (0.01, 0.005, 0.0025)


def node_values(r, dt, nodes, model):
    """Inputs at the inner step nodes t = k dt (``Results.node_inputs``)."""
    return r.node_inputs(model.input_rows)[np.round(nodes / dt).astype(int)]


def richardson(values):
    """Two Richardson steps for an error expansion in dt^2, dt^4 from values at dt, dt/2, dt/4."""
    first = [(4.0 * b - a) / 3.0 for a, b in zip(values, values[1:])]
    return (16.0 * first[1] - first[0]) / 15.0


def orders(errors):
    errors = np.asarray(errors)
    return np.log2(errors[:-1] / errors[1:])


def test_case_files_are_the_analysis_manipulator(case_path):
    """cases/3rrr_*.toml describe RRRParameters(): the same bodies, inertia, joints and inputs as
    rrr_model, and the initial state is the home pose of the working mode."""
    model = rrr_model(PARAMS, servo=True)
    q, _ = rrr_state(model, PARAMS, np.zeros(3))
    for name in ("3rrr_inverse.toml", "3rrr_forward.toml"):
        case = load_case(case_path(name))
        m = case.model
        assert [b.name for b in m.bodies] == [b.name for b in model.bodies]
        np.testing.assert_allclose(m.mass_matrix.toarray(), model.mass_matrix.toarray(), rtol=1e-15, atol=0)
        for a, b in zip(m.joints, model.joints):
            assert (a.name, a.type, a.body1, a.body2) == (b.name, b.type, b.body1, b.body2)
            np.testing.assert_allclose(np.r_[a.point1, a.point2], np.r_[b.point1, b.point2], rtol=0, atol=1e-15)
        setup = prepare(m, case.q0, case.v0)
        np.testing.assert_allclose(setup.q0, q, rtol=0, atol=1e-14)
        assert np.abs(setup.v0).max() == 0.0
    assert load_case(case_path("3rrr_inverse.toml")).model.inputs == ["theta1", "theta2", "theta3"]


def test_servo_torques_equal_the_recursive_inverse_dynamics(case_path):
    """cases/3rrr_inverse.toml: the crank torques of the DAE servo solve, extrapolated to dt -> 0,
    equal the DeNOC torques along circle_trajectory to 1e-8 relative; the raw values converge at
    order 2."""
    case = load_case(case_path("3rrr_inverse.toml"))
    setup = prepare(case.model, case.q0, case.v0)
    t_end = 0.8
    nodes = np.arange(0.02, t_end - 0.01, 0.02)
    values = [node_values(simulate(setup, SolverSettings(dt, t_end)), dt, nodes, case.model) for dt in STEPS]
    torques = np.array([rrr.inverse_dynamics(PARAMS, *m) for m in zip(*rrr.circle_trajectory(nodes))])
    scale = np.abs(torques).max()
    assert scale > 0.1
    errors = [np.abs(u - torques).max() / scale for u in values]
    assert np.all(np.abs(orders(errors) - 2.0) <= 0.15), errors
    assert np.abs(richardson(values) - torques).max() / scale <= 1e-8


class _Torques:
    """Recursive inverse-dynamics torques along circle_trajectory, one evaluation per time."""

    def __init__(self, params):
        self.params, self.t, self.value = params, None, None

    def __call__(self, t):
        if t != self.t:
            self.t, self.value = t, rrr.inverse_dynamics(self.params, *rrr.circle_trajectory(t))
        return self.value


def test_forward_dynamics_under_recursive_torques_follows_the_trajectory():
    """In a vertical plane (gravity), the DAE without servo constraints, driven by the DeNOC torques
    of circle_trajectory, reproduces the platform motion and the crank angles; the error is the
    integrator's, observed order 2."""
    params = rrr.RRRParameters(gravity=(0.0, -9.81))
    torques = _Torques(params)
    model = rrr_model(params, torques=[lambda t, j=j: torques(t)[j] for j in range(3)])
    pose0, twist0, _ = rrr.circle_trajectory(0.0)
    setup = prepare(model, *rrr_state(model, params, pose0, twist0))
    t_end = 0.6
    pose_errors, angle_errors = [], []
    for dt in STEPS:
        r = simulate(setup, SolverSettings(dt, t_end))
        poses = rrr.circle_trajectory(r.t)[0]
        pose_errors.append(np.abs(rrr_platform(model, r.q) - poses).max())
        theta = np.array([rrr.inverse_kinematics(params, p) for p in poses])
        angle_errors.append(np.abs(rrr_actuated(model, r.q) - theta).max())
    assert np.all(np.abs(orders(pose_errors) - 2.0) <= 0.15), pose_errors
    assert np.all(np.abs(orders(angle_errors) - 2.0) <= 0.15), angle_errors
    assert pose_errors[-1] < 1e-4


def test_forward_case_converges_to_the_recursive_forward_dynamics(case_path):
    """cases/3rrr_forward.toml (crank torques given, no servos): the BEM motion converges at order 2
    to simulate_forward of the DeNOC forward dynamics (DOP853, rtol 1e-11) under the case's torques."""
    case = load_case(case_path("3rrr_forward.toml"))
    model = case.model
    load = next(f for f in model.forces if isinstance(f, TimeLoad))
    order = [model.joint_coordinates[f"theta{j}"] for j in range(1, 4)]
    functions = [load.functions[list(load.dofs[:, 0]).index(i)] for i in order]
    setup = prepare(model, case.q0, case.v0)
    t_end = 1.0
    t_eval = np.linspace(0.0, t_end, 21)
    theta0 = rrr.inverse_kinematics(PARAMS, np.zeros(3))
    np.testing.assert_allclose(rrr_actuated(model, setup.q0), theta0, rtol=0, atol=1e-14)
    reference = rrr.simulate_forward(PARAMS, theta0, np.zeros(3),
                                     lambda t, th, thd: np.array([float(f(t)) for f in functions]), t_eval)
    assert np.abs(reference.pose[-1]).max() > 0.01   # the platform moves
    errors, pose_errors = [], []
    for dt in STEPS:
        r = simulate(setup, SolverSettings(dt, t_end))
        k = np.round(t_eval / dt).astype(int)
        errors.append(np.abs(rrr_actuated(model, r.q[k]) - reference.theta).max())
        pose_errors.append(np.abs(rrr_platform(model, r.q[k]) - reference.pose).max())
    assert np.all(np.abs(orders(errors) - 2.0) <= 0.15), errors
    assert np.all(np.abs(orders(pose_errors) - 2.0) <= 0.15), pose_errors


@pytest.mark.parametrize("bad", [dict(radius=0.04, speed=1.0)])
def test_unknown_trajectory_arguments_are_refused(bad):
    with pytest.raises(ValueError, match="speed"):
        rrr_model(PARAMS, servo=True, trajectory=bad)
