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


# ``femdyn check`` that says "ready" on stderr once femdyn has taken over the stop signals, before it
# imports NumPy and SciPy (a signal before that lands in Python's own start-up, which no program catches)
READY = """
import sys
from femdyn.post import interrupt

enter = interrupt.Signals.__enter__

def ready(self):
    signals = enter(self)
    print("ready", file=sys.stderr, flush=True)
    return signals

interrupt.Signals.__enter__ = ready
from femdyn.cli import main
sys.argv[0] = "femdyn"
sys.exit(main())
"""


def test_ctrl_c_during_the_start_up_imports_is_one_line():
    """SIGINT as ``femdyn check`` starts to import NumPy and SciPy (sent when it says it has taken over
    the signals: an event, not a time): exit code 130 and the one line 'interrupted', no traceback."""
    import signal

    package = str(Path(femdyn.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    case = str(Path(package) / "cases" / "nm_logo.toml")
    child = subprocess.Popen([sys.executable, "-c", READY, "check", case], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    assert child.stderr.readline() == "ready\n"
    child.send_signal(signal.SIGINT)
    code = child.wait()
    err = child.stderr.read()
    assert code == 130 and err == "interrupted\n", err


# ``femdyn run`` of a case in this process, then the loaded modules among those it should not need
RUN_AND_LIST = """
import sys
from femdyn.cli import main
assert main(sys.argv[1:]) == 0
loaded = [name for name in {names!r} if name in sys.modules and type(sys.modules[name]).__name__ != "Deferred"]
print(" ".join(loaded))
"""


def test_a_rigid_run_with_its_paraview_series_loads_no_mesh_or_dense_linear_algebra_library(tmp_path):
    """``femdyn run`` of the rigid NM logo with its tables and ParaView series (plots off: they are a child
    process's) imports neither meshio (the series is written by ``io.vtkxml``), nor scipy.linalg,
    scipy.sparse.linalg and csgraph (no mesh, no modes, no statics), nor numba's array implementation
    modules, which only compiling needs, nor importlib.metadata and PyYAML, with which numba finds its
    extensions and reads a configuration file (``numerics.compiled``): checked in the second of two runs, the
    first having filled numba's cache if it was empty."""
    package = str(Path(femdyn.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    names = ("meshio", "scipy.linalg", "scipy.sparse.linalg", "scipy.sparse.csgraph", "numba.np.arrayobj",
             "numba.np.arraymath", "matplotlib", "importlib.metadata", "yaml")
    code = RUN_AND_LIST.format(names=names)
    for run in range(2):
        child = subprocess.run([sys.executable, "-c", code, "run", str(Path(package) / "cases" / "nm_logo.toml"),
                                "--no-plots", "--quiet", "--force", "--out", str(tmp_path / "out")],
                               env=env, capture_output=True, text=True)
        assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines()[-1].split() == []
    assert (tmp_path / "out" / "motion.pvd").is_file() and list((tmp_path / "out" / "vtk").glob("frame_*.vtu"))


# ``femdyn check`` whose start-up imports meet a stop signal the way a library's import can: NumPy turns
# it into an ImportError ("broken"), importlib's module-lock callbacks swallow it ("swallowed": a weakref
# callback raises it, Python prints it as ignored and goes on)
BROKEN_IMPORT = """
import signal, sys, weakref
import femdyn.cli as cli

run = cli._run

def broken(argv, signals):
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt as err:
        raise ImportError("numpy: original error was: KeyboardInterrupt") from err
    return run(argv, signals)

class Module:
    pass

def callback(ref):
    signal.raise_signal(signal.SIGINT)
    for _ in range(100):  # the handler runs here, inside the callback
        pass

def swallowed(argv, signals):
    module = Module()
    ref = weakref.ref(module, callback)
    del module
    return run(argv, signals)

cli._run = {patch}
sys.argv[0] = "femdyn"
sys.exit(cli.main())
"""


def test_a_stop_signal_that_a_librarys_import_breaks_or_swallows_is_still_one_line():
    """Sent at random times during the start-up imports, 4 in 150 signals used to end ``femdyn check`` in
    NumPy's ImportError (exit code 1 and its page of advice) or be swallowed by importlib's callbacks
    (a traceback marked 'ignored', then exit code 0): both now give exit code 130 and the one line
    'interrupted'."""
    package = str(Path(femdyn.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    case = str(Path(package) / "cases" / "nm_logo.toml")
    for patch in ("broken", "swallowed"):
        child = subprocess.run([sys.executable, "-c", BROKEN_IMPORT.format(patch=patch), "check", case], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert (child.returncode, child.stderr) == (130, "interrupted\n"), (patch, child.stderr)
