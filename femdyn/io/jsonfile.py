"""Strict JSON for the files femdyn writes: a number that is not finite (NaN, infinity) is written as
``null``, never as the bare ``NaN`` or ``Infinity`` that Python's json module writes by default and that
strict readers (JavaScript, jq, most other languages) reject."""
import json
import math

import numpy as np


def strict(value):
    """``value`` (dicts, lists, tuples, numbers, NumPy scalars and arrays) as plain JSON data, with every
    non-finite number replaced by None."""
    if isinstance(value, dict):
        return {key: strict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [strict(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def dumps(value, indent=2):
    """The strict JSON text of ``value`` (``strict``), with a final newline."""
    return json.dumps(strict(value), indent=indent, allow_nan=False) + "\n"
