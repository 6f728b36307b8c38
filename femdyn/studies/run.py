"""One run of a case, as every command and study does it: the case's solver settings with any changes,
checked for its model (``checked_settings``), the initial state prepared with the case's initial
tolerance (``prepare_case``), the simulation with an optional progress bar and its wall time
(``run_case``). Problems are ``CaseError``s against the case file: a setting by ``solver.<field>``
(or the name a caller gives it, e.g. its command-line option), a configuration by its field
(``initial``, ``servos``, ``springs``).

``check_elements`` refuses a number of beam elements whose run would not fit the history budget
before the model is built with them (a fine mesh takes long to build).
"""
import time
from dataclasses import dataclass, replace

import numpy as np

from ..integrators.modes import ModesError
from ..integrators.settings import SettingsError, SolverSettings
from ..integrators.setup import Setup, prepare
from ..integrators.statics import StaticsError, static_equilibrium
from ..integrators.time_loop import Results, simulate
from ..integrators.zero_dynamics import zero_dynamics
from ..casefile.beams import Options
from ..casefile.case import CaseError, load_case
from ..model.errors import ModelError


@dataclass
class Run:
    """A finished (or stopped) run: the settings it ran with, its setup, its results and the seconds
    the simulation took."""

    settings: SolverSettings
    setup: Setup
    results: Results
    wall_time: float


def _path(case):
    return getattr(case, "path", "case")  # a case made in Python (studies) need not come from a file


def checked_settings(case, names=None, **changes):
    """``case.settings`` with ``changes`` (``SolverSettings.replace``), checked for the case's model
    (``SolverSettings.check_model``: the history budget, a representable step); CaseError naming the
    field as ``names`` does ({settings field: name}, e.g. the command-line options that made the changes)
    or as ``solver.<field>``. Without changes the case's own settings are returned: a ``Case`` holds
    settings checked for its model (by ``load_case``, or by this function where they were replaced)."""
    if not changes:
        return case.settings
    try:
        settings = case.settings.replace(**changes)
        settings.check_model(case.model.n, case.model.mass_matrix)
    except SettingsError as err:
        raise CaseError(_path(case), (names or {}).get(err.field, f"solver.{err.field}"), err.message) from None
    return settings


def prepare_case(case):
    """``prepare`` of the case's initial state with its initial tolerance, assembled where the case asks
    for it (``[initial] assemble``, ``hold``), and, where it asks for it (``[initial] equilibrium``), the
    static equilibrium reached from there at t = 0, at rest (``statics.static_equilibrium``; the
    assembled pose kept as ``Setup.pose``); a configuration that cannot be run, or an equilibrium that cannot
    be found, is a CaseError against the case file."""
    try:
        setup = prepare(case.model, case.q0, case.v0, tolerance=case.settings.initial_tolerance,
                        assemble=getattr(case, "assemble", False), hold=getattr(case, "hold", None))
    except ModelError as err:
        raise CaseError(_path(case), err.field, err.message) from None
    if not getattr(case, "equilibrium", False):
        return setup
    try:
        start = static_equilibrium(setup, 0.0)
    except StaticsError as err:
        raise CaseError(_path(case), "initial.equilibrium", f"no static equilibrium: {err}") from None
    return replace(setup, q0=start.q, v0=np.zeros_like(setup.v0), pose=setup.q0)


def run_case(case, progress=None, setup=None, output=None, resume=None, **changes):
    """Simulate ``case`` (a ``Case``, or any object with model, q0, v0 and settings) with its settings
    changed by ``changes`` (``checked_settings``) from ``setup`` (default: ``prepare_case``);
    ``progress``: an object with ``update(step, t)`` (``post.progress.Progress``); ``output``, ``resume``:
    where the history goes in chunks and the checkpoint to go on from (``time_loop.simulate``). Returns
    the ``Run``, whose results (with ``output``: the last chunk) may be incomplete (Newton failure, a
    step that is no solution, Ctrl-C: ``Results.message``)."""
    settings = checked_settings(case, **changes)
    if setup is None:
        setup = prepare_case(case)
    start = time.perf_counter()
    results = simulate(setup, settings, progress, output, resume)
    if results.message.startswith("Newton failed") and setup.model.inputs:
        results.message = f"{results.message} {_servo_note(setup)}".rstrip()
    return Run(settings, setup, results, time.perf_counter() - start)


def _servo_note(setup):
    """``ZeroDynamics.failure_note`` of the servo problem of ``setup`` ('' where it is not linearised)."""
    try:
        return zero_dynamics(setup).failure_note()
    except (ModesError, ValueError, np.linalg.LinAlgError):
        return ""


def check_elements(path, flexible, elements, t_end=None):
    """Refuse ``elements`` per fem beam (``--elements``) before the model is built with them if its run
    would store too long a history (``SolverSettings.check_history``): the case in ``path`` as written is
    built (with the ``flexible`` model, a name of ``beams.MODELS`` or None), and the coordinates of its
    beams' elastic parts (unless modally reduced: nodal unknowns and carriers, ``n_coordinates`` of either
    embedding) are counted in proportion to the elements, the rest as they are. ``t_end``: the end time that
    the case is run with, if not its own. CaseError naming --elements; nothing to check if ``elements``
    is None."""
    if not elements:
        return
    case = load_case(path, Options(model=flexible), None if t_end is None else {"solver.t_end": t_end})
    written = case.flexible.elements  # a case without fem beams has no elastic coordinates to scale
    if elements > written and case.flexible.modes is None:
        elastic = sum(f.n_coordinates for f in case.model.flexible)
        coordinates = case.model.n - elastic + -(-elastic * elements // written)
        try:
            case.settings.check_history(coordinates)
        except SettingsError as err:
            raise CaseError(case.path, "--elements", f"{elements} elements per beam give about {coordinates} "
                            f"coordinates: {err.message}, or fewer elements") from None
