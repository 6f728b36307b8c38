"""Stable inversion of a case (``integrators.inversion``) and its closed-loop check.

The case's optional table ``[inversion]`` (method = "stable", pre, post: the horizons in s before t = 0
and after t_end over which the inputs may act while the outputs rest) sets the inversion of
``femdyn invert``; the inputs are checked by a forward run of the same case with its servos and
``[control]`` removed and the inputs as joint loads on the input coordinates (``forward_case``):
piecewise linear through the steps' mid-times, the forward run starting at t = -pre from the
inversion's first state."""
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..forces import time_functions
from ..integrators.inversion import forward_check, stable_inversion
from ..casefile.case import load_case
from ..io.jsonfile import dumps
from ..io.tables import write_csv
from ..casefile.reader import Reader
from ..model.model import Model
from ..model.spec import CoordinateLoadSpec
from .run import prepare_case

METHODS = ("stable",)


@dataclass(frozen=True)
class InversionSettings:
    """How ``Problem.invert`` (``femdyn invert``, the case file's ``[inversion]``) inverts a flexible
    manipulator: ``method`` "stable" (the stable inversion of the servo constraints' zero dynamics over
    a window), with the margins ``pre`` before t = 0 and ``post`` after t_end (s) over which the
    non-causal actuator forces start and settle."""

    method: str
    pre: float  # s before t = 0
    post: float  # s after t_end


def inversion_settings(case):
    """The ``[inversion]`` table of ``case`` (defaults: stable, pre = post = 0.5 s); CaseError naming
    the field of its file where it is wrong."""
    r = Reader(case.path)
    table = r.table(case.data.get("inversion", {}), "inversion", optional=("method", "pre", "post"))
    method = r.string(table.get("method", METHODS[0]), "inversion.method")
    if method not in METHODS:
        r.fail("inversion.method", f"unknown value {method!r} (known: {', '.join(METHODS)})")
    return InversionSettings(method, r.number(table.get("pre", 0.5), "inversion.pre", positive=True),
                             r.number(table.get("post", 0.5), "inversion.post", positive=True))


def forward_case(case, inversion, flexible=None):
    """The case of the forward check: ``case`` (loaded from its file with the beams' ``flexible``
    options) without servos and inputs, the ``inversion``'s inputs as joint loads on the input
    coordinates, in the forward run's time t - t_0; built from the tables ``case`` was built from, so
    that the overrides it was loaded with hold for the forward run too."""
    data = dict(case.data)
    data.pop("servos", None)
    data.pop("control", None)
    data.pop("inversion", None)
    times = (inversion.t_mid - inversion.t[0]).tolist()
    data["loads"] = list(data.get("loads", [])) + [
        {"type": "joint", "coordinate": name, "function": {"type": "table", "times": times, "values": u.tolist()}}
        for name, u in zip(case.model.inputs, inversion.inputs.T)]
    return load_case(case.path, flexible, data=data)


def forward_model(spec, inversion):
    """The model of the forward check built from the ``model.spec.ModelSpec`` ``spec`` of a model made
    in Python (``forward_case`` for a case file): its servos and inputs removed, the ``inversion``'s
    inputs as joint loads on the input coordinates, piecewise linear in the forward run's time t - t_0."""
    times = inversion.t_mid - inversion.t[0]
    loads = tuple(CoordinateLoadSpec(name, time_functions.table(times, u))
                  for name, u in zip(spec.inputs, inversion.inputs.T))
    return Model(replace(spec, servos=(), inputs=(), coordinate_loads=spec.coordinate_loads + loads))


def invert_case(case, settings, flexible=None, check_dt=None, spec=None):
    """Stable inversion of ``case`` with its solver's dt over [-pre, t_end + post] and the closed-loop
    check (``integrators.inversion.forward_check``, at ``check_dt``, default dt): (setup, inversion,
    check). The forward model is built from the case's file (``forward_case``) or, given the model's
    ``spec`` (a model built in Python), from it (``forward_model``)."""
    setup = prepare_case(case)
    solver = case.settings
    inversion = stable_inversion(setup, solver.step, solver.t_end, settings.pre, settings.post,
                                 tolerance=solver.tolerance)
    forward = forward_case(case, inversion, flexible).model if spec is None else forward_model(spec, inversion)
    check = forward_check(setup, forward, inversion, solver.t_end, check_dt)
    return setup, inversion, check


def write_inversion(folder, case, zero, inversion, check, settings):
    """The files of ``femdyn invert`` in ``folder``: inputs.csv (t_mid and one column per input
    coordinate), check.csv (t and the servo rows' residual of the forward run) and summary.json (the
    settings, Newton's iterations, the zero dynamics ``zero``, the path error)."""
    folder = Path(folder)
    names = list(case.model.inputs)
    for file, t, values in (("inputs.csv", inversion.t_mid, inversion.inputs), ("check.csv", check.t, check.error)):
        values = np.asarray(values).reshape(len(t), -1)  # tables' format: a value not finite is an empty field
        write_csv(folder / file, {"t": t, **{name: values[:, i] for i, name in enumerate(names)}})
    summary = {"method": settings.method, "pre": settings.pre, "post": settings.post,
               "dt": float(inversion.t[1] - inversion.t[0]), "newton_iterations": inversion.iterations,
               "sigma": [float(s) for s in zero.sigma], "minimum_phase": zero.minimum_phase,
               "path_error": check.max_error}
    (folder / "summary.json").write_text(dumps(summary))
