"""The result folder of a run: CSV histories, ParaView series, plots and ``summary.json``.

``history.csv``  time, energies, momenta, constraint residual, Newton iterations, joint coordinates
``inputs.csv``   servo inputs (actuator torques/forces) at the step mid-times, with ``inputs.png``
``bodies.csv``   body centres and orientations (2D: angle of d1; 3D: the directors)
``probes.csv``   the case's probes: position and orientation of the deformed material point and, on
                 flexible bodies, its elastic displacement (``probes``), with ``probes.png``
``energy.png``, ``joint_coordinates.png`` [, ``joint_coordinates_dt.png`` with other time steps]
``motion.pvd`` + ``vtk/`` + ``bodies.txt``  every ``every``-th frame and the last: rigid bodies as
                 boxes with velocities, flexible bodies as their deformed centre lines with velocity,
                 displacement, elastic displacement, section forces and stress (``probes.centre_lines``)
``summary.json`` run statistics, max |.| and RMS of the probes' elastic displacements, the list of files

The energy drift is the energy balance at the end, H_end - H_0 - W_end (so the work of the loads does
not count as drift), relative to max(|H|, T) over the run.
"""
import json
from pathlib import Path

import numpy as np

from .plots import plot_energy_momentum, plot_overlay, plot_probes, plot_series
from .probes import centre_lines, elastic_statistics, probe_table
from .tables import write_csv
from .vtk import write_vtk_series


def body_motion(model, q, v):
    """Centres, rotations (columns = directors), centre velocities and angular velocities of every
    body over the frames: (F, B, dim), (F, B, dim, dim), (F, B, dim) and (F, B) in 2D or (F, B, 3).

    The angular velocity follows from the director rates: omega = d1 x d1' in the plane,
    omega = 1/2 sum_a d_a x d_a' in space."""
    centres, rotations = model.frames(q)
    velocities, rates = model.frames(v)  # director rates as columns
    if model.dim == 2:
        omega = rotations[..., 0, 0] * rates[..., 1, 0] - rotations[..., 1, 0] * rates[..., 0, 0]
    else:
        omega = 0.5 * np.cross(np.swapaxes(rotations, -1, -2), np.swapaxes(rates, -1, -2)).sum(axis=-2)
    return centres, rotations, velocities, omega


RESERVED_COLUMNS = {"t", "kinetic", "potential", "total", "work", "dissipation", "energy_balance", "constraint_residual",
                    "newton_iterations", *(f"momentum_{a}" for a in "xyz"), *(f"angular_momentum_{a}" for a in "xyz")}


def _history(model, results):
    axes = "xyz"
    columns = {"t": results.t, "kinetic": results.kinetic, "potential": results.potential,
               "total": results.total, "work": results.work, "dissipation": results.dissipation,
               "energy_balance": results.energy_balance}
    columns.update({f"momentum_{axes[i]}": results.momentum[:, i] for i in range(model.dim)})
    angular = results.angular_momentum
    names = ["z"] if angular.shape[1] == 1 else axes
    columns.update({f"angular_momentum_{a}": angular[:, i] for i, a in enumerate(names)})
    columns["constraint_residual"] = results.residual
    columns["newton_iterations"] = results.iterations
    for name, index in model.joint_coordinates.items():
        columns[name] = results.q[:, index]
        columns[f"{name}_rate"] = results.v[:, index]
    return columns


def _bodies(model, results, centres, rotations):
    columns = {"t": results.t}
    for b, body in enumerate(model.bodies):
        for i, axis in enumerate("xyz"[: model.dim]):
            columns[f"{body.name}.{axis}"] = centres[:, b, i]
        if model.dim == 2:
            columns[f"{body.name}.angle"] = np.arctan2(rotations[:, b, 1, 0], rotations[:, b, 0, 0])
        else:
            for a in range(3):
                for i, axis in enumerate("xyz"):
                    columns[f"{body.name}.d{a + 1}{axis}"] = rotations[:, b, i, a]
    return columns


def _summary(case, results, wall_time):
    model = case.model
    steps = len(results.t) - 1
    active = model.m - len(results.dropped)
    scale = max(np.abs(results.total).max(), results.kinetic.max()) or 1.0
    newton = results.iterations[1:]
    return {
        "case": str(case.path),
        "title": case.title,
        "dt": float(results.dt) if steps else case.settings.step,
        "t_end": case.settings.t_end,
        "t_reached": float(results.t[-1]),
        "steps": steps,
        "steps_planned": case.settings.steps,
        "complete": bool(results.complete),
        "message": results.message,
        "n": model.n,
        "m": model.m,
        "active_constraints": active,
        "degrees_of_freedom": model.n - active,
        "dropped_constraints": [{"constraint": row, "depends_on": list(on)} for row, on in results.dropped],
        "max_abs_energy_balance": float(np.abs(results.energy_balance).max()),
        "energy_drift": float(results.energy_balance[-1] / scale),
        "max_constraint_residual": float(results.residual.max()),
        "newton_iterations_mean": float(newton.mean()) if steps else 0.0,
        "newton_iterations_max": int(newton.max(initial=0)),
        "newton": case.settings.newton,
        "newton_factorisations": results.factorisations,
        "wall_time_s": wall_time,
        "ms_per_step": 1e3 * wall_time / steps if steps else 0.0,
        "output_every": case.output_every,
    }


def write_results(folder, case, results, wall_time, compare=None):
    """Write the result files of ``results`` (a run of ``case``) into ``folder``; returns the summary.

    ``compare``: optional list of (label, t, {coordinate name: values}) from runs with other time
    steps, overlaid with this run's joint coordinates in ``joint_coordinates_dt.png``.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = case.model
    centres, rotations, velocities, omega = body_motion(model, results.q, results.v)
    write_csv(folder / "history.csv", _history(model, results))
    write_csv(folder / "bodies.csv", _bodies(model, results, centres, rotations))
    inputs = {name: results.inputs[:, k] for k, name in enumerate(model.inputs)}
    if inputs:  # servo inputs act over each step: reported at the mid-times (000 eq. 59)
        write_csv(folder / "inputs.csv", {"t": results.t_mid, **inputs})
    probes = probe_table(model, case.probes, results.q)
    if probes:
        write_csv(folder / "probes.csv", {"t": results.t, **probes})
    if case.vtk:
        frames = np.unique(np.append(np.arange(0, len(results.t), case.output_every), len(results.t) - 1))
        lines = centre_lines(model, results.q[frames], results.v[frames]) if model.flexible else None
        write_vtk_series(folder, results.t[frames], centres[frames], rotations[frames],
                         [b.size for b in model.bodies], [b.name for b in model.bodies],
                         velocities[frames], omega[frames], lines)
    if case.plots:
        angular = results.angular_momentum
        plot_energy_momentum(folder / "energy.png", results.t, results.kinetic, results.potential,
                             results.total, angular[:, 0] if angular.shape[1] == 1 else angular,
                             results.momentum, case.title)
        coordinates = {name: results.q[:, i] for name, i in model.joint_coordinates.items()}
        if coordinates:
            plot_series(folder / "joint_coordinates.png", results.t, coordinates, "joint coordinate",
                        case.title)
        if inputs:
            plot_series(folder / "inputs.png", results.t_mid, inputs, "servo input (torque or force)",
                        case.title)
        if coordinates and compare:
            runs = [(f"{name}, dt = {results.dt:g}", results.t, y) for name, y in coordinates.items()]
            runs += [(f"{name}, {label}", t, values[name])
                     for label, t, values in compare for name in coordinates]
            plot_overlay(folder / "joint_coordinates_dt.png", runs, "joint coordinate", case.title)
        if probes:
            plot_probes(folder / "probes.png", results.t, probes, [p[0] for p in case.probes], case.title)
    summary = _summary(case, results, wall_time)
    if probes:
        summary["probes"] = elastic_statistics(probes, case.probes)
    summary["files"] = sorted([p.name + "/" if p.is_dir() else p.name for p in folder.iterdir()]
                              + ["summary.json"])
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
