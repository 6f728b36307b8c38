"""A model compiles the code of its own forces only (issue 37): the viscous damping, joint friction and
spring-dampers of a model that has none of them -- and the world beams' elasticity of a rigid model, its
dimension -- are passed to the compiled Newton loop and steps as None (``SaddleSystem.loop_force``,
``beam.world.elasticity.NO_STEP``), and numba prunes the branches that use them before typing
(``numba.core.analysis.dead_branch_prune``, the pass its pipeline runs on a kernel's arguments), so that their
kernels are neither compiled nor linked into the loop's machine code of that model. A model with any of the three
passes all three, as one set (an absent one as an instance of none): one machine code for all such models."""
import pytest
from numba import typeof
from numba.core import analysis, compiler, ir, types
from numba.core.controlflow import CFGraph
from shared import CASES

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators.setup import prepare
from femdyn.numerics.lazy import compiled

FORCES = {"damper": "femdyn.forces.viscous_kernels", "friction": "femdyn.forces.friction_kernels",
          "springs": "femdyn.forces.spring_kernels", "dim": "femdyn.beam.world.kernels"}  # ``dim``: the beams
PRESENT = types.Tuple((types.int64, types.float64[:]))  # any tuple: not None, so not pruned


def _live_modules(function, absent):
    """The kernel modules of ``FORCES`` that the live code of ``function`` refers to after numba's dead-branch
    pruning for arguments ``absent`` typed ``none`` and the others not."""
    func_ir = compiler.run_frontend(function.py_func)
    names = func_ir.arg_names
    analysis.dead_branch_prune(func_ir, [types.none if name in absent else PRESENT for name in names])
    graph = CFGraph()
    for label in func_ir.blocks:
        graph.add_node(label)
    for label, block in func_ir.blocks.items():
        for target in block.terminator.get_targets():
            graph.add_edge(label, target)
    graph.set_entry_point(min(func_ir.blocks))
    graph.process()
    dead = graph.dead_nodes()
    modules = {module: name for name, module in FORCES.items()}
    found = set()
    for label, block in func_ir.blocks.items():
        if label in dead:
            continue
        for value in block.find_exprs("getattr"):
            definitions = func_ir._definitions[value.value.name]  # a module global is defined once
            definition = definitions[0] if len(definitions) == 1 else None
            if isinstance(definition, ir.Global) and getattr(definition.value, "__name__", None) in modules:
                found.add(modules[definition.value.__name__])
    return found


@pytest.mark.parametrize("name,module", [("newton_loop", "femdyn.integrators.kernels"),
                                         ("forces_end", "femdyn.integrators.step_ends"),
                                         ("worked_potential", "femdyn.integrators.step_ends")])
def test_an_absent_force_leaves_no_code_of_its_kernels(name, module):
    """Each force's kernels are live code of the Newton loop and the steps' ends where the force is there,
    and none where it is None."""
    function = getattr(compiled(module), name)
    code = compiled(module).__dict__[name].py_func.__code__
    arguments = set(code.co_varnames[: code.co_argcount])
    forces = [force for force in FORCES if force in arguments]
    assert forces
    for force in forces:
        assert force in _live_modules(function, set())
        assert force not in _live_modules(function, {force})
    assert not _live_modules(function, set(forces))


def _loop_types(system, setup) -> tuple:
    """numba's types of ``loop_force``'s damping, friction and spring-dampers in both forms: energy-momentum's
    (the discrete one) and generalized-alpha's (the continuous one)."""
    q, states = setup.q0, setup.model.initial_states(setup.q0)
    local = [q[system.forces[k].dofs] for k in system.varying]
    return tuple(typeof(system.loop_force(*form, states=states)[-3:])
                 for form in ((local, False, 1e-3), (None, True, 1e-3, (setup.v0, q, 1.0))))


def test_models_with_any_of_the_loops_forces_share_one_set():
    """``loop_force`` gives None for each of the loop's forces where a model has none of them (a rigid chain)
    and all three where it has any -- spring-dampers only (the chain with springs, planar and spatial), a
    damping only (the flexible link), friction only (the oscillator) --, the absent ones as instances of none,
    typed as any (``numba.typeof``), so that these models share one machine code of the loop and the steps,
    which ``femdyn warm-up``'s cases compile (the flexible link and the oscillator are two of them)."""
    from test_compiled_newton import chain

    from femdyn.api.warm_up import WARM_UP
    from femdyn.integrators.energy_momentum import EnergyMomentum

    def system_setup(setup):
        system = EnergyMomentum(setup.model, 1e-3, setup.active_rows).system
        assert system.compiled_residual
        return system, setup

    rigid = _loop_types(*system_setup(chain(2)[1]))
    assert rigid == (types.Tuple((types.none,) * 3),) * 2
    looped = {_loop_types(*system_setup(chain(dim, springs=True)[1])) for dim in (2, 3)}
    for name in ("flexible_link_plant", "friction_oscillator"):
        assert name in WARM_UP
        case = load_case(CASES / f"{name}.toml", Options(elements=1))
        looped.add(_loop_types(*system_setup(prepare(case.model, case.q0, case.v0))))
    assert len(looped) == 1 and all(types.none not in form for form in next(iter(looped)))
