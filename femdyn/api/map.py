"""``Problem.map``: the workspace map of a problem (``studies.map_plan``, ``map_pose``, ``map_point``) on
dask.distributed workers as ``femdyn map`` runs it, or in this process (``workers=0``), and its result
``MapResult``: the quantities by name as arrays of the grid's shape, ``to_pandas`` and ``write(folder)``
(the result folder of ``femdyn map``, ``studies.map_files``)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..post.folders import output_folder, publish
from ..studies import map_files
from ..studies.map_plan import MapPlan, complete_row, parse_grid, plan_map, point_row, run_local
from ..studies.sweep import Parameter
from ..studies.sweep_cluster import connect, run_on_cluster
from .results import Analysed, _pandas


class MapResult:
    """The rows of a workspace map (one per grid point, in the grid's order: the first axis slowest),
    with the quantities by name (``result["frequency_1"]``: an array of the grid's ``shape``), their SI
    ``units`` and each point's ``status`` and ``message``."""

    def __init__(self, plan: MapPlan, rows: list[dict[str, Any]]) -> None:
        self.plan = plan
        self.rows = sorted(rows, key=lambda r: r["sample"])

    @property
    def shape(self) -> tuple[int, ...]:
        return self.plan.shape

    @property
    def grid(self) -> dict[str, NDArray[np.float64]]:
        """The grid's axes: {name: levels}."""
        return {a.name: np.array(a.levels) for a in self.plan.axes}

    @property
    def quantities(self) -> list[str]:
        return self.plan.quantities

    @property
    def units(self) -> dict[str, str]:
        """{column: SI unit} of the grid's axes and the quantities."""
        return {**self.plan.axis_units, **self.plan.units}

    @property
    def status(self) -> NDArray[np.str_]:
        """Each point's status (ok, unreachable, singular, failed), of the grid's shape."""
        return np.array([r["status"] for r in self.rows]).reshape(self.shape)

    @property
    def messages(self) -> NDArray[np.str_]:
        return np.array([r["message"] for r in self.rows]).reshape(self.shape)

    def __getitem__(self, column: str) -> NDArray[np.float64]:
        """A grid axis (its value at every point) or a quantity, of the grid's shape."""
        if column not in self.plan.names and column not in self.plan.units and column != "wall_time":
            raise KeyError(f"unknown column '{column}' (known: {', '.join([*self.plan.names, *self.plan.units])})")
        return np.array([r[column] for r in self.rows], dtype=float).reshape(self.shape)

    def summary(self) -> list[str]:
        """The points by status and each quantity's worst ok point with its pose (``map_files.summary``)."""
        return map_files.summary(self.plan, self.rows)

    def to_pandas(self) -> Any:
        return _pandas({c: np.array([r[c] for r in self.rows]) for c in self.plan.columns})

    def __repr__(self) -> str:
        counts = {s: int(np.sum(self.status == s)) for s in ("ok", "unreachable", "singular", "failed")}
        return (f"<MapResult {self.plan.title!r}: {' x '.join(map(str, self.shape))} points over "
                f"{', '.join(self.plan.names)}; " + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + ">")

    def write(self, folder: str | Path, plots: bool = True) -> list[str]:
        """Write the result folder of ``femdyn map`` (``studies.map_files``); returns its file names."""
        out = output_folder(Path(folder), map_files.PLAN, "a femdyn map folder", published=False)
        written: list[str] = []

        def files(path: Path) -> None:
            written.extend(map_files.write_map(path, self.plan, self.rows, plots))

        publish(out, files)
        return written


def _axes(grid: Mapping[str, ArrayLike] | Sequence[str]) -> list[Parameter]:
    """Grid axes from {name: values} or ``NAME=a:b:n`` strings (``map_plan.parse_grid``)."""
    if isinstance(grid, Mapping):
        axes = []
        for name, values in grid.items():
            levels = tuple(float(v) for v in np.atleast_1d(np.asarray(values, dtype=float)))
            if not levels or not np.isfinite(levels).all():
                raise ValueError(f"{name}: a grid axis needs finite values, got {values!r}")
            axes.append(Parameter(name, ",".join(f"{v:.17g}" for v in levels), levels=levels))
        return axes
    return [parse_grid(text) for text in grid]


def workspace_map(problem: Analysed, grid: Mapping[str, ArrayLike] | Sequence[str], *, probe: str | None = None,
                  modes: int = 3, payload: float | ArrayLike | None = None, singular: float | None = None,
                  workers: int | None = None, scheduler: str | None = None, client: Any = None) -> MapResult:
    """The workspace map of ``problem`` (``Problem.map``: the arguments there)."""
    plan = plan_map(problem.case, _axes(grid), probe, modes, payload, singular)
    if workers == 0 and scheduler is None and client is None:
        return MapResult(plan, run_local(plan))
    rows: list[dict[str, Any]] = []
    with nullcontext(client) if client is not None else connect(scheduler, workers) as connected:
        run_on_cluster(connected, [plan.task(i) for i in range(len(plan.values))],
                       lambda row: rows.append(complete_row(plan, row)), run=point_row)
    return MapResult(plan, rows)
