"""``femdyn warm-up``: compile femdyn's kernels into numba's on-disk cache (``numerics/compiled.py``)
ahead of the first run, by two steps of shipped cases that together reach every family of kernels:
spatial and planar FEM beams, both integrators, servos, friction, springs and rigid bodies. Once after
installing (about 30-60 s on a 2-core machine); later it takes a few seconds, every kernel loaded
from the cache. The cases ship in the package (``femdyn/cases``, the checkout's ``cases/``)."""
import sys
import time
from pathlib import Path

from ..casefile.case import CaseError, load_case
from ..studies.run import run_case
from .output import say

CASES = Path(__file__).resolve().parents[1] / "cases"
# the second step of 3prr_sine (generalized-alpha) and of slender_cantilever (energy-momentum) is a compiled
# call of many steps (``integrators.stepping``)
WARM_UP = ("3prr_3d", "3prr_sine", "linear_guide", "friction_oscillator", "rpr_figure8", "nm_logo", "slender_cantilever")
DT, T_END = 1e-3, 2e-3  # two steps


def add(commands):
    """Add the ``warm-up`` subcommand (its arguments and handler) to ``commands``."""
    warm_up = commands.add_parser(
        "warm-up", help="compile the kernels into numba's cache (once after installing, about 30-60 s)",
        description="Run two steps of shipped cases, so that numba compiles femdyn's kernels and keeps the "
        "machine code on disk: a later run starts without compiling. Exit code 1 if a case fails "
        "(its kernels then compile on first use).")
    warm_up.set_defaults(handler=handle)


def handle(args):
    say(f"compiling femdyn's kernels into numba's cache: two steps of {len(WARM_UP)} shipped cases "
        "(about 30-60 s the first time, seconds when they are cached)")
    start, failed = time.perf_counter(), []
    for name in WARM_UP:
        path = CASES / f"{name}.toml"
        try:
            results = run_case(load_case(path), dt=DT, t_end=T_END).results
            message = "" if results.complete else results.message
        except CaseError as err:
            message = str(err)
        if message:
            failed.append(name)
            print(f"warning: warm-up run of {path} failed: {message}", file=sys.stderr)
    say(f"kernels ready in {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0
