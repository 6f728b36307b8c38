"""``MotionModesResult`` and ``CampbellResult``: the modes of a ``Problem`` about its steady motion
(``Problem.motion_modes``, as ``femdyn modes --moving``) and their Campbell diagram over a parameter
(``Problem.campbell``, as ``femdyn modes --sweep``), with named access, ``to_pandas`` and ``write(folder)``,
the command line's folder (``post.campbell``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..post.campbell import CAMPBELL, MOTION_MODES, write_campbell, write_motion_modes
from .results import Analysed, _pandas, _publish

if TYPE_CHECKING:
    from ..integrators.campbell import MotionModes
    from ..integrators.motion import Motion
    from ..studies.campbell import Campbell


class MotionModesResult:
    """Modes about a steady motion: eigenvalues ``s`` [1/s] (one per conjugate pair), ``frequency``
    [Hz], ``damping_ratio``, complex ``shapes`` (k, n) in q; ``motion`` the steady state (q, v, a, the
    observer frame's angular velocity ``omega`` [rad/s])."""

    def __init__(self, problem: Analysed, modes: MotionModes) -> None:
        self.problem, self.modes = problem, modes

    @property
    def s(self) -> NDArray[np.complex128]:
        return self.modes.s

    @property
    def frequency(self) -> NDArray[np.float64]:
        return self.modes.frequency

    @property
    def damping_ratio(self) -> NDArray[np.float64]:
        return self.modes.damping_ratio

    @property
    def shapes(self) -> NDArray[np.complex128]:
        return self.modes.shapes

    @property
    def motion(self) -> Motion:
        return self.modes.motion

    def to_pandas(self) -> Any:
        return _pandas({"mode": np.arange(1, len(self.s) + 1), "frequency_hz": self.frequency,
                        "damping_ratio": self.damping_ratio})

    def __repr__(self) -> str:
        hz = ", ".join(f"{f:.4g}" for f in self.frequency)
        return f"<MotionModesResult {self.problem.case.title!r} at t = {self.motion.t:g} s: f = [{hz}] Hz>"

    def write(self, folder: str | Path, force: bool = False) -> list[dict[str, Any]]:
        """Write the folder of ``femdyn modes --moving`` (``post.campbell.write_motion_modes``; ``force``: a
        folder whatever it holds); returns its rows."""
        return _publish(folder, lambda path: write_motion_modes(path, self.problem.case, self.modes), force,
                        MOTION_MODES, "an earlier motion_modes folder")


class CampbellResult:
    """A Campbell diagram: the parameter's ``values`` (p,) [``unit``], the tracked modes' ``frequency``
    [Hz] and ``damping_ratio`` (p, k), ``mac`` (p, k) of each mode with its shape at the previous value,
    ``mode(k)`` the frequencies of mode k (from 1) over the values."""

    def __init__(self, problem: Analysed, campbell: Campbell) -> None:
        self.problem, self.campbell = problem, campbell

    @property
    def parameter(self) -> str:
        return self.campbell.parameter

    @property
    def unit(self) -> str:
        return self.campbell.unit

    @property
    def values(self) -> NDArray[np.float64]:
        return self.campbell.values

    @property
    def frequency(self) -> NDArray[np.float64]:
        return self.campbell.frequency

    @property
    def damping_ratio(self) -> NDArray[np.float64]:
        return self.campbell.damping_ratio

    @property
    def mac(self) -> NDArray[np.float64]:
        return self.campbell.mac

    def mode(self, k: int) -> NDArray[np.float64]:
        """The frequencies [Hz] of tracked mode k (from 1) over the values."""
        if not 1 <= k <= self.frequency.shape[1]:
            raise IndexError(f"mode {k} of {self.frequency.shape[1]} (from 1)")
        return self.frequency[:, k - 1]

    def to_pandas(self) -> Any:
        columns: dict[str, Any] = {self.parameter: self.values}
        for i in range(self.frequency.shape[1]):
            columns.update({f"f{i + 1}_hz": self.frequency[:, i], f"zeta{i + 1}": self.damping_ratio[:, i],
                            f"mac{i + 1}": self.mac[:, i]})
        return _pandas(columns)

    def __repr__(self) -> str:
        return (f"<CampbellResult {self.problem.case.title!r}: {self.frequency.shape[1]} modes over "
                f"{len(self.values)} values of {self.parameter} [{self.unit}]>")

    def write(self, folder: str | Path, force: bool = False) -> dict[str, Any]:
        """Write the folder of ``femdyn modes --sweep`` (``post.campbell.write_campbell``: campbell.csv,
        units.json, campbell.json, campbell.png; ``force``: a folder whatever it holds); returns the JSON
        summary."""
        return _publish(folder, lambda path: write_campbell(path, self.campbell, self.problem.case.title), force,
                        CAMPBELL, "an earlier campbell folder")
