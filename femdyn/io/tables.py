"""Plain CSV tables of named columns, written losslessly with ``%.17g``, at once or appended in chunks.

A value that is not a finite number is **missing** (undefined there, e.g. the deviation from a rigid
mechanism that cannot be assembled): its field is left empty, never the text ``nan`` or ``inf``, and
reads back as NaN. The one column of words, ``STATUS``, is written as it is and reads back as strings;
every other column must hold numbers."""
import os
import re

import numpy as np

STATUS = "rigid_mechanism"  # a frame's status in probes.csv: ok, or singular (``model.deviation``)


MISSING = re.compile(r"(?<![^,\n])[-+]?(?:nan|inf)(?=[,\n])")  # a whole field that is not a finite number


def _lines(columns):
    """The text of the rows of ``columns`` (name -> 1-D array, all the same length): numbers with 17
    significant digits (floats read back bit-for-bit), missing (not finite) values empty, words as given."""
    values = []
    for name, column in columns.items():
        column = np.asarray(column)
        words = column.dtype.kind in "USO"
        values.append(column.astype(str) if words else column.astype(float))
        if words and any("," in v or "\n" in v for v in values[-1]):
            raise ValueError(f"column {name}: a word holds a comma or a line break")
    if any(v.ndim != 1 for v in values) or len({len(v) for v in values}) != 1:
        raise ValueError("columns must be 1-D arrays of equal length")
    line = ",".join("%s" if v.dtype.kind == "U" else "%.17g" for v in values) + "\n"
    text = "".join([line % row for row in zip(*[v.tolist() for v in values])])
    finite = all(v.dtype.kind == "U" or np.isfinite(v).all() for v in values)
    return text if finite else MISSING.sub("", text)


def write_csv(path, columns):
    """Write ``columns`` (name -> 1-D array, all the same length) to ``path``: the first line holds the
    comma separated names, then one line per row (module docstring)."""
    names = list(columns)
    if not names:
        raise ValueError("no columns to write")
    if any("," in name for name in names):
        raise ValueError("column names must not contain commas")
    text = _lines(columns)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n" + text)


def parse_rows(lines, names):
    """The columns {name: values} of the text ``lines`` of a table with the header ``names``: floats
    (an empty field NaN), strings in the column ``STATUS``. ValueError for a row that does not hold as
    many fields as ``names``, or a field that is not a number outside ``STATUS``."""
    if not lines:
        return {name: np.empty(0) for name in names}
    try:  # a table of numbers only, every value there: read at once
        data = np.loadtxt(lines, delimiter=",", ndmin=2, comments=None)
    except ValueError:  # a missing value or the status words: field by field
        data = np.loadtxt(lines, delimiter=",", dtype=str, ndmin=2, comments=None)
    if data.shape[1] != len(names):
        raise ValueError(f"rows of {data.shape[1]} fields under a header of {len(names)} names")
    return {name: data[:, i] if data.dtype.kind == "f" or name == STATUS else
            np.where(data[:, i] == "", "nan", data[:, i]).astype(float) for i, name in enumerate(names)}


def read_csv(path, rows=None):
    """Read a table written by :func:`write_csv` into name -> float array (NaN where a value is missing;
    strings in the column ``STATUS``); only its first ``rows`` rows if given (the rows that a result
    folder still being written says are valid). ValueError where it is not such a table (``parse_rows``)."""
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
        rows = f.readlines() if rows is None else [line for _, line in zip(range(rows), f)]
    return parse_rows(rows, names)


def append_csv(path, columns):
    """Append the rows of ``columns`` (as ``write_csv``) to ``path``, after the header line if the file
    is new; the rows read back as if written at once. Synced to the disk; returns the file's size."""
    names = list(columns)
    text = _lines(columns).encode()
    with open(path, "ab") as f:
        if not f.tell():
            f.write((",".join(names) + "\n").encode())
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
        return f.tell()
