"""Linearisation about a motion: the tangent space carried along it, the steady motion that servos at
a constant speed impose, and the modes about it (frequencies of a spinning link, a Campbell diagram).

The equations M q'' + Gbar(q)^T lam = F(q, q', t), Phi(q, t) = 0 have a constant mass matrix M in
femdyn (director coordinates, the floating frame by carriers or world vectors: ``beam.ffr``), so the
inertia forces do not depend on q. About a motion (q*, v*, a*, lam*)(t) they give for q* + x, lam* + mu

    M x'' + C x' + K x + Gbar^T mu = Bu u,    G(t) x = 0,                                          (1)

K = -dF/dq + d(Gbar^T lam*)/dq at (q*, v*) (the constraint forces' geometric stiffness with the
multipliers of the motion: a spinning beam's tension, which its geometric stiffening turns into
bending stiffness) and C = -dF/dv. What a rotating frame's observer calls the centrifugal and
Coriolis forces lives in the constraints: their Jacobian G(t) = G(q*(t), t) turns with the motion, and
so does the tangent space null(G(t)) in which x moves. Carry it along by the transport T(t) of the
whole coordinate space with T(t0) = I and

    T' = Lambda T,   Lambda = Omega_f - G^+ (G' + G Omega_f),   G^+ = G^T (G G^T)^-1,                (2)

G' = dG/dt along the motion and Omega_f the observer frame's turning: omega x on every world vector
of every body (positions, directors, a beam's world vectors and carriers), zero on the scalars (joint
coordinates, elastic coordinates, twists), omega the angular velocity of the body the constraints turn
fastest (``frame_spin``: the spinning link; or a body named, or none). G(t) T(t) is then constant
(d(G T)/dt = (G' + G Omega_f - G G^+ (G' + G Omega_f)) T = 0 for rows of full rank): T turns with the
observer, corrected by the least change (normal to the tangent space) that keeps it tangent. Where the
motion is the observer's turning, as for a link that a servo spins at constant speed, G' + G Omega_f = 0
and T is that rotation; without a frame (Omega_f = 0) T is the least change of the tangent space
(Z^T Z' = 0), which leaves world-vector unknowns that no constraint turns (a world-vector beam's nodal
displacements) fixed in space, so the observer's frame is needed for a spinning body. In the carried
coordinates x = T xt, x' = T (xt' + Lambda xt), x'' = T (xt'' + 2 Lambda xt' + (Lambda' + Lambda^2) xt),
and at t0 (1) becomes

    M xt'' + (C + 2 M Lambda) xt' + (K + C Lambda + M (Lambda' + Lambda^2)) xt + Gbar^T mu = Bu u,
    G(t0) xt = 0,                                                                                 (3)

Lambda' = -(G^+)' (G' + G Omega_f) - G^+ (G'' + G' Omega_f) (Omega_f constant),
(G^+)' = G'^T P - G^T P (G' G^T + G G'^T) P, P = (G G^T)^-1. The
gyroscopic matrix 2 W^T M Lambda Z is skew where the motion is a rotation that M does not see
(M's 2 x 2 blocks A I + B J commute with the plane's rotations J: the Coriolis coupling of a
spinning beam's axial and lag motion), and M (Lambda' + Lambda^2) = -Omega^2 M on the turning
coordinates is the centrifugal softening (the -rho A Omega^2 w of a beam's lag equation; Wright et
al. 1982, [Wright1982]). (3) is time-invariant along a steady motion (a relative equilibrium: T
carries the motion into itself) and the frozen linearisation of any other state; its reduction to
the tangent space is ``linearize``'s (its module docstring), with (C, K) replaced by those of (3).

G, G', G'' come from central differences of the dense active Jacobian along q* + s v* + s^2 a*/2
at t + s (five points, fourth order; exact but for round-off for the quadratic constraint rows,
whose Jacobian is linear in q), with the step h = ``STEP`` / rate, rate = max(|v*| / |q*|,
sqrt(|a*| / |q*|)) the motion's inverse time scale (round-off eps |G| / h^2 in G'').

The steady motion at t (``steady_motion``, the servos held): the servos' motion with every coordinate
they leave free held still in the observer's frame -- the frame's own velocity and acceleration
Omega_f q and Omega_f v corrected by the least change that satisfies the constraints,
v(q) = Omega_f q - G^+ (G Omega_f q + dPhi/dt) and a(q) = Omega_f v - G^+ (G Omega_f v + gamma) with
G a = -gamma = -(d/dt)(G v + dPhi/dt) (``SaddleSystem.constraint_acceleration``), the observer's omega
that of the fastest turning body under the least-norm velocity -G^+ dPhi/dt -- and the pose q where the
dynamic forces balance:

    M a(q) - F(q, v(q), t) + Gbar^T lam = 0,   Phi(q, t) = 0,                                     (4)

solved by Newton with the tangent [[K + C Lambda + M (Lambda' + Lambda^2), Gbar^T], [G, 0]] of (3)
(the change of the dynamic forces along a neighbouring steady motion; exact at a solution up to the
change of v(q) in the normal directions, so the iteration converges, linearly where that matters).
A link spinning at a servo-held constant speed is a steady motion: (4) stretches it by the
centrifugal load, and its tension stiffens its bending (Wright et al.'s rotating-beam frequencies).

A state of a run (``motion_at``: q, v at t, as ``states.csv`` stores each frame) is linearised the same
way: its accelerations and multipliers are the consistent ones of the continuous equations at (q, v, t)
(``SaddleSystem.consistent``), the observer's omega that of the fastest turning body at (q, v); where
the run is at a steady motion this is the steady ``Motion`` (to the run's accuracy), elsewhere the frozen
linearisation (3) of its state.

The modes about a motion are the eigenvalues of the first-order form of (3) reduced to the tangent
space (``campbell.motion_modes``: M s^2 + D s + K is quadratic, the gyroscopic D couples the modes).
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..model.reactions import vector_starts
from .modes import ModesError, path_dependent_forces
from .saddle import SaddleSystem

STEP = 1e-3  # the difference step along the motion, times its time scale (module docstring)
TOLERANCE = 1e-12  # Newton on (4): |dq| below this times max(1, |q|)
ITERATIONS = 60


@dataclass(frozen=True)
class Motion:
    """A state of a motion: coordinates ``q``, velocities ``v``, accelerations ``a`` and multipliers
    ``lam`` (m,) at time ``t``, and the angular velocity ``omega`` of the observer's frame (a number in
    the plane, a 3-vector in space; ``frame_spin``); ``iterations``: of Newton on (4) (0 where the state
    was given)."""

    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    lam: np.ndarray
    t: float
    omega: object = 0.0
    iterations: int = 0


def body_spin(model, v, q, index):
    """The angular velocity of body ``index`` at (q, v) from its directors' rates: d_1 x d_1' in the
    plane (a number), 1/2 sum_a d_a x d_a' in space (a 3-vector)."""
    dim, at = model.dim, model.bodies[index].offset + model.dim
    D, dD = q[at : at + dim * dim].reshape(dim, dim), v[at : at + dim * dim].reshape(dim, dim)
    if dim == 2:
        return float(D[0, 0] * dD[0, 1] - D[0, 1] * dD[0, 0])
    return 0.5 * np.sum(np.cross(D, dD), axis=0)


def frame_spin(model, q, v, frame=None):
    """The observer's angular velocity: of the body named ``frame``, zero for "world", and by default
    (None) of the body that turns fastest at (q, v) (the spinning link)."""
    zero = 0.0 if model.dim == 2 else np.zeros(3)
    names = [b.name for b in model.bodies]
    if frame == "world" or not names:
        return zero
    if frame is not None:
        if frame not in names:
            raise ValueError(f"unknown frame body '{frame}' (bodies: {', '.join(names)}, or world)")
        return body_spin(model, v, q, names.index(frame))
    spins = [body_spin(model, v, q, i) for i in range(len(names))]
    return spins[int(np.argmax([np.linalg.norm(w) for w in spins]))]


def frame_generator(model, omega):
    """Omega_f (n, n): the rotation rate omega x of every world vector of every body (the ground
    included: ``reactions.vector_starts``), zero on the scalars (joint coordinates, elastic ones,
    twists) -- the generator of the observer frame's turning about the world origin."""
    n, dim = model.n, model.dim
    Omega = np.zeros((n, n))
    if not np.any(omega):
        return Omega
    block = np.array([[0.0, -omega], [omega, 0.0]]) if dim == 2 else np.cross(np.eye(3), omega).T
    bodies = list(range(len(model.bodies))) + ([model.ground] if model.ground is not None else [])
    for start in np.concatenate([vector_starts(model, b) for b in bodies]).astype(int):
        Omega[start : start + dim, start : start + dim] = block
    return Omega


def jacobian_rates(model, rows, q, v, a, t):
    """The dense active Jacobian G (r, n) of the constraint ``rows`` at (q, t) and its first and second
    time derivatives along q + s v + s^2 a/2 at t + s (module docstring)."""
    size = max(1.0, float(np.abs(q).max(initial=0.0)))
    rate = max(float(np.abs(v).max(initial=0.0)) / size, float(np.sqrt(np.abs(a).max(initial=0.0) / size)))
    h = STEP / rate if rate > STEP else 1.0
    G = [model.jacobian(q + s * v + 0.5 * s * s * a, rows, t + s).toarray() for s in (-2 * h, -h, 0.0, h, 2 * h)]
    rate1 = (G[0] - 8.0 * G[1] + 8.0 * G[3] - G[4]) / (12.0 * h)
    rate2 = (-G[0] + 16.0 * G[1] - 30.0 * G[2] + 16.0 * G[3] - G[4]) / (12.0 * h * h)
    return G[2], rate1, rate2


def _pseudo(G):
    """The Cholesky factor of G G^T and G^+ = G^T (G G^T)^-1; ModesError where the rows are dependent."""
    if not G.shape[0]:  # no constraints: nothing to correct
        return None, np.zeros((G.shape[1], 0))
    try:
        factor = scipy.linalg.cho_factor(G @ G.T)
    except np.linalg.LinAlgError:
        raise ModesError("the active constraint rows are dependent at this pose (a singular pose)") from None
    return factor, scipy.linalg.cho_solve(factor, G).T


def transport(G, rate1, rate2, Omega):
    """Lambda = Omega - G^+ (G' + G Omega) and Lambda' (n, n) of the transport (2) from G, its time
    derivatives and the observer frame's generator ``Omega`` (``frame_generator``)."""
    n = G.shape[1]
    if not G.shape[0]:
        return Omega.copy(), np.zeros((n, n))
    factor, pseudo = _pseudo(G)
    turned1, turned2 = rate1 + G @ Omega, rate2 + rate1 @ Omega
    cross = rate1 @ G.T + G @ rate1.T  # G' G^T + G G'^T
    pseudo_rate = scipy.linalg.cho_solve(factor, rate1).T - pseudo @ scipy.linalg.cho_solve(factor, cross).T
    return Omega - pseudo @ turned1, -pseudo_rate @ turned1 - pseudo @ turned2


def tangents(system, q, v, lam, t):
    """At (q, v, lam, t) over the rows of the ``SaddleSystem`` ``system``: the residual (-F(q, v, t) +
    Gbar^T lam, Phi) (n + r,), the dense matrix [[K, Gbar^T], [G, 0]] (K = -dF/dq + d(Gbar^T lam)/dq at
    v) and C = -dF/dv (n, n): the bodies' material damping, viscous forces and spring-dampers."""
    n = system.n
    states, starts = system.model.initial_states(q), system.begin_step(q, t, midpoint=False)
    R, values = system.static(q, lam, t, states, starts, 1.0, 0.0, v=v)
    with_rate, without = system.newton_values(0.0), system.newton_values(0.0)
    system.continuous_forces(q, v, t, np.inf, states, system.varying, with_rate, 1.0)
    system.continuous_forces(q, v, t, np.inf, states, system.varying, without, 0.0)
    return R, system.pattern.csc(values).toarray(), system.pattern.csc(with_rate - without).toarray()[:n, :n]


def carried(model, rows, motion, M, C):
    """The terms (K_add, C_add) = (C Lambda + M (Lambda' + Lambda^2), 2 M Lambda) that the transport
    (2) in the observer frame of ``motion`` adds to K and C in (3), the rows ``rows`` active."""
    q = motion.q
    Lam, rate = transport(*jacobian_rates(model, rows, q, motion.v, motion.a, motion.t),
                          frame_generator(model, motion.omega))
    return C @ Lam + M @ (rate + Lam @ Lam), 2.0 * (M @ Lam)


def _imposed(system, q, t, omega):
    """The velocity and acceleration v(q), a(q) of the steady motion at (q, t) in the frame turning at
    ``omega``: the frame's own (Omega_f q, Omega_f v) corrected by least norm to satisfy the active rows
    (module docstring)."""
    model, rows = system.model, system.active
    G = model.jacobian(q, rows, t).toarray()
    Omega = frame_generator(model, omega)
    _, pseudo = _pseudo(G)
    v = Omega @ q
    v -= pseudo @ (G @ v + model.phi_time_derivative(q, t)[rows])
    a = Omega @ v
    return v, a - pseudo @ (G @ a + system.constraint_acceleration(q, v, t, _difference_step(q, v)))


def _difference_step(q, v):
    """The dt of ``SaddleSystem.constraint_acceleration`` (which differences over dt/100) at (q, v):
    ``STEP`` times the motion's time scale |q| / |v| (times 100)."""
    size = max(1.0, float(np.abs(q).max(initial=0.0)))
    rate = float(np.abs(v).max(initial=0.0)) / size
    return 100.0 * STEP / rate if rate > STEP else 100.0


def steady_motion(setup, t=0.0, q=None, frame=None):
    """The steady motion (``Motion``) at time t of the model of ``setup`` (``setup.prepare``): Newton on
    (4) from the pose q (default ``setup.q0``) over the active rows, the servos held (they impose the
    motion; a linearisation may then drop them), in the frame of the body named ``frame`` ("world": not
    turning; default: the body the constraints turn fastest, ``frame_spin``). ModesError where it does
    not converge or a force has an internal state (friction)."""
    model, n = setup.model, setup.model.n
    q = np.array(setup.q0 if q is None else q, dtype=float)
    stateful = path_dependent_forces(model, q)
    if stateful:
        raise ModesError(f"{'; '.join(stateful)}: a force with an internal state has no steady motion that "
                         "follows from the pose (friction's stiffness depends on its slip history)")
    rows = setup.active_rows
    system = SaddleSystem(model, rows)
    M = system.mass.toarray()
    omega = frame_spin(model, q, _imposed(system, q, t, 0.0)[0], frame)
    v, a = _imposed(system, q, t, omega)
    lam = system.consistent(t, q, v, model.initial_states(q), 1.0)[1]
    for iteration in range(1, ITERATIONS + 1):
        v, a = _imposed(system, q, t, omega)
        R, matrix, C = tangents(system, q, v, lam, t)
        R[:n] += M @ a
        matrix[:n, :n] += carried(model, rows, Motion(q, v, a, lam, float(t), omega), M, C)[0]
        try:
            step = scipy.linalg.solve(matrix, -R)
        except (np.linalg.LinAlgError, ValueError):
            raise ModesError("no steady motion: its Newton matrix is singular (a singular pose, or a free "
                             "motion that nothing holds)") from None
        q += step[:n]
        lam[rows] += step[n:]
        if np.abs(step[:n]).max(initial=0.0) <= TOLERANCE * max(1.0, float(np.abs(q).max())):
            v, a = _imposed(system, q, t, omega)
            return Motion(q, v, a, lam, float(t), omega, iteration)
    raise ModesError(f"no steady motion found at t = {t:g} s: Newton did not converge in {ITERATIONS} iterations")


def motion_at(setup, q, v, t, frame=None):
    """The ``Motion`` of the state (q, v) at time t of the model of ``setup`` (a frame of a run): its
    consistent accelerations and multipliers (module docstring), the servos held, seen from the turning
    frame of the body named ``frame`` (``frame_spin``). ModesError where a force has an internal state
    (friction) or the accelerations are not finite (a singular pose)."""
    model = setup.model
    q, v = np.array(q, dtype=float), np.array(v, dtype=float)
    stateful = path_dependent_forces(model, q)
    if stateful:
        raise ModesError(f"{'; '.join(stateful)}: a force with an internal state (friction's slip history) is not "
                         "part of a stored state")
    a, lam = SaddleSystem(model, setup.active_rows).consistent(t, q, v, model.initial_states(q), _difference_step(q, v))
    if not (np.isfinite(a).all() and np.isfinite(lam).all()):
        raise ModesError("the state's accelerations are not finite (a singular pose)")
    return Motion(q, v, a, lam, float(t), frame_spin(model, q, v, frame))
