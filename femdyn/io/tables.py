"""Plain CSV tables of named columns, written losslessly with ``%.17g``, at once or appended in chunks.

A value that is not a finite number is **missing** (undefined there, e.g. the deviation from a rigid
mechanism that cannot be assembled): its field is left empty, never the text ``nan`` or ``inf``, and
reads back as NaN. The one column of words, ``STATUS``, is written as it is and reads back as strings;
every other column must hold numbers."""
import os

import numpy as np

STATUS = "rigid_mechanism"  # a frame's status in probes.csv: ok, or singular (``model.deviation``)


def _lines(columns):
    """The text of the rows of ``columns`` (name -> 1-D array, all the same length): numbers with 17
    significant digits (floats read back bit-for-bit), missing (not finite) values empty, words as given."""
    fields = []
    for name, values in columns.items():
        values = np.asarray(values)
        if values.ndim != 1:
            raise ValueError("columns must be 1-D arrays of equal length")
        if values.dtype.kind in "USO":
            text = values.astype(str)
            if any("," in v or "\n" in v for v in text):
                raise ValueError(f"column {name}: a word holds a comma or a line break")
        else:
            values = values.astype(float)
            text = np.char.mod("%.17g", values)
            text[~np.isfinite(values)] = ""
        fields.append(text)
    if len({len(f) for f in fields}) != 1:
        raise ValueError("columns must be 1-D arrays of equal length")
    return "".join(",".join(row) + "\n" for row in zip(*fields))


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
    data = np.loadtxt(lines, delimiter=",", dtype=str, ndmin=2, comments=None)
    if data.shape[1] != len(names):
        raise ValueError(f"rows of {data.shape[1]} fields under a header of {len(names)} names")
    columns = {}
    for i, name in enumerate(names):
        field = data[:, i]
        columns[name] = field if name == STATUS else np.where(field == "", "nan", field).astype(float)
    return columns


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
