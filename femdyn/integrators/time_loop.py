"""Time loop: step from a prepared initial state (``setup.prepare``) under ``settings.SolverSettings``
with the energy-momentum scheme (default) or the generalized-alpha scheme, and record the history
(coordinates, energies, momenta, constraint residual, Newton iterations).

The history is made in chunks. Without an ``output`` the whole run is one chunk, returned as
``Results``. With one (``post.results.ResultWriter``) every chunk goes to it when it asks for it (every
few seconds of wall time, or when the chunk reaches ``output.capacity``), with the ``Checkpoint`` from
which the run continues exactly as if it had not stopped: ``simulate(..., resume=checkpoint)`` gives
the same numbers, bit for bit, as the run that went on. Nothing that changes the numbers is reset at a
chunk boundary: what the steppers carry from step to step (generalized-alpha's a, vd, multipliers and
predictor history, Newton's refinement pause and early-stop ratios, and KLU's ordering, pivots and
kept factorisation, ``kept_lu.KeptLU``) is saved instead, so a run written in chunks has the numbers of
a run in one piece.

Models whose Newton iteration runs whole in compiled code (world beams, rigid bodies, quadratic joints,
gravity and time-only loads, material damping, joint friction, spring-dampers; ``stepping``) make many
steps per compiled call, writing the chunk's rows (and the forces' states after each step) there; between
calls the loop does what it does between steps (progress, ``output.due()``, asked for each step ahead of
the call, which ends where a chunk is due; Ctrl-C, within a call's ~50 ms). A step
that the call cannot do (Newton not converged, a singular Newton matrix, a state not finite) is done
again step by step, so failures, messages and numbers are those of the steps one by one, bit for bit.

Every chunk is checked before it is given out: a non-finite state stops the run at that step, a
non-finite energy, work, momentum or constraint residual, or a constraint residual far above the
Newton tolerance (``RESIDUAL_LIMIT``), at the first row that has it; the run is then incomplete, its
message names the quantity, and the rows before are kept.
"""
import time
from dataclasses import dataclass, field

import numpy as np

from .diagnostics import nonfinite_load
from .energy_momentum import EnergyMomentum
from .generalized_alpha import GeneralizedAlpha
from .newton import NewtonFailure
from .stepping import AlphaSteps, MidpointSteps
from .settings import GENERALIZED_ALPHA

# A converged step leaves a constraint residual of round-off, or of about the Newton tolerance times the
# model's size max(1, |q_0|) with modified Newton or the early stop; a residual this many times that
# is no solution.
RESIDUAL_LIMIT = 1e3


def two_rows(rows):
    """``rows`` (one per frame), or two copies of a lone row: NumPy computes a product over a single row
    along another path, whose last bits differ, while with two rows or more a row's result does not
    depend on the others. A history computed in chunks, wherever they end, then has the numbers of a
    history computed at once (checked bit for bit in tests/units/test_checkpoint.py)."""
    return np.concatenate([rows, rows]) if len(rows) == 1 else rows


@dataclass
class Results:
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    inputs: np.ndarray  # (steps, inputs): servo inputs over each step, at the mid-times t_mid
    # (generalized-alpha: the mean of the inputs at the step's two ends)
    iterations: np.ndarray
    residual: np.ndarray  # max |Phi| over the active constraints
    kinetic: np.ndarray
    potential: np.ndarray
    work: np.ndarray  # cumulative work of loads and servo inputs minus dissipation
    dissipation: np.ndarray  # cumulative energy dissipated by friction and the bodies' damping
    momentum: np.ndarray
    angular_momentum: np.ndarray
    complete: bool = True
    message: str = ""
    dropped: list = field(default_factory=list)
    integrator: str = "energy-momentum"
    factorisations: int = 0  # Newton matrices factorised (fewer than iterations with simplified Newton)
    mid_times: np.ndarray | None = None  # the inputs' times, where t does not give them (a later chunk)
    initial_total: float | None = None  # H_0, where t does not start at 0 (a later chunk)
    step: float | None = None  # the time step, where t has one row
    # the time nodes whose multipliers this chunk completes (``node_multipliers``): their times, q and
    # multipliers (all m); the nodes of a whole complete run are those of t
    node_t: np.ndarray | None = None
    node_q: np.ndarray | None = None
    node_lam: np.ndarray | None = None

    @classmethod
    def at_rest(cls, model, t, q, lam, iterations, residual):
        """The single frame (t, q) of ``model`` at rest, held by the multipliers ``lam`` (its one node):
        a static equilibrium written as a run's result folder (``post.equilibrium``)."""
        zero, dim = np.zeros(1), model.dim
        return cls(np.array([t]), q[None], np.zeros((1, model.n)), np.zeros((0, len(model.inputs))),
                   np.array([iterations]), np.array([residual]), zero, np.array([model.potential(q)]), zero, zero,
                   np.zeros((1, dim)), np.zeros((1, 1 if dim == 2 else 3)), step=float("nan"),
                   node_t=np.array([t]), node_q=q[None], node_lam=lam[None])

    def node_inputs(self, input_rows):
        """The servo inputs u = -lam at the nodes ``node_t`` (``node_multipliers``), (nodes, inputs)."""
        if self.node_lam is None:
            return np.zeros((0, len(input_rows)))
        return -self.node_lam[:, input_rows]

    @property
    def t_mid(self):
        return self.mid_times if self.mid_times is not None else 0.5 * (self.t[1:] + self.t[:-1])

    @property
    def dt(self):
        if self.step is not None:
            return self.step
        return self.t[1] - self.t[0] if len(self.t) > 1 else float("nan")

    @property
    def total(self):
        return self.kinetic + self.potential

    @property
    def energy_balance(self):
        """H_n - H_0 - W_n: zero to round-off for the energy-momentum scheme (001 eq. 14); O(dt^2)
        for the generalized-alpha scheme, whose work is a trapezoidal sum and which dissipates
        numerically for rho_inf < 1."""
        return self.total - (self.total[0] if self.initial_total is None else self.initial_total) - self.work


class CheckpointError(ValueError):
    """A ``Checkpoint`` that ``simulate`` cannot go on from (raised before any step or output)."""


@dataclass
class Checkpoint:
    """The state of a run after ``step`` steps from which ``simulate(..., resume=checkpoint)`` goes on
    as the run itself would have: q, v, the multipliers (Newton's start), the forces' states (friction
    slip), the cumulative work and dissipation, H_0, and the stepper's state (``stepper.state()``:
    Newton's, KLU's and generalized-alpha's). ``solver`` holds arrays and numbers only, by name."""

    step: int
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    states: list
    work: float
    dissipation: float
    initial_total: float
    solver: dict


class _Chunk:
    """The rows of one chunk as the steps fill them: row 0 is the state the chunk starts from (step
    ``start``: the initial state, or the last row of the chunk before), row k the state after its
    k-th step. ``capacity`` steps at most."""

    def __init__(self, model, capacity, start, q, v, lam, states, work, dissipation, before):
        n = model.n
        self.start, self.rows, self.before = start, 0, before
        self.Q, self.V = np.empty((capacity + 1, n)), np.empty((capacity + 1, n))
        self.inputs = np.empty((capacity, len(model.inputs)))
        self.Lam = np.empty((capacity, model.m))  # the multipliers of each step
        self.iterations = np.zeros(capacity + 1, dtype=int)
        self.work, self.dissipation = np.zeros(capacity + 1), np.zeros(capacity + 1)
        self.history = [states]  # the forces' states at each row, for the potential energy
        self.Q[0], self.V[0], self.work[0], self.dissipation[0], self.lam = q, v, work, dissipation, lam

    @property
    def full(self):
        return self.rows == len(self.inputs)

    def add(self, r, inputs):
        """Store the result ``r`` of the next step and its servo inputs; the row counts once it is
        all there."""
        k = self.rows
        self.Q[k + 1], self.V[k + 1], self.iterations[k + 1] = r.q, r.v, r.iterations
        self.inputs[k] = inputs
        self.Lam[k] = r.lam
        self.work[k + 1] = self.work[k] + r.work
        self.dissipation[k + 1] = self.dissipation[k] + r.dissipation
        self.history.append(r.states)
        self.lam, self.rows = r.lam, k + 1

    def checkpoint(self, initial_total, solver):
        k = self.rows
        return Checkpoint(self.start + k, self.Q[k].copy(), self.V[k].copy(), self.lam.copy(), self.history[k],
                          float(self.work[k]), float(self.dissipation[k]), initial_total, solver)


def _first_problem(r, tolerance, size):
    """(row, message) of the first row of the chunk ``r`` whose energy, work, momentum or constraint
    residual is not finite or whose residual is far above the tolerance times the model's ``size``
    (``RESIDUAL_LIMIT``), or None."""
    quantities = {"kinetic energy": r.kinetic, "potential energy": r.potential, "work": r.work,
                  "dissipation": r.dissipation, "energy balance": r.energy_balance,
                  "linear momentum": r.momentum, "angular momentum": r.angular_momentum,
                  "constraint residual": r.residual}
    bad = []
    for name, values in quantities.items():
        rows = np.flatnonzero(~np.isfinite(values.reshape(len(r.t), -1)).all(axis=1))
        if rows.size:
            bad.append((rows[0], f"the {name} is not finite at t = {r.t[rows[0]]:.6g}"))
    limit = RESIDUAL_LIMIT * tolerance * size
    rows = np.flatnonzero(r.residual > limit)
    if rows.size:
        k = rows[0]
        bad.append((k, f"the constraint residual {r.residual[k]:.3g} at t = {r.t[k]:.6g} is far above the "
                    f"Newton tolerance ({RESIDUAL_LIMIT:g} times {tolerance:g} max(1, |q_0|) = {limit:.3g}): "
                    "the step did not solve the equations"))
    return min(bad, key=lambda b: b[0]) if bad else None


def node_multipliers(before, steps, midpoint, first):
    """The multipliers at the time nodes t_s, .., t_s+k-1 from those of the k steps from t_s on
    (``steps`` (k, m)) and ``before``: the multipliers of the step before t_s, or, at the run's first
    node (``first``), the consistent multipliers lam_0 at (q_0, v_0, t_0) (``SaddleSystem.consistent``;
    None where they do not exist: then the first step's, first order).

    The energy-momentum scheme's multipliers lam_n+1/2 belong to the step (000 eqs. 5-7): its constraint
    forces Gbar^T lam_n+1/2 act over the step, second-order approximations at the mid-time t_n+1/2 plus
    a part that alternates from step to step with an amplitude O(dt) (the velocity normal to the
    constraints, which the mid-point rule does not hold to zero, swings back and forth). At a node the
    mean of the two neighbouring steps, lam_n = (lam_n-1/2 + lam_n+1/2)/2, is second order: the
    alternating parts cancel but for their change over one step, O(dt^2), and the mean of a smooth
    function at t_n +- dt/2 is its value at t_n to O(dt^2). So the nodal values have no alternation
    (their second difference is O(dt^2), not O(dt)). With ``midpoint`` False (generalized-alpha, whose
    multipliers lam_n+1 belong to t_n+1, Arnold & Bruls 2007) the node t_n gets the step before's own."""
    if not len(steps):
        return steps
    before = steps[0] if before is None else before
    previous = np.concatenate([before[None], steps[:-1]])
    nodes = 0.5 * (previous + steps) if midpoint else previous
    if first:
        nodes[0] = before
    return nodes


def _results(setup, settings, chunk, initial_total, complete, message, factorisations, end=None):
    """The ``Results`` of the rows of ``chunk`` not given out before (its row 0 only if it is the
    initial state), checked (``_first_problem``): cut before the first bad row. The time nodes are
    those that the chunk's steps complete (``node_multipliers``: the chunk's rows but its last) and,
    given ``end`` (the consistent multipliers at the last row, for a complete run), its last row.

    The energies, momenta and residuals are computed over all rows of the chunk, row 0 included, so
    over two rows at least (``two_rows``)."""
    model, dt = setup.model, settings.step
    skip = 0 if chunk.start == 0 else 1
    rows = slice(skip, chunk.rows + 1)
    t = np.arange(chunk.start, chunk.start + chunk.rows + 1) * dt
    whole = slice(0, chunk.rows + 1)
    Q, V, times = two_rows(chunk.Q[whole]), two_rows(chunk.V[whole]), two_rows(t)
    states = chunk.history * (2 if len(chunk.history) == 1 else 1)
    kinetic, momentum, angular = model.kinetic_momenta(Q, V)
    derived = dict(residual=model.residual_history(Q, times, setup.active_rows), kinetic=kinetic,
                   potential=model.potential_history(Q, states), momentum=momentum, angular_momentum=angular)
    count = chunk.rows + 1 - skip
    k = chunk.rows
    nodes = node_multipliers(chunk.before, chunk.Lam[:k], settings.integrator != GENERALIZED_ALPHA, chunk.start == 0)
    node_t, node_q = t[:k], chunk.Q[:k]
    if end is not None:
        node_t, node_q, nodes = t[: k + 1], chunk.Q[: k + 1], np.concatenate([nodes, end[None]])
    r = Results(
        t=t[skip:], q=chunk.Q[rows], v=chunk.V[rows], inputs=chunk.inputs[: chunk.rows],
        iterations=chunk.iterations[rows], work=chunk.work[rows], dissipation=chunk.dissipation[rows],
        **{name: values[skip: skip + count] for name, values in derived.items()},
        complete=complete, message=message, dropped=setup.dropped, integrator=settings.integrator,
        factorisations=factorisations, mid_times=None if chunk.start == 0 else 0.5 * (t[1:] + t[:-1]),
        initial_total=initial_total, step=dt, node_t=node_t, node_q=node_q, node_lam=nodes)
    size = max(1.0, float(np.abs(setup.q0).max(initial=0.0)))
    problem = _first_problem(r, settings.tolerance, size) if len(r.t) else None
    if problem is None:
        return r
    keep, message = problem
    steps = max(0, skip + keep - 1)  # the steps whose end rows are kept
    known = max(0, skip + keep - 1)  # the nodes completed by the steps kept (node_multipliers)
    cut = {name: getattr(r, name)[:keep] for name in ("t", "q", "v", "iterations", "residual", "kinetic",
                                                      "potential", "work", "dissipation", "momentum",
                                                      "angular_momentum")}
    return Results(**cut, inputs=r.inputs[:steps], complete=False, message=f"{message}; the run is stopped",
                   dropped=r.dropped, integrator=r.integrator, factorisations=factorisations,
                   mid_times=None if r.mid_times is None else r.mid_times[:steps], initial_total=initial_total,
                   step=dt, node_t=node_t[:known], node_q=node_q[:known], node_lam=nodes[:known])


def _consistent(stepper, t, q, v, states):
    """The consistent multipliers (m,) at (q, v, t) (``SaddleSystem.consistent``): a run's first and
    last node's (``node_multipliers``); None where [[M, G^T], [G, 0]] is singular (a massless part that
    the constraints do not hold, which the steps' matrices may still hold through their tangents)."""
    lam = stepper.consistent(t, q, v, states)[1]
    return lam if np.isfinite(lam).all() else None


class _Calls:
    """The number of steps of the next compiled call (``stepping``): as many as take about ``SECONDS``
    of wall time (the interrupt, the progress and the output wait for a call), from 8, at most
    ``MOST``; after a call that did no step (the step refused, done again step by step) the next
    1, 2, 4, .. up to ``MOST_WAITING`` steps go step by step. The numbers do not depend on it: a step
    computes the same in any call or alone."""

    SECONDS, MOST, MOST_WAITING = 0.05, 1024, 64

    def __init__(self):
        self.size, self.waiting, self.wait = 8, 0, 0

    def next(self):
        """Whether the next step goes to a compiled call."""
        if self.waiting:
            self.waiting -= 1
            return False
        return True

    def took(self, seconds, steps):
        """A call of ``seconds`` that did ``steps`` steps."""
        if not steps:
            self.wait = self.waiting = min(self.MOST_WAITING, 2 * self.wait or 1)
            return
        self.wait = 0
        if steps == self.size:
            self.size = min(self.MOST, max(1, int(self.size * min(4.0, self.SECONDS / max(seconds, 1e-6)))))


def simulate(setup, settings, progress=None, output=None, resume=None):
    """Integrate the model of ``setup`` (``setup.prepare``) from t = 0 to ``settings.t_end`` in
    ``settings.steps`` equal steps no larger than ``settings.dt`` (``settings.SolverSettings``); returns
    ``Results``, marked incomplete (with the reason) if Newton fails, a step is no solution (module
    docstring) or the run is interrupted, holding the steps computed up to there. ``settings.integrator``:
    "energy-momentum" (000, 001: conserves energy and momenta) or "generalized-alpha" (Arnold & Bruls
    2007, index 3, with the spectral radius ``settings.rho_inf`` in [0, 1] at infinite frequency: smaller
    values damp high frequencies more; 1 has no numerical dissipation but is only weakly stable on
    constrained systems, see ``generalized_alpha``). ``progress``: an object with ``update(step, t)``,
    told after every step.

    ``output``: where the history goes in chunks (module docstring), an object with ``capacity(n)``
    (the most steps of a chunk of n coordinates), ``due()`` (asked after every step: time to give out a
    chunk, or to stop), ``stopping`` (true: a stop was asked for, the run ends here as interrupted) and
    ``write(chunk, checkpoint)`` (a ``Results`` and the ``Checkpoint`` after its last row; None where the
    run cannot go on from there: a bad row, or a KeyboardInterrupt that may have struck inside a step).
    Then the last chunk is returned.
    ``resume``: a ``Checkpoint`` to continue from instead of the initial state.
    ``settings`` are taken as checked for the model (``SolverSettings.check_model``, which
    ``casefile.case.load_case`` and ``studies.run.checked_settings`` apply)."""
    model = setup.model
    steps, dt, options = settings.steps, settings.step, settings.newton_options
    alpha = settings.integrator == GENERALIZED_ALPHA
    if alpha:
        stepper = GeneralizedAlpha(model, dt, setup.active_rows, options, settings.rho_inf)
    else:
        stepper = EnergyMomentum(model, dt, setup.active_rows, options)
    if resume is None:
        start = (0, setup.q0.copy(), setup.v0.copy(), np.zeros(model.m), model.initial_states(setup.q0), 0.0, 0.0)
        before = _consistent(stepper, 0.0, *start[1:3], start[4])  # the first node's multipliers
        initial_total = None
    else:
        try:
            stepper.restore(resume.solver)
        except (ValueError, KeyError, IndexError, TypeError) as err:  # a checkpoint damaged or of another run
            raise CheckpointError(f"its solver state does not fit this run ({err})") from None
        start = (resume.step, resume.q.copy(), resume.v.copy(), resume.lam.copy(), resume.states, resume.work,
                 resume.dissipation)
        initial_total = resume.initial_total
        before = resume.lam  # the last step's multipliers
    first, q, v, lam, states = start[:5]
    capacity = steps - first if output is None else max(1, min(steps - first, output.capacity(model.n)))
    chunk = _Chunk(model, capacity, *start, before)
    complete, message, clean = True, "", True
    batch = (AlphaSteps if alpha else MidpointSteps).of(stepper)  # many steps per compiled call (``stepping``)
    calls = _Calls()
    try:
        k = first
        while k < steps:
            done, due = 0, None
            if batch is not None and calls.next() and batch.ready(chunk, k):
                size, due = min(calls.size, steps - k, len(chunk.inputs) - chunk.rows), False
                if output is not None:  # asked for each step as step by step: the call ends where a chunk is due
                    for j in range(size):
                        if output.due():
                            size, due = j + 1, True
                            break
                start_call = time.perf_counter()
                done = batch.run(chunk, k, size, states)
                calls.took(time.perf_counter() - start_call, done)
            if done:
                q, v, lam, states = chunk.Q[chunk.rows], chunk.V[chunk.rows], chunk.lam, chunk.history[-1]
                k += done
            else:
                try:
                    r = stepper.step(k * dt, q, v, lam, states)
                except NewtonFailure as failure:  # named by the load whose function is not finite, if one is
                    times = (k * dt, (k + 0.5) * dt, (k + 1) * dt)
                    complete, message = False, nonfinite_load(model, times) or str(failure)
                    break
                if not (np.isfinite(r.q).all() and np.isfinite(r.v).all()):
                    complete = False
                    message = f"the state (q, v) is not finite after the step to t = {(k + 1) * dt:.6g}"
                    break
                chunk.add(r, -(0.5 * (r.lam_start + r.lam) if alpha else r.lam)[model.input_rows])
                q, v, lam, states = r.q, r.v, r.lam, r.states
                k += 1
            if progress is not None:
                progress.update(k, k * dt)
            if output is not None and ((output.due() if due is None else due) or chunk.full):
                if output.stopping:
                    complete, message = False, f"interrupted at t = {k * dt:.6g}"
                    break
                if k < steps:
                    part = _results(setup, settings, chunk, initial_total, True, "", stepper.factorisations)
                    initial_total = part.total[0] if initial_total is None else initial_total
                    output.write(part, chunk.checkpoint(initial_total, stepper.state()) if part.complete else None)
                    if not part.complete:
                        return part
                    chunk = _Chunk(model, min(capacity, steps - k), k, q, v, lam, states,
                                   chunk.work[chunk.rows], chunk.dissipation[chunk.rows], lam)
    except KeyboardInterrupt:  # raised anywhere, even inside a step: the stepper's state may be half-way
        complete, message, clean = False, f"interrupted at t = {(chunk.start + chunk.rows) * dt:.6g}", False
    end = None
    if complete:  # the last node's multipliers: the consistent ones of its state
        k = chunk.rows
        end = _consistent(stepper, (chunk.start + k) * dt, chunk.Q[k], chunk.V[k], chunk.history[k])
        if end is None and k:
            end = chunk.Lam[k - 1]  # the last step's (first order)
    done = _results(setup, settings, chunk, initial_total, complete, message, stepper.factorisations, end)
    if output is not None:
        initial_total = done.total[0] if initial_total is None and len(done.t) else initial_total
        resumable = clean and done.message == message  # not cut short by a bad row
        output.write(done, chunk.checkpoint(initial_total, stepper.state()) if resumable else None)
    return done
