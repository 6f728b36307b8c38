"""The files of the modes about a steady motion (``femdyn modes --moving``) and of a Campbell diagram
(``femdyn modes --sweep``), SI units throughout:

- ``motion_modes.csv``: mode, frequency_hz, damping_ratio, and the eigenvalue's real_1_s and imag_1_s
  [1/s]; ``motion_modes.json``: the same with the case, time, servos, the observer frame's angular
  velocity [rad/s], the steady motion's Newton iterations and each mode in words (its real part);
  ``motion_modes.npz``: the eigenvalues ``s``, the complex mode shapes ``shapes`` (modes x coordinates,
  unit 2-norm), the steady state ``q``, ``v``, ``t`` and the coordinates' names;
- ``campbell.csv``: the parameter's values, then per tracked mode k ``f<k>_hz``, ``zeta<k>`` (damping
  ratio) and ``mac<k>`` (MAC with its shape at the previous value); ``campbell.json`` (parameter, unit,
  the columns' meaning) and ``campbell.png``: frequency [Hz] over the parameter [its unit], one line
  per tracked mode;
- ``units.json``: {table: {column: SI unit}} of the CSV tables (as a run's, ``units``).
"""
from pathlib import Path

import numpy as np

from ..integrators.modes import describe_motion
from ..io import jsonfile
from .plots import label, legend, subplots, _save
from ..io.tables import write_csv
from ..io.units import UNITS_FILE

MOTION_MODES, CAMPBELL = "motion_modes.json", "campbell.json"  # each folder's marker


def write_motion_modes(folder, case, modes):
    """Write the files of ``modes`` (an ``integrators.campbell.MotionModes`` of ``case``'s model) into
    ``folder`` (module docstring); returns the rows of motion_modes.json."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    motion = modes.motion
    rows = [{"mode": i + 1, "frequency_hz": float(f), "damping_ratio": float(z), "real_1_s": float(s.real),
             "imag_1_s": float(s.imag), "summary": describe_motion(case.model, motion.q, x.real, most=3)}
            for i, (f, z, s, x) in enumerate(zip(modes.frequency, modes.damping_ratio, modes.s, modes.shapes))]
    columns = ("mode", "frequency_hz", "damping_ratio", "real_1_s", "imag_1_s")
    write_csv(folder / "motion_modes.csv", {c: [r[c] for r in rows] for c in columns})
    np.savez(folder / "motion_modes.npz", s=modes.s, shapes=modes.shapes, q=motion.q, v=motion.v, t=motion.t,
             coordinates=np.array(case.model.coordinate_names, dtype=str))
    (folder / UNITS_FILE).write_text(jsonfile.dumps({"motion_modes.csv": dict(
        zip(columns, ("1", "Hz", "1", "1/s", "1/s")))}))
    (folder / MOTION_MODES).write_text(jsonfile.dumps({
        "case": str(case.path), "t": motion.t, "servos": modes.servos,
        "frame_angular_velocity_rad_s": np.atleast_1d(motion.omega).tolist(), "newton_iterations": motion.iterations,
        "modes": rows,
        "about": "modes about the steady motion: eigenvalues s of the linearisation in the frame turning with "
                 "the observer (gyroscopic and centrifugal terms included), frequency |s|/(2 pi), damping ratio "
                 "-Re s/|s|"}))
    return rows


def write_campbell(folder, campbell, title=""):
    """Write the files of ``campbell`` (a ``studies.campbell.Campbell``) into ``folder`` (module
    docstring); returns the JSON summary."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name, unit, k = campbell.parameter, campbell.unit, campbell.s.shape[1]
    columns = {name: campbell.values}
    units = {name: unit}
    for i in range(k):
        columns.update({f"f{i + 1}_hz": campbell.frequency[:, i], f"zeta{i + 1}": campbell.damping_ratio[:, i],
                        f"mac{i + 1}": campbell.mac[:, i]})
        units.update({f"f{i + 1}_hz": "Hz", f"zeta{i + 1}": "1", f"mac{i + 1}": "1"})
    write_csv(folder / "campbell.csv", columns)
    (folder / UNITS_FILE).write_text(jsonfile.dumps({"campbell.csv": units}))
    data = {"parameter": name, "unit": unit, "values": campbell.values.tolist(),
            "frequency_hz": campbell.frequency.T.tolist(), "damping_ratio": campbell.damping_ratio.T.tolist(),
            "columns": "f<k>_hz, zeta<k>: frequency and damping ratio of mode k, followed over the parameter by its "
                       "shape; mac<k>: its MAC with its shape at the previous value"}
    (folder / CAMPBELL).write_text(jsonfile.dumps(data))
    fig, ax = subplots(figsize=(7, 5))
    for i in range(k):
        ax.plot(campbell.values, campbell.frequency[:, i], marker="o", markersize=3, label=f"mode {i + 1}")
    ax.set_xlabel(label(name, unit))
    ax.set_ylabel(label("frequency f", "Hz"))
    ax.set_title(f"Campbell diagram{': ' + title if title else ''}", fontsize=10)
    ax.grid(True, alpha=0.3)
    legend(ax)
    _save(fig, folder / "campbell.png")
    return data
