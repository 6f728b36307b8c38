"""Geometric stiffening without membrane locking in the carrier embedding (``femdyn.beam.elasticity``:
the 003 elements of Rayleigh-Ritz and FEM bodies with the linear axial shape): the element-averaged
nonlinear axial strain leaves the axial forces of a transversely loaded cantilever zero, so its
static deflection is that of the linear beam at every mesh size."""
import numpy as np
import pytest
from shared import static_equilibrium

from femdyn.beam.body import BeamBody, Section
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

E, RHO, LENGTH = 2.1e11, 7850.0, 1.0
SECTION = Section.rectangle(0.01, 0.02)


@pytest.mark.parametrize("n", [1, 2, 4])
@pytest.mark.parametrize("discretisation", ["fem", "rayleigh-ritz"])
def test_carrier_stiffening_does_not_lock(n, discretisation):
    """A clamped cantilever with geometric stiffening under a transverse tip load P large enough to
    bend it by 2 % of its length: tip deflection P L^3/3EI to 1e-9 (a pointwise strain u' + v'^2/2
    would stretch the bent elements, whose axial field is linear, and stiffen them)."""
    x = np.linspace(0.0, LENGTH, n + 1)
    nodes = np.column_stack([x, 0 * x])
    body = (BeamBody(nodes, SECTION, E, RHO, axial="linear") if discretisation == "fem"
            else BeamBody.rayleigh_ritz(nodes, SECTION, E, RHO))
    ei = E * SECTION.inertia
    p = 0.02 * 3 * ei / LENGTH**2
    b = ModelBuilder(2)
    b.add_beam("beam", body, stiffening=True)
    b.add_joint("clamp", "fixed", "ground", "beam")
    b.add_point_force("beam", [LENGTH, 0.0], [0.0, p], lambda t: 1.0)
    model = b.build()
    q, _ = place(model, {}, {})
    model, q = static_equilibrium(model, q)
    flexible = model.flexible[0]
    tip = q[flexible.elastic] @ body.shape_at([[LENGTH, 0.0]])[0, 1]
    assert abs(tip / (p * LENGTH**3 / (3 * ei)) - 1) < 1e-9
