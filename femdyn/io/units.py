"""The kind of every augmented joint coordinate of a model -- an angle (rad) or a slide (m) -- and so
the quantity and SI unit of the coordinate and of the servo input that drives it: a torque (N m) on
an angle, a force (N) on a slide (000 eq. 84: the input is the multiplier of the servo's row on the
coordinate, work-conjugate to it).

The SI unit of every column of every CSV table femdyn writes (``column_unit``), which the plots label
their axes with and ``units.json`` gives machine-readable (``write_units``)."""
from pathlib import Path

from . import jsonfile

GAUGES = {"strain": ("normal strain", "1"), "stress": ("normal stress", "Pa")}  # the columns G.<quantity> of gauges.csv
COORDINATES = {"angle": ("joint angle", "rad"), "slide": ("joint slide", "m")}  # kind -> quantity, unit
INPUTS = {"angle": ("servo torque", "N m"), "slide": ("servo force", "N")}


def coordinate_kind(model, coordinate):
    """"angle" or "slide": what the joint coordinate ``coordinate`` of ``model`` measures."""
    index = model.joint_coordinates[coordinate]
    return next(kind for joint in model.joints for kind, i in joint.coordinates.items() if i == index)


UNITS_FILE = "units.json"  # {table: {column: SI unit}} of every CSV table of a result folder (``write_units``)
MIXED = "m or 1"  # the largest over constraints of several kinds (positions in m, director conditions in 1)
STATE = "m or 1 or rad"  # a body's or beam's coordinate in states.csv: a position, a director or slope, a twist
HISTORY = {"t": "s", **dict.fromkeys(("kinetic", "potential", "total", "work", "dissipation", "energy_balance"), "J"),
           **{f"momentum_{a}": "kg m/s" for a in "xyz"}, **{f"angular_momentum_{a}": "kg m^2/s" for a in "xyz"},
           "constraint_residual": MIXED, "newton_iterations": "1"}
RESERVED_COLUMNS = frozenset(HISTORY)  # the history's columns: no joint coordinate may take their names
PROBES = {  # quantity and SI unit of every column NAME.QUANTITY of probes.csv (the probe plots' axis labels)
    **{a: (f"position {a}", "m") for a in "xyz"},
    **{f"v{a}": (f"velocity {a}", "m/s") for a in "xyz"},
    **{f"a{a}": (f"acceleration {a}", "m/s^2") for a in "xyz"},
    "angle": ("angle", "rad"),
    **{f"elastic_{a}": (f"elastic displacement {a}", "m") for a in "xyz"},
    **{f"elastic_{a}": (f"elastic displacement along d{a}", "m") for a in "123"},
    "elastic_angle": ("section rotation", "rad"),
    **{f"elastic_r{a}": (f"section rotation about {a}", "rad") for a in "xyz"},
    **{f"elastic_r{a}": (f"section rotation about d{a}", "rad") for a in "123"},
    **{f"deviation_{a}": (f"deviation from the rigid mechanism {a}", "m") for a in "xyz"},
    "deviation_angle": ("deviation angle from the rigid mechanism", "rad"),
    **{f"deviation_r{a}": (f"deviation rotation about {a}", "rad") for a in "xyz"},
    "jacobian_condition": ("condition number of the actuated-to-effector Jacobian", "1"),
    "jacobian_smallest": ("smallest singular value of that Jacobian", "m per actuated unit"),
    "rigid_mechanism": ("status of the rigid mechanism at the frame: ok, or singular (no deviation)", "text"),
}
BODIES = {**dict.fromkeys("xyz", "m"), "angle": "rad", **{f"d{i}{a}": "1" for i in "123" for a in "xyz"}}
REACTIONS = {**{f"force_{a}": "N" for a in "xyz123"}, **{f"moment_{a}": "N m" for a in "xyz123"}}
MODES = {"mode": "1", "omega_rad_s": "rad/s", "frequency_hz": "Hz",  # and P.amplitude_x .. (``model.participation``)
         **{f"amplitude_{a}": "kg^-1/2" for a in "xyz"}, **{f"effective_mass_{a}": "kg" for a in "xyz"}}


FIELDS = {  # SI unit of a case file's numeric field by its key (``field_unit``: the sweep's parameters)
    **dict.fromkeys(("length", "b", "h", "size", "point", "points", "position", "slide", "free_length", "radius",
                     "fibre", "s", "ax", "ay"), "m"),
    "area": "m^2", **dict.fromkeys(("iz", "iy", "j"), "m^4"), **dict.fromkeys(("young", "shear"), "Pa"),
    "density": "kg/m^3", "mass": "kg", **dict.fromkeys(("euler", "inertia"), "kg m^2"),
    **dict.fromkeys(("velocity", "slide_rate"), "m/s"), **dict.fromkeys(("angular_velocity", "angle_rate",
                                                                        "angular_speed", "rate"), "rad/s"),
    **dict.fromkeys(("angle", "relative_rotation"), "rad"), "gravity": "m/s^2", "force": "N", "max_force": "N",
    "torque": "N m", **dict.fromkeys(("dt", "t_end", "t_ramp", "t1", "t2", "t3", "pre", "post", "beta"), "s"),
    "alpha": "1/s", **dict.fromkeys(("poisson", "ratio", "fraction", "rho_inf", "tolerance", "initial_tolerance"),
                                    "1"),
}


def field_unit(path):
    """The SI unit of the case file's numeric field at the dotted ``path`` (``bodies.leg1.beam.h``,
    ``gravity.1``, ``solver.dt``: ``casefile.overrides``) by its last key that is not an index, from
    ``FIELDS``; a spring's stiffness N/m and damping N s/m; "SI" where the key alone does not tell
    (a trajectory's amplitude, a time function's value)."""
    keys = [key for key in str(path).split(".") if not key.isdigit()]
    key = keys[-1] if keys else ""
    if keys and keys[0] == "springs" and key in ("stiffness", "damping"):
        return {"stiffness": "N/m", "damping": "N s/m"}[key]
    return FIELDS.get(key, "SI")


def column_unit(model, table, column):
    """The SI unit of ``column`` of the CSV ``table`` (its file name) of a result folder of ``model``:
    ``history.csv`` (energies, momenta, joint coordinates and their rates), ``inputs.csv`` (the servo
    input on each coordinate), ``bodies.csv``, ``probes.csv``, ``reactions.csv``, ``gauges.csv``, ``states.csv`` (by the quantity after
    the last dot of ``NAME.QUANTITY``), ``modes.csv``; the time ``t`` in s. KeyError for a column
    without a known unit."""
    if column == "t":
        return "s"
    if table == "history.csv":
        if column in HISTORY:
            return HISTORY[column]
        name = column if column in model.joint_coordinates else column.removesuffix("_rate")
        unit = COORDINATES[coordinate_kind(model, name)][1]
        return unit if name == column else f"{unit}/s"
    if table == "states.csv":  # q.<coordinate>, v.<coordinate>: a joint coordinate's unit, else positions [m],
        # directors and slopes [1], twists [rad] (``MIXED``)
        kind, _, name = column.partition(".")
        unit = COORDINATES[coordinate_kind(model, name)][1] if name in model.joint_coordinates else STATE
        return unit if kind == "q" else " or ".join(f"{u}/s" for u in unit.split(" or "))
    if table == "inputs.csv":
        return INPUTS[coordinate_kind(model, column)][1]
    if table == "modes.csv":
        return MODES[column.rpartition(".")[2]]
    quantity = column.rpartition(".")[2]
    if table == "probes.csv":
        return PROBES[quantity][1]
    if table == "gauges.csv":
        return GAUGES[quantity][1]
    return {"bodies.csv": BODIES, "reactions.csv": REACTIONS}[table][quantity]


def table_units(model, folder, tables):
    """{table: {column: unit}} of the CSV files ``tables`` of ``folder`` that exist (``column_unit``
    of every name in their header line)."""
    units = {}
    for table in sorted(tables):
        path = Path(folder) / table
        if path.is_file():
            with open(path) as f:
                names = f.readline().rstrip("\n").split(",")
            units[table] = {name: column_unit(model, table, name) for name in names}
    return units


def write_units(model, folder, tables):
    """Write ``units.json`` into ``folder``: ``table_units`` of its CSV files ``tables``."""
    (Path(folder) / UNITS_FILE).write_text(jsonfile.dumps(table_units(model, folder, tables)))
