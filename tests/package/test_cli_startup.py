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


def test_ctrl_c_during_the_start_up_imports_is_one_line():
    """SIGINT while ``python -m femdyn`` imports NumPy and SciPy (the first few tenths of a second):
    exit code 130 and the one line 'interrupted', no traceback."""
    import signal
    import time

    package = str(Path(femdyn.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    case = str(Path(package) / "cases" / "nm_logo.toml")
    codes = []
    for delay in (0.1, 0.2):
        child = subprocess.Popen([sys.executable, "-m", "femdyn", "check", case], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        child.send_signal(signal.SIGINT)
        codes.append(child.wait())
        err = child.stderr.read()
        assert "Traceback" not in err and err in ("", "interrupted\n"), err
    assert 130 in codes and set(codes) <= {0, 130}
