"""Many time steps in one compiled call (``integrators.stepping``, issue 37): a run of a flexible
pendulum (world beams, gravity, a pin) or of the FEM 3-PRR (sine loads, a joint-angle family) made so
has the numbers of the run step by step (``GeneralizedAlpha.step``, ``EnergyMomentum.step`` and
``Newton.solve``'s compiled iteration), bit for bit -- q, v, the multipliers and inputs, the
iterations, the work, the energies, KLU's factorisation count -- with both integrators, with and
without the early stop, planar and spatial; given out in chunks and resumed from their checkpoints it
has the numbers of the run in one piece; a Newton failure inside a call ends the run as step by step,
with the same message and rows; refused refactorisations are pivoted inside the calls. The same, bit for
bit, for flexible links with material damping, mechanisms with joint friction (its slip advanced in the
kernel; also in chunks and resumed) and a chain with spring-dampers. The sums the compiled steps share
with NumPy are NumPy's."""
import numpy as np
import pytest
from shared import CASES, pinned_beam
from test_checkpoint import FIELDS, Chunks, joined

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators import time_loop
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.settings import GENERALIZED_ALPHA, INTEGRATORS
from femdyn.integrators.stepping import AlphaSteps, MidpointSteps
from femdyn.numerics.lazy import compiled

ENERGY_MOMENTUM = INTEGRATORS[0]


def pendulum(dim, elements=4):
    """The setup of ``shared.pinned_beam``."""
    return pinned_beam(dim, elements)[1]


def runs(setup, settings, monkeypatch, **arguments):
    """The run with compiled steps, the steps they did, and the run step by step."""
    done = []
    for steps in (AlphaSteps, MidpointSteps):
        run = steps.run
        monkeypatch.setattr(steps, "run", lambda self, *args, run=run: done.append(run(self, *args)) or done[-1])
    fast = time_loop.simulate(setup, settings, **arguments)
    for steps in (AlphaSteps, MidpointSteps):
        monkeypatch.setattr(steps, "of", classmethod(lambda cls, stepper: None))
    slow = time_loop.simulate(setup, settings, **arguments)
    monkeypatch.undo()
    return fast, sum(done), slow


def stepwise(settings):
    """The steps done step by step in a run that completes: generalized-alpha's first, which starts it
    (``GeneralizedAlpha.start``); none of the energy-momentum run's, whose Newton matrices have their
    first pivots from the consistent start (``KeptLU.start``) before its first step."""
    return 1 if settings.integrator == GENERALIZED_ALPHA else 0


def same(a, b):
    for field in FIELDS:
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.factorisations == b.factorisations and a.complete == b.complete and a.message == b.message


@pytest.mark.parametrize("integrator,early,newton", [
    (ENERGY_MOMENTUM, False, "full"), (GENERALIZED_ALPHA, False, "full"), (GENERALIZED_ALPHA, True, "full"),
    (ENERGY_MOMENTUM, False, "modified"), (GENERALIZED_ALPHA, False, "modified")],
    ids=["energy-momentum", "generalized-alpha", "generalized-alpha-early-stop", "energy-momentum-simplified",
         "generalized-alpha-simplified"])
@pytest.mark.parametrize("dim", [2, 3], ids=["planar", "spatial"])
def test_compiled_steps_give_the_steps_one_by_one_bit_for_bit(dim, integrator, early, newton, monkeypatch):
    settings = SolverSettings(1e-3, 0.15, integrator=integrator, early_stop=early, newton=newton)
    fast, done, slow = runs(pendulum(dim), settings, monkeypatch)
    assert fast.complete and done == settings.steps - stepwise(settings)
    same(fast, slow)
    assert np.sum(fast.iterations) > settings.steps  # more than one iteration per step
    if newton == "modified":  # simplified Newton: fewer matrices than iterations, one at least per step
        assert settings.steps <= fast.factorisations < np.sum(fast.iterations)
    if integrator == ENERGY_MOMENTUM:  # conserving: H - H_0 - W at the round-off of the energies
        # (the beams' discrete gradient does no work, gravity's work is V_n - V_n+1: the balance holds
        # to Newton's converged residual and the round-off of H, as tests/physics/test_conservation.py;
        # simplified Newton stops with an error estimated below the tolerance 1e-10 of q, not at the
        # round-off: the balance holds to that error times the forces, 1e-8 of the kinetic energy)
        bound = 1e-11 if newton == "full" else 1e-8
        assert np.abs(fast.energy_balance).max() <= bound * np.abs(fast.kinetic).max()


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_compiled_steps_of_the_fem_3prr_give_its_steps_one_by_one(integrator, monkeypatch):
    """The FEM 3-PRR of cases/3prr_sine.toml (beam links, sliders driven by sine loads, a joint-angle
    family inside the loop; generalized-alpha with the early stop, and the energy-momentum scheme, whose
    joint angles take each step's start in the kernel): its loads, evaluated before each call at the
    times of its steps, and the rest as the steps one by one, bit for bit."""
    case = load_case(CASES / "3prr_sine.toml", Options(elements=1))
    settings = case.settings.replace(t_end=0.1, integrator=integrator)
    assert settings.early_stop == (integrator == GENERALIZED_ALPHA)
    fast, done, slow = runs(prepare(case.model, case.q0, case.v0), settings, monkeypatch)
    assert fast.complete and done == settings.steps - stepwise(settings)
    same(fast, slow)


@pytest.mark.parametrize("name,elements", [("five_bar_flexible", None), ("delta_flexible", 1), ("rpr_figure8", None),
                                           ("stewart_gough", None), ("3prr_reference", 1)])
def test_compiled_steps_of_mechanisms_driven_by_servos(name, elements, monkeypatch):
    """The flexible five-bar (generalized-alpha) and Delta (energy-momentum) whose effectors follow
    their paths by servo rows, and mechanisms driven by two servo families that the loop adds as one
    (``joints.servo.LoopServos``; energy-momentum): the rigid RPR (path and angle, after its joint
    angles), the Stewart-Gough platform (position and orientation, in space) and the FEM 3-PRR driven on
    its reference motion (beams, joint angles, path and angle): the servo targets taken before each call
    at the times of its steps, the inputs (the servo multipliers) and their work in the step's energy
    balance, as the steps one by one, bit for bit; the energy-momentum balance H - H_0 - W at the
    round-off of the energies."""
    case = load_case(CASES / f"{name}.toml", Options(elements=elements))
    settings = case.settings.replace(t_end=min(case.settings.t_end, 100 * case.settings.dt))
    setup = prepare(case.model, case.q0, case.v0, tolerance=case.settings.initial_tolerance)
    fast, done, slow = runs(setup, settings, monkeypatch)
    same(fast, slow)
    assert fast.complete and done >= settings.steps // 2 and np.abs(fast.inputs).max() > 0
    if settings.integrator == ENERGY_MOMENTUM:
        assert np.abs(fast.energy_balance).max() <= 1e-11 * max(np.abs(fast.kinetic).max(), np.abs(fast.work).max())


def test_compiled_steps_of_a_rigid_mechanism_driven_at_a_joint(monkeypatch):
    """cases/nm_logo.toml (rigid bodies, whose M is diagonal, a load on a joint angle, the
    energy-momentum scheme) in compiled steps: the steps one by one, bit for bit, and its energy balance
    at the round-off of the energies."""
    case = load_case(CASES / "nm_logo.toml")
    settings = case.settings.replace(t_end=min(case.settings.t_end, 200 * case.settings.dt))
    fast, done, slow = runs(prepare(case.model, case.q0, case.v0), settings, monkeypatch)
    same(fast, slow)
    # where KLU refuses to refactorise it pivots anew inside the call: every step is compiled
    assert fast.complete and done == settings.steps - stepwise(settings)
    assert np.abs(fast.energy_balance).max() <= 1e-11 * max(np.abs(fast.kinetic).max(), np.abs(fast.work).max())


@pytest.mark.parametrize("integrator,newton", [(ENERGY_MOMENTUM, "full"), (GENERALIZED_ALPHA, "full"),
                                              (ENERGY_MOMENTUM, "modified"), (GENERALIZED_ALPHA, "modified")],
                         ids=["energy-momentum", "generalized-alpha", "energy-momentum-simplified",
                              "generalized-alpha-simplified"])
@pytest.mark.parametrize("name", ["flexible_link_plant", "3prr_plant"])
def test_compiled_steps_of_damped_flexible_links(name, integrator, newton, monkeypatch):
    """The beams' material damping (1 % modal damping, ``forces.viscous``) inside the compiled steps:
    cases/flexible_link_plant.toml with two elements (a hub driven by a servo, one beam) and
    cases/3prr_plant.toml with one per link (four beams, joint angles, the platform's path): the
    damping's force and tangent in the Newton loop, its force in the step's work and its loss in the
    step's dissipation, with both integrators, full and simplified Newton, as the steps one by one, bit
    for bit. The damping dissipates in every step, and the flexible link's energy-momentum balance
    H - H_0 - W (the loss inside W, ``forces.viscous``) holds to the round-off of the energies (the 3-PRR,
    started at rest, gains only 7e-6 J in these 40 steps, and its balance, 5e-16 to 2e-15 J whatever
    Newton's tolerance from 1e-10 to 1e-14, is the round-off of larger terms than that)."""
    case = load_case(CASES / f"{name}.toml", Options(elements=2 if name == "flexible_link_plant" else 1))
    settings = case.settings.replace(t_end=40 * case.settings.dt, integrator=integrator, newton=newton)
    fast, done, slow = runs(prepare(case.model, case.q0, case.v0), settings, monkeypatch)
    assert fast.complete and done == settings.steps - stepwise(settings)
    same(fast, slow)
    assert np.all(np.diff(fast.dissipation) > 0)
    if integrator == ENERGY_MOMENTUM and name == "flexible_link_plant":
        bound = 1e-11 if newton == "full" else 1e-8  # simplified Newton: its error estimate (see above)
        assert np.abs(fast.energy_balance).max() <= bound * max(np.abs(fast.kinetic).max(), np.abs(fast.work).max())


@pytest.mark.parametrize("integrator,newton", [(ENERGY_MOMENTUM, "full"), (GENERALIZED_ALPHA, "full"),
                                              (ENERGY_MOMENTUM, "modified")],
                         ids=["energy-momentum", "generalized-alpha", "energy-momentum-simplified"])
@pytest.mark.parametrize("name", ["friction_oscillator", "rpr_figure8_friction"])
def test_compiled_steps_with_joint_friction(name, integrator, newton, monkeypatch):
    """Joint friction (001 section 4.2, ``forces.friction``) inside the compiled steps: a driven mass on a
    friction element (cases/friction_oscillator.toml, sticking and slipping) and the RPR manipulator
    driven along its figure-8 with friction on its three joints (joint angles and two servo families): the
    return map in the Newton loop, the slip advanced step by step in the kernel exactly as the interpreted
    step advances it (the states of every row, hence the friction's potential energy, bit for bit), its
    work and loss, with both integrators, as the steps one by one; the energy-momentum balance
    H_n - H_0 - W_n (the friction's loss inside W, 001 eq. 26) at the round-off of the energies."""
    case = load_case(CASES / f"{name}.toml")
    settings = case.settings.replace(t_end=100 * case.settings.dt, integrator=integrator, newton=newton)
    setup = prepare(case.model, case.q0, case.v0, tolerance=case.settings.initial_tolerance)
    fast, done, slow = runs(setup, settings, monkeypatch)
    assert fast.complete and done == settings.steps - stepwise(settings)
    same(fast, slow)
    lost = np.diff(fast.dissipation)
    assert np.all(lost >= 0) and np.any(lost > 0) and np.any(lost == 0)  # it slips, and it sticks
    if integrator == ENERGY_MOMENTUM:
        bound = 1e-11 if newton == "full" else 1e-8  # simplified Newton: its error estimate (see above)
        assert np.abs(fast.energy_balance).max() <= bound * max(np.abs(fast.kinetic).max(), np.abs(fast.work).max())


@pytest.mark.parametrize("integrator,newton", [(ENERGY_MOMENTUM, "full"), (GENERALIZED_ALPHA, "full"),
                                              (ENERGY_MOMENTUM, "modified")],
                         ids=["energy-momentum", "generalized-alpha", "energy-momentum-simplified"])
@pytest.mark.parametrize("dim", [2, 3], ids=["planar", "spatial"])
def test_compiled_steps_with_spring_dampers(dim, integrator, newton, monkeypatch):
    """Two spring-dampers on a chain of four links under gravity (``forces.spring_damper``; from the
    ground to the last link, from the first to the last) inside the compiled steps: their forces and
    tangents in the Newton loop, their work and potential in the step's energy, as the steps one by one,
    bit for bit; the energy-momentum balance H_n - H_0 - W_n (the dampers' loss inside W) at the round-off
    of the energies, with Newton's tolerance 1e-12 (at 1e-10 the spatial chain's balance is 1.4e-11 of its
    kinetic energy, with or without the springs: Newton's error, not the springs')."""
    from test_compiled_newton import chain
    model, setup = chain(dim, springs=True)
    settings = SolverSettings(2e-3, 0.1, integrator=integrator, newton=newton, tolerance=1e-12)
    fast, done, slow = runs(setup, settings, monkeypatch)
    assert fast.complete and done == settings.steps - stepwise(settings)
    same(fast, slow)
    if integrator == ENERGY_MOMENTUM:
        bound = 1e-11 if newton == "full" else 1e-8  # simplified Newton: its error estimate (see above)
        assert np.abs(fast.energy_balance).max() <= bound * max(np.abs(fast.kinetic).max(), np.abs(fast.work).max())
        assert np.all(np.diff(fast.work) < 0)  # the dampers take energy in every step (gravity's is in V)


class Rows(Chunks):
    """``Chunks`` of at most 7 steps (a call ends where its chunk is full)."""

    def capacity(self, n):
        return 7


def friction_oscillator():
    """cases/friction_oscillator.toml (a driven mass on a friction element, no joint family): its
    case and setup."""
    case = load_case(CASES / "friction_oscillator.toml")
    return case, prepare(case.model, case.q0, case.v0)


@pytest.mark.parametrize("model", ["pendulum", "friction"])
@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_compiled_steps_in_chunks_and_resumed_equal_the_run_in_one_piece(integrator, model, monkeypatch):
    """Also with joint friction, whose slip each row's states and the checkpoints hold."""
    if model == "pendulum":
        setup = pendulum(2)
        settings = SolverSettings(1e-3, 0.1, integrator=integrator, early_stop=integrator == GENERALIZED_ALPHA)
    else:
        case, setup = friction_oscillator()
        settings = case.settings.replace(t_end=100 * case.settings.dt, integrator=integrator)
    whole = time_loop.simulate(setup, settings)
    chunked = Rows(3)  # a chunk after every third call (or step), or 7 steps
    time_loop.simulate(setup, settings, output=chunked)
    assert len(chunked.chunks) > 14
    for field in FIELDS:
        assert np.array_equal(joined(chunked.chunks, field), getattr(whole, field)), field
    done = []
    for steps in (AlphaSteps, MidpointSteps):
        run = steps.run
        monkeypatch.setattr(steps, "run", lambda self, *args, run=run: done.append(run(self, *args)) or done[-1])
    for k in (0, len(chunked.checkpoints) // 2):
        again, done[:] = Rows(2), []
        time_loop.simulate(setup, settings, output=again, resume=chunked.checkpoints[k])
        assert sum(done) == settings.steps - chunked.checkpoints[k].step  # compiled from the resumed step on
        for field in FIELDS:
            assert np.array_equal(joined(chunked.chunks[: k + 1] + again.chunks, field), getattr(whole, field)), field


@pytest.mark.parametrize("dim,dt,integrator,iterations", [(2, 5e-3, GENERALIZED_ALPHA, 7),
                                                          (3, 5e-3, GENERALIZED_ALPHA, 7),
                                                          (2, 2e-3, ENERGY_MOMENTUM, 2)],
                         ids=["planar", "spatial", "energy-momentum"])
def test_a_newton_failure_inside_a_call_ends_the_run_as_step_by_step(dim, dt, integrator, iterations, monkeypatch):
    """Too few iterations allowed for the faster motion: Newton fails after some steps -- inside a compiled
    call, which returns before the step for the interpreted one to fail with its message. (Generalized-alpha
    now converges where its steps were too long for the fall before, dt = 5e-3 / 1e-2 in the plane / in
    space with 25 iterations: Newton starts from q_n + h v_n where that was the closer start,
    ``GeneralizedAlpha.predictor``; here step 17 takes 8 iterations, the first 6-7.)"""
    settings = SolverSettings(dt, 0.4, integrator=integrator, max_iterations=iterations)
    fast, done, slow = runs(pendulum(dim), settings, monkeypatch)
    assert not fast.complete and "Newton failed" in fast.message and done == len(fast.t) - 1 - stepwise(settings) > 0
    same(fast, slow)


def test_pairwise_sum_is_numpys_sum():
    """The compiled steps sum the potential and the work as NumPy's ``sum`` (pairwise; the steps one
    by one take the potential from it): every length up to two levels of halving, and long ones."""
    kernels = compiled("femdyn.integrators.step_ends")
    rng = np.random.default_rng(5)
    for n in [*range(300), 1000, 4099, 20001]:
        x = rng.standard_normal(n) * 10.0 ** rng.uniform(-8, 8, n)  # magnitudes whose order of summation shows
        assert kernels.pairwise_sum(x, 0, n) + 0.0 == x.sum() + 0.0, n


def test_refused_refactorisations_are_pivoted_inside_the_compiled_steps(monkeypatch):
    """Every refactorisation refused (KLU pivots anew in every iteration, ``numerics.klu.factor``): the
    compiled calls still do every step but the first, the interpreter factors only the first matrix, and
    the run is the run step by step bit for bit, one pivoting factorisation per Newton iteration."""
    from femdyn.integrators.saddle import KeptLU
    monkeypatch.setattr(KeptLU, "refactor_rcond_drop", np.inf)
    settings = SolverSettings(1e-3, 0.05, integrator="generalized-alpha", newton="full")
    done, factored = [], []
    run, factor = AlphaSteps.run, KeptLU.factor
    monkeypatch.setattr(AlphaSteps, "run", lambda self, *args: done.append(run(self, *args)) or done[-1])
    monkeypatch.setattr(KeptLU, "factor", lambda self, values: factored.append(1) or factor(self, values))
    fast = time_loop.simulate(pendulum(2), settings)
    assert fast.complete and sum(done) == settings.steps - 1 and len(factored) == 1
    monkeypatch.setattr(AlphaSteps, "of", classmethod(lambda cls, stepper: None))
    slow = time_loop.simulate(pendulum(2), settings)
    same(fast, slow)
    assert fast.factorisations == np.sum(fast.iterations)


def test_the_warm_up_cases_compile_the_steps_of_every_model():
    """One machine code of each kernel per set of forces -- the beams there or not, the viscous damping, the
    joint friction and the spring-dampers as one set, there or not (``SaddleSystem.loop_force``): at most
    four -- for the planar and the spatial pendulum, with and without gravity (no worked force: a potential of
    none), the FEM 3-PRR, a flexible link with material damping, a mass on joint friction and a chain with
    spring-dampers; the two steps of each of ``femdyn warm-up``'s cases, run with both integrators, compile all
    four: rigid, with beams, rigid with forces of the set (friction), with beams and forces (damping)."""
    from femdyn.api.warm_up import WARM_UP
    assert {"3prr_sine", "nm_logo", "flexible_link_plant", "friction_oscillator"} <= set(WARM_UP)
    case = load_case(CASES / "3prr_sine.toml", Options(elements=1))
    time_loop.simulate(prepare(case.model, case.q0, case.v0), case.settings.replace(t_end=0.01))
    for dim in (2, 3):
        for integrator in INTEGRATORS:
            time_loop.simulate(pendulum(dim), SolverSettings(1e-3, 0.01, integrator=integrator))
            time_loop.simulate(pinned_beam(dim, gravity=False)[1], SolverSettings(1e-3, 0.01, integrator=integrator))
    for name, elements in (("flexible_link_plant", 2), ("friction_oscillator", None), ("nm_logo", None)):
        case = load_case(CASES / f"{name}.toml", Options(elements=elements))
        for integrator in INTEGRATORS:
            time_loop.simulate(prepare(case.model, case.q0, case.v0), case.settings.replace(
                t_end=5 * case.settings.dt, integrator=integrator))
    from test_compiled_newton import chain, force_sets
    for integrator in INTEGRATORS:
        time_loop.simulate(chain(3, springs=True)[1], SolverSettings(1e-3, 0.005, integrator=integrator))
    kernels = compiled("femdyn.integrators.step_kernels")
    for steps in (kernels.alpha_steps, kernels.midpoint_steps):  # rigid, beams, each with the forces or without
        counts = force_sets(steps)
        assert len(counts) == 4 and set(counts.values()) == {1}
