"""Every constraint and force component against its defining identities, at random (off-manifold)
coordinates: the Jacobian is the derivative of Phi, the discrete Jacobian is an exact discrete gradient
(Phi(qb) - Phi(qa) = Gbar (qb - qa), 000 eq. 7), the discrete force is an exact discrete gradient of
the potential, and the Newton tangents are the derivatives of what they linearise; the beams' elastic
tangents, the friction force of a step without motion, and the figure-8's smooth ramp as the integral
of its rate."""
import numpy as np
import pytest
from shared import free_beam

from femdyn.forces.time_functions import constant
from femdyn.joints.trajectories import (
    SmoothRampAngle,
    smooth_step,
    smooth_step_integral,
)
from femdyn.model.builder import ModelBuilder
from femdyn.numerics.kinematics import rotation_3d


def all_joints_model(dim):
    return all_joints_builder(dim).build()


def all_joints_builder(dim):
    """Every joint type, a spring-damper, gravity, a joint torque and a point force, at random (seeded)
    points and axes: the builder, whose ``spec()`` holds the records the model is built from."""
    b = ModelBuilder(dim)
    rng = np.random.default_rng(dim)
    for i in range(4):
        b.add_body(f"b{i}", 1.0 + i, 0.1 + rng.random(dim))
    p = lambda: rng.normal(size=dim)  # noqa: E731
    axis = lambda: rng.normal(size=dim)  # noqa: E731
    rot = 0.3 if dim == 2 else rotation_3d(rng.normal(size=3), 0.7)
    b.add_joint("r", "revolute", "b0", "b1", point1=p(), point2=p(), axis=axis(), angle="theta")
    b.add_joint("p", "prismatic", "b1", "b2", point1=p(), point2=p(), axis=axis(), slide="u")
    b.add_joint("f", "fixed", "b2", "b3", point1=p(), point2=p(), axis=axis(), relative_rotation=rot)
    b.add_joint("g", "revolute", "ground", "b0", point1=p(), point2=p())
    if dim == 3:
        b.add_joint("s", "spherical", "b0", "b2", point1=p(), point2=p())
        b.add_joint("u", "universal", "b1", "b3", point1=p(), point2=p(), axis=axis())
        b.add_joint("c", "cylindrical", "b0", "b3", point1=p(), point2=p(), axis=axis(), angle="psi", slide="w")
    b.add_spring_damper("k", "b0", p(), "b3", p(), stiffness=30.0, damping=2.0, free_length=0.7)
    b.set_gravity(rng.normal(size=dim))
    b.add_joint_load("theta", constant(2.0))
    b.add_point_force("b2", p(), rng.normal(size=dim), constant(1.5))
    return b


def random_pair(model, rng, step=0.3):
    qa = rng.normal(size=model.n)
    return qa, qa + step * rng.normal(size=model.n)


def central_difference(f, x, h=1e-6):
    cols = []
    for j in range(x.shape[1]):
        e = np.zeros_like(x)
        e[:, j] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


@pytest.fixture(params=[2, 3], ids=["planar", "spatial"])
def model(request):
    return all_joints_model(request.param)


def test_jacobian_is_derivative_of_phi(model):
    rng = np.random.default_rng(0)
    q = rng.normal(size=model.n)
    for c in model.constraints:
        ql = q[c.dofs]
        np.testing.assert_allclose(c.jacobian(ql), central_difference(c.phi, ql), atol=1e-7, err_msg=type(c).__name__)


def test_discrete_jacobian_is_exact_discrete_gradient(model):
    rng = np.random.default_rng(1)
    for _ in range(5):
        qa, qb = random_pair(model, rng)
        for c in model.constraints:
            la, lb = qa[c.dofs], qb[c.dofs]
            lhs = c.phi(lb) - c.phi(la)
            rhs = np.einsum("kmn,kn->km", c.discrete_jacobian(la, lb), lb - la)
            np.testing.assert_allclose(lhs, rhs, atol=1e-12, err_msg=type(c).__name__)


def test_discrete_jacobian_reduces_to_jacobian(model):
    rng = np.random.default_rng(2)
    q = rng.normal(size=model.n)
    for c in model.constraints:
        ql = q[c.dofs]
        np.testing.assert_allclose(c.discrete_jacobian(ql, ql), c.jacobian(ql), atol=1e-14)


def test_discrete_tangent_is_derivative_of_constraint_forces(model):
    rng = np.random.default_rng(3)
    qa, qb = random_pair(model, rng)
    for c in model.constraints:
        la, lb = qa[c.dofs], qb[c.dofs]
        lam = rng.normal(size=(c.count, c.m))
        force = lambda x: np.einsum("kmn,km->kn", c.discrete_jacobian(la, x), lam)  # noqa: E731
        T = c.discrete_tangent(la, lb, lam)
        np.testing.assert_allclose(T, central_difference(force, lb), atol=1e-7, err_msg=type(c).__name__)
        assert not np.any(T[:, ~c.tangent_mask]), "tangent outside its declared structure"
        assert not np.any(c.discrete_jacobian(la, lb)[:, ~c.jacobian_mask])


def test_angle_tangent_near_equal_angles(model):
    """The Greenspan quotient and its derivative stay accurate when Theta_n+1 -> Theta_n, for every
    augmented joint angle of the model (theta; in 3D also the cylinder's psi)."""
    rng = np.random.default_rng(4)
    qa, qb = random_pair(model, rng)
    checked = []
    for c in model.constraints:
        if type(c).__name__ == "JointAngle":
            checked += list(c.dofs[:, -1])
            la, lb = qa[c.dofs], qb[c.dofs].copy()
            lb[:, -1] = la[:, -1] + 1e-9
            lam = np.ones((c.count, 1))
            force = lambda x: np.einsum("kmn,km->kn", c.discrete_jacobian(la, x), lam)  # noqa: E731
            np.testing.assert_allclose(c.discrete_tangent(la, lb, lam), central_difference(force, lb, 1e-5), atol=1e-7)
    angles = [j.coordinates["angle"] for j in model.joints if "angle" in j.coordinates]
    assert sorted(checked) == sorted(angles) and len(angles) == model.dim - 1, (checked, angles)


def test_forces_are_discrete_gradients_and_tangents_derivatives(model):
    """Fbar.(qb - qa) = -(V(qb) - V(qa)) + work of the non-conservative part; for the spring without
    damping the work is zero, and with damping it is -c (l_b - l_a)^2/dt. The two time loads have no
    potential and their closed forms: the torque 2 on its joint angle, and the force 1.5 f at the body
    point X, x = phi + X_a d_a, whose generalised force is C(X)^T 1.5 f = 1.5 (f, X_1 f, .., X_dim f) on
    the body's (phi, d_1, .., d_dim); each does the work of its force over the step."""
    rng = np.random.default_rng(5)
    qa, qb = random_pair(model, rng)
    dt = 0.1
    spec = all_joints_builder(model.dim).spec()  # the records this model was built from
    (torque,), (push,) = spec.coordinate_loads, spec.point_forces
    theta = model.joint_coordinates[torque.coordinate]
    body = model.body_dofs([b.name for b in model.bodies].index(push.body))

    def point(q):
        return q[body][: model.dim] + push.point @ q[body][model.dim:].reshape(model.dim, model.dim)

    loads = {"torque": (np.zeros(model.n), 2.0 * (qb[theta] - qa[theta])),
             "point force": (np.zeros(model.n), 1.5 * push.force @ (point(qb) - point(qa)))}
    loads["torque"][0][theta] = 2.0
    loads["point force"][0][body] = 1.5 * np.kron(np.r_[1.0, push.point], push.force)
    found = []
    for f in model.forces:
        found.append(type(f).__name__)
        la, lb = qa[f.dofs], qb[f.dofs]
        F = f.discrete_force(la, lb, 0.05, dt)
        work = np.sum(F * (lb - la)) + f.potential(lb) - f.potential(la)
        if type(f).__name__ == "SpringDamper":
            length = lambda x: np.linalg.norm(np.einsum("kin,kn->ki", f.D, x), axis=1)  # noqa: E731
            assert work == pytest.approx(-np.sum(f.c * (length(lb) - length(la)) ** 2 / dt), rel=1e-12)
            T = f.tangent(la, lb, 0.05, dt)
            fd = central_difference(lambda x: f.discrete_force(la, x, 0.05, dt), lb)
            np.testing.assert_allclose(T, fd, atol=1e-6)
        elif type(f).__name__ == "Gravity":
            assert work == pytest.approx(0.0, abs=1e-12)
        elif type(f).__name__ == "TimeLoad":
            assert f.potential(lb) == f.potential(la) == 0.0
            assembled = np.zeros(model.n)
            np.add.at(assembled, f.dofs, F)
            name = next((k for k, (force, _) in loads.items() if np.any(force[assembled != 0.0])), None)
            assert name, f"a time load on none of the loaded coordinates: {np.flatnonzero(assembled)}"
            force, expected_work = loads.pop(name)
            np.testing.assert_allclose(assembled, force, rtol=1e-14, atol=0, err_msg=name)
            assert work == pytest.approx(expected_work, rel=1e-12), name
    assert sorted(found) == ["Gravity", "SpringDamper", "TimeLoad", "TimeLoad"] and not loads, (found, loads)


def test_histories_are_the_values_at_every_configuration(model, monkeypatch):
    """``Model.residual_history`` and ``Model.potential_history`` (many configurations at once, in
    chunks) give max |phi| on the rows asked for and the potential energy of each configuration."""
    import femdyn.model.model

    rng = np.random.default_rng(6)
    Q, t = rng.normal(size=(7, model.n)), np.linspace(0.0, 1.0, 7)
    states = [model.initial_states(q) for q in Q]
    rows = np.arange(0, model.m, 2)
    residual = [np.abs(model.phi(q, tk)[rows]).max() for q, tk in zip(Q, t)]
    potential = [model.potential(q, s) for q, s in zip(Q, states)]
    for entries in (femdyn.model.model.HISTORY_ENTRIES, 3 * max(model.m, model.n)):  # one chunk, chunks of a few
        monkeypatch.setattr(femdyn.model.model, "HISTORY_ENTRIES", entries)
        np.testing.assert_allclose(model.residual_history(Q, t, rows), residual, rtol=1e-12)
        np.testing.assert_allclose(model.potential_history(Q, states), potential, rtol=1e-12)


def test_generic_linearize_matches_the_specialised_ones(model):
    """``Constraint.linearize`` (what a new joint type gets from phi, jacobian, discrete_jacobian and
    discrete_tangent) gives the same Newton data as the optimised implementations."""
    from femdyn.joints.base import Constraint

    rng = np.random.default_rng(6)
    qa, qb = random_pair(model, rng)
    for c in model.constraints:
        la, lb = qa[c.dofs], qb[c.dofs]
        lam = rng.normal(size=(c.count, c.m))
        fast = c.linearize(c.begin_step(la, 0.0), la, lb, lam)
        generic = Constraint.linearize(c, la, la, lb, lam)
        for a, b in zip(fast, generic):
            np.testing.assert_allclose(a, b, atol=1e-12, err_msg=type(c).__name__)


@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
def test_elastic_tangent_is_the_derivative_of_the_discrete_force(stiffening):
    """The elastic forces' Newton entries are d Fbar(qa, qb)/d qb (central differences), for a step
    (qa != qb, the energy-momentum form) and at one point (qa is qb: generalized-alpha's continuous
    force F(q) = Fbar(q, q), whose derivative is twice the qb-derivative)."""
    model, setup = free_beam(stiffening)
    f = model.forces[[type(g).__name__ for g in model.forces].index("BeamElasticity")]
    rng = np.random.default_rng(3)
    qa = setup.q0[f.dofs] + 1e-3 * rng.standard_normal(f.dofs.shape)
    qb = qa + 1e-3 * rng.standard_normal(f.dofs.shape)
    rows, cols = f.tangent_pattern()
    n = f.dofs.shape[1]

    def dense(values):
        T = np.zeros((n, n))
        np.add.at(T, (rows, cols), values[0])
        return T

    def derivative(force, q, h=1e-7):
        return np.stack([(force(q + h * e) - force(q - h * e))[0] / (2 * h) for e in np.eye(n)[:, None, :]], axis=1)

    step = derivative(lambda x: f.discrete_force(qa, x, 0.0, 1e-3), qb)
    point = derivative(lambda x: f.discrete_force(x, x, 0.0, 1e-3), qb)
    scale = np.abs(step).max()
    np.testing.assert_allclose(dense(f.tangent_values(qa, qb, 0.0, 1e-3)), step, atol=1e-7 * scale)
    np.testing.assert_allclose(2.0 * dense(f.tangent_values(qb, qb, 0.0, 1e-3)), point, atol=1e-7 * scale)


def test_a_step_without_motion_after_a_slip_sticks():
    """After a slip the elastic strain sits at F_max/E up to round-off; a step with q_b = q_a must
    then stick (no slip, no dissipation) with the force at the yield level, not divide 0 by 0."""
    from femdyn.forces.friction import Friction

    f = Friction(np.array([[0]]), ["x"], [100.0], [5.0])
    rng = np.random.default_rng(0)
    for _ in range(1000):
        q0, q1 = rng.normal(size=2)
        p = f.advance(np.array([[q0]]), np.array([[q1]]), f.initial_state(np.array([[q0]])))
        still = np.array([[q1]])
        force = f.discrete_force(still, still, 0.0, 0.01, p)
        assert np.isfinite(force).all() and abs(force[0, 0]) <= 5.0 * (1 + 1e-12)
        assert f.dissipation(still, still, p)[0] == 0.0


def test_smooth_ramp_is_the_integral_of_its_rate():
    """Eqs. 79-81: the rate ramps 0 -> omega0 -> 0 with the 9th-order step; the angle integrates it
    (checked by quadrature) and ends at 2 pi for t = 1, 2, 3 s and omega0 = pi."""
    s = SmoothRampAngle(1.0, 2.0, 3.0, np.pi)
    x = np.linspace(0.0, 1.0, 2001)
    assert np.trapezoid(smooth_step(x), x) == pytest.approx(smooth_step_integral(1.0), rel=1e-6)
    t = np.linspace(0.0, 3.5, 70001)
    rate = np.array([s.rate(ti)[0] for ti in t])
    angle = np.array([s.value(ti)[0] for ti in t])
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1]) * np.diff(t))])
    assert np.abs(angle - integral).max() < 1e-7
    assert angle[-1] == pytest.approx(2 * np.pi, rel=1e-12) and rate[-1] == 0.0
    assert s.rate(1.5)[0] == pytest.approx(np.pi)
