"""The Stewart-Gough case file (cases/stewart_gough.toml: a point servo and an orientation servo with the
Euler angles of stewart.platform_trajectory, written in the file) against Gauss/Appell in the platform
coordinates (femdyn.reference.stewart).

The servo multipliers of each step are the leg forces at the step mid-times t_n+1/2 (000 eq. 84): they
are compared with the Gauss/Appell leg forces at those mid-times, and, at the time nodes as inputs.csv
gives them (``time_loop.node_multipliers``), with the forces at the nodes; both converge at order 2, and
the nodal ones show no step-to-step alternation."""
import numpy as np
from shared import CASES, observed_orders

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.reference import stewart
from femdyn.reference.models import stewart_model, stewart_state

PARAMS = stewart.StewartParameters()
T_END = 0.8


def gauss_appell(times):
    """Leg forces (len(times), 6) of Gauss/Appell along the trajectory."""
    return np.array([stewart.inverse_dynamics(PARAMS, *stewart.platform_trajectory(PARAMS, t)) for t in times])


def test_the_case_is_the_reference_model():
    """The case file builds the model of femdyn.reference.models.stewart_model: the same coordinates, mass
    matrix and, placed at home, the same state."""
    case = load_case(CASES / "stewart_gough.toml")
    model = stewart_model(PARAMS, servo=True)
    q, _ = stewart_state(model, PARAMS, PARAMS.home_position, np.eye(3))
    assert case.model.coordinate_names == model.coordinate_names
    assert abs(case.model.mass_matrix - model.mass_matrix).max() <= 1e-15
    np.testing.assert_allclose(case.q0, q, rtol=0, atol=1e-15)


def test_leg_forces_equal_gauss_appell_at_second_order():
    """At dt = 0.01, 0.005, 0.0025 s over 0.8 s (the start-up and the first cycle): the largest difference
    to Gauss/Appell, relative to the largest leg force, at the step mid-times (the multipliers of each
    step) and at every time node t_0 .. t_end (``Results.node_inputs``, as inputs.csv holds them: the mean
    of the two neighbouring steps, the consistent multipliers at the first and last node) falls by 4 per
    halving (orders 2 +- 0.05), and is 2e-5 at the finest."""
    case = load_case(CASES / "stewart_gough.toml")
    setup = prepare(case.model, case.q0, case.v0)
    mid_errors, node_errors = [], []
    for dt in (0.01, 0.005, 0.0025):
        r = simulate(setup, SolverSettings(dt, T_END))
        assert r.complete, r.message
        mid = gauss_appell(r.t_mid)
        mid_errors.append(np.abs(r.inputs - mid).max() / np.abs(mid).max())
        at_nodes = gauss_appell(r.t)
        node_errors.append(np.abs(r.node_inputs(case.model.input_rows) - at_nodes).max() / np.abs(at_nodes).max())
    for errors in (mid_errors, node_errors):
        assert np.all(np.abs(observed_orders(errors) - 2.0) <= 0.05), errors
    assert mid_errors[-1] < 2e-5 and node_errors[-1] < 6e-5
