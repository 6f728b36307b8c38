"""Overrides of a parsed case file (``load_case(path, overrides={...})``, ``femdyn sweep --param``):
numeric fields replaced by their dotted path into the file: table keys, and in an array an entry's
``name`` (arrays of named tables: bodies, joints, probes, springs, servos) or its index from 0, e.g.
``bodies.leg1.beam.h``, ``bodies.3.beam.h``, ``gravity.1``, ``loads.0.function.amplitude``,
``solver.dt``, ``initial.bodies.platform.position.0``.
"""
import copy
import math

from .expressions import evaluate_number
from .reader import Reader, describe


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
    r = Reader(path)
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
                r.fail(field, f"{parent} is {describe(node)}, not a table or an array")
            parent, container, node = field, node, node[key]
        if isinstance(node, (dict, list)):
            r.fail(dotted, f"is {describe(node)}, not a number; name one of its fields")
        if isinstance(node, str):
            try:
                evaluate_number(node)
            except ValueError:
                r.fail(dotted, f"holds {describe(node)}, not a number")
        elif isinstance(node, bool) or not isinstance(node, (int, float)):
            r.fail(dotted, f"holds {describe(node)}, not a number")
        integral = isinstance(node, int) and float(value).is_integer()
        container[key] = int(value) if integral else float(value)
    return data
