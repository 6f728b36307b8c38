"""``sweep``: a design study of a model built in Python, on dask.distributed workers.

A function ``build(**values) -> Problem`` makes the problem of one sample from its parameter values; it
travels to the workers (so it must be picklable: a module-level function, or one that cloudpickle can
send, as Dask does for functions of a script or notebook). Each sample runs the problem
(``Problem.run``) and gives the row of ``femdyn sweep`` (``studies.sweep.OUTPUTS``: the probe's elastic
displacement, the largest stress, the energy balance, the constraint residual, Newton's iterations),
with the failed samples as rows with their message in ``error``; the design is the full factorial or
the Latin hypercube of ``studies.sweep`` ([McKay1979]), and the samples run as ``femdyn sweep`` runs
them (``studies.sweep_cluster``: a LocalCluster, or a running scheduler, or a given client).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..io import jsonfile
from ..post.folders import output_folder, publish
from ..studies.sweep import DESIGNS, OUTPUTS, Parameter, factorial, latin_hypercube, sample_row
from ..studies.sweep_cluster import connect, run_on_cluster
from ..studies.sweep_files import PLAN, finish
from .problem import Problem
from .results import _pandas


@dataclass(frozen=True)
class ProblemTask:
    """One sample of a sweep of a Python-built model: its number, its parameter values (the keyword
    arguments of ``build``) and the probe whose elastic displacement is reported."""

    sample: int
    values: dict
    build: Callable[..., Problem]
    probe: str | None


def run_problem_sample(task: ProblemTask) -> dict[str, Any]:
    """The row of one sample (on a worker): ``studies.sweep.sample_row`` of the problem ``task.build``
    makes from the sample's values."""
    return sample_row(task, lambda: task.build(**task.values).case)


@dataclass(frozen=True)
class Plan:
    """What the sweep's files need of the study: its title, parameter names, design and columns."""

    title: str
    names: list[str]
    design: str
    seed: int | None
    values: NDArray[np.float64]
    probe: str | None
    build: str

    @property
    def case(self) -> Plan:  # the plots title the study by ``sweep.case.title``
        return self

    @property
    def columns(self) -> list[str]:
        return ["sample", *self.names, *OUTPUTS, "error"]

    def describe(self) -> dict[str, Any]:
        return {"format": "femdyn sweep 1", "case": self.build, "title": self.title, "probe": self.probe,
                "design": self.design, "seed": self.seed, "parameters": [{"name": n} for n in self.names],
                "columns": self.columns, "outputs": OUTPUTS, "samples": self.values.tolist()}


class SweepResult:
    """The rows of a sweep, one per sample in the order of the samples: ``rows`` (dicts of the
    ``columns``), a column by name (``result["elastic_max"]``), ``to_pandas()``, ``write(folder)``."""

    def __init__(self, plan: Plan, rows: list[dict[str, Any]]) -> None:
        self.plan, self.rows = plan, sorted(rows, key=lambda r: r["sample"])

    @property
    def columns(self) -> list[str]:
        return self.plan.columns

    @property
    def errors(self) -> list[dict[str, Any]]:
        """The rows of the samples that failed."""
        return [r for r in self.rows if r["error"]]

    def __getitem__(self, column: str) -> NDArray[Any]:
        if column not in self.columns:
            raise KeyError(f"no column '{column}' (columns: {', '.join(self.columns)})")
        return np.array([r[column] for r in self.rows])

    def to_pandas(self) -> Any:
        return _pandas({c: self[c] for c in self.columns})

    def __repr__(self) -> str:
        return (f"<SweepResult {self.plan.title!r}: {len(self.rows)} samples ({len(self.errors)} failed) of "
                f"{', '.join(self.plan.names)}, {self.plan.design}; columns {', '.join(self.columns)}>")

    def write(self, folder: str | Path, plots: bool = True) -> list[str]:
        """Write ``sweep.json``, ``samples.csv``, ``samples.parquet`` and the plots of ``femdyn sweep``
        into ``folder``; returns the file names."""
        def files(path: Path) -> list[str]:
            (path / PLAN).write_text(jsonfile.dumps(self.plan.describe(), indent=1))
            return finish(path, self.plan, self.rows, plots)

        return publish(output_folder(Path(folder), PLAN, "a sweep folder"), files)


def _design(parameters: Mapping[str, Sequence[float]], design: str, samples: int | None, seed: int
            ) -> tuple[list[Parameter], NDArray[np.float64]]:
    if design not in DESIGNS:
        raise ValueError(f"unknown design '{design}' (known: {', '.join(DESIGNS)})")
    if not parameters:
        raise ValueError("no parameters to sweep")
    if design == "lhs":
        if samples is None or samples < 1:
            raise ValueError("a Latin hypercube needs the number of samples")
        bounds = {name: tuple(float(x) for x in spec) for name, spec in parameters.items()}
        if any(len(b) != 2 for b in bounds.values()):
            raise ValueError("a Latin hypercube needs a range (low, high) of every parameter")
        chosen = [Parameter(name, f"{b[0]:g}:{b[1]:g}", bounds=b) for name, b in bounds.items()]
        return chosen, latin_hypercube(chosen, samples, seed)
    chosen = [Parameter(name, ",".join(f"{x:g}" for x in levels), levels=tuple(float(x) for x in levels))
              for name, levels in parameters.items()]
    return chosen, factorial(chosen)


def sweep(build: Callable[..., Problem], parameters: Mapping[str, Sequence[float]], *, design: str = "factorial",
          samples: int | None = None, seed: int = 0, probe: str | None = None, workers: int | None = None,
          scheduler: str | None = None, client: Any = None) -> SweepResult:
    """Run ``build(**values)`` for every sample of a design on dask.distributed workers (module docstring).

    Args:
        build: makes the ``Problem`` of a sample from keyword arguments, one per parameter; picklable.
        parameters: {name: values} for the full factorial design (every combination, the first parameter
            varying slowest), or {name: (low, high)} for the Latin hypercube.
        design: "factorial" or "lhs"; samples, seed: the size and seed of the Latin hypercube.
        probe: the probe whose elastic displacement is reported (default: the problem's first).
        workers: processes of a new LocalCluster (default one per core); scheduler: the address of a
            running dask scheduler instead; client: a dask.distributed Client to use instead of both.

    Returns:
        The ``SweepResult`` (failed samples are rows with their message in ``error``).
    """
    chosen, values = _design(parameters, design, samples, seed)
    names = [p.name for p in chosen]
    nominal = build(**dict(zip(names, values[0].tolist())))  # a build function that fails, fails here
    probes = [p.name for p in nominal.probes]
    if probe is not None and probe not in probes:
        raise ValueError(f"unknown probe '{probe}' (known: {', '.join(probes) or 'none'})")
    probe = probe or (probes[0] if probes else None)
    source = f"{getattr(build, '__module__', '?')}.{getattr(build, '__qualname__', repr(build))}"
    plan = Plan(nominal.case.title, names, design, seed if design == "lhs" else None, values, probe, source)
    tasks = [ProblemTask(i, dict(zip(names, row.tolist())), build, probe) for i, row in enumerate(values)]
    rows: list[dict[str, Any]] = []
    with nullcontext(client) if client is not None else connect(scheduler, workers) as connected:
        run_on_cluster(connected, tasks, rows.append, run=run_problem_sample)
    return SweepResult(plan, rows)
