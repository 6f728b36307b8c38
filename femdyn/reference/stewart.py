"""Stewart-Gough platform: inverse and direct dynamics by Gauss' principle in Appell's form (004).

Architecture (004 section II, Fig. 1): a fixed base with joint points A_i, a platform with joint
points B_i, n legs (six for the Stewart-Gough platform).  Leg i is a cylinder, attached to the base
by a universal joint at A_i, and a piston sliding in it (prismatic joint, actuated by the force f_i
along the leg) with a spherical joint at B_i.  The platform is one rigid body.

Conventions
-----------
* A platform pose is ``(position, rotation)``: the platform mass centre G_0 (the centre of its joint
  circle) and the rotation matrix whose columns are the platform's body axes.
* ``twist = (omega_0, v_0)`` and ``twist_dot = (omega_0_dot, a_0)``, shape (6,): angular velocity and
  mass-centre velocity in the world frame, angular part first as in 002 eq. 8 (004 writes the
  linear part first).  Leg forces ``f`` (n,) push the platform away from the base when positive.
* ``b_i = R B_i`` (the arm from G_0 to B_i), ``u_i`` the unit leg vector from A_i to B_i, ``L_i`` the
  leg length, ``omega_i`` the legs' angular velocity.

Leg model.  Cylinder and piston are uniform slender bars on the leg axis: centroidal inertia
m l^2 / 12 about every transverse axis and none about the leg axis.  The legs then carry no energy in
a spin about their own axis and omega_i . u_i = 0 is exact -- the kinematic assumption of 004
section IV-C.  (A DAE model with a real universal joint agrees with this one when its legs have no
axial inertia.)

Gauss/Appell program (004 sections III-V).  Unknowns: the platform accelerations y = (omega_0_dot,
a_0) and the leg accelerations (L_i_ddot, omega_i_dot).  Minimise the Appell function

    R = 1/2 y^T M_0 y + omega_0_dot . (omega_0 x I_0 omega_0) - M_0 g . a_0
        + sum_i [1/2 m_p L_i_ddot^2 + 1/2 omega_i_dot^T K_i omega_i_dot + alpha_i L_i_ddot
                 + beta_i . omega_i_dot - f_i L_i_ddot]                          (004 eqs. 15, 17)

subject to the second-order closure constraints (004 eqs. 12, 14, 18, 19)

    L_i_ddot = u_i . a_Bi + L_i |omega_i|^2,    L_i omega_i_dot + 2 L_i_dot omega_i = u_i x a_Bi,
    a_Bi = a_0 + omega_0_dot x b_i + omega_0 x (omega_0 x b_i).

Our derivation of the leg terms (004 eq. 7 leaves them implicit), with the cylinder centre at c_c
from A_i, the piston centre at e_i = L_i - c_p from A_i (c_p from B_i) and h_i = m_c c_c + m_p e_i:
K_i = k_i (1 - u_i u_i^T), k_i = m_c c_c^2 + m_p e_i^2 + J_c + J_p; alpha_i = -m_p e_i |omega_i|^2 -
m_p g . u_i; beta_i = 2 m_p e_i L_i_dot omega_i + h_i g x u_i.  Three corrections to the text of 004:
the centripetal term of eq. 12 enters with a plus sign (dot eq. 10 with u_i), the platform's
acceleration energy carries the gyroscopic term omega_0_dot . (omega_0 x I_0 omega_0) (missing in
eq. 4), and gravity, which 004 leaves out, enters the Appell function as -m g . a for every body.

The KKT conditions are 004 eqs. 22-27.  Per leg, eqs. 24-27 give the multipliers (lambda_i axial,
mu_i transverse) in closed form; the force of leg i on the platform is lambda_i u_i + mu_i x u_i =
f_i u_i - N_i a_Bi + F_i^0 with the leg's effective mass at B_i, N_i = m_p u_i u_i^T + (k_i / L_i^2)
(1 - u_i u_i^T).  What remains are the six platform equations 22-23, the one linear solve:

* inverse dynamics (004 V-A): A f = w, with A = [b_i x u_i; u_i] (6 x n) the leg lines;
* direct dynamics (004 V-B): (M_0 + sum_i G_i^T N_i G_i) y = w', G_i = [-[b_i]x, 1].
"""
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..numerics.kinematics import rotation_3d
from ..joints.trajectories import smooth_start
from . import SingularPoseError, check_condition, read_only

__all__ = [
    "LegGeometry", "SingularPoseError", "StewartParameters", "direct_dynamics", "energy", "forward_kinematics",
    "inverse_dynamics", "inverse_kinematics", "jacobian", "leg_accelerations", "leg_velocities",
    "platform_trajectory", "stewart_geometry",
]


_SPREAD = np.radians(20.0)


def stewart_geometry(n_legs=6, base_radius=0.5, platform_radius=0.3, base_spread=_SPREAD, platform_spread=_SPREAD):
    """Joint points (base (n, 3), platform (n, 3) in the platform frame) of the semi-regular layout.

    The n/2 pairs of base points are centred at the angles 2 pi j / (n/2) on a circle of radius
    ``base_radius``, the two points of a pair ``base_spread`` apart; the platform pairs are centred
    half-way between, at 2 pi j / (n/2) + pi / (n/2), ``platform_spread`` apart.  Leg 2j joins the
    base point at centre_j - base_spread/2 to the nearest platform point of the preceding pair, leg
    2j+1 the one at centre_j + base_spread/2 to the nearest of the following pair.  For n = 6 this is
    the standard 6-6 semi-regular hexagon: base points at -10, 10, 110, 130, 230, 250 degrees,
    platform points at -50, 50, 70, 170, 190, 290 degrees; it is symmetric under rotations by 120
    degrees and the mirror y -> -y.
    """
    if n_legs < 2 or n_legs % 2:
        raise ValueError(f"the semi-regular layout needs an even number of legs, got {n_legs}")
    m = n_legs // 2
    centre = 2.0 * np.pi * np.arange(m) / m
    base = np.column_stack([centre - base_spread / 2, centre + base_spread / 2]).ravel()
    platform = np.column_stack([centre - np.pi / m + platform_spread / 2, centre + np.pi / m - platform_spread / 2]).ravel()

    def ring(radius, angles):
        return np.column_stack([radius * np.cos(angles), radius * np.sin(angles), np.zeros_like(angles)])

    return ring(base_radius, base), ring(platform_radius, platform)


@dataclass(frozen=True, eq=False)
class StewartParameters:
    """Geometry, inertia and numerical settings of the Stewart-Gough platform (SI units; ours).

    Geometry: :func:`stewart_geometry` defaults (base radius 0.5 m, platform radius 0.3 m, both
    spreads 20 degrees); the home pose is the platform centred at height ``home_height`` = 0.8 m,
    unrotated, where every leg is 0.866 m long.  Platform: 10 kg uniform disc of radius 0.3 m,
    principal inertia (m r^2/4, m r^2/4, m r^2/2) = (0.225, 0.225, 0.45) kg m^2.  Cylinder: 2 kg,
    0.5 m slender bar from the universal joint (centre 0.25 m from A_i); piston: 1 kg, 0.5 m slender
    bar ending at the spherical joint (centre 0.25 m from B_i); no axial inertia (module docstring).
    ``cond_max`` is the largest condition number of the 6 x n leg-line matrix (inverse dynamics) or
    the 6 x 6 reduced mass matrix (direct dynamics) accepted before :class:`SingularPoseError`.
    """
    base_points: np.ndarray = field(default_factory=lambda: stewart_geometry()[0])
    platform_points: np.ndarray = field(default_factory=lambda: stewart_geometry()[1])
    home_height: float = 0.8
    platform_mass: float = 10.0
    platform_inertia: tuple = (0.225, 0.225, 0.45)
    cylinder_mass: float = 2.0
    cylinder_length: float = 0.5
    piston_mass: float = 1.0
    piston_length: float = 0.5
    gravity: tuple = (0.0, 0.0, -9.81)
    cond_max: float = 1e8

    def __post_init__(self):
        base, platform = read_only(self.base_points), read_only(self.platform_points)
        if base.ndim != 2 or base.shape[1] != 3 or base.shape != platform.shape:
            raise ValueError(f"base_points and platform_points must both be (n, 3), got {base.shape} and {platform.shape}")
        object.__setattr__(self, "base_points", base)
        object.__setattr__(self, "platform_points", platform)
        for name in ("platform_mass", "cylinder_length", "piston_length", "cond_max"):
            if not getattr(self, name) > 0:
                raise ValueError(f"StewartParameters.{name} must be positive, got {getattr(self, name)}")
        for name in ("cylinder_mass", "piston_mass"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"StewartParameters.{name} must not be negative, got {getattr(self, name)}")
        if len(self.platform_inertia) != 3 or not all(j > 0 for j in self.platform_inertia):
            raise ValueError(f"StewartParameters.platform_inertia must be three positive moments, got {self.platform_inertia}")

    @property
    def n_legs(self):
        """Number of legs n."""
        return self.base_points.shape[0]

    @property
    def cylinder_inertia(self):
        """Transverse centroidal inertia of the cylinder, slender bar: m l^2 / 12."""
        return self.cylinder_mass * self.cylinder_length**2 / 12.0

    @property
    def piston_inertia(self):
        """Transverse centroidal inertia of the piston, slender bar: m l^2 / 12."""
        return self.piston_mass * self.piston_length**2 / 12.0

    @property
    def home_position(self):
        """Platform mass centre at the home pose: centred above the base at home_height."""
        return np.array([0.0, 0.0, self.home_height])


class LegGeometry(NamedTuple):
    """Inverse kinematics of the legs: lengths L (n,), unit vectors u (n, 3) from A_i to B_i, arms
    b (n, 3) from the platform mass centre to B_i, and the world points A_i and B_i (n, 3)."""
    lengths: np.ndarray
    directions: np.ndarray
    arms: np.ndarray
    base: np.ndarray
    tips: np.ndarray


def _describe(position, rotation):
    return f"position {np.round(position, 6).tolist()}, rotation {np.round(rotation, 6).tolist()}"


def _skew(v):
    """Cross-product matrices [v]x of shape (..., 3, 3)."""
    z = np.zeros(v.shape[:-1])
    return np.stack([np.stack([z, -v[..., 2], v[..., 1]], -1), np.stack([v[..., 2], z, -v[..., 0]], -1),
                     np.stack([-v[..., 1], v[..., 0], z], -1)], -2)


def inverse_kinematics(params, position, rotation):
    """Leg lengths and orientations for a platform pose (004 eq. 8): B_i = G_0 + R B_i^0 = A_i + L_i u_i."""
    arms = params.platform_points @ np.asarray(rotation, dtype=float).T
    tips = np.asarray(position, dtype=float) + arms
    legs = tips - params.base_points
    lengths = np.linalg.norm(legs, axis=1)
    if np.any(lengths <= 1e-12 * np.max(np.abs(params.base_points))):
        raise ValueError(f"Stewart pose {_describe(position, rotation)}: a leg has zero length")
    return LegGeometry(lengths, legs / lengths[:, None], arms, params.base_points, tips)


def _lines(legs):
    """Leg-line (Pluecker) matrix A = [b_i x u_i; u_i], shape (6, n): L_dot = A^T twist (004 eq. 11)
    and the wrench of the leg forces on the platform is A f."""
    return np.vstack([np.cross(legs.arms, legs.directions).T, legs.directions.T])


def jacobian(params, position, rotation):
    """The leg-line matrix A (6, n) with L_dot = A^T twist and platform wrench A f (004 eqs. 11, 22-23)."""
    return _lines(inverse_kinematics(params, position, rotation))


def forward_kinematics(params, lengths, guess=None, max_iter=50):
    """Platform pose (position, rotation) with the given leg lengths, Newton from ``guess`` (a pose,
    default the home pose): A^T (delta_theta, delta_p) = L* - L(pose), rotation updated by
    R <- exp(delta_theta) R.  Least squares (Gauss-Newton) for other than six legs."""
    lengths = np.asarray(lengths, dtype=float)
    position, rotation = (params.home_position, np.eye(3)) if guess is None else guess
    position, rotation = np.array(position, dtype=float), np.array(rotation, dtype=float)
    for _ in range(max_iter):
        legs = inverse_kinematics(params, position, rotation)
        step = np.linalg.lstsq(_lines(legs).T, lengths - legs.lengths, rcond=None)[0]
        angle = np.linalg.norm(step[:3])
        if angle > 0.0:
            rotation = rotation_3d(step[:3], angle) @ rotation
        position = position + step[3:]
        if max(angle, np.linalg.norm(step[3:]) / np.max(legs.lengths)) < 1e-14:
            return position, rotation
    raise ValueError(f"Stewart forward kinematics did not converge for lengths {lengths}")


def _platform_point_motion(legs, twist):
    """Velocity and velocity-product acceleration of the points B_i: v_B = v_0 + omega_0 x b,
    kappa = omega_0 x (omega_0 x b) (004 eqs. 9-10)."""
    omega0 = twist[:3]
    v_B = twist[3:] + np.cross(omega0, legs.arms)
    return v_B, np.cross(omega0, np.cross(omega0, legs.arms))


def _leg_rates(legs, v_B):
    """L_dot = u . v_B (004 eq. 11) and omega_i = u x v_B / L (004 eq. 13)."""
    return np.sum(legs.directions * v_B, axis=1), np.cross(legs.directions, v_B) / legs.lengths[:, None]


def leg_velocities(params, position, rotation, twist):
    """Leg extension rates L_dot (n,) and leg angular velocities omega_i (n, 3) (004 eqs. 11, 13)."""
    legs = inverse_kinematics(params, position, rotation)
    return _leg_rates(legs, _platform_point_motion(legs, np.asarray(twist, dtype=float))[0])


def leg_accelerations(params, position, rotation, twist, twist_dot):
    """Leg accelerations L_ddot (n,) and angular accelerations omega_i_dot (n, 3):

    L_ddot = u . a_B + L |omega_i|^2 (004 eq. 12, sign of the last term corrected) and
    L omega_i_dot = u x a_B - 2 L_dot omega_i (004 eq. 14), a_B = a_0 + omega_0_dot x b + kappa.
    """
    legs = inverse_kinematics(params, position, rotation)
    twist, twist_dot = np.asarray(twist, dtype=float), np.asarray(twist_dot, dtype=float)
    v_B, kappa = _platform_point_motion(legs, twist)
    L_dot, omega = _leg_rates(legs, v_B)
    a_B = twist_dot[3:] + np.cross(twist_dot[:3], legs.arms) + kappa
    u, L = legs.directions, legs.lengths
    L_ddot = np.sum(u * a_B, axis=1) + L * np.sum(omega**2, axis=1)
    return L_ddot, (np.cross(u, a_B) - 2.0 * L_dot[:, None] * omega) / L[:, None]


class _Reduced(NamedTuple):
    """The platform equations after eliminating the leg unknowns and multipliers (004 eqs. 24-27):
    platform force of leg i = f_i u_i - N_i a_Bi + F0_i."""
    legs: LegGeometry
    N: np.ndarray        # (n, 3, 3) effective leg masses at B_i
    F0: np.ndarray       # (n, 3)
    kappa: np.ndarray    # (n, 3) velocity part of a_Bi
    inertia: np.ndarray  # (3, 3) platform inertia tensor in the world frame
    gyro: np.ndarray     # (3,) omega_0 x I_0 omega_0


def _reduce(params, position, rotation, twist):
    """Closed-form elimination of the leg accelerations and multipliers, per leg (004 eqs. 24-27).

    With omega_i_dot = u x a_B / L + c_w, c_w = -2 L_dot omega_i / L, and L_ddot = u . a_B + c_l,
    c_l = L |omega_i|^2: eq. 24 gives lambda_i = f_i - m_p L_ddot - alpha_i, eq. 25 gives
    mu_i = -(K_i omega_i_dot + beta_i) / L, and the platform force lambda_i u + mu_i x u is
    f_i u - N_i a_B + F0_i with N_i = m_p u u^T + (k_i / L^2)(1 - u u^T) and
    F0_i = -u (m_p c_l + alpha_i) + u x (k_i c_w + beta_i) / L.
    """
    legs = inverse_kinematics(params, position, rotation)
    v_B, kappa = _platform_point_motion(legs, twist)
    L_dot, omega = _leg_rates(legs, v_B)
    u, L = legs.directions, legs.lengths
    g = np.asarray(params.gravity, dtype=float)
    m_c, m_p, c_c, c_p = params.cylinder_mass, params.piston_mass, params.cylinder_length / 2.0, params.piston_length / 2.0
    e = L - c_p
    k = m_c * c_c**2 + m_p * e**2 + params.cylinder_inertia + params.piston_inertia
    h = m_c * c_c + m_p * e
    omega_sq = np.sum(omega**2, axis=1)
    alpha = -m_p * e * omega_sq - m_p * (u @ g)
    beta = 2.0 * m_p * (e * L_dot)[:, None] * omega + h[:, None] * np.cross(g, u)
    c_w = -2.0 * (L_dot / L)[:, None] * omega
    uu = np.einsum("na,nb->nab", u, u)
    N = m_p * uu + (k / L**2)[:, None, None] * (np.eye(3) - uu)
    F0 = -u * (m_p * L * omega_sq + alpha)[:, None] + np.cross(u, k[:, None] * c_w + beta) / L[:, None]
    R = np.asarray(rotation, dtype=float)
    inertia = R @ np.diag(params.platform_inertia) @ R.T
    return _Reduced(legs, N, F0, kappa, inertia, np.cross(twist[:3], inertia @ twist[:3]))


def _legs_warning(n):
    if n != 6:
        kind = "least-squares" if n < 6 else "minimum-norm"
        warnings.warn(f"{n} legs instead of 6: the 6 x {n} platform system is solved in the {kind} sense (004 V-A)",
                      stacklevel=3)


def inverse_dynamics(params, position, rotation, twist, twist_dot):
    """Leg forces f (n,) for a platform pose, twist and twist rate (004 V-A, one 6 x n solve).

    Steps 1-3: leg kinematics (004 eqs. 11-14) and the per-leg elimination of :func:`_reduce`;
    step 4: the platform equations 22-23, A f = [I_0 omega_0_dot + omega_0 x I_0 omega_0;
    M_0 (a_0 - g)] - sum_i [b_i x F_i; F_i], F_i = -N_i a_Bi + F0_i (the leg forces without f).
    Raises :class:`SingularPoseError` if cond(A) exceeds params.cond_max.  Other than six legs:
    least squares (fewer) or minimum norm (more), with a warning.
    """
    twist, twist_dot = np.asarray(twist, dtype=float), np.asarray(twist_dot, dtype=float)
    red = _reduce(params, position, rotation, twist)
    legs = red.legs
    a_B = twist_dot[3:] + np.cross(twist_dot[:3], legs.arms) + red.kappa
    F = red.F0 - np.einsum("nab,nb->na", red.N, a_B)
    g = np.asarray(params.gravity, dtype=float)
    w = np.concatenate([red.inertia @ twist_dot[:3] + red.gyro - np.cross(legs.arms, F).sum(axis=0),
                        params.platform_mass * (twist_dot[3:] - g) - F.sum(axis=0)])
    A = _lines(legs)
    check_condition([A], ["A = [b x u; u] (004 eqs. 22-23, leg lines)"], lambda: _describe(position, rotation),
                    params.cond_max)
    _legs_warning(params.n_legs)
    if params.n_legs == 6:
        return np.linalg.solve(A, w)
    return np.linalg.lstsq(A, w, rcond=None)[0]


def direct_dynamics(params, position, rotation, twist, forces):
    """Platform twist rate (omega_0_dot, a_0) (6,) under the leg forces f (n,) (004 V-B, one 6 x 6 solve).

    Substituting the per-leg elimination of :func:`_reduce` with a_Bi = G_i y + kappa_i,
    G_i = [-[b_i]x, 1], into the platform equations 22-23:
    (diag(I_0, M_0 1) + sum G_i^T N_i G_i) y = A f + sum G_i^T (F0_i - N_i kappa_i)
    - [omega_0 x I_0 omega_0; -M_0 g].  Valid for any number of legs.  Raises
    :class:`SingularPoseError` if the 6 x 6 matrix has a condition number above params.cond_max.
    """
    twist, forces = np.asarray(twist, dtype=float), np.asarray(forces, dtype=float)
    red = _reduce(params, position, rotation, twist)
    legs = red.legs
    n = legs.lengths.shape[0]
    G = np.concatenate([-_skew(legs.arms), np.broadcast_to(np.eye(3), (n, 3, 3))], axis=2)
    M = np.zeros((6, 6))
    M[:3, :3] = red.inertia
    M[3:, 3:] = params.platform_mass * np.eye(3)
    M += np.einsum("nai,nab,nbj->ij", G, red.N, G)
    free = red.F0 - np.einsum("nab,nb->na", red.N, red.kappa)
    rhs = _lines(legs) @ forces + np.einsum("nai,na->i", G, free)
    rhs[:3] -= red.gyro
    rhs[3:] += params.platform_mass * np.asarray(params.gravity, dtype=float)
    check_condition([M], ["M_0 + sum G^T N G (004 V-B, reduced mass matrix)"], lambda: _describe(position, rotation),
                    params.cond_max)
    return np.linalg.solve(M, rhs)


def energy(params, position, rotation, twist):
    """Kinetic and potential energy (T, V).  Cylinder centre velocity c_c omega_i x u_i, piston
    centre velocity L_dot u_i + e_i omega_i x u_i, leg rotation (J_c + J_p) |omega_i|^2 / 2,
    platform (M_0 |v_0|^2 + omega_0^T I_0 omega_0) / 2; V = -g . (sum of m x over all bodies)."""
    twist = np.asarray(twist, dtype=float)
    legs = inverse_kinematics(params, position, rotation)
    L_dot, omega = _leg_rates(legs, _platform_point_motion(legs, twist)[0])
    u, c_c, e = legs.directions, params.cylinder_length / 2.0, legs.lengths - params.piston_length / 2.0
    swing = np.cross(omega, u)
    spin = np.asarray(rotation, dtype=float).T @ twist[:3]   # platform angular velocity in its body frame
    kinetic = 0.5 * (params.platform_mass * twist[3:] @ twist[3:] + spin @ (np.asarray(params.platform_inertia) * spin)
                     + params.cylinder_mass * c_c**2 * np.sum(swing**2)
                     + params.piston_mass * np.sum((L_dot[:, None] * u + e[:, None] * swing) ** 2)
                     + (params.cylinder_inertia + params.piston_inertia) * np.sum(omega**2))
    heights = (params.platform_mass * np.asarray(position, dtype=float)
               + params.cylinder_mass * np.sum(legs.base + c_c * u, axis=0)
               + params.piston_mass * np.sum(legs.base + e[:, None] * u, axis=0))
    return kinetic, -np.asarray(params.gravity, dtype=float) @ heights


def _rz(angle):
    return rotation_3d([0.0, 0.0, 1.0], angle)


def platform_trajectory(params, t, radius=0.05, heave=0.04, yaw=0.15, tilt=0.1, angular_speed=2.0 * np.pi, t_ramp=0.5):
    """Smooth platform motion from rest at the home pose, for a scalar time t.

    With psi = angular_speed s(t) (:func:`femdyn.joints.trajectories.smooth_start`): position
    (radius sin psi, radius (1 - cos psi), home_height + heave sin psi), rotation
    R = Rz(yaw sin psi) Rx(tilt (1 - cos psi)), so omega = alpha_dot e_z + gamma_dot Rz e_x and
    omega_dot = alpha_ddot e_z + gamma_ddot Rz e_x + gamma_dot alpha_dot e_z x Rz e_x.
    Returns (position, rotation, twist, twist_dot).
    """
    s, s_dot, s_ddot = smooth_start(t, t_ramp)
    psi, dpsi, ddpsi = angular_speed * s, angular_speed * s_dot, angular_speed * s_ddot
    sn, cs = np.sin(psi), np.cos(psi)
    sine = np.array([sn, cs * dpsi, cs * ddpsi - sn * dpsi**2])            # sin psi and its rates
    versine = np.array([1.0 - cs, sn * dpsi, sn * ddpsi + cs * dpsi**2])   # 1 - cos psi and its rates
    p, v, a = (np.array([radius * sine[k], radius * versine[k], heave * sine[k]]) for k in range(3))
    p[2] += params.home_height
    alpha, gamma = yaw * sine, tilt * versine
    ez = np.array([0.0, 0.0, 1.0])
    ex = _rz(alpha[0]) @ np.array([1.0, 0.0, 0.0])
    rotation = _rz(alpha[0]) @ rotation_3d([1.0, 0.0, 0.0], gamma[0])
    omega = alpha[1] * ez + gamma[1] * ex
    omega_dot = alpha[2] * ez + gamma[2] * ex + gamma[1] * alpha[1] * np.cross(ez, ex)
    return p, rotation, np.concatenate([omega, v]), np.concatenate([omega_dot, a])
