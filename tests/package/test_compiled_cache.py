"""The compiled kernels' on-disk cache (``femdyn.numerics.compiled``): a read-only install still runs,
and the Dask workers of a sweep load the machine code that an earlier process wrote instead of
compiling it again.

A "read-only" location is made here by a regular file where numba wants a folder (every
``__pycache__`` of a copied package, ``NUMBA_CACHE_DIR`` and ``XDG_CACHE_HOME`` below a file): that
refuses writes for every user, root included, where permission bits would not."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from shared import CASES

import femdyn
from femdyn.studies import sweep as sweeps
from femdyn.studies import sweep_cluster

PACKAGE_ROOT = Path(femdyn.__file__).resolve().parents[1]  # the femdyn under test, not an installed one
FLEXIBLE = CASES / "3prr_sine.toml"  # FEM links of world-vector beams: the compiled kernels run



# a module of one kernel, V = sum k_i x_i^2 / 2, that no cache holds yet
ENERGY_MODULE = textwrap.dedent("""\
    from femdyn.numerics.compiled import kernel

    @kernel
    def energy(k, x):
        total = 0.0
        for i in range(x.size):
            total += 0.5 * k[i] * x[i] * x[i]
        return total
    """)

def environment(*paths, **variables):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in (*paths, PACKAGE_ROOT))
    return dict(env, **variables)


def read_only_copy(tmp_path):
    """A copy of the femdyn package whose folders have a file named ``__pycache__``: neither Python's
    bytecode nor numba's cache can be written next to the sources."""
    root = tmp_path / "install"
    shutil.copytree(PACKAGE_ROOT / "femdyn", root / "femdyn", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [root / "femdyn", *(p for p in (root / "femdyn").rglob("*") if p.is_dir())]:
        (folder / "__pycache__").write_text("")
    return root


def unwritable(tmp_path, name):
    """A path below a regular file: no folder can be made there."""
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    return str(blocker / name)


def femdyn_run(env, out):
    """``femdyn run`` of the flexible 3-PRR for 0.02 s in a fresh process; its history.csv and stderr."""
    child = subprocess.run([sys.executable, "-m", "femdyn", "run", str(FLEXIBLE), "--t-end", "0.02", "--no-vtk",
                            "--no-plots", "--quiet", "--out", str(out)], env=env, cwd=out.parent, capture_output=True,
                           text=True)
    assert child.returncode == 0, child.stderr
    return (out / "history.csv").read_text(), child.stderr


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """The history.csv of the run from the writable checkout (its cache as it is): what the read-only
    installs must give digit for digit; one run for the tests of this module."""
    history, _ = femdyn_run(environment(), tmp_path_factory.mktemp("checkout") / "checkout")
    return history


def test_kernel_compiles_in_memory_where_no_cache_can_be_written(tmp_path):
    """``compiled.kernel`` of a quadratic energy V = sum k_i x_i^2 / 2 in a module whose ``__pycache__``,
    NUMBA_CACHE_DIR and user cache are all unwritable: compiled in memory (numba's NullCache), the value
    equal to the closed form, nothing printed; the same module in a writable folder is cached on disk."""
    module = ENERGY_MODULE
    k, x = np.linspace(1.0, 3.0, 7), np.linspace(-0.5, 0.7, 7)
    code = ("import numpy as np, probe; k, x = np.linspace(1.0, 3.0, 7), np.linspace(-0.5, 0.7, 7); "
            "print(repr(probe.energy(k, x)), type(probe.energy._cache).__name__)")
    results = {}
    for kind in ("read-only", "writable"):
        folder = tmp_path / kind
        folder.mkdir()
        (folder / "probe.py").write_text(module)
        if kind == "read-only":
            (folder / "__pycache__").write_text("")
            env = environment(folder, NUMBA_CACHE_DIR=unwritable(tmp_path, "numba"),
                              XDG_CACHE_HOME=unwritable(tmp_path, "xdg"))
        else:
            env = environment(folder)
        child = subprocess.run([sys.executable, "-c", code], env=env, cwd=folder, capture_output=True, text=True)
        assert child.returncode == 0 and child.stderr == "", child.stderr
        value, cache = child.stdout.split()
        results[kind] = (float(value), cache)
    assert results["read-only"][1] == "NullCache" and results["writable"][1] == "KernelCache"
    assert list((tmp_path / "writable" / "__pycache__").glob("probe.energy-*.nbi"))
    for value, _ in results.values():
        assert abs(value - 0.5 * float(np.sum(k * x * x))) <= 1e-15 * value


def test_read_only_install_runs_from_the_user_cache(expected, tmp_path):
    """The flexible 3-PRR from a package copy with no writable ``__pycache__``: numba caches in the user
    cache folder (XDG_CACHE_HOME/numba), the second run loads it without writing, both runs print
    nothing on stderr and give the history of the run from the writable checkout, digit for digit."""
    install, cache = read_only_copy(tmp_path), tmp_path / "cache"
    env = environment(install, XDG_CACHE_HOME=str(cache))
    stamps = []
    for k in range(2):
        history, err = femdyn_run(env, tmp_path / f"read-only-{k}")
        assert err == "" and history == expected
        stamps.append({p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()})
    assert any(p.name.startswith("kernels.step-") and p.suffix == ".nbc" for p in stamps[0]), stamps
    assert stamps[1] == stamps[0]  # the second run compiled nothing: the cache was read, not rewritten
    assert not any((install / "femdyn").rglob("*.nbi"))


def test_read_only_install_without_any_cache_compiles_in_memory(expected, tmp_path):
    """The flexible 3-PRR from a package copy where no cache folder can be written at all (its
    ``__pycache__``, NUMBA_CACHE_DIR and the user cache): every kernel compiles in memory, the run
    prints nothing on stderr and gives the history of the run from the checkout, digit for digit, and
    nothing is written anywhere."""
    install = read_only_copy(tmp_path)
    env = environment(install, NUMBA_CACHE_DIR=unwritable(tmp_path, "numba"), XDG_CACHE_HOME=unwritable(tmp_path, "xdg"))
    history, err = femdyn_run(env, tmp_path / "no-cache")
    assert err == "" and history == expected
    assert not any((install / "femdyn").rglob("*.nb[ic]"))


def test_dask_worker_loads_the_kernels_from_the_cache(tmp_path):
    """A sample of a sweep of the flexible 3-PRR run first in this process (which writes the cache if it
    is not there), then on a fresh LocalCluster worker: the worker's compiled step is a cache hit with no
    miss (numba's dispatcher statistics), and its row equals this process's."""
    plan = sweeps.plan_sweep(FLEXIBLE, [sweeps.parse_parameter("E=7e10")], t_end=0.02)
    task = plan.task(0)
    here = sweeps.run_sample(task)

    def kernel_cache_statistics():
        from numba.core.registry import CPUDispatcher

        from femdyn.beam.world import kernels
        return {name: (sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
                for name, f in vars(kernels).items() if isinstance(f, CPUDispatcher)}

    rows = []
    with sweep_cluster.connect(workers=1) as client:
        sweep_cluster.run_on_cluster(client, [task], rows.append)
        (statistics,) = client.run(kernel_cache_statistics).values()
    assert statistics["step"][0] >= 1
    assert all(misses == 0 for _, misses in statistics.values()), statistics
    assert len(rows) == 1 and rows[0]["error"] == ""
    for column, value in here.items():
        if column != "wall_time":
            assert rows[0][column] == value, column


def test_processes_that_miss_at_once_compile_a_kernel_once(tmp_path):
    """Three processes call a kernel no cache holds at the same moment (released together by a byte on
    their standard input): one compiles and saves it (numba's "data saved" once in all three outputs),
    the others wait for it and load it ("data loaded"), and all three get the closed form of
    V = sum k_i x_i^2 / 2 (``compiled.KernelCache``: the cache is written once, not once per process)."""
    (tmp_path / "probe.py").write_text(ENERGY_MODULE)
    code = ("import sys, numpy as np, probe; sys.stdin.read(1); "
            "print(repr(probe.energy(np.linspace(1.0, 3.0, 7), np.linspace(-0.5, 0.7, 7))), flush=True)")
    env = environment(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"), NUMBA_DEBUG_CACHE="1")
    children = [subprocess.Popen([sys.executable, "-c", code], env=env, cwd=tmp_path, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for child in children:  # every one has imported numba and femdyn by the time it reads the byte
        child.stdin.write("x")
        child.stdin.flush()
    outputs = [child.communicate(timeout=600) for child in children]
    assert all(child.returncode == 0 for child in children), [err for _, err in outputs]
    k, x = np.linspace(1.0, 3.0, 7), np.linspace(-0.5, 0.7, 7)
    for out, _ in outputs:
        assert abs(float(out.strip().splitlines()[-1]) - 0.5 * float(np.sum(k * x * x))) <= 1e-15
    text = "".join(out for out, _ in outputs)
    assert text.count("data saved") == 1 and text.count("data loaded") == 2, text


# a kernel built from numba's array routines (np.empty, ndarray.sum, np.sum of a product), whose cached machine
# code names the numba modules of their environments (numba.np.arrayobj, numba.np.arraymath); no BLAS routine
# (np.dot calls SciPy's BLAS, loading scipy.linalg, when it runs)
ARRAY_MODULE = textwrap.dedent("""\
    import numpy as np
    from femdyn.numerics.compiled import kernel

    @kernel
    def doubled_sum_and_square(x):
        y = np.empty(x.size)
        for i in range(x.size):
            y[i] = 2.0 * x[i]
        return y.sum() + np.sum(x * x)
    """)

# after loading the cached kernel: whether numba.np.arraymath ran (it imports scipy.linalg), then a kernel
# that no cache holds, compiled here from array routines of those modules and of numba.np.linalg
LOAD_THEN_COMPILE = textwrap.dedent("""\
    import sys
    import numpy as np
    import probe
    from femdyn.numerics.compiled import kernel

    x = np.arange(1.0, 6.0)
    print(repr(probe.doubled_sum_and_square(x)), "scipy.linalg" in sys.modules)

    @kernel(cache=False)
    def norm_sorted_cumsum(a):
        return np.linalg.norm(a) + np.sort(a)[::-1][0] + np.cumsum(a)[-1]

    print(repr(norm_sorted_cumsum(x)))
    """)


def test_cached_kernel_loads_without_numba_array_modules_and_compiling_after_it_works(tmp_path):
    """A kernel of numba's array routines, compiled into an empty cache by one process, loaded by the next:
    the same value, 2 sum(x) + x . x, in both, and the loading process has not run numba.np.arraymath (which
    imports scipy.linalg): those modules hold only the globals of the functions' environments and run at
    their first use (``compiled._rebuild_environment``). A kernel compiled afterwards in that process from
    routines of numba.np.arraymath, arrayobj and linalg (norm, sort, cumsum) gives its closed form: the
    modules ran before numba typed it (``compiled.LazyModules``)."""
    (tmp_path / "probe.py").write_text(ARRAY_MODULE)
    env = environment(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    x = np.arange(1.0, 6.0)
    for run in ("compiles", "loads"):
        child = subprocess.run([sys.executable, "-c", LOAD_THEN_COMPILE], env=env, cwd=tmp_path, capture_output=True,
                               text=True)
        assert child.returncode == 0, child.stderr
        (value, linalg), (compiled,) = (line.split() for line in child.stdout.splitlines())
        assert float(value) == 2.0 * x.sum() + x @ x
        assert float(compiled) == pytest.approx(np.linalg.norm(x) + x.max() + x.sum(), rel=1e-15)
    assert linalg == "False"  # the second process loaded the kernel from the cache


CALLEE = textwrap.dedent("""\
    from femdyn.numerics.compiled import kernel

    @kernel
    def scaled(x):
        return {factor} * x
    """)

CALLER = textwrap.dedent("""\
    from femdyn.numerics.compiled import kernel
    import callee

    @kernel
    def affine(x):
        return callee.scaled(x) + 1.0
    """)


def test_a_cached_kernel_is_stale_when_a_kernel_it_calls_changes(tmp_path):
    """A kernel of one module calling a kernel of another, f(x) = s(x) + 1 with s(x) = a x: numba inlines
    s into f's machine code and checks f's cache against f's own file only, so after a change of s's source
    (a = 2 -> 3) f kept giving 2 x + 1. With the callee's source in f's stamp (``compiled.KernelCache``)
    the next process compiles f anew and gives 3 x + 1; a process after it, with nothing changed, loads
    f from the cache again."""
    env = environment(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "cache"), NUMBA_DEBUG_CACHE="1")
    (tmp_path / "caller.py").write_text(CALLER)
    code = "import caller; print(repr(caller.affine(1.5)), flush=True)"
    outputs = []
    for factor in ("2.0", "3.0", "3.0"):  # the third process finds the callee written again, unchanged
        (tmp_path / "callee.py").write_text(CALLEE.format(factor=factor))
        child = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert child.returncode == 0, child.stderr
        outputs.append(child.stdout)
    values = [float(out.strip().splitlines()[-1]) for out in outputs]
    assert values == [2.0 * 1.5 + 1.0, 3.0 * 1.5 + 1.0, 3.0 * 1.5 + 1.0]
    caller_lines = [[line for line in out.splitlines() if "affine" in line] for out in outputs]
    assert any("data saved" in line for line in caller_lines[1]), outputs[1]
    assert any("data loaded" in line for line in caller_lines[2]) and \
        not any("data saved" in line for line in caller_lines[2]), outputs[2]
