"""Static equilibrium of a model under gravity and time-independent loads, servos held.

At rest (v = 0) the equations of motion M q'' + Gbar^T lam = F(q, v, t), Phi(q, t) = 0 leave

    R(q, lam) = (-F(q, 0, t) + Gbar(q)^T lam,  s Phi(q, t)) = 0,                              (1)

the loads taken at the time t (default 0) and the servo rows (000 eqs. 58-59) held at their targets at
t, so that their multipliers are the actuator inputs u = -lam that hold the pose (000 eq. 84: the
input acts along the Boolean B, ``Gbar`` of a servo row). Newton's method solves (1) in the unknowns
(q, lam/s) with the matrix

    [[K, s Gbar^T], [s G, 0]],    K = -dF/dq + d(Gbar^T lam)/dq,                              (2)

the Newton matrix of the time steppers with the mass factor 0 (``SaddleSystem.static``: the same
fixed pattern, KLU factorisation and continuous forms as generalized-alpha, ``newton.Newton`` with
its stopping test), s the largest entry of (2) at the start so that both blocks have one magnitude.
Velocity-dependent forces are evaluated at v = 0 (a damper carries nothing at rest); forces with an
internal state (friction, 001 section 4.2) are refused, since their static state depends on the
loading history and not on q. Constraint rows that ``setup.prepare`` dropped as dependent get no
multiplier: the reactions of a statically indeterminate (hyperstatic) rigid structure are not
determined by its statics, and the ones reported are those with the dropped rows' forces zero.

Start. Newton starts from the prepared configuration with the multipliers of the forces at the
instant of release from rest there (``modes.static_multipliers``): exact where the start is an
equilibrium, and they give K the geometric stiffness of the constraint forces, without which a rigid
mechanism has no stiffness at all (with lam = 0 a pendulum's K is zero). Newton finds the equilibrium
its iteration reaches from the start, stable or not (an inverted pendulum is one): the natural modes
(``modes.natural_modes``) tell, omega^2 < 0 along an unstable direction.

Failure. Where Newton fails the message says why at its last iterate: the free motions there, the zero
modes of the tangent pencil on the constraint manifold (``modes.TangentPencil``), or constraint rows
that depend on each other there (a singular pose). Of the free motions it names the one that the loads
drive (there is no equilibrium nearby: a body without support under gravity, a first-order mechanism
such as a flat truss loaded across, or a limit point such as a pendulum started horizontally) and
those along which the equilibrium would be neutral (not unique: hold them by a joint, spring or
servo). Accuracy: Newton stops by Hairer & Wanner's error estimate at ``tolerance``; what is left is
the round-off of the solves, which grows with the condition of K (a clamped beam's tip deflection is
exact to 1e-12 up to 64 elements, 3e-10 at 256 and about 1e-8 at 1024, K ~ N^4). Source for Newton's
method on the constrained static equations: M. Geradin, A. Cardona, Flexible Multibody Dynamics: A
Finite Element Approach, Wiley 2001.
"""
from dataclasses import dataclass

import numpy as np
import scipy  # scipy.linalg loads on first use (SciPy's lazy submodules): not in every run

from .modes import (
    ModesError,
    TangentPencil,
    describe_motion,
    path_dependent_forces,
    static_multipliers,
    unbalanced,
)
from .newton import Newton, NewtonFailure, NewtonOptions
from .saddle import SaddleSystem

FREE_MOTIONS = 6  # lowest modes searched for the free motions of a failed iteration


class StaticsError(RuntimeError):
    """No static equilibrium: the reason, and the free motions or dependent rows where found."""


@dataclass(frozen=True)
class Equilibrium:
    """A static equilibrium at time ``t``: the configuration ``q`` (n,), the multipliers ``lam`` (m,; zero
    on the rows dropped as dependent, listed in ``dropped``), the generalised constraint forces
    ``constraint_forces`` = Gbar^T lam (n,) that balance the loads, the servo ``inputs`` u = -lam of the
    servo rows (one per ``model.inputs`` coordinate), Newton's ``iterations`` and the residuals of (1):
    ``force_residual`` max |F - Gbar^T lam| and ``constraint_residual`` max |Phi| over the active rows."""

    q: np.ndarray
    lam: np.ndarray
    constraint_forces: np.ndarray
    inputs: np.ndarray
    t: float
    iterations: int
    force_residual: float
    constraint_residual: float
    dropped: list


def static_equilibrium(setup, t=0.0, tolerance=1e-12, max_iterations=50, system=None):
    """The static equilibrium (``Equilibrium``) of the model of ``setup`` (``setup.prepare``) reached by
    Newton's method from ``setup.q0`` (module docstring); ``tolerance`` on the error of q relative to
    max(1, |q|_inf) (``newton.newton_converged``); ``system``: the ``SaddleSystem`` of that model and
    ``setup.active_rows`` to solve in (default: a new one; a caller that goes on to more solves at the
    pose shares its one). Raises ``StaticsError`` with the reason where there is none."""
    model, q0, n = setup.model, setup.q0, setup.model.n
    stateful = path_dependent_forces(model, q0)
    if stateful:
        raise StaticsError(f"{'; '.join(stateful)}: the static state of a force with an internal state "
                           "depends on the loading history (friction's slip), not on the configuration; "
                           "run the dynamics instead")
    system = SaddleSystem(model, setup.active_rows) if system is None else system
    states, starts = model.initial_states(q0), system.begin_step(q0, t, midpoint=False)
    lam, _, _ = static_multipliers(system, q0, t)
    scale = float(np.abs(system.static(q0, lam, t, states, starts, 1.0)[1]).max(initial=0.0)) or 1.0
    newton = Newton(NewtonOptions(tolerance, max_iterations), system.lu, system.active, scale, system.servos)
    last = {}

    def residual(q, lam, tangents):
        last.update(q=q, lam=lam.copy())
        return system.static(q, lam, t, states, starts, scale, 0.0, tangents)

    try:
        q, lam, iterations = newton.solve(residual, q0.copy(), lam, t)
    except NewtonFailure as failure:
        raise StaticsError(_diagnosis(setup, t, last["q"], last["lam"], failure)) from None
    R, _ = system.static(q, lam, t, states, starts, 1.0, tangents=False)
    applied = -system.static(q, np.zeros(model.m), t, states, starts, 1.0, tangents=False)[0][:n]
    return Equilibrium(q, lam, R[:n] + applied, -lam[model.input_rows], t, iterations,
                       float(np.abs(R[:n]).max(initial=0.0)), float(np.abs(R[n:]).max(initial=0.0)),
                       list(setup.dropped))


def _diagnosis(setup, t, q, lam, failure):
    """Why Newton failed at its last iterate (q, lam): dependent rows, or the free motions of the tangent
    pencil there, split into those the loads drive and the neutral ones (module docstring)."""
    model = setup.model
    head = (f"no static equilibrium found from the prepared configuration ({failure.reason} after "
            f"{failure.iterations} Newton iterations)")
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(lam))):
        return head + ": the iteration diverged; start closer to an equilibrium or reduce the loads"
    try:
        pencil = TangentPencil(model, q, lam, t, setup.active_rows)
        if not pencil.dimension:  # no motion left: the matrix is singular in its constraint rows
            raise ModesError("the active constraint rows are dependent at this pose (a singular pose)")
        _, X, zero = pencil.lowest(min(FREE_MOTIONS, pencil.dimension))
    except ModesError as err:  # rows that depend on each other at the last iterate, a non-symmetric tangent
        return f"{head}: {err}"
    if not zero.any():
        return head + ("; the mechanism has no free motion there (its lowest stiffness on the constraint "
                       "manifold is regular): start closer to an equilibrium or reduce the loads")
    _, residual, scale = static_multipliers(pencil.system, q, t, lam)
    free = X[:, zero]  # mass-orthonormal
    work = free.T @ residual
    motion = free @ work  # the free motion along which the loads work most
    words = []
    if unbalanced(motion[:, None], residual, scale)[0]:
        words.append(f"the loads drive the free motion {describe_motion(model, q, motion)}: no equilibrium "
                     "near this configuration (a mechanism without support there, or a limit point of the "
                     "equilibrium path: start elsewhere)")
        free = free @ scipy.linalg.null_space(work[None, :])  # the free motions without work
    if free.shape[1]:
        many = free.shape[1] > 1
        motions = "; ".join(f"{i}: {describe_motion(model, q, x)}" for i, x in enumerate(free.T, start=1))
        words.append(f"{free.shape[1]} free motion{'s' * many} along which the loads do no work, so the "
                     f"equilibrium is not unique ({motions}): hold {'them' if many else 'it'} by a joint, a "
                     "spring or a servo")
    return f"{head}: " + "; ".join(words)
