"""The linear plant of a case (``femdyn linearize``, and from Python): its static equilibrium at a time
(``integrators.statics``), from the case's initial pose or from a run's pose then, and the linearisation
there (``integrators.linearize``) with named inputs and outputs (``post.statespace.signals``)."""
import dataclasses

from ..integrators.linearize import LinearPlant, linearize
from ..integrators.statics import static_equilibrium
from ..post.equilibrium import pose_at
from ..post.statespace import default_signals, signals
from .campbell import case_motion
from .run import prepare_case


def case_plant(case, inputs=None, outputs=None, t: float = 0.0, servos: str = "held", result=None,
               moving: bool = False, observer: str | None = None, frame: int | None = None) -> LinearPlant:
    """The ``LinearPlant`` of ``case`` (``casefile.case.load_case``) at its static equilibrium at time ``t``,
    Newton starting from the case's prepared initial state or, with ``result`` (a result folder of a run
    of the case), from the run's pose at ``t``. ``inputs`` and ``outputs``: names (``signals``; default
    ``default_signals``); ``servos`` "held" or "free"; ``moving``: about the steady motion at t instead
    (``studies.campbell.case_motion``, in the frame of the body ``observer``); ``frame`` (an index): at the
    state of that frame of the run in ``result`` instead (its time; gyroscopic and centrifugal terms included). Raises ValueError for an unknown name, and
    ``statics.StaticsError`` or ``modes.ModesError`` where there is no equilibrium or no linearisation."""
    default_inputs, default_outputs = default_signals(case)
    input_signals = signals(case, default_inputs if inputs is None else inputs, "inputs")
    output_names = default_outputs if outputs is None else outputs
    signals(case, output_names, "outputs")  # checked before any solve: reactions need the equilibrium
    if moving or frame is not None:
        setup, motion = case_motion(case, t, result, observer, frame)
        return linearize(setup, motion.q, motion.lam, motion.t, input_signals,
                         signals(case, output_names, "outputs", motion.q, motion.lam), servos, motion=motion)
    setup = prepare_case(case)
    if result is not None:
        setup = dataclasses.replace(setup, q0=pose_at(result, setup.model, t))
    equilibrium = static_equilibrium(setup, t=t)
    return linearize(setup, equilibrium.q, equilibrium.lam, t, input_signals,
                     signals(case, output_names, "outputs", equilibrium.q, equilibrium.lam), servos)
