"""femdyn as a library: ``Problem`` (a model with its initial state, solver settings, probes and output
options, built in Python or read from a case file by ``load``), its analyses and their results
(``results``, ``linear``: named access, ``to_pandas``, ``write`` of the command line's result folder), and
``sweep`` of a Python-built model on Dask. ``femdyn`` exports these names (``femdyn.__all__``)."""
from .campbell import CampbellResult, MotionModesResult
from .linear import LinearResult
from .map import MapResult
from .problem import Probe, Problem, load
from .results import InversionResult, ModesResult, ProbeDeviation, RunResult, StaticResult
from .sweep import SweepResult, sweep

__all__ = ["CampbellResult", "InversionResult", "LinearResult", "MapResult", "ModesResult", "MotionModesResult",
           "Probe", "ProbeDeviation", "Problem", "RunResult", "StaticResult", "SweepResult", "load", "sweep"]
