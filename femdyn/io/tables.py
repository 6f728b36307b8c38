"""Plain CSV tables of named columns, written losslessly with ``%.17g``, at once or appended in chunks.

A value that is not a finite number is **missing** (undefined there, e.g. the deviation from a rigid
mechanism that cannot be assembled): its field is left empty, never the text ``nan`` or ``inf``, and
reads back as NaN. The one column of words, ``STATUS``, is written as it is and reads back as strings;
every other column must hold numbers."""
import os
import re
import sys

import numpy as np

from ..numerics.lazy import compiled

STATUS = "rigid_mechanism"  # a frame's status in probes.csv: ok, or singular (``model.deviation``)


MISSING = re.compile(r"(?<![^,\n])[-+]?(?:nan|inf)(?=[,\n])")  # a whole field that is not a finite number
MISSING_WORD = re.compile(r"^[-+]?(?:nan|inf)$")  # a word that ``MISSING`` would blank
KERNELS = __package__ + ".decimal_kernels"  # numba: imported where the kernel runs


def _lines(columns):
    """The text of the rows of ``columns`` (name -> 1-D array, all the same length): numbers with 17
    significant digits (floats read back bit-for-bit), missing (not finite) values empty, words as given.
    A large table, or any table once the compiled ``decimal_kernels`` are loaded, is written by them (the same
    text), a small one value by value (``_python_lines``)."""
    values = []
    for name, column in columns.items():
        column = np.asarray(column)
        words = column.dtype.kind in "USO"
        values.append(column.astype(str) if words else column.astype(float))
        if words and any("," in v or "\n" in v for v in values[-1]):
            raise ValueError(f"column {name}: a word holds a comma or a line break")
    if any(v.ndim != 1 for v in values) or len({len(v) for v in values}) != 1:
        raise ValueError("columns must be 1-D arrays of equal length")
    size = len(values) * len(values[0])
    if size and (size >= COMPILED_FROM or KERNELS in sys.modules):
        text = _compiled_lines(values)
        if text is not None:
            return text
    return _python_lines(values)


# values of a table from which the compiled kernel pays for its loading (about 0.05 s from numba's cache, where
# Python writes 1e6 values a second)
COMPILED_FROM = 50000


def _python_lines(values):
    """``_lines`` of the columns ``values`` (floats or strings), value by value: the definition."""
    line = ",".join("%s" if v.dtype.kind == "U" else "%.17g" for v in values) + "\n"
    text = "".join([line % row for row in zip(*[v.tolist() for v in values])])
    finite = all(v.dtype.kind == "U" or np.isfinite(v).all() for v in values)
    return text if finite else MISSING.sub("", text)


def _compiled_lines(values):
    """``_python_lines`` by ``decimal_kernels.rows_text``; None where it cannot be used: a word that is not ASCII
    or that the missing-value rule would blank (or that holds a NUL), or a number whose rounding it leaves to Python (none known)."""
    kernels = compiled(KERNELS)
    words = [v for v in values if v.dtype.kind == "U"]
    if any(MISSING_WORD.search(w) or "\0" in w for v in words for w in np.unique(v)):
        return None
    try:
        encoded = [np.char.encode(v, "ascii") for v in words]
    except UnicodeEncodeError:
        return None
    width = max([w.itemsize for w in encoded], default=1)
    table = np.zeros((len(encoded), len(values[0]), width), dtype=np.uint8)
    for k, w in enumerate(encoded):
        table[k, :, : w.itemsize] = w.view(np.uint8).reshape(len(w), w.itemsize)
    word_of = np.cumsum([v.dtype.kind == "U" for v in values]) - 1
    word_of[[v.dtype.kind != "U" for v in values]] = -1
    numbers = np.zeros((len(values[0]), len(values)))
    for c, v in enumerate(values):
        if v.dtype.kind != "U":
            numbers[:, c] = v
    text = kernels.rows_text(numbers.view(np.uint64), table, word_of.astype(np.int64), *kernels.POWERS)
    return text.tobytes().decode("ascii") if text.size else None


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
