"""The servo targets and rows over a whole history at once (``Trajectory.value_history``, ``EulerAngles.history``,
``Servo.phi_history``, ``Model.residual_history``) against their definition, time by time: the same numbers
to round-off (the same floating-point operations, elementwise or one 3 x 3 product per time: bit for bit where NumPy's
array and scalar math functions -- pow, sin, cos -- round alike; where it uses SIMD libraries for arrays (AVX-512)
they may differ in the last bit, hence a few units in the last place of the values' scale)."""
import numpy as np

from femdyn.casefile.case import load_case
from femdyn.joints.servo import Servo
from femdyn.joints.trajectories import (Constant, EulerAngles, FigureEight, Harmonic, Polynomial, SmoothRampAngle,
                                       Spline, Table)

TIMES = np.concatenate([np.linspace(0.0, 3.0, 601), np.random.default_rng(3).uniform(-0.5, 5.0, 400)])


def _exact(a, b, scale=0.0):
    """a equals b to a few units in the last place of b's largest value, or of ``scale`` where larger: the size
    of the terms a row is the difference of (module docstring)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = max(np.abs(b).max(initial=0.0), scale, np.finfo(float).tiny)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= 8 * np.finfo(float).eps * scale))


def test_trajectories_at_all_times_are_their_values_time_by_time():
    for trajectory in (Harmonic([0.05, 0.0, 0.04], [0.0, 0.05, 0.0], 2 * np.pi, 0.5), Harmonic([1.0], [0.0], 3.0),
                       FigureEight(1 / 12, 1 / 16, SmoothRampAngle(1.0, 2.0, 3.0, np.pi)),
                       Table([0.0, 1.0, 2.0], [[0.0, 1.0], [1.0, 0.5], [0.0, 0.0]]), Constant([1.0, 2.0]),
                       Polynomial([[0.0, 1.0, 0.5]]), Spline([0.0, 1.0, 3.0], [0.0, 1.0, -1.0])):
        assert _exact(trajectory.value_history(TIMES), [trajectory.value(t) for t in TIMES])
        assert _exact(trajectory.rate_history(TIMES), [trajectory.rate(t) for t in TIMES])


def test_euler_angles_at_all_times_are_its_rotations_time_by_time():
    target = EulerAngles(Harmonic([0.0, 0.05, 0.15], [0.1, 0.02, 0.0], 2 * np.pi, 0.5))
    R, omega = target.history(TIMES)
    assert _exact(R, [target(t)[0] for t in TIMES]) and _exact(omega, [target(t)[1] for t in TIMES])


def test_servo_rows_and_residual_history_are_those_of_each_step(case_path):
    """The Stewart-Gough platform's point and orientation servos (the RPR's point and angle servos, the 3-PRR
    map's table) at perturbed states: ``phi_history`` is ``phi`` step by step, and the residual history max |phi|
    of each."""
    rng = np.random.default_rng(5)
    for name in ("stewart_gough.toml", "rpr_figure8.toml", "3prr_map.toml"):
        case = load_case(case_path(name))
        model, q0 = case.model, case.q0
        run = model.with_servo_references(q0)
        t = TIMES[:200]
        Q = q0 + 1e-2 * rng.standard_normal((len(t), model.n))
        servos = [c for c in run.constraints if isinstance(c, Servo)]
        assert servos
        for c in servos:
            assert _exact(c.phi_history(Q[:, c.dofs], t), [c.phi(q[c.dofs], tk) for q, tk in zip(Q, t)],
                          np.abs(Q[:, c.dofs]).max())  # phi = a . q - target
        rows = np.arange(model.m)
        assert _exact(run.residual_history(Q, t, rows), [np.abs(run.phi(q, tk)[rows]).max() for q, tk in zip(Q, t)],
                      np.abs(Q).max())


def test_rotations_about_the_axes_are_rotation_3d():
    """``EulerAngles``' rotations about the coordinate axes, one angle or many, are ``rotation_3d``'s (to round-off,
    module docstring)."""
    from femdyn.joints.trajectories import _basis_rotation, _basis_rotations
    from femdyn.numerics.kinematics import rotation_3d

    angles = np.concatenate([[0.0, -0.0, np.pi, -np.pi / 2], np.random.default_rng(4).normal(scale=3.0, size=500)])
    for axis in range(3):
        expected = np.array([rotation_3d(np.eye(3)[axis], a) for a in angles])
        assert _exact([_basis_rotation(axis, a) for a in angles], expected)
        assert _exact(_basis_rotations(axis, angles), expected)
