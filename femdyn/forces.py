"""Applied forces as batched components, each evaluated in its energy-consistent discrete form.

A component holds K instances over ``dofs`` (K, n) and returns the discrete generalised force
``Fbar(qa, qb, t_mid, dt)`` (K, n) that enters 000 eq. 5_2 as ``F = Q - grad_bar V`` (eq. 6), its
derivative with respect to qb for Newton, and its potential energy. Work and dissipation per step
follow generically: ``W = Fbar.(qb - qa) + V(qb) - V(qa)`` is the non-conservative work.
"""
from abc import ABC, abstractmethod

import numpy as np

from .kinematics import apply, point_matrix


class Force(ABC):
    """Components may carry an internal state (e.g. the plastic slip of friction): ``state`` is the
    value at the start of the step, ``advance`` gives the value at its end."""

    tangent_mask = None  # (n, n) structure of the tangent; None: Fbar does not depend on qb
    # Fbar is exactly -grad_bar V, a discrete gradient (Fbar.(qb - qa) = V(qa) - V(qb)): its work W is
    # zero by construction, and the energy-momentum stepper leaves it out of the step's work
    conservative = False

    def __init__(self, dofs):
        self.dofs = np.asarray(dofs, dtype=np.int64)

    def initial_state(self, q):
        """Internal state at the initial local coordinates q (K, n)."""
        return None

    def potential(self, q, state=None):
        """Total potential energy of the component (0 for non-conservative loads)."""
        return 0.0

    def potential_history(self, Q, states):
        """The potential energy at each of F configurations: ``Q`` (F, K, n) and the state at each
        (list of F); vectorised over F by the components whose energy a run reports every step."""
        if type(self).potential is Force.potential:
            return np.zeros(len(Q))
        return np.array([self.potential(q, s) for q, s in zip(Q, states)])

    @abstractmethod
    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        """(K, n) generalised force over the step."""

    def tangent(self, qa, qb, t_mid, dt, state=None):
        """d Fbar/d qb, (K, n, n), at the entries of ``tangent_mask``."""

    def tangent_pattern(self):
        """Local (row, column) index arrays of the tangent's structural entries."""
        return np.nonzero(self.tangent_mask)

    def tangent_values(self, qa, qb, t_mid, dt, state=None):
        """The tangent at ``tangent_pattern``, (K, nnz); components with large sparse tangents
        override this and ``tangent_pattern`` instead of ``tangent``."""
        return self.tangent(qa, qb, t_mid, dt, state)[:, self.tangent_mask]

    def advance(self, qa, qb, state):
        """Internal state at the end of a converged step."""
        return state


class Gravity(Force):
    """Uniform gravity as a constant generalised force w = int rho N^T g (m g on a rigid body's centre
    of mass): V = -w.q, linear, so grad_bar V = grad V."""

    conservative = True

    def __init__(self, dofs, weights):
        super().__init__(dofs)
        self.weights = np.asarray(weights, dtype=float)

    def potential(self, q, state=None):
        return -float(np.sum(self.weights * q))

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

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        scale = np.array([float(f(t_mid)) for f in self.functions])
        return scale[:, None] * self.directions


class SpringDamper(Force):
    """Point-to-point spring-damper between body points X1 (body 1) and X2 (body 2), local
    coordinates [q1, q2]: V = k/2 (l - l0)^2 and damping force c dl/dt along the line, l = |x2 - x1|.

    Discrete gradient (Gonzalez): with s = l^2 (quadratic in q),
    grad_bar V = (V_b - V_a)/(s_b - s_a) grad s(q_mid) = k (lbar - l0) grad s(q_mid)/(l_a + l_b),
    lbar = (l_a + l_b)/2, so that grad_bar V . (qb - qa) = V(qb) - V(qa) exactly. The damper uses the discrete
    rate (l_b - l_a)/dt along the same discrete gradient of l, grad_bar l = grad s(q_mid)/(l_a + l_b),
    so it dissipates exactly c (l_b - l_a)^2 / dt per step.
    """

    def __init__(self, dofs, labels, points1, points2, stiffness, damping, free_length):
        super().__init__(dofs)
        self.labels = list(labels)
        C1, C2 = point_matrix(points1), point_matrix(points2)
        self.D = np.concatenate([-C1, C2], axis=2)  # x2 - x1 = D q
        self.k, self.c, self.l0 = (np.asarray(v, dtype=float) for v in (stiffness, damping, free_length))
        self.tangent_mask = np.any(self.D != 0, axis=(0, 1))[:, None] & np.any(self.D != 0, axis=(0, 1))[None, :]

    def _length(self, q):
        r = apply(self.D, q)
        return r, np.linalg.norm(r, axis=1)

    def lengths(self, q):
        return self._length(q)[1]

    def potential(self, q, state=None):
        _, l = self._length(q)
        return float(np.sum(0.5 * self.k * (l - self.l0) ** 2))

    def _coefficient(self, la, lb, dt):
        """Scalar f with Fbar = -f grad_bar l = -f * 2 r_mid^T D / (la + lb)."""
        return self.k * (0.5 * (la + lb) - self.l0) + self.c * (lb - la) / dt

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        _, la = self._length(qa)
        _, lb = self._length(qb)
        r_mid = apply(self.D, 0.5 * (qa + qb))
        f = self._coefficient(la, lb, dt)
        return -(2.0 * f / (la + lb))[:, None] * np.einsum("ki,kin->kn", r_mid, self.D)

    def tangent(self, qa, qb, t_mid, dt, state=None):
        """Derivative of Fbar = -w f g with w = 2/(la + lb), g = D^T r_mid, f from ``_coefficient``."""
        _, la = self._length(qa)
        rb, lb = self._length(qb)
        f = self._coefficient(la, lb, dt)
        w = 2.0 / (la + lb)
        g = np.einsum("ki,kin->kn", apply(self.D, 0.5 * (qa + qb)), self.D)
        dlb = np.einsum("ki,kin->kn", rb, self.D) / lb[:, None]
        df = (0.5 * self.k + self.c / dt)[:, None] * dlb
        dw = -0.5 * (w**2)[:, None] * dlb
        DtD = np.einsum("kin,kim->knm", self.D, self.D)
        return -(np.einsum("kn,km->knm", g, w[:, None] * df + f[:, None] * dw)
                 + (0.5 * w * f)[:, None, None] * DtD)


class Friction(Force):
    """Joint friction as 1D perfect plasticity (001 section 4.2): a spring E in series with a slider
    that sticks while |F| < F_max. On coordinate q with plastic slip p (the state):
    psi = E/2 (q - p)^2, F_int = E (q - p), |F_int| <= F_max (001 eqs. 15-22).

    Return mapping with p_n fixed: trial e = q_b - p_n; stick if E |e| <= F_max (p_b = p_n), else slip
    to e_b = sign(e) F_max/E, p_b = q_b - e_b, dissipation D = F_max |p_b - p_n| (001 eq. 25).
    The algorithmic force of 001 eq. 26, F = (psi_b - psi_a + D)/(q_b - q_a), makes
    F (q_b - q_a) = psi_b - psi_a + D exactly, so H_n+1 - H_n + D = 0. Written out (e_a = q_a - p_n):
    stick: F = E (q_mid - p_n);  slip: F = E e_b - E/2 (e_b - e_a)^2/(q_b - q_a),
    which stays finite because |q_b - q_a| >= |e_b - e_a| whenever the step slips.
    Local coordinates: the one coordinate (K, 1).
    """

    def __init__(self, dofs, labels, stiffness, max_force):
        super().__init__(dofs)
        self.labels = list(labels)
        self.E, self.F_max = np.asarray(stiffness, dtype=float), np.asarray(max_force, dtype=float)
        self.tangent_mask = np.ones((1, 1), dtype=bool)

    def initial_state(self, q):
        """Unstressed at the start: the plastic slip is the initial coordinate, so |E e| <= F_max."""
        return q[:, 0].copy()

    def _return_map(self, qa, qb, p):
        """e_a, e_b, slip mask and the algorithmic force F (K,)."""
        qa, qb = qa[:, 0], qb[:, 0]
        e_a, e_trial = qa - p, qb - p
        # a step without motion sticks: after a slip e_a may exceed F_max/E by round-off
        slip = (self.E * np.abs(e_trial) > self.F_max) & (qb != qa)
        e_b = np.where(slip, np.sign(e_trial) * self.F_max / self.E, e_trial)
        dq = np.where(slip, qb - qa, 1.0)
        force = np.where(slip, self.E * e_b - 0.5 * self.E * (e_b - e_a) ** 2 / dq,
                         self.E * (0.5 * (qa + qb) - p))
        return e_a, e_b, slip, force

    def potential(self, q, state=None):
        return float(np.sum(0.5 * self.E * (q[:, 0] - state) ** 2))

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        return -self._return_map(qa, qb, state)[3][:, None]

    def tangent(self, qa, qb, t_mid, dt, state=None):
        e_a, e_b, slip, _ = self._return_map(qa, qb, state)
        dq = np.where(slip, qb[:, 0] - qa[:, 0], 1.0)
        return -np.where(slip, 0.5 * self.E * (e_b - e_a) ** 2 / dq**2, 0.5 * self.E)[:, None, None]

    def advance(self, qa, qb, state):
        _, e_b, _, _ = self._return_map(qa, qb, state)
        return qb[:, 0] - e_b

    def dissipation(self, qa, qb, state):
        """F_max |p_b - p_n| per element (>= 0)."""
        return self.F_max * np.abs(self.advance(qa, qb, state) - state)
