"""Typed access to a parsed case file (``Reader``): every check raises ``CaseError`` naming the file and
the offending field by its path in the file, e.g. ``bodies[1].mass`` or ``solver.dt``. Numbers may be
written as expression strings (``"2*pi/3"``, see ``expressions``); integers and flags may not.
"""
import math
import re

import numpy as np

from ..forces import time_functions as timefunctions
from ..model.errors import GROUND
from ..numerics import kinematics as kin
from .expressions import compile_time_function, evaluate_number, to_float

NAME = re.compile(r"[\w-]+")
TIME_FUNCTIONS = {  # a load's function of time: type -> (required keys, optional keys)
    "hat": (("t1", "t2", "peak"), ()),
    "sine": (("amplitude", "frequency"), ("phase", "offset")),
    "table": (("times", "values"), ()),
    "constant": (("value",), ()),
    "expression": (("expr",), ()),
}


CONTROL = {code: f"\\x{code:02x}" for code in (*range(32), 127)} | {10: "\\n", 13: "\\r", 9: "\\t"}


def one_line(text):
    """``text`` with its control characters (a newline in a name, a key, a path) written as escapes."""
    return str(text).translate(CONTROL)


class CaseError(ValueError):
    """A case file that cannot be used; ``str`` is ``"{path}: {field}: {message}"``, on one line (control
    characters in any part written as escapes, ``one_line``)."""

    def __init__(self, path, field, message):
        super().__init__(one_line(f"{path}: {field}: {message}"))
        self.path, self.field, self.message = str(path), field, message


def join(parent, key):
    return f"{parent}.{key}" if parent else key


def describe(value):
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


class Reader:
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
            self.fail(field, f"expected a table, got {describe(data)}")
        return data

    def table(self, data, field, required=(), optional=()):
        """``data`` as a table with all ``required`` keys and some of the ``optional`` ones."""
        known = (*required, *optional)
        for key in self.mapping(data, field):
            if key not in known:
                listing = ", ".join(known) or "none"
                self.fail(join(field, key), f"unknown key {key!r} (known keys: {listing})")
        for key in required:
            if key not in data:
                self.fail(join(field, key), "missing")
        return data

    def typed_table(self, data, field, schema):
        """A table with a ``type`` key choosing its keys from ``schema`` {type: (required, optional)}."""
        kind = self.choice(self.mapping(data, field).get("type"), join(field, "type"), schema)
        required, optional = schema[kind]
        self.table(data, field, ("type", *required), optional)
        return kind

    def array(self, data, field):
        if not isinstance(data, list):
            self.fail(field, f"expected an array, got {describe(data)}")
        return data

    def string(self, value, field):
        if not isinstance(value, str):
            self.fail(field, f"expected a string, got {describe(value)}")
        return value

    def choice(self, value, field, options):
        if value is None:
            self.fail(field, "missing")
        if self.string(value, field) not in options:
            self.fail(field, f"unknown value {value!r} (known: {', '.join(options)})")
        return value

    def name(self, value, field, taken=()):
        """A new name: letters, digits, '_' and '-', not among ``taken``."""
        if not NAME.fullmatch(self.string(value, field)):
            self.fail(field, f"{value!r} is not a valid name (use letters, digits, '_' and '-')")
        if value == GROUND:
            self.fail(field, f"'{GROUND}' is reserved")
        if value in taken:
            self.fail(field, f"name {value!r} is used twice")
        return value

    def reference(self, value, field, known, what):
        """The name of an existing ``what`` among ``known``."""
        if self.string(value, field) not in known:
            self.fail(field, f"unknown {what} {value!r} (known: {', '.join(known) or 'none'})")
        return value

    def boolean(self, value, field):
        if not isinstance(value, bool):
            self.fail(field, f"expected true or false, got {describe(value)}")
        return value

    def integer(self, value, field, minimum=None, maximum=None):
        """An integer, from ``minimum`` to ``maximum`` where they are given."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, f"expected an integer, got {describe(value)}")
        if minimum is not None and value < minimum:
            self.fail(field, f"must be >= {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            self.fail(field, f"must be <= {maximum}, got {value!r}")
        return value

    def number(self, value, field, positive=False, nonnegative=False):
        """A finite float from a TOML number or an expression string."""
        if isinstance(value, str):
            try:
                x = evaluate_number(value)
            except ValueError as err:
                self.fail(field, f"expected a number, got {describe(value)}: {err}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                x = to_float(value)
            except ValueError as err:
                self.fail(field, str(err))
        else:
            self.fail(field, f"expected a number, got {describe(value)}")
        if not math.isfinite(x):
            self.fail(field, f"must be finite, got {x}")
        if positive and not x > 0:
            self.fail(field, f"must be > 0, got {x:g}")
        if nonnegative and not x >= 0:
            self.fail(field, f"must be >= 0, got {x:g}")
        return x

    def vector(self, value, field, length=None, positive=False, nonzero=False, nonnegative=False):
        """An array of ``length`` numbers (any length >= 1 if None)."""
        if not isinstance(value, list):
            what = f"{length} numbers" if length else "numbers"
            self.fail(field, f"expected an array of {what}, got {describe(value)}")
        if length is not None and len(value) != length:
            self.fail(field, f"expected {length} values, got {len(value)}")
        if not value:
            self.fail(field, "expected at least one value")
        x = np.array([self.number(v, f"{field}[{i}]", positive, nonnegative) for i, v in enumerate(value)])
        if nonzero and not np.any(x):
            self.fail(field, "must not be zero")
        return x

    def points(self, value, field, dim):
        """A pair of points [[..], [..]]."""
        if not isinstance(value, list) or len(value) != 2:
            self.fail(field, f"expected two points [[..], [..]], got {describe(value)}")
        return [self.vector(p, f"{field}[{i}]", dim) for i, p in enumerate(value)]

    def body_pair(self, value, field, known):
        """Two different body names among ``known``."""
        if not isinstance(value, list) or len(value) != 2:
            self.fail(field, f"expected two body names [b1, b2], got {describe(value)}")
        b1, b2 = (self.reference(b, f"{field}[{i}]", known, "body") for i, b in enumerate(value))
        if b1 == b2:
            self.fail(field, f"needs two different bodies, got {b1!r} twice")
        return b1, b2

    def rotation(self, value, field):
        """A 3x3 rotation from {axis = [..], angle = ..}."""
        self.table(value, field, ("axis", "angle"))
        axis = self.vector(value["axis"], f"{field}.axis", 3, nonzero=True)
        return kin.rotation_3d(axis, self.number(value["angle"], f"{field}.angle"))

    def time_function(self, value, field):
        """A load's function of time {type = hat | sine | table | constant | expression, ...}, labelled
        by ``field`` (``label``: a run that fails on a value of it that is not finite names it,
        ``integrators.diagnostics.nonfinite_load``)."""
        kind = self.typed_table(value, field, TIME_FUNCTIONS)
        if kind == "expression":
            try:
                function = compile_time_function(self.string(value["expr"], f"{field}.expr"))
            except ValueError as err:
                self.fail(f"{field}.expr", str(err))
        else:
            read = self.vector if kind == "table" else self.number
            args = {k: read(v, f"{field}.{k}") for k, v in value.items() if k != "type"}
            try:
                function = getattr(timefunctions, kind)(**args)
            except ValueError as err:
                self.fail(field, str(err))
        function.label = one_line(f"the load {field} of {self.path}")
        return function

