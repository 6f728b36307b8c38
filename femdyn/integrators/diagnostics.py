"""What a run's summary says about its time step (``step_check``) and about how its scheme treats the
energy (``energy_check``).

A step longer than half the period of a motion the model is made to follow -- a servo's trajectory, a
load's function of time -- cannot represent it: with fewer than two samples per period (the sampling
theorem, Shannon 1949) the steps see a slower motion or none. Neither scheme notices: the
energy-momentum scheme is unconditionally stable and keeps the energy of whatever motion the steps
make, and generalized-alpha damps it. ``step_check`` compares the step with the shortest period the servos' trajectories and the
loads' functions of time give (their ``period``: a harmonic trajectory's 2 pi/angular_speed, a sine's
1/frequency, a turn of an angle at its full rate) and warns; the run goes on. The model's own natural
periods are not checked: in a flexible model the steps are meant to leave the highest ones unresolved,
and the summary's energy check flags steps that do not converge to the energy.

The energy balance H - H_0 - W is kept to round-off by the energy-momentum scheme (001 eq. 14): a
balance error large against the run's energy (``ENERGY_FLAG``) means the steps are not converged to it.
Generalized-alpha damps numerically (Chung & Hulbert 1993, ``generalized_alpha.amplitude_per_step``):
its balance shows that loss, and only energy gained beyond ``GAIN_FLAG`` is flagged.
"""
import numpy as np

from .generalized_alpha import amplitude_per_step
from .settings import GENERALIZED_ALPHA

ENERGY_FLAG = 1e-6  # energy balance error, relative to the energy, flagged for the energy-momentum scheme
GAIN_FLAG = 1e-2  # energy gained, relative to the energy, flagged for generalized-alpha
STEPS_PER_PERIOD = 20  # the step the warning of ``step_check`` suggests: this many per period


def shortest_period(model):
    """(what, period) of the shortest known period (``time_targets`` of the model's constraint
    families and forces, whose targets may have a ``period``), or None."""
    periods = [(period, what) for item in (*model.constraints, *model.forces) for what, target in item.time_targets()
               if (period := getattr(target, "period", None)) is not None]
    return min(periods, key=lambda p: p[0])[::-1] if periods else None


def nonfinite_load(model, times):
    """The reason a step at ``times`` (its start, middle and end) failed if it is a load's: the first
    function of time of ``model``'s forces (``time_targets``) whose value is not finite at one of them,
    named by its ``label`` (the case file's field, ``io.reader.Reader.time_function``); None if all are
    finite. A Newton iteration on such a load fails with a residual that is not finite, and a smaller
    step does not help."""
    for item in model.forces:
        for what, function in item.time_targets():
            for t in times:
                try:
                    with np.errstate(all="ignore"):
                        value = np.asarray(function(t), dtype=float)
                except (ArithmeticError, ValueError):
                    value = np.array(np.nan)
                if not np.isfinite(value).all():
                    return (f"the function of time of {getattr(function, 'label', what)} is "
                            f"{value.tolist()!r} at t = {t:.6g}: not a finite number")
    return None


def step_check(settings, model):
    """{"step_warning": message} if the step of ``settings`` is longer than half the shortest period
    of the motion prescribed to ``model`` (module docstring), else {}."""
    shortest = shortest_period(model)
    if shortest is None or settings.step <= 0.5 * shortest[1]:
        return {}
    what, period = shortest
    return {"step_warning": (
        f"the step dt = {settings.step:g} s is longer than half the period {period:.4g} s of {what}: fewer than "
        f"two steps per period cannot represent that motion (the steps see a slower one, or none); use dt <= "
        f"{period / STEPS_PER_PERIOD:.3g} s ({STEPS_PER_PERIOD} steps per period) for an accurate run")}


def energy_check(settings, history):
    """What the summary says of the energy balance H - H0 - W in the columns ``history``, relative to the
    energy of the run (the largest of |H0|, the kinetic energy and |W|: a spurious spike of the potential
    energy does not count): for the energy-momentum scheme, which keeps it to round-off, a warning above
    ``ENERGY_FLAG``; for generalized-alpha the numerical damping expected, and a warning where the
    balance shows energy gained beyond ``GAIN_FLAG`` (damping only takes energy away)."""
    balance = history["energy_balance"]
    if not len(balance):
        return {}
    energy = max(abs(history["total"][0]), history["kinetic"].max(), np.abs(history["work"]).max()) or 1.0
    check = {"energy_balance_relative": float(np.abs(balance).max() / energy)}
    if settings.integrator == GENERALIZED_ALPHA:
        rho, gain = settings.rho_inf, float(max(balance.max(), 0.0) / energy)
        check["energy_expected"] = (
            f"generalized-alpha (rho_inf = {rho:g}) damps numerically: per step the amplitude of motion at "
            f"omega dt = 0.1 shrinks by a factor {amplitude_per_step(rho, 0.1):.7f}, at omega dt = 1 by "
            f"{amplitude_per_step(rho, 1.0):.4f}, at omega dt >> 1 by rho_inf = {rho:g}: the energy balance "
            "shows that loss")
        if gain > GAIN_FLAG:
            check["energy_warning"] = (
                f"the energy balance shows {gain:.3g} of the run's energy gained, which generalized-alpha's "
                "damping cannot explain: the steps do not resolve the motion (a stiff or ill-scaled model: try "
                "a smaller dt)")
    elif check["energy_balance_relative"] > ENERGY_FLAG:
        check["energy_warning"] = (
            f"the energy balance error is {check['energy_balance_relative']:.3g} of the run's energy, where the "
            f"energy-momentum scheme keeps it to round-off (flagged above {ENERGY_FLAG:g}): the steps are not "
            "converged to the energy (a stiff or ill-scaled model: try a smaller dt or tolerance)")
    return check
