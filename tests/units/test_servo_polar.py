"""The polar servo (``servo.ServoPolar``): Phi_C = sin(theta) x - cos(theta) y of a beam's tip point is
|x| sin(theta - atan2(y, x)), its Jacobian is the derivative of Phi_C and its time derivative that of
Phi_C at fixed q (central differences), and the relative target starts at the point's initial angle."""
import numpy as np
from shared import flexible_link

from femdyn.joints.servo import ServoPolar


def _servo(model):
    (family,) = [c for c in model.constraints if isinstance(c, ServoPolar)]
    return family


def test_polar_servo_value_jacobian_and_rate():
    model, setup = flexible_link("tip", 4)
    servo = _servo(setup.model)
    rng = np.random.default_rng(1)
    q = setup.q0 + 1e-3 * rng.standard_normal(setup.q0.size)
    qc, t = q[servo.dofs], 0.6
    x = np.einsum("kij,kj->ki", servo.point, qc[:, :-1])[0]
    theta = servo._theta(t)[0]
    phi = servo.phi(qc, t)[0, 0]
    assert abs(phi - np.hypot(*x) * np.sin(theta - np.arctan2(x[1], x[0]))) < 1e-14
    G, h = servo.jacobian(qc, t)[0, 0], 1e-6
    for j in range(qc.shape[1] - 1):
        e = np.zeros_like(qc)
        e[0, j] = h
        assert abs((servo.phi(qc + e, t) - servo.phi(qc - e, t))[0, 0] / (2 * h) - G[j]) < 1e-8
    rate = (servo.phi(qc, t + h) - servo.phi(qc, t - h))[0, 0] / (2 * h)
    assert abs(servo.time_derivative(qc, t)[0] - rate) < 1e-8
    assert abs(servo.phi(setup.q0[servo.dofs], 0.0)[0, 0]) < 1e-15  # relative: the start angle held at t = 0
