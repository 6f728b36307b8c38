"""The rotating cantilever from the modes about its steady motion (``femdyn modes --moving``,
``integrators.motion``): the first flap and lag frequencies of a uniform Euler-Bernoulli beam clamped to
a hub that a servo turns at constant speed, at the non-dimensional speeds gamma = Omega
sqrt(rho A L^4 / (E I)) = 0, 2, .., 10, against the rotating-beam frequencies of Wright et al. (1982),
converging at the element's order under refinement.

The model is test_rotating_beam.py's (``shared.rotating_blade``): a spatial world-vector beam with EI = 1,
rho A = 1 (frequency unit 1 rad/s, so gamma = Omega), square section of side 1e-3 L (flap and lag bend
with the same EI), geometric stiffening on, on a revolute joint about z whose angle a coordinate servo
holds at Omega t. Here nothing is integrated in time: the steady motion at t = 0 (the beam turning at
Omega, stretched by its centrifugal load: ``motion.steady_motion``) is found by Newton, and the modes
about it are the eigenvalues of the linearisation in the frame turning with the beam, whose gyroscopic
(Coriolis) and centrifugal terms come from the constraints' Jacobian carried along the motion.

References: the published first flap frequencies at gamma = 0, 2, 4, 6 (Wright et al. 1982, Table 1;
docs/references.md), and at every gamma a Rayleigh-Ritz solution of the inextensible rotating-beam
equation computed here, EI w'''' - (T w')' = rho A w^2 w with T = rho A Omega^2 (L^2 - x^2) / 2,
w = sum_k c_k x^(k+1), k = 1..10 (exact integrals of monomials), which reproduces the published values
to their last digit (``test_reference_is_the_table``). The lag equation has rho A (w_tt - Omega^2 w) in
place of rho A w_tt, so w_lag^2 = w_flap^2 - Omega^2 with the same shapes (Hodges & Dowell 1974 with no
hub radius); the Coriolis coupling of lag and axial motion that this leaves out is of the order
(Omega / w_axial)^2 ~ 1e-6 for this slenderness.

Mesh convergence: at gamma = 0 the Hermite element converges at order 4; with rotation the axial force
is constant along each element (the element-averaged strain of ``beam.elasticity``), a piecewise
constant tension, and the frequencies converge at order 2 from above. Measured at 4 / 8 elements:
gamma = 10: lag 1.93e-2 / 5.05e-3, flap 3.96e-3 / 1.03e-3 (orders 1.94), the order-2 Richardson values
within 2.9e-4 (lag) and 5.3e-5 (flap) of the reference; gamma = 2: orders 2.01, Richardson within
1e-5; gamma = 0: 3.3e-5 / 2.1e-6 (order 3.97). Damping ratios at most 3e-11. About 9 s of CPU.
"""
import numpy as np
import pytest
import scipy.linalg

from femdyn.integrators.campbell import motion_modes
from femdyn.integrators.motion import steady_motion
from femdyn.integrators.setup import prepare
from femdyn.model.initial import place
from shared import rotating_blade

SPEEDS = (0, 2, 4, 6, 8, 10)
MESHES = (4, 8)
TABLE = {0: 3.5160, 2: 4.1373, 4: 5.5850, 6: 7.3604}  # Wright et al. 1982, Table 1 (first flap mode)


def rotating_beam(speed, terms=10, lag=False):
    """The lowest frequencies / sqrt(EI / (rho A L^4)) of the inextensible rotating cantilever by
    Rayleigh-Ritz on w = sum_k c_k xi^(k+1), k = 1..terms (module docstring): stiffness
    int w'' v'' + T w' v' (- gamma^2 w v for lag), mass int w v, T = gamma^2 (1 - xi^2) / 2."""
    p = np.arange(2, terms + 2, dtype=float)
    a, b = p[:, None], p[None, :]
    mass = 1.0 / (a + b + 1.0)
    stiffness = a * (a - 1) * b * (b - 1) / (a + b - 3.0) + speed**2 / 2 * a * b * (1 / (a + b - 1) - 1 / (a + b + 1))
    if lag:
        stiffness = stiffness - speed**2 * mass
    return np.sqrt(scipy.linalg.eigh(stiffness, mass, eigvals_only=True))


@pytest.fixture(scope="module")
def frequencies():
    """{(elements, speed): (lag w, flap w, largest |damping ratio|)} from the modes about the steady
    motion, the two lowest modes told apart by their shapes (flap: out of the plane, z)."""
    out = {}
    for n in MESHES:
        for speed in SPEEDS:
            model = rotating_blade(n, speed)
            q, v = place(model, {}, {"hub": {"angle": 0.0, "angle_rate": float(speed)}})
            setup = prepare(model, q, v)
            motion = steady_motion(setup, 0.0)
            assert abs(motion.omega[2] - speed) <= 1e-12 * max(1, speed)  # seen from the turning beam
            modes = motion_modes(setup, motion, 2)
            omega = 2 * np.pi * modes.frequency
            z = np.array([name.endswith("z") for name in model.coordinate_names])
            out_of_plane = np.linalg.norm(modes.shapes[:, z], axis=1)  # unit shapes
            if speed:  # at rest flap and lag are one double frequency of the square section
                assert np.sort(out_of_plane)[0] < 1e-8 and np.sort(out_of_plane)[1] > 1 - 1e-8, out_of_plane
            flap = int(np.argmax(out_of_plane))
            out[n, speed] = omega[1 - flap], omega[flap], np.abs(modes.damping_ratio).max()
    return out


def test_reference_is_the_table():
    """The Rayleigh-Ritz reference reproduces Wright et al.'s flap frequencies to their last digit and is
    converged (9 and 10 terms agree to 1e-8 at every speed)."""
    for speed in SPEEDS:
        assert abs(rotating_beam(speed, 9)[0] - rotating_beam(speed)[0]) < 1e-8 * rotating_beam(speed)[0]
        if speed in TABLE:
            assert abs(rotating_beam(speed)[0] - TABLE[speed]) <= 5e-5, speed
        lag, flap = rotating_beam(speed, lag=True)[0], rotating_beam(speed)[0]
        assert abs(lag**2 - (flap**2 - speed**2)) < 1e-9 * flap**2


def test_flap_and_lag_about_the_spinning_state(frequencies):
    """Flap and lag at gamma = 0..10 against the reference: the fine mesh within 0.6 %, convergence at the
    element's order (4 at rest, 2 spinning: the tension constant per element), from above, and the
    order-2 Richardson values within 4e-4; the spectrum of the conservative gyroscopic system is purely
    imaginary (damping ratios below 1e-8: round-off of the transport's differences)."""
    for speed in SPEEDS:
        expected = rotating_beam(speed, lag=True)[0], rotating_beam(speed)[0]
        for family in (0, 1):
            coarse, fine = (frequencies[n, speed][family] for n in MESHES)
            e_coarse, e_fine = coarse / expected[family] - 1.0, fine / expected[family] - 1.0
            assert 0.0 < e_fine < e_coarse, (speed, family, e_coarse, e_fine)  # from above: too stiff
            assert e_fine < 6e-3, (speed, family, e_fine)
            order = np.log2(e_coarse / e_fine)
            if speed == 0:
                assert order > 3.5, (family, order)
                continue
            assert 1.8 < order < 2.2, (speed, family, order)
            extrapolated = fine + (fine - coarse) / 3.0
            assert abs(extrapolated / expected[family] - 1.0) < 4e-4, (speed, family, extrapolated)
        assert frequencies[MESHES[-1], speed][2] < 1e-8
    lag = [frequencies[MESHES[-1], s][0] for s in SPEEDS]
    flap = [frequencies[MESHES[-1], s][1] for s in SPEEDS]
    assert np.all(np.diff(flap) > 0.5) and np.all(np.diff(lag) > 0.0)  # stiffened by the tension
