"""Modes of a case about its steady motion (``femdyn modes --moving``) and their Campbell diagram over a
parameter (``femdyn modes --sweep NAME=a:b:n``): the steady motion that the case's servos impose at a
time (``integrators.motion.steady_motion``), Newton starting from the case's prepared initial state or a
run's pose then, the modes about it (``integrators.campbell.motion_modes``), and for each value of a
numeric field of the case file (a servo's speed, a held coordinate; a dotted path as ``femdyn sweep
--param``, ``casefile.overrides``) the same, the modes followed by their shapes (``integrators.campbell.track``).
"""
import dataclasses
from dataclasses import dataclass

import numpy as np

from ..integrators.campbell import EXTRA, MotionModes, motion_modes, track
from ..integrators.motion import motion_at, steady_motion
from ..casefile.case import CaseError, load_case
from ..post.equilibrium import pose_at, state_at
from ..io.units import coordinate_kind
from .run import prepare_case


def case_motion(case, t: float = 0.0, result=None, observer: str | None = None, frame: int | None = None) -> tuple:
    """The ``Setup`` of ``case`` and its steady ``Motion`` at time ``t`` (``motion.steady_motion``, the
    servos held, in the frame of the body named ``observer``, "world" or by default the fastest turning
    one), Newton starting from the prepared initial state or, with ``result`` (a result folder of a run
    of the case), from the run's pose at t; with ``frame`` (an index) the run's stored state (q, v) of that
    frame instead, at its time (``post.equilibrium.state_at``, ``motion.motion_at``). Raises
    ``modes.ModesError`` where there is none, ``CaseError`` for a folder without the state or a frame
    out of range."""
    setup = prepare_case(case)
    if frame is not None:
        if result is None:
            raise CaseError(case.path, "--frame", "needs --result DIR: the run whose frame to linearise at")
        t, q, v = state_at(result, setup.model, frame)
        return setup, motion_at(setup, q, v, t, observer)
    if result is not None:
        setup = dataclasses.replace(setup, q0=pose_at(result, setup.model, t))
    return setup, steady_motion(setup, t, frame=observer)


def case_motion_modes(case, count: int = 6, t: float = 0.0, servos: str = "held", result=None,
                      observer: str | None = None, frame: int | None = None) -> MotionModes:
    """The ``count`` lowest modes of ``case`` about its steady motion at t, or a run's state of ``frame``
    (``case_motion``)."""
    setup, motion = case_motion(case, t, result, observer, frame)
    return motion_modes(setup, motion, count, servos)


@dataclass(frozen=True)
class Campbell:
    """The modes of a case over the values of one parameter: ``values`` (p,), the tracked modes'
    ``s`` (p, k) [1/s], frequencies [Hz] and damping ratios (p, k), ``mac`` (p, k) the MAC of each mode
    with its shape at the previous value (1 at the first), the steady motions (p,)."""

    parameter: str
    unit: str
    values: np.ndarray
    s: np.ndarray
    mac: np.ndarray
    motions: tuple

    @property
    def frequency(self) -> np.ndarray:
        return np.abs(self.s) / (2.0 * np.pi)

    @property
    def damping_ratio(self) -> np.ndarray:
        magnitude = np.abs(self.s)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(magnitude > 0, -self.s.real / magnitude, np.nan)


RATES = ("rate", "angular_speed")  # trajectory fields that are a speed


def parameter_unit(case, parameter: str) -> str:
    """The SI unit of the case field ``parameter`` (a dotted path): a servo trajectory's rate or angular
    speed (rad/s on an angle, m/s on a point or a slide), a polynomial's coefficient k (the servo's unit
    per s^k), an initial joint angle (rad) or slide (m); "1" where it is none of these."""
    parts = parameter.split(".")
    if parts[0] == "initial" and parts[-1] in ("angle", "slide"):
        return "rad" if parts[-1] == "angle" else "m"
    if parts[0] != "servos" or len(parts) < 4 or parts[2] != "trajectory":
        return "1"
    servos = case.data.get("servos", [])
    named = {item.get("name"): item for item in servos}
    servo = named.get(parts[1]) or (servos[int(parts[1])] if parts[1].isdigit() and int(parts[1]) < len(servos) else {})
    kind = servo.get("type", "point")
    coordinate = servo.get("coordinate")
    angle = kind in ("angle", "polar", "orientation") or (
        kind == "coordinate" and coordinate in case.model.joint_coordinates
        and coordinate_kind(case.model, coordinate) == "angle")
    base = "rad" if angle else "m"
    if parts[3] in RATES:
        return f"{base}/s"
    if parts[3] == "coefficients" and len(parts) == 6 and parts[5].isdigit():
        power = int(parts[5])
        return base if power == 0 else f"{base}/s" if power == 1 else f"{base}/s^{power}"
    return "1"


def case_variants(case, parameter: str, flexible=None):
    """The case ``case`` rebuilt with its field ``parameter`` (a dotted path, ``casefile.overrides``) set to a
    value: a function of the value, building from the tables ``case`` was built from with the beams'
    ``flexible`` options (``CaseError`` for a parameter that is not a numeric field)."""
    return lambda value: load_case(case.path, flexible, overrides={parameter: float(value)}, data=case.data)


def campbell(variant, values, parameter: str, unit: str, count: int = 6, t: float = 0.0, servos: str = "held",
             observer: str | None = None) -> Campbell:
    """The Campbell diagram over the ``values`` of ``parameter`` [``unit``]: at each value the case
    ``variant(value)`` (``case_variants``, or any function of the value that returns a case), its steady
    motion at t (``motion.steady_motion``, Newton starting from the previous value's pose where the
    coordinates are the same) and its ``count`` lowest modes, followed by their shapes (module
    docstring). Raises ``ModesError`` where a steady motion or a linearisation is refused."""
    values = np.asarray(values, dtype=float)
    s, criteria, motions, previous, start = [], [], [], None, None
    for value in values:
        setup = prepare_case(variant(value))
        if start is not None and start.shape == setup.q0.shape:
            setup = dataclasses.replace(setup, q0=start)
        motion = steady_motion(setup, t, frame=observer)
        modes = motion_modes(setup, motion, count + (EXTRA if previous is not None else 0), servos)
        if previous is None:
            kept = np.arange(min(count, len(modes.s)))
            criterion = np.ones(kept.size)
        else:
            kept, criterion = track(previous, modes.shapes)
        s.append(modes.s[kept])
        criteria.append(criterion)
        motions.append(motion)
        previous, start = modes.shapes[kept], motion.q
    return Campbell(parameter, unit, values, np.array(s), np.array(criteria), tuple(motions))


def sweep_values(text: str) -> tuple:
    """NAME=a:b:n as (NAME, n values from a to b, both included); ValueError with the reason."""
    name, _, span = text.partition("=")
    parts = span.split(":")
    if not name or len(parts) != 3:
        raise ValueError(f"expected NAME=a:b:n, got '{text}'")
    try:
        a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise ValueError(f"expected numbers a, b and a whole n in NAME=a:b:n, got '{span}'") from None
    if n < 2 or not (np.isfinite(a) and np.isfinite(b)):
        raise ValueError(f"expected finite a, b and n >= 2 in NAME=a:b:n, got '{span}'")
    return name, np.linspace(a, b, n)
