"""The spatial beam body in its own frame (``femdyn.beam.spatial``, ``BeamBody`` in 3D): natural
frequencies of a cantilever against the closed forms with their observed orders, static tip loads,
the rectangle's torsion constant and the reference conditions that must be refused."""
import numpy as np
import pytest
from scipy.optimize import brentq

from femdyn.beam import (
    BeamBody,
    Section,
    natural_frequencies,
    section_forces,
    static_deflection,
)
from femdyn.beam.body import torsion_constant
from femdyn.beam.reference import check_reference

E, NU, RHO, LENGTH = 70e9, 0.3, 2700.0, 0.5
G = E / (2 * (1 + NU))
SECTION = Section.rectangle(0.02, 0.05)  # b along x3, h along x2: I_z = b h^3/12 > I_y = h b^3/12
IP = SECTION.iy + SECTION.iz


def cantilever(n, axial="cubic"):
    return BeamBody.straight(LENGTH, n, SECTION, E, RHO, dim=3, axial=axial, poisson=NU)


def families(body, count=3):
    """The ``count`` lowest frequencies of each family of a straight cantilever's modes -- axial
    (ux), bending along x2 (uy), along x3 (uz), torsion (psi) -- told apart by the nodal component
    that dominates the mode (the families do not couple)."""
    modes = natural_frequencies(body, min(body.n_coordinates, 12 * count))
    moving = np.abs(modes.nodal[:, :, :4])  # ux, uy, uz, psi
    dominant = np.argmax(moving.max(axis=1), axis=1)
    return {name: modes.omega[dominant == k][:count] for k, name in enumerate(("ux", "uy", "uz", "psi"))}


def test_cantilever_frequencies_converge_to_the_closed_forms():
    """Bending: omega = (beta L)^2 sqrt(EI/(rho A L^4)), cos(bL) cosh(bL) = -1 (beta L = 1.8751, 4.6941,
    7.8548), I_z for the modes along x2 and I_y for those along x3, both at order 4 (cubic Hermite
    elements, consistent mass), from above. Torsion: omega_k = (2k - 1) pi/2 sqrt(GJ/(rho I_p))/L
    (linear elements: order 2); axial: (2k - 1) pi/2 sqrt(E/rho)/L (the cubic axial shape with the
    averaged strain's stiffness EA/l: order 2, like the linear one)."""
    roots = np.array([brentq(lambda b: np.cos(b) * np.cosh(b) + 1, a, a + 1) for a in (1.5, 4.4, 7.5)])
    odd = (2 * np.arange(1, 4) - 1) * np.pi / 2 / LENGTH
    exact = {"uy": roots**2 * np.sqrt(E * SECTION.iz / (RHO * SECTION.area * LENGTH**4)),
             "uz": roots**2 * np.sqrt(E * SECTION.iy / (RHO * SECTION.area * LENGTH**4)),
             "psi": odd * np.sqrt(G * SECTION.j / (RHO * IP)), "ux": odd * np.sqrt(E / RHO)}
    meshes = (4, 8, 16)
    errors = {name: [] for name in exact}
    for n in meshes:
        found = families(cantilever(n))
        for name, omega in exact.items():
            errors[name].append(found[name] / omega - 1)
    for name, order in (("uy", 4), ("uz", 4), ("psi", 2), ("ux", 2)):
        e = np.array(errors[name])
        assert np.all(e > 0), name  # Rayleigh-Ritz: the discrete frequencies bound the exact ones from above
        observed = np.log2(e[-2] / e[-1])
        assert np.all(np.abs(observed - order) < 0.15), (name, observed)


@pytest.mark.parametrize("axial", ["cubic", "linear"])
@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_cantilever_tip_loads(n, axial):
    """Fixed-free, a load at the tip in each direction: P L/EA along the axis, P L^3/3EI_z along x2,
    P L^3/3EI_y along x3, T L/GJ for a torque about the axis; nothing else moves but the slope of the
    bent plane (P L^2/2EI)."""
    body, p = cantilever(n, axial), 3.0
    cases = [(0, p * LENGTH / (E * SECTION.area), {}),
             (1, p * LENGTH**3 / (3 * E * SECTION.iz), {5: p * LENGTH**2 / (2 * E * SECTION.iz)}),
             (2, p * LENGTH**3 / (3 * E * SECTION.iy), {4: -p * LENGTH**2 / (2 * E * SECTION.iy)}),
             (3, p * LENGTH / (G * SECTION.j), {})]
    for component, value, slopes in cases:
        load = np.zeros(6)
        load[component] = p
        tip = body.nodal_displacements(static_deflection(body, {-1: load}))[-1]
        expected = np.zeros(6)
        expected[component] = value
        for k, slope in slopes.items():
            expected[k] = slope
        assert np.max(np.abs(tip - expected)) < 1e-9 * abs(value), (component, tip, expected)


def test_torsion_constant_of_rectangles():
    """The series of St-Venant's rectangle: a square has J = 0.140577 a^4 (to the 6 digits tabulated
    by Timoshenko & Goodier), a thin strip tends to a c^3/3 (1 - 0.630 c/a), and J is symmetric in b
    and h."""
    assert abs(torsion_constant(1.0, 1.0) / 0.140577 - 1) < 5e-6
    a, c = 1.0, 0.01
    assert abs(torsion_constant(a, c) / (a * c**3 / 3 * (1 - 0.630249 * c / a)) - 1) < 1e-6
    assert torsion_constant(0.02, 0.05) == torsion_constant(0.05, 0.02)


@pytest.mark.parametrize("reference, motion", [
    ("free-free", "6 independent rigid motions"),
    ("pinned-free", "2 independent rigid motions"),  # the rotations about x2 and x3 through the pin
    ("rolled-rolled", "2 independent rigid motions"),  # the translation along and the rotation about x1
])
def test_singular_reference_conditions_are_refused(reference, motion):
    with pytest.raises(ValueError, match=motion + ".*singular"):
        BeamBody.straight(LENGTH, 4, SECTION, E, RHO, dim=3, reference=reference, poisson=NU)


@pytest.mark.parametrize("kept, motion", [
    (3, r"rotation about the axis \(1, 0, 0\) through \(0, 0, 0\)"),
    (0, r"translation along \(1, 0, 0\)"),
    (5, r"rotation about the axis \(0, 0, 1\) through \(0.25, 0, 0\)"),
])
def test_the_one_rigid_motion_left_is_named(kept, motion):
    """All coordinates of the first node but one suppressed (and, for the rotation about x3, the
    twist of the middle node): the motion left is named by its axis and a point on it."""
    nodes = np.column_stack([np.linspace(0, 0.5, 3), np.zeros(3), np.zeros(3)])
    suppressed = np.setdiff1d(np.arange(6), [kept])
    if kept == 5:  # node 0 keeps theta_z, node 1 (x = 0.25) holds its displacement along x2
        suppressed = np.array([0, 2, 3, 4, 7])
    with pytest.raises(ValueError, match=motion):
        check_reference(nodes, suppressed, "custom")


@pytest.mark.parametrize("reference", ["fixed-free", "fixed-pinned", "pinned-pinned", "fixed-rolled",
                                       "pinned-rolled"])
def test_regular_reference_conditions_give_a_stiff_body(reference):
    """Pinned ends hold the twist (a fork support), so pinned-pinned and pinned-rolled stop the
    rotation about the axis too: every accepted condition leaves a positive definite stiffness."""
    body = BeamBody.straight(LENGTH, 4, SECTION, E, RHO, dim=3, reference=reference, poisson=NU)
    eigenvalues = np.linalg.eigvalsh(body.stiffness.toarray())
    assert eigenvalues.min() > 1e-9 * eigenvalues.max(), (reference, eigenvalues.min() / eigenvalues.max())


def test_spatial_input_is_checked():
    with pytest.raises(ValueError, match="shear modulus"):
        BeamBody.straight(LENGTH, 4, SECTION, E, RHO, dim=3)
    with pytest.raises(ValueError, match="iy"):
        BeamBody.straight(LENGTH, 4, Section(1e-3, 1e-8), E, RHO, dim=3, poisson=NU)


def test_section_forces_of_a_cantilever_under_a_skew_tip_load_and_torque():
    """Tip force (P, Py, Pz) and torque T on the cantilever: N = P, torque T, M_z = Py (L - x),
    M_y = -Pz (L - x), shears Py and Pz all along; the largest stress |N|/A + |M_z| c_y/I_z +
    |M_y| c_z/I_y (Hermite elements reproduce the cubic deflections, so the recovery is exact)."""
    p, py, pz, torque = 5.0, 2.0, -3.0, 0.7
    body = cantilever(3)
    xi = np.array([0.0, 0.3, 1.0])
    forces = section_forces(body, static_deflection(body, {-1: (p, py, pz, torque, 0.0, 0.0)}), xi)
    arm = LENGTH - forces.s
    for value, expected in ((forces.axial, p + 0 * arm), (forces.torque, torque + 0 * arm),
                            (forces.moment_z, py * arm), (forces.moment_y, -pz * arm),
                            (forces.shear_y, py + 0 * arm), (forces.shear_z, pz + 0 * arm)):
        np.testing.assert_allclose(value, expected, rtol=0, atol=1e-9 * abs(p * LENGTH))
    sigma = (p / SECTION.area + np.abs(py * arm) * SECTION.fibre / SECTION.iz
             + np.abs(pz * arm) * SECTION.fibre_z / SECTION.iy)
    np.testing.assert_allclose(forces.sigma_max, sigma, rtol=1e-9)
