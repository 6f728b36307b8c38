"""The rotating cantilever: flap and lag frequencies of a uniform Euler-Bernoulli beam clamped to a hub
that turns at constant speed, against the published tables (Wright et al. 1982; Hodges & Rutkowski
1981; docs/references.md).

The model: a spatial world-vector beam (L = 1, EI = 1, rho A = 1, so that the frequency unit
sqrt(EI / (rho A L^4)) is 1 rad/s and Omega* = Omega), square section (I_y = I_z: flap and lag bend
with the same EI) of side b = 1e-3 L (slenderness L/r = 3464), fixed-free reference conditions and
geometric stiffening on. It is clamped to the hub by a revolute joint to the ground about z, the
normal of the rotation plane, whose augmented angle a coordinate servo holds at theta(t) = Omega t:
the hub turns at constant speed whatever the beam does (femdyn has no joint that prescribes a
rotation; the servo is how a hub is driven, as in the spin-up of test_spatial_beams.py). The beam
lies along x at t = 0: flap is its bending out of the rotation plane (local d_3 = z), lag the
bending in it (local d_2).

The state at t = 0 is the relative equilibrium plus a small perturbation: the beam turns rigidly at
Omega, stretched by its centrifugal load (u(x) = rho A Omega^2 (L^2 x / 2 - x^3 / 6) / EA along d_1,
the inextensible tension T(x) = rho A Omega^2 (L^2 - x^2) / 2 taken by the axial stiffness EA, each
node's stretch moving with the frame at Omega e_z x u), and both bending directions get a velocity
1e-3 phi(x) with phi(x) = x^2 (6 - 4x + x^2) / 3, the deflection under a uniform load: mostly the
first mode (the second mode's velocity amplitude is a few per cent of the first's). The tip's local
flap and lag displacements over 3 s (1.7 to 3.5 periods of the first mode) are fitted by least
squares (variable projection) to c + exp(sigma t) (a cos(w t) + b sin(w t)) + a2 cos(w2 t) +
b2 sin(w2 t): the first mode, free and possibly damped, plus the second mode that phi excites a
little; w is the measured first frequency.

Published values (first flap mode, w / sqrt(EI / (rho A L^4)), no hub radius, Euler-Bernoulli,
inextensible): 3.5160, 4.1373, 5.5850, 7.3604 at Omega* = 0, 2, 4, 6 (Wright et al. 1982, also
tabulated by Hodges & Rutkowski 1981; docs/references.md says how they were checked).
``test_table_is_the_rotating_beam_equation`` checks them against a Chebyshev collocation solution
of EI w'''' - (T w')' = rho A w^2 w with w(0) = w'(0) = w''(L) = w'''(L) = 0.

Lag: the in-plane displacement v of a point at radius x feels the centrifugal force rho A Omega^2 v
across the beam besides the tension, so its equation is the flap equation with
rho A (v_tt - Omega^2 v) in place of rho A v_tt: the same mode shapes and
w_lag^2 = w_flap^2 - Omega^2 (the linear lead-lag equation of Hodges & Dowell 1974 with no hub
radius, precone, offsets or axial-lag coupling). The Coriolis coupling of lag and axial motion,
which that relation leaves out, lowers w_lag by about (2 Omega / w_axial)^2 / 2: 2.5e-6 at
Omega* = 6 for this slenderness (measured: 2.4e-4 for a beam ten times thicker, b = 1e-2 L).

Tolerances (measured in this set-up, dt = 2.5e-3):

* mesh: at Omega = 0 the Hermite element converges at order 4 (at 8 elements the error is the
  step's, -3e-6); with rotation the
  axial force is constant in each element (the element-averaged strain that keeps the stiffening
  free of membrane locking), the tension a piecewise-constant approximation of T(x), and the
  frequencies converge at order 2 from above: flap 1.2e-3 / 2.8e-4, lag 3.5e-3 / 8.2e-4 relative
  at 8 / 16 elements (Omega* = 6; observed orders 2.03-2.09). The test asserts order > 1.7 between
  8 and 16 elements, the 16-element frequencies within 1.5e-3 and the order-2 Richardson values
  within 1.5e-4 of the table (measured: at most 6e-5, the step's error and the order not being
  exactly 2);
* step: the energy-momentum (midpoint) scheme's phase error (w dt)^2 / 12 and the frame's turn of
  Omega dt = 0.015 rad per step: -1.5e-5 (flap) and -6e-5 (lag) at Omega* = 6, measured by halving dt;
* the table's own rounding (5e-5 absolute, 1.5e-5 relative); extensibility (1/slenderness^2, 1e-7)
  and the sections' rotary inertia ((r/L)^2, 1e-7) are far below these.

Nothing dissipates in this model and the energy-momentum scheme adds no numerical damping: the
fitted decay rate |sigma| stays below 1e-4 w (measured: 2e-5 rad/s at most). Run time about 6 s.
"""
import numpy as np
import pytest
import scipy.linalg as sl
from scipy.optimize import least_squares

from femdyn.beam.body import Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.model.initial import place
from shared import rotating_blade

L, SIDE = 1.0, 1e-3
SECTION = Section.rectangle(SIDE, SIDE)
YOUNG, DENSITY = 1.0 / SECTION.iz, 1.0 / SECTION.area  # EI = 1, rho A = 1: frequency unit 1 rad/s
DT, T_END, AMPLITUDE = 2.5e-3, 3.0, 1e-3
SPEEDS = (0, 2, 4, 6)
MESHES = (8, 16)
# first flap frequency / sqrt(EI / (rho A L^4)) of the uniform rotating cantilever without hub radius
# (Wright et al. 1982, Table 1; Hodges & Rutkowski 1981), at Omega* = 0, 2, 4, 6
TABLE = {0: 3.5160, 2: 4.1373, 4: 5.5850, 6: 7.3604}
SECOND = {0: 22.0345, 2: 22.6149, 4: 24.2733, 6: 26.8091}  # second flap frequency: the fit's start only


def lag_of(flap, speed):
    """w_lag = sqrt(w_flap^2 - Omega^2) (module docstring)."""
    return np.sqrt(flap**2 - speed**2)


def rotating_cantilever(elements, speed):
    """The hub held at theta = Omega t by a servo, the beam in its relative equilibrium, both bending
    directions set moving (module docstring); returns the tip's local (flap, lag) history and t."""
    model = rotating_blade(elements, speed, SIDE)
    body = model.worlds[0].beam
    q, v = place(model, {}, {"hub": {"angle": 0.0, "angle_rate": float(speed)}})
    world = model.worlds[0]
    x = body.nodes[1:, 0]  # the clamped first node has no unknowns
    stretch = speed**2 * DENSITY / YOUNG * (L**2 * x / 2 - x**3 / 6)  # rho A Omega^2 (..) / EA
    q[world.w[1:, 0]] = stretch  # along d_1 = e_x
    v[world.w[1:, 1]] = speed * stretch  # Omega e_z x (u e_x)
    shape, slope = x**2 * (6 - 4 * x + x**2) / 3, x * (12 - 12 * x + 4 * x**2) / 3
    for axis in (1, 2):  # lag along d_2 = e_y, flap along d_3 = e_z
        v[world.w[1:, axis]] += AMPLITUDE * shape
        v[world.s[1:, axis]] += AMPLITUDE * slope
    r = simulate(prepare(model, q, v), SolverSettings(DT, T_END))
    assert r.complete, r.message
    tip = world.elastic_coordinates(r.q)[:, -body.elements.node_size:]  # u_x, u_y, u_z, psi, theta_y, theta_z
    assert np.abs(tip[:, 2]).max() > 0.5 * AMPLITUDE / TABLE[speed]  # it vibrates (amplitude ~ v0 / w)
    return r.t, tip[:, 2], tip[:, 1]


def fitted_mode(t, y, first, second):
    """Least-squares fit of c + exp(sigma t) (a cos wt + b sin wt) + a2 cos w2 t + b2 sin w2 t by
    variable projection (the amplitudes by linear least squares for each (w, sigma, w2)), from the
    guesses ``first``, ``second``; returns w, sigma and the largest residual relative to max |y|."""
    def basis(p):
        w, sigma, w2 = p
        decay = np.exp(sigma * t)
        return np.column_stack([np.ones_like(t), decay * np.cos(w * t), decay * np.sin(w * t),
                                np.cos(w2 * t), np.sin(w2 * t)])

    def residual(p):
        A = basis(p)
        return A @ np.linalg.lstsq(A, y, rcond=None)[0] - y

    fit = least_squares(residual, [first, 0.0, second], xtol=1e-15, ftol=1e-15, gtol=1e-15)
    return fit.x[0], fit.x[1], np.abs(fit.fun).max() / np.abs(y).max()


@pytest.fixture(scope="module")
def frequencies():
    """{(elements, speed): (flap w, lag w)} measured by the fit, with the fit's checks."""
    out = {}
    for n in MESHES:
        for speed in SPEEDS:
            t, flap, lag = rotating_cantilever(n, speed)
            measured = []
            for y, first, second in ((flap, TABLE[speed], SECOND[speed]),
                                     (lag, lag_of(TABLE[speed], speed), lag_of(SECOND[speed], speed))):
                w, sigma, misfit = fitted_mode(t, y, first, second)
                assert misfit < 5e-3, (n, speed, misfit)  # a free vibration of two modes, higher ones tiny
                assert abs(sigma) < 1e-4 * w, (n, speed, sigma)  # undamped
                measured.append(w)
            out[n, speed] = tuple(measured)
    return out


def test_table_is_the_rotating_beam_equation():
    """The published flap frequencies are the eigenvalues of EI w'''' - (T w')' = rho A w^2 w,
    T = rho A Omega^2 (L^2 - x^2) / 2, clamped-free (Chebyshev collocation on 40 points, converged to
    1e-6): to the table's last digit."""
    N = 40
    k = np.arange(N + 1)
    s = np.cos(np.pi * k / N)  # Chebyshev points on [-1, 1], x = (s + 1) / 2
    c = np.hstack([2.0, np.ones(N - 1), 2.0]) * (-1.0) ** k
    D = np.outer(c, 1.0 / c) / (s[:, None] - s[None, :] + np.eye(N + 1))
    D = 2.0 * (D - np.diag(D.sum(axis=1)))  # d/dx
    x = (s + 1.0) / 2.0
    D2, D3 = D @ D, D @ D @ D
    for speed, published in TABLE.items():
        A = D2 @ D2 - np.diag(speed**2 * (1.0 - x**2) / 2.0) @ D2 + np.diag(speed**2 * x) @ D
        B = np.eye(N + 1)
        for row, condition in ((N, np.eye(N + 1)[N]), (N - 1, D[N]), (0, D2[0]), (1, D3[0])):
            A[row], B[row] = condition, 0.0  # w(0) = w'(0) = 0, w''(L) = w'''(L) = 0 (T(L) = 0)
        eigenvalues = sl.eig(A, B, right=False)
        eigenvalues = eigenvalues[np.isfinite(eigenvalues)].real  # the boundary rows give infinite ones
        lowest = np.sqrt(eigenvalues[eigenvalues > 1e-6].min())
        assert abs(lowest - published) <= 5e-5 + 1e-6, (speed, lowest, published)


def test_flap_and_lag_frequencies_rise_with_speed_as_the_table(frequencies):
    """Both families at 8 and 16 elements against the table and w_lag^2 = w_flap^2 - Omega^2: the
    frequencies rise with the speed (flap), the lag ones stay below the flap ones by the centrifugal
    softening; the mesh converges at order about 2 (tension constant per element) and the order-2
    Richardson values lie on the table (tolerances: module docstring)."""
    for family in (0, 1):
        for speed in SPEEDS:
            expected = TABLE[speed] if family == 0 else lag_of(TABLE[speed], speed)
            coarse, fine = (frequencies[n, speed][family] for n in MESHES)
            e_coarse, e_fine = coarse / expected - 1.0, fine / expected - 1.0
            assert abs(e_fine) < 1.5e-3, (family, speed, fine, expected)
            if speed == 0:  # order 4 in h: converged at 8 elements but for the step's phase error
                assert abs(e_coarse) < 1e-4 and abs(e_fine) < 1e-4, (family, e_coarse, e_fine)
                continue
            assert e_coarse > e_fine > 0.0, (family, speed, e_coarse, e_fine)  # from above: too stiff
            order = np.log2(e_coarse / e_fine)
            assert order > 1.7, (family, speed, order)
            extrapolated = fine + (fine - coarse) / 3.0
            assert abs(extrapolated / expected - 1.0) < 1.5e-4, (family, speed, extrapolated, expected)
    flap = [frequencies[MESHES[-1], s][0] for s in SPEEDS]
    lag = [frequencies[MESHES[-1], s][1] for s in SPEEDS]
    assert np.all(np.diff(flap) > 0.5) and np.all(np.diff(lag) > 0.0)  # stiffened by the tension
    for speed, w_flap, w_lag in zip(SPEEDS, flap, lag):
        if speed:
            assert w_lag < w_flap - 0.2 * speed**2 / w_flap  # softened by the in-plane centrifugal force
