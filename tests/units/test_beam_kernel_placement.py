"""``beam.world.kernels.step_into``, the world beams' kernel that adds its tangent into a Newton
matrix's CSC data at given places, against ``step`` followed by the scatter that
``integrators.kernels.assemble`` makes of its values: the same forces and the same matrix bit for bit
(the same products, each place's sum in the same order), for the discrete gradient of a step (its start's
strains computed, then held) and the continuous forms, in the plane and in space, on elements with and
without removed coordinates (a pinned pendulum in the plane, a clamped cantilever in space: the first
element's root vectors are gone)."""
import numpy as np
import pytest

from femdyn.beam.body import BeamBody, Section
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.lazy import compiled


def world_elasticity(dim):
    b = ModelBuilder(dim)
    b.add_beam("beam", BeamBody.straight(0.5, 3, Section.rectangle(0.01, 0.02), 2.1e11, 7850.0, dim=dim,
                                         poisson=0.3), stiffening=True)
    b.add_joint("root", "revolute" if dim == 2 else "fixed", "ground", "beam")
    model = b.build()
    q, _ = place(model, {}, {"root": {"angle": 0.0}} if dim == 2 else {})
    force = next(f for f in model.forces if type(f).__name__ == "WorldElasticity")
    return force, q


@pytest.mark.parametrize("dim", [2, 3])
def test_step_into_is_step_then_the_scatter_bit_for_bit(dim):
    kernels = compiled("femdyn.beam.world.kernels")
    force, q0 = world_elasticity(dim)
    assert (force.index < 0).any() and (force.index >= 0).all(axis=1).any()  # both kinds of elements
    rng = np.random.default_rng(dim)
    qa = q0[force.dofs] + 1e-2 * rng.standard_normal(force.dofs.shape)
    qb = qa + 1e-2 * rng.standard_normal(force.dofs.shape)
    entries = force.tangent_pattern()[0].size
    at = rng.integers(0, entries // 3, size=entries)  # places shared by several entries, in no order
    matrix = rng.standard_normal(entries // 3)  # what the matrix holds before (mass, constraints)
    for same, known in [(False, False), (False, True), (True, False)]:
        held = [np.zeros_like(a) for a in force._at_start]
        if known:  # the start's strains as the first call leaves them
            kernels.step(qa, qb, False, *force._arguments, np.empty((1, force.dofs.shape[1])),
                         np.empty((1, entries)), *held, False)
        F, dF = np.empty((1, force.dofs.shape[1])), np.empty((1, entries))
        kernels.step(qb if same else qa, qb, same, *force._arguments, F, dF, *[a.copy() for a in held], known)
        expected = matrix.copy()
        for p in range(entries):  # ``integrators.kernels.assemble``'s loop
            expected[at[p]] += -1.0 * dF[0, p]
        F_into, values = np.empty_like(F), matrix.copy()
        kernels.step_into(qb if same else qa, qb, same, *force._arguments, F_into, values, at,
                          *[a.copy() for a in held], known)
        assert np.array_equal(F_into, F) and np.array_equal(values, expected)
        assert not np.array_equal(values, matrix)


