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
"""
from numba import njit


def kernel(function=None, **options):
    """``numba.njit(cache=True, **options)`` of ``function``, or ``njit(cache=False, **options)`` when
    numba finds no writable cache directory for its source file (module docstring). Use it as
    ``@kernel`` or ``@kernel(fastmath=False)``."""

    def compile_(function):
        try:
            return njit(cache=True, **options)(function)
        except RuntimeError:  # no cache locator: NUMBA_CACHE_DIR, __pycache__ and the user cache unwritable
            return njit(cache=False, **options)(function)

    return compile_ if function is None else compile_(function)
