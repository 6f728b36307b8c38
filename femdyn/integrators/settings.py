"""The solver settings of a run, checked in one place: time step and end time, the time integrator
and its spectral radius, the Newton iteration's options and the tolerance of the initial
configuration.

``SolverSettings`` is frozen and validated when it is made and by ``replace``; every refusal is a
``SettingsError`` (a ``ModelError``) whose ``field`` is the settings field, so that a case file reports
``solver.<field>`` (``casefile.case``) and the command line the option that set it. The settings give what
the time loop needs: the number of equal steps no larger than ``dt`` and their length, the
``NewtonOptions``, and the checks for a model (``check_model``): that the history of q and v of a model
of a given size fits ``HISTORY_BUDGET`` (``check_history``) and that its step can be represented
(``check_step``). Every rule is checked here and once per run: by whoever makes the settings for a
model (``casefile.case`` for a case file, ``studies.run.checked_settings`` for changed settings); the
steppers and the time loop take them as they are.

The rules: dt, t_end, tolerance and initial_tolerance are positive finite numbers, and t_end is at
least one step dt (a shorter t_end is refused, not silently made the step); the tolerance, relative to
max(1, |q|_inf) (``newton.newton_converged``), is at least ``MIN_TOLERANCE``, the relative spacing of
floats: no Newton iterate is known closer than its own rounding, so a smaller one could only be met by
chance, and the iteration would run to its limit in every step; rho_inf, the
spectral radius at infinite frequency of generalized-alpha (Arnold & Bruls 2007), is in [0, 1];
max_iterations is an integer from 1 to ``MAX_ITERATIONS`` (a step ends within bounded time); early_stop (``newton.QuadraticStop``) needs generalized-alpha,
since the energy-momentum scheme needs the converged residual for its conservation, and full Newton,
whose quadratic convergence it relies on. ``newton`` not given is the integrator's default
(``default_newton``): full Newton for the energy-momentum scheme, whose conservation to round-off needs
the converged residual, and for generalized-alpha with the early stop; else simplified Newton, which
takes about half of full Newton's factorisations at the same iterations' cost (``newton.Newton``). ``check_step`` refuses, for a model's masses, a step whose
Newton matrix the steppers cannot represent: its mass terms c m / dt^2 (c up to 4) must stay within
``REPRESENTABLE`` -- a step or end time of 1e-300 s would overflow them.
"""
import dataclasses
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..model.errors import ModelError
from .newton import NEWTON_METHODS, NewtonOptions

HISTORY_BUDGET = 2 * 1024**3  # bytes for the stored history of q and v
# the range of the Newton matrix's mass terms c m / dt^2: far inside the floats, so that their sums with the
# other entries and the residuals stay finite and normal
REPRESENTABLE = (1e-300, 1e300)
MIN_TOLERANCE = float(np.finfo(float).eps)  # Newton's tolerance at least: the round-off of q relative to max(1, |q|)
MAX_ITERATIONS = 1000  # Newton iterations of a step at most (25 by default; a Newton that converges needs few)
INTEGRATORS = ("energy-momentum", "generalized-alpha")
GENERALIZED_ALPHA = INTEGRATORS[1]


def default_newton(integrator: str, early_stop: bool) -> str:
    """The Newton method of a run that does not choose one: full Newton for the energy-momentum scheme
    (its conservation to round-off needs the converged residual) and for generalized-alpha with the early
    stop (made for full Newton), else simplified Newton ("modified": 0.59-0.88 of full Newton's CPU time
    on the flexible pendulums, README "Newton")."""
    return "modified" if integrator == GENERALIZED_ALPHA and not early_stop else "full"


class SettingsError(ModelError):
    """Solver settings that cannot be used; ``field`` is the name of the ``SolverSettings`` field."""


def _number(value, field):
    """``value`` as a finite float; SettingsError unless it is a real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SettingsError(field, f"must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise SettingsError(field, f"must be a finite number, got {value}")
    return value


def _positive(value, field):
    value = _number(value, field)
    if not value > 0:
        raise SettingsError(field, f"must be a positive number, got {value:g}")
    return value


def _choice(value, field, known):
    if value not in known:
        raise SettingsError(field, f"unknown value {value!r} (known: {', '.join(known)})")
    return value


@dataclass(frozen=True)
class SolverSettings:
    """How a run is integrated (module docstring); checked on construction and by ``replace``."""

    dt: float
    t_end: float
    integrator: str = INTEGRATORS[0]  # "energy-momentum" (000, 001) or "generalized-alpha" (index 3)
    rho_inf: float = 0.9  # spectral radius of generalized-alpha
    tolerance: float = NewtonOptions.tolerance  # Newton's, on the error of q (``newton.newton_converged``)
    max_iterations: int = NewtonOptions.max_iterations
    early_stop: bool = False  # Newton's early stop under quadratic convergence (generalized-alpha only)
    newton: str | None = None  # "full" or "modified" Newton (``newton.Newton``); None: ``default_newton``
    initial_tolerance: float = 1e-6  # largest constraint violation of the placed initial state
    newton_given: bool = field(default=False, init=False, repr=False, compare=False)  # newton not defaulted

    def __post_init__(self):
        checked = {
            "dt": _positive(self.dt, "dt"),
            "t_end": _positive(self.t_end, "t_end"),
            "integrator": _choice(self.integrator, "integrator", INTEGRATORS),
            "rho_inf": _number(self.rho_inf, "rho_inf"),
            "tolerance": _positive(self.tolerance, "tolerance"),
            "initial_tolerance": _positive(self.initial_tolerance, "initial_tolerance"),
            "newton": _choice(self.newton, "newton", NEWTON_METHODS) if self.newton is not None else None,
        }
        if checked["tolerance"] < MIN_TOLERANCE:
            raise SettingsError("tolerance", f"{checked['tolerance']!r} is below the round-off of q ({MIN_TOLERANCE:.3g} "
                                "relative to max(1, |q|)), which Newton cannot get under; give a tolerance of at least that")
        if not 0.0 <= checked["rho_inf"] <= 1.0:
            raise SettingsError("rho_inf", f"the spectral radius must be in [0, 1], got {checked['rho_inf']:g}")
        iterations = self.max_iterations
        if isinstance(iterations, bool) or not isinstance(iterations, numbers.Integral) or \
                not 1 <= iterations <= MAX_ITERATIONS:
            raise SettingsError("max_iterations", f"must be an integer from 1 to {MAX_ITERATIONS}, got {iterations!r}")
        if not isinstance(self.early_stop, bool):
            raise SettingsError("early_stop", f"must be true or false, got {self.early_stop!r}")
        if self.early_stop and self.integrator != GENERALIZED_ALPHA:
            raise SettingsError("early_stop", "only with the generalized-alpha integrator (the energy-momentum "
                                "scheme needs the converged residual for its conservation)")
        if checked["t_end"] < checked["dt"]:
            raise SettingsError("t_end", f"{checked['t_end']:g} is shorter than one step dt = {checked['dt']:g}; give "
                                "a dt no longer than t_end")
        if self.early_stop and self.newton == "modified":
            raise SettingsError("early_stop", "not with modified Newton (the early stop is made for full "
                                "Newton's quadratic convergence)")
        object.__setattr__(self, "newton_given", self.newton is not None)
        if checked["newton"] is None:
            checked["newton"] = default_newton(checked["integrator"], self.early_stop)
        for name, value in checked.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "max_iterations", int(iterations))

    def replace(self, **changes):
        """A copy with ``changes`` (settings fields), checked as a new one. A Newton method that was not
        given stays the default of the copy's integrator and early stop (``default_newton``). Where the
        integrator or the Newton method changes and ``early_stop`` is not given, the early stop is kept
        only if it still applies (generalized-alpha with full Newton): choosing another method switches
        it off."""
        if not self.newton_given and "newton" not in changes:
            changes["newton"] = None
        if self.early_stop and "early_stop" not in changes:
            integrator = changes.get("integrator", self.integrator)
            newton = changes.get("newton", self.newton)  # None: the default, full Newton with the early stop
            changes["early_stop"] = integrator == GENERALIZED_ALPHA and newton in ("full", None)
        return dataclasses.replace(self, **changes)

    @property
    def steps(self):
        """The number of equal steps to t_end with a step no larger than dt."""
        return max(1, math.ceil(self.t_end / self.dt * (1.0 - 1e-12)))

    @property
    def step(self):
        """The actual time step, t_end / steps (at most dt)."""
        return self.t_end / self.steps

    @property
    def newton_options(self):
        return NewtonOptions(self.tolerance, self.max_iterations, self.early_stop, self.newton == "modified")

    def check_model(self, coordinates, mass_matrix=None):
        """The rules for a model: its history of ``coordinates`` within ``HISTORY_BUDGET``
        (``check_history``) and, given its ``mass_matrix``, a step the steppers can represent
        (``check_step``). A caller checks settings for a model once, where it makes them (``casefile.case``,
        ``studies.run.checked_settings``), and passes them on whole."""
        self.check_history(coordinates)
        if mass_matrix is not None:
            self.check_step(mass_matrix)

    def check_step(self, mass_matrix):
        """Refuse (SettingsError on dt) a step whose Newton matrix for the masses ``mass_matrix`` (a sparse
        matrix) the steppers cannot represent: the mass terms c m / dt^2 (c = 2 for the energy-momentum
        scheme, up to 4 for generalized-alpha) of the largest and of the smallest positive mass entry
        must lie within ``REPRESENTABLE``."""
        masses = np.abs(mass_matrix.tocsr().data)
        masses = masses[masses > 0]
        if not masses.size:
            return
        low, high = REPRESENTABLE
        largest, smallest = 4.0 * masses.max() / self.step**2, 2.0 * masses.min() / self.step**2
        if not (largest <= high and smallest >= low):
            raise SettingsError("dt", f"the step {self.step:g} s with mass entries from {masses.min():g} to "
                                f"{masses.max():g} gives Newton matrix terms m/dt^2 from {smallest:.3g} to {largest:.3g}, "
                                f"beyond what the steppers represent ({low:g} to {high:g}): choose dt and t_end, or the "
                                "masses, in a sensible range")

    def check_history(self, coordinates):
        """Refuse (SettingsError on dt) a run whose history of q and v, ``coordinates`` each (``Model.n``,
        or ``ModelBuilder.coordinate_count`` before the model is built), would exceed ``HISTORY_BUDGET``."""
        steps = self.t_end / self.dt
        need = 2 * 8 * coordinates * steps
        if need > HISTORY_BUDGET:
            raise SettingsError("dt", f"t_end/dt = {steps:.3g} steps would store {need / 1024**3:.3g} GiB of "
                                f"history (limit {HISTORY_BUDGET / 1024**3:g} GiB); use a larger dt or a "
                                "shorter t_end")
