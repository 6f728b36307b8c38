"""The linear plant at a static equilibrium (``integrators.linearize``): a damped cantilever from its tip
force to its tip deflection has the DC gain L^3 / (3 EI) and poles at the Euler-Bernoulli frequencies
with the modal damping given, converging at the element order 4; Rayleigh damping gives each mode
zeta_i = alpha / (2 omega_i) + beta omega_i / 2; the descriptor form has the minimal form's poles; the
clamp's reaction is the beam's momentum balance; the flexible link's zeros are femdyn check's zero
dynamics; the linear step response is the nonlinear run's to second order in the load."""
import numpy as np
import pytest
import scipy.linalg
from shared import STEEL
from test_beam_damping import cantilever

from femdyn.beam.body import BeamBody, Section
from femdyn.beam.damping import Damping
from femdyn.integrators.linearize import frequency_and_damping, linearize, point_rows, reaction_rows
from femdyn.integrators.modes import natural_modes
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.integrators.time_loop import simulate
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

EI = 2.1e11 * 0.01**4 / 12  # the cantilever of test_beam_damping: 1 m of steel, 10 x 10 mm
RHO_A = 7850.0 * 1e-4
BETA_L = np.array([1.875104068711961, 4.694091132974175, 7.854757438237613])  # cos(bL) cosh(bL) = -1
EULER_BERNOULLI = BETA_L**2 * np.sqrt(EI / RHO_A)  # rad/s, L = 1


def tip_plant(damping, elements):
    """The cantilever's plant from the tip force (N, along y) to the tip deflection (m)."""
    model, setup, _ = cantilever(damping, elements=elements, amplitude=0.0)
    eq = static_equilibrium(setup)
    tip = point_rows(model, "beam", [1.0, 0.0])[1]
    return linearize(setup, eq.q, eq.lam, inputs=[("tip.fy", tip, "N")], outputs=[("tip.y", tip, "m")]), setup, eq


def oscillating(plant, count):
    """The ``count`` slowest poles with Im s > 0."""
    s = plant.poles()
    return s[s.imag > 0][:count]


def test_cantilever_tip_force_to_tip_deflection():
    """DC gain L^3 / (3 EI) (the cubic elements are exact for a tip load: to the solve's round-off), the
    first three poles at the Euler-Bernoulli frequencies with the ratio zeta = 0.02 given (to 1e-7: LAPACK's
    eigenvalues of A carry errors of eps |A|, A's entries up to omega_max^2), the
    frequencies' errors falling at order 4 in the elements (between 3.6 and 4.2 over 4, 8, 16: the
    third mode's 3.7 from 4 to 8 elements is not yet asymptotic; 32 elements would reach the eigenvalues'
    round-off for the first)."""
    errors = []
    for elements in (4, 8, 16):
        plant = tip_plant(Damping(ratio=0.02), elements)[0]
        assert plant.dc_gains()[0, 0] == pytest.approx(1.0 / (3 * EI), rel=1e-9)
        s = oscillating(plant, 3)
        frequency, ratio = frequency_and_damping(s)
        assert np.abs(ratio - 0.02).max() <= 1e-7
        errors.append(np.abs(2 * np.pi * frequency / EULER_BERNOULLI - 1))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 3.6) & (orders < 4.2))


def test_rayleigh_damping_ratios_of_the_first_three_modes():
    """Rayleigh damping alpha M + beta K is classical: mode i of the undamped system (``natural_modes``,
    omega_i) becomes the pole pair of ratio alpha / (2 omega_i) + beta omega_i / 2 and |s| = omega_i."""
    alpha, beta = 4.0, 2e-5
    plant, setup, eq = tip_plant(Damping(alpha=alpha, beta=beta), 8)
    omega = natural_modes(setup, eq.q, eq.lam, k=3).omega
    s = oscillating(plant, 3)
    _, ratio = frequency_and_damping(s)
    expected = alpha / (2 * omega) + beta * omega / 2
    assert np.abs(ratio / expected - 1).max() <= 1e-8
    assert np.abs(np.abs(s) / omega - 1).max() <= 1e-10


def test_descriptor_form_has_the_minimal_poles():
    """The finite generalised eigenvalues of (A_d, E) are the eigenvalues of A (the constraints' infinite
    ones aside): the two forms describe one system."""
    plant = tip_plant(Damping(ratio=0.05), 4)[0]
    alpha, beta = scipy.linalg.eig(plant.A_d, plant.E, right=False, homogeneous_eigvals=True)
    finite = np.abs(beta) > 1e-8 * np.abs(alpha)
    descriptor, minimal = alpha[finite] / beta[finite], plant.poles()
    assert descriptor.size == minimal.size
    nearest = np.abs(descriptor[:, None] - minimal[None, :])
    assert nearest.min(axis=0).max() <= 1e-8 * np.abs(minimal).max()
    assert nearest.min(axis=1).max() <= 1e-8 * np.abs(minimal).max()


def test_clamp_reaction_of_the_cantilever():
    """Outputs on the multipliers: the clamp's reaction on the beam per unit tip force is, at DC, the
    static one -- force -1 along y and moment -L about the clamp (L = 1 m) -- and on the ground the
    opposite (Newton's third law), to 1e-9; at every frequency it is the beam's momentum balance
    R = dp/dt - F, p_y = (M x')_phi_y the beam's linear momentum along y (an output row on x, an
    independent formulation of the same response; to 1e-9 of the balance's terms, of the size of the
    unit force, from below to far above the first modes, where the reaction tends to the consistent
    mass's feedthrough D and dp/dt cancels most of the force)."""
    model, setup, _ = cantilever(Damping(ratio=0.02), elements=4, amplitude=0.0)
    eq = static_equilibrium(setup)
    tip = point_rows(model, "beam", [1.0, 0.0])[1]
    names = ["clamp.beam.force_y", "clamp.beam.moment_z", "clamp.ground.force_y", "clamp.beam.force_x"]
    momentum = model.mass_matrix.toarray()[model.body_dofs(0)[1]]  # p_y = momentum . x'
    plant = linearize(setup, eq.q, eq.lam, inputs=[("tip.fy", tip, "N")],
                      outputs=reaction_rows(model, eq.q, eq.lam, names) + [("p_y", momentum, "kg m")])
    assert plant.output_units == ("N", "N m", "N", "N", "kg m")
    assert np.abs(plant.dc_gains()[:4, 0] - [-1.0, -1.0, 1.0, 0.0]).max() <= 1e-9
    omega = EULER_BERNOULLI[0] * np.logspace(-1, 4, 11)
    H = plant.response(omega)[:, :, 0]
    balance = (1j * omega) ** 2 * H[:, 4] - 1.0
    assert np.all(np.abs(H[:, 0] - balance) <= 1e-9 * (1.0 + np.abs(H[:, 0])))
    assert np.all(np.abs(H[:, 2] + H[:, 0]) <= 1e-12 * np.abs(H[:, 0]))


def test_flexible_link_zeros_are_the_zero_dynamics_of_femdyn_check():
    """The single flexible link (hub torque on its free revolute joint to the tip's polar angle, undamped):
    the transmission zeros of the plant, the finite eigenvalues of its Rosenbrock pencil, are the zeros of
    the servo problem's zero dynamics that ``femdyn check`` lists (``integrators.zero_dynamics``, an
    independent computation: the pencil (W^T K Z, W^T M Z) of the held output), the right-half-plane
    pair included (non-minimum phase), to 1e-6 of their size; the rigid rotation is a double pole at 0
    (a Jordan block, which LAPACK returns as a pair of size sqrt(eps |A|), far below the first flexible
    pole), so the DC gain is infinite."""
    from shared import LINK, flexible_link

    from femdyn.integrators.zero_dynamics import zero_dynamics

    model, setup = flexible_link("tip", elements=4)
    eq = static_equilibrium(setup)
    length = LINK["length"]
    hub = np.zeros(model.n)
    hub[model.joint_coordinates["theta"]] = 1.0
    polar = point_rows(model, "link", [length, 0.0])[1] / length  # d(atan2(y, x)) = dy / L at (L, 0)
    plant = linearize(setup, eq.q, eq.lam, inputs=[("theta", hub, "N m")], outputs=[("tip", polar, "rad")],
                      servos="free")
    zeros = plant.zeros(0, 0)
    expected = zero_dynamics(setup, eq.q, lam=eq.lam).zeros
    assert zeros.size == expected.size and np.any(zeros.real > 0)
    scale = np.abs(expected)
    assert np.all(np.abs(zeros[:, None] - expected[None, :]).min(axis=0) <= 1e-6 * scale)
    size = np.abs(plant.poles())
    assert np.sum(size <= 1e-4 * size[2]) == 2 and np.isinf(plant.dc_gains()).all()


def loaded_cantilever(load):
    """The damped cantilever of ``cantilever`` with geometric stiffening (nonlinear: the axial force
    stiffens the bending) under a tip force ``load`` N along (1, 1)/sqrt 2, constant from t = 0; its model,
    prepared setup and the force's direction."""
    beam = BeamBody.straight(1.0, 4, Section.rectangle(0.01, 0.01), STEEL["young"], STEEL["rho"],
                             damping=Damping(ratio=0.05))
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=True)
    b.add_joint("clamp", "fixed", "ground", "beam")
    direction = np.array([1.0, 1.0]) / np.sqrt(2)
    b.add_point_force("beam", [1.0, 0.0], load * direction, lambda t: 1.0)
    model = b.build()
    return model, prepare(model, *place(model, {"beam": {"position": [0.0, 0.0], "angle": 0.0}}, {})), direction


def test_linear_step_response_is_the_nonlinear_run_to_second_order():
    """A tip force along (1, 1)/sqrt 2 switched on at t = 0: the energy-momentum run of the nonlinear model
    (stiffening: the axial part of the force changes the bending stiffness, a correction of second order
    in the force) against the linear plant stepped by the same scheme, the implicit mid-point rule
    x_n+1 = x_n + dt A (x_n + x_n+1)/2 + dt B u (what the energy-momentum scheme is on a linear model),
    so that they differ by the nonlinearity alone: the largest difference of the tip deflection relative
    to the linear one halves with the force (ratios 1.9-2.1 for 8, 4, 2 N)."""
    model, setup, direction = loaded_cantilever(0.0)
    rows = point_rows(model, "beam", [1.0, 0.0])
    plant = linearize(setup, setup.q0, inputs=[("P", direction @ rows, "N")], outputs=[("tip.y", rows[1], "m")])
    k, dt = plant.A.shape[0], 2 * np.pi / EULER_BERNOULLI[0] / 100
    left, right = np.eye(k) - 0.5 * dt * plant.A, np.eye(k) + 0.5 * dt * plant.A
    errors = []
    for load in (8.0, 4.0, 2.0):
        model, setup, _ = loaded_cantilever(load)
        r = simulate(setup, SolverSettings(dt=dt, t_end=150 * dt, tolerance=1e-13))
        tip = model.flexible[0].positions(r.q, np.array([[1.0, 0.0]]))[:, 0, 1]
        x, linear = np.zeros(k), [0.0]
        for _ in range(len(r.t) - 1):
            x = np.linalg.solve(left, right @ x + dt * plant.B[:, 0] * load)
            linear.append(float(plant.C[0] @ x))
        errors.append(np.abs(tip - np.array(linear)).max() / np.abs(linear).max())
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert errors[0] < 0.05 and np.all((ratios > 1.9) & (ratios < 2.1))
