"""The results of a ``Problem``'s analyses, with named access and the result folder of the command line.

Every result holds its tables as {column: values} -- the columns of the CSV files that ``write`` puts in
the result folder, in SI units (README, "Running a case"): ``history`` (t, energies, momenta, constraint
residual, Newton iterations, every joint coordinate and its rate), ``bodies`` (centres, angles or
directors), ``probes`` (position, orientation and elastic displacement of every probe, its deviation from
the rigid mechanism and the conditioning of the rigid mechanism, ``model.deviation``: NaN where undefined,
the rigid mechanism singular, which the words of the column ``rigid_mechanism`` say, ``ok`` or
``singular``; the CSV file leaves those fields empty), ``inputs`` (servo
inputs at the time nodes, 000 eq. 84), ``reactions`` (every joint's force and moment on each of its
bodies) and ``gauges`` (every strain gauge's normal strain and stress, ``model.gauges``).
``result["theta"]`` finds a column by name in them, ``to_pandas(table)`` gives a table as a pandas DataFrame where pandas is installed, ``deviation(probe)`` a probe's deviation from the rigid
mechanism (``ProbeDeviation``) and ``deviation_summary`` the figures ``summary.json`` gives of it
(``post.probes.deviation_statistics``, ``conditioning_statistics``). ``write(folder)`` writes the folder
that ``femdyn run`` (``post.results.write_results``), ``femdyn static``, ``femdyn modes`` (``post.equilibrium``) and
``femdyn invert`` (``studies.inversion.write_inversion``) write for the same problem.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..integrators.time_loop import Results
from ..post.folders import output_folder, publish
from ..post.nodes import NodeTables
from ..post.probes import conditioning_statistics, deviation_about, deviation_statistics, probe_table
from ..post.results import (BODIES, GAUGES, HISTORY, INPUTS, PROBES, REACTIONS, bodies_columns, history_columns,
                          write_results)
from ..model.gauges import gauge_statistics, gauge_table
from ..model.deviation import UNITS, Deviation, column_names

if TYPE_CHECKING:
    from ..casefile.case import Case
    from ..integrators.inversion import ForwardCheck, Inversion
    from ..integrators.modes import NaturalModes
    from ..integrators.setup import Setup
    from ..integrators.statics import Equilibrium
    from ..integrators.zero_dynamics import ZeroDynamics
    from ..model.model import Model
    from ..studies.inversion import InversionSettings

Columns = dict[str, NDArray[np.float64]]
TABLES = {"history": HISTORY, "bodies": BODIES, "probes": PROBES, "inputs": INPUTS, "reactions": REACTIONS,
          "gauges": GAUGES}


class Analysed(Protocol):
    """What a result needs of the problem it came from (``problem.Problem``): the case it ran and its
    model. A protocol, so that the result modules do not import ``problem``, which imports them."""

    @property
    def case(self) -> Case: ...

    @property
    def model(self) -> Model: ...


def _publish(folder: str | Path, write: Callable[[Path], Any], force: bool, *kind: Any) -> Any:
    """``write`` the result folder ``folder`` beside it and move it there (``post.folders.publish``), once
    ``post.folders.output_folder`` has checked it as the folder of a new result of ``kind`` (its marker
    file and words; default a run's): new, empty or an earlier one of that kind, or with ``force``
    whatever it holds. Returns what ``write`` returns."""
    return publish(output_folder(Path(folder), *kind, force=force), write)


def _pandas(columns: Mapping[str, ArrayLike]) -> Any:
    """The columns as a pandas DataFrame (ImportError naming pandas where it is not installed)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas needs pandas: pip install pandas") from None
    return pandas.DataFrame(columns)


def _tables(problem: Analysed, results: Results, deviation: Deviation | None) -> dict[str, Columns]:
    """The tables of a result folder for ``results`` of ``problem`` (``post.results``' columns), the
    probes' with the columns of their ``deviation`` from the rigid mechanism."""
    model, case = problem.model, problem.case
    centres, rotations = model.frames(results.q)
    probes = {"t": results.t, **probe_table(model, case.probes, results.q, deviation=deviation, v=results.v,
                                            t=results.t)} if case.probes else {}
    tables = {"history": history_columns(model, results), "bodies": bodies_columns(model, results, centres, rotations),
              "probes": probes}
    nodes = NodeTables(model).rows(results)
    tables.update(inputs=nodes.get(INPUTS, {}), reactions=nodes.get(REACTIONS, {}))
    tables["gauges"] = {"t": results.t, **gauge_table(model, case.gauges, results.q)} if case.gauges else {}
    return tables


@dataclass(frozen=True)
class ProbeDeviation:
    """A probe's deviation from the rigid mechanism over the frames of a result (``model.deviation``: its
    material point's position and orientation minus those of the same point in the rigid mechanism at
    the same actuated coordinates): the columns ``P.deviation_x`` .. of ``probes.csv`` by component,
    ``x``, ``y`` (, ``z``) [m] and ``angle`` (2D) or ``rx``, ``ry``, ``rz`` (3D, the rotation vector)
    [rad]; NaN means **undefined: the rigid mechanism is singular** at that frame (it cannot be assembled
    at the frame's actuated coordinates, ``singular``; probes.csv leaves those fields empty);
    ``statistics`` are ``summary.json``'s ``probes.P.deviation`` (``max_m``, ``rms_m``, ``t_max_s`` of
    |dx|, and its rotation's, over the other frames; ``singular_frames``)."""

    name: str
    t: NDArray[np.float64]
    components: dict[str, NDArray[np.float64]]
    statistics: dict[str, Any]

    @property
    def position(self) -> NDArray[np.float64]:
        """(frames, dim) [m]: the deviation of the point's position."""
        return np.column_stack([self.components[a] for a in ("x", "y", "z") if a in self.components])

    @property
    def rotation(self) -> NDArray[np.float64]:
        """(frames, 1) in the plane, (frames, 3) in space [rad]: the deviation of its orientation."""
        return np.column_stack([v for a, v in self.components.items() if a not in ("x", "y", "z")])

    @property
    def singular(self) -> NDArray[np.bool_]:
        """(frames,): True where the rigid mechanism is singular and the deviation undefined (NaN)."""
        return np.asarray(~np.isfinite(np.column_stack(list(self.components.values()))).all(axis=1))

    @property
    def units(self) -> dict[str, str]:
        return {a: UNITS[a] for a in self.components}

    def to_pandas(self) -> Any:
        return _pandas({"t": self.t, **self.components})


class Tabled(ABC):
    """Named access to the tables of a result (module docstring)."""

    problem: Analysed

    @cached_property
    def tables(self) -> dict[str, Columns]:
        """{"history" | "bodies" | "probes" | "inputs" | "reactions" | "gauges": {column: values}}."""
        return _tables(self.problem, self._results(), self._deviation)

    @cached_property
    def _deviation(self) -> Deviation | None:
        """The probes' ``Deviation`` from the rigid mechanism (its independent rows chosen at the first
        frame, as ``post.results`` chooses them); None without probes."""
        case = self.problem.case
        return Deviation(case.model, case.probes, self._results().q[0]) if case.probes else None

    def deviation(self, probe: str) -> ProbeDeviation:
        """The deviation of the probe named ``probe`` from the rigid mechanism (``ProbeDeviation``): the
        columns ``probe.deviation_*`` of the probes table, which ``write`` puts in probes.csv."""
        names = [name for name, _, _ in self.problem.case.probes]
        if probe not in names:
            raise KeyError(f"no probe '{probe}' (probes: {', '.join(names) or 'none'})")
        table = self.probes
        components = {c.rpartition("_")[2]: table[c] for c in column_names(probe, self.problem.model.dim)}
        return ProbeDeviation(probe, table["t"], components, self.deviation_summary["probes"].get(probe, {}))

    @cached_property
    def deviation_summary(self) -> dict[str, Any]:
        """The figures of ``summary.json`` on the deviation from the rigid mechanism: ``probes`` {P:
        ``probes.P.deviation``: max, RMS and time of the max of |dx| [m] and of its rotation [rad]},
        ``deviation`` (what the rigid mechanism is held at, ``Deviation.describe``, and ``singular``: the
        frames where it is singular and the deviation undefined, ``post.probes.singular_statistics``,
        where there are such) and ``conditioning``
        (the actuated-to-effector Jacobian's condition number and smallest singular value at the start and
        their extremes, with the warning near a singular pose; None without actuated coordinates).
        Empty without probes."""
        deviation = self._deviation
        if deviation is None:
            return {}
        probes = self.probes
        return {"probes": deviation_statistics(probes, self.problem.case.probes),
                "deviation": deviation_about(probes, deviation),
                "conditioning": conditioning_statistics(probes, deviation)}

    @abstractmethod
    def _results(self) -> Results:
        """The history the tables are made of: each result type gives its own (a run's, or the
        equilibrium's one frame)."""

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
    def gauges(self) -> Columns:
        """The strain gauges' normal strain ``G.strain`` [1] and stress ``G.stress`` [Pa] at the frames
        (``model.gauges``; tension positive), as gauges.csv; {} without gauges."""
        return self.tables["gauges"]

    @cached_property
    def gauge_summary(self) -> dict[str, Any]:
        """The figures of ``summary.json`` on the gauges: {G: max and min of the strain and stress with
        their times} (``model.gauges.gauge_statistics``)."""
        gauges = self.problem.case.gauges
        return gauge_statistics(self.gauges, gauges) if gauges else {}

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
        reactions, gauges; "t" is the history's)."""
        for table in self.tables.values():
            if column in table:
                return table[column]
        raise KeyError(f"no column '{column}' (columns: {', '.join(c for t in self.tables.values() for c in t)})")

    def to_pandas(self, table: str = "history") -> Any:
        """The table ``table`` (history, bodies, probes, inputs, reactions, gauges) as a pandas DataFrame."""
        if table not in TABLES:
            raise KeyError(f"unknown table '{table}' (known: {', '.join(TABLES)})")
        return _pandas(self.tables[table])


class RunResult(Tabled):
    """A run of a problem (``Problem.run``): its ``Results`` (``results``: t, q, v, energies, work,
    momenta, residual, Newton iterations), the tables by name, and the result folder ``write`` writes."""

    def __init__(self, problem: Analysed, results: Results, setup: Setup, wall_time: float) -> None:
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

    def write(self, folder: str | Path, force: bool = False) -> dict[str, Any]:
        """Write the result folder of ``femdyn run`` (``post.results.write_results``: the tables, plots,
        ParaView series and summary.json) into ``folder``, which must be new, empty or an earlier
        result folder (replaced), or with ``force`` anything. Returns the summary."""
        return _publish(folder, lambda path: write_results(path, self.problem.case, self.results, self.wall_time),
                        force)


class StaticResult(Tabled):
    """A static equilibrium (``Problem.static``): ``equilibrium`` (q, lam, inputs, residuals), the servo
    inputs and probe deflections by name, the one-frame tables, and the folder of ``femdyn static``; the
    ``setup`` it was reached from (its ``start``, and its ``assembly`` where the pose was assembled)."""

    def __init__(self, problem: Analysed, equilibrium: Equilibrium, setup: Setup) -> None:
        self.problem, self.equilibrium, self.setup = problem, equilibrium, setup

    @property
    def start(self) -> NDArray[np.float64]:
        """The prepared initial coordinates the displacements are measured from."""
        return self.setup.start

    def _results(self) -> Results:
        e = self.equilibrium
        return Results.at_rest(self.problem.model, e.t, e.q, e.lam, e.iterations, e.constraint_residual)

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
        displacement and section rotation (``post.equilibrium.deflections``)."""
        from ..post.equilibrium import deflections

        return deflections(self.problem.case, self.equilibrium.q, self.start)

    def coordinate(self, name: str) -> float:
        return float(self.equilibrium.q[self.problem.model.joint_coordinates[name]])

    def __repr__(self) -> str:
        e = self.equilibrium
        return (f"<StaticResult {self.problem.case.title!r} at t = {e.t:g} s: {e.iterations} Newton iterations, "
                f"force residual {e.force_residual:.3g}; servo inputs {self.servo_inputs}; "
                f"probes {', '.join(self.deflections) or 'none'}>")

    def write(self, folder: str | Path, force: bool = False) -> dict[str, Any]:
        """Write the folder of ``femdyn static`` (``post.equilibrium.write_static``; ``force`` as
        ``RunResult.write``); returns its static part."""
        from ..post.equilibrium import write_static

        case = replace(self.problem.case, plots=False)  # as femdyn static: a one-frame run has no curves to plot
        return _publish(folder, lambda path: write_static(path, case, self.equilibrium, self.start), force)


class ModesResult:
    """Natural modes (``Problem.modes``): angular frequencies ``omega`` [rad/s], ``frequency`` [Hz], the
    mode shapes, the effector's part in them (``amplitude`` of every probe, ``effective_mass`` along the
    world axes), ``describe(i)`` in words; ``write`` writes the folder of ``femdyn modes``."""

    def __init__(self, problem: Analysed, modes: NaturalModes, equilibrium: Equilibrium) -> None:
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

    @cached_property
    def amplitude(self) -> dict[str, NDArray[np.float64]]:
        """Every probe's world displacement a = J phi [kg^-1/2] in each mass-normalised mode, {probe:
        (modes, dim)} (``model.participation.probe_amplitudes``): how much of the mode the effector takes part in."""
        from ..model.participation import probe_amplitudes

        probes = self.problem.case.probes
        values = probe_amplitudes(self.problem.model, probes, self.shapes)
        return {name: values[:, p] for p, (name, _, _) in enumerate(probes)}

    @cached_property
    def effective_mass(self) -> NDArray[np.float64]:
        """(modes, dim) [kg]: each mode's effective mass (phi^T M r_a)^2 / (phi^T M phi) along the world axes,
        r_a a unit rigid translation (``model.participation.effective_masses``); over all modes they add up
        to ``total_mass`` along a free translation."""
        from ..model.participation import effective_masses

        return effective_masses(self.problem.model, self.shapes)

    @property
    def total_mass(self) -> float:
        """The model's mass [kg]."""
        from ..model.participation import total_mass

        return total_mass(self.problem.model)

    def to_pandas(self) -> Any:
        """modes.csv's columns: mode, omega_rad_s, frequency_hz, every probe's amplitude P.amplitude_x ..
        [kg^-1/2] and the effective masses effective_mass_x .. [kg]."""
        axes = "xyz"[: self.problem.model.dim]
        columns = {"mode": np.arange(1, len(self.omega) + 1), "omega_rad_s": self.omega, "frequency_hz": self.frequency}
        for name, values in self.amplitude.items():
            columns.update({f"{name}.amplitude_{a}": values[:, i] for i, a in enumerate(axes)})
        columns.update({f"effective_mass_{a}": self.effective_mass[:, i] for i, a in enumerate(axes)})
        return _pandas(columns)

    def __repr__(self) -> str:
        hz = ", ".join(f"{f:.4g}" for f in self.frequency)
        title, count = self.problem.case.title, len(self.omega)
        return f"<ModesResult {title!r}: {count} modes at t = {self.modes.t:g} s, f = [{hz}] Hz>"

    def write(self, folder: str | Path, vtk: bool = True, force: bool = False) -> list[dict[str, Any]]:
        """Write the folder of ``femdyn modes`` (``post.equilibrium.write_modes``; ``vtk``: the ParaView
        series of the modes; ``force`` as ``RunResult.write``); returns its rows."""
        from ..post.equilibrium import MODES, write_modes

        return _publish(folder, lambda path: write_modes(path, self.problem.case, self.modes, vtk=vtk), force, MODES,
                        "an earlier modes folder")


class InversionResult:
    """A stable inversion (``Problem.invert``): the inputs by actuated coordinate at the steps' mid-times
    ``t_mid`` over [-pre, t_end + post], the zero dynamics, the closed-loop check's ``path_error``;
    ``write`` writes the folder of ``femdyn invert``."""

    def __init__(self, problem: Analysed, settings: InversionSettings, inversion: Inversion, check: ForwardCheck,
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

    def write(self, folder: str | Path, force: bool = False) -> None:
        """Write the folder of ``femdyn invert`` (``studies.inversion.write_inversion``; ``force`` as
        ``RunResult.write``)."""
        from ..studies.inversion import write_inversion

        _publish(folder, lambda path: write_inversion(path, self.problem.case, self.zero, self.inversion, self.check,
                                                      self.settings), force)
