"""The result folder of a sweep (``femdyn sweep``): ``sweep.json`` (the plan: case digest, parameters,
design, every sample's values), ``samples.csv`` (``Table``: a row appended as each sample completes,
sorted by sample at the end), ``samples.parquet`` (pyarrow), ``response.png`` (every output against
every parameter: curves over one parameter with the others fixed for factorial designs, points for
Latin hypercubes) and ``scatter_matrix.png``.

Running the same sweep again into the same folder **resumes** (``earlier_rows``): the samples in
``samples.csv`` are kept and only the missing ones run (``retry_errors``: error rows are run again); a
different sweep (parameters, design, case contents, options) is refused.

A new sweep's folder is made whole -- ``sweep.json``, the table's header and ``.femdyn`` -- beside its
place and moved there (``folders.publish``), and every file of it is replaced whole: a sweep that fails
to start (a full disk) leaves no folder that blocks the next one.
"""
import csv
import io
import json
import math
from pathlib import Path

import numpy as np

from ..io import jsonfile
from ..casefile.case import CaseError
from ..post.folders import mark, publish, replace
from ..post.plots import DPI, label
from ..io.units import field_unit

PLAN, TABLE, PARQUET = "sweep.json", "samples.csv", "samples.parquet"
PLOTS = ("response.png", "scatter_matrix.png")
RESPONSES = {"deviation_max": "m", "deviation_rms": "m", "elastic_max": "m", "max_stress": "Pa"}
# the plotted outputs (``sweep.OUTPUTS``) and their units, the effector's deviation first; energy_error is
# not plotted (the energy-momentum scheme holds it at round-off: no data), it is in samples.csv


class Table:
    """``samples.csv``: a header of the sweep's columns and one line per sample, appended (and
    flushed) as samples complete, so that an interrupted sweep keeps what it has done. ``text``: the
    columns of words (the others are numbers; ``sample`` an integer; an undefined one, NaN, left empty
    and read back as NaN)."""

    def __init__(self, path, columns, text=("error",)):
        self.path, self.columns, self.text = Path(path), list(columns), ("sample", *text)

    def _line(self, row):
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerow(
            [row[c] if c in self.text else repr(float(row[c])) if math.isfinite(row[c]) else "" for c in self.columns])
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
                rows.append({c: int(v) if c == "sample" else v if c in self.text else float(v) if v else math.nan
                             for c, v in zip(self.columns, line)})
            except ValueError:
                continue
        return rows


def names(sweep):
    """The plan's file, the table's file and the table's text columns of a study: a sweep's, or those
    its plan names (``files``, ``text``: a workspace map's, ``map_plan.MapPlan``)."""
    plan, table = getattr(sweep, "files", (PLAN, TABLE))
    return plan, table, getattr(sweep, "text", ("error",))


def earlier_rows(out, sweep, restart=False, retry_errors=False, force=False):
    """The rows that an earlier run of the same sweep left in the result folder ``out`` (without error
    rows if ``retry_errors``; none for a new folder or with ``restart``); writes nothing. CaseError for a
    folder that holds something else (unless ``force``: it is replaced), a different sweep (unless
    ``restart``) or files that cannot be read."""
    out = Path(out)
    PLAN, TABLE, text = names(sweep)  # noqa: N806  (the study's files)
    if out.exists() and not out.is_dir():
        raise CaseError(out, "--out", "exists and is not a folder")
    if not (out.is_dir() and any(out.iterdir())):
        return []
    if not (out / PLAN).is_file():
        if force:  # a folder that is not a sweep's, replaced
            return []
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
    for row in _read_earlier(out / TABLE, Table(out / TABLE, sweep.columns, text).read, "samples"):
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


def write_folder(out, sweep, done, restart=False, force=False):
    """Write the files of a sweep into ``out`` (``open_folder``) with the rows ``done`` that
    ``earlier_rows`` has read: a new folder whole (module docstring), an earlier sweep's in place;
    ``restart`` discards an earlier sweep's files first (only those: what else the folder holds stays),
    ``force`` replaces a folder that is not a sweep's (``folders.output_folder``)."""
    out = Path(out)
    PLAN, TABLE, text = names(sweep)  # noqa: N806  (the study's files)

    def write(folder):
        replace(folder / PLAN, lambda f: f.write(jsonfile.dumps(sweep.describe(), indent=1).encode()))
        Table(folder / TABLE, sweep.columns, text).write(done)

    try:
        if not (out / PLAN).is_file() and (force or not (out.is_dir() and any(out.iterdir()))):
            publish(out, write)
            return
        if restart:
            for name in (TABLE, PARQUET, *PLOTS):
                (out / name).unlink(missing_ok=True)
            write(out)
            mark(out)
        else:
            Table(out / TABLE, sweep.columns, text).write(done)
    except OSError as err:
        raise CaseError(out, "--out", f"cannot write the sweep's files ({err.strerror or err})") from None


def write_parquet(path, columns, rows, text=("error",)):
    """The rows as a Parquet file (pyarrow), ``text`` columns as strings, an undefined number (NaN) null;
    False if pyarrow is not installed."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    types = {c: pa.int64() if c == "sample" else pa.string() if c in text else pa.float64() for c in columns}
    table = pa.table({c: pa.array([r[c] for r in rows], type=types[c], from_pandas=True) for c in columns})
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


def _label(name):
    """The axis label of a response or a swept case-file field: ``name [unit]``."""
    return label(name, {**RESPONSES, "wall_time": "s"}.get(name) or field_unit(name))


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
                    tag = ", ".join(f"{names[k]} = {v:.4g} {field_unit(names[k])}" for k, v in zip(others, key))
                    ax.plot(x[members, j], y[members], "o-", ms=3, label=tag or None)
            else:
                ax.plot(x[:, j], y, "o", ms=3)
            ax.grid(True, alpha=0.3)
            if j == 0:
                ax.set_ylabel(_label(output), fontsize=9)
            if o == len(outs) - 1:
                ax.set_xlabel(_label(name), fontsize=9)
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
                ax.set_ylabel(_label(names[i]), fontsize=7)
            if i == n - 1:
                ax.set_xlabel(_label(names[j]), fontsize=7)
    fig.suptitle(f"{sweep.case.title}: {len(data)} samples", fontsize=10)
    fig.subplots_adjust(left=0.1, right=0.98, bottom=0.08, top=0.94, wspace=0.12, hspace=0.12)
    fig.savefig(path, dpi=DPI)
