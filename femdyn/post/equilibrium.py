"""Result folders of a static equilibrium (``femdyn static``) and of the natural modes at one
(``femdyn modes``), and the pose of a run's result folder at a time, from which they may start.

Static. The equilibrium (``integrators.statics.Equilibrium``) is written as the result folder of a run
with one frame (``Results.at_rest``, ``results.write_results``): ``history.csv``, ``bodies.csv``, ``probes.csv``,
``inputs.csv`` and ``reactions.csv`` (the joints' static reactions, ``model.reactions``) and the
ParaView frame at the equilibrium's time t, ``summary.json`` with ``"static"``: Newton's iterations,
the residuals, the servo inputs that hold the pose (000 eq. 84: the multipliers of the servo rows,
in N or N m by the actuated coordinate), every probe's deflection (``deflections``) and every strain
gauge's strain and stress (``gauges``: {``G.strain``, ``G.stress``}, ``model.gauges``). A probe's
deflection is first its deviation from the rigid mechanism (``model.deviation``: its position and
orientation minus the same material point's in the rigid limit assembled at the equilibrium's actuated
coordinates -- the static sag as a designer means it), then its displacement from the configuration
the equilibrium started from (the case's initial state) and, on a flexible body, its elastic
displacement and section rotation from its body frame (``probes``).

Modes. ``modes.csv`` and ``modes.json`` list the natural modes (``integrators.modes.NaturalModes``):
angular frequency [rad/s], frequency [Hz], first the effector's part in each (``model.participation``):
every probe's amplitude ``P.amplitude_x`` .. [kg^-1/2], its world displacement in the mass-normalised
mode, and the mode's effective mass ``effective_mass_x`` .. [kg] along each world axis; then (in
``modes.json``) whether zero (a free motion) or unstable, the mode in words, and each probe's deviation
shape: the linearised deviation from the rigid mechanism
(``model.deviation.deviation_shapes``) per metre of the mode's largest motion of a body's box corner or
centre-line point (m/m, rotations rad/m) -- how much of the mode the effector feels; ``mode_<k>.pvd``
animates mode k over one period: F frames q = q_eq + a sin(2 pi s) x_k with
v = 2 pi f a cos(2 pi s) x_k at s = 0, 1/F, .. (the ParaView time is s, the fraction of the period), the
amplitude a such that the largest motion of a body's box corner or a centre-line point is
``AMPLITUDE`` times the model's size.

Pose of a run. ``pose_at(folder, model, t)``: the coordinates of the frames and joint coordinates at the
row of ``bodies.csv`` and ``history.csv`` nearest t (an incomplete folder: its valid rows), the elastic
coordinates zero: a start for Newton, not a state of the run.
"""
from pathlib import Path

import numpy as np

from ..integrators.time_loop import Results
from ..model.deviation import Deviation, column_names, deviation_shapes
from ..model.motion import body_motion, largest_motion, model_size, rigid_coordinates
from ..model.gauges import gauge_table
from ..model.participation import effective_masses, probe_amplitudes, total_mass
from ..io import jsonfile
from .probes import ELASTIC, centre_lines, probe_table
from ..casefile.reader import CaseError
from .folders import valid_rows
from .results import BODIES, HISTORY, STATES, write_results
from ..io.tables import read_csv, write_csv
from ..io.units import write_units
from ..io.units import INPUTS, coordinate_kind
from ..io.vtk import write_pvd, write_vtk_frames

STATIC, MODES = "static.json", "modes.json"
FRAMES = 24  # frames of one period of a mode
AMPLITUDE = 0.05  # largest motion of a mode's animation, relative to the model's size


def input_unit(model, coordinate):
    """The unit of the input on an actuated coordinate: N m on a joint angle, N on a slide."""
    return INPUTS[coordinate_kind(model, coordinate)][1]


def deflections(case, q, start):
    """{probe: {"deviation": the deviation from the rigid mechanism at q, [dx, dy (, dz)] in m and
    "deviation_rotation" (2D [dtheta], 3D the rotation vector) in rad; "displacement": world displacement
    of the probe's material point from the coordinates ``start`` to ``q`` [m], and on a flexible body the
    ``ELASTIC`` columns at q (elastic displacement in m, section rotation in rad)}}."""
    columns = probe_table(case.model, case.probes, np.stack([start, q]))
    deviation = Deviation(case.model, case.probes, start)(q[None]) if case.probes else {}
    dim = case.model.dim
    axes = "xyz"[:dim]
    out = {}
    for name, _, _ in case.probes:
        values = [float(deviation[c][0]) for c in column_names(name, dim)]
        entry = {"deviation": values[:dim], "deviation_rotation": values[dim:],
                 "displacement": [float(np.diff(columns[f"{name}.{a}"])[0]) for a in axes]}
        entry.update({c: float(columns[f"{name}.{c}"][1]) for c in ELASTIC[case.model.dim] if f"{name}.{c}" in columns})
        out[name] = entry
    return out


def write_static(folder, case, equilibrium, start):
    """Write the result folder of ``equilibrium`` of ``case`` (module docstring) started from the
    coordinates ``start``; returns the static part of the summary."""
    model = case.model
    static = {
        "t": equilibrium.t,
        "newton_iterations": equilibrium.iterations,
        "force_residual": equilibrium.force_residual,
        "constraint_residual": equilibrium.constraint_residual,
        "inputs": {name: {"value": float(u), "unit": input_unit(model, name)}
                   for name, u in zip(model.inputs, equilibrium.inputs)},
        "probes": deflections(case, equilibrium.q, start),
        "deviation": Deviation(model, case.probes, start).describe() if case.probes else None,
        "gauges": {name: float(value[0]) for name, value in gauge_table(model, case.gauges, equilibrium.q).items()},
        "dropped_constraints": [{"constraint": row, "depends_on": list(on)} for row, on in equilibrium.dropped],
    }
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / STATIC).write_text(jsonfile.dumps(static))
    results = Results.at_rest(model, equilibrium.t, equilibrium.q, equilibrium.lam, equilibrium.iterations,
                               equilibrium.constraint_residual)
    summary = write_results(folder, case, results)
    summary["static"] = static
    (Path(folder) / "summary.json").write_text(jsonfile.dumps(summary))
    return static


def pose_at(folder, model, t):
    """Coordinates (n,) of the run in the result ``folder`` at the row nearest time t (module
    docstring); CaseError (--result, --at) if the folder is not a run's of this model or t outside it."""
    folder = Path(folder)
    try:
        bodies, history = (read_csv(folder / table, valid_rows(folder, table)[0]) for table in (BODIES, HISTORY))
    except (OSError, ValueError) as err:
        raise CaseError(folder, "--result", f"not a readable femdyn result folder ({err})") from None
    dim = model.dim
    names = [f"{b.name}.{c}" for b in model.bodies
             for c in (("x", "y", "angle") if dim == 2 else (*"xyz", *(f"d{a}{i}" for a in "123" for i in "xyz")))]
    missing = [c for c in [*names, *model.joint_coordinates] if c not in bodies and c not in history]
    if missing or not len(bodies.get("t", ())):
        raise CaseError(folder, "--result", f"not a result of this case (no column {missing[0] if missing else 't'})")
    times = bodies["t"]
    k = int(np.argmin(np.abs(times - t)))
    step = float(np.median(np.diff(times))) if len(times) > 1 else 0.0
    if abs(times[k] - t) > 0.5 * step + 1e-12 * max(1.0, abs(t)):
        raise CaseError(folder, "--at", f"t = {t:g} s is outside the run in it ({times[0]:g} to {times[-1]:g} s)")
    centres = np.array([[bodies[f"{body.name}.{a}"][k] for a in "xyz"[:dim]] for body in model.bodies])
    if dim == 2:
        rotations = np.array([bodies[f"{body.name}.angle"][k] for body in model.bodies])  # angles of d_1
    else:  # the columns d_a
        rotations = np.array([[[bodies[f"{body.name}.d{a}{c}"][k] for a in "123"] for c in "xyz"]
                              for body in model.bodies])
    joints = {name: history[name][min(k, len(history[name]) - 1)] for name in model.joint_coordinates}
    return rigid_coordinates(model, centres, rotations, joints)


def state_at(folder, model, frame):
    """(t, q, v) of frame ``frame`` (from 0, the ParaView frames' numbering) of the run in the result
    ``folder``: its row of ``states.csv`` (``results.states_columns``), read as untrusted input -- a
    regular file, its header t, q.<coordinate>, v.<coordinate> over exactly ``model``'s coordinates, the
    valid rows (``folders.valid_rows``) all finite numbers. CaseError (--result) otherwise, or (--frame)
    for a frame the run does not have."""
    folder, path = Path(folder), Path(folder) / STATES
    if not path.is_file() or path.is_symlink():
        raise CaseError(folder, "--result", f"holds no {STATES} (the full state of each frame): run the case with --states "
                        "(or [output] states = true)")
    try:
        table = read_csv(path, valid_rows(folder, STATES)[0])
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise CaseError(path, "--result", f"cannot be read as a table of numbers ({' '.join(str(err).split())})"
                        ) from None
    names = model.coordinate_names
    want = ["t", *(f"q.{c}" for c in names), *(f"v.{c}" for c in names)]
    if list(table) != want:
        raise CaseError(path, "--result", f"holds {max(len(table) - 1, 0)} state columns, not t and q, v of this "
                        f"case's {model.n} coordinates (a run of another case or mesh?)")
    data = np.column_stack([table[name] for name in want]) if len(table["t"]) else np.empty((0, len(want)))
    if not np.isfinite(data).all():
        raise CaseError(path, "--result", "holds a value that is not a finite number")
    if not len(data):
        raise CaseError(path, "--result", "holds no frames")
    if not 0 <= frame < len(data):
        raise CaseError(folder, "--frame", f"must be between 0 and {len(data) - 1} (the run has {len(data)} frames), "
                        f"got {frame}")
    row = data[frame]
    return float(row[0]), row[1 : 1 + model.n].copy(), row[1 + model.n :].copy()


def write_modes(folder, case, modes, vtk=True):
    """Write ``modes.csv`` (with its ``units.json``), ``modes.json`` and (``vtk``) the series ``mode_<k>.pvd`` of ``modes`` (a
    ``NaturalModes`` of ``case``'s model) into ``folder`` (module docstring); returns the list of rows."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = case.model
    rows = [{"mode": i + 1, "omega_rad_s": float(w), "frequency_hz": float(f), "zero": bool(z), "unstable": bool(u),
             "description": modes.describe(i), "summary": modes.describe(i, most=3)}
            for i, (w, f, z, u) in enumerate(zip(modes.omega, modes.frequency, modes.zero, modes.unstable))]
    dim, axes = model.dim, "xyz"[: model.dim]
    amplitudes = probe_amplitudes(model, case.probes, modes.shapes)  # (k, P, dim) [kg^-1/2]
    masses = effective_masses(model, modes.shapes)  # (k, dim) [kg]
    for row, amplitude, mass in zip(rows, amplitudes, masses):
        row["amplitude"] = {name: a.tolist() for (name, _, _), a in zip(case.probes, amplitude)}
        row["effective_mass"] = dict(zip(axes, mass.tolist()))
    if case.probes and len(rows):
        shapes = deviation_shapes(model, case.probes, modes.q, modes.shapes)
        for row, shape, x in zip(rows, shapes, modes.shapes):
            largest = largest_motion(model, x) or 1.0
            row["deviation"] = {name: {"position": (values[:dim] / largest).tolist(),
                                       "rotation": (values[dim:] / largest).tolist()}
                                for (name, _, _), values in zip(case.probes, shape)}
    table = {"mode": [r["mode"] for r in rows], "omega_rad_s": modes.omega, "frequency_hz": modes.frequency}
    for p, (name, _, _) in enumerate(case.probes):
        table.update({f"{name}.amplitude_{a}": amplitudes[:, p, i] for i, a in enumerate(axes)})
    table.update({f"effective_mass_{a}": masses[:, i] for i, a in enumerate(axes)})
    write_csv(folder / "modes.csv", table)
    write_units(model, folder, ("modes.csv",))
    (folder / MODES).write_text(jsonfile.dumps({
        "case": str(case.path), "t": modes.t, "servos": modes.servos, "coordinates": model.n,
        "active_constraints": int(len(modes.rows)), "modes": rows,
        "amplitude": "per mode and probe: the probe's world displacement a = J phi in the mass-normalised mode "
                     "(phi^T M phi = 1) [kg^-1/2]",
        "effective_mass": "per mode and world axis a: (phi^T M r_a)^2 / (phi^T M phi) [kg], r_a a unit rigid "
                          "translation of the whole model (model.participation)",
        "total_mass_kg": total_mass(model),
        "deviation": "per mode and probe: the deviation from the rigid mechanism per metre of the mode's largest "
                     "motion (position m/m, rotation rad/m)",
        "series": "mode_<k>.pvd: one period, time = fraction of the period"}))
    if vtk:
        size = model_size(model, modes.q)
        phase = np.arange(FRAMES) / FRAMES
        for i, (shape, omega) in enumerate(zip(modes.shapes, modes.omega)):
            largest = largest_motion(model, shape)
            amplitude = AMPLITUDE * size / largest if largest > 0 else 0.0
            q = modes.q + amplitude * np.sin(2 * np.pi * phase)[:, None] * shape
            v = amplitude * np.nan_to_num(omega) * np.cos(2 * np.pi * phase)[:, None] * shape
            centres, rotations, velocities, spin = body_motion(model, q, v)
            lines = centre_lines(model, q, v, origin=modes.q) if model.flexible else None
            sub = f"mode_{i + 1}"
            entries = write_vtk_frames(folder / sub, 0, phase, centres, rotations, [b.size for b in model.bodies],
                                       [b.name for b in model.bodies], velocities, spin, lines)
            write_pvd(folder / f"{sub}.pvd", [(t, part, f"{sub}/{name}") for t, part, name in entries])
    return rows
