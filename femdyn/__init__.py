"""femdyn: energy-momentum dynamics of parallel manipulators with flexible links.

The public API (README, "From Python" and "Compatibility"): ``Problem`` and ``load`` with the analyses
``Problem.check``, ``run``, ``static``, ``modes``, ``motion_modes``, ``campbell``, ``map``, ``linearize``, ``invert`` and their result types (with a probe's
``ProbeDeviation`` from the rigid mechanism), ``sweep``, the model builder ``ModelBuilder`` and ``place``,
``SolverSettings``, ``InversionSettings`` (``Problem.invert``'s method and margins), the beam body ``BeamBody``, its ``Section`` and its ``Damping``, and the
time functions of loads and the servo trajectories (``time_functions``, ``trajectories``), and ``warm_up`` (numba's cache
filled ahead of the first run, ``WarmUpResult``). The names are
imported on first use (PEP 562), so that ``import femdyn`` and the command line's start stay fast."""
from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time); type checkers take it as True

__version__ = "0.1.0"

_EXPORTS = {  # public name -> the module that defines it
    "Problem": "femdyn.api.problem", "Probe": "femdyn.api.problem", "load": "femdyn.api.problem",
    "RunResult": "femdyn.api.results", "StaticResult": "femdyn.api.results", "ModesResult": "femdyn.api.results",
    "InversionResult": "femdyn.api.results", "ProbeDeviation": "femdyn.api.results",
    "LinearResult": "femdyn.api.linear", "CampbellResult": "femdyn.api.campbell", "MapResult": "femdyn.api.map",
    "MotionModesResult": "femdyn.api.campbell", "CheckResult": "femdyn.api.check", "sweep": "femdyn.api.sweep", "SweepResult": "femdyn.api.sweep",
    "ModelBuilder": "femdyn.model.builder", "Model": "femdyn.model.model", "place": "femdyn.model.initial",
    "ModelError": "femdyn.model.errors", "SolverSettings": "femdyn.integrators.settings",
    "CaseError": "femdyn.casefile.reader", "BeamBody": "femdyn.beam.body", "Section": "femdyn.beam.body",
    "Damping": "femdyn.beam.damping", "InversionSettings": "femdyn.studies.inversion",
    "warm_up": "femdyn.api.warm_up", "WarmUpResult": "femdyn.api.warm_up",
}
_MODULES = {"time_functions": "femdyn.forces.time_functions", "trajectories": "femdyn.joints.trajectories"}

__all__ = sorted([*_EXPORTS, *_MODULES, "__version__"])

if TYPE_CHECKING:  # what a type checker sees; at run time the names come from __getattr__
    from .api.campbell import CampbellResult, MotionModesResult
    from .api.check import CheckResult
    from .api.linear import LinearResult
    from .api.map import MapResult
    from .api.problem import Probe, Problem, load
    from .api.results import InversionResult, ModesResult, ProbeDeviation, RunResult, StaticResult
    from .api.sweep import SweepResult, sweep
    from .api.warm_up import WarmUpResult, warm_up
    from .beam.body import BeamBody, Section
    from .beam.damping import Damping
    from .studies.inversion import InversionSettings
    from .forces import time_functions
    from .integrators.settings import SolverSettings
    from .casefile.reader import CaseError
    from .joints import trajectories
    from .model.builder import ModelBuilder
    from .model.errors import ModelError
    from .model.initial import place
    from .model.model import Model


def __getattr__(name: str) -> object:
    """The public name ``name``, imported from its module on first use (PEP 562)."""
    if name in _MODULES:
        value = import_module(_MODULES[name])
    elif name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'femdyn' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
