"""Scalar functions of time that scale loads: hat, sine, piecewise-linear table, constant, or any
Python callable ``f(t) -> float`` (vectorised over numpy arrays where possible). A periodic one
carries its ``period`` in s (``sine``; ``integrators.diagnostics.step_check``)."""
import numpy as np


def hat(t1, t2, peak):
    """0 at t = 0, rising linearly to ``peak`` at t1, back to 0 at t2 and 0 after (000 Fig. 4)."""
    if not 0.0 < t1 < t2:
        raise ValueError("hat function needs 0 < t1 < t2")
    return table([0.0, t1, t2], [0.0, peak, 0.0])


def table(times, values):
    """Piecewise-linear interpolation of (times, values); constant beyond the first/last value."""
    times, values = np.asarray(times, dtype=float), np.asarray(values, dtype=float)
    if times.ndim != 1 or times.shape != values.shape or times.size < 2 or np.any(np.diff(times) <= 0):
        raise ValueError("table needs two equally long lists with strictly increasing times")
    return lambda t: np.interp(t, times, values)


def sine(amplitude, frequency, phase=0.0, offset=0.0):
    """offset + amplitude sin(2 pi frequency t + phase); its ``period`` 1/|frequency| (None for 0)."""
    def function(t):
        return offset + amplitude * np.sin(2.0 * np.pi * frequency * np.asarray(t) + phase)
    function.period = 1.0 / abs(frequency) if frequency else None
    return function


def constant(value):
    return lambda t: value + 0.0 * np.asarray(t)
