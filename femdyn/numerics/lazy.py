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


class Deferred(types.ModuleType):
    """A module registered by ``deferred`` whose code has not run: its spec, name, file and (a package's)
    search path are set -- all that an ``import`` statement of it reads --, and looking up any other name of it
    runs its code (``load``), after which it is a plain module."""

    def __getattr__(self, name):
        load(self)
        return getattr(self, name)


def deferred(name: str) -> types.ModuleType:
    """The module ``name``, not imported yet, registered as loaded on first use (``Deferred``): in
    ``sys.modules`` and as its package's attribute (if it has a package), its code run when a name of it is
    first looked up. An ``import`` statement of it does not run it (as it would a module of
    ``importlib.util.LazyLoader``, whose spec is one of its names): a library that imports a module for a
    use this process does not have, such as numba PyYAML for a configuration file, then does not run it."""
    module = importlib.util.module_from_spec(importlib.util.find_spec(name))
    module.__class__ = Deferred
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module


def load(module: types.ModuleType) -> None:
    """Run the code of ``module`` if it is ``Deferred``, as its import would have."""
    if type(module) is Deferred:
        module.__class__ = types.ModuleType
        module.__spec__.loader.exec_module(module)


def floats(x):
    """``x`` as the C-contiguous float64 array the kernels take (no copy if it is one already)."""
    return np.ascontiguousarray(x, dtype=np.float64)
