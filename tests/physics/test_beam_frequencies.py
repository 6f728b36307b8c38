"""Beam dynamics against the continuous beam: the natural frequencies of cantilever and pinned-pinned
beams converging at order 4, and modal reduction approaching the static deflection."""
import numpy as np
from scipy.optimize import brentq

from femdyn.beam import BeamBody, Section, natural_frequencies, static_deflection

E, RHO, LENGTH = 70e9, 2700.0, 0.5
SECTION = Section.rectangle(0.15, 0.05)
EI = E * SECTION.inertia
SCALE = np.sqrt(EI / (RHO * SECTION.area * LENGTH**4))  # omega = (beta L)^2 * SCALE


def bending_frequencies(body, count):
    """The ``count`` lowest bending frequencies / SCALE: modes of a straight beam along x1 are either
    purely axial or purely transverse; keep the transverse ones."""
    modes = natural_frequencies(body, 2 * count)
    axial = np.abs(modes.nodal[:, :, 0]).max(axis=1)
    transverse = np.abs(modes.nodal[:, :, 1]).max(axis=1)
    return modes.omega[axial < 1e-6 * transverse][:count] / SCALE


def test_cantilever_frequencies_converge_with_order_4():
    """Fixed-free: omega_i = (beta_i L)^2 sqrt(EI/(rho A L^4)) with cos(bL) cosh(bL) = -1, i.e.
    beta L = 1.8751, 4.6941, 7.8548; cubic Hermite elements with consistent mass converge at order
    2(p + 1 - m) = 4 in the element size."""
    roots = np.array([brentq(lambda b: np.cos(b) * np.cosh(b) + 1, a, a + 1) for a in (1.5, 4.4, 7.5)])
    assert np.allclose(roots, [1.8751, 4.6941, 7.8548], atol=5e-5)
    errors = np.array([bending_frequencies(BeamBody.straight(LENGTH, n, SECTION, E, RHO), 3) / roots**2 - 1
                       for n in (4, 8, 16)])
    assert np.all(errors > 0)  # Rayleigh-Ritz: discrete frequencies bound the exact ones from above
    order = np.log2(errors[-2] / errors[-1])
    assert np.all(np.abs(order - 4) < 0.15), order
    assert np.all(errors[-1] < [1e-6, 1e-5, 1e-4])


def test_pinned_pinned_frequencies():
    """Pinned-pinned: omega_n = (n pi)^2 sqrt(EI/(rho A L^4)), order 4."""
    exact = (np.arange(1, 4) * np.pi) ** 2
    errors = np.array([
        bending_frequencies(BeamBody.straight(LENGTH, n, SECTION, E, RHO, reference="pinned-pinned"), 3)
        / exact - 1 for n in (4, 8, 16)])
    order = np.log2(errors[-2] / errors[-1])
    assert np.all(np.abs(order - 4) < 0.15), order
    assert np.all(errors[-1] < 1e-4) and np.all(errors > 0)


def test_modal_reduction():
    """q = B2 Phi eta with the k lowest modes: unit modal mass, diagonal stiffness omega^2, and the
    tip deflection under a tip load grows monotonically towards P L^3/3EI as modes are added (a
    Ritz basis is too stiff), reaching it with all modes."""
    full = BeamBody.straight(LENGTH, 6, SECTION, E, RHO)
    reduced = BeamBody.straight(LENGTH, 6, SECTION, E, RHO, modes=4)
    assert reduced.n_coordinates == 4
    assert np.allclose(reduced.mass.toarray(), np.eye(4), atol=1e-12)
    assert np.allclose(reduced.stiffness.toarray(), np.diag(reduced.modal_frequencies**2), rtol=1e-10,
                       atol=1e-6 * reduced.modal_frequencies[-1] ** 2)
    assert np.allclose(reduced.modal_frequencies, natural_frequencies(full, 4).omega, rtol=1e-12)
    exact = LENGTH**3 / (3 * EI)
    tips = [BeamBody.straight(LENGTH, 6, SECTION, E, RHO, modes=k) for k in (1, 2, 4, 8, 18)]
    tips = [b.nodal_displacements(static_deflection(b, {-1: (0.0, 1.0, 0.0)}))[-1, 1] for b in tips]
    assert np.all(np.diff(tips) >= -1e-15 * exact) and tips[0] > 0.95 * exact
    assert abs(tips[-1] / exact - 1) < 1e-9
