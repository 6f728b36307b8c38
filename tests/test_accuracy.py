"""Accuracy: observed second order of the BEM scheme (000 section 6), agreement with an independent
minimal-coordinate solution, and the redundant spatial four-bar."""
import math

import numpy as np
from scipy.integrate import solve_ivp

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.io.case import load_case
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d


def run(case, dt, t_end=None):
    setup = prepare(case.model, case.q0, case.v0, case.settings.initial_tolerance)
    return simulate(setup, SolverSettings(dt, t_end or case.settings.t_end))


def observed_orders(errors):
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


def test_nm_logo_angle_converges_at_second_order(case_path):
    """Theta(t = 2 s) for dt = 0.05 / 2^k: successive differences shrink by 4 (order 2 +- 0.15).
    The dt all divide the kinks of the hat torque (0.25 s, 0.5 s)."""
    case = load_case(case_path("nm_logo.toml"))
    k = case.model.joint_coordinates["theta"]
    theta = [run(case, 0.05 / 2**i).q[-1, k] for i in range(5)]
    orders = observed_orders(np.abs(np.diff(theta)))
    assert np.all(np.abs(orders - 2.0) <= 0.15), orders


def double_pendulum_ode(t_eval, theta0, rates0=(0.0, 0.0), m=1.0, l=1.0, w=0.05, g=9.81):
    """Absolute rod angles and rates (from the horizontal) of two uniform rods (cases/double_pendulum.toml),
    Lagrange's equations in minimal coordinates: (4, len(t_eval)) rows theta1, theta2, rates."""
    J = m * (l**2 + w**2) / 12.0
    a = m * l * l / 2.0
    M11, M22 = m * l**2 / 4 + J + m * l**2, m * l**2 / 4 + J

    def rhs(t, y):
        t1, t2, w1, w2 = y
        c, s = math.cos(t1 - t2), math.sin(t1 - t2)
        M = np.array([[M11, a * c], [a * c, M22]])
        f = np.array([-a * s * w2**2 - g * (m * l / 2 + m * l) * math.cos(t1),
                      a * s * w1**2 - g * m * l / 2 * math.cos(t2)])
        return [w1, w2, *np.linalg.solve(M, f)]

    return solve_ivp(rhs, (0.0, t_eval[-1]), [*theta0, *rates0], t_eval=t_eval, method="DOP853",
                     rtol=1e-12, atol=1e-12).y


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


def spatial_four_bar():
    """Planar four-bar (crank 1, coupler 2, rocker 1.8, ground 2.2) built from spatial revolute joints
    with parallel z axes: 3 x 6 - 4 x 5 = -2 by Gruebler's count, 1 by geometry: 3 redundant rows."""
    lengths = {"crank": 1.0, "coupler": 2.0, "rocker": 1.8}
    b = ModelBuilder(3)
    for name, l in lengths.items():
        b.add_body(name, l, [l**2 / 12, 1e-4, 1e-4], size=[l, 0.05, 0.05])
    z = [0.0, 0.0, 1.0]
    b.add_joint("A", "revolute", "ground", "crank", point1=[0, 0, 0], point2=[-0.5, 0, 0], axis=z, angle="crank_angle")
    b.add_joint("B", "revolute", "crank", "coupler", point1=[0.5, 0, 0], point2=[-1.0, 0, 0], axis=z)
    b.add_joint("C", "revolute", "coupler", "rocker", point1=[1.0, 0, 0], point2=[0.9, 0, 0], axis=z)
    b.add_joint("D", "revolute", "rocker", "ground", point1=[-0.9, 0, 0], point2=[2.2, 0, 0], axis=z)
    b.set_gravity([0.0, -9.81, 0.0])
    model = b.build()
    th = math.radians(60.0)
    A, D = np.zeros(2), np.array([2.2, 0.0])
    B = A + lengths["crank"] * np.array([math.cos(th), math.sin(th)])
    d = np.linalg.norm(D - B)
    a = (lengths["coupler"] ** 2 - lengths["rocker"] ** 2 + d**2) / (2 * d)
    e = (D - B) / d
    C = B + a * e + math.sqrt(lengths["coupler"] ** 2 - a**2) * np.array([-e[1], e[0]])

    def pose(p, q):
        return {"position": [*(p + q) / 2, 0.0], "rotation": rotation_3d(z, math.atan2(*(q - p)[::-1]))}

    q, v = place(model, {"crank": pose(A, B), "coupler": pose(B, C), "rocker": pose(D, C)}, {})
    return model, q, v


def test_spatial_four_bar_drops_redundant_rows_and_conserves_energy():
    model, q, v = spatial_four_bar()
    setup = prepare(model, q, v)
    assert len(setup.dropped) == 3
    assert all(label.startswith("revolute 'D'") for label, _ in setup.dropped)
    assert all("revolute 'A'" in involved and "revolute 'C'" in involved for _, involved in setup.dropped)
    r = simulate(setup, SolverSettings(0.01, 3.0))
    assert r.complete
    assert np.ptp(r.total) <= 1e-10 * np.abs(r.kinetic).max()
    assert r.residual.max() <= 1e-10
    assert np.ptp(r.q[:, model.joint_coordinates["crank_angle"]]) > 0.5  # it does move
    z = r.q[:, [2, 14, 26]]  # the centres stay in the plane z = 0
    assert np.abs(z).max() <= 1e-12
