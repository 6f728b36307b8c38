"""Loads: uniform gravity, loads of fixed direction scaled by a function of time, and forces and torques
that follow a body's frame."""
import numpy as np

from ..numerics.lazy import compiled, floats
from .base import Force

KERNELS = __package__ + ".load_kernels"  # numba: imported where the kernels run


class Gravity(Force):
    """Uniform gravity as a constant generalised force w = int rho N^T g (m g on a rigid body's centre
    of mass): V = -w.q, linear, so grad_bar V = grad V."""

    conservative = True
    invariant = True

    def __init__(self, dofs, weights):
        super().__init__(dofs)
        self.weights = np.asarray(weights, dtype=float)

    def potential(self, q, state=None):
        return -float((self.weights * q).sum())  # np.sum's reduction without its dispatch

    def potential_history(self, Q, states):
        return -np.sum(self.weights * Q, axis=(1, 2))

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self.weights


class TimeLoad(Force):
    """Loads with a fixed direction in the generalised coordinates scaled by a function of time,
    evaluated at the mid-time (000 eq. 6 with Q(q_n+1/2)): joint torques and forces on augmented
    coordinates (``directions`` = 1) and point forces on bodies (``directions`` = C(X)^T f)."""

    def __init__(self, dofs, directions, functions):
        super().__init__(dofs)
        self.directions = np.asarray(directions, dtype=float)
        self.functions = list(functions)

    def time_targets(self):
        return [("a load", f) for f in self.functions]

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        scale = np.array([float(f(t_mid)) for f in self.functions])
        return scale[:, None] * self.directions


class FollowerForce(Force):
    """Forces that follow a frame: f(t) = function(t) sum_a f_a e_a with components f_a fixed in the
    frame e_a = A_a z (a body's directors, or the section's axes at a material point of a flexible
    body: the maps the joints use), applied at the material point x = C z (thrust, a tool's reaction).
    Over a step the frame is taken at the mid-point z_m = (z_a + z_b)/2 (000 eq. 6 with Q(q_n+1/2)):

        Fbar = C^T sum_a f_a(t_mid) A_a z_m,     dFbar/dz_b = 1/2 C^T sum_a f_a A_a (constant),

    a non-conservative load whose work Fbar . (z_b - z_a) enters the energy balance like that of every
    other load, and whose impulse over the step is dt f(t_mid) along the mid-point frame. ``dofs``
    (K, n), ``points`` (K, dim, n) the maps C, ``axes`` (K, dim, dim, n), ``forces`` (K, dim) the
    components f_a, ``functions`` K callables."""

    def __init__(self, dofs, points, axes, forces, functions):
        super().__init__(dofs)
        self.points, self.axes = floats(points), floats(axes)
        self.forces, self.functions = np.asarray(forces, dtype=float), list(functions)
        rows, cols = np.any(self.points != 0, axis=(0, 1)), np.any(self.axes != 0, axis=(0, 1, 2))
        self.tangent_mask = rows[:, None] & cols[None, :]

    def time_targets(self):
        return [("a load", f) for f in self.functions]

    def _components(self, t_mid):
        return np.array([float(f(t_mid)) for f in self.functions])[:, None] * self.forces

    def _evaluate(self, qa, qb, t_mid, tangents):
        """Fbar (K, n) and, with ``tangents``, dFbar/dqb (K, n, n): ``load_kernels.follower_force``."""
        K, n = qb.shape
        force, tangent = np.empty((K, n)), np.empty((K, n, n) if tangents else (0, 0, 0))
        compiled(KERNELS).follower_force(floats(0.5 * (qa + qb)), self.points, self.axes, self._components(t_mid),
                                         force, tangent)
        return force, tangent

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self._evaluate(qa, qb, t_mid, False)[0]

    def tangent(self, qa, qb, t_mid, dt, state=None):
        return self._evaluate(qa, qb, t_mid, True)[1]


class TimeTorque(Force):
    """Torques M(t) = function(t) M of fixed world direction (a scalar in the plane) on frames of ``dim``
    vectors e_a = A_a z, linear in the local coordinates z: a body's directors, or the axes of the
    section at a material point of a flexible body (the same maps as the joints use). A torque on
    orthonormal e_a does the virtual work M . delta theta through delta e_a = delta theta x e_a, which
    the forces F_a = (1/2) M x e_a on the e_a do (sum_a e_a x (M x e_a) = 2 M). Over a step they are
    taken at the mid-point z_m = (z_a + z_b)/2 with the dual basis g_a of the e_a there (g_a . e_b =
    delta_ab; g_a = e_a where the e_a are orthonormal):

        F_a = (1/2) M x g_a  (space),   F_a = (M/2) J g_a  (plane),   Fbar = sum_a A_a^T F_a,

    so that sum_a e_a x F_a = (1/2) (tr(E G^T) M - G^T E M) = M exactly at z_m (E, G: rows e_a, g_a;
    in the plane e x J g = e . g). Every coordinate vector enters the e_a with scalar coefficients
    (or by J, which commutes with rotations), so the sum over the coordinates of z_m x Fbar is M and
    the discrete angular momentum (000 eqs. 5-7) changes by dt M(t_mid) per step, as the torque's
    impulse; the work Fbar . (z_b - z_a) enters the energy balance like that of every other load.
    ``dofs`` (K, n), ``axes`` (K, dim, dim, n) the maps A_a, ``torques`` (K, 3) or (K,), ``functions``
    K callables."""

    def __init__(self, dofs, axes, torques, functions):
        super().__init__(dofs)
        self.axes = floats(axes)
        self.torques = np.asarray(torques, dtype=float)
        self.functions = list(functions)
        used = np.any(self.axes != 0, axis=(0, 1, 2))
        self.tangent_mask = used[:, None] & used[None, :]

    follower = False  # the torque's components are fixed in the frame (``FollowerTorque``)

    def _evaluate(self, qa, qb, t_mid, tangents):
        """Fbar (K, n) and, with ``tangents``, dFbar/dqb (K, n, n): ``load_kernels.torque``."""
        K, n = qb.shape
        scale = np.array([float(f(t_mid)) for f in self.functions])
        torques = (scale[:, None] * self.torques.reshape(K, -1)).reshape(K, -1)
        force, tangent = np.empty((K, n)), np.empty((K, n, n) if tangents else (0, 0, 0))
        compiled(KERNELS).torque(floats(0.5 * (qa + qb)), self.axes, torques, self.follower, force, tangent)
        return force, tangent

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return self._evaluate(qa, qb, t_mid, False)[0]

    def tangent(self, qa, qb, t_mid, dt, state=None):
        """dFbar/dqb: dG = -G dE^T G with dE/dz_m = A[:, :, :, m], and dz_m/dqb = 1/2."""
        return self._evaluate(qa, qb, t_mid, True)[1]


class FollowerTorque(TimeTorque):
    """Spatial torques that follow the frame they act on: M(t) = function(t) sum_b m_b e_b with the
    components m_b fixed in the frame (a motor's reaction, a tool's moment), taken with the frame at the
    mid-point like ``TimeTorque``'s dual basis, so the frame still receives exactly M(z_m) and the
    discrete angular momentum changes by dt M(t_mid, z_m). (In the plane a torque is the same in every
    frame: ``TimeTorque``.) Its tangent adds the turning of M, dM/dz_m = sum_b m_b A_b."""

    follower = True
