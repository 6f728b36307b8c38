"""Convergence studies of a case: observed orders of accuracy under refinement in the time step (any
case) and in the elements of the beams of a case (the beam's own frequencies: ``cantilever``).

``refinement_study(case, quantities)`` runs a case at dt, dt/2, dt/4, ... (or given steps), reads the
chosen outputs (``quantities``) at every time node that all runs share (or at a given step node) and
measures their errors against a reference: Richardson extrapolation of two finer runs (default), the
finest of two finer runs, an exact value (at a given node, by default the end), or successive
differences of the study's own runs. Over the shared nodes the error of a run is the largest over them,
so a study measures where the motion is, not at an end time where it may have stopped (there the
multipliers, hence the servo inputs, are at round-off). ``element_study(make_case,
elements, quantities)`` does the same with n, 2n, 4n, ... elements per beam at one time step (the
reference runs with 2 and 4 times the finest mesh). The runs use the case's integrator and Newton
options (``run.run_case``). Orders, round-off levels and the reasons errors cannot support an order
are ``orders``'; the study names the quantity and the reason (``ConvergenceError``, a ``ValueError``).
``energy_error`` sits at round-off for the energy-momentum scheme, and no order can be observed,
which the study reports.

Newton stops where its error in q is below ``solver.tolerance x max(1, |q|_inf)``; errors of
coordinates, positions and angles that are not above that bound are named in a note of the study
(the nonlinear solve may have set them), but still give orders: Newton's actual error is usually far
smaller than its bound.

The command ``femdyn bench convergence CASE [--refine elements]`` is ``convergence_benchmark``: run,
print the table, write ``convergence.txt``, ``convergence.json`` and ``convergence.png``
(``write_study``).
"""
import math
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..integrators.settings import SettingsError
from ..io import jsonfile
from ..casefile.beams import Options
from ..casefile.case import load_case
from ..post.folders import default_folder
from ..post.progress import Progress
from .orders import (
    EPS,
    ROUNDOFF,
    ConvergenceError,
    element_counts,
    finish_study,
    fitted_order,
)
from ..model.segments import SEPARATOR
from .quantities import default_quantities, resolve_quantity
from .run import prepare_case, run_case

REFERENCES = ("richardson", "finest", "differences")
FILES = {"table": "convergence.txt", "json": "convergence.json", "plot": "convergence.png"}


def _case(case):
    return load_case(case) if isinstance(case, (str, Path)) else case


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


class Reading(NamedTuple):
    """What a study keeps of one run."""

    values: np.ndarray  # (nq,) the quantities at the reading time, or (nq, T) at the shared time nodes
    scales: np.ndarray  # (nq,) their magnitudes for the round-off level (``Quantity.scale``)
    seconds: float  # wall time
    bound: float  # Newton's error bound on q: tolerance x max(1, |q|_inf) (``newton.newton_converged``)


def _finer(reference, given):
    """Factors of the finest level's count (steps or elements) of the extra reference runs."""
    return {"richardson": (2, 4), "finest": (4,)}.get(reference if given is None else "", ())


def shared_nodes(counts):
    """The time nodes that runs of ``counts`` steps over one length all have, as (k, counts[0]): node
    k[i] of the first run (t = k[i] t_end / counts[0]); runs of multiples of the last count have them too."""
    first, every = int(counts[0]), 1
    for count in counts:
        every = math.lcm(every, first // math.gcd(first, int(count)))
    return np.arange(0, first + 1, every), first


def _runner(case, names, t_end, t_read, log, progress, label=""):
    """(quantities, run) for ``case``: ``run(steps)`` simulates it with dt = t_end / steps
    (``run.run_case``, all runs from one ``prepare_case``) and returns its ``Reading``: the quantities at
    the time ``t_read``, or, given (k, count) of ``shared_nodes`` instead, at those nodes. With
    ``progress`` each run draws a progress bar on stderr if it is a terminal."""
    wanted = [resolve_quantity(case.model, n, getattr(case, "probes", ())) for n in names]
    setup = prepare_case(case)

    def run(steps):
        dt = t_end / steps
        if isinstance(t_read, tuple):
            k, first = t_read
            node = k * steps // first  # a node of every run of the study (``shared_nodes``)
        else:
            node = round(t_read / dt)
            if abs(node * dt - t_read) > 1e-9 * dt:
                raise ValueError(f"time {t_read:g} is not a step node of the run with dt = {dt:.6g}")
        with Progress(steps, f"{label}dt = {dt:.6g}", enabled=progress and sys.stderr.isatty()) as bar:
            done = run_case(case, bar, setup, dt=dt, t_end=t_end)
        r, seconds = done.results, done.wall_time
        if not r.complete:
            if r.message.startswith("interrupted"):
                raise KeyboardInterrupt
            raise ConvergenceError(f"the run with {label}dt = {dt:.6g} stopped early: {r.message}")
        if log:
            log(f"{label}dt = {dt:.6g}: {steps} steps in {seconds:.3g} s")
        return Reading(np.array([q.history(r)[node] for q in wanted]), np.array([q.scale(r) for q in wanted]),
                       seconds, done.settings.tolerance * max(1.0, float(np.max(np.abs(r.q)))))

    return wanted, run


def _compare(study_args, wanted, runs, finer, given, reference, order, steps, strict):
    """The ``Study`` of the ``runs`` (``Reading``s) and the ``finer`` reference runs [(label, run)] of
    ``_finer``: h/2 and h/4 of the finest level (Richardson) or h/4 ("finest"); ``steps`` are the runs'
    step counts (round-off grows as their square root). Errors of ``Quantity.solved`` quantities that
    are not above Newton's error bound are named in a note: the nonlinear solve may have set them."""
    values = np.array([r.values for r in runs])  # (L, nq) or over the shared nodes (L, nq, T)
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
                         + ", ".join(f"{q.name} {np.abs(a - b).max():.2g}" for q, a, b in zip(wanted, f4, ref)
                                     if not q.exact_zero))
        else:
            ref = f4
            described = f"the run with {labels[0]}"
    if exact_zero.any():
        described += " (energy_error: exact value 0)"
    h = study_args["h"]
    if ref is not None:
        ref = np.where(exact_zero.reshape(-1, *[1] * (ref.ndim - 1)), 0.0, ref)
        errors = np.abs(values - ref)
        error_h, error_steps = h, steps
    else:
        errors = np.abs(np.diff(values, axis=0))
        errors[:, exact_zero] = np.abs(values[:-1, exact_zero])
        error_h, error_steps = h[:-1], steps[1:]  # a difference carries the finer run's round-off
    if values.ndim == 3:  # over the shared nodes: the largest error; values shown where the finest's is
        values, ref, errors = _largest(study_args, wanted, values, ref, errors, notes)
    floors = ROUNDOFF * EPS * scales[None, :] * np.sqrt(np.asarray(error_steps, float))[:, None]
    unsure = [f"{q.name} at {study_args['parameter']} = {', '.join(f'{x:.6g}' for x in error_h[low])}"
              for q, low in zip(wanted, ((errors <= bound) & (errors > floors)).T) if q.solved and low.any()]
    if unsure:
        notes.append(f"errors not above Newton's error bound {bound:.2g} (solver.tolerance x max(1, |q|)), "
                     f"which the nonlinear solve may have set rather than the discretisation: "
                     + "; ".join(unsure))
    study = finish_study({**study_args, "descriptions": [q.description for q in wanted],
                          "units": [q.unit for q in wanted], "reference": described,
                     "reference_values": ref, "wall_time": np.array([r.seconds for r in runs]), "notes": notes},
                    values, error_h, errors, floors)
    if strict:
        study.check()
    return study


def _largest(study_args, wanted, values, ref, errors, notes):
    """For errors (E, nq, T) over the shared time nodes: the largest over the nodes (E, nq), and the
    values (L, nq) and reference (nq,) at the node of the finest level's largest error, named in a note."""
    (k, first), t_end = study_args.pop("nodes"), study_args.pop("t_end")
    at = errors[-1].argmax(axis=1)
    times = k[at] * t_end / first
    columns = np.arange(len(wanted))
    notes.append(f"errors: the largest over the {len(k)} time nodes all runs share (t = 0 to {t_end:g}, "
                 f"every {k[1] * t_end / first if len(k) > 1 else t_end:.6g}); value and reference at the node of "
                 "the finest level's largest error")
    study_args.update(time=times, error_label="max error")
    return (values[:, columns, at], None if ref is None else ref[columns, at], errors.max(axis=2))


def refinement_study(case, quantities=None, dts=None, levels=4, reference="richardson", order=2,
                     time=None, t_end=None, strict=True, log=None, progress=False):
    """Observed orders of accuracy in the time step of the outputs ``quantities`` of ``case``.

    case: a ``Case`` (``casefile.case.load_case``), a case-file path, or any object with ``model, q0, v0``
        and ``settings`` (an ``integrators.settings.SolverSettings``; optionally ``title, probes``).
    quantities: a name or a list of names (module docstring; default ``default_quantities``).
    dts: the time steps, largest first; default the case's dt halved: dt, dt/2, .., dt/2^(levels-1).
        A dt that does not divide the run length is reduced to the next step that does
        (``SolverSettings.step``); the study uses these actual steps.
    reference: how errors are measured:
        ``"richardson"`` (default): two extra runs at h_min/2 and h_min/4 and the extrapolation
            ``f4 + (f4 - f2) / (2^order - 1)`` (nominal ``order`` of the scheme, 2);
        ``"finest"``: one extra run at h_min/4;
        ``"differences"``: no extra run, errors ``|f_k - f_k+1|`` at the coarser step of each pair;
        a number (one quantity), a sequence (one per quantity) or a mapping {name: value}: an exact
            value, e.g. an analytic solution.
        ``energy_error`` is always measured against its exact value 0.
    time: the step node at which the quantities are read; it must be a step node of every run.
        Default: every time node that all runs share (``shared_nodes``), each run's error being the
        largest over them (against a given exact value: the end). t_end: run length (default the case's).
    strict: raise ``ConvergenceError`` (one line, ``.study`` holding the study) when a quantity has
        no observed order; with ``strict=False`` the reasons are in ``study.problems``.
    log: callable(str) told about every run (e.g. print), or None; progress: a progress bar of every
        run on stderr, if it is a terminal.
    """
    case = _case(case)
    names = _names(case.model, quantities)
    t_end = float(t_end or case.settings.t_end)
    if dts is None:
        if int(levels) != levels or levels < 1:
            raise ValueError(f"levels must be a positive integer, got {levels}")
        base = case.settings.replace(t_end=t_end).step
        dts = [base / 2**k for k in range(int(levels))]
    counts = np.array([case.settings.replace(dt=float(dt), t_end=t_end).steps for dt in dts])
    h = t_end / counts
    if np.any(np.diff(counts) <= 0):
        raise ValueError(f"the time steps must decrease strictly (as steps of t_end = {t_end:g}: "
                         f"{', '.join(f'{x:g}' for x in h)})")
    over_nodes = time is None and isinstance(reference, str)  # not against a given value
    t_read = shared_nodes(counts) if over_nodes else _reading_time(time, t_end)
    wanted, run = _runner(case, names, t_end, t_read, log, progress)
    given = _given_reference(reference, wanted, len(h), "time step" + "s" * (len(h) != 1))
    runs = [run(int(n)) for n in counts]
    finer = [(f"dt = {h[-1] / k:.6g}", lambda k=k: run(int(counts[-1]) * k)) for k in _finer(reference, given)]
    where = {"nodes": t_read, "t_end": t_end, "time": None} if over_nodes else {"time": t_read}
    return _compare({"title": getattr(case, "title", "case"), "parameter": "dt", "count_label": "steps",
                     "h": h, "counts": counts, "quantities": names, **where},
                    wanted, runs, finer, given, reference, order, counts, strict)


def element_study(make_case, elements, quantities=None, dt=None, reference="richardson", order=4,
                  time=None, t_end=None, strict=True, log=None, progress=False, refined="elements"):
    """Observed orders of accuracy in the element length of the outputs ``quantities`` of a case
    with FEM beams, all runs at one time step; with ``refined = "segments"`` in the length of the
    floating-frame segments of its links (``model.segments``): ``elements`` are then the segments per
    link, ``make_case(k)`` the case with k segments in every link (``order`` 2: each segment is exact
    to O((theta/k)^2), ``tests/physics/test_segmented_links.py``).

    make_case: callable n -> the case (as in ``refinement_study``) with n equal elements in every beam
        body, e.g. ``lambda n: load_case(path, Options(elements=n))``; every flexible body must come out
        with n elements (straight FEM beams; a curved centre line from a mesh file keeps its mesh and a
        Rayleigh-Ritz body is one element: both are refused).
    elements: the element counts per beam, strictly increasing; h = 1 / n is the element length
        relative to the beam's length.
    dt, t_end: the time step and run length of every run (default the first case's); SettingsError
        (a ``ValueError``) before the meshes are built if the finest run's history would not fit.
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
    counts = element_counts(elements)
    first = _meshed(make_case, int(counts[0]), refined)
    names = _names(first.model, quantities)
    t_end = float(t_end or first.settings.t_end)
    settings = first.settings.replace(dt=float(dt or first.settings.dt), t_end=t_end)
    steps = settings.steps
    t_read = _reading_time(time, t_end)
    runners = {int(counts[0]): _runner(first, names, t_end, t_read, log, progress, f"{counts[0]} {refined}, ")}
    wanted = runners[int(counts[0])][0]
    given = _given_reference(reference, wanted, len(counts), "mesh" + "es" * (len(counts) != 1))
    finer = [int(counts[-1]) * k for k in _finer(reference, given)]
    finest = max([int(counts[-1]), *finer])
    try:  # before the meshes are built: q grows at most in proportion to the elements
        settings.replace(dt=settings.step).check_history(first.model.n * finest // int(counts[0]))
    except SettingsError as err:
        raise SettingsError(err.field, f"the run with {finest} {refined}: {err.message}") from None
    cases = {n: _meshed(make_case, n, refined) for n in [*counts[1:].tolist(), *finer]}
    runners.update({n: _runner(case, names, t_end, t_read, log, progress, f"{n} {refined}, ")
                    for n, case in cases.items()})
    runs = [runners[int(n)][1](steps) for n in counts]
    length = {"elements": "the element length relative to each beam's", "segments": "the segment length "
              "relative to each link's"}[refined]
    return _compare({"title": getattr(first, "title", "case"), "parameter": "h", "count_label": refined,
                     "h": 1.0 / counts, "counts": counts, "quantities": names, "time": t_read,
                     "notes": [f"h = 1 / {refined}: {length} length; "
                               f"every run with dt = {t_end / steps:.6g} ({steps} steps)"]},
                    wanted, runs, [(f"{n} {refined}", lambda n=n: runners[n][1](steps)) for n in finer],
                    given, reference, order, np.full(len(counts), steps), strict)


def _meshed(make_case, n, refined="elements"):
    """``make_case(n)``, refused (``ValueError``) unless every flexible body has n elements (with
    ``refined = "segments"``: every link n segments)."""
    case = _case(make_case(n))
    bodies = getattr(case.model, "flexible", [])
    if not bodies:
        raise ValueError("the case has no flexible (beam) bodies to refine")
    if refined == "segments":
        links = [b.name for b in bodies if SEPARATOR not in b.name]
        if len(bodies) != n * len(links):
            raise ValueError(f"{len(bodies)} beam bodies where {n} segments of each of the {len(links)} links "
                             f"({', '.join(links)}) were asked for")
        return case
    for body in bodies:
        have = len(body.beam.elements.connectivity)
        if have != n:
            raise ValueError(f"body {body.name} has {have} element{'s' * (have != 1)} where {n} were asked "
                             f"for: only straight FEM beams are meshed anew (a curved centre line keeps its "
                             f"mesh, a Rayleigh-Ritz body is one element)")
    return case


# --- output -----------------------------------------------------------------------------------

PARAMETERS = {"dt": "time step dt [s]",  # the x axis labels
              "h": "h = 1 / {counts}: the {count} length relative to its beam's [1]"}


def plot_study(study, path):
    """Log-log plot of the errors over the refinement parameter, with the least-squares lines: every axis
    in SI units (a quantity's unit in the legend where they differ), and only errors above their
    round-off level (``floors``: below it they measure round-off, not the discretisation)."""
    from ..post import plots

    fig, ax = plots.subplots(figsize=(7, 5))
    units = list(study.units) or ["1"] * len(study.quantities)
    single = len(set(units)) == 1
    hidden = []
    for j, name in enumerate(study.quantities):
        e, h = study.errors[:, j], study.error_h
        shown = e > study.floors[:, j]
        if not shown.all():
            hidden.append(name)
        if not shown.any():
            continue
        tag = name if single else f"{name} [{units[j]}]"
        if np.isfinite(study.fitted[j]):
            line, = ax.loglog(h[shown], e[shown], "o", label=tag)
            slope, intercept = fitted_order(h, e)
            ax.loglog(h, np.exp(intercept) * h**slope, "--", color=line.get_color(),
                      label=f"{tag}: fitted slope {slope:.2f}")
        else:
            ax.loglog(h[shown], e[shown], "x:", label=f"{tag} (no order)")
    ax.set_xlabel(PARAMETERS[study.parameter].format(counts=study.count_label, count=study.count_label.rstrip("s")))
    ax.set_ylabel(plots.label(study.error_label, units[0] if single else "SI unit of each quantity, in the legend"))
    below = f"\nerrors at round-off left out: {', '.join(hidden)}" if hidden else ""
    ax.set_title(f"{study.title}\nreference: {study.reference}{below}", fontsize=8)
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
    paths["json"].write_text(jsonfile.dumps(study.to_dict()))
    plot_study(study, paths["plot"])
    return paths


def convergence_benchmark(case, quantities=None, *, elements=None, segments=None, dts=None, dt=None, levels=4,
                          reference="richardson", order=None, time=None, t_end=None, folder=None, echo=print,
                          log=None, progress=False):
    """``femdyn bench convergence CASE``: a study of the case file (or ``Case``) in the time step
    (``refinement_study``, the default) or, given ``elements`` (the counts per beam), in the elements
    (``element_study`` at the time step ``dt``, the case re-read with each count and its other
    ``[flexible]`` settings) or, given ``segments`` (the counts per link), in the segments (the same,
    each segment keeping the elements per segment of the first count); the table printed by ``echo``,
    the files of ``write_study`` in ``folder`` (default ``results/<case>_convergence``, ``results/<case>_elements_convergence``,
    ``results/<case>_segments_convergence``). ``order``: the nominal order of the Richardson reference
    (default 2 in dt and in segments, 4 in elements); ``log``, ``progress`` as in
    ``refinement_study``. Returns the ``Study``;
    if a quantity has no observed order, the files and the table are written first and then
    ``ConvergenceError`` is raised (``.study`` set). ``ValueError`` (not a ``ConvergenceError``): bad
    quantities, steps, meshes or reference, before any run."""
    case = _case(case)
    common = dict(reference=reference, time=time, t_end=t_end, strict=False, log=log, progress=progress)
    if elements is not None:
        study = element_study(_remesher(case), elements, quantities, dt=dt, order=order or 4, **common)
    elif segments is not None:
        study = element_study(_remesher(case, segments[0]), segments, quantities, dt=dt, order=order or 2,
                              refined="segments", **common)
    else:
        study = refinement_study(case, quantities, dts=dts, levels=levels, order=order or 2, **common)
    default = study_folder(getattr(case, "path", "case"),
                           "elements" if elements is not None else "segments" if segments is not None else None)
    paths = write_study(study, Path(folder) if folder is not None else default)
    if echo:
        echo(study.table() + f"\n\nwritten: {', '.join(str(p) for p in paths.values())}")
    return study.check()


def study_folder(path, refined=None):
    """The default folder of the study of the case file ``path``: ``results/<case>_convergence``, in
    elements (``refined = "elements"``) ``results/<case>_elements_convergence``, in segments
    ``results/<case>_segments_convergence``."""
    return default_folder(path, f"{refined}_convergence" if refined else "convergence")


def _remesher(case, segments=None):
    """n -> ``case`` read again from its file with n elements per beam, its other flexible settings kept;
    given the first count of ``segments``, with n segments per link instead, each of the elements per
    segment that link had at that count (the case's elements over it, at least 1)."""
    settings = getattr(case, "flexible", None)
    if settings is None:  # not read from a case file; ``element_study`` refuses a case without beams
        raise ValueError("the case has no flexible (beam) bodies to refine")
    if segments is None:
        return lambda n: load_case(case.path, Options(settings.model, n, settings.modes, settings.stiffening,
                                                      settings.scale))
    per_segment = max(1, settings.elements // int(segments))
    return lambda k: load_case(case.path, Options(settings.model, per_segment * k, settings.modes,
                                                  settings.stiffening, settings.scale, k))
