"""What a run's summary says about its time step (``step_check``), about how its scheme treats the
energy (``energy_check``) and about whether its flexible bodies stayed where one floating frame is
accurate (``elastic_extent``, ``validity_check``).

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

A floating-frame body measures its strains linearly in its frame: it is linear beam theory for the
sections' rotation theta relative to the frame, exact to O(theta^2). How large that error is follows
from the elastica: a cantilever under a dead tip load at lambda = P L^2/EI has the linear tip rotation
theta = lambda/2 and deflection lambda L/3, and the elastica's deflection (Mattiasson 1981; the
shooting solution of tests/physics/test_segmented_links.py) lies below that by a relative 0.46 theta^2
(0.457 at theta = 0.05, 0.453 at 0.15, 0.419 at 0.5: +10.5 % at lambda = 1). ``validity_check`` warns
where a body's sections turn by more than ``ROTATION_BOUND`` = 0.15 rad relative to its frame (about
1 % in deflection), or its elastic displacement exceeds ``DEFLECTION_BOUND`` = 0.1 of its length (the
cantilever's at that rotation, 2 theta/3): the link needs floating-frame segments (``segments``), each
of whose sections turn by about theta/k, the error falling as 1/k^2.
"""
import numpy as np

from .generalized_alpha import amplitude_per_step
from .settings import GENERALIZED_ALPHA

ENERGY_FLAG = 1e-6  # energy balance error, relative to the energy, flagged for the energy-momentum scheme
GAIN_FLAG = 1e-2  # energy gained, relative to the energy, flagged for generalized-alpha
STEPS_PER_PERIOD = 20  # the step the warning of ``step_check`` suggests: this many per period
ROTATION_BOUND = 0.15  # rad: sections turned this far relative to a floating frame are about 1 % off
DEFLECTION_BOUND = 0.1  # elastic displacement over the body's length, the cantilever's at ROTATION_BOUND
LINEAR_ERROR = 0.46  # relative error of linear beam theory per theta^2 (module docstring)


def shortest_period(model):
    """(what, period) of the shortest known period (``time_targets`` of the model's constraint
    families and forces, whose targets may have a ``period``), or None."""
    periods = [(period, what) for item in (*model.constraints, *model.forces) for what, target in item.time_targets()
               if (period := getattr(target, "period", None)) is not None]
    return min(periods, key=lambda p: p[0])[::-1] if periods else None


def nonfinite_load(model, times):
    """The reason a step at ``times`` (its start, middle and end) failed if it is a load's: the first
    function of time of ``model``'s forces (``time_targets``) whose value is not finite at one of them,
    named by its ``label`` (the case file's field, ``casefile.reader.Reader.time_function``); None if all are
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


def elastic_extent(model, q) -> dict:
    """{body: [largest section rotation relative to its floating frame (rad), largest elastic
    displacement over its length]} of every flexible body of ``model`` over the configurations q (F, n),
    from its nodal coordinates in its frame (``BeamBody.basis`` of its elastic coordinates; the twist
    counts as a rotation in space)."""
    extent = {}
    q = np.atleast_2d(q)
    for body in model.flexible:
        beam = body.beam
        elastic = body.elastic_coordinates(q)
        nodal = np.asarray(beam.basis @ elastic.T).T.reshape(len(q), -1, beam.elements.node_size)
        dim = beam.dim
        turned = np.abs(nodal[..., 2]) if dim == 2 else np.linalg.norm(nodal[..., 3:6], axis=-1)
        moved = np.linalg.norm(nodal[..., :dim], axis=-1) / beam.elements.length.sum()
        extent[body.name] = [float(turned.max(initial=0.0)), float(moved.max(initial=0.0))]
    return extent


def widest(extent, other) -> dict:
    """The larger of two ``elastic_extent``s, body by body (either may be None or empty)."""
    merged = {name: list(values) for name, values in (extent or {}).items()}
    for name, values in (other or {}).items():
        merged[name] = [max(a, b) for a, b in zip(merged.get(name, values), values)]
    return merged


def validity_check(extent) -> dict:
    """What the summary says of the flexible bodies' ``elastic_extent`` over the run (module docstring):
    the largest rotation and deflection and, where one leaves the bounds, a warning that names the body,
    the bound, the estimated error and ``segments``; {} without flexible bodies."""
    if not extent:
        return {}
    name, (rotation, deflection) = max(extent.items(), key=lambda item: item[1][0])
    check = {"floating_frame": {"largest_rotation_rad": rotation, "body": name, "rotation_bound_rad": ROTATION_BOUND,
                                "largest_deflection_per_length": max(v[1] for v in extent.values()),
                                "deflection_bound_per_length": DEFLECTION_BOUND}}
    beyond = sorted((n for n, (r, d) in extent.items() if r > ROTATION_BOUND or d > DEFLECTION_BOUND),
                    key=lambda n: -extent[n][0])
    if beyond:
        worst, (rotation, deflection) = beyond[0], extent[beyond[0]]
        others = f" (also {', '.join(beyond[1:])})" if len(beyond) > 1 else ""
        check["validity_warning"] = (
            f"the sections of flexible body '{worst}'{others} turn by up to {rotation:.3g} rad relative to its "
            f"floating frame and move by up to {deflection:.3g} of its length (bounds {ROTATION_BOUND:g} rad, "
            f"{DEFLECTION_BOUND:g}): one floating-frame body is linear beam theory, about "
            f"{100 * LINEAR_ERROR * rotation**2:.2g} % off there ({LINEAR_ERROR:g} theta^2, from the elastica); "
            "split the link into (more) floating-frame segments ([flexible] segments = k, --segments K: the error "
            "falls as 1/k^2)")
    return check
