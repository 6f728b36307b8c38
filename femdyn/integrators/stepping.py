"""Many time steps in one compiled call (issue 37): for a model whose Newton iteration runs whole in
``kernels.newton_loop`` the interpreter's share of a small model's step -- the step's begin and end,
the call of the loop with its some 60 arguments, the history's row -- costs more than the step's
arithmetic. ``AlphaSteps`` runs generalized-alpha steps of such a model in ``step_kernels.alpha_steps``
instead, writing the rows of the time loop's chunk (``time_loop._Chunk``) there, and hands the state
back to the stepper after each call, so that the time loop sees, between calls, what it saw after the
step the call ended with: the same numbers bit for bit as step after step (the kernel computes every
quantity in the order of the interpreted step), the same checkpoints, the same early stop.

Where KLU refuses to refactorise a Newton matrix the call goes on: KLU chooses the pivots anew inside
(``numerics.klu.factor``). Where a step cannot be done so -- its Newton iteration ends other than
converged, its state is not finite -- the call returns before it, undone (KLU's factorisation of the
step's start kept until the step is done, and put back, ``klu.undo``), and the time loop does it step by
step, with the messages of the interpreted iteration (a Newton failure).

The compiled steps take models, with full or simplified Newton, whose constant forces depend on time
alone (gravity, ``TimeLoad``; evaluated before the call at the times its steps take them, each step's
once: a call that ends early leaves the rest to the next), whose worked forces are those (the potential:
gravity's) and the forces that the Newton loop evaluates itself (``SaddleSystem.loop_force``): the bodies'
material damping (``forces.viscous``: cases/3prr_plant.toml, flexible_link_plant.toml), its force in the
step's work and its loss in the step's dissipation, spring-dampers (``forces.spring_damper``: their force in
the work, their potential in V, their damper's loss inside the work), and joint friction (``forces.friction``:
cases/friction_oscillator.toml, rpr_figure8_friction.toml), the only force with a state that a step
advances: its slip is advanced in the kernel after each step exactly as ``SaddleSystem.advanced`` does it
(the return map of the step's start slip), written to a row per step from which ``_done`` makes each row's
states, and its potential E/2 (q - p)^2 enters V at its place among the worked forces -- each sum formed
in the interpreted step's order (``step_ends.forces_end``, ``worked_potential``). Their families: none
outside the batch but a joint-angle family (the FEM 3-PRR of cases/3prr_sine.toml; the rigid mechanisms
driven at their joints, cases/nm_logo.toml) and servo rows (their targets taken as the loads: the flexible
five-bar and Delta), also of several families that the loop adds as one (``SaddleSystem.loop_servo``: the
RPR's path and angle, cases/rpr_figure8.toml; the Stewart-Gough platform's position and orientation). The
others -- loads that depend on q (follower forces and torques), joint families of other kinds -- go step by
step, as before.
"""
import numpy as np

from ..forces.base import Force
from ..forces.loads import Gravity, TimeLoad
from ..joints.batch import NO_PLACES, NONE
from ..joints.servo import NO_SERVO
from ..numerics.lazy import compiled
from ..numerics.linalg import CsrOperator
from .newton import FIRST_SOLVE_REFINEMENT, NO_STOP, ROUND_OFF

STEP_KERNELS = __package__ + ".step_kernels"  # numba: imported where the steps run
STEP_ENDS = __package__ + ".step_ends"  # the sums at a step's end that both kinds of step share


TIME_ONLY = (Gravity, TimeLoad)  # constant forces that depend on time alone, not on q or a state
# ``step_kernels``' servo rows of a model without: ``NO_SERVO`` with a(t), gamma(t) for one step
NO_SERVOS = (NO_SERVO[0], np.zeros((1, 0, 0)), np.zeros((1, 0)), *NO_SERVO[3:])


def _same_products(system) -> bool:
    """Whether the kernels' products with M's CSR arrays (``SaddleSystem.mass_csr``) are those of the
    interpreted steps' ``mass_operator`` bit for bit: a ``CsrOperator`` (the same sums), or M diagonal,
    as for rigid bodies in director coordinates (one product per row; a dense operator adds exact zeros)."""
    if isinstance(system.mass_operator, CsrOperator):
        return True
    indptr, indices = system.mass_csr[:2]
    rows = np.diff(indptr)
    return bool(np.all(rows <= 1) and np.array_equal(indices, np.flatnonzero(rows)))


def _eligible(stepper) -> bool:
    """Whether ``step_kernels`` does the steps of ``stepper`` (module docstring): the only dissipative and
    worked varying forces, if any, the viscous damping, the joint friction and the spring-dampers that the
    Newton loop evaluates (``SaddleSystem.loop_force``), the friction the only force with a state that a
    step advances."""
    system = stepper.system
    friction = [] if system._friction is None else [system._friction]
    looped = [k for k in (system._damper, system._friction, system._springs) if k is not None]
    worked = [system.forces[k] for k, w in enumerate(system.worked) if w and k not in looped]
    return (system.compiled_residual and _same_products(system)
            and all(type(system.forces[k]) in TIME_ONLY for k in system.constant)
            and all(isinstance(f, Gravity) or type(f).potential is Force.potential for f in worked)
            and system.dissipative == [k for k in looped if system.forces[k].dissipative]
            and system.varying_worked == looped
            and system.advancing == friction and system.advancing_continuous == friction)


class _Steps:
    """What the compiled steps of both steppers share: the gravity forces' data for the potential, the
    chunk's rows, Newton's arguments, and the stepper's and the chunk's state after a call."""

    @classmethod
    def of(cls, stepper) -> "_Steps | None":
        """The compiled steps of ``stepper``, or None where its model goes step by step."""
        return cls(stepper) if _eligible(stepper) else None

    def __init__(self, stepper, mass_factor):
        self.stepper = stepper
        system = stepper.system
        # the worked forces' potential: gravity's weights at its coordinates, none for the loads without
        parts = [(np.broadcast_to(f.weights, f.dofs.shape).ravel(), f.dofs.ravel()) if isinstance(f, Gravity) else
                 (NONE, np.zeros(0, np.int64)) for k, f in enumerate(system.forces) if system.worked[k]]
        self.gravity = (np.concatenate([NONE] + [w for w, _ in parts]).astype(np.float64),
                        np.concatenate([np.zeros(0, np.int64)] + [d for _, d in parts]).astype(np.int64),
                        np.cumsum([0] + [w.size for w, _ in parts]).astype(np.int64))
        # the damping's, the friction's and the springs' coordinates, the friction's and the springs' places
        # among the worked forces (``step_ends.worked_potential``) and the friction's slips at the steps'
        # ends (a row per step of a call)
        at = [NO_PLACES if k is None else system.forces[k].dofs.ravel().astype(np.int64)
              for k in (system._damper, system._friction, system._springs)]
        self.friction = system._friction
        places = [k for k, w in enumerate(system.worked) if w]
        self._ends = (tuple(at), tuple(-1 if k is None else places.index(k) for k in (self.friction, system._springs)))
        self.invariant = not system.constant or system._invariant
        self.input_rows = np.asarray(stepper.model.input_rows, dtype=np.int64).reshape(-1)
        self.head = (mass_factor, *system.mass_csr, stepper._mass_values)  # ``newton_loop``'s first arguments
        self._made = {}  # ``_per_step``'s values of the last call's steps

    def _solver(self):
        """``kernels.newton_loop``'s arguments after the bound (but the stop): the iteration limit, the
        factorisation's, the refinement's and the simplified iteration's."""
        s = self.stepper
        lu, newton = s.system.lu, s.newton
        return (s.options.max_iterations, *lu.pattern, lu.handles, lu.rcond, lu.pivoting(True), newton.active,
                newton.scale, newton._refinement, FIRST_SOLVE_REFINEMENT, newton.REFINEMENT_PAUSE, s.options.modified,
                newton.REFRESH_CONTRACTION)

    def _rows(self, chunk):
        return (chunk.Q, chunk.V, chunk.Lam, chunk.inputs, chunk.iterations, chunk.work, chunk.dissipation,
                self.input_rows)

    def _per_step(self, name, k, count, make):
        """[make(i) for the steps i = k .. k + count - 1 of a call], reusing what was made for the last
        call's steps where it ended before them (the time loop does that step alone and calls again), so
        that each step's values are made once."""
        first, made = self._made.get(name, (0, []))
        kept = made[k - first : k - first + count] if first <= k else []
        values = kept + [make(i) for i in range(k + len(kept), k + count)]
        self._made[name] = (k, values)
        return values

    def _constants(self, q, k, count, offset, states):
        """The constant forces (``SaddleSystem.applied``) of the call's steps from step k, at the times
        i dt + ``offset`` of steps i, a row each (one row where they are invariant); q, which they do not
        depend on, that of the call's start."""
        system, dt = self.stepper.system, self.stepper.dt
        if self.invariant:
            return system.applied(q, q, k * dt + offset, dt, states, system.constant)[None]
        return np.stack(self._per_step("constants", k, count,
                                       lambda i: system.applied(q, q, i * dt + offset, dt, states, system.constant)))

    def _servos(self, k, count):
        """The servo rows of the call's steps from step k (``step_kernels``): ``kernels.newton_loop``'s
        ``servo`` (``joints.servo.LoopServos``: the servo families as one) with a(t) and gamma(t)
        at the steps' ends t = i dt + dt, a row each (``Servo.begin_step``); ``NO_SERVOS`` without servo
        rows."""
        system, dt = self.stepper.system, self.stepper.dt
        servos = system._looped_families[1]
        if not servos:
            return NO_SERVOS
        joined = system._loop_servos
        steps = self._per_step("servos", k, count, lambda i: joined.loop_arguments(
            [system.families[j].c.begin_step(None, i * dt + dt) for j in servos])[1:3])
        return (joined.first, np.stack([a for a, _ in steps]), np.stack([g for _, g in steps]), *joined.arrays)

    def _potential(self, q, states, known):
        """V(q_n) of the worked forces: ``known`` (the last step's) or evaluated, a float (the sum over no
        worked force is the integer 0, which would type the kernels' ``carry`` anew)."""
        return float(known if known is not None else self.stepper.system.worked_potential(q, states))

    def _ends_of(self, count):
        """``step_kernels``' ``ends`` for a call of ``count`` steps."""
        return (*self._ends, np.empty((count, self._ends[0][1].size)))

    def _done(self, chunk, done, refactored, last, lam, states, ends) -> list:
        """The chunk's and Newton's state after ``done`` steps of a call (``refactored`` factorisations,
        the last of ``last``, counted by ``klu.factor`` itself) that ended with the multipliers ``lam``,
        from the forces' ``states`` with the friction's slips of ``ends``; returns the states at its end."""
        s = self.stepper
        if refactored:
            s.system.lu.refactored(last)
        chunk.rows += done
        chunk.lam = lam
        if self.friction is None:
            chunk.history.extend([states] * done)
            return states
        for slip in ends[2][:done]:  # a new list each step (``SaddleSystem.advanced``)
            states = list(states)
            states[self.friction] = slip.copy()
            chunk.history.append(states)
        return states


class AlphaSteps(_Steps):
    """Compiled generalized-alpha steps of ``stepper`` (a ``GeneralizedAlpha``; module docstring)."""

    def __init__(self, stepper):
        super().__init__(stepper, stepper.beta_p)
        s, dt = stepper, stepper.dt
        self.coefficients = (dt, dt * dt * (0.5 - s.beta), dt * (1.0 - s.gamma), s.alpha_m, s.alpha_f,
                             1.0 - s.alpha_m, 1.0 - s.alpha_f, s.beta_p, s.beta * dt**2, s.beta * dt * dt,
                             s.gamma * dt, s.options.tolerance, ROUND_OFF, s.damped)

    def ready(self, chunk, k: int) -> bool:
        """Whether the stepper continues compiled from step k (t = k dt), the last row of ``chunk``: it
        has a factorisation to refactor and the end of the step before (not the first step)."""
        row = chunk.rows
        return self.stepper.system.lu.refactorable and self.stepper._continues(k * self.stepper.dt, chunk.Q[row],
                                                                               chunk.V[row])

    def run(self, chunk, k: int, count: int, states: list) -> int:
        """Up to ``count`` steps from step k (t = k dt, the last row of ``chunk``, the forces' ``states``;
        ``ready``) into ``chunk``; returns how many were done. The stepper's state is then that after
        them."""
        s = self.stepper
        system, dt = s.system, s.dt
        row = chunk.rows
        c = s._carry
        constants = self._constants(c.q, k, count, dt, states)
        potential = self._potential(c.q, states, c.potential[1] if c.potential is not None and
                                    c.potential[0] is states else None)
        options, stop = s.options, s._stop
        if options.early_stop:
            ratios = np.empty(len(stop.ratios) + count * options.max_iterations)
            ratios[: len(stop.ratios)] = stop.ratios
            early = (True, float(stop.safety), stop.ratios.maxlen, ratios,
                     np.array([len(stop.ratios)], np.int64), stop.refresh, np.array([stop.steps], np.int64))
        else:
            early = (False, 0.0, 1, NONE, np.zeros(1, np.int64), 1, np.zeros(1, np.int64))
        looped = system.loop_force(None, True, dt, (c.v, c.q, s.gamma_p), states)  # the damper's v~, q~: per step
        tail = (NONE, s.scale, 2.0, *system.batch_arguments, *looped[:-3])  # damping, friction, springs: passed apart
        ends = self._ends_of(count)
        before = c.a if c.a_previous is None else c.a_previous
        earlier = before if c.a_earlier is None else c.a_earlier
        carry = (c.q, c.v, c.a, c.vd, before, c.a_previous is not None, earlier, c.a_earlier is not None,
                 bool(c.velocity_start), c.lam, c.force, potential)
        alpha_steps = compiled(STEP_KERNELS).alpha_steps
        done, refactored, last, a, vd, a_before, earlier, known, closer, lam, force, potential = alpha_steps(
            count, self.coefficients, self.head, tail, *looped[-3:],
            system.loop_family([None] * (1 + len(system.families))), self._servos(k, count), self._solver(), early,
            self.gravity, constants, carry, self._rows(chunk), row, ends)
        if not done:
            return 0
        states = self._done(chunk, done, refactored, last, lam, states, ends)
        if options.early_stop:
            ratios, recorded, steps = early[3], early[4], early[6]
            stop.ratios.extend(ratios[len(stop.ratios) : recorded[0]].tolist())
            stop.steps, stop.previous = int(steps[0]), None
        end = row + done
        s._carry = type(c)((k + done - 1) * dt + dt, chunk.Q[end].copy(), chunk.V[end].copy(), a, vd, lam.copy(),
                           force.copy(), a_before, (states, potential), bool(closer), earlier if known else None)
        return done


class MidpointSteps(_Steps):
    """Compiled energy-momentum steps of ``stepper`` (an ``EnergyMomentum``; module docstring)."""

    def __init__(self, stepper):
        super().__init__(stepper, stepper._mass_factor)
        dt = stepper.dt
        arguments = stepper.system.batch_arguments  # the batch's g and Hessian (``newton_loop``'s g, H_*)
        self.batch = (arguments[2], *arguments[7:10])
        self.coefficients = (dt, 2.0 / dt, stepper.options.tolerance)

    def _local(self, q):
        """The varying forces' local coordinates at q (``SaddleSystem.loop_force``'s ``qa_local``)."""
        system = self.stepper.system
        return [q[system.forces[k].dofs] for k in system.varying]

    def ready(self, chunk, k: int) -> bool:
        """``AlphaSteps.ready``: a factorisation to refactor."""
        return self.stepper.system.lu.refactorable

    def run(self, chunk, k: int, count: int, states: list) -> int:
        """``AlphaSteps.run`` for the energy-momentum stepper."""
        s = self.stepper
        system, dt = s.system, s.dt
        row = chunk.rows
        q = chunk.Q[row]
        constants = self._constants(q, k, count, 0.5 * dt, states)
        p = s._potential
        potential = self._potential(q, states, p[2] if p is not None and p[0] is states and p[1] == q.tobytes()
                                    else None)
        looped = system.loop_force(self._local(q), False, dt, states=states)
        ends = self._ends_of(count)
        force = (*looped[:3], *looped[6:-3])  # the start and ``known``: the kernel's own per step (the damper's too)
        done, refactored, last, lam, potential = compiled(STEP_KERNELS).midpoint_steps(
            count, self.coefficients, self.head, s._loop[1], self.batch, force, *looped[-3:],
            system.loop_family([None] * (1 + len(system.families)), q),
            self._servos(k, count), self._solver(), NO_STOP, self.gravity, constants,
            (q, chunk.V[row], chunk.lam, potential), self._rows(chunk), row, ends)
        if not done:
            return 0
        states = self._done(chunk, done, refactored, last, lam, states, ends)
        end = row + done
        if system._looped is not None:  # the start whose strains the beams' kernel holds: the last step's
            start = chunk.Q[end if done < count else end - 1]
            system._looped.loop_arguments(start[system._looped.dofs])
        s._potential = (states, chunk.Q[end].tobytes(), potential)
        return done
