"""Convergence studies: observed orders of accuracy under refinement in the time step (any case), in
the elements of the beams of a case, and in the elements of a beam (natural frequencies of the Hermite
Euler-Bernoulli cantilever).

``refinement_study(case, quantities)`` runs a case at dt, dt/2, dt/4, ... (or given steps), reads the
chosen outputs at the final time (or at a given step node) and measures their errors against a
reference: Richardson extrapolation of two finer runs (default), the finest of two finer runs, an
exact value, or successive differences of the study's own runs. ``element_study(make_case, elements,
quantities)`` does the same with n, 2n, 4n, ... elements per beam at one time step (the reference runs
with 2 and 4 times the finest mesh). The runs use the case's integrator and Newton options. Observed
orders are ``p_k = log(e_k / e_k+1) / log(h_k / h_k+1)`` (``log2(e_k / e_k+1)`` when h halves). Errors
that sit at round-off or do not decrease under refinement cannot support an order: the study names the
quantity and the reason (``ConvergenceError``, a ``ValueError``).

Quantities (``quantity_names(model, probes)`` lists them for a model and the probes of its case):

- ``NAME``: a joint coordinate (augmented joint angle or slide), e.g. ``theta``;
- ``BODY.x``, ``BODY.y``, ``BODY.z``: a component of a body's centre; ``BODY.angle`` (2D): its angle,
  continuous in time;
- ``PROBE.x``, ``PROBE.y``, ``PROBE.z``, ``PROBE.angle`` (2D) of a probe of the case (a material point,
  ``[[probes]]``): its deformed position and orientation, e.g. an end effector on a flexible link; on a
  flexible body also ``PROBE.elastic_x``, ``PROBE.elastic_y`` (the world-frame elastic displacement) and
  ``PROBE.elastic_angle`` (the section rotation theta(X)), the columns of ``probes.csv``
  (``io.probes``, 003 eq. 4);
- ``input:NAME``: the servo input (torque or force) on the actuated coordinate ``NAME``. Inputs are
  per step, at the mid-times; at an inner step node the value is the mean of the two neighbouring
  mid-step values, at the first and the last node the linear extrapolation of the two nearest ones
  (``1.5 u_N - 0.5 u_N-1``); both are second-order accurate at the node;
- ``energy_error``: ``max |H - H0 - W|`` up to the reading time. Its exact value is 0 (the discrete
  energy balance of 001 eq. 14), which is always its reference; for the energy-momentum scheme it sits
  at round-off and no order can be observed, which the study reports.

Round-off: an error ``e`` of a run with ``N`` steps is taken to be round-off when
``e <= ROUNDOFF * eps * scale * sqrt(N)`` (``ROUNDOFF = 1e3``): ``scale`` is the largest magnitude
of the quantity over the finest run's history (for ``energy_error`` the largest of T + |V|, |W| and D)
and ``sqrt(N)`` allows for round-off accumulated over the steps. For beam frequencies (relative errors
of one eigen-solve) the floor is ``ROUNDOFF * eps``. Newton stops where its error in q is below
``solver.tolerance x max(1, |q|_inf)``; errors of coordinates, positions and angles that are not above
that bound are named in a note of the study (the nonlinear solve may have set them), but still give
orders: Newton's actual error is usually far smaller than its bound.

The command ``femdyn bench convergence CASE [--refine elements]`` is ``convergence_benchmark``: run,
print the table, write ``convergence.txt``, ``convergence.json`` and ``convergence.png``
(``write_study``).
"""
import json
import math
import sys
import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..integrators.newton import NewtonOptions
from ..integrators.setup import prepare
from ..integrators.time_loop import check_run, simulate, step_count
from ..io.progress import Progress
from ..model.errors import ModelError

ROUNDOFF = 1e3  # errors below ROUNDOFF * eps * scale (* sqrt(steps)) are round-off
EPS = np.finfo(float).eps
REFERENCES = ("richardson", "finest", "differences")
INPUT_PREFIX = "input:"
ENERGY = "energy_error"
CANTILEVER_BETA_L = (1.875104068711961, 4.694091132974175, 7.854757438237613)
FILES = {"table": "convergence.txt", "json": "convergence.json", "plot": "convergence.png"}


class ConvergenceError(ValueError):
    """The data cannot support an observed order (errors at round-off, errors that do not decrease
    under refinement, too few levels) or a run of the study failed; ``str`` is one line. ``study``
    is the ``Study`` it concerns, when there is one."""

    def __init__(self, message, study=None):
        super().__init__(message)
        self.study = study


# --- orders -----------------------------------------------------------------------------------

def _ratios(h, errors):
    """Raw observed orders log(e_k/e_k+1) / log(h_k/h_k+1) (nan where an error is not positive)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(errors > 0, errors, np.nan)
        return np.log(e[:-1] / e[1:]) / np.log(h[:-1] / h[1:])


def _diagnose(h, errors, floors, name="error", parameter="h"):
    """Raw orders and the reason why they do not give an observed order (None if they do)."""
    h, errors = np.asarray(h, dtype=float), np.asarray(errors, dtype=float)
    floors = np.broadcast_to(np.asarray(floors, dtype=float), errors.shape)
    if h.ndim != 1 or h.shape != errors.shape:
        raise ValueError(f"need one {parameter} per error, got {h.size} {parameter} and {errors.size} errors")
    if not (np.all(np.isfinite(h)) and np.all(h > 0)):
        raise ValueError(f"{parameter} must be positive numbers, got {h.tolist()}")
    if np.any(np.diff(h) >= 0):
        raise ValueError(f"{parameter} must decrease strictly from level to level, got {h.tolist()}")
    if h.size < 2:
        return np.zeros(0), (f"{name}: too few levels: {h.size} error value gives no order "
                             f"(need errors at 2 or more refinement levels)")
    if not np.all(np.isfinite(errors)):
        bad = int(np.argmin(np.isfinite(errors)))
        return _ratios(h, errors), f"{name}: the error at {parameter} = {h[bad]:.6g} is not finite"
    errors = np.abs(errors)
    orders = _ratios(h, errors)
    low = np.flatnonzero(errors <= floors)
    if low.size:
        k = int(low[0])
        every = " (every level is: the scheme reproduces this quantity to round-off)"
        return orders, (f"{name}: errors at round-off: {errors[k]:.3g} at {parameter} = {h[k]:.6g} is not "
                        f"above the round-off level {floors[k]:.3g}; no order can be observed"
                        + (every if np.all(errors <= floors) else ""))
    up = np.flatnonzero(errors[1:] >= errors[:-1])
    if up.size:
        k = int(up[0])
        return orders, (f"{name}: non-monotone refinement: the error does not decrease from "
                        f"{errors[k]:.3g} at {parameter} = {h[k]:.6g} to {errors[k + 1]:.3g} at "
                        f"{parameter} = {h[k + 1]:.6g}; no order can be observed")
    return orders, None


def observed_orders(h, errors, scale=None, roundoff=ROUNDOFF, counts=None, name="error"):
    """Observed orders ``log(e_k / e_k+1) / log(h_k / h_k+1)`` of errors ``errors`` at the strictly
    decreasing refinement parameters ``h`` (any ratios; ``log2(e_k/e_k+1)`` when h halves).

    Raises ``ConvergenceError`` when the errors cannot support an order: fewer than 2 levels, an
    error at round-off (``e_k <= roundoff * eps * scale * sqrt(counts_k)``; without ``scale`` only
    zero errors count as round-off), or errors that do not decrease strictly. ``counts``: steps of
    each run (round-off accumulated over a run), default 1. ``ValueError`` for ``h`` that is not
    positive and strictly decreasing."""
    errors = np.asarray(errors, dtype=float)
    counts = np.ones(errors.shape) if counts is None else np.asarray(counts, dtype=float)
    floors = 0.0 if scale is None else roundoff * EPS * abs(scale) * np.sqrt(np.maximum(counts, 1.0))
    orders, reason = _diagnose(h, errors, floors, name)
    if reason:
        raise ConvergenceError(reason)
    return orders


def fitted_order(h, errors):
    """Slope and intercept of the least-squares line ``log e = p log h + c`` (natural logarithms)."""
    slope, intercept = np.polyfit(np.log(np.asarray(h, float)), np.log(np.asarray(errors, float)), 1)
    return float(slope), float(intercept)


# --- the study --------------------------------------------------------------------------------

@dataclass
class Study:
    """A refinement study: runs at ``h`` (time steps, or element lengths), the quantities' values
    there, their errors (at ``error_h``: the runs' h, or for successive differences the coarser h
    of each pair), the raw observed orders (``orders[k]`` between error levels k and k+1), the
    least-squares slope of log e over log h and, per quantity, the reason no order can be observed
    (``problems``, empty when every quantity has one)."""

    title: str
    parameter: str  # "dt" or "h"
    count_label: str  # "steps" or "elements"
    h: np.ndarray  # (L,)
    counts: np.ndarray  # (L,) steps of each run or elements per body
    quantities: list
    descriptions: list
    values: np.ndarray  # (L, nq)
    reference: str  # how the errors were measured
    reference_values: np.ndarray | None  # (nq,), None for successive differences
    error_h: np.ndarray  # (E,)
    errors: np.ndarray  # (E, nq)
    floors: np.ndarray  # (E, nq) round-off levels
    orders: np.ndarray  # (E - 1, nq) raw observed orders
    fitted: np.ndarray  # (nq,) least-squares slope; nan for a quantity with a problem
    problems: dict = field(default_factory=dict)  # quantity -> one-line reason
    error_label: str = "error"
    time: float | None = None  # reading time (time studies)
    wall_time: np.ndarray | None = None  # (L,) seconds per run
    notes: list = field(default_factory=list)

    def order(self, quantity):
        """The observed orders of ``quantity``; ``ConvergenceError`` if the data cannot support one."""
        if quantity not in self.quantities:
            raise ValueError(f"no quantity '{quantity}' in this study (it has {', '.join(self.quantities)})")
        if quantity in self.problems:
            raise ConvergenceError(self.problems[quantity], self)
        return self.orders[:, self.quantities.index(quantity)]

    def check(self):
        """Raise ``ConvergenceError`` (all reasons on one line) if any quantity has no order."""
        if self.problems:
            raise ConvergenceError("; ".join(self.problems.values()), self)
        return self

    def table(self):
        """The study as printed text: one block per quantity."""
        at = f" at t = {self.time:.6g}" if self.time is not None else ""
        lines = [f"convergence study: {self.title}", f"reference: {self.reference}", *self.notes]
        width = max(9, len(self.error_label))
        for j, (name, what) in enumerate(zip(self.quantities, self.descriptions)):
            header = (f"{self.parameter:>12} {self.count_label:>9} {'value':>22} "
                      f"{self.error_label:>{width}} {'order':>6}")
            lines += ["", f"{name} ({what}){at}", header]
            e_index = {float(h): k for k, h in enumerate(self.error_h)}
            for i, h in enumerate(self.h):
                k = e_index.get(float(h))
                error = f"{self.errors[k, j]:.3e}" if k is not None else "-"
                order = "-"
                if k is not None and k > 0:
                    pair = self.errors[k - 1: k + 1, j]
                    if np.all(pair > self.floors[k - 1: k + 1, j]) and np.isfinite(self.orders[k - 1, j]):
                        order = f"{self.orders[k - 1, j]:.3f}"
                lines.append(f"{h:>12.6g} {int(self.counts[i]):>9d} {self.values[i, j]:>22.15g} "
                             f"{error:>{width}} {order:>6}")
            if self.reference_values is not None:
                lines.append(f"{'reference':>22} {self.reference_values[j]:>22.15g}")
            if name in self.problems:
                lines.append(f"no order: {self.problems[name]}")
            else:
                lines.append(f"observed order (finest pair) {self.orders[-1, j]:.3f}; "
                             f"least-squares slope {self.fitted[j]:.3f}")
        return "\n".join(lines)

    def to_dict(self):
        """JSON-ready contents."""
        def num(x):
            x = float(x)
            return x if math.isfinite(x) else None

        quantities = {}
        for j, name in enumerate(self.quantities):
            quantities[name] = {
                "description": self.descriptions[j],
                "values": [num(v) for v in self.values[:, j]],
                "reference": None if self.reference_values is None else num(self.reference_values[j]),
                "errors": [num(e) for e in self.errors[:, j]],
                "roundoff_levels": [num(e) for e in self.floors[:, j]],
                "orders": [num(p) for p in self.orders[:, j]],
                "fitted_order": num(self.fitted[j]),
                "problem": self.problems.get(name),
            }
        return {
            "title": self.title, "parameter": self.parameter, "reference": self.reference,
            "error": self.error_label, "time": self.time,
            self.parameter: [float(h) for h in self.h], self.count_label: [int(c) for c in self.counts],
            f"error_{self.parameter}": [float(h) for h in self.error_h],
            "wall_time_s": None if self.wall_time is None else [float(w) for w in self.wall_time],
            "notes": list(self.notes), "quantities": quantities, "ok": not self.problems,
        }


def _finish(study_args, values, error_h, errors, floors):
    """Orders, fits and problems for every quantity; returns a ``Study``."""
    quantities = study_args["quantities"]
    nq = len(quantities)
    orders = np.full((max(len(error_h) - 1, 0), nq), np.nan)
    fitted = np.full(nq, np.nan)
    problems = {}
    for j, name in enumerate(quantities):
        raw, reason = _diagnose(error_h, errors[:, j], floors[:, j], name, study_args["parameter"])
        orders[:, j] = raw
        if reason:
            problems[name] = reason
        else:
            fitted[j] = fitted_order(error_h, errors[:, j])[0]
    return Study(values=values, error_h=np.asarray(error_h, float), errors=errors, floors=floors,
                 orders=orders, fitted=fitted, problems=problems, **study_args)


# --- quantities of a run ----------------------------------------------------------------------

@dataclass(frozen=True)
class Quantity:
    """An output of a run: ``history(results)`` is its value at every step node."""

    name: str
    description: str
    history: object  # callable(Results) -> (N + 1,)
    scale: object  # callable(Results) -> float, the magnitude round-off is relative to
    exact_zero: bool = False  # its exact value is 0 (energy_error)
    solved: bool = True  # a coordinate, position or angle: Newton's tolerance on q bounds its error


def _node_values(mid):
    """Values at the step nodes from values at the mid-times: inner nodes the mean of the two
    neighbours, the end nodes the linear extrapolation of the two nearest (second order)."""
    mid = np.asarray(mid, dtype=float)
    if mid.size == 1:
        return np.repeat(mid, 2)
    inner = 0.5 * (mid[1:] + mid[:-1])
    return np.concatenate([[1.5 * mid[0] - 0.5 * mid[1]], inner, [1.5 * mid[-1] - 0.5 * mid[-2]]])


def quantity_names(model, probes=()):
    """Every quantity name the model and the probes (``Case.probes``) offer (module docstring)."""
    names = list(model.joint_coordinates) + _body_outputs(model) + list(_probe_outputs(model, probes))
    names += [INPUT_PREFIX + c for c in getattr(model, "inputs", [])]
    return names + [ENERGY]


def _body_outputs(model):
    """``BODY.x``, ``BODY.y`` (, ``BODY.z``) and in 2D ``BODY.angle`` of every body."""
    components = list("xyz"[: model.dim]) + (["angle"] if model.dim == 2 else [])
    return [f"{b.name}.{c}" for b in model.bodies for c in components]


PROBE_OUTPUTS = {"x": "x of", "y": "y of", "z": "z of", "angle": "orientation of",
                 "elastic_x": "elastic displacement x of", "elastic_y": "elastic displacement y of",
                 "elastic_angle": "section rotation theta of"}


def _probe_outputs(model, probes):
    """{quantity name: (probe, description)} for the outputs of the probes (name, body, point): the
    columns ``io.probes.probe_table`` gives for them."""
    if not probes:
        return {}
    from ..io.probes import probe_table

    outputs = {}
    for probe in probes:
        name, body, _ = probe
        for column in probe_table(model, [probe], np.zeros((1, model.n))):
            what = PROBE_OUTPUTS[column[len(name) + 1:]]
            outputs[column] = (probe, f"{what} probe {name} (material point of {body})")
    return outputs


def default_quantities(model):
    """Joint coordinates and servo inputs; the body centres if the model has neither."""
    names = list(model.joint_coordinates) + [INPUT_PREFIX + c for c in getattr(model, "inputs", [])]
    return names or [f"{b.name}.{a}" for b in model.bodies for a in "xyz"[: model.dim]]


def resolve_quantity(model, name, probes=()):
    """The ``Quantity`` called ``name`` in ``model`` and its case's ``probes``; ``ValueError`` naming
    the known ones otherwise, or the clash of a probe named like a body."""
    peak = lambda r: float(np.max(np.abs(history(r)))) if len(r.t) else 0.0
    probe_outputs = _probe_outputs(model, probes)
    if name in probe_outputs:
        probe, description = probe_outputs[name]
        if name in _body_outputs(model):
            raise ValueError(f"'{name}' names an output of probe {probe[0]} and of the body of that name: "
                             f"rename the probe")
        from ..io.probes import probe_table

        def history(r):
            return probe_table(model, [probe], r.q)[name]

        return Quantity(name, description, history, peak)
    if name == ENERGY:
        def energy(r):
            return np.maximum.accumulate(np.abs(r.energy_balance))

        def energy_scale(r):
            return float(max(np.max(r.kinetic + np.abs(r.potential)), np.max(np.abs(r.work)),
                             np.max(np.abs(r.dissipation))))

        return Quantity(name, "max |H - H0 - W|, exact value 0", energy, energy_scale, exact_zero=True,
                        solved=False)
    if name.startswith(INPUT_PREFIX):
        coordinate = name[len(INPUT_PREFIX):]
        inputs = list(getattr(model, "inputs", []))
        if coordinate not in inputs:
            raise ValueError(f"unknown quantity '{name}': the servo inputs are "
                             f"{', '.join(INPUT_PREFIX + c for c in inputs) or 'none (the model has no servos)'}")
        k = inputs.index(coordinate)

        def history(r):
            return _node_values(r.inputs[:, k])

        return Quantity(name, f"servo input on {coordinate}", history, peak, solved=False)
    if name in model.joint_coordinates:
        i = model.joint_coordinates[name]

        def history(r):
            return r.q[:, i]

        return Quantity(name, "joint coordinate", history, peak)
    body, _, component = name.rpartition(".")
    index = {b.name: i for i, b in enumerate(model.bodies)}
    axes = "xyz"[: model.dim]
    if body in index and (component in axes or (component == "angle" and model.dim == 2)):
        b = index[body]
        if component == "angle":
            def history(r):
                _, rotation = model.frames(r.q)
                return np.unwrap(np.arctan2(rotation[:, b, 1, 0], rotation[:, b, 0, 0]))

            return Quantity(name, f"angle of body {body}", history, peak)
        a = axes.index(component)

        def history(r):
            return model.frames(r.q)[0][:, b, a]

        return Quantity(name, f"{component} of the centre of body {body}", history, peak)
    known = quantity_names(model, probes)
    raise ValueError(f"unknown quantity '{name}' (known: {', '.join(known)})")


# --- time-step refinement ---------------------------------------------------------------------

def _case(case):
    if isinstance(case, (str, Path)):
        from ..io.case import load_case
        return load_case(case)
    return case


def _names(model, quantities):
    """The quantity names asked for (default ``default_quantities``), refused if empty or repeated."""
    names = [quantities] if isinstance(quantities, str) else list(quantities or default_quantities(model))
    if not names:
        raise ValueError("no quantities to study")
    if len(set(names)) != len(names):
        raise ValueError(f"quantities given twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
    return names


def _reference_values(reference, quantities):
    """A given reference: a number (one quantity), a sequence (one per quantity) or a mapping."""
    names = [q.name for q in quantities]
    if isinstance(reference, dict):
        missing = [n for n in names if n not in reference and not quantities[names.index(n)].exact_zero]
        if missing:
            raise ValueError(f"reference values missing for {', '.join(missing)}")
        return np.array([float(reference.get(n, 0.0)) for n in names])
    values = np.atleast_1d(np.asarray(reference, dtype=float))
    if values.ndim != 1 or values.size not in (1, len(names)) or (values.size == 1 and len(names) > 1):
        raise ValueError(f"reference must be one of {', '.join(REFERENCES)}, a number (one quantity), "
                         f"one number per quantity or a mapping quantity -> value; got {reference!r}")
    return values


def _given_reference(reference, quantities, levels, runs):
    """The exact values of a given reference (None for the named ones), after checking that the
    ``levels`` runs (described as ``runs``, e.g. "time steps") can give an observed order with it."""
    given = None
    if isinstance(reference, str):
        if reference not in REFERENCES:
            raise ValueError(f"reference must be one of {', '.join(REFERENCES)} or a value, got '{reference}'")
    else:
        given = _reference_values(reference, quantities)
    minimum = {"differences": 3}.get(reference if given is None else "", 2)
    if levels < minimum:
        raise ConvergenceError(f"too few levels: {levels} {runs} give{'s' * (levels == 1)} no observed order "
                               f"with reference '{reference if given is None else 'value'}' (need at least {minimum})")
    return given


def _reading_time(time, t_end):
    t_read = t_end if time is None else float(time)
    if not 0 < t_read <= t_end * (1 + 1e-12):
        raise ValueError(f"time must be in (0, t_end = {t_end:g}], got {time}")
    return t_read


class Run(NamedTuple):
    """What a study keeps of one run."""

    values: np.ndarray  # (nq,) the quantities at the reading time
    scales: np.ndarray  # (nq,) their magnitudes for the round-off level (``Quantity.scale``)
    seconds: float  # wall time
    bound: float  # Newton's error bound on q: tolerance x max(1, |q|_inf) (``newton.newton_converged``)


def _finer(reference, given):
    """Factors of the finest level's count (steps or elements) of the extra reference runs."""
    return {"richardson": (2, 4), "finest": (4,)}.get(reference if given is None else "", ())


def _runner(case, names, t_end, t_read, log, progress, label=""):
    """(quantities, run) for ``case``: ``run(steps)`` simulates it with dt = t_end / steps and returns
    its ``Run``. With ``progress`` each run draws a progress bar on stderr if it is a terminal."""
    model = case.model
    wanted = [resolve_quantity(model, n, getattr(case, "probes", ())) for n in names]
    options = getattr(case, "newton_options", None) or NewtonOptions(
        getattr(case, "tolerance", NewtonOptions.tolerance),
        getattr(case, "max_iterations", NewtonOptions.max_iterations))
    integrator = dict(integrator=getattr(case, "integrator", "energy-momentum"),
                      rho_inf=getattr(case, "rho_inf", 0.9))
    setup = prepare(model, case.q0, case.v0, getattr(case, "initial_tolerance", 1e-6))

    def run(steps):
        dt = t_end / steps
        node = round(t_read / dt)
        if abs(node * dt - t_read) > 1e-9 * dt:
            raise ValueError(f"time {t_read:g} is not a step node of the run with dt = {dt:.6g}")
        start = _time.perf_counter()
        with Progress(steps, f"{label}dt = {dt:.6g}", enabled=progress and sys.stderr.isatty()) as bar:
            r = simulate(model, setup, dt, t_end, options, progress=bar, **integrator)
        seconds = _time.perf_counter() - start
        if not r.complete:
            if r.message.startswith("interrupted"):
                raise KeyboardInterrupt
            raise ConvergenceError(f"the run with {label}dt = {dt:.6g} stopped early: {r.message}")
        if log:
            log(f"{label}dt = {dt:.6g}: {steps} steps in {seconds:.3g} s")
        return Run(np.array([q.history(r)[node] for q in wanted]), np.array([q.scale(r) for q in wanted]),
                   seconds, options.tolerance * max(1.0, float(np.max(np.abs(r.q)))))

    return wanted, run


def _compare(study_args, wanted, runs, finer, given, reference, order, steps, strict):
    """The ``Study`` of the ``runs`` (``Run``s) and the ``finer`` reference runs [(label, run)] of
    ``_finer``: h/2 and h/4 of the finest level (Richardson) or h/4 ("finest"); ``steps`` are the runs'
    step counts (round-off grows as their square root). Errors of ``Quantity.solved`` quantities that
    are not above Newton's error bound are named in a note: the nonlinear solve may have set them."""
    values = np.array([r.values for r in runs])
    bound = max(r.bound for r in runs)
    scales = runs[-1].scales
    exact_zero = np.array([q.exact_zero for q in wanted])
    notes = list(study_args.pop("notes", []))
    if given is not None:
        ref = given
        described = "exact values given"
    elif reference == "differences":
        ref = None
        described = "successive differences |f(h_k) - f(h_k+1)|"
    else:
        labels = [label for label, _ in finer]
        extra = [run() for _, run in finer]
        for f in extra:
            scales = np.maximum(scales, f.scales)
            bound = max(bound, f.bound)
        f4 = extra[-1].values
        if reference == "richardson":
            ref = f4 + (f4 - extra[0].values) / (2.0**order - 1.0)
            described = f"Richardson extrapolation (order {order:g}) of the runs with {labels[0]} and {labels[1]}"
            notes.append(f"estimated error of the finest reference run ({labels[1]}), |f - reference|: "
                         + ", ".join(f"{q.name} {abs(a - b):.2g}" for q, a, b in zip(wanted, f4, ref)
                                     if not q.exact_zero))
        else:
            ref = f4
            described = f"the run with {labels[0]}"
    if exact_zero.any():
        described += " (energy_error: exact value 0)"
    h = study_args["h"]
    if ref is not None:
        ref = np.where(exact_zero, 0.0, ref)
        errors = np.abs(values - ref)
        error_h, error_steps = h, steps
    else:
        errors = np.abs(np.diff(values, axis=0))
        errors[:, exact_zero] = np.abs(values[:-1, exact_zero])
        error_h, error_steps = h[:-1], steps[1:]  # a difference carries the finer run's round-off
    floors = ROUNDOFF * EPS * scales[None, :] * np.sqrt(np.asarray(error_steps, float))[:, None]
    unsure = [f"{q.name} at {study_args['parameter']} = {', '.join(f'{x:.6g}' for x in error_h[low])}"
              for q, low in zip(wanted, ((errors <= bound) & (errors > floors)).T) if q.solved and low.any()]
    if unsure:
        notes.append(f"errors not above Newton's error bound {bound:.2g} (solver.tolerance x max(1, |q|)), "
                     f"which the nonlinear solve may have set rather than the discretisation: "
                     + "; ".join(unsure))
    study = _finish({**study_args, "descriptions": [q.description for q in wanted], "reference": described,
                     "reference_values": ref, "wall_time": np.array([r.seconds for r in runs]), "notes": notes},
                    values, error_h, errors, floors)
    if strict:
        study.check()
    return study


def refinement_study(case, quantities=None, dts=None, levels=4, reference="richardson", order=2,
                     time=None, t_end=None, strict=True, log=None, progress=False):
    """Observed orders of accuracy in the time step of the outputs ``quantities`` of ``case``.

    case: a ``Case`` (``io.case.load_case``), a case-file path, or any object with ``model, q0, v0,
        dt, t_end`` (optionally ``initial_tolerance, tolerance, max_iterations, title, probes``).
    quantities: a name or a list of names (module docstring; default ``default_quantities``).
    dts: the time steps, largest first; default the case's dt halved: dt, dt/2, .., dt/2^(levels-1).
        A dt that does not divide the run length is reduced to the next step that does, as in
        ``simulate``; the study uses these actual steps.
    reference: how errors are measured:
        ``"richardson"`` (default): two extra runs at h_min/2 and h_min/4 and the extrapolation
            ``f4 + (f4 - f2) / (2^order - 1)`` (nominal ``order`` of the scheme, 2);
        ``"finest"``: one extra run at h_min/4;
        ``"differences"``: no extra run, errors ``|f_k - f_k+1|`` at the coarser step of each pair;
        a number (one quantity), a sequence (one per quantity) or a mapping {name: value}: an exact
            value, e.g. an analytic solution.
        ``energy_error`` is always measured against its exact value 0.
    time: the step node at which the quantities are read (default the end); it must be a step
        node of every run. t_end: run length (default the case's).
    strict: raise ``ConvergenceError`` (one line, ``.study`` holding the study) when a quantity has
        no observed order; with ``strict=False`` the reasons are in ``study.problems``.
    log: callable(str) told about every run (e.g. print), or None; progress: a progress bar of every
        run on stderr, if it is a terminal.
    """
    case = _case(case)
    names = _names(case.model, quantities)
    t_end = float(t_end or case.t_end)
    if dts is None:
        if int(levels) != levels or levels < 1:
            raise ValueError(f"levels must be a positive integer, got {levels}")
        base = t_end / step_count(case.dt, t_end)
        dts = [base / 2**k for k in range(int(levels))]
    counts = np.array([step_count(float(dt), t_end) for dt in dts])
    h = t_end / counts
    if np.any(np.diff(counts) <= 0):
        raise ValueError(f"the time steps must decrease strictly (as steps of t_end = {t_end:g}: "
                         f"{', '.join(f'{x:g}' for x in h)})")
    t_read = _reading_time(time, t_end)
    wanted, run = _runner(case, names, t_end, t_read, log, progress)
    given = _given_reference(reference, wanted, len(h), "time step" + "s" * (len(h) != 1))
    runs = [run(int(n)) for n in counts]
    finer = [(f"dt = {h[-1] / k:.6g}", lambda k=k: run(int(counts[-1]) * k)) for k in _finer(reference, given)]
    return _compare({"title": getattr(case, "title", "case"), "parameter": "dt", "count_label": "steps",
                     "h": h, "counts": counts, "quantities": names, "time": t_read},
                    wanted, runs, finer, given, reference, order, counts, strict)


def element_study(make_case, elements, quantities=None, dt=None, reference="richardson", order=4,
                  time=None, t_end=None, strict=True, log=None, progress=False):
    """Observed orders of accuracy in the element length of the outputs ``quantities`` of a case
    with FEM beams, all runs at one time step.

    make_case: callable n -> the case (as in ``refinement_study``) with n equal elements in every beam
        body, e.g. ``lambda n: load_case(path, Options(elements=n))``; every flexible body must come out
        with n elements (straight FEM beams; a curved centre line from a mesh file keeps its mesh and a
        Rayleigh-Ritz body is one element: both are refused).
    elements: the element counts per beam, strictly increasing; h = 1 / n is the element length
        relative to the beam's length.
    dt, t_end: the time step and run length of every run (default the first case's).
    reference: as in ``refinement_study``, the extra runs having 2 and 4 times the finest count of
        elements; ``order`` is the nominal order of the Richardson extrapolation (default 4, the
        order of the Hermite cubic element's frequencies and of the modes it converges to).
    quantities, time, strict, log, progress: as in ``refinement_study``.

    At a fixed time step the reference is the infinitely fine mesh integrated with that step: the
    study measures the spatial error alone. The order seen depends on what the case excites: a beam
    reduced to its lowest modes (``flexible.modes``) converges as its modes do (order 4), a suddenly
    loaded nodal beam excites every mode its mesh has, and the badly resolved ones make the
    convergence slower and irregular.
    """
    counts = _element_counts(elements)
    first = _meshed(make_case, int(counts[0]))
    names = _names(first.model, quantities)
    t_end = float(t_end or first.t_end)
    steps = step_count(float(dt or first.dt), t_end)
    t_read = _reading_time(time, t_end)
    runners = {int(counts[0]): _runner(first, names, t_end, t_read, log, progress, f"{counts[0]} elements, ")}
    wanted = runners[int(counts[0])][0]
    given = _given_reference(reference, wanted, len(counts), "mesh" + "es" * (len(counts) != 1))
    finer = [int(counts[-1]) * k for k in _finer(reference, given)]
    finest = max([int(counts[-1]), *finer])
    try:  # before the meshes are built: q grows at most in proportion to the elements
        check_run(first.model.n * finest // int(counts[0]), t_end / steps, t_end)
    except ModelError as err:
        raise ModelError(err.field, f"the run with {finest} elements: {err.message}") from None
    cases = {n: _meshed(make_case, n) for n in [*counts[1:].tolist(), *finer]}
    runners.update({n: _runner(case, names, t_end, t_read, log, progress, f"{n} elements, ")
                    for n, case in cases.items()})
    runs = [runners[int(n)][1](steps) for n in counts]
    return _compare({"title": getattr(first, "title", "case"), "parameter": "h", "count_label": "elements",
                     "h": 1.0 / counts, "counts": counts, "quantities": names, "time": t_read,
                     "notes": [f"h = 1 / elements: the element length relative to each beam's length; "
                               f"every run with dt = {t_end / steps:.6g} ({steps} steps)"]},
                    wanted, runs, [(f"{n} elements", lambda n=n: runners[n][1](steps)) for n in finer],
                    given, reference, order, np.full(len(counts), steps), strict)


def _element_counts(elements):
    """``elements`` as an int array, refused unless positive integers that increase strictly."""
    counts = np.asarray(elements)
    if counts.ndim != 1 or counts.size == 0 or np.any(counts < 1) or not np.all(counts == np.round(counts)):
        raise ValueError(f"elements must be positive integers, got {elements}")
    counts = counts.astype(int)
    if np.any(np.diff(counts) <= 0):
        raise ValueError(f"element counts must increase strictly, got {counts.tolist()}")
    return counts


def _meshed(make_case, n):
    """``make_case(n)``, refused (``ValueError``) unless every flexible body has n elements."""
    case = _case(make_case(n))
    bodies = getattr(case.model, "flexible", [])
    if not bodies:
        raise ValueError("the case has no flexible (beam) bodies to refine")
    for body in bodies:
        have = len(body.beam.elements.connectivity)
        if have != n:
            raise ValueError(f"body {body.name} has {have} element{'s' * (have != 1)} where {n} were asked "
                             f"for: only straight FEM beams are meshed anew (a curved centre line keeps its "
                             f"mesh, a Rayleigh-Ritz body is one element)")
    return case


# --- beam frequencies -------------------------------------------------------------------------

def cantilever_roots(count):
    """The first ``count`` roots beta L of ``1 + cos x cosh x = 0`` (clamped-free Euler-Bernoulli
    beam), each in ((k - 1) pi, k pi); written as ``cos x + 1/cosh x = 0`` to stay finite."""
    from scipy.optimize import brentq

    f = lambda x: math.cos(x) + 1.0 / math.cosh(x)
    return np.array([brentq(f, (k - 1) * math.pi + (k == 1) * 1.0, k * math.pi, xtol=1e-15, rtol=4 * EPS)
                     for k in range(1, count + 1)])


def _bending_frequencies(body, modes):
    """The ``modes`` lowest bending (transverse) natural frequencies of a straight beam body: modes
    whose nodal motion is mostly axial are left out."""
    from ..beam.modes import natural_frequencies

    n = body.n_coordinates
    k = min(modes, n)
    while True:
        found = natural_frequencies(body, k)
        axial = np.linalg.norm(found.nodal[:, :, 0], axis=1)
        transverse = np.linalg.norm(found.nodal[:, :, 1:], axis=(1, 2))
        omega = found.omega[transverse > axial]
        if omega.size >= modes:
            return omega[:modes]
        if k >= n:
            raise ValueError(f"a beam of {len(body.nodes) - 1} elements has only {omega.size} bending "
                             f"modes, fewer than the {modes} asked for")
        k = min(2 * k + 1, n)


def beam_frequency_study(length, section, young, rho, elements=(2, 4, 8, 16), modes=3, strict=True):
    """Observed orders in the element length h = length / elements of the ``modes`` lowest bending
    frequencies of a uniform cantilever (``BeamBody.straight``, reference conditions fixed-free,
    Hermite cubic Euler-Bernoulli elements, consistent mass): relative errors against the exact
    ``omega_i = (beta_i L)^2 sqrt(E I / (rho A L^4))`` with ``cos(beta L) cosh(beta L) = -1``
    (beta L = 1.875104068711961, 4.694091132974175, 7.854757438237613, ...). The expected order is
    4 (eigenvalues of a conforming cubic element converge as h^(2(p + 1 - m)) with p = 3, m = 2).

    section: a ``beam.body.Section`` or ``(area, inertia)``; young, rho scalars; elements: strictly
    increasing element counts; ``strict`` as in ``refinement_study``.
    """
    from ..beam.body import BeamBody, Section

    if not isinstance(section, Section):
        section = Section(*section)
    counts = _element_counts(elements)
    if int(modes) != modes or modes < 1:
        raise ValueError(f"modes must be a positive integer, got {modes}")
    h = length / counts.astype(float)
    if len(counts) < 2:
        raise ConvergenceError(f"too few levels: {len(counts)} mesh gives no observed order (need at least 2)")
    exact = cantilever_roots(int(modes))**2 * math.sqrt(young * section.inertia / (rho * section.area)) / length**2
    values, wall = [], []
    for n in counts:
        start = _time.perf_counter()
        values.append(_bending_frequencies(BeamBody.straight(length, int(n), section, young, rho), int(modes)))
        wall.append(_time.perf_counter() - start)
    values = np.array(values)
    errors = np.abs(values - exact) / exact
    names = [f"omega{i + 1}" for i in range(int(modes))]
    study = _finish({
        "title": (f"cantilever bending frequencies, L = {length:g}, A = {float(section.area):.4g}, "
                  f"I = {float(section.inertia):.4g}, E = {young:.4g}, rho = {rho:.4g}"),
        "parameter": "h", "count_label": "elements", "h": h, "counts": counts, "quantities": names,
        "descriptions": [f"bending mode {i + 1} [rad/s], beta L = {b:.15g}"
                         for i, b in enumerate(cantilever_roots(int(modes)))],
        "reference": "exact cantilever frequencies (Euler-Bernoulli)", "reference_values": exact,
        "wall_time": np.array(wall), "error_label": "relative error"},
        values, h, errors, np.full(errors.shape, ROUNDOFF * EPS))
    if strict:
        study.check()
    return study


# --- output -----------------------------------------------------------------------------------

def plot_study(study, path):
    """Log-log plot of the errors over the refinement parameter, with the least-squares lines."""
    from ..io import plots

    fig, ax = plots.pyplot().subplots(figsize=(7, 5))
    for j, name in enumerate(study.quantities):
        e, h = study.errors[:, j], study.error_h
        shown = e > 0
        if not shown.any():
            continue
        if np.isfinite(study.fitted[j]):
            line, = ax.loglog(h[shown], e[shown], "o", label=name)
            slope, intercept = fitted_order(h, e)
            ax.loglog(h, np.exp(intercept) * h**slope, "--", color=line.get_color(),
                      label=f"{name}: fitted slope {slope:.2f}")
        else:
            ax.loglog(h[shown], e[shown], "x:", label=f"{name} (no order)")
    ax.set_xlabel(study.parameter)
    ax.set_ylabel(study.error_label)
    ax.set_title(f"{study.title}\nreference: {study.reference}", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    plots._save(fig, path)


def write_study(study, folder):
    """Write ``convergence.txt`` (the table), ``convergence.json`` and ``convergence.png`` into
    ``folder`` (created if missing); returns {"table": path, "json": path, "plot": path}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {key: folder / name for key, name in FILES.items()}
    paths["table"].write_text(study.table() + "\n")
    paths["json"].write_text(json.dumps(study.to_dict(), indent=2) + "\n")
    plot_study(study, paths["plot"])
    return paths


def convergence_benchmark(case, quantities=None, *, elements=None, dts=None, dt=None, levels=4,
                          reference="richardson", order=None, time=None, t_end=None, folder=None, echo=print,
                          log=None, progress=False):
    """``femdyn bench convergence CASE``: a study of the case file (or ``Case``) in the time step
    (``refinement_study``, the default) or, given ``elements`` (the counts per beam), in the elements
    (``element_study`` at the time step ``dt``, the case re-read with each count and its other
    ``[flexible]`` settings); the table printed by ``echo``, the files of ``write_study`` in ``folder``
    (default ``results/<case>_convergence``, ``results/<case>_elements_convergence``). ``order``: the
    nominal order of the Richardson reference (default 2 in dt, 4 in elements); ``log``, ``progress`` as in
    ``refinement_study``. Returns the ``Study``;
    if a quantity has no observed order, the files and the table are written first and then
    ``ConvergenceError`` is raised (``.study`` set). ``ValueError`` (not a ``ConvergenceError``): bad
    quantities, steps, meshes or reference, before any run."""
    case = _case(case)
    common = dict(reference=reference, time=time, t_end=t_end, strict=False, log=log, progress=progress)
    if elements is None:
        study = refinement_study(case, quantities, dts=dts, levels=levels, order=order or 2, **common)
    else:
        study = element_study(_remesher(case), elements, quantities, dt=dt, order=order or 4, **common)
    default = study_folder(getattr(case, "path", "case"), elements is not None)
    paths = write_study(study, Path(folder) if folder is not None else default)
    if echo:
        echo(study.table() + f"\n\nwritten: {', '.join(str(p) for p in paths.values())}")
    return study.check()


def study_folder(path, elements=False):
    """The default folder of the study of the case file ``path``: ``results/<case>_convergence``, in
    elements ``results/<case>_elements_convergence``."""
    return Path("results") / f"{Path(path).stem}_{'elements_' * elements}convergence"


def _remesher(case):
    """n -> ``case`` read again from its file with n elements per beam, its other flexible settings kept."""
    settings = getattr(case, "flexible", None)
    if settings is None:  # not read from a case file; ``element_study`` refuses a case without beams
        raise ValueError("the case has no flexible (beam) bodies to refine")
    from ..io.beams import Options
    from ..io.case import load_case

    return lambda n: load_case(case.path, Options(settings.model, n, settings.modes, settings.stiffening,
                                                  settings.scale))
