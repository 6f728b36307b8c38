"""The energy-momentum DAE against an independent formulation of the same system: the double pendulum
(``cases/double_pendulum.toml``) against Lagrange's equations in its two absolute rod angles
(``shared.double_pendulum_ode``, solve_ivp with rtol 1e-12)."""
import numpy as np
from shared import double_pendulum_ode, observed_orders
from shared import run_at as run

from femdyn.casefile.case import load_case


def test_double_pendulum_matches_minimal_coordinate_solution(case_path):
    """Absolute angles theta1 and theta1 + theta2 against solve_ivp (rtol 1e-10): the error is
    second order in dt (ratio 4 per halving, +- 0.15 in the order) and small in absolute terms."""
    case = load_case(case_path("double_pendulum.toml"))
    i1, i2 = case.model.joint_coordinates["theta1"], case.model.joint_coordinates["theta2"]
    t_end = 2.0
    errors = []
    for dt in (0.004, 0.002, 0.001):
        r = run(case, dt, t_end)
        a1, a2 = double_pendulum_ode(r.t, (r.q[0, i1], r.q[0, i1] + r.q[0, i2]))[:2]
        errors.append(max(np.abs(r.q[:, i1] - a1).max(), np.abs(r.q[:, i1] + r.q[:, i2] - a2).max()))
        assert np.ptp(r.total) <= 1e-10 * np.abs(r.total).max()
    orders = observed_orders(errors)
    assert np.all(np.abs(orders - 2.0) <= 0.15), (errors, orders)
    assert errors[-1] < 1e-3
