"""The basic energy-momentum (BEM) scheme, 000 eqs. 5-7 (001 eq. 3, with the EMC forces of eq. 14):

    q_n+1 - q_n = dt/2 (v_n + v_n+1)
    M (v_n+1 - v_n) = dt Fbar(q_n, q_n+1) - dt Gbar(q_n, q_n+1)^T lam
    Phi(q_n+1) = 0

v_n+1 is eliminated with the first line; Newton solves for (q_n+1, lam) with

    R_q = 2/dt^2 M (q_n+1 - q_n - dt v_n) - Fbar + Gbar^T lam,     R_lam = Phi(q_n+1)
    K   = [[2/dt^2 M - dFbar/dq + d(Gbar^T lam)/dq,  Gbar^T],
           [G(q_n+1),                                0     ]]

assembled into the fixed sparsity pattern of the model's ``saddle.SaddleSystem``. M is constant and
sparse: diagonal for rigid director bodies (000 eq. 10), with the FFR inertia invariants as
off-diagonal blocks for flexible bodies (``flexible``). The multipliers are scaled by
s = 2 mbar/dt^2 (mbar: mean of the positive diagonal of M) so that both blocks of K have the same
magnitude. Because every Gbar is a discrete gradient, the step conserves energy (up to the work of
applied loads) and momentum maps to the Newton tolerance.

The mass term of R_q is formed from the step's increment, 2/dt^2 M (q_n+1 - q_n) - 2/dt M v_n, not as
2/dt^2 M q_n+1 - 2/dt^2 M (q_n + dt v_n): those two terms are |q| / |q_n+1 - q_n| times larger than
the increment form's (about 100 for a body turning 0.01 rad per step), and their rounding is a residual
that Newton's iteration cannot remove -- it left q_n+1 some 10-400 units in the last place from the
solution of the discrete equations. The energy balance of a step is exactly (q_n+1 - q_n) . R_q
(minus lam . (Phi_n+1 - Phi_n), and the velocity update's rounding), so that rounding, not the
representation of q_n+1, set its floor:
1e-13 of H per step, 4e-13 to 2e-12 of H over 100 steps of a spinning beam, against 1e-14 per step
from q_n+1's own rounding, which the increment form reaches (benchmarks/README.md, "The energy
balance's round-off floor").
"""
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..numerics.lazy import compiled
from .newton import Newton, NewtonOptions
from .saddle import NONE, SaddleSystem
from .stepping import STEP_ENDS


@dataclass
class StepResult:
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    iterations: int
    work: float  # work of applied loads and servo inputs minus dissipation in the step
    dissipation: float  # energy dissipated by friction and the bodies' damping in the step (>= 0)
    states: list  # internal states of the forces at the end of the step


class EnergyMomentum:
    """Stepper for one model and one dt. ``active_rows`` selects the independent constraint rows."""

    def __init__(self, model, dt, active_rows=None, options=None):
        self.model, self.dt = model, dt
        self.options = options or NewtonOptions()
        self.system = system = SaddleSystem(model, active_rows)
        self.size = system.size
        self.scale = 2.0 * system.mbar / dt**2
        self._mass_factor = 2.0 / dt**2
        self._mass_values = system.newton_values(self._mass_factor)  # the Newton matrix's mass entries
        self._varying = [system.forces[k] for k in system.varying]
        self._loop = ((self._mass_factor, *system.mass_csr, self._mass_values),
                      (self.scale, 1.0, *system.batch_arguments))
        self.newton = Newton(self.options, system.lu, system.active, self.scale, system.servos)
        self._potential = None  # (states, q, ``SaddleSystem.worked_potential``) at the end of the last step

    def inertia(self, va: np.ndarray) -> np.ndarray:
        """2/dt M v_n, the part of the residual's mass term known at the step's start: the residual
        subtracts it from 2/dt^2 M (q_n+1 - q_n) (module docstring)."""
        return 2.0 / self.dt * (self.system.mass_operator @ va)

    def consistent(self, t, q, v, states):
        """``SaddleSystem.consistent`` at (q, v, t) with the forces' ``states``; the first one gives the
        Newton matrices their first pivots (``KeptLU.start``)."""
        return self.system.consistent(t, q, v, states, self.dt, kept=True)

    @property
    def factorisations(self):
        """Newton matrices factorised so far."""
        return self.system.factorisations

    def state(self):
        """What the next steps depend on besides (q, v, lam) and the forces' states: Newton's state
        and its factorisation (``time_loop.Checkpoint``); ``restore`` sets it."""
        return self.newton.state()

    def restore(self, state):
        self.newton.restore(state)

    def _system(self, qa, qb, lam, t_mid, inertia, constant_forces, starts, states, tangents=True):
        """Residual and (with ``tangents``, else None) the Newton matrix's CSC data. ``lam`` holds all m
        multipliers."""
        return self._iterate(qa, [qa[f.dofs] for f in self._varying], t_mid, inertia, constant_forces, starts,
                             states, qb, lam, tangents)

    def _iterate(self, qa, qa_local, t_mid, inertia, constant_forces, starts, states, qb, lam, tangents):
        """``_system`` with the varying forces' local coordinates at qa, ``qa_local``, taken once per step."""
        system, dt = self.system, self.dt
        F = dF = NONE
        if qa_local:
            F, dF = [], []
            for f, q_a, k in zip(self._varying, qa_local, system.varying):
                q_b = qb[f.dofs]
                F.append(f.discrete_force(q_a, q_b, t_mid, dt, states[k]))
                if tangents:
                    dF.append(f.tangent_values(q_a, q_b, t_mid, dt, states[k]))
            F, dF = system.stacked(F), system.stacked(dF)
        values = self._mass_values.copy() if tangents else None
        R = system.assemble(values, qb, lam, starts, self._mass_factor, inertia, constant_forces, F, dF, self.scale,
                            1.0, False, qa)
        return R, values

    def step(self, t, qa, va, lam_guess, states):
        """One step from (t, qa, va) to t + dt; ``lam_guess`` (m,) starts Newton's iteration and
        ``states`` are the forces' internal states at t."""
        system, dt = self.system, self.dt
        t_mid = t + 0.5 * dt
        predicted = qa + dt * va  # Newton's start
        inertia = self.inertia(va)
        constant_forces = system.applied(qa, qa, t_mid, dt, states, system.constant)
        starts = system.begin_step(qa, t + dt)
        lam = system.active_multipliers(lam_guess)
        qa_local = [qa[f.dofs] for f in self._varying]
        residual = partial(self._iterate, qa, qa_local, t_mid, inertia, constant_forces, starts, states)
        loop = None
        if system.compiled_residual:  # ``kernels.newton_loop``'s arguments, where it runs
            head, tail = self._loop
            loop = lambda: (*head, inertia, qa, constant_forces, starts[0], *tail,  # noqa: E731
                            *system.loop_force(qa_local, False, dt, states=states),
                            system.loop_family(starts, qa), system.loop_servo(starts))
        system.first_pivots(qa, t)  # the run's first: those of the consistent start, without it
        qb, lam, iterations = self.newton.solve(residual, predicted, lam, t + dt, compiled_loop=loop)
        return self._finish(t, qa, va, qb, lam, iterations, constant_forces, states)

    def _finish(self, t, qa, va, qb, lam, iterations, constant_forces, states):
        """Velocities, the step's work (loads, servo inputs, dissipation) and the new states.

        The work of the step is W = Fbar.(qb - qa) + V(qb) - V(qa) summed over the forces (``forces``
        module docstring) plus the servo inputs' u.B (qb - qa). A conservative varying force (a discrete
        gradient, e.g. the beams' elasticity) contributes zero by construction and is left out: so the
        step does not evaluate it again, and the energy balance H - H_0 - W checks its discrete
        gradient instead of cancelling it."""
        system, dt = self.system, self.dt
        forces = system.forces
        dq = qb - qa
        worked = system.varying_worked
        F = system.worked_forces(constant_forces, lam, system.applied(qa, qb, t + 0.5 * dt, dt, states, worked)
                                 if worked else None)  # servo inputs u = -lam act along the Boolean B: u . B dq
        new_states = system.advanced(qa, qb, states)
        dissipation = 0.0
        for k in system.dissipative:
            f = forces[k]
            dissipation += float(np.sum(f.dissipation(qa[f.dofs], qb[f.dofs], states[k], dt)))
        known = self._potential is not None and self._potential[0] is states and self._potential[1] == qa.tobytes()
        v_a = self._potential[2] if known else system.worked_potential(qa, states)
        v_b = system.worked_potential(qb, new_states)
        self._potential = (new_states, qb.tobytes(), v_b)  # V_n of the next step, if it starts here
        work = compiled(STEP_ENDS).step_work(F, F, qb, qa) + v_b - v_a  # F . dq, in the compiled steps' order
        return StepResult(qb, 2.0 / dt * dq - va, lam, iterations, work, dissipation, new_states)
