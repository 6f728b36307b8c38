"""Workspace maps (``femdyn map``, ``Problem.map``): the grid, the validated plan and one point's row --
the maps of stiffness and natural frequency over a parallel robot's workspace that [Germain2015] and
[Pashkevich2009] compute robot by robot, here for any case femdyn simulates.
The points run on dask.distributed workers as the samples of a sweep do (``sweep_cluster``), into a
result folder that a repeated command resumes (``sweep_files``, ``map_files``).

**Grid** ``NAME=a:b:n`` (n values from a to b, both included) or ``NAME=v1,v2,..``, one per axis, the
first varying slowest (the full factorial of ``sweep``): NAME an actuated coordinate or an effector
coordinate ``P.x``, ``P.y`` (3D ``P.z``) of the probe P (``map_pose``).

**Points** (``point_row``): the quantities of ``map_point`` with the point's number ``sample``, its grid
values, its ``status`` -- ``ok``, ``unreachable``, ``singular`` or ``failed`` -- and a ``message``
saying why where it is not ok. Every worker prepares the case once per map (``PointStudy``, kept by the
plan's key) and then runs its points.
"""
import dataclasses
import hashlib
import json
import math
import time
import uuid
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..casefile.beams import Options
from ..casefile.case import CaseError, load_case, read_case_data
from ..io.units import COORDINATES, coordinate_kind
from ..model.errors import ModelError
from ..model.model import Model
from .map_point import PointStudy, held_model
from .map_pose import SINGULAR, Poser
from .run import prepare_case
from .sweep import Parameter, factorial, parse_parameter

FORMAT = "femdyn map 1"
STATUS = ("ok", "unreachable", "singular", "failed")
_STUDIES: dict = {}  # plan key -> PointStudy, on each worker (the case prepared once per map)


def parse_grid(text: str) -> Parameter:
    """A grid axis (``sweep.Parameter`` with its levels) from ``NAME=a:b:n`` or ``NAME=v1,v2,..``;
    ValueError with a one-line reason."""
    axis = parse_parameter(text)
    if axis.levels is None:
        raise ValueError(f"{axis.name}: a grid axis is a:b:n (n values from a to b) or a list v1,v2,.., "
                         f"got '{axis.spec}'")
    return axis


@dataclass(frozen=True)
class MapTask:
    """What a worker needs to run one point: its number and grid values, the plan's ``key`` and what
    makes the plan's ``PointStudy`` (``make``)."""

    sample: int
    values: dict
    key: str
    make: object


@dataclass(frozen=True)
class StudyMaker:
    """Makes a map's ``PointStudy`` on a worker: from a case file's parsed TOML (``path``, ``data``,
    ``options``: the file need not be on the worker) or from a ``case`` object (a problem built in Python)."""

    names: tuple
    probe: str
    modes: int
    payload: tuple | None
    singular: float
    path: str | None = None
    data: dict | None = None
    options: Options | None = None
    case: object = None

    def __call__(self) -> PointStudy:
        case = self.case if self.case is not None else load_case(self.path, self.options, None, self.data)
        return point_study(case, list(self.names), self.probe, self.modes, self.payload, self.singular)


def point_study(case, names: list, probe: str, modes: int, payload: tuple | None = None,
                singular: float | None = None) -> PointStudy:
    """The ``PointStudy`` of a map of ``case`` over the grid ``names`` at the probe ``probe``: the case
    prepared (``prepare_case``: its assembled pose is the reference), the held model, the ``Poser``."""
    chosen = next(p for p in case.probes if p[0] == probe)
    setup = prepare_case(case)
    model = held_model(case.model, payload, chosen)
    index = [b.name for b in model.bodies].index(chosen[1])
    poser = Poser(model, names, (probe, index, chosen[2]), setup.start, SINGULAR if singular is None else singular)
    return PointStudy(model, chosen, poser, modes, setup.start)


def point_row(task: MapTask) -> dict:
    """The row of one grid point (on a worker); Ctrl-C (in-process) is passed on, not recorded."""
    start = time.perf_counter()
    try:
        study = _STUDIES.get(task.key)
        if study is None:
            _STUDIES.clear()  # one map's study at a time
            study = _STUDIES[task.key] = task.make()
        row = study(list(task.values.values()))
    except Exception as err:  # noqa: BLE001  (a point that cannot be run at all is a failed row)
        row = {"status": "failed", "message": " ".join(str(err).split()) or type(err).__name__}
    return {"sample": task.sample, **task.values, **row, "wall_time": time.perf_counter() - start}


def complete_row(plan, row: dict) -> dict:
    """``row`` with every column of the plan: a point that could not be run at all (an error before its
    study, or a sweep's error row where its workers died) is failed with that message, its quantities NaN."""
    if "status" not in row:
        row = {**row, "status": "failed", "message": row.get("error") or "failed"}
    return {c: row.get(c, "" if c in plan.text else math.nan) for c in plan.columns}


@dataclass(frozen=True)
class MapPlan:
    """A validated map: its title, the grid (axes with their levels), the probe, the number of modes,
    the payload, the singular bound, the columns with their units and what makes its ``PointStudy``."""

    files: ClassVar[tuple] = ("map.json", "map.csv")  # the plan's and the table's files (``sweep_files``)
    text: ClassVar[tuple] = ("status", "message")  # the table's text columns

    title: str
    source: str
    digest: str
    axes: tuple
    probe: str
    modes: int
    payload: tuple | None
    singular: float
    units: dict  # quantity column -> SI unit
    axis_units: dict  # grid axis -> SI unit
    make: StudyMaker
    dim: int

    @property
    def names(self) -> list:
        return [a.name for a in self.axes]

    @property
    def shape(self) -> tuple:
        return tuple(len(a.levels) for a in self.axes)

    @cached_property
    def values(self) -> np.ndarray:
        return factorial(self.axes)

    @property
    def quantities(self) -> list:
        return list(self.units)

    @property
    def columns(self) -> list:
        return ["sample", *self.names, "status", *self.units, "wall_time", "message"]

    @cached_property
    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.describe(), sort_keys=True).encode()).hexdigest()[:16]

    def task(self, sample: int) -> MapTask:
        return MapTask(sample, dict(zip(self.names, self.values[sample].tolist())), self.key, self.make)

    def describe(self) -> dict:
        """The plan as JSON-ready data (``map.json``); equal plans describe a resumable map."""
        return {"format": FORMAT, "case": self.source, "case_sha256": self.digest,
                "grid": [{"name": a.name, "spec": a.spec, "levels": list(a.levels)} for a in self.axes],
                "probe": self.probe, "modes": self.modes,
                "payload": None if self.payload is None else list(self.payload),
                "singular": self.singular, "columns": self.columns,
                "units": {"sample": "1", **self.axis_units, "status": "", **self.units, "wall_time": "s",
                          "message": ""}}


def _digest(data) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def payload_vector(payload, model: Model) -> tuple | None:
    """The payload force [N] at P: a number F (along gravity, F |g|-directed; straight down without
    gravity) or a vector of dim components; None for none."""
    if payload is None:
        return None
    values = np.atleast_1d(np.asarray(payload, dtype=float))
    if values.size == 1:
        g = model.spec.gravity
        down = -np.eye(model.dim)[model.dim - 1] if g is None or not np.any(g) else np.asarray(g) / np.linalg.norm(g)
        values = values[0] * down
    if values.size != model.dim or not np.isfinite(values).all():
        raise ValueError(f"a payload is a number (N, along gravity) or {model.dim} components, got {list(values)}")
    return tuple(float(v) for v in values)


def plan_map(case, grid: list, probe: str | None = None, modes: int = 3, payload=None, singular: float | None = None,
             path=None, data: dict | None = None, options: Options | None = None) -> MapPlan:
    """Check the case, the grid and the options before anything runs (one pose, the case's own, is
    assembled); CaseError (naming the file and the option) otherwise. ``grid``: parsed axes
    (``parse_grid``); ``case``: a loaded ``Case`` (with ``path``, ``data``, ``options``: the file it came
    from, which the workers load again) or a problem's case made in Python."""
    where = getattr(case, "path", "case")
    if not grid:
        raise CaseError(where, "--grid", "no grid axes")
    names = [a.name for a in grid]
    if len(set(names)) != len(names):
        raise CaseError(where, "--grid", "an axis is given twice")
    probes = [p[0] for p in case.probes]
    if probe is not None and probe not in probes:
        raise CaseError(where, "--probe", f"unknown probe '{probe}' (known: {', '.join(probes) or 'none'})")
    if not probes:
        raise CaseError(where, "--probe", "the case has no probe: a map needs its effector point ([[probes]])")
    probe = probe or probes[0]
    if not (isinstance(modes, int) and modes >= 1):
        raise CaseError(where, "--modes", f"must be an integer >= 1, got {modes!r}")
    if singular is not None and not 0 < singular < 1:
        raise CaseError(where, "--singular", f"must be in (0, 1), got {singular!r}")
    try:
        force = payload_vector(payload, case.model)
    except ValueError as err:
        raise CaseError(where, "--payload", str(err)) from None
    count = math.prod(len(a.levels) for a in grid)
    if count > 1_000_000:
        raise CaseError(where, "--grid", f"{count} points; at most 1000000")
    try:
        study = point_study(case, names, probe, modes, force, singular)
    except ModelError as err:
        raise CaseError(where, err.field, err.message) from None
    make = StudyMaker(tuple(names), probe, modes, force, study.poser.singular, None if path is None else str(path),
                      data, options, case if path is None else None)
    axis_units = {n: "m" if study.poser.axes else COORDINATES[coordinate_kind(case.model, n)][1] for n in names}
    source = str(path) if path is not None else str(where)
    # a case file's contents and options; a problem made in Python is a map of its own (no resuming)
    digest = _digest([data, dataclasses.asdict(options or Options())]) if data is not None else uuid.uuid4().hex
    plan = MapPlan(getattr(case, "title", source), source, digest, tuple(grid), probe, modes, force,
                   study.poser.singular, study.columns, axis_units, make, case.model.dim)
    _STUDIES.clear()
    _STUDIES[plan.key] = study  # in this process: the study made for the check
    return plan


def load_plan(path, grid: list, probe: str | None = None, modes: int = 3, payload=None, singular: float | None = None,
              options: Options | None = None) -> MapPlan:
    """``plan_map`` of the case file ``path`` (``femdyn map``)."""
    path = Path(path)
    options = options or Options()
    data = read_case_data(path)
    case = load_case(path, options, None, data)
    return plan_map(case, grid, probe, modes, payload, singular, path, data, options)


def run_local(plan: MapPlan, samples: list | None = None) -> list:
    """The rows of ``samples`` (default: all) run one by one in this process."""
    chosen = range(len(plan.values)) if samples is None else samples
    return [complete_row(plan, point_row(plan.task(i))) for i in chosen]
