"""Static beam physics against the closed forms of beam theory: cantilever deflections, frames,
supports, section forces, self weight and buckling by the geometric stiffness."""
import numpy as np
import pytest
import scipy.linalg

from femdyn.beam import BeamBody, Section, section_forces, static_deflection

E, RHO, LENGTH = 70e9, 2700.0, 0.5
SECTION = Section.rectangle(0.15, 0.05)  # b x h of 003 section 8.1
EI, EA = E * SECTION.inertia, E * SECTION.area


def relative(a, b):
    return np.max(np.abs(np.asarray(a) - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("n", [1, 3, 8])
def test_cantilever_tip_load(n):
    """Fixed-free beam, transverse tip load P: tip deflection P L^3/3EI and slope P L^2/2EI; an
    axial tip load gives P L/EA (Hermite elements reproduce the cubic exactly, so to round-off)."""
    p = 2.0
    body = BeamBody.straight(LENGTH, n, SECTION, E, RHO)
    tip = body.nodal_displacements(static_deflection(body, {-1: (0.0, p, 0.0)}))[-1]
    assert relative(tip[1], p * LENGTH**3 / (3 * EI)) < 1e-9
    assert relative(tip[2], p * LENGTH**2 / (2 * EI)) < 1e-9
    assert abs(tip[0]) < 1e-12 * tip[1]
    tip = body.nodal_displacements(static_deflection(body, {-1: (p, 0.0, 0.0)}))[-1]
    assert relative(tip[0], p * LENGTH / EA) < 1e-9
    assert np.max(np.abs(tip[1:])) < 1e-12 * tip[0]


def test_cantilever_at_an_angle():
    """The same cantilever laid at 30 degrees in its body frame (element rotations 003 eqs. 112-114):
    a load normal to it deflects the tip by P L^3/3EI along that normal."""
    t, normal, p = np.array([np.cos(np.pi / 6), np.sin(np.pi / 6)]), np.array([-0.5, np.sqrt(3) / 2]), 3.0
    body = BeamBody(np.linspace(0, LENGTH, 6)[:, None] * t, SECTION, E, RHO)
    tip = body.nodal_displacements(static_deflection(body, {-1: (*(p * normal), 0.0)}))[-1]
    assert relative(tip[:2], p * LENGTH**3 / (3 * EI) * normal) < 1e-9
    assert relative(tip[2], p * LENGTH**2 / (2 * EI)) < 1e-9


def test_l_shaped_frame():
    """Polyline body: arm a along x1 (fixed at the origin), arm b along x2, load P along x2 at the
    free end. Arm a bends, arm b is stretched: u_y = P a^3/3EI + P b/EA, and the corner rotation
    P a^2/2EI swings the tip by u_x = -P a^2 b/2EI."""
    a, b, p = 0.4, 0.3, 5.0
    nodes = np.vstack([np.column_stack([np.linspace(0, a, 5), np.zeros(5)]),
                       np.column_stack([np.full(3, a), np.linspace(0, b, 4)[1:]])])
    body = BeamBody(nodes, SECTION, E, RHO)
    tip = body.nodal_displacements(static_deflection(body, {-1: (0.0, p, 0.0)}))[-1]
    assert relative(tip[1], p * a**3 / (3 * EI) + p * b / EA) < 1e-9
    assert relative(tip[0], -p * a**2 * b / (2 * EI)) < 1e-9


def test_simply_supported_mid_span_load():
    """Pinned-rolled (simply supported) beam, load P at mid-span: deflection P L^3/48EI there."""
    p, body = 4.0, BeamBody.straight(LENGTH, 6, SECTION, E, RHO, reference="pinned-rolled")
    middle = body.nodal_displacements(static_deflection(body, {3: (0.0, -p, 0.0)}))[3]
    assert relative(middle[1], -p * LENGTH**3 / (48 * EI)) < 1e-9
    assert abs(middle[2]) < 1e-12 * p * LENGTH**2 / EI


@pytest.mark.parametrize("n", [1, 5])
def test_section_forces_of_cantilever(n):
    """Recovered from the element solution: under a tip load P the bending moment is P (L - x), the
    shear force P and the axial force 0; under an axial tip load the axial force is P; the
    outer-fibre stresses are N/A -+ M c/I."""
    p, xi = 7.0, np.array([0.0, 0.3, 0.5, 1.0])
    body = BeamBody.straight(LENGTH, n, SECTION, E, RHO)
    forces = section_forces(body, static_deflection(body, {-1: (0.0, p, 0.0)}), xi)
    assert relative(forces.moment, p * (LENGTH - forces.s)) < 1e-9
    assert relative(forces.shear, np.full_like(forces.s, p)) < 1e-9
    assert np.max(np.abs(forces.axial)) < 1e-9 * p
    bending = p * (LENGTH - forces.s) * SECTION.fibre / SECTION.inertia
    assert relative(forces.sigma_top, -bending) < 1e-9 and relative(forces.sigma_bottom, bending) < 1e-9
    assert relative(forces.sigma_max, bending) < 1e-9
    forces = section_forces(body, static_deflection(body, {-1: (p, 0.0, 0.0)}), xi)
    assert relative(forces.axial, np.full_like(forces.s, p)) < 1e-9
    assert relative(forces.sigma_max, np.full_like(forces.s, p / SECTION.area)) < 1e-9


def test_self_weight_cantilever():
    """A body force per unit mass g (003 eq. 33, consistent form Sbar^T g, 003 eq. 19) on a
    cantilever: tip deflection w L^4/8EI with w = rho A g (exact at the nodes of Hermite elements)."""
    g = -9.81
    for n in (1, 4):
        body = BeamBody.straight(LENGTH, n, SECTION, E, RHO)
        tip = body.nodal_displacements(static_deflection(body, body_force=(0.0, g)))[-1]
        assert relative(tip[1], RHO * SECTION.area * g * LENGTH**4 / (8 * EI)) < 1e-9


@pytest.mark.parametrize("reference, factor", [("fixed-free", 0.25), ("pinned-rolled", 1.0)])
def test_euler_buckling_from_geometric_stiffness(reference, factor):
    """The geometric stiffness (axial-transverse coupling) for a compressive force N: the smallest
    lambda with det(K + lambda K_G(N = -1)) = 0 converges to Euler's load pi^2 EI/L^2 times 1/4
    (cantilever) or 1 (simply supported), with observed order 4 under h-refinement."""
    exact = factor * np.pi**2 * EI / LENGTH**2
    errors = []
    for n in (4, 8, 16):
        body = BeamBody.straight(LENGTH, n, SECTION, E, RHO, reference=reference)
        geometric = -body.geometric_stiffness(np.full(n, -1.0)).toarray()
        mu = scipy.linalg.eigh(geometric, body.stiffness.toarray(), eigvals_only=True).max()
        errors.append(1 / mu / exact - 1)
    order = np.log2(errors[-2] / errors[-1])
    assert 3.8 < order < 4.2 and 0 < errors[-1] < 1e-5
