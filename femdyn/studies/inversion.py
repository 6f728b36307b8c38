"""Stable inversion of a case (``integrators.inversion``) and its closed-loop check.

The case's optional table ``[inversion]`` (method = "stable", pre, post: the horizons in s before t = 0
and after t_end over which the inputs may act while the outputs rest) sets the inversion of
``femdyn invert``; the inputs are checked by a forward run of the same case with its servos and
``[control]`` removed and the inputs as joint loads on the input coordinates (``forward_case``):
piecewise linear through the steps' mid-times, the forward run starting at t = -pre from the
inversion's first state."""
from dataclasses import dataclass

import numpy as np

from ..integrators.inversion import forward_check, stable_inversion
from ..io.case import load_case
from ..io.reader import Reader
from .run import prepare_case

METHODS = ("stable",)


@dataclass(frozen=True)
class InversionSettings:
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


def invert_case(case, settings, flexible=None, check_dt=None):
    """Stable inversion of ``case`` with its solver's dt over [-pre, t_end + post] and the closed-loop
    check (``integrators.inversion.forward_check``, at ``check_dt``, default dt): (setup, inversion,
    check)."""
    setup = prepare_case(case)
    solver = case.settings
    inversion = stable_inversion(setup, solver.step, solver.t_end, settings.pre, settings.post,
                                 tolerance=solver.tolerance)
    forward = forward_case(case, inversion, flexible)
    check = forward_check(setup, forward.model, inversion, solver.t_end, check_dt)
    return setup, inversion, check


def inputs_table(case, inversion):
    """Rows (t_mid, inputs..) and the header of inputs.csv."""
    return ["t"] + list(case.model.inputs), np.column_stack([inversion.t_mid, inversion.inputs])
