"""Forces and torques that follow a body (``frame = "body"``): exact solutions of a free body under a
body-fixed thrust and a body-fixed torque, the energy balance and the momentum balance of the
energy-momentum scheme, and their Newton tangents against finite differences."""
import numpy as np
import pytest

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model import ModelBuilder, place
from femdyn.numerics.kinematics import rotation_3d

M, OMEGA, F = 2.0, 4.0, 3.0  # kg, rad/s about the body's symmetry axis, N along its d_1


def spinning_thrust(dim, dt, t_end=1.0):
    """A free body spinning at OMEGA about its axis of symmetry (normal to the plane; d_3 in space) with a
    thrust F along its d_1 through its centre: no torque, so the spin stays OMEGA and the thrust turns
    with it."""
    b = ModelBuilder(dim)
    b.add_body("craft", M, [0.05, 0.05, 0.02][:dim])
    b.add_point_force("craft", np.zeros(dim), np.eye(dim)[0] * F, lambda t: 1.0, frame="body")
    model = b.build()
    w = OMEGA if dim == 2 else np.array([0.0, 0.0, OMEGA])
    q, v = place(model, {"craft": {"position": np.zeros(dim), "angular_velocity": w}}, {})
    r = simulate(prepare(model, q, v), SolverSettings(dt, t_end))
    assert r.complete, r.message
    return model, r


@pytest.mark.parametrize("dim", [2, 3])
def test_a_spinning_body_under_its_own_thrust_follows_the_exact_circle(dim):
    """The centre's velocity is F/(m OMEGA) (sin OMEGA t, 1 - cos OMEGA t): observed order 2 over three dt;
    H - H0 - W at round-off; the spin and the angular momentum about the centre stay put."""
    errors = []
    for dt in (0.02, 0.01, 0.005):
        model, r = spinning_thrust(dim, dt)
        o = model.bodies[0].offset
        velocity = r.v[:, o : o + 2]
        exact = F / (M * OMEGA) * np.column_stack([np.sin(OMEGA * r.t), 1 - np.cos(OMEGA * r.t)])
        errors.append(np.abs(velocity - exact).max())
        assert np.abs(r.total - r.total[0] - r.work).max() < 1e-12 * r.total.max()
    orders = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(orders - 2) < 0.05), (errors, orders)


def test_a_body_fixed_torque_about_the_symmetry_axis_spins_the_body_up():
    """A symmetric top (J_1 = J_2) with a body-fixed torque m_3 along its axis d_3, tilted in space and
    spinning about that axis: omega = omega_0 + (m_3 / J_3) t about the fixed axis, exact for the
    mid-point rule (a linear rate); the energy balance at round-off; the angular momentum changes by the
    impulse along d_3."""
    J1, J3, m3 = 0.3, 0.5, 0.8
    b = ModelBuilder(3)
    b.add_body("top", 1.0, [J3 / 2, J3 / 2, J1 - J3 / 2])  # E_i = (J_j + J_k - J_i)/2, J = (J1, J1, J3)
    b.add_point_torque("top", [0.0, 0.0, m3], lambda t: 1.0, frame="body")
    model = b.build()
    R = rotation_3d([1.0, -1.0, 0.5], 0.7)
    q, v = place(model, {"top": {"rotation": R, "angular_velocity": R @ [0.0, 0.0, 2.0]}}, {})
    r = simulate(prepare(model, q, v), SolverSettings(0.01, 1.0))
    assert r.complete, r.message
    o = model.bodies[0].offset
    d3 = r.q[:, o + 9 : o + 12]
    assert np.abs(d3 - R[:, 2]).max() < 1e-12  # the axis stays where it was
    d1, d1_rate = r.q[:, o + 3 : o + 6], r.v[:, o + 3 : o + 6]
    spin = np.cross(d1, d1_rate) @ R[:, 2]  # omega . d_3 (d_1 x d_1' = omega - (omega . d_1) d_1)
    np.testing.assert_allclose(spin, 2.0 + m3 / J3 * r.t, rtol=0, atol=1e-10)
    assert np.abs(r.total - r.total[0] - r.work).max() < 1e-12 * r.total.max()
    change = r.angular_momentum - r.angular_momentum[0]
    np.testing.assert_allclose(change, np.outer(m3 * r.t, R[:, 2]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dim", [2, 3])
def test_follower_tangents_are_derivatives(dim):
    """dFbar/dqb of the follower force and torque on a flexible body's section (interior material
    point) equals central differences of Fbar."""
    b = ModelBuilder(dim)
    section = Section.rectangle(0.01, 0.02)
    b.add_beam("arm", BeamBody.straight(1.0, 4, section, 7e10, 2700.0, dim=dim, axial="cubic", poisson=0.3),
               stiffening=True)
    b.add_point_force("arm", [0.6] + [0.0] * (dim - 1), [1.0, -2.0, 0.5][:dim], lambda t: 1.0 + t, frame="body")
    b.add_point_torque("arm", [0.3, 0.2, -0.4] if dim == 3 else 0.5, lambda t: 2.0, [0.3] + [0.0] * (dim - 1),
                       frame="body")
    model = b.build()
    rng = np.random.default_rng(3)
    q, _ = place(model, {"arm": {"position": np.zeros(dim)}}, {})
    qa, qb = q + 0.05 * rng.normal(size=q.size), q + 0.05 * rng.normal(size=q.size)
    found = 0
    for f in model.forces:
        if type(f).__name__ not in ("FollowerForce", "FollowerTorque", "TimeTorque"):
            continue
        found += 1
        la, lb = qa[f.dofs], qb[f.dofs]
        T = f.tangent(la, lb, 0.3, 0.01)
        h, fd = 1e-6, np.zeros_like(T)
        for j in range(lb.shape[1]):
            e = np.zeros_like(lb)
            e[:, j] = h
            fd[:, :, j] = (f.discrete_force(la, lb + e, 0.3, 0.01) - f.discrete_force(la, lb - e, 0.3, 0.01)) / (2 * h)
        np.testing.assert_allclose(T, fd, rtol=0, atol=1e-6 * max(1.0, np.abs(fd).max()))
        assert not np.any(T[:, ~f.tangent_mask])
    assert found == 2
