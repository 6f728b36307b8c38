"""Kernels loaded from numba's cache without parsing their bitcode (``numerics.compiled._load_library``):
the symbols read from the ELF object file are those LLVM finds defined in the bitcode, and a kernel compiled
in a process that loaded its callee from the cache links the callee's bitcode, parsed then."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
from numba import njit

from femdyn.numerics.elf import defined_symbols

PACKAGE_ROOT = Path(__file__).resolve().parents[2]


@njit(cache=False)
def _norm(x):
    return np.sqrt(np.sum(x * x))


@njit(cache=False)
def _scaled_norms(x, factors):
    out = np.empty(factors.size)
    for k in range(factors.size):
        out[k] = factors[k] * _norm(x)
    return out


def test_the_object_files_symbols_are_those_llvm_finds_defined_in_the_bitcode():
    """A kernel with a callee and an array allocation (numba's runtime calls): the names of the symbols its
    machine code defines by its ELF symbol table equal the functions and globals LLVM parses as defined
    (not declarations) in the bitcode numba caches with it -- what numba reads them from."""
    from llvmlite import binding as llvm

    x, factors = np.array([3.0, 4.0]), np.array([1.0, 2.0])
    assert np.array_equal(_scaled_norms(x, factors), [5.0, 10.0])
    library = _scaled_norms.overloads[_scaled_norms.signatures[0]].library
    _, kind, (machine_code, bitcode) = library.serialize_using_object_code()
    module = llvm.parse_bitcode(bitcode)
    defined = {g.name for group in (module.functions, module.global_variables) for g in group
               if not g.is_declaration}
    assert kind == "object" and len(defined) > 2
    assert defined_symbols(machine_code) == defined
    assert defined_symbols(b"\x7fELF\x01\x01" + bytes(64)) is None  # not ELF-64: numba's own loading


CALLEE = textwrap.dedent("""\
    from femdyn.numerics.compiled import kernel

    @kernel
    def scaled(x):
        return 2.0 * x
    """)

CALLER = textwrap.dedent("""\
    from femdyn.numerics.compiled import kernel
    import callee

    @kernel
    def affine(x):
        return callee.scaled(x) + 1.0
    """)

# the callee alone (compiled and saved), then the callee loaded and the caller compiled in one process
FIRST = "import callee; print(repr(callee.scaled(1.5)))"
SECOND = ("import callee, caller; print(repr(callee.scaled(1.5)), repr(caller.affine(1.5)), "
          "type(callee.scaled.overloads[callee.scaled.signatures[0]].library).__name__)")


def test_a_kernel_compiled_after_its_callee_was_loaded_links_the_callee(tmp_path):
    """f(x) = s(x) + 1 with s(x) = 2 x: the first process compiles s into an empty cache; the second loads s
    (a ``CachedLibrary``, its bitcode unparsed), then compiles f, which links s's bitcode: s(1.5) = 3 and
    f(1.5) = 4 in both, s loaded and f saved by numba's account."""
    (tmp_path / "callee.py").write_text(CALLEE)
    (tmp_path / "caller.py").write_text(CALLER)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(PACKAGE_ROOT)]), NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_DEBUG_CACHE="1")
    outputs = []
    for code in (FIRST, SECOND):
        child = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert child.returncode == 0, child.stderr
        outputs.append(child.stdout.splitlines())
    assert float(outputs[0][-1]) == 3.0
    scaled, affine, library = outputs[1][-1].split()
    assert (float(scaled), float(affine), library) == (3.0, 4.0, "CachedLibrary")
    assert any("data loaded" in line and "scaled" in line for line in outputs[1]), outputs[1]
    assert any("data saved" in line and "affine" in line for line in outputs[1]), outputs[1]


ALLOCATING = textwrap.dedent("""\
    import numpy as np
    from femdyn.numerics.compiled import kernel

    @kernel
    def squares(n):
        out = np.empty(n)
        for k in range(n):
            out[k] = k * k
        return out
    """)

# counts numba's compilations of its runtime's functions, then calls the kernel
RUNTIME = ("from numba.core.runtime import nrtdynmod\n"
           "made = []\n"
           "create = nrtdynmod.create_nrt_module\n"
           "nrtdynmod.create_nrt_module = lambda ctx: made.append(1) or create(ctx)\n"
           "import allocating\n"
           "print(allocating.squares(5).sum(), len(made))\n")


def test_numbas_runtime_is_loaded_from_the_file_of_an_earlier_process(tmp_path):
    """A kernel that allocates an array (numba's runtime: reference counts, ``NRT_MemInfo``) gives
    sum k^2 = 30 for k < 5 in two processes on one cache; the first compiles the runtime's functions and
    writes them beside the kernel's cache, the second loads them and compiles none
    (``compiled._initialize_runtime``)."""
    (tmp_path / "allocating.py").write_text(ALLOCATING)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(PACKAGE_ROOT)]), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    lines = []
    for _ in range(2):
        child = subprocess.run([sys.executable, "-c", RUNTIME], env=env, cwd=tmp_path, capture_output=True, text=True)
        assert child.returncode == 0, child.stderr
        lines.append(child.stdout.split())
    assert lines == [["30.0", "1"], ["30.0", "0"]]
    assert len(list((tmp_path / "cache").rglob("numba_runtime-*.nbc"))) == 1
