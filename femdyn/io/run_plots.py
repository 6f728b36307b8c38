"""The plots of a run's result folder (``plots``), from its tables: ``energy.png``,
``joint_coordinates.png`` (joint angles and slides on their own axes) [``joint_coordinates_dt.png``
with other time steps], ``inputs.png`` (servo torques and forces on their own axes), ``probes.png``
and ``path.png`` (every probe's path in space, rigid and flexible overlaid)."""
import numpy as np

from .plots import label, plot_energy_momentum, plot_lines, plot_paths, plot_probes, plot_series
from .units import COORDINATES, INPUTS, coordinate_kind


def write_plots(folder, case, history, probes, inputs, compare=None):
    """Write the PNG plots of a run of ``case`` into ``folder`` from the columns of its tables
    (``history``, ``probes`` ({} without probes), ``inputs`` (None without servos)); ``compare``: (label,
    t, {coordinate: values}) of runs with other time steps, for ``joint_coordinates_dt.png``."""
    model, title = case.model, case.title
    t = history["t"]
    axes = "xyz"
    angular = np.column_stack([history[f"angular_momentum_{a}"] for a in axes if f"angular_momentum_{a}" in history])
    momentum = np.column_stack([history[f"momentum_{a}"] for a in axes[: model.dim]])
    plot_energy_momentum(folder / "energy.png", t, history["kinetic"], history["potential"], history["total"],
                         angular[:, 0] if angular.shape[1] == 1 else angular, momentum, title)
    kinds = {name: coordinate_kind(model, name) for name in model.joint_coordinates}
    coordinates = {name: history[name] for name in model.joint_coordinates}
    if coordinates:
        labels = {name: label(*COORDINATES[kind]) for name, kind in kinds.items()}
        plot_series(folder / "joint_coordinates.png", t, coordinates, labels, title)
        if compare:
            lines = [(f"{name}, dt = {case.settings.step:g}", t, y, labels[name]) for name, y in coordinates.items()]
            lines += [(f"{name}, {run}", times, values[name], labels[name])
                      for run, times, values in compare for name in coordinates]
            plot_lines(folder / "joint_coordinates_dt.png", lines, title)
    if inputs is not None:
        inputs = dict(inputs)
        plot_series(folder / "inputs.png", inputs.pop("t"), inputs,
                    {name: label(*INPUTS[kinds[name]]) for name in inputs}, title)
    if probes:
        names = [p[0] for p in case.probes]
        plot_probes(folder / "probes.png", t, probes, names, title)
        plot_paths(folder / "path.png", probes, names, model.dim, title)
