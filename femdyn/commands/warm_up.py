"""``femdyn warm-up``: compile femdyn's kernels into numba's on-disk cache (``numerics/compiled.py``)
ahead of the first run, by two steps of shipped cases with each integrator that together reach every family of
kernels: spatial and planar FEM beams, servos, material damping, friction and rigid bodies. The compiled Newton
loop and steps have one machine code per set of forces: with beams or without, with the forces that the loop
evaluates itself (damping, friction, spring-dampers, all three passed where a model has any of them:
``integrators.saddle.SaddleSystem.loop_force``) or without -- four sets, which these cases compile with each
integrator (rigid: nm_logo; rigid with those forces: friction_oscillator; beams: 3prr_sine; beams with them:
flexible_link_plant), so that a later run of any model whose forces are in the loop compiles none of them, a
model with spring-dampers (no shipped case has them) included. Once after installing (a few minutes on a 2-core
machine); later it takes a few seconds, every kernel loaded from the cache. The cases ship in the package
(``femdyn/cases``, the checkout's ``cases/``)."""
import sys
import time
from pathlib import Path

from ..casefile.case import CaseError, load_case
from ..integrators.settings import INTEGRATORS
from ..studies.run import run_case
from .output import say

CASES = Path(__file__).resolve().parents[1] / "cases"
# the second step of each is a compiled call of many steps (``integrators.stepping``) where the model allows
WARM_UP = ("3prr_3d", "3prr_sine", "linear_guide", "friction_oscillator", "rpr_figure8", "nm_logo",
           "slender_cantilever", "flexible_link_plant")
DT, T_END = 1e-3, 2e-3  # two steps


def add(commands):
    """Add the ``warm-up`` subcommand (its arguments and handler) to ``commands``."""
    warm_up = commands.add_parser(
        "warm-up", help="compile the kernels into numba's cache (once after installing, a few minutes)",
        description="Run two steps of shipped cases, so that numba compiles femdyn's kernels and keeps the "
        "machine code on disk: a later run starts without compiling. Exit code 1 if a case fails "
        "(its kernels then compile on first use).")
    warm_up.set_defaults(handler=handle)


def handle(args):
    say(f"compiling femdyn's kernels into numba's cache: two steps of {len(WARM_UP)} shipped cases, each integrator "
        "(a few minutes the first time, seconds when they are cached)")
    start, failed = time.perf_counter(), []
    for name in WARM_UP:
        path = CASES / f"{name}.toml"
        try:
            case = load_case(path)
            message = ""
            for integrator in INTEGRATORS:
                results = run_case(case, dt=DT, t_end=T_END, integrator=integrator).results
                message = message or ("" if results.complete else results.message)
        except CaseError as err:
            message = str(err)
        if message:
            failed.append(name)
            print(f"warning: warm-up run of {path} failed: {message}", file=sys.stderr)
    say(f"kernels ready in {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0
