"""The linear plant of a pinned flexible link with hub inertia (the slewing link of [CannonSchmitz1984],
[Bellezza1990]) against the exact Euler-Bernoulli transfer function: from the hub torque tau to the tip
position y(L) it has a double pole at 0 (the rigid rotation), poles at the hub-inertia frequency
equation and the non-minimum-phase zero pairs +-sigma_k, which do not depend on the hub inertia; to
the tip's deviation from the rigid link at the same hub angle (``model.deviation``) the rigid rotation
drops out and the DC gain is the static deflection under the inertial load of the uniformly
accelerated link.

The exact model (derived here; the structure of the transfer function is that of [Bellezza1990]): the
beam's deflection y(x, t) from the ground's x axis, EI y'''' + rho A y'' = 0 (dots in time), pinned at
the hub, y(0) = 0, free at the tip, y''(L) = y'''(L) = 0, and the hub's balance (the hub, inertia J_h,
turns with the root section, theta = y'(0); from the variation of the energy,
delta int EI y''^2 / 2 dx = -EI y''(0) delta y'(0) + ..)

    J_h theta'' - EI y''(0) = tau.

With y = Y(x) e^{st}, s = i omega, beta^4 = omega^2 rho A / EI and Y(0) = 0,
Y = a (cosh beta x - cos beta x) + b sinh beta x + d sin beta x. With u = beta L:
- poles (tau = 0): sin u cosh u - cos u sinh u + (J_h u^3 / (rho A L^3)) (1 + cos u cosh u) = 0,
  omega = u^2 sqrt(EI / (rho A L^4)) (J_h -> 0: the pinned-free beam, tan u = tanh u; J_h -> infinity:
  the clamped-free one, 1 + cos u cosh u = 0);
- zeros (y(L) = 0 held by tau, the hub's balance free): Y(L) = Y''(L) = Y'''(L) = 0, whose determinant
  is 2 (sin u + sinh u): no root for real u > 0 (no zero on the imaginary axis); for real s = +-sigma,
  beta = x (1 + i) / L and sin u + sinh u = (1 + i)(sin x cosh x + cos x sinh x), so
  tan x = -tanh x and sigma = 2 x^2 sqrt(EI / (rho A L^4)), a real pair for every root x_k;
- the response H(i omega) = Y(L) / tau from the 3 x 3 system of the hub row and the tip's two rows;
- the deviation's DC gain: under a constant tau the link turns at alpha = tau / J, J = J_h + rho A L^3 / 3,
  and in its frame bends as a cantilever under the load -rho A alpha x, whose tip deflects by
  -11 rho A alpha L^4 / (120 EI) (a linearly rising load q0 x / L: 11 q0 L^4 / (120 EI)).

The FEM beam carries the sections' rotary inertia rho I (Rayleigh's beam) that Euler-Bernoulli's lacks, a
relative effect of about I / (A L^2) = h^2 / (12 L^2); h = 1 mm makes it 8e-8, below the discretisation
errors compared."""
import numpy as np
import pytest
from scipy.optimize import brentq

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.linearize import coordinate_row, linearize, point_rows
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.post.statespace import deviation_rows
from femdyn.joints.trajectories import Constant
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

L, B, H, YOUNG, RHO = 1.0, 0.02, 0.001, 70e9, 2700.0  # an aluminium strip, 20 x 1 mm, bending in the plane
EI, RHO_A = YOUNG * B * H**3 / 12, RHO * B * H
HUB = 0.1  # J_h [kg m^2], half the link's own rho A L^3 / 3 = 0.018 .. a fifth
SCALE = np.sqrt(EI / (RHO_A * L**4))  # omega = u^2 SCALE [rad/s]


def roots(f, count, top=25.0):
    """The first ``count`` roots u > 0 of f(u) / cosh(u) (bracketed on a fine grid, then brentq)."""
    g = lambda u: f(u) / np.cosh(u)  # noqa: E731
    grid = np.linspace(0.3, top, 5000)
    values = g(grid)
    found = [brentq(g, grid[i], grid[i + 1], xtol=1e-15) for i in np.flatnonzero(values[:-1] * values[1:] < 0)]
    return np.array(found[:count])


def exact_poles(hub, count=3):
    """omega_k [rad/s] of the pinned link with hub inertia ``hub`` (module docstring)."""
    mu = hub / (RHO_A * L**3)
    u = roots(lambda u: np.sin(u) * np.cosh(u) - np.cos(u) * np.sinh(u) + mu * u**3 * (1 + np.cos(u) * np.cosh(u)),
              count)
    return u**2 * SCALE


def exact_zeros(count=3):
    """sigma_k [1/s] of the right-half-plane zeros of tau -> y(L): tan x = -tanh x (module docstring)."""
    return 2 * roots(lambda x: np.sin(x) * np.cosh(x) + np.cos(x) * np.sinh(x), count) ** 2 * SCALE


def exact_response(omega, hub=HUB):
    """H(i omega) = y(L) / tau of the Euler-Bernoulli link (module docstring)."""
    out = []
    for w in omega:
        beta = np.sqrt(w * np.sqrt(RHO_A / EI))
        u = beta * L
        ch, sh, c, s = np.cosh(u), np.sinh(u), np.cos(u), np.sin(u)
        rows = np.array([[-2 * EI * beta**2, -hub * w**2 * beta, -hub * w**2 * beta],  # the hub (a, b, d)
                         [ch + c, sh, -s], [sh - s, ch, -c]])  # Y''(L) = 0, Y'''(L) = 0
        a, b, d = np.linalg.solve(rows, [1.0, 0.0, 0.0])
        out.append(a * (ch - c) + b * sh + d * s)
    return np.array(out)


def link_plant(elements, hub=HUB):
    """The FEM link (world-vector beam, ``elements`` cubic elements) on a revolute hub joint 'theta' with
    a disc of inertia ``hub`` welded to its root; the hub angle held by a coordinate servo at 0 for the
    equilibrium and free in the plant (servos "free": the torque on theta the input). Outputs: the
    tip's y position, its deviation from the rigid link along y (the rigid link at the same theta)."""
    b = ModelBuilder(2)
    b.add_beam("link", BeamBody.straight(L, elements, Section.rectangle(B, H), YOUNG, RHO, axial="linear"),
               stiffening=False)
    b.add_joint("hub", "revolute", "ground", "link", angle="theta")
    b.add_attachment("disc", "link", [0.0, 0.0], 1.0, [hub / 2, hub / 2])  # J = E_1 + E_2 in the plane
    b.add_servo_coordinate("hold", "theta", Constant(0.0))
    b.set_inputs(["theta"])
    model = b.build()
    setup = prepare(model, *place(model, {}, {"hub": {"angle": 0.0}}))
    eq = static_equilibrium(setup)
    deviation = deviation_rows(model, [("tip", "link", [L, 0.0])], eq.q)["tip.deviation_y"]
    return linearize(setup, eq.q, eq.lam, inputs=[("theta", coordinate_row(model, "theta"), "N m")],
                     outputs=[("tip.y", point_rows(model, "link", [L, 0.0])[1], "m"),
                              ("tip.deviation_y", deviation, "m")], servos="free")


@pytest.fixture(scope="module")
def plants():
    return {elements: link_plant(elements) for elements in (4, 8, 16)}


def orders(errors):
    errors = np.array(errors)
    return np.log2(errors[:-1] / errors[1:])


def test_poles_are_the_hub_inertia_frequency_equation(plants):
    """A double pole at 0 (the free rotation: a Jordan pair of size sqrt(eps |A|) from LAPACK) and the
    undamped pairs +-i omega_k at the frequency equation's roots, the first three to 2e-9, 5e-6, 4e-5 of
    their size with 16 elements (the first at the floor of the eigenvalues' round-off and the rotary
    inertia), the errors falling at order 4 in the elements (cubic elements: 3.8 to 4.2 for the first
    from 4 to 8, for the second and third from 8 to 16)."""
    exact = exact_poles(HUB)
    errors = []
    for plant in plants.values():
        s = plant.poles()
        assert np.sum(np.abs(s) <= 1e-3 * exact[0]) == 2
        flexible = s[s.imag > 1e-3 * exact[0]][:3]
        assert np.abs(flexible.real).max() <= 1e-10 * np.abs(flexible).max()
        errors.append(np.abs(flexible.imag / exact - 1))
    assert np.all(errors[-1] < [1e-8, 1e-5, 1e-4])
    rates = orders(errors)
    assert np.all((rates[[0, 1, 1], [0, 1, 2]] > 3.8) & (rates[[0, 1, 1], [0, 1, 2]] < 4.2))


def real_zeros(plant, count=3):
    """The ``count`` smallest sigma > 0 of the real zeros of tau -> y(L) and their negatives' sizes."""
    z = plant.zeros(0, 0)
    real = z[np.abs(z.imag) <= 1e-8 * np.abs(z)].real
    return np.sort(real[real > 0])[:count], np.sort(-real[real < 0])[:count]


def test_tip_zeros_are_the_non_minimum_phase_pairs(plants):
    """The transmission zeros of hub torque -> tip position: real pairs +-sigma_k at tan x = -tanh x (one
    of each pair in the right half plane: non-minimum phase), and every zero below 1.5 sigma_3 real (none
    on the imaginary axis; far up, the axial modes' pole-zero cancellations, which the tip's lateral
    position does not see); the first three to 1.6e-6, 3.9e-5, 2.4e-4 of sigma_k with 16 elements,
    falling at order 4 (4.0 to 4.2: the first from 4 to 8 elements, the others from 8 to 16; the first's
    pair splits by 2e-9 of its size, the pencil's round-off); with another hub inertia (J_h = 0.01
    kg m^2) the same zeros to 1e-6: the hub's balance is the input's equation."""
    exact = exact_zeros()
    errors = []
    for plant in plants.values():
        positive, negative = real_zeros(plant)
        assert np.abs(positive - negative).max() <= 1e-6 * exact[0]
        z = plant.zeros(0, 0)
        low = z[np.abs(z) < 1.5 * exact[2]]
        assert low.size >= 6 and np.all(np.abs(low.imag) <= 1e-8 * np.abs(low))
        errors.append(np.abs(positive / exact - 1))
    assert np.all(errors[-1] < [2e-6, 5e-5, 3e-4])
    rates = orders(errors)
    assert np.all((rates[[0, 1, 1], [0, 1, 2]] > 3.9) & (rates[[0, 1, 1], [0, 1, 2]] < 4.2))
    light = real_zeros(link_plant(8, hub=0.01))[0]
    assert np.abs(light / real_zeros(plants[8])[0] - 1).max() <= 1e-6


def test_frequency_response_is_the_exact_one(plants):
    """H(i omega) of tau -> y(L) at frequencies below, between and above the first poles and zeros: the
    exact transfer function's to 3e-5 with 16 elements, the errors falling at order 4 (6.5e-3, 4.6e-4,
    3e-5 for 4, 8, 16 elements). The exact response's own low-frequency limit (i omega)^2 H -> L / J,
    J = J_h + rho A L^3 / 3, is the rigid link's."""
    w1 = exact_poles(HUB)[0]
    omega = w1 * np.array([0.3, 0.6, 1.5, 2.5, 5.0, 8.0])
    exact = exact_response(omega)
    errors = [np.abs(plant.response(omega)[:, 0, 0] / exact - 1).max() for plant in plants.values()]
    assert errors[-1] < 1e-4 and np.all(orders(errors) > 3.6)
    slow = 1e-4 * w1
    J = HUB + RHO_A * L**3 / 3
    assert -(slow**2) * exact_response([slow])[0] == pytest.approx(L / J, rel=1e-6)


def test_tip_deviation_dc_gain_is_the_accelerated_cantilever(plants):
    """The tip's deviation from the rigid link at the same hub angle does not see the free rotation, so
    its DC gain is finite: -11 rho A L^5 / (120 EI J) per unit torque (module docstring), to 2e-7 on every
    mesh (cubic elements are nodally exact for the static beam; measured 4e-8, the sections' rotary
    inertia rho I L / J = 3.8e-8 in the FEM's J), while that of the tip's position is infinite (the
    double integrator)."""
    J = HUB + RHO_A * L**3 / 3
    expected = -11 * RHO_A * L**5 / (120 * EI * J)
    for plant in plants.values():
        gains = plant.dc_gains()[:, 0]
        assert np.isinf(gains[0])
        assert gains[1] == pytest.approx(expected, rel=2e-7)
