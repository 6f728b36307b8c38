"""A 3D rigid body given by its principal moments of inertia from Python (``ModelBuilder.add_body(...,
inertia=[J1, J2, J3])``, the case file's ``inertia``): spun about a skew axis in a turned pose, its
kinetic energy is 1/2 w.J w and its angular momentum J w with J = R diag(J1, J2, J3) R^T (J_a about
the director d_a), and a body without such moments is refused with the field named."""
import numpy as np
import pytest

import femdyn
from femdyn.numerics import kinematics as kin

J = np.array([0.02, 0.05, 0.06])  # kg m^2 about d_1, d_2, d_3: an asymmetric top


def _placed(rotation, w):
    b = femdyn.ModelBuilder(3)
    b.add_body("top", 3.0, inertia=J)
    model = b.build()
    q, v = femdyn.place(model, {"top": {"rotation": rotation, "angular_velocity": w}}, {})
    return model, q, v


def test_a_body_given_by_its_principal_moments_spins_with_them():
    R = kin.rotation_3d(np.array([0.3, -1.1, 0.7]), 1.2)  # a turned pose: the moments follow the directors
    w = np.array([1.5, -2.0, 4.0])  # rad/s, world
    model, q, v = _placed(R, w)
    world = R @ np.diag(J) @ R.T
    assert model.kinetic(v) == pytest.approx(0.5 * w @ world @ w, rel=1e-13)
    _, angular = model.momenta(q, v)
    np.testing.assert_allclose(angular, world @ w, rtol=0, atol=1e-13 * np.linalg.norm(world @ w))


@pytest.mark.parametrize("arguments, field", [
    (dict(euler=[0.1, 0.1, 0.1], inertia=J), "body 'top'"),  # both
    (dict(), "body 'top'"),  # neither
    (dict(inertia=[0.01, 0.01, 0.03]), "body 'top'.inertia"),  # J3 > J1 + J2: no body has that
    (dict(inertia=[0.01, -0.01, 0.01]), "body 'top'.inertia"),
])
def test_principal_moments_no_body_has_are_refused(arguments, field):
    b = femdyn.ModelBuilder(3)
    with pytest.raises(femdyn.ModelError, match=field.replace("(", r"\(")):
        b.add_body("top", 1.0, **arguments)


def test_principal_moments_are_refused_in_the_plane():
    with pytest.raises(femdyn.ModelError, match="only in 3D"):
        femdyn.ModelBuilder(2).add_body("disc", 1.0, inertia=J)
