"""Accuracy of the energy-momentum scheme: observed second order (000 section 6) and the redundant
spatial four-bar."""
import math

import numpy as np
from shared import observed_orders
from shared import run_at as run

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d


def test_nm_logo_angle_converges_at_second_order(case_path):
    """Theta(t = 2 s) for dt = 0.05 / 2^k: successive differences shrink by 4 (order 2 +- 0.15).
    The dt all divide the kinks of the hat torque (0.25 s, 0.5 s)."""
    case = load_case(case_path("nm_logo.toml"))
    k = case.model.joint_coordinates["theta"]
    theta = [run(case, 0.05 / 2**i).q[-1, k] for i in range(5)]
    orders = observed_orders(np.abs(np.diff(theta)))
    assert np.all(np.abs(orders - 2.0) <= 0.15), orders


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
