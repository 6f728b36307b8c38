"""The compiled constraint families and forces as ``SaddleSystem.constrain`` writes them into a Newton
iteration: the Newton-matrix entries are the derivatives of the residual they are written with (central
differences of R in q_n+1 and in the multipliers), for the energy-momentum forms (Gbar(q_n, q_n+1))
and the continuous ones (q_n = q_n+1), and the rows take their exact values at known configurations."""
import pathlib

import numpy as np
import pytest
from test_components import all_joints_model

from femdyn.beam.body import BeamBody, Section
from femdyn.forces.friction import Friction
from femdyn.forces.loads import FollowerTorque, TimeTorque
from femdyn.forces.spring_damper import SpringDamper
from femdyn.integrators.saddle import SaddleSystem
from femdyn.casefile.case import load_case
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

CASES = pathlib.Path(__file__).resolve().parents[2] / "cases"


def flexible_pendulum():
    """A 1 m steel beam of 4 elements pinned to the ground with its pin angle "theta" as a coordinate
    (the angle row then turns with the beam's cross-section at the pin)."""
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(1.0, 4, Section.rectangle(0.01, 0.01), 2.1e11, 7850.0), stiffening=True)
    b.add_joint("pin", "revolute", "ground", "beam", angle="theta")
    b.set_gravity([0.0, -9.81])
    return b.build()


def residual_and_matrix(system, qa, qb, lam, scale, same):
    """R (size,) and the dense Newton matrix's constraint part at (qa, qb, lam); ``same``: the
    continuous forms at qb, whose tangent the steps double (the discrete one is the derivative in qb
    of a mid-point form, half that of the continuous one)."""
    starts = system.begin_step(qb if same else qa, 1.0)
    R = np.zeros(system.size)
    values = system.newton_values(0.0)
    system.constrain(R, starts, qb if same else qa, qb, lam, scale, 2.0 if same else 1.0, values)
    return R, system.pattern.csc(values).toarray()


def servo_model():
    """The free-floating RPR of the figure-8 case: joint angles, slides and two servo families."""
    return load_case(CASES / "rpr_figure8.toml").model


MODELS = {"planar": lambda: all_joints_model(2), "spatial": lambda: all_joints_model(3), "flexible": flexible_pendulum,
          "servos": servo_model}


@pytest.mark.parametrize("same", [False, True], ids=["discrete", "continuous"])
@pytest.mark.parametrize("which", list(MODELS))
def test_newton_entries_are_derivatives_of_the_residual(which, same):
    model = MODELS[which]()
    system = SaddleSystem(model)
    assert any(fam.compiled for fam in system.families)
    rng = np.random.default_rng(21)
    qa = rng.normal(size=model.n)
    qb, lam, scale, n = qa + 0.3 * rng.normal(size=model.n), rng.normal(size=model.m), 3.0, model.n

    def R(x, y=lam):
        return residual_and_matrix(system, qa, x, y, scale, same)[0]

    _, K = residual_and_matrix(system, qa, qb, lam, scale, same)
    h = 1e-6
    for j in range(n):
        e = np.zeros(n)
        e[j] = h
        np.testing.assert_allclose(K[:, j], (R(qb + e) - R(qb - e)) / (2 * h), atol=2e-7, err_msg=f"column {j}")
    for i in range(model.m):  # d R_q / d lam_i = Gbar row i: the matrix holds scale Gbar^T
        e = np.zeros(model.m)
        e[i] = h
        np.testing.assert_allclose(K[:n, n + i], scale * (R(qb, lam + e) - R(qb, lam - e))[:n] / (2 * h),
                                   atol=2e-7, err_msg=f"row {i}")


@pytest.mark.parametrize("delta", [0.0, 0.3, -2.0])
def test_angle_row_is_the_sine_of_the_angle_error(delta):
    """On the flexible pendulum placed at the pin angle 0.7, the angle row with Theta = 0.7 + delta is
    sin(delta) and its Theta derivative cos(delta) (angle.py: Phi = sin(Theta - Theta_rel)), written
    scaled into the residual and the matrix."""
    model = flexible_pendulum()
    q, _ = place(model, {}, {"pin": {"angle": 0.7}})
    theta = model.joint_coordinates["theta"]
    q[theta] += delta
    system = SaddleSystem(model)
    (fam,) = [f for f in system.families if f.compiled]
    row = int(fam.c.rows[0, 0])
    R, K = residual_and_matrix(system, q, q, np.zeros(model.m), 2.0, True)
    assert R[model.n + row] == pytest.approx(2.0 * np.sin(delta), abs=1e-14)
    assert K[model.n + row, theta] == pytest.approx(2.0 * np.cos(delta), abs=1e-14)


def test_servo_rows_are_the_trajectory_errors():
    """The servo rows of the figure-8 RPR at a random q and t = 0.7: scale (a(t) . q_c - gamma(t)), the
    row's own definition evaluated from its coefficients and targets (``Servo.phi``)."""
    model = servo_model()
    system = SaddleSystem(model)
    q, t, scale = np.random.default_rng(3).normal(size=model.n), 0.7, 2.0
    R = np.zeros(system.size)
    system.constrain(R, system.begin_step(q, t), q, q, np.zeros(model.m), scale)
    servos = [fam.c for fam in system.families if fam.servo]
    assert len(servos) == 2
    for c in servos:
        np.testing.assert_allclose(R[model.n + c.rows[:, 0]], scale * c.phi(q[c.dofs], t)[:, 0], rtol=1e-14, atol=1e-14)


def test_friction_return_map_is_energy_consistent():
    """001 eq. 26 over random steps of 200 friction elements, sticking and slipping: the step's work
    against the friction force is the change of the stored energy plus the dissipation,
    -Fbar (q_b - q_a) = psi(q_b, p_b) - psi(q_a, p_n) + D_n (psi = E/2 (q - p)^2, D = F_max |p_b - p_n|),
    the stick force is E (q_mid - p_n) with the slip unchanged, a slipping element ends at
    |E (q_b - p_b)| = F_max, and the tangent is the derivative of the force (central differences)."""
    rng = np.random.default_rng(26)
    K = 200
    f = Friction(np.arange(K)[:, None], [f"x{k}" for k in range(K)], rng.uniform(50, 500, K), rng.uniform(1, 20, K))
    p = rng.normal(scale=0.02, size=K)
    qa = (p + rng.uniform(-1, 1, K) * f.F_max / f.E)[:, None]  # |E e_a| <= F_max: a state the steps reach
    qb = qa + rng.normal(scale=0.05, size=(K, 1))
    force, p_b, D = f.discrete_force(qa, qb, 0.0, 0.01, p)[:, 0], f.advance(qa, qb, p), f.dissipation(qa, qb, p)
    slip = f.E * np.abs(qb[:, 0] - p) > f.F_max  # the trial state leaves the elastic range
    assert 20 < slip.sum() < K - 20
    psi = lambda q, s: 0.5 * f.E * (q[:, 0] - s) ** 2  # noqa: E731
    work = -force * (qb - qa)[:, 0]
    np.testing.assert_allclose(work, psi(qb, p_b) - psi(qa, p) + D, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(force[~slip], -f.E[~slip] * (0.5 * (qa + qb)[~slip, 0] - p[~slip]), rtol=1e-15)
    np.testing.assert_allclose(np.abs(f.E * (qb[:, 0] - p_b))[slip], f.F_max[slip], rtol=1e-13)
    h = 1e-7
    away = np.abs(f.E * np.abs(qb[:, 0] - p) - f.F_max) > 1e3 * h * f.E  # not at the stick/slip switch
    numeric = (f.discrete_force(qa, qb + h, 0.0, 0.01, p) - f.discrete_force(qa, qb - h, 0.0, 0.01, p))[:, 0] / (2 * h)
    np.testing.assert_allclose(f.tangent(qa, qb, 0.0, 0.01, p)[away, 0, 0], numeric[away], rtol=1e-6, atol=1e-6)
    force, tangent, _ = f.continuous_tangents(qb, None, 0.0, 0.01, p)  # backward Euler: -E e, 0 while slipping
    numeric = (f.continuous_force(qb + h, None, 0.0, 0.01, p) - f.continuous_force(qb - h, None, 0.0, 0.01, p)) / (2 * h)
    np.testing.assert_allclose(tangent[away], numeric[away], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.abs(force[slip, 0]), f.F_max[slip], rtol=1e-15)
    np.testing.assert_array_equal(f.continuous_advance(qb, p)[~slip], p[~slip])


def test_spring_damper_at_known_extensions():
    """Springs between the centres of two rigid bodies (body points X = 0: x = phi) at distance l along
    a random direction u: the continuous force on body 2 is -(k (l - l0) + c l') u with the rate
    l' = u.(v2 - v1), the discrete one at q_a = q_b without damping -k (l - l0) u; over a step along the
    line the discrete force does the work V(q_a) - V(q_b) - c (l_b - l_a)^2/dt (the damper's exact
    loss); all tangents are central differences of the forces."""
    rng = np.random.default_rng(8)
    K, d = 30, 3
    nb = d + d * d  # a rigid body's [phi, d_a]
    k, c, l0 = rng.uniform(1, 100, K), rng.uniform(0, 5, K), rng.uniform(0.5, 1.5, K)
    dofs, labels, X = np.arange(2 * nb * K).reshape(K, 2 * nb), [f"s{i}" for i in range(K)], np.zeros((K, d))
    f, spring = SpringDamper(dofs, labels, X, X, k, c, l0), SpringDamper(dofs, labels, X, X, k, 0.0, l0)
    u = rng.normal(size=(K, d))
    u /= np.linalg.norm(u, axis=1)[:, None]
    l, rate = rng.uniform(0.3, 2.0, K), rng.normal(size=K)
    q, v, along = rng.normal(size=(K, 2 * nb)), np.zeros((K, 2 * nb)), np.zeros((K, 2 * nb))
    q[:, nb : nb + d] = q[:, :d] + l[:, None] * u
    v[:, nb : nb + d], along[:, nb : nb + d] = rate[:, None] * u, u
    F, dF_dq, dF_dv = f.continuous_tangents(q, v, 0.0, 0.01)
    np.testing.assert_allclose(F[:, nb : nb + d], -(k * (l - l0) + c * rate)[:, None] * u, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(F[:, :d], -F[:, nb : nb + d], rtol=1e-15)
    np.testing.assert_allclose(spring.discrete_force(q, q, 0.0, 0.01)[:, nb : nb + d], -(k * (l - l0))[:, None] * u,
                               rtol=1e-13, atol=1e-13)
    dt = 0.01
    qb = q + 0.1 * along  # l_b = l + 0.1
    work = np.sum(f.discrete_force(q, qb, 0.0, dt) * (qb - q), axis=1)
    np.testing.assert_allclose(work, 0.5 * k * ((l - l0) ** 2 - (l + 0.1 - l0) ** 2) - c * 0.1**2 / dt, rtol=1e-12)
    h = 1e-6
    for j in np.flatnonzero(f.tangent_mask.any(axis=0)):
        e = np.zeros_like(q)
        e[:, j] = h
        np.testing.assert_allclose(f.tangent(q, qb, 0.0, dt)[:, :, j],
                                   (f.discrete_force(q, qb + e, 0.0, dt) - f.discrete_force(q, qb - e, 0.0, dt)) / (2 * h),
                                   rtol=1e-6, atol=1e-6)
        for derivative, moved in ((dF_dq, lambda s: (q + s * e, v)), (dF_dv, lambda s: (q, v + s * e))):
            full = np.zeros((K, 2 * nb, 2 * nb))
            full[:, f.tangent_mask] = derivative
            difference = f.continuous_force(*moved(1.0), 0.0, dt) - f.continuous_force(*moved(-1.0), 0.0, dt)
            np.testing.assert_allclose(full[:, :, j], difference / (2 * h), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("follower", [False, True], ids=["world", "follower"])
def test_torques_turn_their_frames_by_exactly_the_torque(follower):
    """Torques on 40 spatial frames e_a = d_a (a rigid body's directors, z = [phi, d_1, d_2, d_3]),
    orthonormal and sheared: the forces F_a on the e_a that Fbar holds give sum_a e_a x F_a = M exactly
    (loads.TimeTorque: F_a = M x g_a / 2 with the dual basis g_a), M = f(t) m in the world or
    f(t) sum_b m_b e_b on the frame; on an orthonormal frame F_a = M x e_a / 2; the tangent is the
    central difference of Fbar."""
    rng = np.random.default_rng(9)
    K, n = 40, 12
    axes = np.zeros((K, 3, 3, n))
    for a in range(3):
        axes[:, a, np.arange(3), 3 + 3 * a + np.arange(3)] = 1.0
    m = rng.normal(size=(K, 3))
    f = (FollowerTorque if follower else TimeTorque)(np.arange(K * n).reshape(K, n), axes, m, [lambda t: 2.0 + t] * K)
    rotations = np.linalg.qr(rng.normal(size=(K, 3, 3)))[0]
    for E in (rotations, rotations + 0.3 * rng.normal(size=(K, 3, 3))):  # rows e_a
        z = np.concatenate([rng.normal(size=(K, 3)), E.reshape(K, 9)], axis=1)
        F = f.discrete_force(z, z, 0.5, 0.01)[:, 3:].reshape(K, 3, 3)
        M = 2.5 * (np.einsum("kb,kbi->ki", m, E) if follower else m)
        np.testing.assert_allclose(np.cross(E, F).sum(axis=1), M, rtol=0, atol=1e-13 * np.abs(M).max())
        np.testing.assert_array_equal(f.discrete_force(z, z, 0.5, 0.01)[:, :3], 0.0)
        if E is rotations:
            np.testing.assert_allclose(F, 0.5 * np.cross(M[:, None, :], E), rtol=0, atol=1e-14 * np.abs(M).max())
        zb, h = z + 0.05 * rng.normal(size=z.shape), 1e-6
        T = f.tangent(z, zb, 0.5, 0.01)
        for j in range(3, n):
            e = np.zeros_like(z)
            e[:, j] = h
            fd = (f.discrete_force(z, zb + e, 0.5, 0.01) - f.discrete_force(z, zb - e, 0.5, 0.01)) / (2 * h)
            np.testing.assert_allclose(T[:, :, j], fd, rtol=0, atol=1e-6 * max(1.0, np.abs(fd).max()))
