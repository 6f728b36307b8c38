"""femdyn as a user installs it: the wheel built from the checkout (``pip wheel --no-deps``), installed
with ``--only-binary=:all:`` on the recorded stack (constraints.txt) into a fresh venv outside the
checkout, without extras. From a temporary folder it runs a shipped case, loads KLU and CHOLMOD from
the venv's kvxopt wheel and not from the system, says which extra a command needs, and reports the
wheel's version. pip's cache is reused; the kernels compile on the first run (a fresh install)."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import femdyn

CHECKOUT = Path(femdyn.__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "constraints.txt", "femdyn", "cases")


def _run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv folder, wheel file) of the wheel installed into a fresh venv."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "source"  # a copy: the build writes build/ and *.egg-info next to the sources
    source.mkdir()
    for name in SOURCES:
        path = CHECKOUT / name
        if path.is_dir():
            shutil.copytree(path, source / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / name)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "dist"), str(source)],
         env=_environment())
    (wheel,) = (folder / "dist").glob("femdyn-*.whl")
    venv = folder / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env=_environment())
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-compile",
          "--only-binary=:all:", "-c", str(CHECKOUT / "constraints.txt"), str(wheel)], env=_environment())
    return venv, wheel


def _environment():
    """This process's environment without what would import the checkout's femdyn (for pip too: its
    metadata would count as installed) or pick another KLU."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FEMDYN_KLU", "NUMBA_CACHE_DIR")}


def test_a_shipped_case_runs_from_another_folder(installed, tmp_path):
    venv, _ = installed
    site = _run([str(venv / "bin" / "python"), "-c", "import femdyn, pathlib; print(pathlib.Path(femdyn.__file__).parent)"],
                cwd=tmp_path, env=_environment()).stdout.strip()
    assert Path(site).is_relative_to(venv)  # the installed femdyn, not the checkout's
    (tmp_path / "cases").mkdir()
    shutil.copy(Path(site) / "cases" / "3prr_sine.toml", tmp_path / "cases")  # the cases ship in the wheel
    done = _run([str(venv / "bin" / "femdyn"), "run", "cases/3prr_sine.toml", "--t-end", "0.1"], cwd=tmp_path,
                env=_environment())
    assert "probe effector: deviation from the rigid mechanism max" in done.stdout
    summary = json.loads((tmp_path / "results" / "3prr_sine" / "summary.json").read_text())
    assert summary["complete"] is True


def test_klu_and_cholmod_come_from_the_venv(installed, tmp_path):
    """The libraries mapped into a process that factors with KLU and CHOLMOD (/proc/self/maps)."""
    venv, _ = installed
    code = ("import numpy as np, scipy.sparse as sp\n"
            "from femdyn.numerics.cholesky import cholesky\n"
            "from femdyn.numerics.linalg import FixedPatternLU\n"
            "A = sp.csc_matrix(np.array([[4.0, 1.0], [1.0, 3.0]]))\n"
            "lu = FixedPatternLU(A.indptr, A.indices)\n"
            "lu.factor(A.data)\n"
            "b = np.array([1.0, 2.0])\n"
            "assert np.allclose(A @ lu.solve(b), b) and np.allclose(A @ cholesky(A)(b), b)\n"
            "print(open('/proc/self/maps').read())\n")
    maps = _run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=_environment()).stdout
    libraries = {line.split()[-1] for line in maps.splitlines() if len(line.split()) == 6}
    for name in ("libklu", "libcholmod", "libamd", "libcolamd", "libbtf"):
        loaded = [p for p in libraries if Path(p).name.startswith(name + "-") or Path(p).name.startswith(name + ".")]
        assert loaded, f"{name} is not loaded"
        assert all(Path(p).is_relative_to(venv.resolve()) for p in loaded), loaded


def test_version_is_the_wheels(installed, tmp_path):
    venv, wheel = installed
    printed = _run([str(venv / "bin" / "femdyn"), "--version"], cwd=tmp_path, env=_environment()).stdout.split()
    metadata = _run([str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; print(m.version('femdyn'))"],
                    cwd=tmp_path, env=_environment()).stdout.strip()
    assert printed == ["femdyn", metadata]
    assert wheel.name.split("-")[1] == metadata


@pytest.mark.parametrize("extra, command", [("view", ["view", "results"]),
                                            ("sweep", ["sweep", "case.toml", "--param", "b=0.1:0.2:2"])])
def test_a_missing_extra_is_named(installed, tmp_path, extra, command):
    venv, _ = installed
    done = subprocess.run([str(venv / "bin" / "femdyn"), *command], cwd=tmp_path, env=_environment(),
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert re.fullmatch(rf"error: femdyn {extra} needs .*: pip install 'femdyn\[{extra}\]'\n", done.stderr)
