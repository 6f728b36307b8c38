"""Planar 3-RRR parallel manipulator in its three actuated coordinates (002 section 4).

Architecture (002 Fig. 2): three identical legs join a fixed equilateral base to an equilateral
platform.  Leg j has the actuated revolute (joint 1) at the base point A_j, link 1 (length l1), the
passive elbow revolute (joint 2) at E_j, link 2 (length l2) and the passive revolute (joint 3) at the
platform point B_j.  Base and platform points lie on circles of radius R_b and R_p at the angles
-90, 30 and 150 degrees (for B_j in the platform frame), so the home pose (0, 0, 0) is symmetric.

Conventions
-----------
* ``pose = (x, y, phi)``: platform mass centre P (the centroid of its triangle) and platform angle.
* ``twist = (omega, vx, vy)`` and ``twist_dot = (omega_dot, ax, ay)``: the planar twist of 002
  section 4.1.2 (angular rate first, 002 eq. 8) of the platform at P, and its time derivative.
  Note the order differs from the pose: ``twist = (phi_dot, x_dot, y_dot)``.
* Joint angles of leg j: theta1 (absolute angle of link 1, actuated), theta2 (link 2 relative to
  link 1), theta3 (platform relative to link 2).  ``theta`` always means the three actuated angles.
* Elbow branch of a leg: +1 if theta2 lies in (0, pi) -- link 2 turns counterclockwise from link 1
  -- and -1 if it lies in (-pi, 0).  The inverse kinematics has 2 branches per leg (8 in all); the
  working mode is ``RRRParameters.branch`` (default +1 for every leg).
* Assembly mode: the forward kinematics has up to 6 solutions; without a guess the one with the
  elbow branches ``RRRParameters.branch`` closest to the home pose is returned (see
  :func:`forward_kinematics`).

Recursive kinematics and dynamics follow 002: link twists by twist propagation (eq. 25), passive
joints eliminated by twist annihilators (eqs. 26-31), the two Jacobians K and Phi B P of eq. 32,
passive joint rates by eqs. 33-35, the generalised forces of each leg's open chain by the DeNOC
matrices (eqs. 10-13 and 20: tau = N_d^T N_l^T w*), the platform split into three equal parts so
that every chain ends in one third of it (002 section 4).
"""
import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy.integrate import solve_ivp

from ..joints.trajectories import smooth_start
from . import SingularPoseError, check_condition, read_only

__all__ = [
    "BRANCHES", "ForwardMotion", "RRRParameters", "SingularPoseError", "actuated_accelerations", "actuated_rates",
    "body_poses", "circle_trajectory", "energy", "forward_dynamics", "forward_kinematics", "forward_kinematics_all",
    "inverse_dynamics", "inverse_kinematics", "jacobians", "joint_accelerations", "joint_angles", "joint_rates",
    "link_twists", "mass_matrix", "platform_twist", "platform_twist_rate", "simulate_forward", "smooth_start",
]

_ANGLES = np.radians([-90.0, 30.0, 150.0])
BRANCHES = np.array(list(itertools.product((1, -1), repeat=3)))
"""Elbow branches in the order of ``inverse_kinematics(..., all_branches=True)``."""


@dataclass(frozen=True)
class RRRParameters:
    """Geometry, inertia and numerical settings of the 3-RRR (SI units; our choice, 002 gives none).

    Geometry: base circumradius 0.5 m, platform circumradius 0.12 m, links 0.30 m and 0.25 m.  At
    the home pose each leg spans 0.38 m and its elbow angle is about 87 degrees, well away from
    both kinds of singularity.  Links are uniform slender bars (centroid at mid-length, centroidal
    inertia m l^2 / 12); the platform is a uniform equilateral plate (inertia m R_p^2 / 4 =
    0.0054 kg m^2 for 1.5 kg).  ``gravity`` is an in-plane vector, zero by default.  ``branch`` is
    the elbow branch of each leg (see the module docstring).  ``cond_max`` is the largest condition
    number of K or Phi B P (002 eq. 32) accepted before :class:`SingularPoseError` is raised.
    """
    base_radius: float = 0.5
    platform_radius: float = 0.12
    l1: float = 0.30
    l2: float = 0.25
    m1: float = 0.6
    m2: float = 0.4
    platform_mass: float = 1.5
    platform_inertia: float = 0.0054
    gravity: tuple = (0.0, 0.0)
    branch: tuple = (1, 1, 1)
    cond_max: float = 1e8

    def __post_init__(self):
        positive = ("base_radius", "platform_radius", "l1", "l2", "m1", "m2", "platform_mass", "platform_inertia", "cond_max")
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"RRRParameters.{name} must be positive, got {getattr(self, name)}")
        if len(self.gravity) != 2:
            raise ValueError(f"RRRParameters.gravity must be an in-plane vector (gx, gy), got {self.gravity}")
        if len(self.branch) != 3 or any(b not in (1, -1) for b in self.branch):
            raise ValueError(f"RRRParameters.branch must be three entries +1 or -1, got {self.branch}")

    @property
    def inertia1(self):
        """Centroidal inertia of link 1, uniform slender bar: m1 l1^2 / 12."""
        return self.m1 * self.l1**2 / 12.0

    @property
    def inertia2(self):
        """Centroidal inertia of link 2, uniform slender bar: m2 l2^2 / 12."""
        return self.m2 * self.l2**2 / 12.0

    @cached_property
    def base_points(self):
        """Base joint points A_j, shape (3, 2)."""
        return read_only(self.base_radius * np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)]))

    @cached_property
    def platform_points(self):
        """Platform joint points B_j in the platform frame (origin at P), shape (3, 2)."""
        return read_only(self.platform_radius * np.column_stack([np.cos(_ANGLES), np.sin(_ANGLES)]))

    @cached_property
    def body_inertia(self):
        """Planar mass matrices diag(I, m, m) (002 eq. 9) of link 1, link 2 and one platform third:
        shape (3, 3), one row per body of a leg's open chain."""
        third = (self.platform_inertia / 3.0, self.platform_mass / 3.0)
        return read_only([[self.inertia1, self.m1, self.m1], [self.inertia2, self.m2, self.m2],
                           [third[0], third[1], third[1]]])


# ----------------------------------------------------------------------------------------- helpers

def _perp(v):
    """E v with E = [[0, -1], [1, 0]] (002 eq. 24), i.e. z x v, for planar vectors of shape (..., 2)."""
    return np.stack([-v[..., 1], v[..., 0]], axis=-1)


def _cross2(a, b):
    """Scalar planar cross product a x b for shapes (..., 2)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _wrap(angle):
    """Angles mapped to [-pi, pi)."""
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def _rotation(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def _describe(pose):
    return "(x, y, phi) = ({:.6g}, {:.6g}, {:.6g})".format(*pose)


def _platform_world(params, pose):
    """Platform joint points B_j in the world frame, shape (3, 2)."""
    return pose[:2] + params.platform_points @ _rotation(pose[2]).T


def _elbows(params, theta):
    """Elbow points E_j = A_j + l1 (cos theta_j, sin theta_j), shape (3, 2)."""
    return params.base_points + params.l1 * np.column_stack([np.cos(theta), np.sin(theta)])


# ------------------------------------------------------------------------------ position analysis

def _actuated_angles(params, pose, branch):
    """theta_j = beta_j - branch_j * gamma_j, with beta_j the direction of A_j -> B_j and gamma_j the
    angle between link 1 and that direction from the law of cosines."""
    d = _platform_world(params, pose) - params.base_points
    rho = np.linalg.norm(d, axis=1)
    cos_gamma = (params.l1**2 + rho**2 - params.l2**2) / (2.0 * params.l1 * np.maximum(rho, 1e-300))
    if np.any(np.abs(cos_gamma) > 1.0 + 1e-12) or np.any(rho == 0.0):
        raise ValueError(f"3-RRR pose {_describe(pose)} is out of reach: leg spans {rho} must lie in "
                         f"[{abs(params.l1 - params.l2)}, {params.l1 + params.l2}]")
    gamma = np.arccos(np.clip(cos_gamma, -1.0, 1.0))
    return _wrap(np.arctan2(d[:, 1], d[:, 0]) - np.asarray(branch) * gamma)


def inverse_kinematics(params, pose, all_branches=False):
    """Actuated angles theta (3,) for a platform pose in the working mode ``params.branch``.

    With ``all_branches=True`` all 8 solutions, shape (8, 3), in the order of :data:`BRANCHES`.
    Raises ValueError if a leg cannot reach its platform point.
    """
    pose = np.asarray(pose, dtype=float)
    if all_branches:
        return np.array([_actuated_angles(params, pose, b) for b in BRANCHES])
    return _actuated_angles(params, pose, params.branch)


def _closure(params, elbows, pose):
    """Loop-closure residuals |B_j - E_j|^2 - l2^2 and their Jacobian with respect to (x, y, phi)."""
    B = _platform_world(params, pose)
    r = B - elbows
    residual = np.sum(r * r, axis=1) - params.l2**2
    jac = 2.0 * np.column_stack([r[:, 0], r[:, 1], np.sum(r * _perp(B - pose[:2]), axis=1)])
    return residual, jac


def _newton_pose(params, elbows, guess, max_iter=60):
    """Newton iteration on the loop closure; returns (pose, converged)."""
    pose = np.array(guess, dtype=float)
    for _ in range(max_iter):
        residual, jac = _closure(params, elbows, pose)
        step = np.linalg.solve(jac, residual)
        pose -= step
        if max(np.hypot(step[0], step[1]) / params.base_radius, abs(step[2])) < 1e-13:
            return pose, True
    return pose, False


def _fk_polynomial(params, elbows, phi):
    """g(phi) = D^2 f(phi) at the angles phi: the loop closure reduced to the platform angle.

    Differences of the three closure equations are linear in (x, y): M(phi) (x, y) = r(phi), M and r
    of degree 1 in (cos phi, sin phi).  With D = det M and N = adj(M) r, the first closure equation
    times D^2 is g = |N|^2 + 2 D N.q_1 + D^2 (|q_1|^2 - l2^2), q_j = R(phi) b_j - E_j, a
    trigonometric polynomial of degree 5.  Returns g and (N, D).
    """
    R = np.stack([np.stack([np.cos(phi), -np.sin(phi)], -1), np.stack([np.sin(phi), np.cos(phi)], -1)], -2)
    q = np.einsum("nab,jb->nja", R, params.platform_points) - elbows
    sq = np.sum(q * q, axis=-1)
    M = 2.0 * (q[:, 1:] - q[:, :1])
    rhs = sq[:, :1] - sq[:, 1:]
    D = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    N = np.stack([M[:, 1, 1] * rhs[:, 0] - M[:, 0, 1] * rhs[:, 1], M[:, 0, 0] * rhs[:, 1] - M[:, 1, 0] * rhs[:, 0]], -1)
    g = np.sum(N * N, -1) + 2.0 * D * np.sum(N * q[:, 0], -1) + D**2 * (sq[:, 0] - params.l2**2)
    return g, N, D


def forward_kinematics_all(params, theta):
    """All assembly modes for the actuated angles theta: poses of shape (k, 3), k <= 6, sorted by phi.

    Method: the closure is reduced to one trigonometric polynomial g(phi) of degree 5
    (:func:`_fk_polynomial`); its Fourier coefficients come exactly from 32 samples, its roots from
    the companion matrix of z^5 g in z = exp(i phi).  Roots near the unit circle give (x, y) from the
    linear equations, are polished by Newton's method on the full closure and kept if they close the
    loops to round-off; duplicates are merged.
    """
    elbows = _elbows(params, np.asarray(theta, dtype=float))
    samples = 2.0 * np.pi * np.arange(32) / 32
    coeff = np.fft.fft(_fk_polynomial(params, elbows, samples)[0]) / 32
    roots = np.roots(np.concatenate([coeff[5:0:-1], coeff[:1], coeff[-1:-6:-1]]))   # c_5 ... c_-5
    candidates = np.angle(roots[np.abs(np.abs(roots) - 1.0) < 1e-3])
    poses = []
    for phi in candidates:
        _, N, D = _fk_polynomial(params, elbows, np.array([phi]))
        if abs(D[0]) < 1e-14:
            continue
        pose, converged = _newton_pose(params, elbows, np.append(N[0] / D[0], phi))
        pose[2] = _wrap(pose[2])
        closes = np.max(np.abs(_closure(params, elbows, pose)[0])) < 1e-12 * params.base_radius**2
        if converged and closes and not any(np.allclose(pose, p, atol=1e-9) for p in poses):
            poses.append(pose)
    return np.array(sorted(poses, key=lambda p: p[2])).reshape(-1, 3)


def _elbow_branches(params, pose, theta):
    """Elbow branch of each leg: the sign of sin(theta2), i.e. of (E - A) x (B - E)."""
    elbows = _elbows(params, theta)
    return np.sign(_cross2(elbows - params.base_points, _platform_world(params, pose) - elbows)).astype(int)


def forward_kinematics(params, theta, guess=None):
    """Platform pose for the actuated angles theta.

    With a ``guess`` pose: Newton's method on the loop closure from the guess (the assembly mode
    the guess lies in).  Without: of all assembly modes (:func:`forward_kinematics_all`) those whose
    elbow branches equal ``params.branch``, and of these the one nearest the home pose (0, 0, 0) in
    the distance |(x, y)| + R_p |phi|.  Raises ValueError if Newton's method does not converge or no
    assembly mode has the working elbow branches.
    """
    theta = np.asarray(theta, dtype=float)
    if guess is not None:
        pose, converged = _newton_pose(params, _elbows(params, theta), guess)
        if not converged:
            raise ValueError(f"3-RRR forward kinematics: Newton did not converge from {_describe(guess)} for theta {theta}")
        return pose
    modes = [p for p in forward_kinematics_all(params, theta)
             if np.array_equal(_elbow_branches(params, p, theta), params.branch)]
    if not modes:
        raise ValueError(f"3-RRR forward kinematics: no assembly mode with elbow branches {params.branch} for theta {theta}")
    return min(modes, key=lambda p: np.hypot(p[0], p[1]) + params.platform_radius * abs(p[2]))


# ------------------------------------------------------------------------------- leg geometry

class _Legs(NamedTuple):
    """Geometry of the three open chains at one pose; arrays indexed [leg, body/joint, ...]."""
    C: np.ndarray        # (3, 3, 2) mass centres of link 1, link 2, platform third (= P)
    d: np.ndarray        # (3, 3, 2) joint k -> mass centre of body k (002 section 4.1.2)
    r: np.ndarray        # (3, 3, 2) mass centre of body k -> joint k+1 (zero for the platform third)
    p: np.ndarray        # (3, 3, 3) twist generators p_k = [1, E d_k] (002 eq. 25)
    pt: np.ndarray       # (3, 3, 3) B_Pk p_k: joint twists carried to P (002 eqs. 24, 26)
    p2: np.ndarray       # (3, 3) Phi_3 B_P2 p_2, annihilated joint-2 generator (002 eq. 28)
    delta2: np.ndarray   # (3,) p2.p2
    delta3: np.ndarray   # (3,) pt3.pt3
    Phi2: np.ndarray     # (3, 3, 3) leg annihilators Phi_2 (002 eqs. 29-30)
    K: np.ndarray        # (3, 3) sum of the Phi_2 (002 eq. 32)
    J: np.ndarray        # (3, 3) Phi B P (002 eq. 32): K t_P = J theta_dot


def _propagate(arm, twist):
    """B twist with the twist-propagation matrix B = [[1, 0^T], [E arm, 1]] (002 eqs. 21, 25)."""
    out = np.array(twist, dtype=float)
    out[..., 1:] += twist[..., :1] * _perp(arm)
    return out


def _propagate_transpose(arm, wrench):
    """B^T w, the same matrix acting on a wrench [n, f]: n + (E arm).f, f."""
    out = np.array(wrench, dtype=float)
    out[..., 0] += np.sum(_perp(arm) * wrench[..., 1:], axis=-1)
    return out


def _generators(d):
    """Twist generators p = [1, E d] of revolute joints (002 eq. 25) for arms d of shape (..., 2)."""
    return np.concatenate([np.ones(d.shape[:-1] + (1,)), _perp(d)], axis=-1)


def _chains(params, pose, theta=None):
    """Joint points O = (A, E, B) and mass centres C = (link 1, link 2, platform P) of every leg,
    each (3, 3, 2), and the absolute angles (3, 3) of those bodies.  ``theta`` (actuated angles)
    selects the elbows; default: the inverse kinematics in the working mode."""
    theta1 = inverse_kinematics(params, pose) if theta is None else np.asarray(theta, dtype=float)
    A, E, B = params.base_points, _elbows(params, theta1), _platform_world(params, pose)
    O = np.stack([A, E, B], axis=1)
    C = np.stack([(A + E) / 2.0, (E + B) / 2.0, np.broadcast_to(pose[:2], (3, 2))], axis=1)
    angles = np.column_stack([theta1, np.arctan2(B[:, 1] - E[:, 1], B[:, 0] - E[:, 0]), np.full(3, pose[2])])
    return O, C, angles


def _legs(params, pose, theta=None):
    """Leg geometry, annihilators and both Jacobians of 002 eq. 32 at a pose (elbows as in
    :func:`_chains`).  Raises :class:`SingularPoseError` if cond(K) or cond(Phi B P) exceeds
    params.cond_max."""
    pose = np.asarray(pose, dtype=float)
    O, C, _ = _chains(params, pose, theta)
    r = np.concatenate([O[:, 1:] - C[:, :2], np.zeros((3, 1, 2))], axis=1)
    d = C - O
    p = _generators(d)
    pt = _propagate(C[:, 2:] - C, p)
    delta3 = np.sum(pt[:, 2] ** 2, axis=1)
    Phi3 = np.eye(3) - np.einsum("ja,jb->jab", pt[:, 2], pt[:, 2]) / delta3[:, None, None]
    p2 = np.einsum("jab,jb->ja", Phi3, pt[:, 1])
    delta2 = np.sum(p2 * p2, axis=1)
    Phi2 = Phi3 - np.einsum("ja,jb->jab", p2, p2) / delta2[:, None, None]
    K = Phi2.sum(axis=0)
    J = np.einsum("jab,jb->aj", Phi2, pt[:, 0])
    check_condition([K, J], ["K (002 eq. 32, platform singularity)", "Phi B P (002 eq. 32, leg singularity)"],
                    lambda: _describe(pose), params.cond_max)
    return _Legs(C, d, r, p, pt, p2, delta2, delta3, Phi2, K, J)


def joint_angles(params, pose):
    """Joint angles [theta1, theta2, theta3] of every leg, shape (3, 3), working mode: theta1
    absolute, theta2 and theta3 relative (link 2 to link 1, platform to link 2) in [-pi, pi)."""
    angles = _chains(params, np.asarray(pose, dtype=float))[2]
    return np.column_stack([angles[:, 0], _wrap(np.diff(angles, axis=1))])


def body_poses(params, pose):
    """Mass centres (3, 3, 2) and absolute angles (3, 3) of link 1, link 2 and the platform, per leg
    (working mode)."""
    return _chains(params, np.asarray(pose, dtype=float))[1:]


def jacobians(params, pose):
    """(K, Phi B P) of 002 eq. 32 at a pose: K t_P = (Phi B P) theta_dot.

    K = sum of the legs' annihilators Phi_2 (eqs. 29-30); column j of Phi B P is
    Phi_2^j B_P1^j p_1^j.  Raises :class:`SingularPoseError` near a singularity.
    """
    legs = _legs(params, pose)
    return legs.K.copy(), legs.J.copy()


# ------------------------------------------------------------------- velocities and accelerations
#
# The private functions below work on a leading batch axis: rates, accelerations and twists of shape
# (..., 3 legs, 3 joints) and (..., 3); the forward dynamics evaluates four motions in one pass.

def _solve(matrix, rhs):
    """matrix^-1 rhs for a (3, 3) matrix and rhs of shape (..., 3)."""
    return np.linalg.solve(matrix, rhs[..., None])[..., 0]


def _passive(legs, rhs):
    """Rates of joints 2 and 3 from rhs = t_P - B_P1 p_1 theta1_dot (002 eqs. 33-34):

        theta2_dot = p2^T rhs / delta2,   theta3_dot = pt3^T (rhs - pt2 theta2_dot) / delta3,

    the second being pt3^T Psi_2^T rhs / delta3.  The same holds for accelerations with rhs =
    t_P_dot - c - B_P1 p_1 theta1_ddot, c the velocity-product part of t_P_dot.
    """
    rate2 = np.sum(legs.p2 * rhs, axis=-1) / legs.delta2
    rate3 = np.sum(legs.pt[:, 2] * (rhs - legs.pt[:, 1] * rate2[..., None]), axis=-1) / legs.delta3
    return np.stack([rate2, rate3], axis=-1)


def _with_passive(legs, actuated, rhs):
    """[actuated, joint 2, joint 3] per leg from the actuated values and rhs of :func:`_passive`."""
    return np.concatenate([actuated[..., None], _passive(legs, rhs)], axis=-1)


def _rates_from_twist(legs, twist):
    """All joint rates (..., 3, 3) for a platform twist: K t_P = (Phi B P) theta_dot (002 eq. 32) for
    the actuated joints, then 002 eqs. 33-34."""
    theta1_dot = _solve(legs.J, twist @ legs.K)
    return _with_passive(legs, theta1_dot, twist[..., None, :] - legs.pt[:, 0] * theta1_dot[..., None])


def _link_twists(legs, rates, accelerations):
    """Twists and twist rates (..., 3, 3, 3) of link 1, link 2 and the platform third of every leg.

    002 eq. 25: t_1 = p_1 theta1_dot, t_k = B_k,k-1 t_k-1 + p_k thetak_dot, and its derivative
    t_k_dot = B t_k-1_dot + B_dot t_k-1 + p_k thetak_ddot + p_k_dot thetak_dot with
    B_dot t = [0, E a_dot omega_k-1], a_dot = d/dt (r_k-1 + d_k), p_k_dot = [0, -omega_k d_k].
    """
    shape = np.broadcast_shapes(rates.shape, accelerations.shape) + (3,)
    t, tdot = np.zeros(shape), np.zeros(shape)
    t[..., 0, :] = legs.p[:, 0] * rates[..., :1]
    tdot[..., 0, :] = legs.p[:, 0] * accelerations[..., :1]
    tdot[..., 0, 1:] -= rates[..., :1] ** 2 * legs.d[:, 0]
    for k in (1, 2):
        arm = legs.r[:, k - 1] + legs.d[:, k]
        t[..., k, :] = _propagate(arm, t[..., k - 1, :]) + legs.p[:, k] * rates[..., k:k + 1]
        w_prev, w_k = t[..., k - 1, :1], t[..., k, :1]
        arm_dot = _perp(w_prev * legs.r[:, k - 1] + w_k * legs.d[:, k])
        tdot[..., k, :] = _propagate(arm, tdot[..., k - 1, :]) + legs.p[:, k] * accelerations[..., k:k + 1]
        tdot[..., k, 1:] += w_prev * _perp(arm_dot) - w_k * rates[..., k:k + 1] * legs.d[:, k]
    return t, tdot


def _velocity_product(legs, rates):
    """c = platform twist rate of each chain at zero joint accelerations (..., 3, 3): t_P_dot =
    sum_k B_Pk p_k thetak_ddot + c, from the differentiated propagation with thetak_ddot = 0."""
    return _link_twists(legs, rates, np.zeros_like(rates))[1][..., 2, :]


def _accelerations_from_twist_rate(legs, c, twist_dot):
    """All joint accelerations (..., 3, 3) for a platform twist rate: the differentiated 002 eq. 32,
    K t_P_dot - sum_j Phi_2^j c^j = (Phi B P) theta_ddot, then 002 eqs. 33-34."""
    theta1_ddot = _solve(legs.J, twist_dot @ legs.K - np.einsum("jab,...jb->...a", legs.Phi2, c))
    return _with_passive(legs, theta1_ddot, twist_dot[..., None, :] - c - legs.pt[:, 0] * theta1_ddot[..., None])


def _twist_rate_from_actuated(legs, c, theta_ddot):
    """Forward acceleration analysis: t_P_dot = K^-1 ((Phi B P) theta_ddot + sum_j Phi_2^j c^j)."""
    return _solve(legs.K, theta_ddot @ legs.J.T + np.einsum("jab,...jb->...a", legs.Phi2, c))


def _motion(params, pose, twist, twist_dot):
    """Legs, joint rates and joint accelerations for a platform motion (inverse kinematics)."""
    legs = _legs(params, pose)
    rates = _rates_from_twist(legs, np.asarray(twist, dtype=float))
    accelerations = _accelerations_from_twist_rate(legs, _velocity_product(legs, rates), np.asarray(twist_dot, dtype=float))
    return legs, rates, accelerations


def actuated_rates(params, pose, twist):
    """Inverse velocity analysis: theta_dot (3,) for a platform twist (002 eq. 32)."""
    return joint_rates(params, pose, twist)[:, 0]


def joint_rates(params, pose, twist):
    """Rates of all joints [theta1, theta2, theta3]_dot per leg, shape (3, 3) (002 eqs. 32-35)."""
    return _rates_from_twist(_legs(params, pose), np.asarray(twist, dtype=float))


def platform_twist(params, pose, theta_dot, theta=None):
    """Forward velocity analysis: t_P = K^-1 (Phi B P) theta_dot (002 eq. 32).

    ``theta`` selects the elbows if the pose is not in the working mode."""
    legs = _legs(params, pose, theta)
    return _solve(legs.K, legs.J @ np.asarray(theta_dot, dtype=float))


def actuated_accelerations(params, pose, twist, twist_dot):
    """Inverse acceleration analysis: theta_ddot (3,) for a platform twist and twist rate."""
    return joint_accelerations(params, pose, twist, twist_dot)[:, 0]


def joint_accelerations(params, pose, twist, twist_dot):
    """Accelerations of all joints per leg, shape (3, 3) (002 eqs. 32-34 differentiated)."""
    return _motion(params, pose, twist, twist_dot)[2]


def platform_twist_rate(params, pose, theta_dot, theta_ddot, theta=None):
    """Forward acceleration analysis: platform twist rate for actuated rates and accelerations."""
    legs = _legs(params, pose, theta)
    rates = _rates_from_twist(legs, _solve(legs.K, legs.J @ np.asarray(theta_dot, dtype=float)))
    return _twist_rate_from_actuated(legs, _velocity_product(legs, rates), np.asarray(theta_ddot, dtype=float))


def link_twists(params, pose, twist, twist_dot=(0.0, 0.0, 0.0)):
    """Twists and twist rates, each (3, 3, 3), of link 1, link 2 and the platform, per leg (002 eq. 25).

    The platform entry of every leg reproduces the given twist and twist rate (loop closure)."""
    legs, rates, accelerations = _motion(params, pose, twist, twist_dot)
    return _link_twists(legs, rates, accelerations)


# ------------------------------------------------------------------------------------ dynamics

def _actuator_torques(params, legs, rates, accelerations, gravity):
    """Actuator torques (..., 3) from the joint motion of all legs (002 section 4, DeNOC).

    1. Newton-Euler wrenches w* = M t_dot + W M t - w_ext of every body (002 eq. 10; W M t = 0 in
       the plane, w_ext = [0, m g]); ``gravity`` broadcasts against (..., 2).
    2. Generalised forces of each open chain, tau = N_d^T N_l^T w*: backward recursion
       w~_3 = w*_3, w~_k = w*_k + B_k+1,k^T w~_k+1, tau_k = p_k^T w~_k.
    3. Passive joints eliminated with the annihilators: by virtual power, tau_A = sum_j L_j^T tau_j
       with L_j the rows of 002 eq. 35; with s_j = p2 tau_2 / delta2 + (1 - p2 pt2^T / delta2) pt3
       tau_3 / delta3 this is tau_A,j = tau_1,j - s_j . pt1_j + [(Phi B P)^T K^-1 sum_j s_j]_j.
    """
    inertia = params.body_inertia
    wstar = inertia * _link_twists(legs, rates, accelerations)[1]
    wstar[..., 1:] -= inertia[:, 1:] * np.asarray(gravity, dtype=float)[..., None, None, :]
    w = wstar[..., 2, :]
    tau = [np.sum(legs.p[:, 2] * w, axis=-1)]
    for k in (1, 0):
        w = wstar[..., k, :] + _propagate_transpose(legs.r[:, k] + legs.d[:, k + 1], w)
        tau.insert(0, np.sum(legs.p[:, k] * w, axis=-1))
    along = legs.pt[:, 2] - legs.p2 * (np.sum(legs.pt[:, 1] * legs.pt[:, 2], axis=1) / legs.delta2)[:, None]
    s = legs.p2 * (tau[1] / legs.delta2)[..., None] + along * (tau[2] / legs.delta3)[..., None]
    return tau[0] - np.sum(s * legs.pt[:, 0], axis=-1) + _solve(legs.K, s.sum(axis=-2)) @ legs.J


def inverse_dynamics(params, pose, twist, twist_dot):
    """Actuator torques tau (3,) that drive the platform with the given pose, twist and twist rate.

    Inverse kinematics in the working mode, joint rates and accelerations by 002 eqs. 32-35, link
    twists by 002 eq. 25, then the DeNOC generalised forces with the passive joints eliminated
    (:func:`_actuator_torques`).  Raises :class:`SingularPoseError` near a singularity.
    """
    legs, rates, accelerations = _motion(params, pose, twist, twist_dot)
    return _actuator_torques(params, legs, rates, accelerations, params.gravity)


def _mass_matrix_and_bias(params, legs, rates):
    """Generalised inertia M (3, 3) and bias torques h (3,) in the actuated coordinates, tau =
    M theta_ddot + h.  Four inverse dynamics in one batch (unit-vector method): h is the motion with
    theta_ddot = 0, column k of M the motion from rest with theta_ddot = e_k and without gravity."""
    zero = np.zeros((3, 3, 3))
    rates_b = np.concatenate([rates[None], zero])
    c = _velocity_product(legs, rates_b)
    theta_ddot = np.vstack([np.zeros(3), np.eye(3)])
    accelerations = _accelerations_from_twist_rate(legs, c, _twist_rate_from_actuated(legs, c, theta_ddot))
    gravity = np.vstack([np.asarray(params.gravity, dtype=float), np.zeros((3, 2))])
    torques = _actuator_torques(params, legs, rates_b, accelerations, gravity)
    return torques[1:].T, torques[0]


def mass_matrix(params, pose):
    """Generalised inertia matrix (3, 3) in the actuated coordinates at a pose (working mode):
    kinetic energy = theta_dot^T M theta_dot / 2."""
    return _mass_matrix_and_bias(params, _legs(params, pose), np.zeros((3, 3)))[0]


def forward_dynamics(params, theta, theta_dot, tau, guess=None):
    """Actuated accelerations theta_ddot (3,) under actuator torques tau (3,).

    Forward kinematics (Newton from ``guess``, else the working assembly mode), joint rates by
    002 eqs. 32-34, then M theta_ddot = tau - h (:func:`_mass_matrix_and_bias`).
    """
    theta = np.asarray(theta, dtype=float)
    return _forward_dynamics_at(params, forward_kinematics(params, theta, guess), theta, theta_dot, tau)


def _forward_dynamics_at(params, pose, theta, theta_dot, tau):
    """theta_ddot at a known pose (assembly mode) with its actuated angles theta."""
    legs = _legs(params, pose, theta)
    rates = _rates_from_twist(legs, _solve(legs.K, legs.J @ np.asarray(theta_dot, dtype=float)))
    M, bias = _mass_matrix_and_bias(params, legs, rates)
    return np.linalg.solve(M, np.asarray(tau, dtype=float) - bias)


class ForwardMotion(NamedTuple):
    """Result of :func:`simulate_forward`: times (N,), actuated angles and rates (N, 3), poses (N, 3)."""
    t: np.ndarray
    theta: np.ndarray
    theta_dot: np.ndarray
    pose: np.ndarray


def simulate_forward(params, theta0, theta_dot0, torque_fn, t_eval, pose0=None, method="DOP853", rtol=1e-11, atol=1e-12):
    """Integrate the forward dynamics from (theta0, theta_dot0) under ``torque_fn(t, theta, theta_dot)``.

    scipy's solve_ivp with ``method`` (default DOP853, order 8) at tolerances rtol/atol on the
    state (theta, theta_dot), reporting at ``t_eval`` (which starts the integration interval).  The
    assembly mode is followed continuously: each forward kinematics starts Newton from the last pose
    (initially ``pose0``, default the working assembly mode of theta0).
    """
    t_eval = np.asarray(t_eval, dtype=float)
    last = [forward_kinematics(params, theta0, pose0)]

    def rhs(t, y):
        pose = forward_kinematics(params, y[:3], last[0])
        last[0] = pose
        theta_ddot = _forward_dynamics_at(params, pose, y[:3], y[3:], torque_fn(t, y[:3], y[3:]))
        return np.concatenate([y[3:], theta_ddot])

    start = last[0]
    y0 = np.concatenate([np.asarray(theta0, dtype=float), np.asarray(theta_dot0, dtype=float)])
    sol = solve_ivp(rhs, (t_eval[0], t_eval[-1]), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"3-RRR forward dynamics: integration failed at t = {sol.t[-1]}: {sol.message}")
    poses = [start]
    for th in sol.y[:3, 1:].T:
        poses.append(forward_kinematics(params, th, poses[-1]))
    return ForwardMotion(sol.t, sol.y[:3].T.copy(), sol.y[3:].T.copy(), np.array(poses))


def energy(params, pose, twist):
    """Kinetic and potential energy (T, V) of the manipulator: T = sum over bodies of
    (I omega^2 + m |v|^2) / 2 with the link twists of 002 eq. 25, V = -sum m g . c."""
    legs = _legs(params, pose)
    rates = _rates_from_twist(legs, np.asarray(twist, dtype=float))
    t = _link_twists(legs, rates, np.zeros_like(rates))[0]
    inertia = params.body_inertia
    kinetic = 0.5 * np.sum(inertia * t * t)
    potential = -np.sum(inertia[:, 1] * (legs.C @ np.asarray(params.gravity, dtype=float)))
    return kinetic, potential


# ------------------------------------------------------------------------------------ trajectory

def circle_trajectory(t, radius=0.04, angular_speed=2.0 * np.pi, t_ramp=0.5, rotation=0.2, center=(0.0, 0.0, 0.0)):
    """Smooth platform motion from rest: the mass centre runs on a circle, the platform swings.

    With psi = angular_speed s(t) (:func:`smooth_start`):
    x = x0 + radius sin psi, y = y0 + radius (1 - cos psi), phi = phi0 + rotation sin psi.
    Returns (pose, twist, twist_dot), each of shape t.shape + (3,), twist = (phi_dot, x_dot, y_dot).
    """
    s, s_dot, s_ddot = smooth_start(t, t_ramp)
    psi, dpsi, ddpsi = angular_speed * s, angular_speed * s_dot, angular_speed * s_ddot
    sn, cs = np.sin(psi), np.cos(psi)
    x0, y0, phi0 = center
    pose = np.stack([x0 + radius * sn, y0 + radius * (1.0 - cs), phi0 + rotation * sn], axis=-1)
    twist = np.stack([rotation * cs * dpsi, radius * cs * dpsi, radius * sn * dpsi], axis=-1)
    twist_dot = np.stack([rotation * (cs * ddpsi - sn * dpsi**2), radius * (cs * ddpsi - sn * dpsi**2),
                          radius * (sn * ddpsi + cs * dpsi**2)], axis=-1)
    return pose, twist, twist_dot
