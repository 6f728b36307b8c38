"""Where femdyn's SuiteSparse comes from: the shared libraries that the kvxopt wheel ships (KLU 1.3,
CHOLMOD 3.0 of SuiteSparse 4.4, LGPL-2.1+), loaded by path from the installed package, so that a
``pip install`` needs no system SuiteSparse and a run does not depend on the machine's.

The wheel's libraries carry hashed names (``libklu-72e48532.so.1.3.3``) and find each other only by
their ``$ORIGIN`` run path on the Python extension that loads them, not on themselves: so libklu's
dependencies (SuiteSparse_config, AMD, COLAMD, BTF) are loaded first, each by its path, and the
dynamic loader then resolves libklu's needs by their names against the loaded ones. CHOLMOD is used
through kvxopt's own extension (``cholesky``), which finds its libraries itself.

``FEMDYN_KLU=system`` (an explicit opt-in, for comparisons) loads the system's libklu instead
(``ctypes.util.find_library``).
"""
import ctypes
import ctypes.util
import importlib.util
import os
from pathlib import Path

KLU_ENVIRONMENT = "FEMDYN_KLU"
KLU_CHAIN = ("suitesparseconfig", "amd", "colamd", "btf", "klu")  # each needs only those before it


def wheel_libraries() -> Path:
    """The folder of the shared libraries in the installed kvxopt wheel (``kvxopt.libs`` beside the
    package on Linux and Windows, ``kvxopt/.dylibs`` on macOS)."""
    spec = importlib.util.find_spec("kvxopt")
    if spec is None or spec.origin is None:
        raise ImportError("femdyn needs kvxopt (its KLU and CHOLMOD libraries): pip install kvxopt")
    package = Path(spec.origin).parent
    for folder in (package.parent / "kvxopt.libs", package / ".dylibs"):
        if folder.is_dir():
            return folder
    raise ImportError(f"kvxopt at {package} has no bundled libraries (kvxopt.libs): install its wheel, "
                      "pip install --only-binary=:all: kvxopt")


def _library(folder: Path, name: str) -> Path:
    """The file of library ``name`` (``klu``) in ``folder``: ``libklu-<hash>.so.1.3.3`` and alike."""
    found = sorted(p for p in folder.iterdir() if p.name.startswith((f"lib{name}-", f"lib{name}.", f"{name}-")))
    if not found:
        raise ImportError(f"no lib{name} in {folder}")
    return found[0]


def klu_library() -> str:
    """The path of the libklu that femdyn calls, its dependencies loaded (module docstring)."""
    if os.environ.get(KLU_ENVIRONMENT) == "system":
        return ctypes.util.find_library("klu") or "libklu.so.1"
    folder = wheel_libraries()
    paths = [str(_library(folder, name)) for name in KLU_CHAIN]
    for path in paths:
        ctypes.CDLL(path)
    return paths[-1]
