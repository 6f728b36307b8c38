"""The result folder of a workspace map (``femdyn map``, ``MapResult.write``): ``map.json`` (the plan:
case digest, grid, probe, modes, payload, the singular bound, the columns with their SI units),
``map.csv`` (one row per grid point, appended as points complete and sorted at the end: ``sweep_files``
resumes it), ``units.json`` ({"map": {column: SI unit}}), ``map.parquet``, ``map.vts`` (a ParaView
structured grid over the grid's axes with every quantity, and ``status_code`` 0 ok, 1 unreachable,
2 singular, 3 failed, as point fields; ``io.vts``) and the plots ``map_<quantity>.png``: line plots
over a 1-D grid, heat maps over a 2-D grid (the first axis across), the points that are not ok left
blank (masked, never drawn as zero), every axis in SI units. A grid of three or more axes has no plots
(its slices are in map.vts).

The **summary** (``summary``) gives for each quantity the worst ok point and its pose: the lowest
frequency, Jacobian singular value and participation, the largest |value| of the others.
"""
import math
from pathlib import Path

import numpy as np

from ..io import jsonfile
from ..post.plots import DPI
from ..io.units import UNITS_FILE
from ..io.vts import write_structured_grid
from .map_plan import STATUS
from .sweep_files import Table, write_parquet

PLAN, TABLE, PARQUET, VTS = "map.json", "map.csv", "map.parquet", "map.vts"
LOWEST = ("frequency_", "jacobian_smallest", "participation_")  # quantities whose worst is the lowest
PLOTTED = ("sag_", "compliance_max", "frequency_", "input:", "jacobian_condition", "jacobian_smallest")


def arrays(plan, rows) -> dict:
    """{column: array of the grid's shape} of the numeric columns and ``status_code``; NaN where a point
    has no row."""
    out = {c: np.full(len(plan.values), np.nan) for c in [*plan.names, *plan.units, "status_code"]}
    for row in rows:
        i = row["sample"]
        for c in out:
            out[c][i] = STATUS.index(row["status"]) if c == "status_code" else row[c]
    out.update({n: plan.values[:, k] for k, n in enumerate(plan.names)})
    return {c: v.reshape(plan.shape) for c, v in out.items()}


def ascending(plan, grid) -> dict:
    """``grid`` (``arrays``) with every axis in ascending order (a list of values need not be)."""
    order = np.ix_(*(np.argsort(a.levels, kind="stable") for a in plan.axes))
    return {c: v[order] for c, v in grid.items()}


def write_vts(path, plan, grid) -> None:
    """``map.vts`` of the ``ascending`` grid: the grid's axes as the coordinates (a 2-D grid of ``P.x``, ``P.y`` lies in the tool
    plane), every column a point field."""
    shape = plan.shape + (1,) * (3 - len(plan.shape))
    coordinates = [grid[n].reshape(shape) for n in plan.names[:3]]
    coordinates += [np.zeros(shape)] * (3 - len(coordinates))
    fields = {c: v.reshape(shape) for c, v in grid.items() if c not in plan.names}
    write_structured_grid(path, np.stack(coordinates, axis=-1), fields)


def _file(quantity):
    return "map_" + "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in quantity) + ".png"


def plot(folder, plan, grid) -> list:
    """The PNG plots of the map (module docstring) from its ``ascending`` grid; their file names."""
    if len(plan.shape) > 2:
        return []
    from matplotlib.figure import Figure

    names = [c for c in plan.units if c.startswith(PLOTTED) and np.isfinite(grid[c]).any()]
    axis = [f"{n} [{plan.axis_units[n]}]" for n in plan.names]
    files = []
    for c in names:
        fig = Figure(figsize=(6.4, 4.8))
        ax = fig.subplots()
        values = np.ma.masked_invalid(np.where(grid["status_code"] == 0, grid[c], np.nan))
        label = f"{c} [{plan.units[c]}]"
        if len(plan.shape) == 1:
            ax.plot(grid[plan.names[0]], values, "o-", ms=3)
            ax.set_xlabel(axis[0])
            ax.set_ylabel(label)
            ax.grid(True, alpha=0.3)
        else:
            mesh = ax.pcolormesh(grid[plan.names[0]], grid[plan.names[1]], values, shading="nearest")
            fig.colorbar(mesh, ax=ax, label=label)
            ax.set_xlabel(axis[0])
            ax.set_ylabel(axis[1])
            if all(plan.axis_units[n] == "m" for n in plan.names):
                ax.set_aspect("equal")
        ax.set_title(f"{plan.title}: {c} (blank: not ok)", fontsize=9)
        fig.tight_layout()
        fig.savefig(Path(folder) / _file(c), dpi=DPI)
        files.append(_file(c))
    return files


def write_map(out, plan, rows, plots=True) -> list:
    """Write the files of the map with ``rows`` into the folder ``out`` (module docstring); returns
    the file names."""
    out = Path(out)
    rows = sorted(rows, key=lambda r: r["sample"])
    (out / PLAN).write_text(jsonfile.dumps(plan.describe(), indent=1))
    Table(out / TABLE, plan.columns, plan.text).write(rows)
    (out / UNITS_FILE).write_text(jsonfile.dumps({"map": plan.describe()["units"]}, indent=1))
    files = [PLAN, TABLE, UNITS_FILE]
    if write_parquet(out / PARQUET, plan.columns, rows, plan.text):
        files.append(PARQUET)
    grid = ascending(plan, arrays(plan, rows))
    write_vts(out / VTS, plan, grid)
    files.append(VTS)
    if plots:
        files += plot(out, plan, grid)
    return files


def summary(plan, rows) -> list:
    """Lines: the points by status, then the worst ok point of each quantity with its pose."""
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUS}
    lines = [f"{len(rows)} points: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)]
    ok = [r for r in rows if r["status"] == "ok"]
    for c in plan.units:
        values = [r[c] for r in ok if math.isfinite(r[c])]
        if not values or c.startswith(("compliance_dir_", "pose_", "actuated:")):  # directions and positions: no worst
            continue
        lowest = c.startswith(LOWEST)
        row = (min if lowest else max)(ok, key=lambda r: r[c] if lowest else abs(r[c]))
        pose = ", ".join(f"{n} = {row[n]:.6g} {plan.axis_units[n]}" for n in plan.names)
        lines.append(f"  {c}: {'lowest' if lowest else 'largest |.|'} {row[c]:.6g} {plan.units[c]} at {pose}")
    return lines
