"""Observed orders of accuracy: the orders and their least-squares fit from errors under refinement
(``observed_orders``, ``fitted_order``), the reasons the data cannot support an order (errors at
round-off, errors that do not decrease, too few levels: ``ConvergenceError``), and the record of a
study (``Study``: its table and JSON contents).

Observed orders are ``p_k = log(e_k / e_k+1) / log(h_k / h_k+1)`` (``log2(e_k / e_k+1)`` when h
halves). An error ``e`` of a run with ``N`` steps is taken to be round-off when
``e <= ROUNDOFF * eps * scale * sqrt(N)`` (``ROUNDOFF = 1e3``): ``scale`` is the largest magnitude of
the quantity over the finest run's history and ``sqrt(N)`` allows for round-off accumulated over the
steps; for one eigen-solve (beam frequencies) the floor is ``ROUNDOFF * eps``.
"""
import math
from dataclasses import dataclass, field

import numpy as np

ROUNDOFF = 1e3  # errors below ROUNDOFF * eps * scale (* sqrt(steps)) are round-off
EPS = np.finfo(float).eps


class ConvergenceError(ValueError):
    """The data cannot support an observed order (errors at round-off, errors that do not decrease
    under refinement, too few levels) or a run of the study failed; ``str`` is one line. ``study``
    is the ``Study`` it concerns, when there is one."""

    def __init__(self, message, study=None):
        super().__init__(message)
        self.study = study


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
    time: float | np.ndarray | None = None  # reading time (time studies); per quantity (nq,) where the
    # errors are the largest over the time nodes: the node of the finest level's largest error
    wall_time: np.ndarray | None = None  # (L,) seconds per run
    notes: list = field(default_factory=list)
    units: list = field(default_factory=list)  # (nq,) the SI unit of each quantity (``quantities.Quantity.unit``)

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
        def at(j):
            if self.time is None:
                return ""
            if np.ndim(self.time):
                return f", value at t = {self.time[j]:.6g} (the finest level's largest error)"
            return f" at t = {self.time:.6g}"

        lines = [f"convergence study: {self.title}", f"reference: {self.reference}", *self.notes]
        width = max(9, len(self.error_label))
        for j, (name, what) in enumerate(zip(self.quantities, self.descriptions)):
            header = (f"{self.parameter:>12} {self.count_label:>9} {'value':>22} "
                      f"{self.error_label:>{width}} {'order':>6}")
            lines += ["", f"{name} ({what}){at(j)}", header]
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
            "error": self.error_label, "time": np.asarray(self.time).tolist() if self.time is not None else None,
            self.parameter: [float(h) for h in self.h], self.count_label: [int(c) for c in self.counts],
            f"error_{self.parameter}": [float(h) for h in self.error_h],
            "wall_time_s": None if self.wall_time is None else [float(w) for w in self.wall_time],
            "notes": list(self.notes), "quantities": quantities, "ok": not self.problems,
        }


def finish_study(study_args, values, error_h, errors, floors):
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


def element_counts(elements):
    """``elements`` as an int array, refused unless positive integers that increase strictly."""
    counts = np.asarray(elements)
    if counts.ndim != 1 or counts.size == 0 or np.any(counts < 1) or not np.all(counts == np.round(counts)):
        raise ValueError(f"elements must be positive integers, got {elements}")
    counts = counts.astype(int)
    if np.any(np.diff(counts) <= 0):
        raise ValueError(f"element counts must increase strictly, got {counts.tolist()}")
    return counts

