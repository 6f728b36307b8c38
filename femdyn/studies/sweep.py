"""Design studies on Dask (``femdyn sweep``): parameter sweeps of a case and the sensitivity study of
``femdyn sensitivity`` run on a dask.distributed cluster.

**Parameters** ``NAME=SPEC``. NAME is a dotted path to a numeric field of the case file
(``io.case.override``: ``bodies.leg1.beam.h``, ``bodies.3.beam.h``, ``solver.dt``, ``gravity.1``,
``loads.0.function.amplitude``) or one of the beam parameters E, rho, b, h, which sets that value in
the beam table of every beam body. SPEC is a range ``a:b:n`` (n values from a to b, both included)
or a list ``v1,v2,..``. The **full factorial** design runs every combination, the first parameter
varying slowest; the **Latin hypercube** (``design="lhs"``) takes ranges ``a:b`` and draws
``samples`` points, one in each of the ``samples`` equal strata of every parameter (seeded).

**Samples** run on dask.distributed workers (``run_sample``, one case run each) and return one row:
the sample number, the parameter values and ``OUTPUTS``. A sample that fails (invalid parameter,
initial configuration off the constraints, Newton failure, anything it raises) is a row with the
message in ``error`` and NaN outputs; the sweep goes on. A worker lost mid-sweep (killed, crashed, its
machine gone) has its samples re-run elsewhere by the scheduler (Dask's retries of lost tasks); a
sample whose workers die more than ``ALLOWED_FAILURES`` times is an error row (KilledWorker). For a
LocalCluster that count is set here; an external scheduler uses its own
``distributed.scheduler.allowed-failures``.

**Result folder**: ``sweep.json`` (the plan: case digest, parameters, design, every sample's
values), ``samples.csv`` (a row appended as each sample completes, sorted by sample at the end),
``samples.parquet`` (pyarrow), ``response.png`` (every output against every parameter: curves over
one parameter with the others fixed for factorial designs, points for Latin hypercubes) and
``scatter_matrix.png``. Running the same sweep again into the same folder **resumes**: the samples
in ``samples.csv`` are kept and only the missing ones run (``retry_errors``: error rows are run
again); a different sweep (parameters, design, case contents, options) is refused.

**Sensitivities** (``sensitivity_study``): ``sensitivity.run_study`` for one parameter per task, all
parameters in parallel; the numbers are those of ``femdyn sensitivity``.
"""
import csv
import dataclasses
import hashlib
import io
import itertools
import json
import logging
import math
import os
import re
import signal
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..beam.sections import section_forces
from ..integrators.setup import prepare
from ..integrators.time_loop import simulate
from ..io.beams import PARAMETERS, Options
from ..io.case import CaseError, load_case, override, read_case_data
from ..io.expressions import evaluate_number
from ..io.plots import DPI
from ..io.probes import probe_table
from ..io.progress import Progress
from ..model.errors import ModelError
from . import sensitivity

DESIGNS = ("factorial", "lhs")
OUTPUTS = {  # row columns after the parameters: description (unit)
    "elastic_max": "max over time of the probe's elastic displacement |(u_x, u_y)| (m)",
    "elastic_rms": "RMS over time of the probe's elastic displacement |(u_x, u_y)| (m)",
    "elastic_angle_max": "max over time of |section rotation| at the probe (rad)",
    "max_stress": "max over time, beams and element ends/middles of |N|/A + |M| c/I (Pa)",
    "energy_error": "max over time of |H - H0 - W|, the energy balance (J)",
    "constraint_residual": "max over time of |Phi|, the active constraints' residual",
    "newton_mean": "Newton iterations per step, mean",
    "newton_max": "Newton iterations per step, max",
    "steps": "time steps",
    "wall_time": "seconds the sample took on its worker (load, set-up, run, outputs)",
}
RESPONSES = ("elastic_max", "elastic_rms", "max_stress", "energy_error")  # plotted outputs
PLAN, TABLE, PARQUET = "sweep.json", "samples.csv", "samples.parquet"
PLOTS = ("response.png", "scatter_matrix.png")
FORMAT = "femdyn sweep 1"
MAX_SAMPLES = 1_000_000
ALLOWED_FAILURES = 3  # deaths of a sample's workers that are retried (LocalCluster); then an error row
CONNECT_TIMEOUT = "10s"
_RANGE = re.compile(r"([^:]+):([^:]+)(?::([^:]+))?")
_PATH = re.compile(r"[\w-]+(\.[\w-]+)*")


class SweepError(RuntimeError):
    """The sweep cannot go on: the cluster failed in a way that is no sample's fault."""


class ConnectError(RuntimeError):
    """The dask scheduler cannot be reached."""


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
    sigma_max = |N|/A + |M| c/I (``analysis.SectionForces``); NaN without elastic coordinates. The
    section forces are linear in the elastic coordinates: their maps are taken once, from unit
    coordinates, and applied to all frames."""
    largest = np.nan
    for f in model.flexible:
        if not f.n_elastic:
            continue
        unit = [section_forces(f.beam, e) for e in np.eye(f.n_elastic)]
        qe = q[:, f.elastic]  # (F, k)
        frames = {name: np.einsum("fj,jkp->kfp", qe, np.array([getattr(u, name) for u in unit]))
                  .reshape(len(unit[0].axial), -1) for name in ("axial", "moment")}
        forces = dataclasses.replace(unit[0], **frames)
        if forces.fibre is not None:
            largest = np.fmax(largest, forces.sigma_max.max())
    return float(largest)


def outputs(case, results, probe):
    """The ``OUTPUTS`` of a complete run of ``case``."""
    row = dict.fromkeys(OUTPUTS, math.nan)
    if probe is not None:
        columns = probe_table(case.model, [p for p in case.probes if p[0] == probe], results.q)
        if f"{probe}.elastic_x" in columns:
            u = np.hypot(columns[f"{probe}.elastic_x"], columns[f"{probe}.elastic_y"])
            row.update(elastic_max=float(u.max()), elastic_rms=float(np.sqrt(np.mean(u**2))),
                       elastic_angle_max=float(np.abs(columns[f"{probe}.elastic_angle"]).max()))
    newton = results.iterations[1:]
    row.update(max_stress=_max_stress(case.model, results.q),
               energy_error=float(np.abs(results.energy_balance).max()),
               constraint_residual=float(results.residual.max()),
               newton_mean=float(newton.mean()), newton_max=float(newton.max()),
               steps=float(len(results.t) - 1))
    return row


def _message(err):
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
    start = time.perf_counter()
    try:
        case = load_case(task.path, task.options, task.overrides, task.data)
        setup = prepare(case.model, case.q0, case.v0, tolerance=case.initial_tolerance)
        results = simulate(case.model, setup, case.dt, case.t_end, case.newton_options,
                           integrator=case.integrator, rho_inf=case.rho_inf)
        if not results.complete:
            if results.message.startswith("interrupted"):
                raise KeyboardInterrupt
            raise RuntimeError(f"the run stopped early: {results.message}")
        row = {"sample": task.sample, **task.values, **outputs(case, results, task.probe), "error": ""}
    except Exception as err:  # noqa: BLE001  (a failing sample is a row with its message)
        return error_row(task, _message(err), time.perf_counter() - start)
    row["wall_time"] = time.perf_counter() - start
    return row


def run_local(sweep, samples=None):
    """The rows of ``samples`` (default: all) run one by one in this process."""
    return [run_sample(sweep.task(i)) for i in (range(len(sweep.values)) if samples is None else samples)]


# --- the table -----------------------------------------------------------------------------------

class Table:
    """``samples.csv``: a header of the sweep's columns and one line per sample, appended (and
    flushed) as samples complete, so that an interrupted sweep keeps what it has done."""

    def __init__(self, path, columns):
        self.path, self.columns = Path(path), list(columns)

    def _line(self, row):
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(
            [row[c] if c in ("sample", "error") else repr(float(row[c])) for c in self.columns])
        return buffer.getvalue()

    def append(self, row):
        with open(self.path, "a", newline="") as f:
            f.write(self._line(row))

    def write(self, rows):
        """Replace the file by the header and ``rows`` (atomically)."""
        partial = self.path.with_name(f".{self.path.name}.partial")
        partial.write_text(",".join(self.columns) + "\n" + "".join(self._line(r) for r in rows))
        partial.replace(self.path)

    def read(self):
        """The complete rows of the file (a line cut off by a hard stop is skipped); [] if the file
        is missing or has other columns."""
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return []
        text = text[: text.rfind("\n") + 1]  # every complete row ends with a newline
        lines = list(csv.reader(io.StringIO(text, newline="")))
        if not lines or lines[0] != self.columns:
            return []
        rows = []
        for line in lines[1:]:
            if len(line) != len(self.columns):
                continue
            try:
                rows.append({c: int(v) if c == "sample" else v if c == "error" else float(v)
                             for c, v in zip(self.columns, line)})
            except ValueError:
                continue
        return rows


def earlier_rows(out, sweep, restart=False, retry_errors=False):
    """The rows that an earlier run of the same sweep left in the result folder ``out`` (without error
    rows if ``retry_errors``; none for a new folder or with ``restart``); writes nothing. CaseError for a
    folder that holds something else, a different sweep (unless ``restart``) or files that cannot be read."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CaseError(out, "--out", "exists and is not a folder")
    if not (out.is_dir() and any(out.iterdir())):
        return []
    if not (out / PLAN).is_file():
        raise CaseError(out, "--out", f"exists and is not a femdyn sweep folder (no {PLAN}); not using it")
    if restart:
        return []
    plan = sweep.describe()
    earlier = _read_earlier(out / PLAN, lambda: json.loads((out / PLAN).read_text()), "plan")
    differ = [k for k in plan if k != "case" and earlier.get(k) != plan[k]]
    if differ:
        raise CaseError(out, "--out", f"holds a different sweep (other {', '.join(differ)}); give "
                        "another --out, or --restart to replace it")
    rows = {}
    for row in _read_earlier(out / TABLE, Table(out / TABLE, sweep.columns).read, "samples"):
        # the last row of a sample wins
        if 0 <= row["sample"] < len(sweep.values) and \
                [row[n] for n in sweep.names] == sweep.values[row["sample"]].tolist():
            rows[row["sample"]] = row
    return [rows[i] for i in sorted(rows) if not (retry_errors and rows[i]["error"])]


def _read_earlier(path, read, what):
    """``read()`` of the file ``path`` of an earlier sweep; CaseError naming it if it cannot be read."""
    try:
        return read()
    except (OSError, ValueError, csv.Error) as err:  # UnicodeDecodeError is a ValueError
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise CaseError(path, "file", f"cannot read the earlier sweep's {what} ({reason}); --restart "
                        "replaces it") from None


def open_folder(out, sweep, restart=False, retry_errors=False):
    """Prepare the result folder ``out``: a new sweep writes ``sweep.json`` and the table's header;
    the same sweep again resumes: returns the rows already done (``earlier_rows``), which the table
    keeps. CaseError for a folder that holds something else or a different sweep (unless ``restart``,
    which discards an earlier sweep's files), or that cannot be written."""
    done = earlier_rows(out, sweep, restart, retry_errors)
    write_folder(out, sweep, done, restart)
    return done


def write_folder(out, sweep, done, restart=False):
    """Write the files of a sweep into ``out`` (``open_folder``) with the rows ``done`` that
    ``earlier_rows`` has read; ``restart`` discards an earlier sweep's files first."""
    out = Path(out)
    try:
        if restart:
            for name in (PLAN, TABLE, PARQUET, *PLOTS):
                (out / name).unlink(missing_ok=True)
        out.mkdir(parents=True, exist_ok=True)
        if not (out / PLAN).is_file():
            (out / PLAN).write_text(json.dumps(sweep.describe(), indent=1) + "\n")
        Table(out / TABLE, sweep.columns).write(done)
    except OSError as err:
        raise CaseError(out, "--out", f"cannot write the sweep's files ({err.strerror or err})") from None


def write_parquet(path, columns, rows):
    """The rows as a Parquet file (pyarrow); False if pyarrow is not installed."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    types = {c: pa.int64() if c == "sample" else pa.string() if c == "error" else pa.float64() for c in columns}
    table = pa.table({c: pa.array([r[c] for r in rows], type=types[c]) for c in columns})
    partial = Path(path).with_name(f".{Path(path).name}.partial")
    pq.write_table(table, partial)
    partial.replace(path)
    return True


def finish(out, sweep, rows, plots=True):
    """Sort the table by sample and write the Parquet file and the plots; returns the file names."""
    out = Path(out)
    rows = sorted(rows, key=lambda r: r["sample"])
    Table(out / TABLE, sweep.columns).write(rows)
    files = [PLAN, TABLE]
    if write_parquet(out / PARQUET, sweep.columns, rows):
        files.append(PARQUET)
    if plots and any(not r["error"] for r in rows):
        plot_responses(out / PLOTS[0], sweep, rows)
        plot_scatter_matrix(out / PLOTS[1], sweep, rows)
        files += PLOTS
    return files


# --- plots ---------------------------------------------------------------------------------------

def _responses(rows):
    """The plotted outputs that some row has a value of."""
    return [o for o in RESPONSES if any(math.isfinite(r[o]) for r in rows)]


def plot_responses(path, sweep, rows):
    """Every response against every parameter: for a factorial design one curve per combination of
    the other parameters (at most 10, else points), for a Latin hypercube the points."""
    from matplotlib.figure import Figure

    outs, names = _responses(rows) or ["wall_time"], sweep.names
    x = np.array([[r[n] for n in names] for r in rows])
    fig = Figure(figsize=(3.2 * len(names) + 1, 2.4 * len(outs) + 0.8))
    axes = np.array(fig.subplots(len(outs), len(names), squeeze=False))
    for j, name in enumerate(names):
        others = [k for k in range(len(names)) if k != j]
        groups = {}
        for i in range(len(rows)):
            groups.setdefault(tuple(x[i, others]), []).append(i)
        curves = sweep.design == "factorial" and len(groups) <= 10
        for o, output in enumerate(outs):
            ax = axes[o, j]
            y = np.array([r[output] for r in rows])
            if curves:
                for key, members in groups.items():
                    members = sorted(members, key=lambda i: x[i, j])
                    label = ", ".join(f"{names[k]}={v:.4g}" for k, v in zip(others, key)) or None
                    ax.plot(x[members, j], y[members], "o-", ms=3, label=label)
            else:
                ax.plot(x[:, j], y, "o", ms=3)
            ax.grid(True, alpha=0.3)
            if j == 0:
                ax.set_ylabel(output, fontsize=9)
            if o == len(outs) - 1:
                ax.set_xlabel(name, fontsize=9)
        if curves and len(groups) > 1:
            axes[0, j].legend(fontsize=6)
    errors = sum(1 for r in rows if r["error"])
    fig.suptitle(f"{sweep.case.title}: {len(rows)} samples" + (f" ({errors} failed, not shown)" if errors else ""),
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)


def plot_scatter_matrix(path, sweep, rows):
    """Pairwise scatter plots of the parameters and the responses, histograms on the diagonal."""
    from matplotlib.figure import Figure

    names = [*sweep.names, *_responses(rows)]
    data = np.array([[r[n] for n in names] for r in rows if not r["error"]])
    n = len(names)
    fig = Figure(figsize=(1.9 * n + 0.8, 1.9 * n + 0.8))
    axes = np.array(fig.subplots(n, n, squeeze=False))
    for i in range(n):
        for j in range(n):
            ax = axes[i, j]
            if len(data) and i == j:
                ax.hist(data[:, i], bins=min(20, max(len(data) // 2, 1)), color="tab:gray")
            elif len(data):
                ax.plot(data[:, j], data[:, i], ".", ms=3)
            ax.tick_params(labelsize=6, labelbottom=i == n - 1, labelleft=j == 0 and i > 0)
            for axis, shown in ((ax.xaxis, i == n - 1), (ax.yaxis, j == 0 and i > 0)):
                axis.get_offset_text().set(visible=shown, fontsize=6)
            if j == 0:
                ax.set_ylabel(names[i], fontsize=7)
            if i == n - 1:
                ax.set_xlabel(names[j], fontsize=7)
    fig.suptitle(f"{sweep.case.title}: {len(data)} samples", fontsize=10)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.08, top=0.94, wspace=0.12, hspace=0.12)
    fig.savefig(path, dpi=DPI)


# --- on the cluster ------------------------------------------------------------------------------

class SampleProgress(Progress):
    """The progress bar over samples: the bar of ``Progress`` with the count of failed samples where
    it shows the simulated time."""

    errors = 0

    def _line(self):
        return re.sub(r" t=\S+", f" failed {self.errors}" if self.errors else "", super()._line())


@contextmanager
def connect(scheduler=None, workers=None):
    """A dask.distributed Client to the scheduler at ``scheduler``, or to a new LocalCluster of
    ``workers`` processes (default: one per core), one thread each, with a dashboard on a free port.
    ConnectError if the scheduler cannot be reached."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, ValueError, TypeError) as err:
            raise ConnectError(f"cannot reach the dask scheduler at '{scheduler}': {err}") from None
        with client:
            yield client
        return
    count = workers or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
    with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}):
        cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR)
    try:
        with Client(cluster) as client:
            client.register_plugin(_ignore_ctrl_c(), name="femdyn-ignore-ctrl-c")
            yield client
    finally:
        cluster.close()


def _ignore_ctrl_c():
    """A worker plugin: the LocalCluster's worker processes ignore Ctrl-C, which a terminal sends to
    them too; this process stops the sweep and closes them (without their tracebacks)."""
    from distributed import WorkerPlugin

    class IgnoreCtrlC(WorkerPlugin):
        def setup(self, worker):
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)

    return IgnoreCtrlC()


def dashboard(client):
    """The address of the scheduler's dashboard and whether it is served: a scheduler serves HTTP
    (and reports the link) also without the dashboard (``--no-dashboard``), so the link is checked
    by the redirect of its root to it (cheap, unlike rendering the page)."""
    import urllib.error
    import urllib.request

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    link = client.dashboard_link
    try:
        urllib.request.build_opener(Stay).open(link.rsplit("/", 1)[0] + "/", timeout=2).close()
    except urllib.error.HTTPError as answer:
        return link, answer.code in (301, 302, 303, 307, 308)
    except (OSError, ValueError):
        return link, False
    return link, True


def run_on_cluster(client, tasks, on_row):
    """Submit ``tasks`` and call ``on_row(row)`` in this thread as each completes. A sample whose
    workers died ``allowed-failures`` times is an error row; SweepError if a sample cannot be run
    at all (the cluster's fault: cancelled futures, a worker without femdyn). Unfinished samples
    are cancelled when this returns or raises (Ctrl-C)."""
    from distributed import KilledWorker, as_completed

    token = uuid.uuid4().hex[:12]  # keys unique on a long-lived scheduler
    futures = {client.submit(run_sample, task, key=f"femdyn-sample-{task.sample}-{token}", pure=False): task
               for task in tasks}
    try:
        for future in as_completed(list(futures)):
            task = futures.pop(future)
            try:
                row = future.result()
            except KilledWorker as err:
                row = error_row(task, f"KilledWorker: every worker that ran this sample died, as many times "
                                f"as the scheduler allows ({err})")
            except Exception as err:
                reason = " ".join(_message(err).split())
                raise SweepError(f"sample {task.sample} could not be run on the cluster: {reason}") from err
            on_row(row)
    finally:
        if futures:
            client.cancel(list(futures))


def _parameter_study(plan):
    """``sensitivity.run_study`` of a one-parameter plan (a task): (t, nominal motion, Parameter),
    or the message of the run that stopped early."""
    try:
        study = sensitivity.run_study(plan)
    except (sensitivity.SensitivityError, CaseError, ModelError) as err:
        return str(err) if isinstance(err, sensitivity.SensitivityError) else _message(err)
    return study.t, study.nominal, study.parameters[0]


def sensitivity_study(client, plan, progress=None):
    """The study of ``plan`` (``sensitivity.plan_study``) with one task per parameter, each running
    ``sensitivity.run_study`` for its parameter (its own nominal run and the runs at 1 +- h, 1 +- 2h):
    the same numbers as ``femdyn sensitivity``. The tasks read the case file: the workers must see it
    at its (absolute) path. ``progress``: a ``SampleProgress`` over the parameters. SensitivityError
    if a run stops early."""
    from distributed import as_completed

    shipped = dataclasses.replace(plan, case=dataclasses.replace(plan.case, path=plan.case.path.resolve()))
    token = uuid.uuid4().hex[:12]
    futures = {client.submit(_parameter_study, dataclasses.replace(shipped, params=(name,)), pure=False,
                             key=f"femdyn-sensitivity-{name}-{token}"): name for name in plan.params}
    done = {}
    try:
        for future in as_completed(list(futures)):
            name = futures.pop(future)
            try:
                result = future.result()
            except Exception as err:
                reason = " ".join(_message(err).split())
                raise SweepError(f"the study of {name} could not be run on the cluster: {reason}") from err
            if isinstance(result, str):
                raise sensitivity.SensitivityError(result)
            done[name] = result
            if progress is not None:
                progress.update(len(done), 0.0)
    finally:
        if futures:
            client.cancel(list(futures))
    t, nominal, _ = done[plan.params[0]]
    return sensitivity.Study(plan, t, nominal, [done[name][2] for name in plan.params])
