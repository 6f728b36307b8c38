"""Newton's iteration of the time steppers: options, stopping tests and the iteration itself.

Both steppers (``energy_momentum``, ``generalized_alpha``) solve R(q_n+1, lam) = 0 in every step with
the Newton matrix assembled into a fixed pattern and factorised by KLU (``linalg``); ``Newton`` runs
that iteration for them. With ``NewtonOptions.modified`` it is the simplified (modified) Newton method:
the matrix factorised in a step's first iteration is kept for the step's other iterations, which
evaluate only the residual, and is factorised anew only where the iteration stops contracting fast
enough (``Newton``).

The per-iteration work after the residual is compiled (``kernels``): KLU's refactorisation (or, where
KLU refuses it, the factorisation with pivots chosen anew, ``numerics.klu.factor``) and the solve and
update in one call (``refactor_solve``), the first solve's refinement (``first_solve``) and
the stopping test (``converged``); where the residual is compiled too, the whole iteration, full or
simplified (``newton_loop``), which returns here only where it cannot go on.
"""
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from ..numerics.lazy import compiled
from ..numerics.linalg import SingularMatrixError

KERNELS = __package__ + ".kernels"  # numba: imported where the iteration runs


class NewtonFailure(RuntimeError):
    def __init__(self, time, residual, iterations, reason, servos=()):
        self.time, self.residual, self.iterations, self.reason = time, residual, iterations, reason
        hint = "Try a smaller dt, or check the initial configuration and the loads."
        if servos:
            hint += (f" The servo constraints ({', '.join(servos)}) may ask for a pose outside the "
                     "workspace or through a singular one there.")
        super().__init__(f"Newton failed in the step to t = {time:.6g} after {iterations} iterations "
                         f"({reason}; residual {residual:.3e}). {hint}")


# Steps of iterative refinement of the first Newton solve of a step (``FixedPatternLU.solve``). Its
# increment is the large one: a solve with relative error e leaves e |dq_1| for the next iteration
# (N = 4096 beam elements: e = 2e-3, increments 3e-5, 6e-8, .. instead of 3e-5, 1e-9, ..), while the
# later, small increments carry that error far below the tolerance.
# A kept factorisation is not refined again: the simplified iteration corrects its error along with
# the matrix's own. Where the refinement changes nothing (small, well-conditioned systems) it is paused
# (``Newton._first_solve``).
FIRST_SOLVE_REFINEMENT = 1


NEWTON_METHODS = ("full", "modified")  # the choices of a case's solver.newton and of --newton


@dataclass
class NewtonOptions:
    tolerance: float = 1e-10  # on the error of q_n+1, relative to max(1, |q|_inf): see ``newton_converged``
    max_iterations: int = 25
    early_stop: bool = False  # generalized-alpha only: ``QuadraticStop``
    modified: bool = False  # simplified Newton: a step's first factorisation serves its iterations (``Newton``)


def newton_converged(increment, previous, bound):
    """Newton's stopping test on the increments |dq_k|_inf (``increment``) and |dq_k-1|_inf
    (``previous``, None in the first iteration), E. Hairer, G. Wanner, Solving Ordinary Differential
    Equations II, 2nd ed., Springer 1996, sec. IV.8, eqs. (8.10)-(8.11): with the observed contraction
    Theta = |dq_k| / |dq_k-1| < 1 the error left in q_k is at most Theta / (1 - Theta) |dq_k|, and the
    iteration stops when that bound, or |dq_k| itself, is below ``bound`` (the tolerance times
    max(1, |q|_inf), ``Newton.solve``).

    Compiled as ``kernels.converged``.

    Testing the estimated error instead of the last increment saves the iteration that only confirms
    convergence (quadratic convergence with |dq| = 3e-5, 1e-9 leaves an error of about 1e-13 after the
    second iteration), and that iteration is the costly one on fine meshes: with 4096 beam elements the
    round-off of the elastic forces (EI / h^3 of 1e13 N/m times q) alone moves q by about 1e-10, the
    default tolerance, so an increment test there wanders at the round-off level for several more
    iterations (benchmarks/README.md, "Scaling and memory").
    """
    return compiled(KERNELS).converged(increment, -1.0 if previous is None else previous, bound)


ROUND_OFF = 64 * np.finfo(float).eps  # relative size of an increment that measures only round-off
# ``kernels.early_stop``'s ``stop`` of no early stop (``QuadraticStop.loop_arguments``' types)
NO_STOP = (False, False, 0.0, 1, 0.0, np.zeros(0), np.zeros(1, dtype=np.int64))


class QuadraticStop:
    """Newton's convergence test with an early stop under quadratic convergence.

    Converged when the increment is at most ``limit``, or when ``safety C |dx|^2 <= limit``: with
    quadratic convergence the next increment is |dx_k+1| <= C |dx_k|^2, C being the largest ratio
    |dx_k+1| / |dx_k|^2 measured over the last ``window`` pairs of iterations (increments at the
    round-off ``floor`` measure nothing and are left out). Every ``refresh``-th step (and every step
    until a ratio is known) runs to the plain test, so C stays measured; a Newton that converges only
    linearly shows a large C and is never stopped early. Inside ``kernels.newton_loop`` the same test
    is ``kernels.early_stop`` (``loop_arguments``, ``loop_ended``)."""

    def __init__(self, safety=10.0, window=32, refresh=16):
        self.safety, self.refresh = safety, refresh
        self.ratios = deque(maxlen=window)
        self.steps, self.previous, self.measuring = 0, None, True

    def state(self):
        """What the next steps' decisions depend on between steps (``time_loop.Checkpoint``): the
        measured ratios and the step count; ``restore`` continues from it."""
        return {"stop.ratios": np.array(self.ratios, dtype=float), "stop.steps": self.steps}

    def restore(self, state):
        self.ratios.clear()
        self.ratios.extend(state["stop.ratios"].tolist())
        self.steps = int(state["stop.steps"])

    def begin_step(self):
        self.steps += 1
        self.previous = None
        self.measuring = not self.ratios or self.steps % self.refresh == 0

    def converged(self, size, limit, floor):
        if self.previous and size > floor:
            self.ratios.append(size / (self.previous * self.previous))
        self.previous = size
        if size <= limit:
            return True
        return not self.measuring and self.safety * max(self.ratios) * (size * size) <= limit

    def loop_arguments(self, floor: float, iterations: int) -> tuple:
        """``kernels.early_stop``'s ``stop`` for a step of at most ``iterations`` iterations in
        ``kernels.newton_loop`` (from the start of a step); ``loop_ended`` takes its record back."""
        ratios = np.empty(len(self.ratios) + iterations)
        ratios[: len(self.ratios)] = self.ratios
        return (True, self.measuring, float(self.safety), self.ratios.maxlen, float(floor), ratios,
                np.array([len(self.ratios)], dtype=np.int64))

    def loop_ended(self, stop: tuple, increment: float) -> None:
        """Takes the ratios that ``newton_loop`` measured with ``stop`` (``loop_arguments``) and its
        last increment (< 0: none), as if ``converged`` had been called in its iterations."""
        _, _, _, _, _, ratios, count = stop
        self.ratios.extend(ratios[len(self.ratios) : count[0]].tolist())
        self.previous = None if increment < 0.0 else increment


class Newton:
    """Newton's iteration for one stepper with the factorisation ``lu`` of its fixed pattern; the unknowns
    are the n coordinates, then the multipliers of the ``active`` rows, scaled by ``scale``.

    Full Newton (default) assembles and factorises the Newton matrix in every iteration and stops by
    ``newton_converged``. Simplified Newton (``options.modified``; Hairer & Wanner, sec. IV.8, the
    iteration (8.6) with the matrix of the step's start; P. Deuflhard, Newton Methods for Nonlinear
    Problems, Springer 2004, sec. 2.1.4) assembles and factorises the matrix in a step's first
    iteration, at the predictor, and keeps that factorisation for the step's later iterations, which
    evaluate only the residual (the beams' forces without their tangents, no refactorisation). The
    iteration then contracts linearly by Theta = |dq_k+1| / |dq_k|, about C |dq_1| for a predictor
    |dq_1| from the solution (1e-4 to 1e-3 on the flexible pendulums of benchmarks/exudyn_compare.py
    at dt = 1.25e-3), so the second increment is already about as small as full Newton's. It stops on
    the increment itself, |dq_k| <= tolerance max(1, |q|), for an increment of the kept matrix: its
    contraction alternates (1e-4, then 0.3 on the pendulum of tests/units/test_modified_newton.py), so
    the two-increment estimate of ``newton_converged`` stopped with errors up to 128 times the
    tolerance, the increment test never above 0.055 times it (the estimate from two residual-only
    increments holds on the pendulums of benchmarks/exudyn_compare.py and saves 0.3 of 3.3 iterations per
    step at dt = 1.25e-3, but generalized-alpha's runs then no longer hold their constraints to round-off:
    benchmarks/README.md, "Issue 37: simplified Newton's stop"); the estimate is used for an increment of
    a matrix just factorised at that iterate, as in full Newton. A step takes 2.7-3.4 iterations and
    about one factorisation against full Newton's two of each (benchmarks/README.md). Where an
    increment is more than ``REFRESH_CONTRACTION`` times the one before the matrix is assembled and
    factorised at the next iterate; an increment no smaller than the one before is not taken (q and
    the multipliers stay as they were) and the matrix is factorised at the iterate it started from,
    where full Newton would have factorised it -- on the free beam spinning at 0.03 rad per step
    (tests/units/test_modified_newton.py) taking such an increment let the iteration diverge.

    The factorisation is not kept across steps: a matrix from an earlier step contracts poorly on a
    moving flexible body -- the axial stiffness EA/l, some 3000 times the beam's mass terms
    beta' rho A l at dt = 1.25e-3, turns with the body, so a turn of 2.5 mrad per step couples
    forces into bending larger than those terms (measured: contractions of 0.2-1 per iteration,
    4.3 iterations and 1.6-1.8 factorisations per step) -- and its error estimate does not hold:
    the error moved between the carriers and the elastic coordinates (increments 3.4e-5, 2.2e-8,
    2.0e-8, 2.3e-11 with errors 2.2e-8, 2.0e-8, 1.6e-11, 1.8e-11). Nor does a rule that keeps it
    only while it contracts pay (benchmarks/README.md, "Keeping the factorisation across steps"): on
    the spatial pendulum a matrix one step old contracts by 0.13-0.38 on average, and the best rule
    measured (a matrix serves at most two steps) saves one factorisation for 14 residual-only
    iterations, where a factorisation with its tangent and assembly costs 6-8.
    """

    REFRESH_CONTRACTION = 0.1
    REFINEMENT_PAUSE = 15

    def _first_solve(self, R, bound):
        """The first solve with a new factorisation, x = -A^-1 R, refined (``FIRST_SOLVE_REFINEMENT``)
        unless the refinement has been found to change nothing: where its correction is below 1e-3 times the
        tolerance ``bound`` (the 3-PRR: at most 7e-15 against 1e-10), the next ``REFINEMENT_PAUSE``
        first solves go unrefined as long as the relative error measured then, times their solution,
        stays below that too; the one after them measures again."""
        lu = self.lu
        return self._kernels.first_solve(lu.handles, R, bound, self._refinement, FIRST_SOLVE_REFINEMENT,
                                         self.REFINEMENT_PAUSE, *lu.pattern, lu.current)  # compiled

    def __init__(self, options, lu, active, scale, servos):
        self.options, self.lu = options, lu
        self.scale, self.servos = float(scale), servos
        self.active = np.ascontiguousarray(active, dtype=np.int64)
        self._kernels = None  # ``KERNELS``, looked up in the first iteration
        # (first solves that may go without refinement, the relative error of an unrefined solve measured
        # by the last refinement): ``_first_solve``
        self._refinement = np.zeros(2)

    def state(self):
        """What the iteration carries from one step to the next besides the factorisation (which the
        ``lu``, a ``kept_lu.KeptLU``, saves itself): the refinement pause of ``_first_solve``. With
        ``restore`` a resumed run takes the same decisions as one that did not stop
        (``time_loop.Checkpoint``)."""
        return {"newton.unrefined": int(self._refinement[0]),
                "newton.relative_error": float(self._refinement[1]), **self.lu.state()}

    def restore(self, state):
        self.lu.restore(state)
        self._refinement[:] = int(state["newton.unrefined"]), float(state["newton.relative_error"])

    def solve(self, system, qb, lam, t1, stop=None, compiled_loop=None):
        """Iterates from (qb, lam) until converged; ``system(qb, lam, tangents)`` gives the residual and
        (with ``tangents``) the Newton matrix's CSC data on the fixed pattern of ``lu``; ``stop``: an optional
        ``QuadraticStop``. Returns (qb, lam, iterations); lam (all m multipliers) is updated in place.

        ``compiled_loop``: a function that gives the system's arguments of ``kernels.newton_loop`` (a
        tuple; called only where the loop runs), the same iteration compiled whole (with ``stop``
        evaluated inside, ``kernels.early_stop``): it runs once a factorisation exists to refactor --
        from a run's first step on, whose Newton matrices take their first pivots from the consistent
        start (``kept_lu.KeptLU.start``) --, and the iteration goes on here from where it returns (a
        singular matrix, a residual not finite). KLU's refusals of a refactorisation are taken inside:
        it pivots anew there."""
        options, kernels = self.options, self._kernels
        if kernels is None:
            kernels = self._kernels = compiled(KERNELS)
        fresh, previous = True, None  # the step's first iteration assembles and factorises the matrix
        # the tests' scale max(1, |q|_inf), taken once per step: the increments move q by far less than
        # it (1e-5 against 1 in a step of the 3-PRR), and each maximum over q costs as much as a product
        size = max(1.0, np.abs(qb).max())
        bound, floor = options.tolerance * size, ROUND_OFF * size
        first = 1
        if compiled_loop is not None and self.lu.refactorable:
            lu = self.lu
            early = NO_STOP if stop is None else stop.loop_arguments(floor, options.max_iterations)
            how, first, qb, increment, count, values, R = kernels.newton_loop(
                *compiled_loop(), qb, lam, bound, options.max_iterations, *lu.pattern, lu.handles, lu.rcond,
                lu.pivoting(), self.active, self.scale, self._refinement, FIRST_SOLVE_REFINEMENT,
                self.REFINEMENT_PAUSE, options.modified, self.REFRESH_CONTRACTION, early)
            if stop is not None:
                stop.loop_ended(early, increment)
            if count:
                lu.refactored(values)
            if how == kernels.CONVERGED:
                return qb, lam, first
            if how == kernels.LIMIT:
                raise NewtonFailure(t1, np.abs(R).max(), options.max_iterations,
                                    "no convergence within the iteration limit", self.servos)
            previous = None if increment < 0 else increment
        for it in range(first, options.max_iterations + 1):
            R, values = system(qb, lam, fresh)
            if not math.isfinite(R @ R):  # one product for the test of every entry; |R| > 1e154 counts as infinite
                raise NewtonFailure(t1, np.inf, it, "the residual is not finite", self.servos)
            if fresh:
                if self.lu.refactorable:  # refactored (pivoted anew where KLU refuses) and solved in one compiled call
                    lu = self.lu
                    factored, q, increment = kernels.refactor_solve(
                        *lu.pattern, values, lu.handles, lu.rcond, lu.pivoting(), R, qb, lam, self.active,
                        self.scale, it == 1, bound, self._refinement, FIRST_SOLVE_REFINEMENT, self.REFINEMENT_PAUSE)
                    if not factored:
                        raise NewtonFailure(t1, np.abs(R).max(), it, "singular Newton matrix", self.servos)
                    lu.refactored(values)
                    qb = q
                else:  # the first factorisation
                    try:
                        self.lu.factor(values)
                    except SingularMatrixError:
                        raise NewtonFailure(t1, np.abs(R).max(), it, "singular Newton matrix", self.servos) from None
                    if it == 1:
                        qb, increment = kernels.update(qb, lam, self._first_solve(R, bound), self.active, self.scale)
                    else:
                        qb, increment = kernels.solve_update(self.lu.handles, R, qb, lam, self.active, self.scale)
            else:
                kept = lam.copy()
                q, increment = kernels.solve_update(self.lu.handles, R, qb, lam, self.active, self.scale)
                if not increment < previous:  # no contraction: the iterate is dropped, the matrix made anew here
                    lam[:] = kept
                    fresh = True
                    continue
                qb = q
            last = -1.0 if previous is None else previous  # ``newton_converged``'s kernel takes -1 for none
            if ((stop is not None and stop.converged(increment, bound, floor))
                    or increment <= bound or (fresh and kernels.converged(increment, last, bound))):
                return qb, lam, it
            if options.modified:  # the kept matrix while the iteration contracts fast enough
                fresh = previous is not None and increment > self.REFRESH_CONTRACTION * previous
            previous = increment
        raise NewtonFailure(t1, np.abs(R).max(), options.max_iterations,
                            "no convergence within the iteration limit", self.servos)
