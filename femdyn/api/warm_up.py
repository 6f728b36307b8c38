"""``femdyn.warm_up``: compile femdyn's kernels into numba's on-disk cache (``numerics/compiled.py``) ahead of
the first run, by two steps of shipped cases with each integrator that together reach every family of kernels:
spatial and planar FEM beams, servos, material damping, friction and rigid bodies. The compiled Newton loop and
steps have one machine code per set of forces: with beams or without, with the forces that the loop evaluates
itself (damping, friction, spring-dampers, all three passed where a model has any of them:
``integrators.saddle.SaddleSystem.loop_force``) or without -- four sets, which these cases compile with each
integrator (rigid: nm_logo; rigid with those forces: friction_oscillator; beams: 3prr_sine; beams with them:
flexible_link_plant), so that a later run of any model whose forces are in the loop compiles none of them, a
model with spring-dampers (no shipped case has them) included. Once after installing (a few minutes on a 2-core
machine); later it takes a few seconds, every kernel loaded from the cache. The cases ship in the package
(``femdyn/cases``, the checkout's ``cases/``); ``femdyn warm-up`` runs this function."""
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..casefile.case import CaseError, load_case
from ..integrators.settings import INTEGRATORS
from ..studies.run import run_case

CASES = Path(__file__).resolve().parents[1] / "cases"
# the second step of each is a compiled call of many steps (``integrators.stepping``) where the model allows
WARM_UP = ("3prr_3d", "3prr_sine", "linear_guide", "friction_oscillator", "rpr_figure8", "nm_logo",
           "slender_cantilever", "flexible_link_plant")
DT, T_END = 1e-3, 2e-3  # two steps


@dataclass(frozen=True)
class WarmUpResult:
    """What ``warm_up`` did: the shipped cases it ran (``cases``, names of ``femdyn/cases/NAME.toml``), those
    that failed with the reason (``failed``: name -> message; the kernels they reach then compile on their
    first use) and its wall time (``seconds``, s)."""
    cases: tuple[str, ...]
    failed: dict[str, str]
    seconds: float

    @property
    def ok(self) -> bool:
        """Whether every case ran (every kernel family is in the cache)."""
        return not self.failed


def warm_up(progress: Callable[[str], None] | None = None) -> WarmUpResult:
    """Run two steps (dt = 1 ms) of each of the shipped cases ``WARM_UP`` with each integrator, so that numba
    compiles the kernels they reach and keeps the machine code on disk (module docstring); ``progress(name)``
    is called before each case. A case that fails is reported in the result, not raised."""
    start, failed = time.perf_counter(), {}
    for name in WARM_UP:
        if progress is not None:
            progress(name)
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
            failed[name] = message
    return WarmUpResult(WARM_UP, failed, time.perf_counter() - start)
