"""The command line starts without the libraries that only plots, ParaView output, splines, root
finding and the viewer need: they are imported where they are used."""
import os
import subprocess
import sys
from pathlib import Path

import femdyn

HEAVY = ("matplotlib", "scipy.interpolate", "scipy.optimize", "pyvista", "meshio")


def test_import_cli_leaves_heavy_modules_unloaded():
    package = str(Path(femdyn.__file__).resolve().parents[1])  # the femdyn under test, not an installed one
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    code = f"import sys, femdyn.cli; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    child = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert child.stdout.split() == []
