"""Newton's iteration compiled whole (``integrators.kernels.newton_loop``) for the energy-momentum and
generalized-alpha steps of models whose residual is all compiled (rigid bodies, quadratic joints,
constant loads, the world beams' elasticity, a joint-angle family and servo rows evaluated inside the loop,
as in the FEM 3-PRR and the flexible five-bar and Delta driven by servos, also of two servo families joined
as one, as in the Stewart-Gough platform and the 3-PRR driven on its reference motion, and the beams'
material damping after their elasticity, ``forces.viscous``: cases/flexible_link_plant.toml, joint
friction, ``forces.friction``: cases/rpr_figure8_friction.toml, and spring-dampers, ``forces.spring_damper``:
a spatial chain), with
generalized-alpha's early stop (``QuadraticStop``) inside it too, full or simplified:
its steps are those of the interpreted iteration (``Newton.solve``'s loop over ``SaddleSystem.assemble``,
KLU's ``factor`` and the compiled solves) bit for bit -- q, v, multipliers, iterations, the work, KLU's
refactorisation count and the state a checkpoint saves -- also where a refactorisation is refused and
KLU pivots anew inside the compiled call, and both fail alike where Newton cannot converge."""
from collections import Counter

import numpy as np
import pytest
from numba.core import types
from shared import CASES, newton_matrix_by_differences, pinned_beam

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from femdyn.integrators.newton import NO_STOP, NewtonFailure, NewtonOptions
from femdyn.integrators.setup import prepare
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d


def chain(dim, links=4, springs=False):
    """Links of 0.1 m under gravity, revolute (planar) or spherical (spatial) joints, released from
    a bent line with a spin; with ``springs`` two spring-dampers, from the ground to the last link and
    from the first link to the last."""
    b = ModelBuilder(dim)
    for i in range(links):
        b.add_body(f"l{i}", 0.1 + 0.02 * i, [1e-4 + 1e-5 * i] * dim)
    joint = "revolute" if dim == 2 else "spherical"
    half = [0.05] + [0.0] * (dim - 1)
    b.add_joint("j0", joint, "ground", "l0", point2=[-h for h in half])
    for i in range(1, links):
        b.add_joint(f"j{i}", joint, f"l{i - 1}", f"l{i}", point1=half, point2=[-h for h in half])
    if springs:
        b.add_spring_damper("k1", "ground", [0.2, 0.1] + [0.05] * (dim - 2), f"l{links - 1}", half, 30.0, 0.5, 0.1)
        b.add_spring_damper("k2", "l0", [0.0] * dim, f"l{links - 1}", [0.0] * dim, 10.0, 0.2, 0.15)
    b.set_gravity([0.0, -9.81] + [0.0] * (dim - 2))
    model = b.build()
    if dim == 2:
        q, v = place(model, {}, {f"j{i}": {"angle": 0.3 * (-1) ** i} for i in range(links)})
    else:  # a straight line along x, each link turned about it
        q, v = place(model, {f"l{i}": {"position": [0.05 + 0.1 * i, 0.0, 0.0],
                                        "rotation": rotation_3d([1.0, 0.0, 0.0], 0.2 * i)} for i in range(links)}, {})
    setup = prepare(model, q, v + 0.5 * np.random.default_rng(dim).normal(size=model.n))
    return model, setup


def run(model, setup, compiled, steps=60, dt=2e-3, options=None, refuse=False, scheme=EnergyMomentum):
    """The steps' results and the stepper; ``compiled`` False: the interpreted iteration."""
    stepper = scheme(model, dt, setup.active_rows, options)
    stepper.system.compiled_residual = compiled
    lu = stepper.system.lu
    if refuse:  # every refactorisation refused: KLU pivots in every iteration
        lu.refactor_rcond_drop = np.inf
    lu.interpreted = []  # the factorisations that the interpreter asks for
    lu.factor = lambda values, factor=lu.factor: lu.interpreted.append(1) or factor(values)
    q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
    results = []
    for k in range(steps):
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
        results.append(r)
    return results, stepper


beam = pinned_beam


def prr(dim=2):
    """The FEM 3-PRR of cases/3prr_sine.toml (beam links, sliders, a joint-angle family) with one
    element per link."""
    case = load_case(CASES / "3prr_sine.toml", Options(elements=1))
    return case.model, prepare(case.model, case.q0, case.v0)


def servo_case(name, elements=None):
    """A case driven by servo rows on flexible links: cases/five_bar_flexible.toml (joint angles, then the
    servos of the effector's path), cases/delta_flexible.toml with one element per link (in space); by two
    servo families that the loop adds as one (``joints.servo.LoopServos``): cases/stewart_gough.toml (rigid,
    in space: the platform's position and orientation, rows of different widths), cases/3prr_reference.toml
    with one element per link (joint angles, then the platform frame's path and angle)."""
    case = load_case(CASES / f"{name}.toml", Options(elements=elements))
    setup = prepare(case.model, case.q0, case.v0)
    return setup.model, setup  # the model with its relative servo targets fixed from q0


@pytest.fixture(params=[(chain, 2), (chain, 3), (beam, 2), (beam, 3), (prr, 2), (servo_case, "five_bar_flexible"),
                        (lambda name: servo_case(name, 1), "delta_flexible"), (servo_case, "stewart_gough"),
                        (lambda name: servo_case(name, 1), "3prr_reference"),
                        (lambda name: servo_case(name, 2), "flexible_link_plant"),
                        (servo_case, "rpr_figure8_friction"), (lambda dim: chain(dim, springs=True), 3)],
                ids=["planar", "spatial", "planar-beam", "spatial-beam", "3prr", "five-bar-servos", "delta-servos",
                     "stewart-two-servo-families", "3prr-two-servo-families", "damped-flexible-link",
                     "joint-friction", "spring-dampers"])
def model_setup(request):
    build, dim = request.param
    return build(dim)


def test_the_chains_residual_is_all_compiled(model_setup):
    model, setup = model_setup
    assert EnergyMomentum(model, 1e-3, setup.active_rows).system.compiled_residual


@pytest.mark.parametrize("scheme,options", [
    (EnergyMomentum, NewtonOptions()), (GeneralizedAlpha, NewtonOptions()),
    (GeneralizedAlpha, NewtonOptions(early_stop=True)),
    (EnergyMomentum, NewtonOptions(modified=True)), (GeneralizedAlpha, NewtonOptions(modified=True))],
    ids=["energy-momentum", "generalized-alpha", "generalized-alpha-early-stop", "energy-momentum-simplified",
         "generalized-alpha-simplified"])
@pytest.mark.parametrize("refuse", [False, True], ids=["refactored", "pivoted"])
def test_compiled_iteration_gives_the_interpreted_steps_bit_for_bit(model_setup, refuse, scheme, options):
    """Also simplified Newton (``NewtonOptions.modified``): its residual-only iterations inside the loop
    are the interpreted ones, and it factorises fewer matrices than it iterates."""
    model, setup = model_setup
    compiled, fast = run(model, setup, True, refuse=refuse, scheme=scheme, options=options)
    interpreted, slow = run(model, setup, False, refuse=refuse, scheme=scheme, options=options)
    for a, b in zip(compiled, interpreted):
        assert a.iterations == b.iterations
        for name in ("q", "v", "lam"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert a.work == b.work
    assert sum(r.iterations for r in compiled) > len(compiled)  # more than one iteration per step
    lu_a, lu_b = fast.system.lu, slow.system.lu
    assert (lu_a.factorizations, lu_a.refactorizations) == (lu_b.factorizations, lu_b.refactorizations)
    iterations = sum(r.iterations for r in compiled)
    if options.modified:
        assert len(compiled) <= lu_a.factorizations + lu_a.refactorizations < iterations
    else:  # one factorisation per iteration: pivoting where KLU refuses to refactorise (every one: ``refuse``)
        assert lu_a.factorizations + lu_a.refactorizations == iterations
    if refuse:  # KLU's refusals taken where they happen, inside the compiled calls
        assert lu_a.refactorizations == 0
    assert len(lu_a.interpreted) == len(lu_b.interpreted) == 1  # the first matrix alone
    state_a, state_b = fast.state(), slow.state()
    assert state_a.keys() == state_b.keys()
    for key in state_a:
        assert np.array_equal(state_a[key], state_b[key]), key
    if options.early_stop:  # it never iterates longer than the plain test
        plain, _ = run(model, setup, True, refuse=refuse, scheme=scheme)
        assert all(a.iterations <= b.iterations for a, b in zip(compiled, plain))


def test_compiled_early_stop_saves_iterations():
    """On a chain of rigid links the early stop inside the loop stops before the plain test in some steps
    (the steps themselves are the interpreted ones, bit for bit, above). (Not on this 3-PRR of one element per link any more: Newton
    starts there from q_n + h v_n in most steps, ``GeneralizedAlpha.predictor``, whose first increment is
    not small enough for it -- 121 iterations in these 60 steps with it and without, against 140 and 161
    from the extrapolation alone.)"""
    model, setup = chain(2)
    early, _ = run(model, setup, True, scheme=GeneralizedAlpha, options=NewtonOptions(early_stop=True))
    plain, _ = run(model, setup, True, scheme=GeneralizedAlpha)
    assert sum(r.iterations for r in early) < sum(r.iterations for r in plain)


def failure(model, setup, compiled, options=None, velocity=None, steps=5, dt=2e-3):
    """The message of the NewtonFailure of the step after ``steps`` good ones, taken with ``options``
    and from the velocities ``velocity`` (where given)."""
    results, stepper = run(model, setup, compiled, steps=steps, dt=dt)
    r = results[-1]
    if options is not None:
        stepper.newton.options = options
    with pytest.raises(NewtonFailure) as raised:
        stepper.step(steps * dt, r.q, r.v if velocity is None else velocity, r.lam, r.states)
    return str(raised.value)


def test_compiled_iteration_fails_as_the_interpreted_one(model_setup):
    """Three iterations allowed and a tolerance below round-off: no convergence; a velocity that is
    not a number: a residual that is not finite -- the same failure, residual and message."""
    model, setup = model_setup
    options = NewtonOptions(tolerance=1e-30, max_iterations=3)
    messages = [failure(model, setup, compiled, options=options) for compiled in (True, False)]
    assert messages[0] == messages[1] and "no convergence" in messages[0]
    nan = np.full(model.n, np.nan)
    messages = [failure(model, setup, compiled, velocity=nan) for compiled in (True, False)]
    assert messages[0] == messages[1] and "not finite" in messages[0]


def force_sets(dispatcher):
    """How many machine codes ``dispatcher`` has per set of forces: its signatures counted by the places of
    the arguments typed ``none`` (tuples flattened), the beams and forces that a model does not have
    (``SaddleSystem.loop_force``)."""
    def nones(t):
        if isinstance(t, types.BaseTuple):
            return tuple(x for item in t.types for x in nones(item))
        return (t == types.none,)

    return Counter(tuple(x for t in signature for x in nones(t)) for signature in dispatcher.signatures)


def test_rigid_and_beam_models_compile_one_loop_each():
    """The world beams' arguments of ``newton_loop`` (``WorldElasticity.loop_arguments``) have one type
    for every beam model, and a rigid model's (``NO_STEP``) its dimension None, without the beams' kernel:
    one machine code for the rigid models and one for the beam models, for both integrators (an
    argument of another type -- an int32, a non-contiguous array -- would make another)."""
    from femdyn.numerics.lazy import compiled
    for build, dim in ((chain, 2), (beam, 2), (beam, 3), (prr, 2)):
        model, setup = build(dim)
        for scheme in (EnergyMomentum, GeneralizedAlpha):
            run(model, setup, True, steps=3, scheme=scheme)
        run(model, setup, True, steps=20, scheme=GeneralizedAlpha, options=NewtonOptions(early_stop=True))
    counts = force_sets(compiled("femdyn.integrators.kernels").newton_loop)
    assert len(counts) >= 2 and set(counts.values()) == {1}


@pytest.mark.parametrize("scheme", [EnergyMomentum, GeneralizedAlpha], ids=["energy-momentum", "generalized-alpha"])
@pytest.mark.parametrize("build,dim", [(beam, 2), (beam, 3), (prr, 2),
                                       (lambda dim: servo_case("five_bar_flexible", 1), 2),
                                       (lambda dim: servo_case("3prr_reference", 1), 2),
                                       (lambda dim: servo_case("stewart_gough"), 3),
                                       (lambda dim: servo_case("flexible_link_plant", 2), 2),
                                       (lambda dim: servo_case("rpr_figure8_friction"), 2),
                                       (lambda dim: chain(dim, springs=True), 2)],
                         ids=["planar-beam", "spatial-beam", "3prr", "five-bar-servos", "3prr-two-servo-families",
                              "stewart-two-servo-families", "damped-flexible-link", "joint-friction",
                              "spring-dampers"])
def test_compiled_loops_matrix_is_the_derivative_of_its_own_residual(build, dim, scheme):
    """The Newton matrix that ``newton_loop`` factors for a beam model and the 3-PRR (beams, joint
    angles), at an iterate off the solution and random multipliers, against central differences of
    the residual that the loop itself evaluates (one iteration from each point): its columns of
    q_n+1 are the differences in qb,
    those of the scaled multipliers lam/s the differences in lam/s (the residual is linear in them).
    The bound 1e-9 max|K|, as for the interpreted assembly (tests/units/test_newton_assembly.py), is
    above the differences' round-off eps max|K| |q| / h and far below the beams' own entries."""
    from femdyn.numerics.lazy import compiled
    kernels = compiled("femdyn.integrators.kernels")
    model, setup = build(dim)
    stepper = scheme(model, 2e-3, setup.active_rows)
    taken = {}
    solve = stepper.newton.solve

    def capture(system, qb, lam, t1, stop=None, compiled_loop=None):
        taken.update(loop=compiled_loop, qb=qb.copy(), lam=lam.copy())
        return solve(system, qb, lam, t1, stop, compiled_loop)

    states = model.initial_states(setup.q0)
    r = stepper.step(0.0, setup.q0, setup.v0, np.zeros(model.m), states)  # the factorisation to refactor
    stepper.newton.solve = capture
    stepper.step(2e-3, r.q, r.v, r.lam, r.states)
    lu, newton, system = stepper.system.lu, stepper.newton, stepper.system
    rng = np.random.default_rng(dim)
    qb = taken["qb"] + 1e-5 * rng.normal(size=model.n)
    lam = rng.normal(size=model.m)

    def loop(q, multipliers):
        """(residual, matrix values) of one iteration of the loop from (q, multipliers); the kept
        pivots accepted whatever KLU's condition estimate (the matrix is what is checked)."""
        lu.refactor_rcond_drop = 0.0  # any pivots
        out = kernels.newton_loop(*taken["loop"](), q, multipliers.copy(), 1e-10, 1, *lu.pattern, lu.handles,
                                  lu.rcond, lu.pivoting(), newton.active, newton.scale, np.zeros(2), 1, 15, False,
                                  0.1, NO_STOP)
        assert out[0] in (kernels.CONVERGED, kernels.LIMIT) and out[4] == 1  # refactored and solved
        return out[6], out[5]

    K = system.pattern.csc(loop(qb, lam)[1]).toarray()
    numeric = newton_matrix_by_differences(lambda q, m: loop(q, m)[0], qb, lam, system.active, stepper.scale)
    assert np.abs(K - numeric).max() <= 1e-9 * np.abs(K).max()


def test_servo_families_that_actuate_one_coordinate_twice_are_not_joined():
    """Two servo families are added as one only where no coordinate is actuated twice (each entry of
    B^T lam then one family's): the Stewart-Gough platform's families are joinable, and the same family
    twice is not."""
    from femdyn.joints.servo import joinable
    model, setup = servo_case("stewart_gough")
    system = EnergyMomentum(model, 1e-3, setup.active_rows).system
    servos = [fam.c for fam in system.families if fam.servo]
    assert len(servos) == 2 and joinable(servos) and not joinable([servos[0], servos[0]])
