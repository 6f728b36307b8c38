"""A probe's velocity and acceleration (``probes.probe_table`` with v and t) on a rigid body of known
motion: centre phi(t), angle theta(t). The material point X moves with velocity
phi' + omega e_z x r and acceleration phi'' + omega' e_z x r - omega^2 r (r = X_a d_a, omega = theta'),
rigid-body kinematics. The velocity, a linear map of v, equals it to round-off; the acceleration, the
backward difference of the velocity, converges at its second order as dt halves (first order at the
first two nodes), and a run given in
chunks has the columns of the run at once, bit for bit."""
import numpy as np

from femdyn.casefile.case import load_case
from femdyn.post.probes import probe_table

X = np.array([0.3, -0.1])
CASE = f"""\
title = "moving crank"
dimension = 2
[solver]
dt = 0.01
t_end = 0.01
[[bodies]]
name = "crank"
mass = 1.0
euler = [0.1, 0.2]
size = [0.6, 0.1]
[[probes]]
name = "P"
body = "crank"
point = [{X[0]}, {X[1]}]
[initial.bodies.crank]
position = [0.0, 0.0]
angle = 0.0
"""


def motion(t):
    """theta, omega, omega'; phi, phi', phi'' at the times t."""
    theta, omega, alpha = 0.8 * np.sin(3 * t) + 2 * t, 2.4 * np.cos(3 * t) + 2, -7.2 * np.sin(3 * t)
    phi = np.column_stack([0.1 * t**2, 0.2 * np.sin(t)])
    dphi = np.column_stack([0.2 * t, 0.2 * np.cos(t)])
    ddphi = np.column_stack([0.2 + 0 * t, -0.2 * np.sin(t)])
    return theta, omega, alpha, phi, dphi, ddphi


def states(model, t):
    """q, v of the body's motion and the point's arm r (F, 2)."""
    theta, omega, _, phi, dphi, _ = motion(t)
    c, s = np.cos(theta), np.sin(theta)
    d1, d2 = np.column_stack([c, s]), np.column_stack([-s, c])
    q, v = np.zeros((len(t), model.n)), np.zeros((len(t), model.n))
    q[:, :6] = np.column_stack([phi, d1, d2])
    v[:, :6] = np.column_stack([dphi, omega[:, None] * d2, -omega[:, None] * d1])
    return q, v, X[0] * d1 + X[1] * d2


def columns(model, probes, t, chunks=1):
    q, v, r = states(model, t)
    states_ = {}
    parts = [probe_table(model, probes, q[i], states_, v=v[i], t=t[i]) for i in np.array_split(np.arange(len(t)), chunks)]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}, r


def test_velocity_is_omega_cross_r_and_acceleration_second_order(tmp_path):
    path = tmp_path / "crank.toml"
    path.write_text(CASE)
    case = load_case(path)
    model = case.model
    errors, start = [], []
    for steps in (50, 100, 200):
        t = np.linspace(0.0, 1.0, steps + 1)
        got, r = columns(model, case.probes, t)
        _, omega, alpha, _, dphi, ddphi = motion(t)
        cross = np.column_stack([-r[:, 1], r[:, 0]])  # e_z x r
        velocity = dphi + omega[:, None] * cross
        assert np.abs(np.column_stack([got["P.vx"], got["P.vy"]]) - velocity).max() < 1e-14 * np.abs(velocity).max()
        acceleration = ddphi + alpha[:, None] * cross - omega[:, None] ** 2 * r
        a = np.column_stack([got["P.ax"], got["P.ay"]])
        assert np.isfinite(a).all() and np.array_equal(a[0], a[1])  # (v_1 - v_0)/h at the first two nodes
        start.append(np.abs(a[:2] - acceleration[:2]).max())
        errors.append(np.abs(a[2:] - acceleration[2:]).max())
        chunked, _ = columns(model, case.probes, t, chunks=7)
        assert all(np.array_equal(chunked[k], got[k], equal_nan=True) for k in got)
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 1.9) & (orders < 2.1)), (errors, orders)
    orders = np.log2(np.array(start[:-1]) / np.array(start[1:]))  # the first two nodes: first order
    assert np.all((orders > 0.9) & (orders < 1.1)), (start, orders)
