"""Modules of compiled kernels imported where they first run: they import numba, which the command
line should not load before it needs it (0.2 s), and an ``import`` statement inside a function costs
about 4 us per call -- a tenth of a small model's Newton iteration -- where this is a dictionary
look-up once the module is loaded."""
import importlib
import sys

import numpy as np


def compiled(name):
    """The module ``name`` (absolute), imported on the first call."""
    module = sys.modules.get(name)
    return module if module is not None else importlib.import_module(name)


def floats(x):
    """``x`` as the C-contiguous float64 array the kernels take (no copy if it is one already)."""
    return np.ascontiguousarray(x, dtype=np.float64)
