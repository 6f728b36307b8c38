"""A model compiles the code of its own forces only (issue 37): an absent viscous damping, joint friction or
set of spring-dampers -- and the world beams' elasticity of a rigid model, its dimension -- is passed to the
compiled Newton loop and steps as None (``SaddleSystem.loop_force``, ``beam.world.elasticity.NO_STEP``),
and numba prunes the branches that use it before typing (``numba.core.analysis.dead_branch_prune``, the
pass its pipeline runs on a kernel's arguments), so that the kernels of that force are neither compiled nor
linked into the loop's machine code of that model."""
import numpy as np
import pytest
from numba.core import analysis, compiler, ir, types
from numba.core.controlflow import CFGraph

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
                                         ("forces_end", "femdyn.integrators.step_kernels"),
                                         ("worked_potential", "femdyn.integrators.step_kernels")])
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


def test_loop_force_passes_none_for_the_forces_a_model_has_not():
    """``loop_force`` gives None for each force that a model does not have (a rigid chain) and the force's
    arguments where it has them (the chain with spring-dampers)."""
    from test_compiled_newton import chain

    from femdyn.integrators.energy_momentum import EnergyMomentum

    for springs in (False, True):
        model, setup = chain(2, springs=springs)
        system = EnergyMomentum(model, 1e-3, setup.active_rows).system
        assert system.compiled_residual
        n = setup.q0.size
        damper, friction, arguments = system.loop_force(None, True, 1e-3, (np.zeros(n), setup.q0, 1.0),
                                                        model.initial_states(setup.q0))[-3:]
        assert damper is None and friction is None
        assert (arguments is None) != springs
