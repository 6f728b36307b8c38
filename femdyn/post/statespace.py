"""The files of a linear plant (``integrators.linearize.LinearPlant``): ``statespace.npz`` (the minimal
state space A, B, C, D, the descriptor form E, A_d, B_d, C_d, D_d, the basis Z of the states'
coordinates, the names and units), ``linearize.json`` (poles with frequency and damping ratio, DC
gains, transmission zeros per input-output pair) and a Bode plot ``bode_<output>_<input>.png`` per pair,
magnitude in the pair's SI unit and phase in degrees over the frequency in Hz."""
import numpy as np

from ..integrators.linearize import coordinate_row, frequency_and_damping, point_rows, reaction_names, reaction_rows
from ..model.deviation import UNITS, column_names, deviation_shapes
from ..io import jsonfile
from .plots import _save, label, subplots
from ..io.units import COORDINATES, INPUTS, coordinate_kind

STATESPACE, SUMMARY = "statespace.npz", "linearize.json"
POINTS = 400  # frequencies of a Bode plot


def _roots(s):
    """Poles or zeros as JSON rows: one per complex-conjugate pair (the one with Im s >= 0) and every real
    one, with frequency [Hz] and damping ratio."""
    s = np.asarray(s)[np.asarray(s).imag >= 0]
    frequency, ratio = frequency_and_damping(s)
    return [{"real": float(x.real), "imag": float(x.imag), "frequency_hz": float(f), "damping_ratio": float(z)}
            for x, f, z in zip(s, frequency, ratio)]


def gain_unit(output_unit, input_unit):
    """The unit of a transfer from an input in ``input_unit`` to an output in ``output_unit``."""
    return f"{output_unit}/({input_unit})" if " " in input_unit else f"{output_unit}/{input_unit}"


def summary(plant, case_path=None):
    """The JSON summary of ``plant`` (module docstring)."""
    gains = plant.dc_gains()
    pairs = [(i, j) for i in range(len(plant.outputs)) for j in range(len(plant.inputs))]
    return {"case": str(case_path) if case_path else None, "t": plant.t, "servos": plant.servos,
            "states": len(plant.states),
            "inputs": [{"name": n, "unit": u} for n, u in zip(plant.inputs, plant.input_units)],
            "outputs": [{"name": n, "unit": u} for n, u in zip(plant.outputs, plant.output_units)],
            "poles": _roots(plant.poles()),
            "dc_gains": {plant.outputs[i]: {plant.inputs[j]: {"value": gains[i, j], "unit": gain_unit(
                plant.output_units[i], plant.input_units[j])} for j in range(len(plant.inputs))}
                for i in range(len(plant.outputs))},
            "zeros": {f"{plant.outputs[i]}/{plant.inputs[j]}": _roots(plant.zeros(i, j)) for i, j in pairs}}


def bode_frequencies(plant):
    """Angular frequencies [rad/s] of the Bode plots: a decade below the slowest non-zero pole to a
    decade above the tenth lowest distinct |s| (1 to 1e3 rad/s without poles). A pole below sqrt(eps)
    of the largest is a zero pole (a free motion's double pole comes out of LAPACK as a pair of about
    sqrt(eps |A|))."""
    magnitude = np.abs(plant.poles())
    magnitude = np.unique(magnitude[magnitude > np.sqrt(np.finfo(float).eps) * magnitude.max(initial=0.0)])
    low, high = (magnitude[0] / 10, magnitude[:10][-1] * 10) if magnitude.size else (1.0, 1e3)
    return np.logspace(np.log10(low), np.log10(high), POINTS)


def plot_bode(path, omega, response, output, input, unit):
    """Bode plot of one pair: |H| [unit] and phase [deg] over the frequency [Hz]."""
    fig, (top, bottom) = subplots(2, 1, sharex=True, figsize=(7, 6))
    frequency = omega / (2 * np.pi)
    top.loglog(frequency, np.abs(response))
    top.set_ylabel(label(f"|{output} / {input}|", unit))
    top.grid(True, which="both", alpha=0.3)
    bottom.semilogx(frequency, np.degrees(np.unwrap(np.angle(response))))
    bottom.set_ylabel(label("phase", "deg"))
    bottom.set_xlabel(label("frequency f", "Hz"))
    bottom.grid(True, which="both", alpha=0.3)
    top.set_title(f"{output} per {input}")
    _save(fig, path)


def file_name(name):
    """A name made safe for a file name (its dots and slashes as underscores)."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def write_plant(folder, plant, case_path=None, plots=True):
    """Write the files of ``plant`` into ``folder`` (module docstring); returns the JSON summary."""
    np.savez(folder / STATESPACE, A=plant.A, B=plant.B, C=plant.C, D=plant.D, E=plant.E, A_d=plant.A_d,
             B_d=plant.B_d, C_d=plant.C_d, D_d=plant.D_d, Z=plant.Z, q=plant.q, t=plant.t,
             states=np.array(plant.states, dtype=str), inputs=np.array(plant.inputs, dtype=str),
             outputs=np.array(plant.outputs, dtype=str), input_units=np.array(plant.input_units, dtype=str),
             output_units=np.array(plant.output_units, dtype=str))
    data = summary(plant, case_path)
    (folder / SUMMARY).write_text(jsonfile.dumps(data))
    if plots and plant.inputs and plant.outputs:
        omega = bode_frequencies(plant)
        H = plant.response(omega)
        for i, output in enumerate(plant.outputs):
            for j, input in enumerate(plant.inputs):
                plot_bode(folder / f"bode_{file_name(output)}_{file_name(input)}.png", omega, H[:, i, j], output,
                          input, gain_unit(plant.output_units[i], plant.input_units[j]))
    return data


FORCES = {"fx": 0, "fy": 1, "fz": 2}  # a probe's or point force's input: a world force at its point along x, y, z
POSITIONS = {"x": 0, "y": 1, "z": 2}  # a probe's output: the world position of its point


def default_signals(case):
    """The inputs and outputs of a case's linearisation when none are named: the actuated coordinates
    ([control] inputs; else every joint coordinate) and every probe's position (else every joint
    coordinate)."""
    model = case.model
    inputs = list(model.inputs) or list(model.joint_coordinates)
    outputs = [f"{name}.{a}" for name, _, _ in case.probes for a in "xyz"[: model.dim]] or list(model.joint_coordinates)
    return inputs, outputs


def case_loads(case) -> dict:
    """{name: (type, spec)} of the case file's loads (``[[loads]]``): its ``name``, else ``loads.K`` (K
    its index from 0, as overrides address it), and its entry of the model's spec (``CoordinateLoadSpec``,
    ``PointForceSpec`` or ``TorqueSpec``: the builder keeps each type's loads in the file's order, the
    points resolved); none for a model built in Python (no case file)."""
    spec, loads = case.model.spec, {}
    entries = {"joint": iter(spec.coordinate_loads), "point_force": iter(spec.point_forces),
               "torque": iter(spec.torques)}
    for k, item in enumerate((case.data or {}).get("loads", [])):
        loads[item.get("name", f"loads.{k}")] = (item["type"], next(entries[item["type"]]))
    return loads


def deviation_rows(model, probes, q: np.ndarray) -> dict:
    """{``P.deviation_x`` ..: row (n,)} of the deviation from the rigid mechanism (``model.deviation``) of
    every probe (name, body, point) of ``model`` linearised at q: dD/dq by central differences along
    each coordinate (``deviation_shapes``) with the step h = 1e-6, which balances the round-off
    eps |x| / h (|x| the points' positions) and the truncation h^2 |D_qqq| / 6: errors of about 5e-10 in
    the rows (measured on the 3-PRR against h = 1e-5: 4e-10)."""
    values = deviation_shapes(model, probes, q, np.eye(model.n), step=1e-6)  # (n, P, columns)
    rows = {}
    for p, (name, _, _) in enumerate(probes):
        rows.update({column: values[:, p, c] for c, column in enumerate(column_names(name, model.dim))})
    return rows


def signals(case, names, kind, q=None, lam=None):
    """(name, vector, unit) of each named input (``kind`` "inputs") or output ("outputs"), ValueError for
    an unknown name. Inputs: a joint coordinate or a joint load of the case by name (a torque in N m on
    an angle, a force in N on a slide), a probe or a point-force load of the case (``case_loads``) with
    the suffix .fx/.fy/.fz (a world force in N at its point). Outputs, deviations from the
    equilibrium: a joint coordinate (rad, m), a probe with .x/.y/.z (the world position of its point,
    m) or with .deviation_x .. .deviation_angle / .deviation_rx .. (its deviation from the rigid
    mechanism, m and rad, as in probes.csv; ``deviation_rows``), a joint's reaction column
    ``J.B.force_x`` .. (N, N m; as in reactions.csv). Rows that depend on the pose are taken at the
    equilibrium q, lam (None until they are known: the name is only checked)."""
    model, probes = case.model, {name: (body, point) for name, body, point in case.probes}
    loads = case_loads(case) if kind == "inputs" else {}
    reactions = reaction_names(model) if kind == "outputs" else {}
    deviations = {column: UNITS[column.rpartition("_")[2]] for name in probes
                  for column in column_names(name, model.dim)} if kind == "outputs" else {}
    suffixes = FORCES if kind == "inputs" else POSITIONS
    axes = {axis: k for axis, k in suffixes.items() if k < model.dim}
    rows = None  # the deviation rows, once one is asked for at a known pose
    out = []
    for name in names:
        prefix, _, axis = name.rpartition(".")
        if name in reactions:
            out.append(reaction_rows(model, q, lam, [name])[0] if q is not None else (name, None, reactions[name]))
        elif name in deviations:
            if q is not None and rows is None:
                rows = deviation_rows(model, case.probes, q)
            out.append((name, None if q is None else rows[name], deviations[name]))
        elif name in model.joint_coordinates or loads.get(name, ("",))[0] == "joint":
            coordinate = name if name in model.joint_coordinates else loads[name][1].coordinate
            quantity = coordinate_kind(model, coordinate)
            unit = INPUTS[quantity][1] if kind == "inputs" else COORDINATES[quantity][1]
            out.append((name, coordinate_row(model, coordinate), unit))
        elif axis in axes and loads.get(prefix, ("",))[0] == "point_force":
            force = loads[prefix][1]
            out.append((name, point_rows(model, force.body, force.point)[axes[axis]], "N"))
        elif axis in axes and prefix in probes:
            out.append((name, point_rows(model, *probes[prefix])[axes[axis]], "N" if kind == "inputs" else "m"))
        else:
            raise ValueError(_unknown(case, name, kind, loads))
    return out


def _unknown(case, name, kind, loads):
    """The message for an unknown input or output ``name``: what it could have been."""
    model = case.model
    axes = "/".join(f".{s}" for s, k in (FORCES if kind == "inputs" else POSITIONS).items() if k < model.dim)
    coordinates = ", ".join(model.joint_coordinates) or "none"
    probes = ", ".join(p[0] for p in case.probes) or "none"
    if kind == "inputs":
        usable = [n for n, (t, _) in loads.items() if t != "torque"]
        also = f", a joint load or a point-force load with {axes} ({', '.join(usable) or 'none'}; torque loads are " \
               "not inputs)"
    else:
        also = (" or .deviation_x .. (from the rigid mechanism), or a joint reaction (J.B.force_x .. as in "
                "reactions.csv)")
    return f"unknown {kind[:-1]} '{name}': a joint coordinate ({coordinates}), a probe ({probes}) with {axes}{also}"
