"""Plain CSV tables of named columns, written losslessly with ``%.17g``, at once or appended in chunks."""
import os

import numpy as np


def write_csv(path, columns):
    """Write ``columns`` (name -> 1-D array, all the same length) to ``path``.

    The first line holds the comma separated names; every value is written
    with 17 significant digits so floats read back bit-for-bit.
    """
    names = list(columns)
    if not names:
        raise ValueError("no columns to write")
    if any("," in name for name in names):
        raise ValueError("column names must not contain commas")
    arrays = [np.asarray(columns[name], dtype=float) for name in names]
    if any(a.ndim != 1 for a in arrays) or len({len(a) for a in arrays}) != 1:
        raise ValueError("columns must be 1-D arrays of equal length")
    np.savetxt(
        path,
        np.column_stack(arrays),
        fmt="%.17g",
        delimiter=",",
        header=",".join(names),
        comments="",
    )


def read_csv(path, rows=None):
    """Read a table written by :func:`write_csv` into name -> float array; only its first ``rows``
    rows if given (the rows that a result folder still being written says are valid)."""
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
        rows = f.readlines() if rows is None else [line for _, line in zip(range(rows), f)]
    if not rows:
        return {name: np.empty(0) for name in names}
    data = np.loadtxt(rows, delimiter=",", ndmin=2)
    return {name: data[:, i] for i, name in enumerate(names)}


def append_csv(path, columns):
    """Append the rows of ``columns`` (as ``write_csv``) to ``path``, after the header line if the file
    is new; the rows read back as if written at once. Synced to the disk; returns the file's size."""
    names = list(columns)
    arrays = [np.asarray(columns[name], dtype=float) for name in names]
    with open(path, "ab") as f:
        if not f.tell():
            f.write((",".join(names) + "\n").encode())
        np.savetxt(f, np.column_stack(arrays), fmt="%.17g", delimiter=",")
        f.flush()
        os.fsync(f.fileno())
        return f.tell()
