"""The optional parts of femdyn (the extras of ``pyproject.toml``): a command whose extra is not installed
says so in one line, with the command that installs it, and exits with code 2."""
import importlib.util
import sys

EXTRAS = {"view": ("pyvista",), "sweep": ("distributed", "pyarrow")}  # extra -> the modules its commands import


def _installed(module):
    if module in sys.modules:
        return sys.modules[module] is not None
    return importlib.util.find_spec(module) is not None


def require(extra: str) -> int:
    """0 if the modules of ``extra`` are installed; else 2, the line on stderr said."""
    absent = [m for m in EXTRAS[extra] if not _installed(m)]
    if not absent:
        return 0
    print(f"error: femdyn {extra} needs {' and '.join(absent)}, not installed: pip install 'femdyn[{extra}]'",
          file=sys.stderr)
    return 2
