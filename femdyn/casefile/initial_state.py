"""The ``[initial]`` tables of a case file (see ``case``): body poses and twists, joint coordinates and
rates for ``model.initial.place``, the initial elastic state of flexible bodies, the assembly of a pose
given roughly and a start in equilibrium, and the refusal of an initial state whose energy the steps
cannot represent."""
import numpy as np

from ..beam.modes import natural_frequencies
from ..model.initial import PLACING

ELASTIC = ("elastic", "elastic_rate")  # initial elastic state of a flexible body: {mode, amplitude}


def elastic_states(r, data, model, bodies, q, v):
    """q, v with the initial elastic state of the flexible bodies that ``[initial.bodies.NAME]`` gives
    one: ``elastic`` (and ``elastic_rate``) = {mode = k, amplitude = a}, the body's k-th natural mode
    with its frame held (``beam.modes.natural_frequencies``, under its reference conditions) scaled so
    that its largest nodal translation is a (m; m/s for the rate), set by ``with_elastic`` of the
    body's embedding. The joints must still hold (reference conditions that keep the joint points:
    pinned-pinned for a link jointed at both ends); ``prepare`` checks them."""
    for name, spec in data.get("bodies", {}).items():
        given = [k for k in ELASTIC if k in spec]
        if not given:
            continue
        f = f"initial.bodies.{name}"
        body = model.bodies[bodies.index(name)]
        if body.flexible is None:
            r.fail(f"{f}.{given[0]}", f"'{name}' is rigid: only flexible bodies have an elastic state")
        beam, values = body.flexible.beam, []
        for key in ELASTIC:
            if key not in spec:
                values.append(None)
                continue
            table = spec[key]
            r.table(table, f"{f}.{key}", ("mode", "amplitude"))
            count = beam.n_coordinates
            mode = r.integer(table["mode"], f"{f}.{key}.mode", 1)
            if mode > count:
                r.fail(f"{f}.{key}.mode", f"the body has {count} elastic mode{'s' if count != 1 else ''}, not {mode}")
            values.append(mode_state(beam, model.dim, mode, r.number(table["amplitude"], f"{f}.{key}.amplitude")))
        elastic = np.zeros(beam.n_coordinates) if values[0] is None else values[0]
        q, v = body.flexible.with_elastic(q, v, elastic, values[1])
    return q, v


def mode_state(beam, dim, mode, amplitude):
    """The elastic coordinates of the ``beam``'s (a ``beam.BeamBody``) ``mode``-th natural mode (from 1)
    with its frame held (``beam.modes.natural_frequencies``, under its reference conditions), scaled so
    that its largest nodal translation in ``dim`` dimensions is ``amplitude`` (m, or m/s for a rate)."""
    modes = natural_frequencies(beam, mode)
    largest = np.linalg.norm(modes.nodal[mode - 1][:, :dim], axis=1).max()
    return amplitude * modes.q[mode - 1] / largest


def read_initial(r, data, dim, bodies, joints):
    """Body poses/twists and joint coordinates/rates for ``place``."""
    r.table(data, "initial", optional=("bodies", "joints", "equilibrium", "assemble", "hold"))
    poses = {}
    for name, spec in r.mapping(data.get("bodies", {}), "initial.bodies").items():
        f = f"initial.bodies.{name}"
        r.reference(name, f, bodies, "body")
        orientation = "angle" if dim == 2 else "rotation"
        r.table(spec, f, optional=("position", orientation, "velocity", "angular_velocity", *ELASTIC))
        pose = {k: r.vector(spec[k], f"{f}.{k}", dim) for k in ("position", "velocity") if k in spec}
        if "angle" in spec:
            pose["angle"] = r.number(spec["angle"], f"{f}.angle")
        if "rotation" in spec:
            pose["rotation"] = r.rotation(spec["rotation"], f"{f}.rotation")
        if "angular_velocity" in spec:
            w, field = spec["angular_velocity"], f"{f}.angular_velocity"
            pose["angular_velocity"] = r.number(w, field) if dim == 2 else r.vector(w, field, 3)
        poses[name] = pose
    coordinates = {}
    for name, spec in r.mapping(data.get("joints", {}), "initial.joints").items():
        f = f"initial.joints.{name}"
        r.reference(name, f, joints, "joint")
        kinds = PLACING.get(joints[name], ())
        r.table(spec, f, optional=tuple(k for kind in kinds for k in (kind, f"{kind}_rate")))
        coordinates[name] = {k: r.number(v, f"{f}.{k}") for k, v in spec.items()}
    return poses, coordinates


def read_assembly(r, initial, coordinates, bodies):
    """``[initial] assemble`` and ``hold``: (whether to assemble the placed pose, the names it holds or
    None for ``model.assembly.default_hold``). ``assemble = true`` closes the loops of a pose given only
    roughly (``model.assembly.assemble``); ``hold`` = [names] of joint coordinates (or bodies, whose
    frame is held) that it keeps, in place of the default (the actuated coordinates, those that
    coordinate servos drive or joint loads act on, and those of the joints with the ground)."""
    assemble = r.boolean(initial.get("assemble", False), "initial.assemble")
    if "hold" not in initial:
        return assemble, None
    if not assemble:
        r.fail("initial.hold", "holds coordinates in an assembly of the pose: only with assemble = true")
    names = r.array(initial["hold"], "initial.hold")
    for i, name in enumerate(names):
        r.reference(name, f"initial.hold[{i}]", [*coordinates, *bodies], "joint coordinate or body")
    if len(set(names)) < len(names):
        r.fail("initial.hold", "a name is listed twice")
    return assemble, tuple(names)


def read_equilibrium(r, initial):
    """``[initial] equilibrium``: true starts the run at rest in the static equilibrium that Newton
    reaches from the placed configuration (``studies.run.prepare_case``): loads, gravity and the
    servos' targets at t = 0 held, the links bent under them, so that a flexible model starts without
    the vibration of a release from its undeformed shape. Velocities, rates and an elastic rate given
    with it are refused: an equilibrium is at rest."""
    if "equilibrium" not in initial:
        return False
    equilibrium = r.boolean(initial["equilibrium"], "initial.equilibrium")
    moving = [field for field, _ in _rates(r, initial)]
    moving += [f"initial.bodies.{name}.elastic_rate" for name, spec in initial.get("bodies", {}).items()
               if "elastic_rate" in spec]
    if equilibrium and moving:
        r.fail(moving[0], "a start in static equilibrium (initial.equilibrium = true) is at rest: remove it")
    return equilibrium


def _rates(r, initial):
    """(field, largest |value|) of every velocity and rate that ``[initial]`` gives (read already)."""
    fields = []
    for kind, keys in (("bodies", ("velocity", "angular_velocity")), ("joints", ("angle_rate", "slide_rate"))):
        for name, spec in initial.get(kind, {}).items():
            for key in keys:
                if key in spec:
                    field = f"initial.{kind}.{name}.{key}"
                    values = spec[key] if isinstance(spec[key], list) else [spec[key]]
                    fields.append((field, max(abs(r.number(v, field)) for v in values)))
    return fields


def check_energy(r, model, q0, v0, initial):
    """Refuse a placed initial state whose kinetic or potential energy is not a finite number (or whose
    coordinates or velocities are not): huge rates, positions or loads that the steps could not represent.
    A kinetic energy is blamed on the largest velocity or rate given."""
    if not (np.isfinite(q0).all() and np.isfinite(v0).all()):
        r.fail("initial", "the placed initial coordinates or velocities are not finite (positions, angles or rates "
               "too large)")
    kinetic = float(model.kinetic(v0))
    if not np.isfinite(kinetic):
        rates = _rates(r, initial)
        field, size = max(rates, key=lambda f: f[1]) if rates else ("initial", None)
        given = f" (a value of {size:g})" if size is not None else ""
        r.fail(field, f"the initial kinetic energy is not finite ({kinetic}){given}")
    potential = float(model.potential(q0))
    if not np.isfinite(potential):
        r.fail("initial", f"the initial potential energy is not finite ({potential}): positions, gravity, loads or "
               "spring stiffnesses too large")
