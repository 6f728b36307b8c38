"""Compiled kernels: numba's ``njit`` with its on-disk cache, compiled in memory where no cache can be written.

Where numba keeps the cache (numba 0.68, ``numba.core.caching``): for each source file it takes the first
writable directory of

1. ``NUMBA_CACHE_DIR``, if that environment variable is set (read when numba is first imported);
2. the ``__pycache__`` folder next to the source file (the default for a checkout or a user install);
3. the user-wide cache ``$XDG_CACHE_HOME/numba`` (default ``~/.cache/numba``);

and finds there an index per function (``<module>.<function>-<line>.py311.nbi``, keyed by a hash of the
source file's contents) and the machine code per signature (``.nbc``). A later process with the same
source, numba version and CPU loads the machine code instead of compiling it: the cache is shared by every
process that imports the kernel from the same file -- later ``femdyn`` commands and the Dask workers of
``femdyn sweep`` (``studies.sweep_cluster``) on the same machine alike.

A read-only install with no writable user cache (a system-wide site-packages, a container, a locked
home) has none of these: there ``numba.njit(cache=True)`` raises RuntimeError ("cannot cache function
..: no locator available") when the module is imported. ``kernel`` then compiles the function in
memory instead (``cache=False``): the run is the same, each process pays the compilation once on its
first call, and nothing is written or printed. Pointing ``NUMBA_CACHE_DIR`` at a writable folder gives
such an install a persistent cache again.

A cached kernel is loaded without the implementations numba compiles with (``KernelCache``): numba itself (0.68,
``Cache.load_overload``) first "refreshes" its target context, which on the first load of a process
imports every implementation module of the language (about 50 modules: 0.3-0.4 s of CPU, a fifth of a
small ``femdyn run``), although only compiling needs them. Likewise the cached machine code names, for
each function compiled into it (numba's own array routines among them), the module whose globals that
function's environment holds -- ``numba.np.arrayobj``, ``numba.np.arraymath`` (which imports scipy.linalg
to find BLAS), ..: numba imports each one as it unpickles the kernel, 0.2 s of CPU of a small run, for globals
that only code compiled in object mode reads (femdyn's kernels are nopython code: ``njit``). A module not
imported yet is registered as loaded on first use instead (``_rebuild_environment``): the environment holds
its namespace, which is filled the moment anything first uses the module -- and before numba compiles
anything in the process (``LazyModules``, on numba's ``numba:compile`` event), as the implementations those
modules register must be known to its typing from the start of the compilation.

Nor is a cached kernel's LLVM bitcode parsed as it is loaded (``_load_library``): numba caches a kernel as
machine code (an ELF object file) and the bitcode of the same module, and parses the bitcode at every load
(6-100 ms a kernel, 0.1-0.2 s of the 18 loads of a small rigid run) only to list the functions and data it
defines, which its execution engine must know, and to keep it for linking the kernel into functions compiled
later that call it. The names are read from the object file's symbol table instead (``elf.defined_symbols``:
the same names, 0.05-4 ms), and the bitcode is parsed where a compilation first links it (``CachedLibrary``).

numba's runtime is loaded the same way (``_initialize_runtime``): its own functions, which numba compiles
from LLVM IR in every process before it loads the first kernel (0.02-0.04 s), are kept as machine code in a
file beside the kernels' cache the first time and loaded from it afterwards.

Likewise two modules that numba imports as it is imported: PyYAML (0.02-0.03 s of CPU), with which it would
read a ``.numba_config.yaml`` where there is one, and ``importlib.metadata`` (0.04-0.05 s with the e-mail
and socket modules it imports), with which it finds the extensions installed (their ``numba_extensions``
entry points) before it first loads or compiles a kernel of a process
(``Dispatcher._compilation_chain_init_hook``: another 0.01 s to read every installed package's metadata). A
kernel's hook does nothing (``_no_extensions``): loading machine code needs no extension, and a compilation
initialises them when it refreshes the target context.

These three replace numba's internals as numba 0.68 has them (``FAST_LOADS``); with another numba, which
``pyproject.toml`` allows, the kernels load numba's own way: slower, the same machine code.
"""
import functools
import hashlib
import importlib.util
import os
import pickle
import sys
import time
import types

from .lazy import deferred, load

for _name in ("yaml", "importlib.metadata"):  # what numba's import runs for uses femdyn has not (module docstring)
    if _name not in sys.modules and importlib.util.find_spec(_name) is not None:
        deferred(_name)

import llvmlite
from llvmlite import binding as llvm
import numba  # after the deferred modules above
from numba import njit
from numba.core import codegen, config, environment, event
from numba.core.caching import FunctionCache
from numba.core.runtime import nrtdynmod, rtsys

from .elf import defined_symbols


class KernelCache(FunctionCache):
    """numba's on-disk cache of one kernel (``FunctionCache``: the same files, the same index), which

    * loads a cached kernel after initialising numba's runtime (NRT: the allocation functions the machine
      code links to) instead of refreshing the whole target context (module docstring). What a loaded
      kernel runs is the machine code the cache holds, whichever way it is loaded; numba refreshes the
      context itself where it compiles (``compiler.CompilerBase``) and where a look-up misses
      (``BaseContext.get_function``);
    * compiles a kernel once per cache, not once per process: a process that misses takes an exclusive
      lock on the kernel's index (``fcntl.flock`` on ``<index>.lock``), looks again -- another process may
      have saved it while this one waited -- and holds the lock while it compiles, until it has saved the
      machine code (``save_overload``). The Dask workers of a sweep started at once on an empty cache so
      compile each kernel once between them, and the others load it, where each compiled it before
      (issue 37). A lock not had within ``LOCK_SECONDS`` (a process that compiles far longer, or failed
      without saving) is not waited for: the kernel is compiled here as without it."""

    def __init__(self, py_func):
        super().__init__(py_func)
        # numba checks a cached kernel against its own source file only: one that calls kernels of other
        # modules (inlined into its machine code) would keep running their old code after they change
        callees = _callee_sources(py_func.__globals__)
        if callees:
            cache_file = self._cache_file
            cache_file._source_stamp = (cache_file._source_stamp, *map(_stamp, callees))

    def load_overload(self, sig, target_context):
        if FAST_LOADS:
            _initialize_runtime(target_context, self._cache_path)
        else:
            rtsys.initialize(target_context)
        found = self._load(sig, target_context)
        if found is None and self._enabled:
            self._release()
            self._lock = _lock(self._cache_file._index_path + ".lock")
            found = self._load(sig, target_context)
            if found is not None:
                self._release()
        return found

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        finally:
            self._release()

    def _load(self, sig, target_context):
        rebuild, environment._rebuild_env = environment._rebuild_env, _rebuild_environment  # what pickle calls
        if FAST_LOADS:
            codegen.CPUCodeLibrary._unserialize = classmethod(_load_library)
        try:
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)
        finally:
            environment._rebuild_env = rebuild
            if FAST_LOADS:
                codegen.CPUCodeLibrary._unserialize = UNSERIALIZE

    def _release(self):
        lock, self._lock = getattr(self, "_lock", None), None
        if lock is not None:
            lock.close()  # closing the file releases its flock


class LazyModules(event.Listener):
    """The modules ``_rebuild_environment`` registered as loaded on first use: run (``run``) when numba starts
    to compile a function (``numba:compile``, registered at import), so that numba's typing and lowering
    know the implementations they register -- which they would not if the first use came in the middle of
    the compilation."""

    waiting = []

    def on_start(self, _):
        self.run()

    def on_end(self, _):
        pass

    @classmethod
    def run(cls):
        while cls.waiting:
            load(cls.waiting.pop())


event.register("numba:compile", LazyModules())


def _rebuild_environment(module, consts, name):
    """numba's ``environment._rebuild_env`` (0.68): the environment ``name`` of a function of ``module``
    with its constants ``consts``, as an unpickled kernel needs it -- with a ``module`` that is not imported
    yet registered as loaded on first use (``lazy.deferred``) instead of run now (module
    docstring): the environment holds the namespace that the module's code fills when it runs."""
    found = environment.lookup_environment(name)
    if found is not None:
        return found
    loaded = sys.modules.get(module)  # not imported again: importing a lazy module runs it
    if loaded is None:
        loaded = deferred(module)
        LazyModules.waiting.append(loaded)
    env = environment.Environment(vars(loaded))  # not a use: it stays lazy
    env.consts[:] = consts
    env.env_name = name
    environment.Environment._memo[name] = env
    return env


UNSERIALIZE = codegen.CPUCodeLibrary.__dict__.get("_unserialize")  # numba's, which ``KernelCache._load`` replaces


def _numba_version() -> tuple:
    """(major, minor) of the numba imported; (0, 0) where its version does not read so."""
    try:
        return tuple(int(part) for part in numba.__version__.split(".")[:2])
    except ValueError:
        return (0, 0)


FAST_LOADS = _numba_version() == (0, 68) and UNSERIALIZE is not None  # the loads of the module docstring


class CachedLibrary(codegen.JITCodeLibrary):
    """The code library of a kernel loaded from the cache (``_load_library``): its bitcode for linking into
    other functions -- which only a compilation that calls the kernel links -- parsed where it is first
    asked for."""

    _bitcode = None
    _shared = None

    @property
    def _shared_module(self):
        if self._bitcode is not None:
            self._shared, self._bitcode = llvm.parse_bitcode(self._bitcode), None
        return self._shared

    @_shared_module.setter
    def _shared_module(self, module):
        self._shared, self._bitcode = module, None


def _load_library(cls, codegen_, state):
    """numba's ``CPUCodeLibrary._unserialize`` (0.68) of the machine code of a kernel loaded from the cache:
    the library, finalised, whose symbols the execution engine knows -- read from the object file's symbol
    table (``elf.defined_symbols``), not by parsing the bitcode cached beside it (module docstring), which
    the library keeps for linking (``CachedLibrary``). Cached code of another kind, or an object file that
    is not ELF, is numba's to load."""
    name, kind, data = state
    symbols = defined_symbols(data[0]) if kind == "object" else None
    if symbols is None:
        return UNSERIALIZE.__func__(cls, codegen_, state)
    library = CachedLibrary(codegen_, name)
    library.enable_object_caching()
    library._set_compiled_object(data[0])
    library._bitcode = data[1]
    library._finalize_final_module()  # the engine adds the machine code (``_object_getbuffer_hook``)
    codegen_._engine._defined_symbols |= symbols
    return library


def _initialize_runtime(context, folder):
    """numba's runtime (``rtsys.initialize``, once per process) with its own functions -- reference counts,
    atomic operations, the abort of an unresolved call: ``nrtdynmod.compile_nrt_functions``, which numba
    compiles from LLVM IR in every process, 0.02-0.04 s of CPU -- loaded from the file of an earlier process
    in ``folder`` (``_runtime_library``)."""
    if rtsys._init:
        return
    compile_ = nrtdynmod.compile_nrt_functions
    nrtdynmod.compile_nrt_functions = functools.partial(_runtime_library, folder=folder)
    try:
        rtsys.initialize(context)
    finally:
        nrtdynmod.compile_nrt_functions = compile_


def _runtime_library(context, folder):
    """numba's ``nrtdynmod.compile_nrt_functions(context)``: the library of its runtime's functions, loaded as a
    cached kernel is (``_load_library``) from ``folder``'s file for this numba, llvmlite, CPU and runtime
    debugging options where an earlier process wrote it, else compiled and written there (a file written
    whole or not at all, as the kernels' index: renamed into place)."""
    key = repr((numba.__version__, llvmlite.__version__, context.codegen().magic_tuple(), config.DEBUG_NRT,
                config.DEBUG_NRT_STACK_LIMIT))
    path = os.path.join(folder, f"numba_runtime-{hashlib.sha256(key.encode()).hexdigest()[:16]}.nbc")
    try:
        with open(path, "rb") as f:
            state = pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, ValueError):
        state = None
    if state is not None:
        return _load_library(codegen.JITCodeLibrary, context.codegen(), state)
    module, library = nrtdynmod.create_nrt_module(context)
    library.enable_object_caching()
    library.add_ir_module(module)
    library.finalize()
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as f:
            pickle.dump(library.serialize_using_object_code(), f)
        os.replace(temporary, path)
    except OSError:  # an unwritable folder: compiled again by the next process
        pass
    return library


def _callee_sources(namespace: dict) -> tuple:
    """The source files of the kernel modules whose kernels those of the module with the globals
    ``namespace`` may call, directly or through others: the modules in its globals, imported as modules or
    as the module of an imported kernel, that define kernels (``kernel`` in their globals), transitively;
    the module itself left out (numba stamps it). ``KernelCache`` adds their stamps to each kernel's, so
    that a change of a callee's source makes the caller's cached machine code stale too."""
    own = namespace.get("__file__")
    found, todo = {}, [namespace]
    while todo:
        for value in list(todo.pop().values()):
            module = value if isinstance(value, types.ModuleType) else \
                sys.modules.get(getattr(getattr(value, "py_func", None), "__module__", None) or "")
            path = getattr(module, "__file__", None)
            if path is None or path == own or path in found or getattr(module, "kernel", None) is not kernel:
                continue
            found[path] = module
            todo.append(vars(module))
    return tuple(sorted(found))


def _stamp(path: str) -> bytes:
    """The freshness of the source file ``path`` as numba stamps its own: the SHA-256 of its contents
    (read once per modification time and size)."""
    st = os.stat(path)
    return _contents_hash(path, st.st_mtime, st.st_size)


@functools.lru_cache(maxsize=None)
def _contents_hash(path, _mtime, _size):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


LOCK_SECONDS = 300.0  # the longest a process waits for another that compiles the same kernel


def _lock(path):
    """The open file ``path`` with an exclusive flock on it, or None where it cannot be had (no fcntl, an
    unwritable folder, ``LOCK_SECONDS`` passed)."""
    try:
        import fcntl

        lock = open(path, "a")
    except (ImportError, OSError):
        return None
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return lock
        except OSError:
            if time.monotonic() > deadline:
                lock.close()
                return None
            time.sleep(0.02)


def _no_extensions():
    """A kernel's ``Dispatcher._compilation_chain_init_hook``, which numba (0.68) calls at every call that finds
    no machine code for its argument types -- a load from the cache among them -- to initialise the numba
    extensions installed (``entrypoints.init_all``): nothing. A compilation initialises them all the same,
    as it refreshes its target context (``CPUContext.load_additional_registries``); a kernel's arguments are
    arrays and numbers, typed without any extension."""


def kernel(function=None, **options):
    """``numba.njit(cache=True, **options)`` of ``function`` with its cache a ``KernelCache``, or
    ``njit(cache=False, **options)`` when numba finds no writable cache directory for its source file
    (module docstring). Use it as
    ``@kernel`` or ``@kernel(fastmath=False)``."""

    def compile_(function):
        dispatcher = njit(**options)(function)
        if FAST_LOADS:
            dispatcher._compilation_chain_init_hook = _no_extensions  # numba's extensions: where it compiles
        try:
            dispatcher._cache = KernelCache(function)  # what ``njit(cache=True)`` sets, a FunctionCache
        except RuntimeError:  # no cache locator: NUMBA_CACHE_DIR, __pycache__ and the user cache unwritable
            pass  # numba's NullCache: compiled in memory
        return dispatcher

    return compile_ if function is None else compile_(function)
