"""The outputs of a run that a convergence study reads (``resolve_quantity``; ``quantity_names(model,
probes)`` lists them for a model and the probes of its case):

- ``NAME``: a joint coordinate (augmented joint angle or slide), e.g. ``theta``;
- ``BODY.x``, ``BODY.y``, ``BODY.z``: a component of a body's centre; ``BODY.angle`` (2D): its angle,
  continuous in time;
- ``PROBE.x``, ``PROBE.y``, ``PROBE.z``, ``PROBE.angle`` (2D) of a probe of the case (a material point,
  ``[[probes]]``): its deformed position and orientation, e.g. an end effector on a flexible link; on a
  flexible body also ``PROBE.elastic_x``, ``PROBE.elastic_y`` (the world-frame elastic displacement) and
  ``PROBE.elastic_angle`` (the section rotation theta(X)), the columns of ``probes.csv``
  (``post.probes``, 003 eq. 4);
- ``input:NAME``: the servo input (torque or force) on the actuated coordinate ``NAME`` at the time
  nodes, second order and free of the mid-point multipliers' step-to-step alternation
  (``time_loop.node_multipliers``: the mean of the two neighbouring steps' inputs, at the first and the
  last node the consistent multipliers of the state);
- ``energy_error``: ``max |H - H0 - W|`` up to the reading time. Its exact value is 0 (the discrete
  energy balance of 001 eq. 14), which is always its reference. Its round-off scale is the largest of
  T + |V|, |W| and D.
"""
from dataclasses import dataclass

import numpy as np

INPUT_PREFIX = "input:"
ENERGY = "energy_error"


@dataclass(frozen=True)
class Quantity:
    """An output of a run: ``history(results)`` is its value at every step node."""

    name: str
    description: str
    history: object  # callable(Results) -> (N + 1,)
    scale: object  # callable(Results) -> float, the magnitude round-off is relative to
    exact_zero: bool = False  # its exact value is 0 (energy_error)
    solved: bool = True  # a coordinate, position or angle: Newton's tolerance on q bounds its error
    unit: str = "1"  # its SI unit (the convergence plot's axis)


def quantity_names(model, probes=()):
    """Every quantity name the model and the probes (``Case.probes``) offer (module docstring)."""
    names = list(model.joint_coordinates) + _body_outputs(model) + list(_probe_outputs(model, probes))
    names += [INPUT_PREFIX + c for c in getattr(model, "inputs", [])]
    return names + [ENERGY]


def _body_outputs(model):
    """``BODY.x``, ``BODY.y`` (, ``BODY.z``) and in 2D ``BODY.angle`` of every body."""
    components = list("xyz"[: model.dim]) + (["angle"] if model.dim == 2 else [])
    return [f"{b.name}.{c}" for b in model.bodies for c in components]


PROBE_OUTPUTS = {"x": "x of", "y": "y of", "z": "z of", "angle": "orientation of",
                 "elastic_angle": "section rotation theta of",
                 **{f"elastic_{a}": f"elastic displacement {a} of" for a in "xyz"},
                 **{f"elastic_{a}": f"elastic displacement along d_{a} of" for a in "123"},
                 **{f"elastic_r{a}": f"section rotation about {a} of" for a in "xyz"},
                 **{f"elastic_r{a}": f"section rotation about d_{a} of" for a in "123"}}


def _probe_outputs(model, probes):
    """{quantity name: (probe, description)} for the outputs of the probes (name, body, point): the
    columns ``post.probes.probe_table`` gives for them."""
    if not probes:
        return {}
    from ..post.probes import probe_table

    outputs = {}
    for probe in probes:
        name, body, _ = probe
        for column in probe_table(model, [probe], np.zeros((1, model.n))):
            what = PROBE_OUTPUTS[column[len(name) + 1:]]
            outputs[column] = (probe, f"{what} probe {name} (material point of {body})")
    return outputs


def default_quantities(model):
    """Joint coordinates and servo inputs; the body centres if the model has neither. Where the servo
    rows leave no degree of freedom (as many constraint rows as coordinates: inverse dynamics of a fully
    actuated manipulator), every coordinate is fixed at each node by the constraints alone -- the scheme
    reproduces the joint coordinates to round-off and no order can be seen in them -- and the servo
    inputs are the quantities."""
    inputs = [INPUT_PREFIX + c for c in getattr(model, "inputs", [])]
    names = ([] if inputs and model.n <= model.m else list(model.joint_coordinates)) + inputs
    return names or [f"{b.name}.{a}" for b in model.bodies for a in "xyz"[: model.dim]]


def resolve_quantity(model, name, probes=()):
    """The ``Quantity`` called ``name`` in ``model`` and its case's ``probes``; ``ValueError`` naming
    the known ones otherwise, or the clash of a probe named like a body."""
    peak = lambda r: float(np.max(np.abs(history(r)))) if len(r.t) else 0.0
    probe_outputs = _probe_outputs(model, probes)
    if name in probe_outputs:
        probe, description = probe_outputs[name]
        if name in _body_outputs(model):
            raise ValueError(f"'{name}' names an output of probe {probe[0]} and of the body of that name: "
                             f"rename the probe")
        from ..post.probes import probe_table
        from ..io.units import PROBES

        def history(r):
            return probe_table(model, [probe], r.q)[name]

        return Quantity(name, description, history, peak, unit=PROBES[name.rpartition(".")[2]][1])
    if name == ENERGY:
        def energy(r):
            return np.maximum.accumulate(np.abs(r.energy_balance))

        def energy_scale(r):
            return float(max(np.max(r.kinetic + np.abs(r.potential)), np.max(np.abs(r.work)),
                             np.max(np.abs(r.dissipation))))

        return Quantity(name, "max |H - H0 - W|, exact value 0", energy, energy_scale, exact_zero=True,
                        solved=False, unit="J")
    if name.startswith(INPUT_PREFIX):
        coordinate = name[len(INPUT_PREFIX):]
        inputs = list(getattr(model, "inputs", []))
        if coordinate not in inputs:
            raise ValueError(f"unknown quantity '{name}': the servo inputs are "
                             f"{', '.join(INPUT_PREFIX + c for c in inputs) or 'none (the model has no servos)'}")
        row = model.input_rows[inputs.index(coordinate)]

        def history(r):
            return -r.node_lam[:, row]

        from ..io.units import INPUTS, coordinate_kind

        return Quantity(name, f"servo input on {coordinate}", history, peak, solved=False,
                        unit=INPUTS[coordinate_kind(model, coordinate)][1])
    if name in model.joint_coordinates:
        i = model.joint_coordinates[name]

        def history(r):
            return r.q[:, i]

        from ..io.units import COORDINATES, coordinate_kind

        return Quantity(name, "joint coordinate", history, peak, unit=COORDINATES[coordinate_kind(model, name)][1])
    body, _, component = name.rpartition(".")
    index = {b.name: i for i, b in enumerate(model.bodies)}
    axes = "xyz"[: model.dim]
    if body in index and (component in axes or (component == "angle" and model.dim == 2)):
        b = index[body]
        if component == "angle":
            def history(r):
                _, rotation = model.frames(r.q)
                return np.unwrap(np.arctan2(rotation[:, b, 1, 0], rotation[:, b, 0, 0]))

            return Quantity(name, f"angle of body {body}", history, peak, unit="rad")
        a = axes.index(component)

        def history(r):
            return model.frames(r.q)[0][:, b, a]

        return Quantity(name, f"{component} of the centre of body {body}", history, peak, unit="m")
    known = quantity_names(model, probes)
    raise ValueError(f"unknown quantity '{name}' (known: {', '.join(known)})")
