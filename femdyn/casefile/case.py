"""Case files: a TOML description of a model, its initial state and the run settings.

``load_case(path)`` validates the file strictly, builds the model and places the initial state; it
runs nothing (``prepare``/``simulate`` are the caller's). Every problem raises ``CaseError`` naming
the file and the offending field by its path in the file, e.g. ``bodies[1].mass``,
``initial.joints.NM.angle`` or ``solver.dt`` (the typed reading is ``reader``'s; the ``[solver]``
table becomes ``Case.settings``, an ``integrators.settings.SolverSettings``, which checks its values).
Numbers may be written as expression strings (``"2*pi/3"``, see ``expressions``); integers (dimension,
max_iterations, every) and flags may not.

Schema::

    title = "..."                     # optional (default: file stem)
    source = "..."                    # optional free text
    dimension = 2                     # 2 or 3
    gravity = [0.0, -9.81]            # optional
    [solver]  dt, t_end; optional tolerance, max_iterations, initial_tolerance,
              integrator = "energy-momentum" (default) | "generalized-alpha", rho_inf (default 0.9),
              early_stop (generalized-alpha only, default false: ``NewtonOptions.early_stop``),
              newton = "full" | "modified" (``NewtonOptions.modified``; not with early_stop; default:
              modified with generalized-alpha without early_stop, else full: ``settings.default_newton``)
    [output]  optional every, vtk, plots, states
    [[bodies]]   name, mass, euler = [..] | inertia = [J1, J2, J3] (3D); optional size = [..]
                 (values >= 0: a point mass has all zero, a flat disc J2 = J1 + J3)
    [[attachments]] name, body, point, mass; optional euler | inertia (default: a point mass): a mass
                 welded at a material point of a rigid or flexible body (``ModelBuilder.add_attachment``)
                 or name, beam = {..}: a flexible body (2D and 3D), with [flexible] settings (see ``beams``)
    [[probes]]   name, body, point       material points whose motion (and elastic part) is recorded
    [[gauges]]   name, body (a flexible body or segmented link), s (arc length from its first node, m) |
                 fraction (of its length, 0 to 1), fibre (y in 2D, [y, z] in 3D: m from the centre line
                 along the section's x2 (, x3)): the normal strain and stress there over time
                 (``model.gauges``, ``beam.gauges``; gauges.csv)
    [[joints]]   name, type, bodies = [b1, b2]; optional points, axis, relative_rotation, angle, slide
    [[loads]]    type = "joint": coordinate, function; optional name (every type: an input of
                        ``femdyn linearize``, new among the loads, joint coordinates and probes)
                 type = "point_force": body, point, force; optional function, frame
                 type = "torque": body, torque (world frame: [x, y, z] in 3D, a number in 2D);
                        optional point (the section's material point, default the body-frame
                        origin), function, frame
                 frame = "world" (default) | "body": the components follow the body (its frame; the
                        section's axes at the point of a flexible body), as thrust or a tool's reaction
    [[springs]]  name, bodies, points, stiffness, free_length; optional damping
    [[friction]] coordinate, stiffness, max_force          (stick-slip joint friction, 001 sec. 4.2)
    [[servos]]   type = "point": name, body, trajectory; optional point, relative (default true), on
                 type = "angle" (2D): name, body, trajectory; optional relative
                 type = "polar" (2D): name, body, trajectory; optional point, relative, on: the polar
                        angle of the body point about the world origin (``servo.ServoPolar``)
                 on = "material" (default: the material point, deformed on a flexible body) | "frame"
                        (the point phi + X_a d_a the body's floating frame carries, its reference
                        motion); angle and orientation servos take on = "frame" only (the directors)
                 type = "orientation" (3D): name, body, trajectory: the Euler angles [roll, pitch, yaw]
                        (rad) about the world axes x, y, z in that order, R = Rz(yaw) Ry(pitch) Rx(roll);
                        or with axis = [..] the angle (1 component) of a rotation about that world axis;
                        optional relative (default true: R(t) = R_traj(t) R_traj(0)^T R_0, the rotation
                        since t = 0 applied to the initial orientation R_0; false: R(t) = R_traj(t));
                        its three rows need three inputs (``servo.ServoOrientation``, one per model)
                 type = "coordinate": name, coordinate, trajectory; optional relative
                 trajectory = {type = figure8 (ax, ay, angle), smooth_ramp (t1, rate; optional t2,
                               t3: without them the rate is held after t1), spin_up (angular_speed,
                               t_ramp: Kane's spin-up law), circle (radius, angular_speed), swing
                               (amplitude, angular_speed), harmonic (angular_speed; sine, versine:
                               sine sin psi + versine (1 - cos psi)) -- these three with optional
                               t_ramp: psi starts smoothly over t_ramp (absent or 0: psi = w t, the
                               plain sine), polynomial (coefficients),
                               spline | table (times, values), constant}
    [control]    inputs = [coordinate, ..]  one actuated coordinate per servo row, in order
    [inversion]  optional method = "stable", pre, post (s): ``femdyn invert`` (``studies.inversion``)
    [initial.bodies.NAME]   position, angle (2D) | rotation = {axis, angle} (3D), velocity, angular_velocity;
                            flexible bodies also elastic, elastic_rate = {mode, amplitude}
                            (``initial_state.elastic_states``)
    [initial.joints.NAME]   angle, angle_rate, slide, slide_rate
    [initial]    optional equilibrium = true: start at rest in the static equilibrium
                 (``initial_state.read_equilibrium``, ``studies.run.prepare_case``);
                 optional assemble = true: the placed pose is only approximate (bodies off by millimetres
                 and degrees): its loops are closed by moving the rigid coordinates that are not held,
                 links undeformed (``model.assembly``); a pose that cannot be closed is refused, naming
                 the joints left open; optional hold = [names] (only with assemble): the joint
                 coordinates (or bodies: their frames) kept as placed, by default the [control] inputs,
                 the coordinates that coordinate servos drive or joint loads act on, and those of the
                 joints with the ground

The servo tables and their trajectories are read by ``motions``, the ``[initial]`` tables by
``initial_state``.

Overrides (``load_case(path, overrides={...})``, ``femdyn sweep --param``) replace numeric fields by
their dotted path into the file: table keys, and in an array an entry's ``name`` (arrays of named
tables: bodies, joints, probes, springs, servos) or its index from 0, e.g. ``bodies.leg1.beam.h``,
``bodies.3.beam.h``, ``gravity.1``, ``loads.0.function.amplitude``, ``solver.dt``,
``initial.bodies.platform.position.0`` (see ``overrides``).
"""
import math
import stat
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import get_type_hints

import numpy as np
import tomllib

from ..forces import time_functions as timefunctions
from ..integrators.settings import SettingsError, SolverSettings
from ..io.units import RESERVED_COLUMNS
from ..joints.registry import JOINT_TYPES
from ..model.builder import ModelBuilder, euler_from_inertia, inertia_violation
from ..model.errors import GROUND, ModelError
from ..model.gauges import make_gauge
from ..model.initial import place
from ..model.model import Model
from .beams import Options, read_beam, read_segments, read_settings
from .initial_state import check_energy, elastic_states, read_assembly, read_equilibrium, read_initial
from .motions import add_servos
from .overrides import override
from .notice import Notice
from .reader import CaseError, Reader, describe

FRAMES = 500  # default number of output frames
MAX_EVERY = 10**9  # output.every and --every at most (more steps than any run can store)
MAX_BYTES = 16 * 2**20  # largest case file read
# A model of BUILD_NOTICE_COORDINATES coordinates or more still building after BUILD_NOTICE_S says so on stderr
# (notice.Notice; 20 000 elements take seconds); a smaller one builds in well under a second, silently.
BUILD_NOTICE_S = 1.0
BUILD_NOTICE_COORDINATES = 20_000
TOP_REQUIRED = ("dimension", "solver", "bodies")
TOP_OPTIONAL = ("title", "source", "gravity", "output", "joints", "loads", "springs", "friction", "servos",
                "control", "initial", "flexible", "probes", "attachments", "inversion", "gauges")
JOINT_OPTIONAL = ("points", "axis", "relative_rotation", "angle", "slide")
LOADS = {  # type -> (required keys, optional keys)
    "joint": (("coordinate", "function"), ("name",)),
    "point_force": (("body", "point", "force"), ("function", "frame", "name")),
    "torque": (("body", "torque"), ("point", "function", "frame", "name")),
}
SOLVER_TYPES = get_type_hints(SolverSettings)  # the keys of [solver] and their types
SOLVER_REQUIRED = tuple(f.name for f in fields(SolverSettings) if f.default is MISSING)
SOLVER_OPTIONAL = tuple(f.name for f in fields(SolverSettings) if f.default is not MISSING and f.init)
READ = {float: "number", int: "integer", bool: "boolean", str: "string", str | None: "string"}  # Reader methods


@dataclass(frozen=True)
class Case:
    """A loaded case: its model and placed initial state, the solver settings of its runs, what a run
    writes (``output``), its probes and the settings of its flexible bodies."""

    path: Path
    title: str
    source: str
    model: Model
    q0: np.ndarray  # placed initial state (not yet projected onto the constraints)
    v0: np.ndarray
    settings: SolverSettings  # [solver]
    every: int | None  # write every k-th step as a VTK frame; None: about FRAMES frames
    vtk: bool
    plots: bool
    probes: list = ()  # (name, body name, body-frame point) whose motion is recorded
    gauges: tuple = ()  # ``beam.gauges.Gauge``: strain gauges (``model.gauges``)
    flexible: object = None  # beams.Settings of the flexible bodies
    equilibrium: bool = False  # [initial] equilibrium: start at rest in the static equilibrium (``prepare_case``)
    assemble: bool = False  # [initial] assemble: close the loops of the placed pose (``model.assembly``)
    hold: tuple | None = None  # [initial] hold: what the assembly holds (None: ``assembly.default_hold``)
    states: bool = False  # [output] states: write states.csv, the full state q, v of every frame
    data: dict = None  # the parsed tables it was built from, overrides applied (a variant is built from them)

    @property
    def output_every(self):
        return self.every or math.ceil(self.settings.steps / FRAMES)


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
    pipe or a device, is refused before it is opened: reading it could block or never end); arrays
    nested deeper than Python's recursion allows are refused too."""
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
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise CaseError(path, "syntax", "arrays or inline tables nested too deep") from None


def _add_bodies(r, items, builder, dim, flexible):
    names = []
    for i, item in enumerate(r.array(items, "bodies")):
        f = f"bodies[{i}]"
        if "beam" in r.mapping(item, f):
            r.table(item, f, ("name", "beam"))
            name = r.name(item["name"], f"{f}.name", names)
            beam = read_beam(r, item["beam"], f"{f}.beam", flexible, r.path.parent, dim)
            try:
                builder.add_beam(name, beam, flexible.stiffening, read_segments(r, item["beam"], f"{f}.beam", flexible))
            except ModelError as err:  # what the builder refuses of a beam body
                r.model_error(f, err)
            names.append(name)
            continue
        r.table(item, f, ("name", "mass"), ("euler", "inertia", "size"))
        name = r.name(item["name"], f"{f}.name", names)
        mass = r.number(item["mass"], f"{f}.mass", positive=True)
        if ("euler" in item) == ("inertia" in item):
            r.fail(f, "give exactly one of euler or inertia")
        size = r.vector(item["size"], f"{f}.size", dim, positive=True) if "size" in item else None
        builder.add_body(name, mass, _euler(r, item, f, dim), size)
        names.append(name)
    if not names:
        r.fail("bodies", "at least one body is needed")
    return names


def _euler(r, item, f, dim):
    """The Euler-tensor eigenvalues of a rigid body's table: ``euler`` = [E_a], or in 3D ``inertia`` =
    the principal moments [J1, J2, J3], E_i = (J_j + J_k - J_i)/2; none given: a point mass (zeros)."""
    if "euler" in item:
        return r.vector(item["euler"], f"{f}.euler", dim, nonnegative=True)
    if "inertia" not in item:
        return np.zeros(dim)
    if dim == 2:
        r.fail(f"{f}.inertia", "only in 3D models; give euler = [E1, E2] in 2D")
    inertia = r.vector(item["inertia"], f"{f}.inertia", 3, nonnegative=True)
    wrong = inertia_violation(inertia)
    if wrong:
        r.fail(f"{f}.inertia", wrong)
    return euler_from_inertia(inertia)


def _add_attachments(r, items, builder, dim, bodies):
    """Masses attached at material points (motors, grippers, tools): each a rigid body (a point mass
    unless euler or inertia is given, about its centre, along the carrier's frame there: the body frame
    of a rigid carrier, the section's axes at the point of a flexible one) welded by a fixed joint
    '<name>@<body>' at the point. Returns the names of the new bodies and {joint name: "fixed"}."""
    names, joints = [], {}
    for i, item in enumerate(r.array(items, "attachments")):
        f = f"attachments[{i}]"
        r.table(item, f, ("name", "body", "point", "mass"), ("euler", "inertia"))
        if "euler" in item and "inertia" in item:
            r.fail(f, "give at most one of euler or inertia")
        name = r.name(item["name"], f"{f}.name", [*bodies, *names])
        carrier = r.reference(item["body"], f"{f}.body", [*bodies, *names], "body")
        point = r.vector(item["point"], f"{f}.point", dim)
        mass = r.number(item["mass"], f"{f}.mass", positive=True)
        try:
            joint = builder.add_attachment(name, carrier, point, mass, _euler(r, item, f, dim))
        except ModelError as err:  # a point off a beam's centre line
            r.model_error(f, err)
        names.append(name)
        joints[joint] = "fixed"
    return names, joints


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


def _add_loads(r, items, builder, dim, bodies, coordinates, taken):
    """The loads; their optional names (inputs of ``femdyn linearize``) new among ``taken`` (the joint
    coordinates and probes) and each other."""
    taken = list(taken)
    for i, item in enumerate(r.array(items, "loads")):
        f = f"loads[{i}]"
        kind = r.typed_table(item, f, LOADS)
        if "name" in item:
            taken.append(r.name(item["name"], f"{f}.name", taken))
        if kind == "joint":
            coordinate = r.reference(item["coordinate"], f"{f}.coordinate", coordinates, "joint coordinate")
            builder.add_joint_load(coordinate, r.time_function(item["function"], f"{f}.function"))
            continue
        body = r.reference(item["body"], f"{f}.body", bodies, "body")
        function = (r.time_function(item["function"], f"{f}.function") if "function" in item
                    else timefunctions.constant(1.0))
        point = r.vector(item["point"], f"{f}.point", dim) if "point" in item else None
        frame = r.choice(item["frame"], f"{f}.frame", ("world", "body")) if "frame" in item else "world"
        try:
            if kind == "torque":
                torque = (r.vector(item["torque"], f"{f}.torque", 3) if dim == 3
                          else r.number(item["torque"], f"{f}.torque"))
                builder.add_point_torque(body, torque, function, point, frame)
            else:
                builder.add_point_force(body, point, r.vector(item["force"], f"{f}.force", dim), function, frame)
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


def _gauges(r, items, dim, bodies):
    """The strain gauges' tables, read: [(name, body, fibre, s, fraction)] (placed on the model by
    ``model.gauges.make_gauge`` once it is built)."""
    gauges, names = [], []
    for i, item in enumerate(r.array(items, "gauges")):
        f = f"gauges[{i}]"
        r.table(item, f, ("name", "body", "fibre"), ("s", "fraction"))
        names.append(r.name(item["name"], f"{f}.name", names))
        fibre = r.number(item["fibre"], f"{f}.fibre") if dim == 2 else r.vector(item["fibre"], f"{f}.fibre", 2)
        s, fraction = (r.number(item[key], f"{f}.{key}") if key in item else None for key in ("s", "fraction"))
        gauges.append((names[-1], r.reference(item["body"], f"{f}.body", bodies, "body"), fibre, s, fraction))
    return gauges


def read_case_data(path):
    """The parsed TOML of the case file ``path`` (CaseError if it cannot be read or parsed)."""
    return _read_toml(Path(path))


def load_case(path, flexible=None, overrides=None, data=None):
    """Read, validate and build the case in the TOML file ``path`` (see the module docstring);
    ``flexible``: ``beams.Options`` overriding the flexible bodies' settings; ``overrides``: {dotted
    path: number} replacing numeric fields (``override``); ``data``: the file's parsed TOML
    (``read_case_data``), where the file is not at hand (a mesh file is still looked for relative to
    ``path``)."""
    path = Path(path)
    r = Reader(path)
    data = read_case_data(path) if data is None else data
    if overrides:
        data = override(data, overrides, path)
    data = r.table(data, "", TOP_REQUIRED, TOP_OPTIONAL)
    dim = data["dimension"]
    if type(dim) is not int or dim not in (2, 3):
        r.fail("dimension", f"must be 2 or 3, got {describe(dim)}")
    solver = _solver(r, data["solver"])
    try:
        builder = ModelBuilder(dim)
        beams = read_settings(r, data.get("flexible", {}), flexible or Options(), dim)
        bodies = _add_bodies(r, data["bodies"], builder, dim, beams)
        attached, welds = _add_attachments(r, data.get("attachments", []), builder, dim, bodies)
        bodies = bodies + attached
        probes = _probes(r, data.get("probes", []), dim, bodies)
        gauges = _gauges(r, data.get("gauges", []), dim, bodies)
        joints, coordinates = _add_joints(r, data.get("joints", []), builder, dim, bodies)
        joints.update(welds)
        _add_loads(r, data.get("loads", []), builder, dim, bodies, coordinates,
                   [*coordinates, *(p[0] for p in probes)])
        _add_springs(r, data.get("springs", []), builder, dim, bodies)
        _add_friction(r, data.get("friction", []), builder, coordinates)
        add_servos(r, data, builder, dim, bodies, coordinates)
        if "gravity" in data:
            builder.set_gravity(r.vector(data["gravity"], "gravity", dim))
        meshed = beams.model == "fem" and any("beam" in spec for spec in data["bodies"])
        size = builder.coordinate_count()
        _check_history(r, solver, size, meshed)
        with Notice(f"{path}: building a model of {size} coordinates (more than {BUILD_NOTICE_S:g} s so far) ...",
                    BUILD_NOTICE_S if size >= BUILD_NOTICE_COORDINATES else None):
            model = builder.build()
        try:
            solver.check_step(model.mass_matrix)
        except SettingsError as err:
            r.fail(f"solver.{err.field}", err.message)
        q0, v0 = place(model, *read_initial(r, data.get("initial", {}), dim, bodies, joints))
        q0, v0 = elastic_states(r, data.get("initial", {}), model, bodies, q0, v0)
        check_energy(r, model, q0, v0, data.get("initial", {}))
        equilibrium = read_equilibrium(r, data.get("initial", {}))
        assemble, hold = read_assembly(r, data.get("initial", {}), coordinates, bodies)
        probes = [(name, *builder.resolve(body, point, f"probes.{name}.point")) for name, body, point in probes]
        for name, body, point in probes:  # on a segmented link: the segment that holds the point
            try:
                model.material_point([b.name for b in model.bodies].index(body), point)
            except ValueError as err:
                r.fail(f"probes.{name}.point", str(err))
        gauges = tuple(make_gauge(model, name, body, fibre, s, fraction) for name, body, fibre, s, fraction in gauges)
    except ModelError as err:
        r.fail(err.field, err.message)

    output = r.table(data.get("output", {}), "output", optional=("every", "vtk", "plots", "states"))
    case = Case(
        path=path,
        title=r.string(data.get("title", path.stem), "title"),
        source=r.string(data.get("source", ""), "source"),
        model=model, q0=q0, v0=v0, probes=probes, gauges=gauges, flexible=beams, settings=solver,
        every=r.integer(output["every"], "output.every", 1, MAX_EVERY) if "every" in output else None,
        vtk=r.boolean(output.get("vtk", True), "output.vtk"),
        plots=r.boolean(output.get("plots", True), "output.plots"), equilibrium=equilibrium, data=data,
        states=r.boolean(output.get("states", False), "output.states"),
        assemble=assemble, hold=hold,
    )
    return case


def _solver(r, table):
    """The ``[solver]`` table as ``SolverSettings``: each key read by the type of its settings field,
    its value checked by the settings (a refusal names ``solver.<field>``)."""
    table = r.table(table, "solver", SOLVER_REQUIRED, SOLVER_OPTIONAL)
    values = {key: getattr(r, READ[SOLVER_TYPES[key]])(value, f"solver.{key}") for key, value in table.items()}
    try:
        return SolverSettings(**values)
    except SettingsError as err:
        r.fail(f"solver.{err.field}", err.message)


def _check_history(r, solver, coordinates, meshed):
    """The history check of the settings for the model's ``coordinates`` before it is built (on a fine
    mesh that takes long); ``meshed``: the case has fem beams, whose elements the message names too."""
    try:
        solver.check_history(coordinates)
    except SettingsError as err:
        fewer = "; or fewer flexible.elements" if meshed else ""
        r.fail(f"solver.{err.field}", f"{err.message} ({coordinates} coordinates{fewer})")
