"""Prescribed motions for servo constraints: vector-valued functions of time with their rates.

A trajectory has ``value(t)`` and ``rate(t)``, each of shape (components,), and ``size``.

The figure-8 of 000 eq. 78 is ``(ax sin s(t), ay sin 2 s(t))`` added to the initial position, with the
angle s(t) of eqs. 79-81 (the paper calls it omega(t) in eq. 78, but it is the angle theta(t) of
eq. 79). Its rate ramps from 0 to omega0 on [0, t1] along the 9th-order smooth step
S(x) = 126 x^5 - 420 x^6 + 540 x^7 - 315 x^8 + 70 x^9 (S(0) = 0, S(1) = 1, four derivatives zero at
both ends), is omega0 on [t1, t2] and ramps back to 0 on [t2, t3]; s is its integral. Eq. 80 is
consistent with this reading: s1 = t1 omega0 I(t/t1) with I(x) = int_0^x S = 21 x^6 - 60 x^7 +
67.5 x^8 - 35 x^9 + 7 x^10 (I(1) = 1/2), s2 = s1(t1) + omega0 (t - t1), and
s3 = s2(t) - (t3 - t2) omega0 I((t - t2)/(t3 - t2)). After t3 the angle stays at s(t3)
(= 2 pi for t1, t2, t3 = 1, 2, 3 s and omega0 = pi: one full figure-8).
"""
from abc import ABC, abstractmethod

import numpy as np

from ..numerics.kinematics import rotation_3d


def _turn(rate):
    """The time of one turn at ``rate`` (rad/s): 2 pi/|rate|; None at rest."""
    return 2.0 * np.pi / abs(rate) if rate else None


def _unit(x):
    """x clipped to [0, 1]; one number as a Python float (NumPy's scalar arithmetic, a tenth of the time of a
    step's servo targets, gives the same numbers: the same IEEE operations and C's pow)."""
    if np.ndim(x):
        return np.clip(x, 0.0, 1.0)
    x = float(x)
    return 0.0 if x <= 0.0 else 1.0 if x >= 1.0 else x  # -0.0 to +0.0 (np.clip keeps -0.0), NaN kept


def smooth_step(x):
    """S(x) = 126 x^5 - 420 x^6 + 540 x^7 - 315 x^8 + 70 x^9 on [0, 1], 0 before, 1 after."""
    x = _unit(x)
    return x**5 * (126.0 + x * (-420.0 + x * (540.0 + x * (-315.0 + 70.0 * x))))


def smooth_step_integral(x):
    """int_0^x S = 21 x^6 - 60 x^7 + 67.5 x^8 - 35 x^9 + 7 x^10 (000 eq. 80), for x in [0, 1]."""
    x = _unit(x)
    return x**6 * (21.0 + x * (-60.0 + x * (67.5 + x * (-35.0 + 7.0 * x))))


class Trajectory(ABC):
    size = 1
    # the shortest period of the motion, in s, where it repeats with a known period (a turn of an angle at
    # its full rate counts as one); None: not periodic, or not known. A step longer than half of it cannot
    # represent the motion (``integrators.diagnostics.step_check``).
    period = None

    @abstractmethod
    def value(self, t):
        """(size,) position of the trajectory at time t."""

    @abstractmethod
    def rate(self, t):
        """(size,) its time derivative."""

    def value_history(self, t: np.ndarray) -> np.ndarray:
        """(F, size): ``value`` at each of the times t (F,) (a motion that has a vectorised form gives the same
        numbers at once)."""
        return np.array([self.value(tk) for tk in t], dtype=float).reshape(len(t), self.size)

    def rate_history(self, t: np.ndarray) -> np.ndarray:
        """(F, size): ``rate`` at each of the times t (F,)."""
        return np.array([self.rate(tk) for tk in t], dtype=float).reshape(len(t), self.size)


class SmoothRampAngle(Trajectory):
    """The angle s(t) of 000 eqs. 79-81 (see the module docstring). Without t2 and t3 (both infinite)
    the rate ramps up to omega0 over [0, t1] and is held from there on: s = omega0 (t - t1/2) for
    t >= t1 (I(1) = 1/2), a drive run up to a constant speed."""

    def __init__(self, t1, t2=np.inf, t3=np.inf, omega0=1.0):
        if np.isinf(t2) != np.isinf(t3):
            raise ValueError("needs both t2 and t3 (a ramp down), or neither (the rate held after t1)")
        if not (0.0 < t1 <= t2 < t3 or (0.0 < t1 < np.inf and np.isinf(t3))):
            raise ValueError("needs 0 < t1 <= t2 < t3")
        self.t1, self.t2, self.t3, self.omega0 = float(t1), float(t2), float(t3), float(omega0)
        self.held = np.isinf(self.t3)

    @property
    def period(self):
        """One turn at the full rate omega0: 2 pi / |omega0|."""
        return _turn(self.omega0)

    def value(self, t):
        t1, t2, t3, w = self.t1, self.t2, self.t3, self.omega0
        t = min(float(t), t3)
        s = t1 * w * smooth_step_integral(t / t1) + w * max(t - t1, 0.0)
        if self.held:
            return np.array([s])
        return np.array([s - (t3 - t2) * w * smooth_step_integral((t - t2) / (t3 - t2))])

    def rate(self, t):
        t1, t2, t3, w = self.t1, self.t2, self.t3, self.omega0
        if t >= t3:
            return np.zeros(1)
        down = 0.0 if self.held else smooth_step((t - t2) / (t3 - t2))
        return np.array([w * (smooth_step(t / t1) - down)])


class FigureEight(Trajectory):
    """(ax sin s, ay sin 2s) for an angle trajectory s(t) (000 eq. 78, relative to the start)."""

    size = 2

    def __init__(self, ax, ay, angle):
        self.ax, self.ay, self.angle = float(ax), float(ay), angle

    @property
    def period(self):
        """Half the angle's: the component sin 2s turns twice as fast as s."""
        return None if self.angle.period is None else 0.5 * self.angle.period

    def value(self, t):
        s = self.angle.value(t)[0]
        return np.array([self.ax * np.sin(s), self.ay * np.sin(2.0 * s)])

    def rate(self, t):
        s, ds = self.angle.value(t)[0], self.angle.rate(t)[0]
        return np.array([self.ax * np.cos(s) * ds, 2.0 * self.ay * np.cos(2.0 * s) * ds])


class Polynomial(Trajectory):
    """Component i is sum_k c[i][k] t^k."""

    def __init__(self, coefficients):
        self.c = np.atleast_2d(np.asarray(coefficients, dtype=float))
        self.size = self.c.shape[0]

    def value(self, t):
        return np.array([np.polynomial.polynomial.polyval(t, c) for c in self.c])

    def rate(self, t):
        return np.array([np.polynomial.polynomial.polyval(t, np.polynomial.polynomial.polyder(c)) for c in self.c])


class Spline(Trajectory):
    """Clamped cubic spline through (times, values) with zero rate at both ends; constant outside."""

    def __init__(self, times, values):
        from scipy.interpolate import CubicSpline

        values = np.asarray(values, dtype=float)
        values = values[:, None] if values.ndim == 1 else values
        self.t0, self.t1 = float(times[0]), float(times[-1])
        self.spline = CubicSpline(times, values, bc_type="clamped", axis=0)
        self.size = values.shape[1]

    def value(self, t):
        return self.spline(np.clip(t, self.t0, self.t1))

    def rate(self, t):
        return self.spline(t, 1) if self.t0 <= t <= self.t1 else np.zeros(self.size)


class Table(Trajectory):
    """Piecewise-linear interpolation of (times, values); constant outside."""

    def __init__(self, times, values):
        values = np.asarray(values, dtype=float)
        self.values = values[:, None] if values.ndim == 1 else values
        self.times = np.asarray(times, dtype=float)
        if self.times.size < 2 or np.any(np.diff(self.times) <= 0) or len(self.values) != self.times.size:
            raise ValueError("a table needs strictly increasing times and one value per time")
        self.size = self.values.shape[1]

    def value(self, t):
        return np.array([np.interp(t, self.times, v) for v in self.values.T])

    def rate(self, t):
        k = np.searchsorted(self.times, t, side="right") - 1
        if k < 0 or k >= self.times.size - 1:
            return np.zeros(self.size)
        return (self.values[k + 1] - self.values[k]) / (self.times[k + 1] - self.times[k])


class Constant(Trajectory):
    def __init__(self, values):
        self.values = np.atleast_1d(np.asarray(values, dtype=float))
        self.size = self.values.size

    def value(self, t):
        return self.values

    def rate(self, t):
        return np.zeros(self.size)


class Function(Trajectory):
    """Any motion given as Python callables value(t) and rate(t) returning (size,) arrays."""

    def __init__(self, value, rate, size):
        self._value, self._rate, self.size = value, rate, size

    def value(self, t):
        return np.asarray(self._value(t), dtype=float)

    def rate(self, t):
        return np.asarray(self._rate(t), dtype=float)


def smooth_start(t, t_ramp):
    """Path parameter s(t) whose rate rises from 0 to 1 along the smooth step S(t/t_ramp) over
    [0, t_ramp] (000 eq. 80, s_1 with omega_0 = 1) and then stays 1; t_ramp = 0: s = t, no ramp.
    Returns (s, s_dot, s_ddot), each shaped like t."""
    if t_ramp != 0 and not np.ndim(t):  # one time: Python floats (``_unit``)
        t = float(t)
        x = _unit(t / t_ramp)
        return t_ramp * smooth_step_integral(x) + max(t - t_ramp, 0.0), smooth_step(x), \
            630.0 * x**4 * (1.0 - x) ** 4 / t_ramp
    t = np.asarray(t, dtype=float)
    if t_ramp == 0:
        return t.copy(), np.ones_like(t), np.zeros_like(t)
    x = np.clip(t / t_ramp, 0.0, 1.0)
    s = t_ramp * smooth_step_integral(x) + np.maximum(t - t_ramp, 0.0)
    return s, smooth_step(x), 630.0 * x**4 * (1.0 - x) ** 4 / t_ramp


class Harmonic(Trajectory):
    """A motion from rest along the smooth phase psi(t) = angular_speed s(t) of ``smooth_start`` (its
    rate rises from 0 to angular_speed over t_ramp; t_ramp = 0: the plain psi = angular_speed t, which
    starts at the full rate): ``sine`` sin psi + ``versine`` (1 - cos psi),
    each a vector of the trajectory's components, zero at t = 0 with zero rate. It writes the platform
    paths of ``femdyn.reference``: ``Circle``, ``Swing`` and the position and Euler angles of
    ``stewart.platform_trajectory`` (sine = (r, 0, heave), versine = (0, r, 0); angles roll, pitch, yaw:
    sine = (0, 0, yaw), versine = (tilt, 0, 0))."""

    def __init__(self, sine, versine, angular_speed, t_ramp=0.0):
        if not t_ramp >= 0:
            raise ValueError(f"t_ramp must be >= 0, got {t_ramp}")
        self.sine, self.versine = np.atleast_1d(np.asarray(sine, dtype=float)), np.atleast_1d(np.asarray(versine, dtype=float))
        if self.sine.shape != self.versine.shape or self.sine.ndim != 1:
            raise ValueError(f"sine and versine need the same number of components, got {self.sine.size} and "
                             f"{self.versine.size}")
        self.size = self.sine.size
        self.angular_speed, self.t_ramp = float(angular_speed), float(t_ramp)

    @property
    def period(self):
        """2 pi / |angular_speed|: the period once the phase runs at its full rate."""
        return _turn(self.angular_speed)

    def _phase(self, t):
        """psi and its rate at the time t, or at the times t (F,) as columns (F, 1) (the same operations)."""
        s, s_dot, _ = smooth_start(t if np.ndim(t) else float(t), self.t_ramp)
        if np.ndim(t):
            s, s_dot = s[:, None], s_dot[:, None]
        return self.angular_speed * s, self.angular_speed * s_dot

    def value(self, t):
        psi, _ = self._phase(t)
        return self.sine * np.sin(psi) + self.versine * (1.0 - np.cos(psi))

    def rate(self, t):
        psi, rate = self._phase(t)
        return rate * (self.sine * np.cos(psi) + self.versine * np.sin(psi))

    value_history, rate_history = value, rate  # at the times t (F,): (F, size)


class Circle(Harmonic):
    """A planar point on a circle from rest: radius (sin psi, 1 - cos psi), relative to the start (the
    centre of the circle is at (0, radius) from the start point); the platform path of
    ``femdyn.reference.rrr.circle_trajectory``."""

    def __init__(self, radius, angular_speed, t_ramp=0.0):
        super().__init__([radius, 0.0], [0.0, radius], angular_speed, t_ramp)


class Swing(Harmonic):
    """A scalar swinging in step with ``Circle``: amplitude sin psi(t), the same psi(t) (e.g. the
    platform angle of ``femdyn.reference.rrr.circle_trajectory``, amplitude = its ``rotation``)."""

    def __init__(self, amplitude, angular_speed, t_ramp=0.0):
        super().__init__([amplitude], [0.0], angular_speed, t_ramp)


# [e_a]_x of the coordinate axes as ``rotation_3d`` forms them (e_a / |e_a| = e_a exactly), signed zeros too
_SKEW = [np.array([[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]]) for n in np.eye(3)]


def _basis_rotation(axis, angle):
    """Rotation by ``angle`` about the coordinate axis ``axis`` (0, 1, 2): ``rotation_3d``'s
    I + sin(a) N + ((1 - cos(a)) N) N with N = [e_axis]_x, the same operations (N formed once)."""
    N = _SKEW[axis]
    return np.eye(3) + np.sin(angle) * N + (1.0 - np.cos(angle)) * N @ N


def _basis_rotations(axis, angles):
    """``_basis_rotation`` for the angles (F,) at once: (F, 3, 3), the same operations."""
    N = _SKEW[axis]
    sin, versine = np.sin(angles)[:, None, None], (1.0 - np.cos(angles))[:, None, None]
    return np.eye(3) + sin * N + (versine * N) @ N


class EulerAngles:
    """A rotation target R(t) (``servo.ServoOrientation``) from a 3-component trajectory of Tait-Bryan
    angles (roll phi, pitch theta, yaw psi) about the fixed world axes x, y, z in that order:
    R = Rz(psi) Ry(theta) Rx(phi) (roll-pitch-yaw, e.g. J. Craig, Introduction to Robotics, 3rd ed.,
    2005, section 2.8, X-Y-Z fixed angles). Its angular velocity in the world frame is
    omega = psi' e_z + theta' Rz e_y + phi' Rz Ry e_x. Called with t: (R, omega)."""

    def __init__(self, angles):
        if angles.size != 3:
            raise ValueError(f"Euler angles need a trajectory of 3 components (roll, pitch, yaw), got {angles.size}")
        self.angles = angles

    @property
    def period(self):
        return self.angles.period

    def __call__(self, t):
        roll, pitch, yaw = self.angles.value(t)
        rates = self.angles.rate(t)
        Rz, Ry, Rx = _basis_rotation(2, yaw), _basis_rotation(1, pitch), _basis_rotation(0, roll)
        omega = rates[2] * np.eye(3)[2] + rates[1] * Rz[:, 1] + rates[0] * (Rz @ Ry)[:, 0]
        return Rz @ Ry @ Rx, omega

    def history(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(R (F, 3, 3), omega (F, 3)) at the times t (F,): the numbers of ``__call__`` time by time, at once."""
        angles, rates = self.angles.value_history(t), self.angles.rate_history(t)
        Rz, Ry, Rx = (_basis_rotations(axis, angles[:, axis]) for axis in (2, 1, 0))
        omega = rates[:, 2:] * np.eye(3)[2] + rates[:, 1:2] * Rz[:, :, 1] + rates[:, :1] * (Rz @ Ry)[:, :, 0]
        return Rz @ Ry @ Rx, omega


class AxisAngle:
    """A rotation target R(t) = rotation about the fixed unit ``axis`` by the angle of a 1-component
    trajectory (Rodrigues), omega = angle' axis. Called with t: (R, omega)."""

    def __init__(self, axis, angle):
        axis = np.asarray(axis, dtype=float)
        if axis.shape != (3,) or not np.linalg.norm(axis) > 0:
            raise ValueError(f"the rotation axis needs 3 components, not all zero, got {axis.tolist()}")
        if angle.size != 1:
            raise ValueError(f"the angle about an axis is a trajectory of 1 component, got {angle.size}")
        self.axis, self.angle = axis / np.linalg.norm(axis), angle

    @property
    def period(self):
        return self.angle.period

    def __call__(self, t):
        return rotation_3d(self.axis, self.angle.value(t)[0]), self.angle.rate(t)[0] * self.axis


class SpinUp(Trajectory):
    """The spin-up manoeuvre of a rotating beam (Kane, Ryan & Banerjee 1987; the classic test of
    geometric stiffening): the angle rises with rate omega_s (t/T - sin(2 pi t/T)/(2 pi)) up to T,
    then turns at the constant rate omega_s:
    theta = omega_s/T (t^2/2 + (T/2pi)^2 (cos(2 pi t/T) - 1)) for t < T, omega_s (t - T/2) after."""

    size = 1

    def __init__(self, angular_speed, t_ramp):
        if not t_ramp > 0:
            raise ValueError(f"t_ramp must be > 0, got {t_ramp}")
        self.omega, self.t_ramp = float(angular_speed), float(t_ramp)

    @property
    def period(self):
        """One turn at the final rate: 2 pi / |omega_s|."""
        return _turn(self.omega)

    def value(self, t):
        T, w = self.t_ramp, self.omega
        if t < T:
            return np.array([w / T * (0.5 * t * t + (T / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / T) - 1.0))])
        return np.array([w * (t - 0.5 * T)])

    def rate(self, t):
        T, w = self.t_ramp, self.omega
        if t < T:
            return np.array([w * (t / T - np.sin(2 * np.pi * t / T) / (2 * np.pi))])
        return np.array([w])
