"""The files of a linear plant (``integrators.linearize.LinearPlant``): ``statespace.npz`` (the minimal
state space A, B, C, D, the descriptor form E, A_d, B_d, C_d, D_d, the basis Z of the states'
coordinates, the names and units), ``linearize.json`` (poles with frequency and damping ratio, DC
gains, transmission zeros per input-output pair) and a Bode plot ``bode_<output>_<input>.png`` per pair,
magnitude in the pair's SI unit and phase in degrees over the frequency in Hz."""
import numpy as np

from ..integrators.linearize import coordinate_row, frequency_and_damping, point_rows, reaction_names, reaction_rows
from ..io import jsonfile
from .plots import _save, label, pyplot
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
    fig, (top, bottom) = pyplot().subplots(2, 1, sharex=True, figsize=(7, 6))
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


FORCES = {"fx": 0, "fy": 1, "fz": 2}  # a probe's input: a world force at its point along x, y, z
POSITIONS = {"x": 0, "y": 1, "z": 2}  # a probe's output: the world position of its point


def default_signals(case):
    """The inputs and outputs of a case's linearisation when none are named: the actuated coordinates
    ([control] inputs; else every joint coordinate) and every probe's position (else every joint
    coordinate)."""
    model = case.model
    inputs = list(model.inputs) or list(model.joint_coordinates)
    outputs = [f"{name}.{a}" for name, _, _ in case.probes for a in "xyz"[: model.dim]] or list(model.joint_coordinates)
    return inputs, outputs


def signals(case, names, kind, q=None, lam=None):
    """(name, vector, unit) of each named input (``kind`` "inputs") or output ("outputs"): a joint
    coordinate (a torque in N m on an angle, a force in N on a slide; as an output the angle in rad or
    the slide in m), a probe with the suffix .fx/.fy/.fz (input: a world force in N at its point) or
    .x/.y/.z (output: the world position of its point in m), or as an output a joint's reaction column
    ``J.B.force_x`` .. (N, N m; as in reactions.csv), whose row (n + m,) is taken at the equilibrium q,
    lam (None until they are known: the name is only checked). ValueError for an unknown name."""
    model, probes = case.model, {name: (body, point) for name, body, point in case.probes}
    suffixes = FORCES if kind == "inputs" else POSITIONS
    reactions = reaction_names(model) if kind == "outputs" else {}
    out = []
    for name in names:
        if name in reactions:
            out.append(reaction_rows(model, q, lam, [name])[0] if q is not None else (name, None, reactions[name]))
            continue
        if name in model.joint_coordinates:
            quantity = coordinate_kind(model, name)
            unit = INPUTS[quantity][1] if kind == "inputs" else COORDINATES[quantity][1]
            out.append((name, coordinate_row(model, name), unit))
            continue
        probe, _, axis = name.rpartition(".")
        if probe in probes and axis in suffixes and suffixes[axis] < model.dim:
            rows = point_rows(model, *probes[probe])
            out.append((name, rows[suffixes[axis]], "N" if kind == "inputs" else "m"))
            continue
        axes = "/".join(f".{s}" for s, k in suffixes.items() if k < model.dim)
        also = " or a joint reaction (J.B.force_x .. as in reactions.csv)" if kind == "outputs" else ""
        coordinates = ", ".join(model.joint_coordinates) or "none"
        raise ValueError(f"unknown {kind[:-1]} '{name}': a joint coordinate ({coordinates}) "
                         f"or a probe ({', '.join(probes) or 'none'}) with {axes}{also}")
    return out
