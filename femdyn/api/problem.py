"""``Problem``: a model, its initial state, the solver settings, the probes and the output options --
everything a case file holds -- built from Python (``Problem(builder, settings, ...)``) or read from a
case file (``load``), and the analyses of it: ``check`` (the model described, ``api.check``), ``run``
(the dynamics, ``integrators.time_loop``), ``static`` (the static equilibrium, ``integrators.statics``),
``modes`` (the natural modes at it, ``integrators.modes``), ``motion_modes`` and ``campbell`` (about a steady
motion, ``studies.campbell``), ``map`` (the workspace map, ``studies.map_plan``), ``linearize`` (the linear plant there,
``studies.linear``) and ``invert`` (the stable inversion of its servo problem,
``integrators.inversion``). Each returns a result object of ``api.results`` (``api.linear``,
``api.campbell``, ``api.map``) with named access and ``write(folder)``, which writes the result folder
of the command line's ``femdyn run``, ``static``, ``modes``, ``map``, ``linearize`` or ``invert``: the
commands are thin clients of this class (``commands``: they parse, print and choose exit codes). An
analysis imports its modules when it is first called, so that ``femdyn run`` (``run``, with the streaming
``output`` of its result folder) starts without them.

A problem holds an ``casefile.case.Case`` (``Problem.case``), the object every study and command runs, so a
problem built in Python and the same problem read from a case file run the same steps: the initial state
placed through the joints (``model.initial.place``; 000 eqs. 41-42, 56-57), started in a natural mode of
a flexible body (``casefile.initial_state.mode_state``), or in the static equilibrium at rest
(``equilibrium=True``, ``studies.run.prepare_case``), projected onto the constraints before the first
step (``integrators.setup.prepare``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..integrators.settings import SolverSettings
from ..casefile.beams import Options
from ..casefile.case import Case, load_case
from ..casefile.initial_state import mode_state
from ..model.builder import ModelBuilder
from ..model.errors import ModelError
from ..model.gauges import make_gauge
from ..model.initial import place
from ..model.model import Model
from ..model.spec import ModelSpec
from ..studies.run import checked_settings, prepare_case, run_case
from .check import CheckResult, check
from .results import RunResult

if TYPE_CHECKING:
    from ..integrators.setup import Setup
    from ..integrators.time_loop import Checkpoint
    from ..studies.inversion import InversionSettings
    from .campbell import CampbellResult, MotionModesResult
    from .linear import LinearResult
    from .map import MapResult
    from .results import InversionResult, ModesResult, StaticResult

Pose = Mapping[str, Any]  # {"position", "angle" (2D) | "rotation" (3x3, 3D), "velocity", "angular_velocity"}
Elastic = tuple[int, float]  # (mode k from 1, largest nodal translation in m, or m/s for a rate)
SOLVER = ("dt", "t_end", "integrator", "rho_inf", "newton", "tolerance", "max_iterations", "early_stop",
          "initial_tolerance")  # the SolverSettings fields that ``run`` may change


@dataclass(frozen=True)
class Probe:
    """A material point whose motion is recorded: its ``name``, the ``body`` and the ``point`` in that
    body's frame (on a segmented link: the segment that holds it, in the segment's frame)."""

    name: str
    body: str
    point: NDArray[np.float64]


class Problem:
    """A model with its initial state, solver settings, probes and output options (module docstring).

    Args:
        model: a ``ModelBuilder`` (built here; its segmented links resolve the probes' points) or a
            built ``Model``.
        settings: the solver settings (``SolverSettings``: dt, t_end, integrator, ...).
        bodies: initial body poses and twists by body name: {"position", "angle" (2D) or "rotation"
            (3x3, 3D), "velocity", "angular_velocity"}; bodies without one are placed through the joints.
        joints: initial joint coordinates and rates by joint name: {"angle", "angle_rate", "slide",
            "slide_rate"}.
        elastic: the initial elastic state of flexible bodies by name, (mode k, amplitude a): the k-th
            natural mode with the frame held, its largest nodal translation a [m].
        elastic_rate: the same for the elastic velocities (a in m/s).
        equilibrium: start at rest in the static equilibrium that Newton reaches from the placed state
            (gravity, loads and servo targets at t = 0); refused with velocities.
        assemble: close the loops of a pose given only roughly, holding ``hold`` (joint coordinates or
            bodies; default: the inputs, driven and grounded joints' coordinates), as ``[initial]
            assemble`` (``model.assembly``).
        probes: material points recorded, {name: (body, point in the body's frame)}.
        gauges: strain gauges, {name: {"body": a flexible body or segmented link, "s": arc length [m]
            from its first node, or "fraction": of its length, "fibre": y [m] (2D) or (y, z) (3D) from
            the centre line}}, as the case file's ``[[gauges]]`` (``model.gauges``): the normal strain
            and stress there, ``RunResult.gauges`` and gauges.csv.
        every: write every k-th step as a ParaView frame (default: about 500 frames).
        vtk: write the ParaView series; plots: draw the PNG plots; states: write states.csv, the full
            state of every frame (in ``write``; ``linearize``/``motion_modes`` with ``result``, ``frame``).
        name: the problem's name (the ``case`` of ``summary.json``); title, source: free text.
        inversion: the settings of ``invert`` (default: stable, pre = post = 0.5 s).

    Raises:
        ModelError: a model, initial state, probe or setting that cannot be used (its field and why).
    """

    def __init__(self, model: ModelBuilder | Model, settings: SolverSettings, *,
                 bodies: Mapping[str, Pose] | None = None, joints: Mapping[str, Mapping[str, float]] | None = None,
                 elastic: Mapping[str, Elastic] | None = None, elastic_rate: Mapping[str, Elastic] | None = None,
                 equilibrium: bool = False, assemble: bool = False, hold: Sequence[str] | None = None,
                 probes: Mapping[str, tuple[str, ArrayLike]] | None = None,
                 gauges: Mapping[str, Mapping[str, Any]] | None = None,
                 every: int | None = None, vtk: bool = True, plots: bool = True, states: bool = False,
                 name: str = "problem",
                 title: str | None = None, source: str = "", inversion: InversionSettings | None = None) -> None:
        builder = model if isinstance(model, ModelBuilder) else None
        built = builder.build() if builder is not None else model
        if not isinstance(built, Model):
            raise TypeError(f"model must be a ModelBuilder or a Model, got {type(model).__name__}")
        settings.check_model(built.n, built.mass_matrix)
        q0, v0 = place(built, dict(bodies or {}), dict(joints or {}))
        q0, v0 = _elastic_start(built, q0, v0, elastic or {}, elastic_rate or {})
        if equilibrium and np.any(v0):
            raise ModelError("initial.equilibrium", "a start in static equilibrium is at rest: give no velocities")
        resolved = []
        for probe, (body, point) in (probes or {}).items():
            body, point = builder.resolve(body, point, f"probes.{probe}.point") if builder else (body, point)
            index = [b.name for b in built.bodies]
            if body not in index:
                raise ModelError(f"probes.{probe}.body", f"unknown body '{body}'")
            try:
                built.material_point(index.index(body), np.asarray(point, dtype=float))
            except ValueError as err:
                raise ModelError(f"probes.{probe}.point", str(err)) from None
            resolved.append((probe, body, np.asarray(point, dtype=float)))
        if every is not None and not (isinstance(every, int) and every >= 1):
            raise ModelError("output.every", f"must be an integer >= 1, got {every!r}")
        placed = []
        for gauge, entry in (gauges or {}).items():
            unknown = sorted(set(entry) - {"body", "s", "fraction", "fibre"})
            if unknown or "body" not in entry or "fibre" not in entry:
                raise ModelError(f"gauges.{gauge}", "needs body and fibre, and s or fraction"
                                 + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
            placed.append(make_gauge(built, gauge, entry["body"], entry["fibre"], entry.get("s"),
                                     entry.get("fraction")))
        case = Case(path=Path(name), title=title or name, source=source, model=built, q0=q0, v0=v0,
                    settings=settings, every=every, vtk=vtk, plots=plots, states=states, probes=resolved,
                    gauges=tuple(placed), equilibrium=equilibrium,
                    assemble=assemble, hold=None if hold is None else tuple(hold))
        self._init(case, builder.spec() if builder is not None else None, inversion, None)

    def _init(self, case: Case, spec: ModelSpec | None, inversion: InversionSettings | None,
              options: Options | None) -> None:
        self.case = case  #: the ``casefile.case.Case`` that the studies and commands run
        self.spec = spec  #: the model's ``ModelSpec`` where it was built in Python (the inversion's check)
        self._inversion = inversion
        self._options = options  # the flexible bodies' options a case file was loaded with

    @classmethod
    def from_case(cls, case: Case, options: Options | None = None) -> Problem:
        """The problem of a loaded ``casefile.case.Case`` (``load``), read with the flexible bodies' ``options``."""
        problem = cls.__new__(cls)
        problem._init(case, None, None, options)
        return problem

    # --- what it holds ---------------------------------------------------------------------------
    @property
    def model(self) -> Model:
        return self.case.model

    @property
    def settings(self) -> SolverSettings:
        return self.case.settings

    @property
    def q0(self) -> NDArray[np.float64]:
        """The placed initial coordinates (not yet projected onto the constraints, see ``setup``)."""
        return self.case.q0

    @property
    def v0(self) -> NDArray[np.float64]:
        return self.case.v0

    @property
    def probes(self) -> list[Probe]:
        return [Probe(name, body, point) for name, body, point in self.case.probes]

    @property
    def name(self) -> str:
        return str(self.case.path)

    def __repr__(self) -> str:
        s = self.settings
        start = " from static equilibrium" if self.case.equilibrium else ""
        probes = ", ".join(p[0] for p in self.case.probes) or "none"
        return (f"<Problem {self.case.title!r}: {self.model!r}; {s.integrator}, dt = {s.dt:g} s to t_end = "
                f"{s.t_end:g} s{start}; probes: {probes}>")

    def with_settings(self, names: Mapping[str, str] | None = None, **changes: Any) -> Problem:
        """The problem with its solver settings changed (``SolverSettings.replace``: dt, t_end,
        integrator, rho_inf, newton, ...), checked for its model; ``names``: what a refused setting is
        called in the error, {field: name} (default ``solver.<field>``; the command line's options).

        Raises:
            CaseError: a setting that cannot be used (its field and why).
        """
        return self._with(replace(self.case, settings=checked_settings(self.case, names, **changes)))

    def with_output(self, every: int | None = None, vtk: bool | None = None, plots: bool | None = None,
                    states: bool | None = None) -> Problem:
        """The problem with the output options that are given (not None) replaced: ``every`` (a ParaView
        frame every k-th step), ``vtk`` (the ParaView series), ``plots`` (the PNG plots), ``states``
        (states.csv)."""
        output = {key: value for key, value in (("every", every), ("vtk", vtk), ("plots", plots), ("states", states))
                  if value is not None}
        return self._with(replace(self.case, **output)) if output else self

    def _with(self, case: Case) -> Problem:
        problem = Problem.__new__(Problem)
        problem._init(case, self.spec, self._inversion, self._options)
        return problem

    def setup(self) -> Setup:
        """The prepared initial state (``integrators.setup.prepare``: checked, independent constraint rows
        chosen, projected onto the constraints; the static equilibrium where the problem starts there)."""
        return prepare_case(self.case)

    def check(self) -> CheckResult:
        """The problem prepared without simulating and its model described (``femdyn check``; ``api.check``)."""
        return check(self.case, self.setup())

    # --- analyses --------------------------------------------------------------------------------
    def run(self, progress: Any = None, *, setup: Setup | None = None, output: Any = None,
            resume: Checkpoint | None = None, **changes: Any) -> RunResult:
        """Simulate from t = 0 to t_end (``integrators.time_loop.simulate``: the energy-momentum scheme,
        000 eqs. 5-7, or generalized-alpha, [Arnold2007]).

        Args:
            progress: an object with ``update(step, t)`` told after every step, or None.
            setup: the prepared initial state to start from (default: ``setup()``).
            output: where the history goes in chunks as the run goes (``post.results.ResultWriter``, as
                ``femdyn run`` writes its folder), or None (all of it in the result).
            resume: the ``time_loop.Checkpoint`` of an interrupted run of this problem to go on from.
            **changes: solver settings changed for this run (dt, t_end, integrator, rho_inf, newton, ...).

        Returns:
            The ``RunResult`` (``complete`` False with the reason in ``message`` if the run stopped early).
        """
        unknown = sorted(set(changes) - set(SOLVER))
        if unknown:
            raise TypeError(f"run() got unknown settings {', '.join(unknown)} (known: {', '.join(SOLVER)})")
        run = run_case(self.case, progress, setup, output, resume, **changes)
        case = self.case if run.settings is self.settings else replace(self.case, settings=run.settings)
        return RunResult(self._with(case), run.results, run.setup, run.wall_time)

    def static(self, t: float = 0.0) -> StaticResult:
        """The static equilibrium at time t (``integrators.statics.static_equilibrium``): gravity and loads
        at t, servos held at their targets (their multipliers the inputs that hold the pose, 000 eq. 84),
        reached by Newton's method from the prepared initial state.

        Raises:
            StaticsError: there is no equilibrium (the free motions the loads drive).
        """
        from ..integrators.statics import static_equilibrium
        from .results import StaticResult

        setup = self.setup()
        return StaticResult(self, static_equilibrium(setup, t=t), setup)

    def modes(self, count: int = 6, t: float = 0.0, servos: str = "held", result: str | Path | None = None
              ) -> ModesResult:
        """The ``count`` lowest natural modes of the mechanism linearised at its static equilibrium at t
        (``integrators.modes.natural_modes``: the constrained eigenproblem on the tangent space of the
        active constraints), servos "held" or "free"; ``result``: a result folder of a run of this
        problem, whose pose at t starts Newton's search for the equilibrium (``femdyn modes --result``).

        Raises:
            StaticsError, ModesError: no equilibrium, or a linearisation that is refused.
        """
        from ..integrators.modes import natural_modes
        from ..integrators.statics import static_equilibrium
        from ..post.equilibrium import pose_at
        from .results import ModesResult

        setup = self.setup()
        if result is not None:
            setup = replace(setup, q0=pose_at(result, setup.model, t))
        equilibrium = static_equilibrium(setup, t=t)
        return ModesResult(self, natural_modes(setup, equilibrium.q, equilibrium.lam, k=count, t=t, servos=servos),
                           equilibrium)

    def motion_modes(self, count: int = 6, t: float = 0.0, servos: str = "held", result: str | Path | None = None,
                     observer: str | None = None, frame: int | None = None) -> MotionModesResult:
        """The ``count`` lowest modes about the steady motion that the servos impose at t (a link spinning at
        a servo-held speed; ``studies.campbell.case_motion_modes``, as ``femdyn modes --moving``): the
        linearisation in the frame of the body named ``observer`` ("world": not turning; default: the body the
        servos turn fastest) with its gyroscopic and centrifugal terms (``integrators.motion``), eigenvalues
        with frequency [Hz] and damping ratio; ``result``: a run's folder whose pose at t starts Newton, or
        with ``frame`` (an index, as ``femdyn modes --result DIR --frame K``) whose stored state (q, v) of
        that frame is linearised at instead (at its time; ``t`` is not used).

        Raises:
            ModesError: no steady motion, or a linearisation that is refused; CaseError: a folder without
            the states or a frame out of range.
        """
        from ..studies.campbell import case_motion_modes
        from .campbell import MotionModesResult

        return MotionModesResult(self, case_motion_modes(self.case, count, t, servos, result, observer, frame))

    def campbell(self, parameter: str | Callable[[float], Problem], values: ArrayLike, count: int = 6,
                 t: float = 0.0, servos: str = "held", observer: str | None = None, unit: str | None = None
                 ) -> CampbellResult:
        """The Campbell diagram (``studies.campbell.campbell``, as ``femdyn modes --sweep``): the modes about
        the steady motion at t for each of the ``values`` of ``parameter``, followed by their shapes (MAC).

        Args:
            parameter: a numeric field of the case file this problem was loaded from, by its dotted path
                (``servos.spin.trajectory.rate``, ``initial.joints.hub.angle``; as ``load``'s overrides), or
                a function of the value that returns the ``Problem`` to take at it (a problem built in Python).
            values: the parameter's values.
            count, t, servos, observer: as ``motion_modes``.
            unit: the parameter's SI unit (default: found from the field's kind; "1" for a function).

        Raises:
            CaseError: a parameter that is not a numeric field of the file; ModesError: no steady motion, or
            a linearisation that is refused.
        """
        from ..studies.campbell import campbell, case_variants, parameter_unit
        from .campbell import CampbellResult

        if callable(parameter):
            name, variant = getattr(parameter, "__name__", "parameter"), lambda value: parameter(value).case
            unit = unit or "1"
        else:
            if self.case.data is None:
                raise ValueError("a problem built in Python takes a function of the value as the parameter")
            name, variant = parameter, case_variants(self.case, parameter, self._options)
            unit = unit or parameter_unit(self.case, parameter)
        return CampbellResult(self, campbell(variant, values, name, unit, count, t, servos, observer))

    def linearize(self, inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None, t: float = 0.0,
                  servos: str = "held", result: str | Path | None = None, moving: bool = False,
                  observer: str | None = None, frame: int | None = None) -> LinearResult:
        """The linear plant at the static equilibrium at t (``studies.linear.case_plant``, as ``femdyn
        linearize``): the model linearised there with the bodies' damping (``integrators.linearize``), the
        constraints eliminated by a null-space basis of their Jacobian, servos "held" or "free".

        Args:
            inputs: joint coordinates and joint loads of the case file by name (a torque [N m] on an
                angle, a force [N] on a slide), ``PROBE.fx``, ``.fy``, ``.fz`` (a world force [N] at a
                probe's point) and ``LOAD.fx`` .. (at the point of the case file's point-force load
                ``LOAD``: its ``name``, else ``loads.K``); default: the servo inputs, else every joint
                coordinate.
            outputs: joint coordinates [rad, m], ``PROBE.x``, ``.y``, ``.z`` (a probe's world position
                [m]), ``PROBE.deviation_x`` .. (its deviation from the rigid mechanism [m, rad], as in
                probes.csv) and joint reactions ``J.B.force_x`` .. [N, N m] (as in reactions.csv), as
                deviations from the equilibrium; default: every probe's position, else every joint
                coordinate.
            t: the time [s] of the loads and servo targets of the equilibrium.
            servos: "held" (their rows kept) or "free" (dropped, their inputs constant).
            result: a result folder of a run of this problem, whose pose at t starts Newton's search
                for the equilibrium (``femdyn linearize --result``).
            moving: about the steady motion that the servos impose at t instead, seen from the turning frame
                of the body ``observer`` (``femdyn linearize --moving``; ``motion_modes``).
            frame: with ``result``, at the stored state (q, v) of that frame of the run instead, at its time,
                with the gyroscopic and centrifugal terms of its motion (``femdyn linearize --frame K``).

        Returns:
            The ``LinearResult`` (A, B, C, D, the descriptor form, poles, DC gains, zeros, ``to_scipy``).

        Raises:
            ValueError: an unknown input or output name; StaticsError, ModesError: no equilibrium, or a
            linearisation that is refused.
        """
        from ..studies.linear import case_plant
        from .linear import LinearResult

        plant = case_plant(self.case, None if inputs is None else list(inputs),
                           None if outputs is None else list(outputs), t, servos, result, moving, observer,
                           frame)
        return LinearResult(self, plant)

    def map(self, grid: Mapping[str, ArrayLike] | Sequence[str], *, probe: str | None = None, modes: int = 3,
            payload: float | ArrayLike | None = None, singular: float | None = None, workers: int | None = None,
            scheduler: str | None = None, client: Any = None) -> MapResult:
        """The workspace map over ``grid`` (``femdyn map``; ``studies.map_plan``): at every point the
        rigid pose (servo-held coordinates set, or the probe's ``P.x``, ``P.y``, ``P.z`` reached by the
        rigid mechanism's inverse kinematics), the static sag of the probe from the rigid mechanism, its
        compliance, the ``modes`` lowest frequencies with the servos held and the effector's share in
        each, the inputs holding the pose, the Jacobian's conditioning and a status (ok, unreachable,
        singular, failed).

        Args:
            grid: {name: values} or ``NAME=a:b:n`` strings; names are actuated coordinates or a probe's
                ``P.x`` .. (one kind per map); the first axis varies slowest.
            probe: the effector point (default: the first probe).
            modes: the number of natural frequencies.
            payload: a force [N] at the probe: a number (along gravity) or a vector.
            singular: the bound on s_min/s_max of a singular point (default ``map_pose.SINGULAR``).
            workers: processes of a new LocalCluster (default one per core; 0: in this process);
                scheduler: a running dask scheduler; client: a dask.distributed Client.

        Raises:
            CaseError: a grid, probe or option that cannot be used.
        """
        from .map import workspace_map

        return workspace_map(self, grid, probe=probe, modes=modes, payload=payload, singular=singular,
                             workers=workers, scheduler=scheduler, client=client)

    def inversion_settings(self, pre: float | None = None, post: float | None = None) -> InversionSettings:
        """The settings ``invert`` takes: the problem's ``inversion``, else the case file's ``[inversion]``,
        else stable with pre = post = 0.5 s; ``pre``, ``post`` [s] replace its horizons where given.

        Raises:
            CaseError: a case file's ``[inversion]`` that cannot be used (its field and why).
        """
        from ..studies.inversion import InversionSettings, inversion_settings

        if self._inversion is not None:
            settings = self._inversion
        elif self.case.data is not None:
            settings = inversion_settings(self.case)
        else:
            settings = InversionSettings("stable", 0.5, 0.5)
        return InversionSettings(settings.method, pre or settings.pre, post or settings.post)

    def invert(self, pre: float | None = None, post: float | None = None, check_dt: float | None = None
               ) -> InversionResult:
        """Stable inversion of the servo problem over [-pre, t_end + post] (``integrators.inversion``:
        [Devasia1996], [Seifried2014]) and its closed-loop check, a forward run with the inputs as
        joint loads (``studies.inversion``).

        Args:
            pre, post: the horizons [s] before t = 0 and after t_end (default: the case file's
                ``[inversion]``, or the problem's ``inversion``, else 0.5 s each).
            check_dt: the forward check's time step (default dt).

        Raises:
            ModelError: the problem has no servos; InversionError, StaticsError, ModesError: the
            inversion or its check failed.
        """
        from ..integrators.zero_dynamics import zero_dynamics
        from ..studies.inversion import invert_case
        from .results import InversionResult

        if not self.model.inputs:
            raise ModelError("servos", "the problem has no servo constraints to invert")
        if self.spec is None and self.case.data is None:
            raise ModelError("model", "the inversion's check rebuilds the model without its servos: give the "
                             "Problem the ModelBuilder, not the built Model")
        settings = self.inversion_settings(pre, post)
        setup, inversion, check = invert_case(self.case, settings, self._options, check_dt,
                                              spec=self.spec if self.case.data is None else None)
        return InversionResult(self, settings, inversion, check, zero_dynamics(setup))


def _elastic_start(model: Model, q: NDArray[np.float64], v: NDArray[np.float64], elastic: Mapping[str, Elastic],
                   rate: Mapping[str, Elastic]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """q, v with the flexible bodies started in a natural mode (``casefile.initial_state.mode_state``)."""
    index = {b.name: b for b in model.bodies}
    for name in [*elastic, *(n for n in rate if n not in elastic)]:
        body = index.get(name)
        if body is None or body.flexible is None:
            raise ModelError(f"initial.bodies.{name}.elastic", f"'{name}' is not a flexible body of the model")
        beam = body.flexible.beam
        values = [mode_state(beam, model.dim, *given[name]) if name in given else None for given in (elastic, rate)]
        start = np.zeros(beam.n_coordinates) if values[0] is None else values[0]
        q, v = body.flexible.with_elastic(q, v, start, values[1])
    return q, v


def load(path: str | Path, *, overrides: Mapping[str, float] | None = None, flexible: str | None = None,
         elements: int | None = None, modes: int | None = None, segments: int | None = None,
         stiffening: bool | None = None, every: int | None = None, vtk: bool | None = None,
         plots: bool | None = None, states: bool | None = None, **settings: Any) -> Problem:
    """The problem of the case file ``path`` (``casefile.case.load_case``; its format at the top of
    ``femdyn/casefile/case.py``).

    Args:
        path: the TOML case file.
        overrides: {dotted path: number} replacing numeric fields of the file (``bodies.leg1.beam.h``,
            ``solver.dt``; ``casefile.overrides``), as ``femdyn sweep --param``.
        flexible, elements, modes, segments, stiffening: the flexible bodies' settings, overriding the
            file's ``[flexible]`` (as ``femdyn run --flexible .. --elements .. --segments ..``).
        every, vtk, plots, states: the output options overriding ``[output]`` (as ``--every``, ``--no-vtk``,
            ``--no-plots``, ``--states``).
        **settings: solver settings overriding ``[solver]`` (dt, t_end, integrator, rho_inf, newton).

    Returns:
        The ``Problem``.

    Raises:
        CaseError: the file, or a value in it, cannot be used (``error: FILE: FIELD: what is wrong``).
    """
    options = Options(model=flexible, elements=elements, modes=modes, stiffening=stiffening, segments=segments)
    case = load_case(path, options, dict(overrides) if overrides else None)
    case = replace(case, settings=checked_settings(case, **settings))
    return Problem.from_case(case, options).with_output(every, vtk, plots, states)

