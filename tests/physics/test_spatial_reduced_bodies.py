"""Rayleigh-Ritz and modal beam bodies in space (``femdyn.beam.spatial_ffr``: three carriers per
elastic coordinate): static tip loads on a clamped cantilever against beam theory and against the modal
truncation of the same FE mesh computed here, conservation of energy and momenta by a free body, the
rigid limit and the refusal of singular reference conditions."""
import numpy as np
import pytest
import scipy.linalg
from scipy.optimize import brentq
from shared import TIGHT, assert_conserved, free_spatial_body, static_equilibrium

from femdyn.beam.body import BeamBody, ModesError, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

E, NU, RHO, L = 2.1e11, 0.3, 7850.0, 1.0
G = E / (2 * (1 + NU))
SECTION = Section.rectangle(0.01, 0.02)  # b = 10 mm along d_3, h = 20 mm along d_2: I_z = 4 I_y
TIP = np.array([[L, 0.0, 0.0]])


def fem(n, **options):
    return BeamBody.straight(L, n, SECTION, E, RHO, dim=3, poisson=NU, **options)


def ritz(**options):
    return BeamBody.rayleigh_ritz([[0.0, 0.0, 0.0], [L, 0.0, 0.0]], SECTION, E, RHO, poisson=NU, **options)


def tip_deflection(body, force=None, torque=None, stiffening=False):
    """The clamped body (fixed joint to the ground at its first node) under a tip force (world
    components) or a torque about its axis on the tip section: the static tip displacement (3,) and the
    tip section's twist, from the model's saddle-point equilibrium (read from the elastic coordinates:
    the clamped body frame is the world frame, and the small axial displacement would drown in the
    round-off of the tip's position)."""
    b = ModelBuilder(3)
    b.add_beam("beam", body, stiffening=stiffening)
    b.add_joint("clamp", "fixed", "ground", "beam")
    if force is not None:
        b.add_point_force("beam", TIP[0], force, lambda t: 1.0)
    model = b.build()
    q, _ = place(model, {}, {})
    loads = np.zeros(model.n)
    f = model.flexible[0]
    if torque is not None:  # the work of a torque T on the tip section's twist psi(L) = S_psi(L) q
        loads[f.elastic] = torque * body.shape_at(TIP)[0, 3]
    model, q = static_equilibrium(model, q, loads=loads)
    tip = body.shape_at(TIP)[0] @ f.elastic_coordinates(q)
    return tip[:3], tip[3]


@pytest.mark.parametrize("stiffening", [False, True], ids=["linear", "stiffening"])
def test_rayleigh_ritz_cantilever_is_exact(stiffening):
    """The Rayleigh-Ritz body (one spatial element, 003 eq. 51 in both bending planes: the cubic
    Hermite shapes contain the exact deflection of a tip load) gives P L^3/3EI_z along d_2,
    P L^3/3EI_y along d_3, P L/EA along d_1 and the twist T L/GJ, each to 1e-9. With stiffening the
    transverse loads carry no axial force: the averaged strain u' + (1/L) int v'^2/2 dx stays zero (no
    locking), so the bending is the linear one and the tip moves back along the axis by
    int_0^L v'^2/2 dx = (3/5) delta^2/L for the cubic deflection v = P (3 L x^2 - x^3)/6EI of tip
    deflection delta."""
    P, T = 50.0, 3.0
    body = ritz()
    assert body.n_coordinates == 6  # u_x, v, w, psi, theta_y, theta_z at the tip
    cases = [(1, P, P * L**3 / (3 * E * SECTION.iz)), (2, P, P * L**3 / (3 * E * SECTION.iy)),
             (0, 1e-3, 1e-3 * L / (E * SECTION.area))]
    for axis, force, expected in cases:
        u, twist = tip_deflection(body, force * np.eye(3)[axis], stiffening=stiffening)
        assert abs(u[axis] / expected - 1) < 1e-9, (axis, u, expected)
        along = expected if axis == 0 else (-0.6 * expected**2 / L if stiffening else 0.0)
        assert abs(u[0] - along) < 1e-9 * (abs(along) if along else abs(expected)), (u[0], along)
        assert np.abs(np.delete(u, [0, axis])).max() < 1e-9 * abs(expected)
    u, twist = tip_deflection(body, torque=T, stiffening=stiffening)
    assert abs(twist / (T * L / (G * SECTION.j)) - 1) < 1e-9
    assert np.abs(u).max() < 1e-12 * L


def modal_truncation(n, modes, axis):
    """The tip deflection along ``axis`` under a unit tip load of the FE cantilever of n elements kept
    to its ``modes`` lowest modes, computed here from the nodal matrices: with mass-normalised modes
    Phi (Phi^T K Phi = Omega^2), u_tip = sum_k phi_k(tip)^2 / omega_k^2 (LAPACK's dense solver)."""
    body = fem(n)
    omega2, shapes = scipy.linalg.eigh(body.stiffness.toarray(), body.mass.toarray())
    tip = body.shape_at(TIP)[0, axis] @ shapes[:, :modes]
    return float(np.sum(tip**2 / omega2[:modes]))


@pytest.mark.parametrize("axis, inertia", [(1, SECTION.iz), (2, SECTION.iy)], ids=["d2", "d3"])
def test_modal_cantilever_gives_the_modal_static_deflection(axis, inertia):
    """A clamped cantilever of 4 elements kept to its m lowest modes: the tip deflection under a tip load
    in each principal bending direction is the modal truncation of the same mesh (computed apart) to
    1e-9 for m = 1, 2, 3, 6 (m = 1 keeps only the first bending mode along d_3, I_y < I_z: a load along
    d_2 leaves it unmoved); with all 24 modes it is the full FE result P L^3/3EI (exact for Hermite
    elements) to 1e-9. On a finer mesh (32 elements) the first bending mode of each plane alone gives
    the continuous beam's share 4 P L^3/((beta_1 L)^4 EI) (cos(bL) cosh(bL) = -1, beta_1 L = 1.8751;
    the shares sum to 1/3 over all modes) to the mesh's accuracy."""
    P = 50.0
    full = P * L**3 / (3 * E * inertia)
    for modes in (1, 2, 3, 6):
        u, _ = tip_deflection(fem(4, modes=modes), P * np.eye(3)[axis])
        expected = P * modal_truncation(4, modes, axis)
        if modes == 1 and axis == 1:
            assert abs(u[axis]) < 1e-12 * full and abs(expected) < 1e-12 * full
        else:
            assert expected > 0.9 * full and abs(u[axis] / expected - 1) < 1e-9, (modes, u[axis], expected)
    u, _ = tip_deflection(fem(4, modes=24), P * np.eye(3)[axis])
    assert abs(u[axis] / full - 1) < 1e-9
    beta = brentq(lambda b: np.cos(b) * np.cosh(b) + 1, 1.5, 2.5)
    # the lowest mode is bending along d_3 (I_y < I_z); along d_2 the first bending mode is the second
    first = 2 if axis == 1 else 1
    u, _ = tip_deflection(fem(32, modes=first), P * np.eye(3)[axis])
    continuous = 4 * P * L**3 / (beta**4 * E * inertia)
    assert u[axis] / continuous - 1 == pytest.approx(0.0, abs=1e-6)
    assert abs(continuous / full - 0.9707) < 1e-4


@pytest.mark.parametrize("kind", ["modal", "rayleigh-ritz", "rayleigh-ritz stiffening"])
def test_free_reduced_body_conserves_energy_and_momenta(kind):
    """Constant mass matrix, quadratic elastic energy and bilinear rotation-invariant carrier rows: the
    energy-momentum scheme conserves H, p and L to 1e-11 relative for a body spinning about a
    non-principal axis while it vibrates."""
    body = fem(6, modes=5) if kind == "modal" else ritz()
    model, setup = free_spatial_body(body, stiffening=kind.endswith("stiffening"))
    r = simulate(setup, SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    assert np.abs(model.flexible[0].elastic_coordinates(r.q)).max() > 1e-4  # it really vibrates
    assert_conserved(model, r)


def test_modal_frequencies_of_the_embedded_body():
    """With the frame clamped, the embedded body's free vibration is that of its modes: its mass
    matrix restricted to the motions q_j d_a of the carriers plus the twists' mass is Phi^T M Phi = I,
    so a body started in one mode with the rate omega_k keeps the period 2 pi/omega_k."""
    body = fem(8, modes=3)
    b = ModelBuilder(3)
    b.add_beam("beam", body, stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "beam")
    model = b.build()
    q, v = place(model, {}, {})
    k = 2  # the first mode with torsion or the second bending family, whichever comes third
    omega = body.modal_frequencies[k]
    rate = np.zeros(3)
    rate[k] = 1e-3 * omega
    q, v = model.flexible[0].with_elastic(q, v, np.zeros(3), rate)
    period = 2 * np.pi / omega
    r = simulate(prepare(model, q, v), SolverSettings(period / 400, period, **TIGHT))
    assert r.complete, r.message
    elastic = model.flexible[0].elastic_coordinates(r.q)
    # the mid-point rule's phase error over one period is (omega dt)^2 / 12 of a turn: q_k(T) nearly 0
    assert abs(elastic[-1, k]) < 1e-3 * np.abs(elastic[:, k]).max()
    assert np.abs(np.delete(elastic, k, axis=1)).max() < 1e-10 * np.abs(elastic[:, k]).max()


def test_rigid_limit_of_a_reduced_body():
    """modes = 0 leaves no elastic coordinate: the body is the spatial director body with the beam's
    mass and second moments (the heavy top of ``test_spatial_beams`` covers its motion); a body of
    very stiff material moves as the rigid one: its tip under gravity in a fixed-free clamp sags by
    the Hermite value w L^4/8EI, which vanishes like 1/E."""
    rigid = fem(4, modes=0)
    assert rigid.n_coordinates == 0
    b = ModelBuilder(3)
    b.add_beam("beam", rigid, stiffening=False)
    model = b.build()
    assert model.n == 12 and model.m == 6  # [phi, d_a] and the orthonormality rows
    for young in (E, 1e3 * E):
        body = BeamBody.rayleigh_ritz([[0.0, 0.0, 0.0], [L, 0.0, 0.0]], SECTION, young, RHO, poisson=NU)
        b = ModelBuilder(3)
        b.add_beam("beam", body, stiffening=False)
        b.add_joint("clamp", "fixed", "ground", "beam")
        b.set_gravity([0.0, 0.0, -9.81])
        model = b.build()
        q, _ = place(model, {}, {})
        model, q = static_equilibrium(model, q)
        sag = body.shape_at(TIP)[0, 2] @ model.flexible[0].elastic_coordinates(q)
        expected = -RHO * SECTION.area * 9.81 * L**4 / (8 * young * SECTION.iy)
        assert abs(sag / expected - 1) < 1e-9


@pytest.mark.parametrize("reference, motion", [
    ("free-free", "6 independent rigid motions"),
    ("pinned-free", "2 independent rigid motions"),  # the rotations about x2 and x3 through the pin
    ("rolled-rolled", "2 independent rigid motions"),  # the translation along and the rotation about x1
])
@pytest.mark.parametrize("discretisation", ["rayleigh-ritz", "modal"])
def test_singular_reference_conditions_are_refused(reference, motion, discretisation):
    """The same refusal as for nodal spatial bodies (and as in the plane): reference conditions that
    leave a rigid motion to the elastic coordinates make the reduced body singular."""
    with pytest.raises(ValueError, match=motion + ".*singular"):
        if discretisation == "modal":
            fem(4, reference=reference, modes=3)
        else:
            ritz(reference=reference)


def test_too_many_modes_are_refused():
    with pytest.raises(ModesError, match="between 0 and 24"):
        fem(4, modes=25)
