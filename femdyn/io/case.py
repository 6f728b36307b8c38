"""Case files: a TOML description of a model, its initial state and the run settings.

``load_case(path)`` validates the file strictly, builds the model and places the initial state; it
runs nothing (``prepare``/``simulate`` are the caller's). Every problem raises ``CaseError`` naming
the file and the offending field by its path in the file, e.g. ``bodies[1].mass``,
``initial.joints.NM.angle`` or ``solver.dt``. Numbers may be written as expression strings
(``"2*pi/3"``, see ``expressions``); integers (dimension, max_iterations, every) and flags may not.

Schema::

    title = "..."                     # optional (default: file stem)
    source = "..."                    # optional free text
    dimension = 2                     # 2 or 3
    gravity = [0.0, -9.81]            # optional
    [solver]  dt, t_end; optional tolerance, max_iterations, initial_tolerance,
              integrator = "energy-momentum" (default) | "generalized-alpha", rho_inf (default 0.9),
              early_stop (generalized-alpha only, default false: ``NewtonOptions.early_stop``),
              newton = "full" (default) | "modified" (``NewtonOptions.modified``; not with early_stop)
    [output]  optional every, vtk, plots
    [[bodies]]   name, mass, euler = [..] | inertia = [J1, J2, J3] (3D); optional size = [..]
                 or (2D) name, beam = {..}: a flexible body, with [flexible] settings (see ``beams``)
    [[probes]]   name, body, point       material points whose motion (and elastic part) is recorded
    [[joints]]   name, type, bodies = [b1, b2]; optional points, axis, relative_rotation, angle, slide
    [[loads]]    type = "joint": coordinate, function
                 type = "point_force": body, point, force; optional function
    [[springs]]  name, bodies, points, stiffness, free_length; optional damping
    [[friction]] coordinate, stiffness, max_force          (stick-slip joint friction, 001 sec. 4.2)
    [[servos]]   type = "point": name, body, trajectory; optional point, relative (default true)
                 type = "angle" (2D): name, body, trajectory; optional relative
                 type = "coordinate": name, coordinate, trajectory; optional relative
                 trajectory = {type = figure8 (ax, ay, angle), smooth_ramp (t1, t2, t3, rate),
                               circle (radius, angular_speed, t_ramp), swing (amplitude,
                               angular_speed, t_ramp), polynomial (coefficients),
                               spline | table (times, values), constant}
    [control]    inputs = [coordinate, ..]  one actuated coordinate per servo row, in order
    [initial.bodies.NAME]   position, angle (2D) | rotation = {axis, angle} (3D), velocity, angular_velocity
    [initial.joints.NAME]   angle, angle_rate, slide, slide_rate

Overrides (``load_case(path, overrides={...})``, ``femdyn sweep --param``) replace numeric fields by
their dotted path into the file: table keys, and in an array an entry's ``name`` (arrays of named
tables: bodies, joints, probes, springs, servos) or its index from 0, e.g. ``bodies.leg1.beam.h``,
``bodies.3.beam.h``, ``gravity.1``, ``loads.0.function.amplitude``, ``solver.dt``,
``initial.bodies.platform.position.0`` (see ``override``).
"""
import copy
import math
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tomllib

from ..forces import time_functions as timefunctions
from ..integrators.newton import NEWTON_METHODS, NewtonOptions
from ..integrators.time_loop import INTEGRATORS, check_run, step_count
from ..joints import trajectories
from ..joints.registry import JOINT_TYPES
from ..model.builder import ModelBuilder, euler_from_inertia
from ..model.errors import GROUND, ModelError
from ..model.initial import PLACING, place
from ..model.model import Model
from ..numerics import kinematics as kin
from .beams import Options, read_beam, read_settings
from .expressions import compile_time_function, evaluate_number, to_float
from .results import RESERVED_COLUMNS

FRAMES = 500  # default number of output frames
MAX_BYTES = 16 * 2**20  # largest case file read
NAME = re.compile(r"[\w-]+")
TOP_REQUIRED = ("dimension", "solver", "bodies")
TOP_OPTIONAL = ("title", "source", "gravity", "output", "joints", "loads", "springs", "friction", "servos",
                "control", "initial", "flexible", "probes")
JOINT_OPTIONAL = ("points", "axis", "relative_rotation", "angle", "slide")
LOADS = {  # type -> (required keys, optional keys)
    "joint": (("coordinate", "function"), ()),
    "point_force": (("body", "point", "force"), ("function",)),
}
SERVOS = {  # type -> (required keys, optional keys)
    "point": (("name", "body", "trajectory"), ("point", "relative")),
    "angle": (("name", "body", "trajectory"), ("relative",)),
    "coordinate": (("name", "coordinate", "trajectory"), ("relative",)),
}
TRAJECTORIES = {
    "figure8": (("ax", "ay", "angle"), ()),
    "smooth_ramp": (("t1", "t2", "t3", "rate"), ()),
    "polynomial": (("coefficients",), ()),
    "spline": (("times", "values"), ()),
    "table": (("times", "values"), ()),
    "constant": (("value",), ()),
    "circle": (("radius", "angular_speed", "t_ramp"), ()),
    "swing": (("amplitude", "angular_speed", "t_ramp"), ()),
}
TIME_FUNCTIONS = {
    "hat": (("t1", "t2", "peak"), ()),
    "sine": (("amplitude", "frequency"), ("phase", "offset")),
    "table": (("times", "values"), ()),
    "constant": (("value",), ()),
    "expression": (("expr",), ()),
}


class CaseError(ValueError):
    """A case file that cannot be used; ``str`` is ``"{path}: {field}: {message}"``."""

    def __init__(self, path, field, message):
        super().__init__(f"{path}: {field}: {message}")
        self.path, self.field, self.message = str(path), field, message


@dataclass(frozen=True)
class Case:
    path: Path
    title: str
    source: str
    model: Model
    q0: np.ndarray  # placed initial state (not yet projected onto the constraints)
    v0: np.ndarray
    dt: float
    t_end: float
    tolerance: float
    max_iterations: int
    initial_tolerance: float
    integrator: str  # "energy-momentum" or "generalized-alpha" (``simulate``)
    rho_inf: float  # spectral radius of generalized-alpha
    early_stop: bool  # Newton's early stop of generalized-alpha
    newton: str  # "full" or "modified" Newton (``integrators.newton.Newton``)
    every: int | None  # write every k-th step as a VTK frame; None: about FRAMES frames
    vtk: bool
    plots: bool
    probes: list = ()  # (name, body name, body-frame point) whose motion is recorded
    flexible: object = None  # beams.Settings of the flexible bodies

    @property
    def newton_options(self):
        return NewtonOptions(self.tolerance, self.max_iterations, self.early_stop, self.newton == "modified")

    @property
    def steps(self):
        """Number of time steps, as ``simulate`` takes them."""
        return step_count(self.dt, self.t_end)

    @property
    def output_every(self):
        return self.every or math.ceil(self.steps / FRAMES)


def _join(parent, key):
    return f"{parent}.{key}" if parent else key


def _describe(value):
    """Type and value of a TOML value for error messages."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"string {value!r}" if len(value) <= 60 else f"string {value[:40]!r}... ({len(value)} characters)"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _format(values):
    return "[" + ", ".join(f"{x:g}" for x in values) + "]"


class _Reader:
    """Typed access to the parsed file; every check raises ``CaseError`` naming the field."""

    def __init__(self, path):
        self.path = path

    def fail(self, field, message):
        raise CaseError(self.path, field, message)

    def model_error(self, entry, err):
        """Fail with the builder's ``ModelError`` about the table at ``entry``: a sub-field after the
        builder's name of it (``joint 'NM'.axis``) is reported in the table (``joints[0].axis``)."""
        self.fail(f"{entry}.{err.field.split('.', 1)[1]}" if "." in err.field else entry, err.message)

    def mapping(self, data, field):
        """A table with any keys (names)."""
        if not isinstance(data, dict):
            self.fail(field, f"expected a table, got {_describe(data)}")
        return data

    def table(self, data, field, required=(), optional=()):
        """``data`` as a table with all ``required`` keys and some of the ``optional`` ones."""
        known = (*required, *optional)
        for key in self.mapping(data, field):
            if key not in known:
                listing = ", ".join(known) or "none"
                self.fail(_join(field, key), f"unknown key '{key}' (known keys: {listing})")
        for key in required:
            if key not in data:
                self.fail(_join(field, key), "missing")
        return data

    def typed_table(self, data, field, schema):
        """A table with a ``type`` key choosing its keys from ``schema`` {type: (required, optional)}."""
        kind = self.choice(self.mapping(data, field).get("type"), _join(field, "type"), schema)
        required, optional = schema[kind]
        self.table(data, field, ("type", *required), optional)
        return kind

    def array(self, data, field):
        if not isinstance(data, list):
            self.fail(field, f"expected an array, got {_describe(data)}")
        return data

    def string(self, value, field):
        if not isinstance(value, str):
            self.fail(field, f"expected a string, got {_describe(value)}")
        return value

    def choice(self, value, field, options):
        if value is None:
            self.fail(field, "missing")
        if self.string(value, field) not in options:
            self.fail(field, f"unknown value '{value}' (known: {', '.join(options)})")
        return value

    def name(self, value, field, taken=()):
        """A new name: letters, digits, '_' and '-', not among ``taken``."""
        if not NAME.fullmatch(self.string(value, field)):
            self.fail(field, f"'{value}' is not a valid name (use letters, digits, '_' and '-')")
        if value == GROUND:
            self.fail(field, f"'{GROUND}' is reserved")
        if value in taken:
            self.fail(field, f"name '{value}' is used twice")
        return value

    def reference(self, value, field, known, what):
        """The name of an existing ``what`` among ``known``."""
        if self.string(value, field) not in known:
            self.fail(field, f"unknown {what} '{value}' (known: {', '.join(known) or 'none'})")
        return value

    def boolean(self, value, field):
        if not isinstance(value, bool):
            self.fail(field, f"expected true or false, got {_describe(value)}")
        return value

    def integer(self, value, field, minimum, maximum=None):
        """An integer from ``minimum`` to ``maximum`` (no upper bound if None)."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, f"expected an integer, got {_describe(value)}")
        if value < minimum:
            self.fail(field, f"must be >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            self.fail(field, f"must be <= {maximum}, got {value}")
        return value

    def number(self, value, field, positive=False, nonnegative=False):
        """A finite float from a TOML number or an expression string."""
        if isinstance(value, str):
            try:
                x = evaluate_number(value)
            except ValueError as err:
                self.fail(field, f"expected a number, got {_describe(value)}: {err}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                x = to_float(value)
            except ValueError as err:
                self.fail(field, str(err))
        else:
            self.fail(field, f"expected a number, got {_describe(value)}")
        if not math.isfinite(x):
            self.fail(field, f"must be finite, got {x}")
        if positive and not x > 0:
            self.fail(field, f"must be > 0, got {x:g}")
        if nonnegative and not x >= 0:
            self.fail(field, f"must be >= 0, got {x:g}")
        return x

    def vector(self, value, field, length=None, positive=False, nonzero=False):
        """An array of ``length`` numbers (any length >= 1 if None)."""
        if not isinstance(value, list):
            what = f"{length} numbers" if length else "numbers"
            self.fail(field, f"expected an array of {what}, got {_describe(value)}")
        if length is not None and len(value) != length:
            self.fail(field, f"expected {length} values, got {len(value)}")
        if not value:
            self.fail(field, "expected at least one value")
        x = np.array([self.number(v, f"{field}[{i}]", positive) for i, v in enumerate(value)])
        if nonzero and not np.any(x):
            self.fail(field, "must not be zero")
        return x

    def points(self, value, field, dim):
        """A pair of points [[..], [..]]."""
        if not isinstance(value, list) or len(value) != 2:
            self.fail(field, f"expected two points [[..], [..]], got {_describe(value)}")
        return [self.vector(p, f"{field}[{i}]", dim) for i, p in enumerate(value)]

    def body_pair(self, value, field, known):
        """Two different body names among ``known``."""
        if not isinstance(value, list) or len(value) != 2:
            self.fail(field, f"expected two body names [b1, b2], got {_describe(value)}")
        b1, b2 = (self.reference(b, f"{field}[{i}]", known, "body") for i, b in enumerate(value))
        if b1 == b2:
            self.fail(field, f"needs two different bodies, got '{b1}' twice")
        return b1, b2

    def rotation(self, value, field):
        """A 3x3 rotation from {axis = [..], angle = ..}."""
        self.table(value, field, ("axis", "angle"))
        axis = self.vector(value["axis"], f"{field}.axis", 3, nonzero=True)
        return kin.rotation_3d(axis, self.number(value["angle"], f"{field}.angle"))

    def time_function(self, value, field):
        """A load's function of time {type = hat | sine | table | constant | expression, ...}."""
        kind = self.typed_table(value, field, TIME_FUNCTIONS)
        if kind == "expression":
            try:
                return compile_time_function(self.string(value["expr"], f"{field}.expr"))
            except ValueError as err:
                self.fail(f"{field}.expr", str(err))
        read = self.vector if kind == "table" else self.number
        args = {k: read(v, f"{field}.{k}") for k, v in value.items() if k != "type"}
        try:
            return getattr(timefunctions, kind)(**args)
        except ValueError as err:
            self.fail(field, str(err))


def _trajectory(r, value, field, size):
    """A servo trajectory table (see ``femdyn.joints.trajectories``) with ``size`` components."""
    kind = r.typed_table(value, field, TRAJECTORIES)
    try:
        if kind == "figure8":
            tr = trajectories.FigureEight(r.number(value["ax"], f"{field}.ax"), r.number(value["ay"], f"{field}.ay"),
                                          _trajectory(r, value["angle"], f"{field}.angle", 1))
        elif kind == "smooth_ramp":
            tr = trajectories.SmoothRampAngle(*(r.number(value[k], f"{field}.{k}") for k in ("t1", "t2", "t3", "rate")))
        elif kind == "polynomial":
            rows = r.array(value["coefficients"], f"{field}.coefficients")
            if not rows:
                r.fail(f"{field}.coefficients", "needs one array of coefficients per component")
            tr = trajectories.Polynomial([r.vector(c, f"{field}.coefficients[{i}]") for i, c in enumerate(rows)])
        elif kind in ("circle", "swing"):
            first = "radius" if kind == "circle" else "amplitude"
            tr = (trajectories.Circle if kind == "circle" else trajectories.Swing)(
                r.number(value[first], f"{field}.{first}"), r.number(value["angular_speed"], f"{field}.angular_speed"),
                r.number(value["t_ramp"], f"{field}.t_ramp", positive=True))
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


def _add_servos(r, data, builder, dim, bodies, coordinates):
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
            builder.add_servo_coordinate(name, coordinate, _trajectory(r, item["trajectory"], f"{f}.trajectory", 1),
                                         relative)
            continue
        body = r.reference(item["body"], f"{f}.body", bodies, "body")
        if kind == "point":
            point = r.vector(item["point"], f"{f}.point", dim) if "point" in item else np.zeros(dim)
            trajectory = _trajectory(r, item["trajectory"], f"{f}.trajectory", dim)
            try:
                builder.add_servo_point(name, body, point, trajectory, relative)
            except ModelError as err:  # a point off a beam's centre line
                r.model_error(f, err)
        elif dim == 2:
            builder.add_servo_angle(name, body, _trajectory(r, item["trajectory"], f"{f}.trajectory", 1), relative)
        else:
            r.fail(f"{f}.type", "angle servos exist only in 2D models")
    control = r.table(data.get("control", {}), "control", optional=("inputs",))
    inputs = [r.reference(c, f"control.inputs[{k}]", coordinates, "joint coordinate")
              for k, c in enumerate(r.array(control.get("inputs", []), "control.inputs"))]
    builder.set_inputs(inputs)


def _add_friction(r, items, builder, coordinates):
    seen = []
    for i, item in enumerate(r.array(items, "friction")):
        f = f"friction[{i}]"
        r.table(item, f, ("coordinate", "stiffness", "max_force"))
        coordinate = r.reference(item["coordinate"], f"{f}.coordinate", coordinates, "joint coordinate")
        if coordinate in seen:
            r.fail(f"{f}.coordinate", f"'{coordinate}' has friction twice")
        seen.append(coordinate)
        builder.add_friction(coordinate, r.number(item["stiffness"], f"{f}.stiffness", positive=True),
                             r.number(item["max_force"], f"{f}.max_force", positive=True))


def _read_toml(path):
    """The parsed TOML of ``path``, a regular file of at most ``MAX_BYTES`` (anything else, such as a
    pipe or a device, is refused before it is opened: reading it could block or never end)."""
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            raise CaseError(path, "file", f"not a regular file{' (a folder)' if stat.S_ISDIR(mode) else ''}")
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise CaseError(path, "file", "not found") from None
    except OSError as err:
        raise CaseError(path, "file", f"cannot read ({err.strerror})") from None
    if len(data) > MAX_BYTES:
        raise CaseError(path, "file", f"larger than {MAX_BYTES // 2**20} MiB, the limit of a case file")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise CaseError(path, "file", f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    except tomllib.TOMLDecodeError as err:
        raise CaseError(path, "syntax", str(err)) from None
    except ValueError as err:  # int() refuses integers of more than sys.get_int_max_str_digits() digits
        raise CaseError(path, "syntax", f"a number with too many digits ({str(err).partition(';')[0]})") from None


def _add_bodies(r, items, builder, dim, flexible):
    names = []
    for i, item in enumerate(r.array(items, "bodies")):
        f = f"bodies[{i}]"
        if "beam" in r.mapping(item, f):
            r.table(item, f, ("name", "beam"))
            name = r.name(item["name"], f"{f}.name", names)
            if dim != 2:
                r.fail(f"{f}.beam", "flexible beam bodies exist only in 2D models")
            beam = read_beam(r, item["beam"], f"{f}.beam", flexible, r.path.parent)
            builder.add_beam(name, beam, flexible.stiffening)
            names.append(name)
            continue
        r.table(item, f, ("name", "mass"), ("euler", "inertia", "size"))
        name = r.name(item["name"], f"{f}.name", names)
        mass = r.number(item["mass"], f"{f}.mass", positive=True)
        if ("euler" in item) == ("inertia" in item):
            r.fail(f, "give exactly one of euler or inertia")
        if "euler" in item:
            euler = r.vector(item["euler"], f"{f}.euler", dim, positive=True)
        elif dim == 2:
            r.fail(f"{f}.inertia", "only in 3D models; give euler = [E1, E2] in 2D")
        else:
            inertia = r.vector(item["inertia"], f"{f}.inertia", 3, positive=True)
            euler = euler_from_inertia(inertia)
            if not np.all(euler > 0):
                r.fail(f"{f}.inertia", f"principal moments {_format(inertia)} violate the triangle "
                                       f"inequality J1 < J2 + J3 etc. (Euler values {_format(euler)})")
        size = r.vector(item["size"], f"{f}.size", dim, positive=True) if "size" in item else None
        builder.add_body(name, mass, euler, size)
        names.append(name)
    if not names:
        r.fail("bodies", "at least one body is needed")
    return names


def _add_joints(r, items, builder, dim, bodies):
    """Adds the joints; returns {joint name: type} and the augmented coordinate names."""
    joints, coordinates = {}, []
    for i, item in enumerate(r.array(items, "joints")):
        f = f"joints[{i}]"
        r.table(item, f, ("name", "type", "bodies"), JOINT_OPTIONAL)
        name = r.name(item["name"], f"{f}.name", joints)
        kind = r.choice(item["type"], f"{f}.type", JOINT_TYPES)
        b1, b2 = r.body_pair(item["bodies"], f"{f}.bodies", [*bodies, GROUND])
        p1, p2 = r.points(item["points"], f"{f}.points", dim) if "points" in item else (None, None)
        axis = r.vector(item["axis"], f"{f}.axis", dim, nonzero=True) if "axis" in item else None
        rotation = None
        if "relative_rotation" in item:
            field = f"{f}.relative_rotation"
            value = item["relative_rotation"]
            rotation = r.number(value, field) if dim == 2 else r.rotation(value, field)
        coords = {}
        for coord in ("angle", "slide"):
            if coord in item:
                coords[coord] = r.name(item[coord], f"{f}.{coord}", [*coordinates, *bodies])
                if coords[coord] in RESERVED_COLUMNS or coords[coord].endswith("_rate"):
                    r.fail(f"{f}.{coord}", f"'{coords[coord]}' is the name of a history.csv column "
                           "or ends in '_rate'; choose another")
                coordinates.append(coords[coord])
        try:
            builder.add_joint(name, kind, b1, b2, point1=p1, point2=p2, axis=axis,
                              relative_rotation=rotation, **coords)
        except ModelError as err:  # the builder's checks, reported against this joint's fields
            r.model_error(f, err)
        joints[name] = kind
    return joints, coordinates


def _add_loads(r, items, builder, dim, bodies, coordinates):
    for i, item in enumerate(r.array(items, "loads")):
        f = f"loads[{i}]"
        if r.typed_table(item, f, LOADS) == "joint":
            coordinate = r.reference(item["coordinate"], f"{f}.coordinate", coordinates, "joint coordinate")
            builder.add_joint_load(coordinate, r.time_function(item["function"], f"{f}.function"))
        else:
            body = r.reference(item["body"], f"{f}.body", bodies, "body")
            function = (r.time_function(item["function"], f"{f}.function") if "function" in item
                        else timefunctions.constant(1.0))
            point, force = r.vector(item["point"], f"{f}.point", dim), r.vector(item["force"], f"{f}.force", dim)
            try:
                builder.add_point_force(body, point, force, function)
            except ModelError as err:  # a point off a beam's centre line
                r.model_error(f, err)


def _add_springs(r, items, builder, dim, bodies):
    names = []
    for i, item in enumerate(r.array(items, "springs")):
        f = f"springs[{i}]"
        r.table(item, f, ("name", "bodies", "points", "stiffness", "free_length"), ("damping",))
        name = r.name(item["name"], f"{f}.name", names)
        b1, b2 = r.body_pair(item["bodies"], f"{f}.bodies", [*bodies, GROUND])
        p1, p2 = r.points(item["points"], f"{f}.points", dim)
        builder.add_spring_damper(
            name, b1, p1, b2, p2, r.number(item["stiffness"], f"{f}.stiffness", nonnegative=True),
            r.number(item.get("damping", 0.0), f"{f}.damping", nonnegative=True),
            r.number(item["free_length"], f"{f}.free_length", nonnegative=True))
        names.append(name)


def _initial(r, data, dim, bodies, joints):
    """Body poses/twists and joint coordinates/rates for ``place``."""
    r.table(data, "initial", optional=("bodies", "joints"))
    poses = {}
    for name, spec in r.mapping(data.get("bodies", {}), "initial.bodies").items():
        f = f"initial.bodies.{name}"
        r.reference(name, f, bodies, "body")
        orientation = "angle" if dim == 2 else "rotation"
        r.table(spec, f, optional=("position", orientation, "velocity", "angular_velocity"))
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


def _probes(r, items, dim, bodies):
    """Material points whose motion is recorded: [(name, body, point)]."""
    probes, names = [], []
    for i, item in enumerate(r.array(items, "probes")):
        f = f"probes[{i}]"
        r.table(item, f, ("name", "body", "point"))
        names.append(r.name(item["name"], f"{f}.name", names))
        probes.append((names[-1], r.reference(item["body"], f"{f}.body", bodies, "body"),
                       r.vector(item["point"], f"{f}.point", dim)))
    return probes


def read_case_data(path):
    """The parsed TOML of the case file ``path`` (CaseError if it cannot be read or parsed)."""
    return _read_toml(Path(path))


def _entry(r, array, part, field):
    """The index of the entry of ``array`` named ``part`` (arrays of named tables) or ``part`` as an
    index."""
    named = [item.get("name") if isinstance(item, dict) else None for item in array]
    if part in named:
        return named.index(part)
    if part.isdigit():
        if int(part) < len(array):
            return int(part)
        r.fail(field, f"index {part} out of range ({len(array)} entr{'y' if len(array) == 1 else 'ies'})")
    names = [n for n in named if isinstance(n, str)]
    if not array:
        r.fail(field, "the array is empty")
    r.fail(field, f"no entry named '{part}' (names: {', '.join(names)}; or an index from 0)" if names
           else f"expected an index from 0 to {len(array) - 1}, got '{part}'")


def override(data, overrides, path="case"):
    """A copy of the parsed case ``data`` with the numeric fields named by the dotted paths of
    ``overrides`` {path: number} replaced (module docstring). A part selects a table's key, or in an
    array the entry of that name or (if none has it) that index from 0. The field must be written in
    the file and hold a number or an expression string; an integer field takes an integral value as an
    integer. CaseError naming the path otherwise (``path``: the file, for the messages)."""
    r = _Reader(path)
    data = copy.deepcopy(data)
    for dotted, value in overrides.items():
        parts = dotted.split(".")
        if not all(parts):
            r.fail(dotted, "not a dotted path (an empty part)")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            r.fail(dotted, f"the override must be a finite number, got {value!r}")
        node, parent = data, None
        for i, part in enumerate(parts):
            field = ".".join(parts[: i + 1])
            if isinstance(node, dict):
                if part not in node:
                    listing = ", ".join(node) or "none"
                    r.fail(field, f"no field '{part}' in {parent or 'the file'} (fields: {listing})")
                key = part
            elif isinstance(node, list):
                key = _entry(r, node, part, field)
            else:
                r.fail(field, f"{parent} is {_describe(node)}, not a table or an array")
            parent, container, node = field, node, node[key]
        if isinstance(node, (dict, list)):
            r.fail(dotted, f"is {_describe(node)}, not a number; name one of its fields")
        if isinstance(node, str):
            try:
                evaluate_number(node)
            except ValueError:
                r.fail(dotted, f"holds {_describe(node)}, not a number")
        elif isinstance(node, bool) or not isinstance(node, (int, float)):
            r.fail(dotted, f"holds {_describe(node)}, not a number")
        integral = isinstance(node, int) and float(value).is_integer()
        container[key] = int(value) if integral else float(value)
    return data


def load_case(path, flexible=None, overrides=None, data=None):
    """Read, validate and build the case in the TOML file ``path`` (see the module docstring);
    ``flexible``: ``beams.Options`` overriding the flexible bodies' settings; ``overrides``: {dotted
    path: number} replacing numeric fields (``override``); ``data``: the file's parsed TOML
    (``read_case_data``), where the file is not at hand (a mesh file is still looked for relative to
    ``path``)."""
    path = Path(path)
    r = _Reader(path)
    data = read_case_data(path) if data is None else data
    if overrides:
        data = override(data, overrides, path)
    data = r.table(data, "", TOP_REQUIRED, TOP_OPTIONAL)
    dim = data["dimension"]
    if type(dim) is not int or dim not in (2, 3):
        r.fail("dimension", f"must be 2 or 3, got {_describe(dim)}")
    solver = r.table(data["solver"], "solver", ("dt", "t_end"),
                     ("tolerance", "max_iterations", "initial_tolerance", "integrator", "rho_inf", "early_stop",
                      "newton"))
    dt = r.number(solver["dt"], "solver.dt", positive=True)
    t_end = r.number(solver["t_end"], "solver.t_end", positive=True)
    try:
        builder = ModelBuilder(dim)
        settings = read_settings(r, data.get("flexible", {}), flexible or Options())
        bodies = _add_bodies(r, data["bodies"], builder, dim, settings)
        probes = _probes(r, data.get("probes", []), dim, bodies)
        joints, coordinates = _add_joints(r, data.get("joints", []), builder, dim, bodies)
        _add_loads(r, data.get("loads", []), builder, dim, bodies, coordinates)
        _add_springs(r, data.get("springs", []), builder, dim, bodies)
        _add_friction(r, data.get("friction", []), builder, coordinates)
        _add_servos(r, data, builder, dim, bodies, coordinates)
        if "gravity" in data:
            builder.set_gravity(r.vector(data["gravity"], "gravity", dim))
        meshed = settings.model == "fem" and any("beam" in spec for spec in data["bodies"])
        _check_history(r, builder.coordinate_count(), dt, t_end, meshed)
        model = builder.build()
        q0, v0 = place(model, *_initial(r, data.get("initial", {}), dim, bodies, joints))
        for name, body, point in probes:
            try:
                model.material_point(bodies.index(body), point)
            except ValueError as err:
                r.fail(f"probes.{name}.point", str(err))
    except ModelError as err:
        r.fail(err.field, err.message)

    defaults = NewtonOptions()
    integrator = r.choice(solver.get("integrator", INTEGRATORS[0]), "solver.integrator", INTEGRATORS)
    rho_inf = r.number(solver.get("rho_inf", 0.9), "solver.rho_inf")
    if not 0.0 <= rho_inf <= 1.0:
        r.fail("solver.rho_inf", f"the spectral radius must be in [0, 1], got {rho_inf:g}")
    early_stop = r.boolean(solver.get("early_stop", False), "solver.early_stop")
    if early_stop and integrator != "generalized-alpha":
        r.fail("solver.early_stop", "only for integrator = \"generalized-alpha\" (the energy-momentum scheme "
               "needs the converged residual for its conservation)")
    newton = r.choice(solver.get("newton", NEWTON_METHODS[0]), "solver.newton", NEWTON_METHODS)
    if early_stop and newton == "modified":
        r.fail("solver.early_stop", "not with newton = \"modified\" (the early stop is made for full Newton's "
               "quadratic convergence)")
    output = r.table(data.get("output", {}), "output", optional=("every", "vtk", "plots"))
    case = Case(
        path=path,
        title=r.string(data.get("title", path.stem), "title"),
        source=r.string(data.get("source", ""), "source"),
        model=model, q0=q0, v0=v0, probes=probes, flexible=settings,
        dt=dt, t_end=t_end,
        tolerance=r.number(solver.get("tolerance", defaults.tolerance), "solver.tolerance", positive=True),
        max_iterations=r.integer(solver.get("max_iterations", defaults.max_iterations),
                                 "solver.max_iterations", 1),
        initial_tolerance=r.number(solver.get("initial_tolerance", 1e-6), "solver.initial_tolerance",
                                   positive=True),
        integrator=integrator, rho_inf=rho_inf, early_stop=early_stop, newton=newton,
        every=r.integer(output["every"], "output.every", 1) if "every" in output else None,
        vtk=r.boolean(output.get("vtk", True), "output.vtk"),
        plots=r.boolean(output.get("plots", True), "output.plots"),
    )
    return case


def _check_history(r, coordinates, dt, t_end, meshed):
    """``check_run`` for the model's ``coordinates`` before it is built (on a fine mesh that takes long);
    ``meshed``: the case has fem beams, whose elements the message names too."""
    try:
        check_run(coordinates, dt, t_end)
    except ModelError as err:
        fewer = "; or fewer flexible.elements" if meshed else ""
        r.fail(f"solver.{err.field}", f"{err.message} ({coordinates} coordinates{fewer})")


def check_case_run(case):
    """``check_run`` for the case's dt and t_end (also after command-line overrides)."""
    try:
        check_run(case.model.n, case.dt, case.t_end)
    except ModelError as err:
        raise CaseError(case.path, f"solver.{err.field}", err.message) from None
