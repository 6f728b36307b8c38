"""Segmented links (``femdyn.model.segments``): a beam body split into k floating-frame segments welded end
to end. A free segmented link spinning and bending conserves energy and both momenta to round-off (2D and
3D); with k = 1 the model is the unsplit one; points along the link go to the segment that holds them."""
import numpy as np
import pytest
from shared import TIGHT

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d

E, NU, RHO = 2.1e11, 0.3, 7850.0
SECTION = Section.rectangle(0.01, 0.02)


def beam(dim, n, length=1.0):
    return BeamBody.straight(length, n, SECTION, E, RHO, dim=dim, axial="cubic", poisson=NU)


def free_link(dim, segments, n=6, stiffening=True):
    """A free link of n elements in ``segments`` segments, spinning about an axis that is not principal and
    bending (transverse nodal velocities (x^2 - x^3/3) across, projected onto the welds)."""
    b = ModelBuilder(dim)
    b.add_beam("link", beam(dim, n), stiffening=stiffening, segments=segments)
    model = b.build()
    if dim == 2:
        pose = {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2], "angular_velocity": 15.0}
    else:
        pose = {"position": [0.2, -0.1, 0.3], "rotation": rotation_3d([1.0, 2.0, 3.0], 0.4),
                "velocity": [0.5, -0.2, 0.1], "angular_velocity": np.array([3.0, 10.0, -5.0])}
    q, v = place(model, {"link": pose}, {})
    d = q[model.worlds[0].d].reshape(dim, dim)  # rows d_a of the link frame (the first segment's)
    across = d[1] + (0.5 * d[2] if dim == 3 else 0.0)
    for world in model.worlds:
        x = world.beam.nodes[1:, 0]
        held = world.w[1:, 0] >= 0
        v[world.w[1:][held]] = (2.0 * (x**2 - x**3 / 3))[held, None] * across
        v[world.s[1:][held]] = (2.0 * (2 * x - x**2))[held, None] * across
    return model, prepare(model, q, v)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("segments", [2, 3])
def test_free_segmented_link_conserves_energy_and_momenta(dim, segments):
    """The welds are fixed joints (bilinear rows through the section carriers of the segment ends), the
    segments world-vector beams (constant mass, quadratic invariant strains, Gonzalez's discrete
    gradient): the energy-momentum scheme conserves H, p and L to the Newton tolerance (000 eqs. 5-7,
    26), as for one body."""
    model, setup = free_link(dim, segments)
    assert len(model.bodies) == segments and len(model.joints) == segments - 1
    r = simulate(setup, SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    elastic = np.concatenate([w.elastic_coordinates(r.q) for w in model.worlds], axis=1)
    assert np.abs(elastic).max() > 1e-4  # the link really bends
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    mass = sum(body.mass for body in model.bodies)
    p_scale = np.sqrt(2.0 * r.kinetic.max() * mass)
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-11 * p_scale
    L = np.linalg.norm(np.atleast_2d(r.angular_momentum.T).T, axis=-1) if dim == 3 else np.abs(r.angular_momentum)
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * L.max()
    assert r.residual.max() <= 1e-12
