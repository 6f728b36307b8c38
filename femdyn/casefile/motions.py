"""Servo constraints and their trajectories in case files (``[[servos]]``, see ``case``): the servo
tables and the prescribed motions they name (``femdyn.joints.trajectories``), with the same one-line
refusals as the rest of the case file."""
import numpy as np

from ..joints import trajectories
from ..model.builder import SERVO_ON
from ..model.errors import ModelError
from .reader import CaseError

SERVOS = {  # type -> (required keys, optional keys)
    "point": (("name", "body", "trajectory"), ("point", "relative", "on")),
    "angle": (("name", "body", "trajectory"), ("relative", "on")),
    "polar": (("name", "body", "trajectory"), ("point", "relative", "on")),
    "coordinate": (("name", "coordinate", "trajectory"), ("relative",)),
    "orientation": (("name", "body", "trajectory"), ("axis", "relative", "on")),
}
TRAJECTORIES = {
    "figure8": (("ax", "ay", "angle"), ()),
    "smooth_ramp": (("t1", "rate"), ("t2", "t3")),
    "spin_up": (("angular_speed", "t_ramp"), ()),
    "polynomial": (("coefficients",), ()),
    "spline": (("times", "values"), ()),
    "table": (("times", "values"), ()),
    "constant": (("value",), ()),
    "circle": (("radius", "angular_speed"), ("t_ramp",)),
    "swing": (("amplitude", "angular_speed"), ("t_ramp",)),
    "harmonic": (("angular_speed",), ("t_ramp", "sine", "versine")),
}


def _components(r, value, field):
    """An array of numbers, or one number as an array of one."""
    return r.vector(value, field) if isinstance(value, list) else np.array([r.number(value, field)])


def _ramp(r, value, field):
    """The start-up time t_ramp of a harmonic trajectory (>= 0; absent or 0: no ramp, the plain sine)."""
    return r.number(value["t_ramp"], f"{field}.t_ramp", nonnegative=True) if "t_ramp" in value else 0.0


def read_trajectory(r, value, field, size):
    """A servo trajectory table (see ``femdyn.joints.trajectories``) with ``size`` components."""
    kind = r.typed_table(value, field, TRAJECTORIES)
    try:
        if kind == "figure8":
            tr = trajectories.FigureEight(r.number(value["ax"], f"{field}.ax"), r.number(value["ay"], f"{field}.ay"),
                                          read_trajectory(r, value["angle"], f"{field}.angle", 1))
        elif kind == "smooth_ramp":
            ends = [r.number(value[k], f"{field}.{k}") if k in value else np.inf for k in ("t2", "t3")]
            tr = trajectories.SmoothRampAngle(r.number(value["t1"], f"{field}.t1"), *ends,
                                              r.number(value["rate"], f"{field}.rate"))
        elif kind == "spin_up":
            tr = trajectories.SpinUp(r.number(value["angular_speed"], f"{field}.angular_speed"),
                                     r.number(value["t_ramp"], f"{field}.t_ramp", positive=True))
        elif kind == "polynomial":
            rows = r.array(value["coefficients"], f"{field}.coefficients")
            if not rows:
                r.fail(f"{field}.coefficients", "needs one array of coefficients per component")
            tr = trajectories.Polynomial([r.vector(c, f"{field}.coefficients[{i}]") for i, c in enumerate(rows)])
        elif kind in ("circle", "swing"):
            first = "radius" if kind == "circle" else "amplitude"
            tr = (trajectories.Circle if kind == "circle" else trajectories.Swing)(
                r.number(value[first], f"{field}.{first}"), r.number(value["angular_speed"], f"{field}.angular_speed"),
                _ramp(r, value, field))
        elif kind == "harmonic":
            amplitudes = {k: _components(r, value[k], f"{field}.{k}") for k in ("sine", "versine") if k in value}
            if not amplitudes:
                r.fail(field, "needs sine or versine (or both): the amplitudes of sin psi and 1 - cos psi")
            zero = np.zeros_like(next(iter(amplitudes.values())))
            tr = trajectories.Harmonic(amplitudes.get("sine", zero), amplitudes.get("versine", zero),
                                       r.number(value["angular_speed"], f"{field}.angular_speed"),
                                       _ramp(r, value, field))
        elif kind == "constant":
            v = value["value"]
            tr = trajectories.Constant(r.vector(v, f"{field}.value") if isinstance(v, list) else [r.number(v, f"{field}.value")])
        else:
            times = r.vector(value["times"], f"{field}.times")
            rows = r.array(value["values"], f"{field}.values")
            values = [r.vector(v, f"{field}.values[{i}]") if isinstance(v, list) else [r.number(v, f"{field}.values[{i}]")]
                      for i, v in enumerate(rows)]
            if len({len(v) for v in values}) > 1:
                r.fail(f"{field}.values", "all values need the same number of components")
            tr = (trajectories.Spline if kind == "spline" else trajectories.Table)(times, np.array(values))
    except CaseError:  # already names its field
        raise
    except ValueError as err:  # the trajectory's own checks
        r.fail(field, str(err))
    if tr.size != size:
        r.fail(field, f"needs {size} component{'s' if size > 1 else ''}, this trajectory has {tr.size}")
    return tr


def _add_body_servo(r, item, builder, f, kind, dim, name, body, relative, on):
    """The servo of table ``f`` on body ``body``: a point, polar angle, angle or orientation, on the
    material point or the body's floating frame (``on``, ``ModelBuilder.add_servo_point``)."""
    if kind in ("point", "polar"):
        if kind == "polar" and dim != 2:
            r.fail(f"{f}.type", "polar servos exist only in 2D models")
        point = r.vector(item["point"], f"{f}.point", dim) if "point" in item else np.zeros(dim)
        motion = read_trajectory(r, item["trajectory"], f"{f}.trajectory", dim if kind == "point" else 1)
        (builder.add_servo_point if kind == "point" else builder.add_servo_polar)(name, body, point, motion,
                                                                                  relative, on)
    elif kind == "orientation":
        if dim == 2:
            r.fail(f"{f}.type", 'orientation servos exist only in 3D models (a 2D body\'s angle: type = "angle")')
        axis = r.vector(item["axis"], f"{f}.axis", 3, nonzero=True) if "axis" in item else None
        angles = read_trajectory(r, item["trajectory"], f"{f}.trajectory", 3 if axis is None else 1)
        rotation = trajectories.EulerAngles(angles) if axis is None else trajectories.AxisAngle(axis, angles)
        builder.add_servo_orientation(name, body, rotation, relative, on)
    elif dim == 2:
        builder.add_servo_angle(name, body, read_trajectory(r, item["trajectory"], f"{f}.trajectory", 1), relative, on)
    else:
        r.fail(f"{f}.type", 'angle servos exist only in 2D models (a 3D body\'s orientation: type = "orientation")')


def add_servos(r, data, builder, dim, bodies, coordinates):
    """Servo constraints (000 eqs. 58-59, 78-84) and the input coordinates that realise them."""
    names = []
    for i, item in enumerate(r.array(data.get("servos", []), "servos")):
        f = f"servos[{i}]"
        kind = r.typed_table(item, f, SERVOS)
        name = r.name(item["name"], f"{f}.name", names)
        names.append(name)
        relative = r.boolean(item.get("relative", True), f"{f}.relative")
        if kind == "coordinate":
            coordinate = r.reference(item["coordinate"], f"{f}.coordinate", coordinates, "joint coordinate")
            motion = read_trajectory(r, item["trajectory"], f"{f}.trajectory", 1)
            builder.add_servo_coordinate(name, coordinate, motion, relative)
            continue
        body = r.reference(item["body"], f"{f}.body", bodies, "body")
        on = r.choice(item.get("on", "material" if kind in ("point", "polar") else "frame"), f"{f}.on", SERVO_ON)
        try:  # the builder refuses a point off a beam's centre line, a material angle
            _add_body_servo(r, item, builder, f, kind, dim, name, body, relative, on)
        except ModelError as err:
            r.model_error(f, err)
    control = r.table(data.get("control", {}), "control", optional=("inputs",))
    inputs = [r.reference(c, f"control.inputs[{k}]", coordinates, "joint coordinate")
              for k, c in enumerate(r.array(control.get("inputs", []), "control.inputs"))]
    builder.set_inputs(inputs)
