"""The results of a ``Problem``'s analyses, with named access and the result folder of the command line.

Every result holds its tables as {column: values} -- the columns of the CSV files that ``write`` puts in
the result folder, in SI units (README, "Running a case"): ``history`` (t, energies, momenta, constraint
residual, Newton iterations, every joint coordinate and its rate), ``bodies`` (centres, angles or
directors), ``probes`` (position, orientation and elastic displacement of every probe), ``inputs`` (servo
inputs at the time nodes, 000 eq. 84) and ``reactions`` (every joint's force and moment on each of its
bodies). ``result["theta"]`` finds a column by name in them, ``to_pandas(table)`` gives a table as a
pandas DataFrame where pandas is installed. ``write(folder)`` writes the folder that ``femdyn run``
(``io.results.write_results``), ``femdyn static``, ``femdyn modes`` (``io.equilibrium``) and
``femdyn invert`` (``studies.inversion.write_inversion``) write for the same problem.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..integrators.time_loop import Results
from ..io.equilibrium import deflections, one_frame, write_modes, write_static
from ..io.folders import output_folder, publish
from ..io.nodes import NodeTables
from ..io.probes import probe_table
from ..io.results import BODIES, HISTORY, INPUTS, PROBES, REACTIONS, bodies_columns, history_columns, write_results
from ..studies.inversion import write_inversion

if TYPE_CHECKING:
    from ..integrators.inversion import ForwardCheck, Inversion
    from ..integrators.modes import NaturalModes
    from ..integrators.setup import Setup
    from ..integrators.statics import Equilibrium
    from ..integrators.zero_dynamics import ZeroDynamics
    from ..studies.inversion import InversionSettings
    from .problem import Problem

Columns = dict[str, NDArray[np.float64]]
TABLES = {"history": HISTORY, "bodies": BODIES, "probes": PROBES, "inputs": INPUTS, "reactions": REACTIONS}


def _pandas(columns: Mapping[str, ArrayLike]) -> Any:
    """The columns as a pandas DataFrame (ImportError naming pandas where it is not installed)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas needs pandas: pip install pandas") from None
    return pandas.DataFrame(columns)


def _tables(problem: Problem, results: Results) -> dict[str, Columns]:
    """The tables of a result folder for ``results`` of ``problem`` (``io.results``' columns)."""
    model, case = problem.model, problem.case
    centres, rotations = model.frames(results.q)
    tables = {"history": history_columns(model, results), "bodies": bodies_columns(model, results, centres, rotations),
              "probes": {"t": results.t, **probe_table(model, case.probes, results.q)} if case.probes else {}}
    nodes = NodeTables(model).rows(results)
    tables.update(inputs=nodes.get(INPUTS, {}), reactions=nodes.get(REACTIONS, {}))
    return tables


class Tabled:
    """Named access to the tables of a result (module docstring)."""

    problem: Problem

    @cached_property
    def tables(self) -> dict[str, Columns]:
        """{"history" | "bodies" | "probes" | "inputs" | "reactions": {column: values}}."""
        return _tables(self.problem, self._results())

    def _results(self) -> Results:
        raise NotImplementedError

    @property
    def history(self) -> Columns:
        return self.tables["history"]

    @property
    def bodies(self) -> Columns:
        return self.tables["bodies"]

    @property
    def probes(self) -> Columns:
        return self.tables["probes"]

    @property
    def inputs(self) -> Columns:
        """The servo inputs at the time nodes (column "t" and one per actuated coordinate) [N m or N]."""
        return self.tables["inputs"]

    @property
    def reactions(self) -> Columns:
        """Every joint's force and moment on each of its bodies at the time nodes: ``J.B.force_x``, ..."""
        return self.tables["reactions"]

    @property
    def columns(self) -> dict[str, list[str]]:
        """The columns of each table."""
        return {name: list(table) for name, table in self.tables.items() if table}

    def __getitem__(self, column: str) -> NDArray[np.float64]:
        """The column named ``column`` of the first table that has it (history, bodies, probes, inputs,
        reactions; "t" is the history's)."""
        for table in self.tables.values():
            if column in table:
                return table[column]
        raise KeyError(f"no column '{column}' (columns: {', '.join(c for t in self.tables.values() for c in t)})")

    def to_pandas(self, table: str = "history") -> Any:
        """The table ``table`` (history, bodies, probes, inputs, reactions) as a pandas DataFrame."""
        if table not in TABLES:
            raise KeyError(f"unknown table '{table}' (known: {', '.join(TABLES)})")
        return _pandas(self.tables[table])


class RunResult(Tabled):
    """A run of a problem (``Problem.run``): its ``Results`` (``results``: t, q, v, energies, work,
    momenta, residual, Newton iterations), the tables by name, and the result folder ``write`` writes."""

    def __init__(self, problem: Problem, results: Results, setup: Setup, wall_time: float) -> None:
        self.problem, self.results, self.setup, self.wall_time = problem, results, setup, wall_time

    def _results(self) -> Results:
        return self.results

    @property
    def t(self) -> NDArray[np.float64]:
        return self.results.t

    @property
    def complete(self) -> bool:
        """Whether the run reached t_end (else ``message`` says why it stopped)."""
        return bool(self.results.complete)

    @property
    def message(self) -> str:
        return self.results.message

    def coordinate(self, name: str) -> NDArray[np.float64]:
        """The joint coordinate ``name`` (an angle [rad] or slide [m]) over time."""
        return self.results.q[:, self.problem.model.joint_coordinates[name]]

    def __repr__(self) -> str:
        r = self.results
        state = "complete" if r.complete else f"stopped: {r.message}"
        tables = "; ".join(f"{name}: {len(cols)} columns" for name, cols in self.columns.items())
        coordinates = ", ".join(self.problem.model.joint_coordinates) or "none"
        return (f"<RunResult {self.problem.case.title!r}: t = {r.t[0]:g} .. {r.t[-1]:g} s, {len(r.t) - 1} steps "
                f"of dt = {r.dt:g} s, {state}; joint coordinates {coordinates}; {tables}>")

    def write(self, folder: str | Path) -> dict[str, Any]:
        """Write the result folder of ``femdyn run`` (``io.results.write_results``: the tables, plots,
        ParaView series and summary.json) into ``folder``, which must be new, empty or an earlier
        result folder (replaced). Returns the summary."""
        out = output_folder(Path(folder))
        return publish(out, lambda path: write_results(path, self.problem.case, self.results, self.wall_time))


class StaticResult(Tabled):
    """A static equilibrium (``Problem.static``): ``equilibrium`` (q, lam, inputs, residuals), the servo
    inputs and probe deflections by name, the one-frame tables, and the folder of ``femdyn static``."""

    def __init__(self, problem: Problem, equilibrium: Equilibrium, start: NDArray[np.float64]) -> None:
        self.problem, self.equilibrium, self.start = problem, equilibrium, start

    def _results(self) -> Results:
        e = self.equilibrium
        return one_frame(self.problem.model, e.t, e.q, e.lam, e.iterations, e.constraint_residual)

    @property
    def q(self) -> NDArray[np.float64]:
        return self.equilibrium.q

    @property
    def servo_inputs(self) -> dict[str, float]:
        """The servo inputs that hold the pose, by actuated coordinate [N m or N] (000 eq. 84)."""
        return {name: float(u) for name, u in zip(self.problem.model.inputs, self.equilibrium.inputs)}

    @property
    def deflections(self) -> dict[str, dict[str, Any]]:
        """Every probe's displacement from the initial state and, on a flexible body, its elastic
        displacement and section rotation (``io.equilibrium.deflections``)."""
        return deflections(self.problem.case, self.equilibrium.q, self.start)

    def coordinate(self, name: str) -> float:
        return float(self.equilibrium.q[self.problem.model.joint_coordinates[name]])

    def __repr__(self) -> str:
        e = self.equilibrium
        return (f"<StaticResult {self.problem.case.title!r} at t = {e.t:g} s: {e.iterations} Newton iterations, "
                f"force residual {e.force_residual:.3g}; servo inputs {self.servo_inputs}; "
                f"probes {', '.join(self.deflections) or 'none'}>")

    def write(self, folder: str | Path) -> dict[str, Any]:
        """Write the folder of ``femdyn static`` (``io.equilibrium.write_static``); returns its static part."""
        case = replace(self.problem.case, plots=False)  # as femdyn static: a one-frame run has no curves to plot
        return publish(output_folder(Path(folder)), lambda path: write_static(path, case, self.equilibrium, self.start))


class ModesResult:
    """Natural modes (``Problem.modes``): angular frequencies ``omega`` [rad/s], ``frequency`` [Hz], the
    mode shapes, ``describe(i)`` in words; ``write`` writes the folder of ``femdyn modes``."""

    def __init__(self, problem: Problem, modes: NaturalModes, equilibrium: Equilibrium) -> None:
        self.problem, self.modes, self.equilibrium = problem, modes, equilibrium

    @property
    def omega(self) -> NDArray[np.float64]:
        return self.modes.omega

    @property
    def frequency(self) -> NDArray[np.float64]:
        return self.modes.frequency

    @property
    def shapes(self) -> NDArray[np.float64]:
        """Mass-normalised mode shapes (k, n) in the coordinates q."""
        return self.modes.shapes

    def describe(self, i: int) -> str:
        """Mode i (from 0) in words: the bodies it moves most and how."""
        return self.modes.describe(i)

    def to_pandas(self) -> Any:
        return _pandas({"mode": np.arange(1, len(self.omega) + 1), "omega_rad_s": self.omega,
                        "frequency_hz": self.frequency})

    def __repr__(self) -> str:
        hz = ", ".join(f"{f:.4g}" for f in self.frequency)
        title, count = self.problem.case.title, len(self.omega)
        return f"<ModesResult {title!r}: {count} modes at t = {self.modes.t:g} s, f = [{hz}] Hz>"

    def write(self, folder: str | Path, vtk: bool = True) -> list[dict[str, Any]]:
        """Write the folder of ``femdyn modes`` (``io.equilibrium.write_modes``); returns its rows."""
        return publish(output_folder(Path(folder), "modes.json", "an earlier modes folder"),
                       lambda path: write_modes(path, self.problem.case, self.modes, vtk=vtk))


class InversionResult:
    """A stable inversion (``Problem.invert``): the inputs by actuated coordinate at the steps' mid-times
    ``t_mid`` over [-pre, t_end + post], the zero dynamics, the closed-loop check's ``path_error``;
    ``write`` writes the folder of ``femdyn invert``."""

    def __init__(self, problem: Problem, settings: InversionSettings, inversion: Inversion, check: ForwardCheck,
                 zero: ZeroDynamics) -> None:
        self.problem, self.settings, self.inversion, self.check, self.zero = problem, settings, inversion, check, zero

    @property
    def t_mid(self) -> NDArray[np.float64]:
        return self.inversion.t_mid

    @property
    def inputs(self) -> Columns:
        """{"t": mid-times, actuated coordinate: input [N m or N]}."""
        return {"t": self.inversion.t_mid, **dict(zip(self.problem.model.inputs, self.inversion.inputs.T))}

    @property
    def path_error(self) -> float:
        """The largest residual of the servo rows in the forward run with these inputs."""
        return float(self.check.max_error)

    @property
    def minimum_phase(self) -> bool:
        return bool(self.zero.minimum_phase)

    def to_pandas(self) -> Any:
        return _pandas(self.inputs)

    def __repr__(self) -> str:
        t = self.inversion.t
        return (f"<InversionResult {self.problem.case.title!r}: t = {t[0]:g} .. {t[-1]:g} s, inputs "
                f"{', '.join(self.problem.model.inputs)}; path error {self.path_error:.3g}; "
                f"{'minimum' if self.minimum_phase else 'non-minimum'} phase>")

    def write(self, folder: str | Path) -> None:
        """Write the folder of ``femdyn invert`` (``studies.inversion.write_inversion``)."""
        publish(output_folder(Path(folder)), lambda path: write_inversion(
            path, self.problem.case, self.zero, self.inversion, self.check, self.settings))
