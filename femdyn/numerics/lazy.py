"""Modules of compiled kernels imported where they first run: they import numba, which the command
line should not load before it needs it (0.2 s), and an ``import`` statement inside a function costs
about 4 us per call -- a tenth of a small model's Newton iteration -- where this is a dictionary
look-up once the module is loaded (``compiled``); and modules registered as loaded on first use
(``deferred``)."""
import importlib
import importlib.util
import sys
import types

import numpy as np


def compiled(name):
    """The module ``name`` (absolute), imported on the first call."""
    module = sys.modules.get(name)
    return module if module is not None else importlib.import_module(name)


def deferred(name: str) -> types.ModuleType:
    """The module ``name``, not imported yet, registered as loaded on first use
    (``importlib.util.LazyLoader``): in ``sys.modules`` and as its package's attribute (if it has a package),
    its code run when a
    name of it is first looked up -- an ``import`` statement of it counts as one."""
    spec = importlib.util.find_spec(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module


def floats(x):
    """``x`` as the C-contiguous float64 array the kernels take (no copy if it is one already)."""
    return np.ascontiguousarray(x, dtype=np.float64)
