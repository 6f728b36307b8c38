"""``LinearResult``: the linear plant of a ``Problem`` (``Problem.linearize``), the model linearised at its
static equilibrium with named inputs and outputs (``studies.linear.case_plant``,
``integrators.linearize``): the minimal first-order state space x' = A x + B u, y = C x + D u (the
constraints eliminated by a null-space basis of their Jacobian), the descriptor form E z' = A_d z + B_d u,
y = C_d z + D_d u, poles with frequency [Hz] and damping ratio, DC gains -C A^-1 B + D, transmission
zeros, ``to_scipy()`` (``scipy.signal.StateSpace``) and ``write(folder)``, the folder of ``femdyn
linearize`` (``post.statespace.write_plant``)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..integrators.linearize import frequency_and_damping
from ..post.statespace import SUMMARY, summary, write_plant
from .results import Analysed, _publish

if TYPE_CHECKING:
    from ..integrators.linearize import LinearPlant

Array = NDArray[np.float64]


class LinearResult:
    """The linear plant of a problem (module docstring); ``plant`` is the ``integrators.linearize.LinearPlant``.
    Inputs are generalized forces on joint coordinates [N m, N] (or a joint load's, by its name) or world
    forces at probes or at point-force loads [N]; outputs joint coordinates [rad, m], probe positions or
    deviations from the rigid mechanism [m, rad] or joint reactions [N, N m], as deviations from their
    values at the equilibrium; the state is (y, y'), y the coordinates along the null-space basis ``Z``."""

    def __init__(self, problem: Analysed, plant: LinearPlant) -> None:
        self.problem, self.plant = problem, plant

    @property
    def inputs(self) -> list[str]:
        return list(self.plant.inputs)

    @property
    def outputs(self) -> list[str]:
        return list(self.plant.outputs)

    @property
    def states(self) -> list[str]:
        return list(self.plant.states)

    @property
    def input_units(self) -> list[str]:
        return list(self.plant.input_units)

    @property
    def output_units(self) -> list[str]:
        return list(self.plant.output_units)

    @property
    def A(self) -> Array:
        return self.plant.A

    @property
    def B(self) -> Array:
        return self.plant.B

    @property
    def C(self) -> Array:
        return self.plant.C

    @property
    def D(self) -> Array:
        return self.plant.D

    @property
    def descriptor(self) -> tuple[Array, Array, Array, Array, Array]:
        """The descriptor form (E, A_d, B_d, C_d, D_d) on z = (x, x', mu): coordinates, their rates and
        the active constraints' multipliers."""
        p = self.plant
        return p.E, p.A_d, p.B_d, p.C_d, p.D_d

    @property
    def t(self) -> float:
        """The time [s] of the loads and servo targets of the equilibrium."""
        return float(self.plant.t)

    @property
    def q(self) -> Array:
        """The equilibrium's coordinates."""
        return self.plant.q

    @property
    def servos(self) -> str:
        return str(self.plant.servos)

    @property
    def poles(self) -> NDArray[np.complex128]:
        """The eigenvalues of A [1/s], by |s| then imaginary part."""
        return self.plant.poles()

    @property
    def frequency(self) -> Array:
        """|s| / (2 pi) [Hz] of every pole (``poles``)."""
        return frequency_and_damping(self.poles)[0]

    @property
    def damping_ratio(self) -> Array:
        """-Re s / |s| of every pole (``poles``; NaN at s = 0)."""
        return frequency_and_damping(self.poles)[1]

    @property
    def dc_gains(self) -> Array:
        """-C A^-1 B + D (outputs x inputs, in output unit per input unit); inf where A is singular."""
        return self.plant.dc_gains()

    def dc_gain(self, output: str, input: str) -> float:
        """The DC gain of the pair (output name, input name)."""
        return float(self.dc_gains[self._index(output, input)])

    def zeros(self, output: str, input: str) -> NDArray[np.complex128]:
        """The transmission zeros [1/s] of the pair (output name, input name), by |s|."""
        return self.plant.zeros(*self._index(output, input))

    def response(self, omega: ArrayLike) -> NDArray[np.complex128]:
        """H(i omega) (len(omega), outputs, inputs) at the angular frequencies omega [rad/s]."""
        return self.plant.response(np.atleast_1d(np.asarray(omega, dtype=float)))

    @property
    def summary(self) -> dict[str, Any]:
        """What ``linearize.json`` holds (``post.statespace.summary``): poles (one per conjugate pair) with
        frequency and damping ratio, DC gains and zeros by name, with units."""
        return summary(self.plant, self.problem.case.path)

    def to_scipy(self) -> Any:
        """``scipy.signal.StateSpace(A, B, C, D)``."""
        import scipy.signal

        return scipy.signal.StateSpace(self.A, self.B, self.C, self.D)

    def _index(self, output: str, input: str) -> tuple[int, int]:
        for name, names in ((output, self.outputs), (input, self.inputs)):
            if name not in names:
                raise KeyError(f"unknown signal '{name}' (known: {', '.join(names)})")
        return self.outputs.index(output), self.inputs.index(input)

    def __repr__(self) -> str:
        f = self.frequency[(self.poles.imag > 0)][:4]
        hz = ", ".join(f"{x:.4g}" for x in f)
        return (f"<LinearResult {self.problem.case.title!r} at t = {self.t:g} s, servos {self.servos}: "
                f"{len(self.states)} states; inputs {', '.join(self.inputs) or 'none'}; outputs "
                f"{', '.join(self.outputs) or 'none'}; lowest oscillating poles [{hz}] Hz>")

    def write(self, folder: str | Path, plots: bool = True, force: bool = False) -> dict[str, Any]:
        """Write the folder of ``femdyn linearize`` (``post.statespace.write_plant``: statespace.npz,
        linearize.json, the Bode plots unless ``plots`` is False) into ``folder``, which must be new, empty
        or an earlier linearize folder (replaced), or with ``force`` anything. Returns the JSON summary."""
        return _publish(folder, lambda path: write_plant(path, self.plant, self.problem.case.path, plots=plots),
                        force, SUMMARY, "an earlier linearize folder")
