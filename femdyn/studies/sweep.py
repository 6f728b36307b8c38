"""Parameter sweeps of a case (``femdyn sweep``): the design, the validated plan, and one sample's run.
The samples run on dask.distributed workers (``sweep_cluster``) into a result folder (``sweep_files``).

**Parameters** ``NAME=SPEC``. NAME is a dotted path to a numeric field of the case file
(``casefile.overrides.override``: ``bodies.leg1.beam.h``, ``bodies.3.beam.h``, ``solver.dt``, ``gravity.1``,
``loads.0.function.amplitude``) or one of the beam parameters E, rho, b, h, which sets that value in
the beam table of every beam body. SPEC is a range ``a:b:n`` (n values from a to b, both included)
or a list ``v1,v2,..``. The **full factorial** design runs every combination, the first parameter
varying slowest; the **Latin hypercube** ([McKay1979]; ``design="lhs"``) takes ranges ``a:b`` and draws
``samples`` points, one in each of the ``samples`` equal strata of every parameter (seeded).

**Samples** (``run_sample``, one case run each) return one row: the sample number, the parameter
values and ``OUTPUTS``. A sample that fails (invalid parameter, initial configuration off the
constraints, Newton failure, anything it raises) is a row with the message in ``error`` and NaN
outputs; the sweep goes on.

**Sensitivities** (``sweep_cluster.sensitivity_study``): ``sensitivity.run_study`` for one parameter
per task, all parameters in parallel; the numbers are those of ``femdyn sensitivity``.
"""
import dataclasses
import hashlib
import itertools
import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..beam.sections import section_forces
from ..casefile.beams import PARAMETERS, Options
from ..casefile.case import CaseError, load_case, read_case_data
from ..casefile.expressions import evaluate_number
from ..casefile.overrides import override
from ..post.probes import probe_table
from ..model.deviation import Deviation
from ..model.errors import ModelError
from .run import run_case

DESIGNS = ("factorial", "lhs")
OUTPUTS = {  # row columns after the parameters: description (unit)
    "deviation_max": "max over time of the probe's deviation from the rigid mechanism |dx| (m)",
    "deviation_rms": "RMS over time of the probe's deviation from the rigid mechanism |dx| (m)",
    "elastic_max": "max over time of the probe's elastic displacement |(u_x, u_y[, u_z])| (m)",
    "elastic_rms": "RMS over time of the probe's elastic displacement |(u_x, u_y[, u_z])| (m)",
    "elastic_angle_max": "max over time of |section rotation| at the probe (rad)",
    "max_stress": "max over time, beams and element ends/middles of |N|/A + |M| c/I (Pa)",
    "energy_error": "max over time of |H - H0 - W|, the energy balance (J)",
    "constraint_residual": "max over time of |Phi|, the active constraints' residual",
    "newton_mean": "Newton iterations per step, mean",
    "newton_max": "Newton iterations per step, max",
    "steps": "time steps",
    "wall_time": "seconds the sample took on its worker (load, set-up, run, outputs)",
}
FORMAT = "femdyn sweep 1"
MAX_SAMPLES = 1_000_000
_RANGE = re.compile(r"([^:]+):([^:]+)(?::([^:]+))?")
_PATH = re.compile(r"[\w-]+(\.[\w-]+)*")


# --- design --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Parameter:
    """A swept parameter: ``levels`` (a list or a range a:b:n) or ``bounds`` (a range a:b)."""

    name: str
    spec: str
    levels: tuple | None = None
    bounds: tuple | None = None


def _number(text):
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        value = evaluate_number(text)  # e.g. pi/6; ValueError if not a number
    if not math.isfinite(value):
        raise ValueError(f"'{text}' is not a finite number")
    return value


def parse_parameter(text):
    """A ``Parameter`` from ``NAME=SPEC`` (module docstring); ValueError with a one-line reason."""
    name, sep, spec = text.partition("=")
    name = name.strip()
    if not sep or not name or not spec.strip():
        raise ValueError(f"expected NAME=a:b:n or NAME=v1,v2,.., got '{text}'")
    if name not in PARAMETERS and not _PATH.fullmatch(name):
        raise ValueError(f"'{name}' is neither a beam parameter ({', '.join(PARAMETERS)}) nor a dotted "
                         "path into the case file such as bodies.leg1.beam.h")
    try:
        if ":" in spec:
            match = _RANGE.fullmatch(spec.strip())
            if not match:
                raise ValueError(f"a range is a:b or a:b:n, got '{spec}'")
            low, high = _number(match[1]), _number(match[2])
            if match[3] is None:
                return Parameter(name, spec, bounds=(low, high))
            count = match[3].strip()
            if not count.isdigit() or int(count) < 2:
                raise ValueError(f"n in a:b:n must be an integer >= 2, got '{count}' (one value: NAME=v)")
            if int(count) > MAX_SAMPLES:
                raise ValueError(f"n in a:b:n is {count}; at most {MAX_SAMPLES} samples")
            if low == high:
                raise ValueError(f"the range {spec} is empty (a = b)")
            levels = np.linspace(low, high, int(count))  # to 15 digits: 0.15, not 0.15000000000000002
            return Parameter(name, spec, levels=tuple(float(f"{x:.15g}") for x in levels))
        levels = tuple(_number(v) for v in spec.split(","))
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    if len(set(levels)) != len(levels):
        raise ValueError(f"{name}: a value is listed twice in '{spec}'")
    return Parameter(name, spec, levels=levels)


def factorial(parameters):
    """Every combination of the parameters' levels, the first parameter varying slowest: (S, P)."""
    return np.array(list(itertools.product(*(p.levels for p in parameters))), dtype=float)


def latin_hypercube(parameters, samples, seed=0):
    """``samples`` points (S, P) in the parameters' bounds, one in each of the ``samples`` equal
    strata of every parameter, at a uniformly random place in it; reproducible by ``seed``."""
    rng = np.random.default_rng(seed)
    strata = np.array([rng.permutation(samples) for _ in parameters]).T  # (S, P)
    unit = (strata + rng.random(strata.shape)) / samples
    low, high = np.array([p.bounds for p in parameters]).T
    return low + unit * (high - low)


# --- plan ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Task:
    """What a worker needs to run one sample: the case's parsed TOML (the file need not be on the
    worker) and the overrides."""

    sample: int
    values: dict  # parameter name -> value
    path: str
    data: dict
    options: Options
    overrides: dict
    probe: str | None


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: the nominal case, its parsed TOML, the parameters with the case fields they
    set, and the design ``values`` (S, P)."""

    path: Path
    data: dict
    case: object
    options: Options
    probe: str | None  # probe whose elastic displacement is reported
    t_end: float | None
    parameters: tuple
    fields: dict  # parameter name -> dotted paths it sets
    design: str
    seed: int | None
    values: np.ndarray

    @property
    def names(self):
        return [p.name for p in self.parameters]

    @property
    def columns(self):
        return ["sample", *self.names, *OUTPUTS, "error"]

    def overrides(self, sample):
        values = {"solver.t_end": self.t_end} if self.t_end is not None else {}
        for name, value in zip(self.names, self.values[sample]):
            values.update(dict.fromkeys(self.fields[name], float(value)))
        return values

    def task(self, sample):
        return Task(sample, dict(zip(self.names, self.values[sample].tolist())), str(self.path), self.data,
                    self.options, self.overrides(sample), self.probe)

    def describe(self):
        """The plan as JSON-ready data (``sweep.json``); equal plans describe a resumable sweep."""
        return {
            "format": FORMAT,
            "case": str(self.path),
            "case_sha256": hashlib.sha256(json.dumps(self.data, sort_keys=True, default=str).encode()).hexdigest(),
            "flexible": dataclasses.asdict(self.options),
            "t_end": self.t_end,
            "probe": self.probe,
            "design": self.design,
            "seed": self.seed,
            "parameters": [{"name": p.name, "spec": p.spec, "fields": list(self.fields[p.name])}
                           for p in self.parameters],
            "columns": self.columns,
            "outputs": OUTPUTS,
            "samples": self.values.tolist(),
        }


def _fields(case, data, parameter):
    """The dotted paths that ``parameter`` sets: itself, or for E, rho, b, h that key of every beam."""
    if parameter.name not in PARAMETERS:
        return (parameter.name,)
    key = PARAMETERS[parameter.name]
    beams = [item["name"] for item in data.get("bodies", []) if isinstance(item, dict) and "beam" in item]
    if not beams:
        raise CaseError(case.path, f"--param {parameter.name}", f"the case has no beam bodies, whose "
                        f"{key} {parameter.name} sets; give a dotted path to a numeric field instead")
    return tuple(f"bodies.{name}.beam.{key}" for name in beams)


def _probe_name(case, probe):
    """``probe`` (checked) or the case's first probe, or None if it has none."""
    names = [p[0] for p in case.probes]
    if probe is not None and probe not in names:
        raise CaseError(case.path, "--probe", f"unknown probe '{probe}' (known: {', '.join(names) or 'none'})")
    return probe or (names[0] if names else None)


def plan_sweep(path, parameters, design="factorial", samples=None, seed=0, probe=None, t_end=None,
               options=None):
    """Check the case, the parameters and the design before anything runs; CaseError (naming the
    file and the field or option) otherwise. Values that make a sample fail are not checked here:
    those samples become error rows."""
    path = Path(path)
    options = options or Options()
    data = read_case_data(path)
    case = load_case(path, options, {"solver.t_end": t_end} if t_end is not None else None, data)
    if design not in DESIGNS:
        raise CaseError(path, "--design", f"unknown design '{design}' (known: {', '.join(DESIGNS)})")
    if not parameters:
        raise CaseError(path, "--param", "no parameters to sweep")
    names = [p.name for p in parameters]
    for p in parameters:
        if names.count(p.name) > 1:
            raise CaseError(path, f"--param {p.name}", "given twice")
        if design == "lhs" and p.bounds is None:
            raise CaseError(path, f"--param {p.name}", f"a Latin hypercube needs a range a:b, got '{p.spec}'")
        if design == "factorial" and p.levels is None:
            raise CaseError(path, f"--param {p.name}", f"a factorial design needs a:b:n (n values from a "
                            f"to b) or a list v1,v2,.., got '{p.spec}'")
    if design == "lhs" and samples is None:
        raise CaseError(path, "--samples", "a Latin hypercube needs the number of samples")
    if design == "factorial" and samples is not None:
        raise CaseError(path, "--samples", "sets the size of a Latin hypercube (--design lhs); a factorial "
                        "design runs every combination of the values")
    fields, owner = {}, {}
    if t_end is not None:
        owner["solver.t_end"] = "--t-end"
    for p in parameters:
        fields[p.name] = _fields(case, data, p)
        for f in fields[p.name]:
            if f in owner:
                raise CaseError(path, f"--param {p.name}", f"sets {f}, which {owner[f]} sets too")
            owner[f] = f"--param {p.name}"
    count = math.prod(len(p.levels) for p in parameters) if design == "factorial" else samples
    if not 1 <= count <= MAX_SAMPLES:
        raise CaseError(path, "--param", f"{count} samples; at most {MAX_SAMPLES}")
    values = factorial(parameters) if design == "factorial" else latin_hypercube(parameters, samples, seed)
    sweep = Sweep(path, data, case, options, _probe_name(case, probe), t_end, tuple(parameters), fields,
                  design, seed if design == "lhs" else None, values)
    override(data, sweep.overrides(0), path)  # every path resolves to a numeric field
    return sweep


# --- one sample ----------------------------------------------------------------------------------

def _max_stress(model, q):
    """Max over the frames q (F, n), the beams and the element points xi = 0, 1/2, 1 of
    sigma_max = |N|/A + |M| c/I (in space + |M_y| c_z/I_y; ``sections``), the section forces of all
    frames at once; NaN without elastic coordinates or outer-fibre distances."""
    largest = np.nan
    for f in model.flexible:
        if f.beam.n_coordinates and f.beam.section.has_fibres(model.dim):
            forces = section_forces(f.beam, f.elastic_coordinates(q), stiffening=f.stiffening)
            largest = np.fmax(largest, forces.sigma_max.max())
    return float(largest)


def outputs(case, results, probe):
    """The ``OUTPUTS`` of a complete run of ``case``."""
    row = dict.fromkeys(OUTPUTS, math.nan)
    if probe is not None:
        chosen = [p for p in case.probes if p[0] == probe]
        columns = probe_table(case.model, chosen, results.q, deviation=Deviation(case.model, chosen, results.q[0]))
        dx = np.linalg.norm([columns[f"{probe}.deviation_{a}"] for a in "xyz"[:case.model.dim]], axis=0)
        row.update(deviation_max=float(np.nanmax(dx)) if np.isfinite(dx).any() else math.nan,
                   deviation_rms=float(np.sqrt(np.nanmean(dx**2))) if np.isfinite(dx).any() else math.nan)
        if f"{probe}.elastic_x" in columns:
            axes = "xyz"[:case.model.dim]
            u = np.linalg.norm([columns[f"{probe}.elastic_{a}"] for a in axes], axis=0)
            turned = ([columns[f"{probe}.elastic_angle"]] if case.model.dim == 2
                      else [columns[f"{probe}.elastic_r{a}"] for a in axes])
            row.update(elastic_max=float(u.max()), elastic_rms=float(np.sqrt(np.mean(u**2))),
                       elastic_angle_max=float(np.linalg.norm(turned, axis=0).max()))
    newton = results.iterations[1:]
    row.update(max_stress=_max_stress(case.model, results.q),
               energy_error=float(np.abs(results.energy_balance).max()),
               constraint_residual=float(results.residual.max()),
               newton_mean=float(newton.mean()), newton_max=float(newton.max()),
               steps=float(len(results.t) - 1))
    return row


def error_message(err):
    """The one-line message of a failed sample's error."""
    if isinstance(err, (CaseError, ModelError)):
        return f"{err.field}: {err.message}"
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


def error_row(task, message, wall_time=math.nan):
    """The row of a failed sample: NaN outputs and the message (on one line) in ``error``."""
    return {"sample": task.sample, **task.values, **dict.fromkeys(OUTPUTS, math.nan),
            "wall_time": wall_time, "error": " ".join(message.split()) or "failed"}


def run_sample(task):
    """Run one sample (on a worker): its row, with the error message instead of outputs if it fails.
    Ctrl-C (in-process) is passed on, not recorded."""
    return sample_row(task, lambda: load_case(task.path, task.options, task.overrides, task.data))


def sample_row(task, make_case):
    """The row of the sample ``task`` (``sample``, ``values``, ``probe``) whose case ``make_case()``
    makes (a ``Case``, or an object with model, q0, v0, settings and probes: ``api.Problem.case``): its
    run's ``outputs``, or the error message if anything fails (``run_sample``)."""
    start = time.perf_counter()
    try:
        case = make_case()
        results = run_case(case).results
        if not results.complete:
            if results.message.startswith("interrupted"):
                raise KeyboardInterrupt
            raise RuntimeError(f"the run stopped early: {results.message}")
        row = {"sample": task.sample, **task.values, **outputs(case, results, task.probe), "error": ""}
    except Exception as err:  # noqa: BLE001  (a failing sample is a row with its message)
        return error_row(task, error_message(err), time.perf_counter() - start)
    row["wall_time"] = time.perf_counter() - start
    return row


def run_local(sweep, samples=None):
    """The rows of ``samples`` (default: all) run one by one in this process."""
    return [run_sample(sweep.task(i)) for i in (range(len(sweep.values)) if samples is None else samples)]
