"""Spatial beam bodies whose centre line is a polyline (``femdyn.beam.spatial``: element section frames
by the minimal rotation from x1 to each element's tangent; in a model embedded by carriers,
``beam.spatial_ffr``): an L-shaped centre line in one body against the closed form of the two welded
legs, a quarter circle of straight elements converging to the curved cantilever's closed form, and a
free L-shaped body conserving energy and momenta."""
import numpy as np
import pytest
from shared import TIGHT, assert_conserved, free_spatial_body, observed_orders, static_equilibrium

from femdyn.beam.body import BeamBody, Section
from femdyn.beam.modes import static_deflection
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.time_loop import simulate
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

E, NU, RHO = 2.1e11, 0.3, 7850.0
G = E / (2 * (1 + NU))
SECTION = Section.rectangle(0.01, 0.02)  # b = 10 mm along b_e (= e_3 for lines in the x1-x2 plane)
A_LEG, B_LEG = 0.6, 0.4


def l_shape(n, **options):
    """Leg 1 along x1 (length a), then leg 2 along x2 (length b), n elements each: a 90-degree kink."""
    first = np.column_stack([np.linspace(0.0, A_LEG, n + 1), np.zeros(n + 1), np.zeros(n + 1)])
    second = np.column_stack([np.full(n, A_LEG), np.linspace(0.0, B_LEG, n + 1)[1:], np.zeros(n)])
    return BeamBody(np.vstack([first, second]), SECTION, E, RHO, poisson=NU, **options)


def l_closed_form(P):
    """The tip deflection of the L clamped at leg 1's root under a load P along x3 at leg 2's tip (as for
    the two welded legs of ``test_spatial_beams.test_l_frame_bending_and_torsion``): leg 2 bends as a
    cantilever, P b^3/3EI; leg 1 bends under P, P a^3/3EI, and is twisted by the torque P b, which swings
    leg 2's tip by P b a/GJ times b; leg 1's tip rotation about x2 moves no point of leg 2. Both legs
    bend about their in-plane section axis: I = I_y."""
    EI, GJ = E * SECTION.iy, G * SECTION.j
    return P * A_LEG**3 / (3 * EI) + P * B_LEG**3 / (3 * EI) + P * B_LEG**2 * A_LEG / GJ


def test_section_frames_of_the_l_shape():
    """Leg 2's section frame is leg 1's turned by 90 degrees about x3: n = -x1, b = x3 (the depth h stays
    in the plane of the L, the width b normal to it, as for the welded legs)."""
    rot = l_shape(2).elements.rot
    np.testing.assert_allclose(rot[:2], np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-15)
    np.testing.assert_allclose(rot[2:], np.broadcast_to([[0, -1, 0], [1, 0, 0], [0, 0, 1]], (2, 3, 3)), atol=1e-15)


@pytest.mark.parametrize("n", [1, 3])
def test_l_shaped_centre_line_is_the_welded_l_frame(n):
    """One body, its centre line kinked by 90 degrees, clamped (fixed-free) at leg 1's root: under the
    out-of-plane tip load the FE body's tip deflection is the closed form that couples bending of one
    leg with torsion of the other, to 1e-9 (Hermite elements hold the cubic deflections, linear
    torsion elements the constant twist), at any number of elements per leg; the tip's in-plane
    displacements vanish."""
    P = 50.0
    body = l_shape(n)
    tip = body.nodal_displacements(static_deflection(body, {-1: (0.0, 0.0, P, 0.0, 0.0, 0.0)}))[-1]
    assert abs(tip[2] / l_closed_form(P) - 1) < 1e-9
    assert np.abs(tip[:2]).max() < 1e-12 * tip[2]


@pytest.mark.parametrize("stiffening", [False, True], ids=["linear", "stiffening"])
def test_l_shaped_body_in_a_model(stiffening):
    """The same L in a model (clamped by a fixed joint to the ground, the load a point force on the
    material point at the tip): the static equilibrium of the saddle-point system has the closed-form
    tip deflection to 1e-9. The structure is symmetric under z -> -z, so the deflection is odd in P
    and the linear theory holds to O(theta^2) (rotations of 1e-5); with stiffening neither leg
    carries an axial force to that order."""
    EI = E * SECTION.iy
    P = 1e-5 * EI / A_LEG**2
    body = l_shape(2)
    b = ModelBuilder(3)
    b.add_beam("l", body, stiffening=stiffening)
    b.add_joint("clamp", "fixed", "ground", "l")
    tip = [A_LEG, B_LEG, 0.0]
    b.add_point_force("l", tip, [0.0, 0.0, P], lambda t: 1.0)
    model = b.build()
    assert b.coordinate_count() == model.n
    q, _ = place(model, {}, {})
    model, q = static_equilibrium(model, q)
    deflection = body.shape_at([tip])[0, 2] @ model.flexible[0].elastic_coordinates(q)
    assert abs(deflection / l_closed_form(P) - 1) < 1e-9


def quarter_circle(n, radius):
    """A quarter circle of radius R in the x1-x2 plane from the origin, its centre at (0, R, 0), cut
    into n straight elements (its nodes on the arc)."""
    phi = np.linspace(0.0, np.pi / 2, n + 1)
    return BeamBody(np.column_stack([radius * np.sin(phi), radius * (1 - np.cos(phi)), np.zeros(n + 1)]),
                    SECTION, E, RHO, poisson=NU)


def test_quarter_circle_converges_to_the_curved_cantilever():
    """A quarter circle of radius R clamped at one end, a load P normal to its plane at the other.
    Castigliano: at the section of angle theta from the clamp (tangent t = (cos theta, sin theta),
    the tip at R (1, 1) - R (sin theta, 1 - cos theta) from it) the load's moment has the bending part
    P R cos theta about the in-plane normal and the torque P R (1 - sin theta) about t, so

        delta = dU/dP = P R^3 [int_0^{pi/2} cos^2 / EI + int_0^{pi/2} (1 - sin)^2 / GJ] d theta
              = P R^3 [pi / (4 EI) + (3 pi/4 - 2) / (GJ)],

    EI = E I_y (bending out of the plane). Straight elements with their nodes on the arc are shorter
    than it (a chord of angle h/R falls short by R (h/R)^3/24), so the polyline is too stiff by O(h^2):
    -4.4e-3, -1.1e-3, -2.8e-4, -7.0e-5 at 8 .. 64 elements, observed order 2 (to 0.1) under halving."""
    P, radius = 10.0, 0.5
    exact = P * radius**3 * (np.pi / (4 * E * SECTION.iy) + (3 * np.pi / 4 - 2) / (G * SECTION.j))
    errors = []
    for n in (8, 16, 32, 64):
        body = quarter_circle(n, radius)
        tip = body.nodal_displacements(static_deflection(body, {-1: (0.0, 0.0, P, 0.0, 0.0, 0.0)}))[-1]
        errors.append(tip[2] / exact - 1)
    orders = observed_orders(np.abs(errors))
    assert np.all(np.array(errors) < 0) and np.all(np.abs(orders - 2) < 0.1), (errors, orders)
    assert abs(errors[-1]) < 1e-4


def test_free_l_shaped_body_conserves_energy_and_momenta():
    """The L as a free body spinning about an axis that is not principal and vibrating (every elastic
    rate non-zero): carriers, constant mass and quadratic energy -- H, p and L constant to 1e-11."""
    model, setup = free_spatial_body(l_shape(2), stiffening=True, rate=0.02)
    r = simulate(setup, SolverSettings(2e-3, 0.1, **TIGHT))
    assert r.complete, r.message
    assert np.abs(model.flexible[0].elastic_coordinates(r.q)).max() > 1e-5
    assert_conserved(model, r)
