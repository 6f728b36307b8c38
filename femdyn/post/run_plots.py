"""The plots of a run's result folder (``plots``), from its tables: ``energy.png``,
``joint_coordinates.png`` (joint angles and slides on their own axes) [``joint_coordinates_dt.png``
with other time steps], ``inputs.png`` (servo torques and forces on their own axes), ``probes.png``
and ``path.png`` (every probe's path in space, rigid and flexible overlaid), ``reactions.png``,
``gauges.png`` (the strain gauges' strain and stress).

What the plots take from the case is a ``PlotSpec``: small and picklable, so that a child process
that never saw the case draws them (``plot_child``)."""
from dataclasses import dataclass

import numpy as np

from .plots import label, plot_energy_momentum, plot_lines, plot_paths, plot_probes, plot_reactions, plot_series
from ..io.units import COORDINATES, GAUGES, INPUTS, coordinate_kind


@dataclass(frozen=True)
class PlotSpec:
    """The labels of a run's plots: ``title``, the model's ``dim``, the axis label of every joint
    coordinate (``coordinates``) and of the servo input on it (``inputs``), the probes' ``names``, the
    run's time ``step`` and the (joint, body) ``sides`` of ``reactions.csv``."""

    title: str
    dim: int
    coordinates: dict
    inputs: dict
    names: tuple
    step: float
    sides: tuple

    @classmethod
    def of(cls, case, sides):
        """The spec of a run of ``case`` whose reactions table has the columns of ``sides``."""
        model = case.model
        kinds = {name: coordinate_kind(model, name) for name in model.joint_coordinates}
        return cls(case.title, model.dim, {name: label(*COORDINATES[kind]) for name, kind in kinds.items()},
                   {name: label(*INPUTS[kind]) for name, kind in kinds.items()}, tuple(p[0] for p in case.probes),
                   case.settings.step, tuple(tuple(side) for side in sides))


def figures(folder, spec, history, probes, inputs, reactions, compare=None, gauges=None):
    """The plots of a run (``spec``) as (axes, function, arguments): ``function(*arguments)`` draws one
    PNG file into ``folder`` from the columns of the run's tables (``history``, ``probes`` ({} without
    probes), ``inputs`` (None without servos), ``reactions`` (None without joints)); ``axes``, the
    number of its axes, measures its cost. ``compare``: (label, t, {coordinate: values}) of runs with
    other time steps, for ``joint_coordinates_dt.png``; ``gauges``: the columns of ``gauges.csv`` (None without
    gauges), for ``gauges.png``: the strains [1] and stresses [Pa] on their own axes, one line per gauge."""
    title, t = spec.title, history["t"]
    axes = "xyz"
    angular = np.column_stack([history[f"angular_momentum_{a}"] for a in axes if f"angular_momentum_{a}" in history])
    momentum = np.column_stack([history[f"momentum_{a}"] for a in axes[: spec.dim]])
    out = [(3, plot_energy_momentum, (folder / "energy.png", t, history["kinetic"], history["potential"],
                                      history["total"], angular[:, 0] if angular.shape[1] == 1 else angular,
                                      momentum, title))]
    coordinates = {name: history[name] for name in spec.coordinates}
    kinds = len(set(spec.coordinates.values()))
    if coordinates:
        out.append((kinds, plot_series, (folder / "joint_coordinates.png", t, coordinates, spec.coordinates, title)))
        if compare:
            lines = [(f"{name}, dt = {spec.step:g}", t, y, spec.coordinates[name]) for name, y in coordinates.items()]
            lines += [(f"{name}, {run}", times, values[name], spec.coordinates[name])
                      for run, times, values in compare for name in coordinates]
            out.append((kinds, plot_lines, (folder / "joint_coordinates_dt.png", lines, title)))
    if inputs is not None:
        inputs = dict(inputs)
        labels = {name: spec.inputs[name] for name in inputs if name != "t"}
        out.append((len(set(labels.values())), plot_series, (folder / "inputs.png", inputs.pop("t"), inputs, labels,
                                                             title)))
    if probes:
        out.append((6, plot_probes, (folder / "probes.png", t, probes, spec.names, title)))
        out.append((1, plot_paths, (folder / "path.png", probes, spec.names, spec.dim, title)))
    if gauges is not None:
        gauges = dict(gauges)
        times = gauges.pop("t")
        labels = {name: label(*GAUGES[name.rpartition(".")[2]]) for name in gauges}
        out.append((2, plot_series, (folder / "gauges.png", times, gauges, labels, title)))
    if reactions is not None:
        out.append((2, plot_reactions, (folder / "reactions.png", reactions, spec.sides, spec.dim, title)))
    return out


def share(costs, part, parts):
    """The indices of the figures (of ``costs``) that drawer ``part`` of ``parts`` draws: the costliest
    first, each to the drawer with the least cost so far (the same split in every drawer)."""
    loads, mine = [0.0] * parts, []
    for i in sorted(range(len(costs)), key=lambda i: -costs[i]):
        k = loads.index(min(loads))
        loads[k] += costs[i]
        if k == part:
            mine.append(i)
    return sorted(mine)


def write_plots(folder, spec, history, probes, inputs, reactions, compare=None, part=0, parts=1, gauges=None):
    """Draw the plots of ``figures`` (same arguments) into ``folder``; with ``parts`` > 1 only those of
    drawer ``part`` (``share``)."""
    drawn = figures(folder, spec, history, probes, inputs, reactions, compare, gauges)
    for i in share([cost for cost, *_ in drawn], part, parts):
        _, function, arguments = drawn[i]
        function(*arguments)
