"""Plain CSV tables of named columns, written losslessly with ``%.17g``."""

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


def read_csv(path):
    """Read a table written by :func:`write_csv` into name -> float array."""
    with open(path) as f:
        names = f.readline().rstrip("\n").split(",")
        rows = f.readlines()
    if not rows:
        return {name: np.empty(0) for name in names}
    data = np.loadtxt(rows, delimiter=",", ndmin=2)
    return {name: data[:, i] for i, name in enumerate(names)}
