"""Static equilibrium (``integrators.statics``) and natural modes (``integrators.modes``) of whole
models against hand calculations: pendulums, a two-bar truss, cantilevers under a tip load and their
own weight, servo-held links, a spring chain and the bending modes of clamped and free beams."""
import copy

import numpy as np
import pytest
import scipy.linalg
from scipy.optimize import brentq

from femdyn.beam.body import BeamBody, Section
from femdyn.forces.base import Force
from femdyn.integrators.modes import ModesError, natural_modes
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import StaticsError, static_equilibrium
from femdyn.joints.base import JointPair
from femdyn.joints.trajectories import Constant, Polynomial
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics import kinematics as kin
from femdyn.reference import stewart
from femdyn.reference.models import stewart_model, stewart_state

G = 9.81
MASS, LENGTH = 2.0, 0.8
E, RHO, BEAM = 2.1e11, 7850.0, 1.0  # steel, 1 m


def pair_rows(model, joint):
    """The multiplier rows of the kinematic pair ``joint`` (points rows first)."""
    family = next(c for c in model.constraints if isinstance(c, JointPair) and joint in c.labels)
    return family.rows[family.labels.index(joint)]


def pendulum(dim, start, inertia=MASS * LENGTH**2 / 12, arm=LENGTH / 2, gravity=True):
    """A rigid body of MASS pivoted to the ground at ``arm`` from its centre along d1 (revolute with the
    angle 'theta' in the plane, spherical in space), transverse moment of inertia ``inertia`` about its
    centre (the default: a slender rod of LENGTH pivoted at its end). ``start``: the angle of d1 from e1
    (planar) or a rotation (spatial) of the placed body."""
    b = ModelBuilder(dim)
    if dim == 2:
        b.add_body("rod", MASS, [inertia * (1 - 1e-6), inertia * 1e-6])
        b.add_joint("pin", "revolute", "ground", "rod", point2=[-arm, 0.0], angle="theta")
        rotation = kin.rotation_2d(start)
        pose = {"position": rotation @ [arm, 0.0], "angle": start}
    else:
        b.add_body("rod", MASS, [inertia, 1e-3 * inertia, 1e-3 * inertia])  # E2 = E3: equal transverse moments
        b.add_joint("pin", "spherical", "ground", "rod", point2=[-arm, 0.0, 0.0])
        rotation = start
        pose = {"position": rotation @ [arm, 0.0, 0.0], "rotation": rotation}
    if gravity:
        b.set_gravity(-G * np.eye(dim)[-1])
    model = b.build()
    q, v = place(model, {"rod": pose}, {})
    return model, prepare(model, q, v)


def compound(inertia, arm):
    """omega^2 of a compound pendulum: m g d / (J + m d^2)."""
    return MASS * G * arm / (inertia + MASS * arm**2)


# --------------------------------------------------------------------------------------------- statics

@pytest.mark.parametrize("dim, start", [(2, -1.2), (3, kin.rotation_3d([0.3, 1.0, 0.0], 1.2))],
                         ids=["planar", "spatial"])
def test_pendulum_hangs_straight_down_and_the_pivot_carries_its_weight(dim, start):
    """From a tilted start the rod comes to rest straight below the pivot, and the pivot's
    multipliers are the weight m g: at rest the joint rows x_rod - x_pivot = 0 pass on all of it
    (the reaction on the rod is -lam, upwards)."""
    model, setup = pendulum(dim, start)
    eq = static_equilibrium(setup)
    centre, rotation = model.frames(eq.q)
    down = -np.eye(dim)[-1]
    assert np.abs(centre[0] - LENGTH / 2 * down).max() < 1e-12
    assert np.abs(rotation[0][:, 0] - down).max() < 1e-12  # d1 along the rod, pointing down
    weight = MASS * G * down
    assert np.abs(eq.lam[pair_rows(model, "pin")] - weight).max() < 1e-12 * MASS * G
    assert eq.force_residual < 1e-12 * MASS * G and eq.constraint_residual < 1e-14


def test_two_bar_truss_reactions_equal_the_hand_calculation():
    """Two weightless bars pinned to the ground at A and B and to each other at C, loaded by P at C:
    both bars are two-force members, so the support reactions act along them,
    R_A = a u_A, R_B = b u_B with a u_A + b u_B = -P (u the unit vectors from the supports to C).
    The support's multipliers are minus the reactions on the bars, the pin C's the force that bar 2
    receives from bar 1 with the opposite sign, -lam_C + R_B = 0."""
    A, B, C, P = np.array([0.0, 0.0]), np.array([2.0, 0.0]), np.array([0.8, 1.2]), np.array([3.0, -10.0])
    b = ModelBuilder(2)
    poses = {}
    for name, start in (("bar1", A), ("bar2", B)):
        chord = C - start
        length = np.linalg.norm(chord)
        b.add_body(name, 1.0, [length**2 / 12, 1e-6])
        poses[name] = {"position": 0.5 * (start + C), "angle": np.arctan2(chord[1], chord[0])}
    l1, l2 = np.linalg.norm(C - A), np.linalg.norm(C - B)
    b.add_joint("A", "revolute", "ground", "bar1", point1=A, point2=[-l1 / 2, 0.0])
    b.add_joint("B", "revolute", "ground", "bar2", point1=B, point2=[-l2 / 2, 0.0])
    b.add_joint("C", "revolute", "bar1", "bar2", point1=[l1 / 2, 0.0], point2=[l2 / 2, 0.0])
    b.add_point_force("bar1", [l1 / 2, 0.0], P, lambda t: 1.0)
    model = b.build()
    q, v = place(model, poses, {})
    eq = static_equilibrium(prepare(model, q, v))
    u = np.column_stack([(C - A) / l1, (C - B) / l2])
    a, bb = np.linalg.solve(u, -P)
    R_A, R_B = a * u[:, 0], bb * u[:, 1]
    scale = np.linalg.norm(P)
    assert np.abs(-eq.lam[pair_rows(model, "A")] - R_A).max() < 1e-12 * scale
    assert np.abs(-eq.lam[pair_rows(model, "B")] - R_B).max() < 1e-12 * scale
    assert np.abs(eq.lam[pair_rows(model, "C")] - R_B).max() < 1e-12 * scale


def beam_model(elements, section, clamp=True, gravity=None, tip=None):
    """A straight steel beam of length BEAM along e1 from the origin (FEM, fixed-free reference
    conditions, no stiffening), clamped to the ground by a fixed joint at its first node (or free), with
    gravity and a tip force of fixed direction."""
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(BEAM, elements, section, E, RHO), stiffening=False)
    if clamp:
        b.add_joint("clamp", "fixed", "ground", "beam")
    if gravity is not None:
        b.set_gravity(gravity)
    if tip is not None:
        b.add_point_force("beam", [BEAM, 0.0], tip, lambda t: 1.0)
    model = b.build()
    q, v = place(model, {"beam": {"position": [0.0, 0.0], "angle": 0.0}}, {})
    return model, prepare(model, q, v)


def tip_position(model, q):
    """World position of the beam's tip, the material point at (BEAM, 0) of the body frame."""
    dofs, C, _ = model.material_point(0, np.array([BEAM, 0.0]))
    return C @ q[dofs]


SECTION = Section.rectangle(0.02, 0.01)  # 20 mm wide, 10 mm deep in the plane
EI = E * SECTION.inertia


@pytest.mark.parametrize("elements", [1, 4, 16])
def test_cantilever_under_a_tip_load(elements):
    """Tip deflection P L^3/(3 EI), nodally exact for cubic Hermite elements; the clamp's multipliers
    carry the load (points rows: lam = P) and the moment P L (the lock row x1 . y2 = 0 changes by -1
    per radian of rotation of the beam about the clamp, so its multiplier is -L P_y)."""
    P = np.array([0.0, -1.0])  # tip deflection about 1e-3 of the length
    model, setup = beam_model(elements, SECTION, tip=P)
    eq = static_equilibrium(setup)
    deflection = tip_position(model, eq.q) - [BEAM, 0.0]
    assert abs(deflection[1] / (P[1] * BEAM**3 / (3 * EI)) - 1) < 1e-9
    lam = eq.lam[pair_rows(model, "clamp")]
    assert np.abs(lam[:2] - P).max() < 1e-10 * abs(P[1])
    assert abs(lam[2] + BEAM * P[1]) < 1e-10 * abs(P[1]) * BEAM


@pytest.mark.parametrize("elements", [1, 4, 16])
def test_cantilever_under_its_own_weight(elements):
    """Tip deflection w L^4/(8 EI), w = rho A g: the consistent load of a uniform weight makes cubic
    Hermite elements exact at the nodes. The clamp carries the weight w L and the moment w L^2/2."""
    model, setup = beam_model(elements, SECTION, gravity=[0.0, -G])
    eq = static_equilibrium(setup)
    w = RHO * SECTION.area * G
    deflection = tip_position(model, eq.q) - [BEAM, 0.0]
    assert abs(deflection[1] / (-w * BEAM**4 / (8 * EI)) - 1) < 1e-9
    lam = eq.lam[pair_rows(model, "clamp")]
    assert np.abs(lam[:2] - [0.0, -w * BEAM]).max() < 1e-10 * w * BEAM
    assert abs(lam[2] - w * BEAM**2 / 2) < 1e-10 * w * BEAM**2


M1, M2, L1, L2 = 1.5, 0.8, 0.6, 0.4


def double_pendulum(theta1, theta2, servos=("theta1", "theta2"), level=False, trajectory=None):
    """Two rods in a chain under gravity, revolute joints A (ground - rod1, absolute angle theta1) and B
    (rod1 - rod2, relative angle theta2), coordinate servos holding the listed angles (inputs: the
    angles themselves); ``level``: an angle servo holds rod2's orientation through the input theta1."""
    b = ModelBuilder(2)
    for name, m, length in (("rod1", M1, L1), ("rod2", M2, L2)):
        b.add_body(name, m, [m * length**2 / 12 * (1 - 1e-6), m * length**2 / 12 * 1e-6])
    b.add_joint("A", "revolute", "ground", "rod1", point2=[-L1 / 2, 0.0], angle="theta1")
    b.add_joint("B", "revolute", "rod1", "rod2", point1=[L1 / 2, 0.0], point2=[-L2 / 2, 0.0], angle="theta2")
    b.set_gravity([0.0, -G])
    for name in servos:
        b.add_servo_coordinate(f"hold {name}", name, trajectory or Constant([0.0]))
    inputs = list(servos)
    if level:
        b.add_servo_angle("level", "rod2", Constant([0.0]))
        inputs.append("theta1")
    b.set_inputs(inputs)
    model = b.build()
    q, v = place(model, {}, {"A": {"angle": theta1}, "B": {"angle": theta2}})
    return model, prepare(model, q, v)


def gravity_torques(theta1, theta2):
    """dV/dtheta of V = g sum m y_centre: the joint torques that hold the two rods at rest."""
    outer = np.cos(theta1 + theta2)
    return np.array([G * (M1 * L1 / 2 * np.cos(theta1) + M2 * (L1 * np.cos(theta1) + L2 / 2 * outer)),
                     G * M2 * L2 / 2 * outer])


def test_servo_inputs_hold_the_links_against_gravity():
    """Servos holding both joint angles: the pose stays, and the inputs u = -lam are the gravity
    torques dV/dtheta of the links they hold. Held, nothing can move: no modes."""
    theta = (0.3, -1.1)
    model, setup = double_pendulum(*theta)
    eq = static_equilibrium(setup)
    angles = eq.q[[model.joint_coordinates["theta1"], model.joint_coordinates["theta2"]]]
    assert np.abs(angles - theta).max() < 1e-14
    assert np.abs(eq.inputs - gravity_torques(*theta)).max() < 1e-12 * M1 * G * L1
    assert natural_modes(setup, eq.q, eq.lam).omega2.size == 0


def test_stewart_platform_held_by_its_servos_matches_gauss_appell():
    """The Stewart-Gough platform held at a shifted and tilted pose by its servos (the platform's centre
    and orientation; the six slides as inputs) under gravity: the statics' inputs are the leg forces of
    the Gauss/Appell balance at rest (004, zero twist and twist rate), computed in the platform's
    coordinates without constraints. At rest the legs' axial inertia (``reference.models``) plays no
    part, so the two agree to round-off."""
    params = stewart.StewartParameters()
    position = params.home_position + np.array([0.03, -0.02, 0.05])
    rotation = kin.rotation_3d([1.0, 2.0, 0.5], 0.12)
    model = stewart_model(params, servo=lambda t: (position, rotation, np.zeros(6)))
    eq = static_equilibrium(prepare(model, *stewart_state(model, params, position, rotation)))
    expected = stewart.inverse_dynamics(params, position, rotation, np.zeros(6), np.zeros(6))
    assert np.abs(eq.inputs - expected).max() < 1e-12 * np.abs(expected).max()
    assert np.ptp(expected) > 1.0  # the legs carry different loads


def test_servos_are_held_at_their_targets_at_the_time_asked():
    """A servo trajectory theta(t) = theta_0 + 0.2 t: at t = 1.5 the pose is the target's, and the
    inputs hold it there."""
    model, setup = double_pendulum(0.3, -1.1, trajectory=Polynomial([[0.0, 0.2]]))
    eq = static_equilibrium(setup, t=1.5)
    angles = eq.q[[model.joint_coordinates["theta1"], model.joint_coordinates["theta2"]]]
    assert np.abs(angles - [0.6, -0.8]).max() < 1e-14
    assert np.abs(eq.inputs - gravity_torques(0.6, -0.8)).max() < 1e-12 * M1 * G * L1


def test_friction_is_refused():
    b = ModelBuilder(2)
    b.add_body("rod", MASS, [0.1, 1e-6])
    b.add_joint("pin", "revolute", "ground", "rod", point2=[-0.4, 0.0], angle="theta")
    b.add_friction("theta", 1e3, 1.0)
    b.set_gravity([0.0, -G])
    model = b.build()
    q, v = place(model, {"rod": {"position": [0.0, -0.4], "angle": -np.pi / 2}}, {})
    setup = prepare(model, q, v)
    with pytest.raises(StaticsError, match=r"Friction \(theta\).*history"):
        static_equilibrium(setup)
    with pytest.raises(ModesError, match=r"Friction \(theta\)"):
        natural_modes(setup)


def test_a_body_without_support_falls():
    """A free body under gravity: no equilibrium, the free motion that the weight drives is the vertical
    translation; the horizontal translation and the rotation are free motions without work."""
    b = ModelBuilder(2)
    b.add_body("box", 1.0, [0.1, 0.1])
    b.set_gravity([0.0, -G])
    model = b.build()
    q, v = place(model, {"box": {"position": [0.3, 0.2], "angle": 0.2}}, {})
    with pytest.raises(StaticsError, match=r"drive the free motion translation of 'box' along \(0, -1\).*"
                                           r"2 free motions along which the loads do no work"):
        static_equilibrium(prepare(model, q, v))


def test_free_rotation_without_gravity_is_named():
    """Without gravity every pose of a pendulum is an equilibrium: the free motion is the rotation about
    the pivot, and the loads do no work along it."""
    model, setup = pendulum(2, 0.7, gravity=False)
    with pytest.raises(StaticsError, match=r"1 free motion along which the loads do no work.*"
                                           r"rotation of 'rod' about \(0, 0\)"):
        static_equilibrium(setup)


def test_a_pendulum_started_horizontally_is_a_limit_point():
    """Started horizontally the pendulum's stiffness along its rotation vanishes while its weight works
    along it: Newton's matrix is singular, and the message names the rotation about the pivot."""
    model, setup = pendulum(2, 0.0)
    with pytest.raises(StaticsError, match=r"drive the free motion rotation of 'rod' about \(0, 0\)"):
        static_equilibrium(setup)


# ----------------------------------------------------------------------------------------------- modes

@pytest.mark.parametrize("inertia, arm", [(MASS * LENGTH**2 / 12, LENGTH / 2), (1e-8 * MASS, LENGTH)],
                         ids=["rod", "point-like"])
def test_planar_pendulum_frequency(inertia, arm):
    """omega^2 = m g d / (J + m d^2): 3 g/(2 L) for a slender rod pivoted at its end, g/l for a point
    mass. The joint angle, a massless coordinate, turns with the rod in the mode shape (condensed, not
    free), and the shape has unit modal mass."""
    model, setup = pendulum(2, -np.pi / 2, inertia, arm)
    modes = natural_modes(setup, k=1)
    assert abs(modes.omega2[0] / compound(inertia, arm) - 1) < 1e-12
    if inertia < 1e-6:
        assert abs(modes.omega[0] / np.sqrt(G / arm) - 1) < 1e-8
    x = modes.shapes[0]
    d1, dd1 = setup.q0[2:4], x[2:4]
    assert abs(x[model.joint_coordinates["theta"]] - (d1[0] * dd1[1] - d1[1] * dd1[0])) < 1e-12 * np.abs(x).max()
    assert abs(x @ model.mass_matrix @ x - 1) < 1e-12


def test_spatial_pendulum_has_two_equal_frequencies_and_a_free_spin():
    """A rod on a spherical joint hanging straight down: two equal swings with the compound pendulum's
    frequency, and the spin about its own (vertical) axis through the pivot, which nothing resists."""
    model, setup = pendulum(3, kin.rotation_3d([0.0, 1.0, 0.0], np.pi / 2))
    inertia = MASS * LENGTH**2 / 12 * (1 + 1e-3)  # E1 + E3 about a transverse axis
    for method in ("dense", "sparse"):
        modes = natural_modes(setup, k=3 if method == "dense" else 2, method=method)
        assert modes.zero[0] and not modes.zero[1:].any()
        assert np.abs(modes.omega2[1:] / compound(inertia, LENGTH / 2) - 1).max() < 1e-10
        assert "axis (0, 0, -1) through (0, 0, -0.4)" in modes.describe(0)


def test_inverted_pendulum_is_an_unstable_equilibrium():
    """Started above the horizontal, Newton reaches the inverted equilibrium; its mode is unstable,
    omega^2 = -m g d / (J + m d^2), and has no frequency."""
    model, setup = pendulum(2, 1.2)
    eq = static_equilibrium(setup)
    assert np.abs(model.frames(eq.q)[0][0] - [0.0, LENGTH / 2]).max() < 1e-12
    modes = natural_modes(setup, eq.q, eq.lam, k=1)
    inertia = MASS * LENGTH**2 / 12
    assert modes.unstable[0] and np.isnan(modes.omega[0])
    assert abs(modes.omega2[0] / -compound(inertia, LENGTH / 2) - 1) < 1e-12


def test_a_pose_out_of_equilibrium_is_refused():
    model, setup = pendulum(2, -1.2)
    with pytest.raises(ModesError, match="not a static equilibrium"):
        natural_modes(setup, k=1)


def test_two_mass_spring_chain():
    """ground -k1- m1 -k2- m2 on slides along e1, the springs pretensioned and damped: the statics
    finds the pose, and omega^2 are the eigenvalues of [[k1 + k2, -k2], [-k2, k2]] with diag(m1, m2)
    in closed form (the dampers carry nothing at rest; the slides stop the transverse geometric
    stiffness)."""
    m1, m2, k1, k2 = 1.2, 0.7, 300.0, 150.0
    b = ModelBuilder(2)
    b.add_body("m1", m1, [0.01, 0.01])
    b.add_body("m2", m2, [0.01, 0.01])
    b.add_joint("s1", "prismatic", "ground", "m1")
    b.add_joint("s2", "prismatic", "ground", "m2")
    b.add_spring_damper("k1", "ground", [0.0, 0.0], "m1", [0.0, 0.0], k1, 3.0, 0.8)
    b.add_spring_damper("k2", "m1", [0.0, 0.0], "m2", [0.0, 0.0], k2, 2.0, 0.5)
    model = b.build()
    q, v = place(model, {"m1": {"position": [1.0, 0.0]}, "m2": {"position": [2.0, 0.0]}}, {})
    setup = prepare(model, q, v)
    eq = static_equilibrium(setup)
    centres = model.frames(eq.q)[0]
    assert np.abs(centres[:2, 0] - [0.8, 1.3]).max() < 1e-12  # the free lengths: no tension left
    modes = natural_modes(setup, eq.q, eq.lam, k=2)
    mean = 0.5 * ((k1 + k2) / m1 + k2 / m2)
    exact = mean + np.array([-1.0, 1.0]) * np.sqrt(mean**2 - k1 * k2 / (m1 * m2))
    assert np.abs(modes.omega2 / exact - 1).max() < 1e-12


def test_held_and_free_servos():
    """rod1 held at 0.4 rad from hanging by a coordinate servo on its angle, rod2 hanging. Held, rod2 is
    a compound pendulum about the elbow: omega^2 = 3 g/(2 l2). Free, the input is a constant torque
    and both rods swing: omega^2 from the Lagrangian in (theta1, theta2) linearised at the pose,
    M = [[J1 + m1 l1^2/4 + J2 + m2 (l1^2 + l2^2/4 + l1 l2 cos theta2), J2 + m2 (l2^2/4 + l1 l2/2 cos
    theta2)], [.., J2 + m2 l2^2/4]] and K = Hessian of V = g sum m y_centre."""
    theta1 = -np.pi / 2 + 0.4
    theta2 = -np.pi / 2 - theta1
    model, setup = double_pendulum(theta1, theta2, servos=("theta1",))
    held = natural_modes(setup, k=1)
    assert abs(held.omega2[0] / (3 * G / (2 * L2)) - 1) < 1e-12
    free = natural_modes(setup, k=2, servos="free")
    J1, J2, c2 = M1 * L1**2 / 12, M2 * L2**2 / 12, np.cos(theta2)
    mass = np.array([[J1 + M1 * L1**2 / 4 + J2 + M2 * (L1**2 + L2**2 / 4 + L1 * L2 * c2),
                      J2 + M2 * (L2**2 / 4 + L1 * L2 / 2 * c2)],
                     [J2 + M2 * (L2**2 / 4 + L1 * L2 / 2 * c2), J2 + M2 * L2**2 / 4]])
    stiffness = G * np.array([[-(M1 / 2 + M2) * L1 * np.sin(theta1) + M2 * L2 / 2, M2 * L2 / 2],
                              [M2 * L2 / 2, M2 * L2 / 2]])
    exact = scipy.linalg.eigh(stiffness, mass, eigvals_only=True)
    assert np.abs(free.omega2 / exact - 1).max() < 1e-10


def test_a_servo_whose_input_moves_the_held_motion_is_refused():
    """Holding rod2's orientation through the torque at A leaves rod1 free to turn while the input does
    work on that motion (zero dynamics): refused when held, fine when the servo is free."""
    theta1 = -np.pi / 2 + 0.4
    model, setup = double_pendulum(theta1, -np.pi / 2 - theta1, servos=(), level=True)
    with pytest.raises(ModesError, match="servo level: the input does work"):
        natural_modes(setup, k=1)
    assert natural_modes(setup, k=2, servos="free").omega2.min() > 0


CANTILEVER = np.array([brentq(lambda b: np.cos(b) * np.cosh(b) + 1, a, a + 1) for a in (1.5, 4.4, 7.5)])
FREE_FREE = np.array([brentq(lambda b: np.cos(b) * np.cosh(b) - 1, a, a + 1) for a in (4.5, 7.5, 10.5)])


def bending_scale(section):
    return np.sqrt(E * section.inertia / (RHO * section.area * BEAM**4))


def test_clamped_beam_frequencies_converge_with_order_4():
    """A beam clamped by a fixed joint: omega_i = (beta_i L)^2 sqrt(EI/(rho A L^4)), cos(bL) cosh(bL) =
    -1. The three lowest modes are the bending ones (the first axial one, pi/2 sqrt(E/rho)/L = 8100
    rad/s, lies far above the third bending one, 920 rad/s); cubic Hermite elements with consistent mass
    converge from above at order 4."""
    errors = []
    for elements in (4, 8, 16):
        model, setup = beam_model(elements, SECTION)
        modes = natural_modes(setup, k=3)
        assert not modes.zero.any()
        errors.append(modes.omega / bending_scale(SECTION) / CANTILEVER**2 - 1)
    errors = np.array(errors)
    order = np.log2(errors[-2] / errors[-1])
    assert np.all(errors > 0) and np.all(np.abs(order - 4) < 0.15), order
    assert np.all(errors[-1] < [1e-6, 1e-5, 1e-4])


def test_free_beam_has_three_rigid_modes_and_its_free_free_frequencies():
    """The same body without the joint: its frame floats, three zero modes (two translations, one
    rotation) and the free-free bending frequencies, cos(bL) cosh(bL) = 1, converging at order 4. The
    floating frame carries the section's rotary inertia rho I L (its second moment), which lowers these
    frequencies by O((beta r/L)^2), r the section's radius of gyration: a thin strip (0.2 mm, r^2/L^2 =
    3e-9) keeps that below the discretisation error."""
    strip = Section.rectangle(0.02, 0.0002)
    errors = []
    for elements in (4, 8, 16):
        model, setup = beam_model(elements, strip, clamp=False)
        modes = natural_modes(setup, k=6)
        assert modes.zero.tolist() == [True] * 3 + [False] * 3
        assert np.all(modes.omega[:3] == 0.0)
        errors.append(modes.omega[3:] / bending_scale(strip) / FREE_FREE**2 - 1)
    errors = np.array(errors)
    order = np.log2(errors[-2] / errors[-1])
    assert np.all(errors > 0) and abs(order[0] - 4) < 0.15 and np.all(order > 3.7), order
    assert np.all(errors[-1] < [1e-5, 1e-4, 1e-3])


@pytest.mark.parametrize("clamp", [True, False], ids=["clamped", "free"])
def test_sparse_and_dense_modes_agree(clamp):
    """64 elements (588 coordinates, above the dense limit): ARPACK on the saddle pencil gives LAPACK's
    frequencies on the tangent space; its shapes are mass-orthonormal, satisfy the linearised
    constraints G x = 0, and the rigid modes of the free beam are found as zero modes."""
    model, setup = beam_model(64, SECTION, clamp=clamp)
    sparse = natural_modes(setup, k=6)
    dense = natural_modes(setup, k=6, method="dense")
    assert sparse.zero.sum() == dense.zero.sum() == (0 if clamp else 3)
    elastic = ~sparse.zero
    assert np.abs(sparse.omega2[elastic] / dense.omega2[elastic] - 1).max() < 1e-8
    X = sparse.shapes
    assert np.abs(X @ model.mass_matrix @ X.T - np.eye(6)).max() < 1e-10
    G_x = model.jacobian(setup.q0, setup.active_rows) @ X.T
    assert np.abs(G_x).max() < 1e-12 * np.abs(X).max()


def test_a_massless_link_is_condensed():
    """ground -k1- slider -k2- body on slides, the slider of 1e-14 the body's mass: its motion has no
    inertia, so it follows the body statically (Guyan's condensation is exact there) and the body
    swings on the two springs in series, omega^2 = k1 k2 / ((k1 + k2) m). The dense method condenses
    the slider's direction of the tangent space; the sparse one solves for it in every application of
    its operator. Asking for more modes than carry mass is refused by the dense method."""
    m, k1, k2 = 1.3, 400.0, 100.0
    b = ModelBuilder(2)
    b.add_body("slider", 1e-14 * m, [1e-16, 1e-16])
    b.add_body("body", m, [0.01, 0.01])
    b.add_joint("s1", "prismatic", "ground", "slider")
    b.add_joint("s2", "prismatic", "ground", "body")
    b.add_spring_damper("k1", "ground", [0.0, 0.0], "slider", [0.0, 0.0], k1, 0.0, 1.0)
    b.add_spring_damper("k2", "slider", [0.0, 0.0], "body", [0.0, 0.0], k2, 0.0, 1.0)
    model = b.build()
    q, v = place(model, {"slider": {"position": [1.0, 0.0]}, "body": {"position": [2.0, 0.0]}}, {})
    setup = prepare(model, q, v)
    series = k1 * k2 / ((k1 + k2) * m)
    for method in ("dense", "sparse"):
        modes = natural_modes(setup, k=1, method=method)
        assert abs(modes.omega2[0] / series - 1) < 1e-12
    with pytest.raises(ModesError, match="only 1 of the 2 degrees of freedom carry mass"):
        natural_modes(setup, k=2, method="dense")


class Follower(Force):
    """A thrust f d_1 on a planar body's reference point, turning with the body: the classical
    non-conservative load (its tangent d F_phi / d d_1 = f I has no symmetric counterpart)."""

    def __init__(self, dofs, thrust):
        super().__init__(dofs)
        self.thrust = thrust
        self.tangent_mask = np.zeros((6, 6), dtype=bool)
        self.tangent_mask[[0, 1], [2, 3]] = True

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        force = np.zeros_like(qb)
        force[:, :2] = self.thrust * 0.5 * (qa + qb)[:, 2:4]
        return force

    def tangent(self, qa, qb, t_mid, dt, state=None):
        tangent = np.zeros((len(qb), 6, 6))
        tangent[:, [0, 1], [2, 3]] = 0.5 * self.thrust
        return tangent


def test_a_follower_load_is_refused():
    """A follower load along the hanging rod keeps the equilibrium (it pulls through the pivot) but makes
    the tangent stiffness non-symmetric: no symmetric modes, refused."""
    model, setup = pendulum(2, -np.pi / 2)
    loaded = copy.copy(model)  # a built Model is frozen: the copy gets its own list of forces directly
    vars(loaded)["forces"] = model.forces + [Follower(model.body_dofs(0)[None, :], 5.0)]
    with pytest.raises(ModesError, match="not symmetric"):
        natural_modes(prepare(loaded, setup.q0, setup.v0), k=1)


def servo_arm(elements, gravity=True):
    """The beam of ``beam_model`` pinned to the ground at its first node instead, its joint angle held
    by a coordinate servo (the input: the angle itself), horizontal under gravity."""
    b = ModelBuilder(2)
    b.add_beam("arm", BeamBody.straight(BEAM, elements, SECTION, E, RHO), stiffening=False)
    b.add_joint("pin", "revolute", "ground", "arm", angle="theta")
    if gravity:
        b.set_gravity([0.0, -G])
    b.add_servo_coordinate("hold", "theta", Constant([0.0]))
    b.set_inputs(["theta"])
    model = b.build()
    q, v = place(model, {}, {"pin": {"angle": 0.0}})
    return model, prepare(model, q, v)


@pytest.mark.parametrize("elements, agree", [(16, 1e-10), (256, 1e-6)])
def test_flexible_arm_held_by_a_servo(elements, agree):
    """A flexible arm held horizontal by a servo on its pin's angle. Statics: the input is the weight's
    moment w L^2/2 (the deflection is across the arm: no lever arm changes to first order). Held, the
    arm is a cantilever: the clamped beam's frequencies, the weight across it changing none of them.
    Free (the input a constant torque), the arm turns about the pin as a pendulum whose only restoring
    moment comes from its sag: turning it by dtheta turns the weight across the arm, whose potential
    with the deflection condensed, -1/2 f(theta).K^-1 f(theta), f = w cos(theta), has the second
    derivative f.K^-1 f = w L y_c, y_c = w L^4/(20 EI) the sag of the centre of mass, so
    omega^2 = w L y_c / (m L^2/3) = 3 g w L^2 / (20 EI), to first order in the sag (1e-17 of the
    pencil's largest omega^2 on the fine mesh: a mode, not a zero mode). 256 elements take the sparse
    method; the two models agree there to the round-off of omega_1^2, which grows with the condition of
    the stiffness, eps omega_max^2/omega_1^2 ~ 4e-6 (3e-8 observed)."""
    model, setup = servo_arm(elements)
    eq = static_equilibrium(setup)
    w = RHO * SECTION.area * G
    assert abs(eq.inputs[0] / (w * BEAM**2 / 2) - 1) < 1e-12
    held = natural_modes(setup, eq.q, eq.lam, k=3)
    clamped = natural_modes(beam_model(elements, SECTION)[1], k=3)
    assert np.abs(held.omega2 / clamped.omega2 - 1).max() < agree
    free = natural_modes(setup, eq.q, eq.lam, k=2, servos="free")
    assert not free.zero.any() and not free.unstable.any()
    assert abs(free.omega2[0] / (3 * G * w * BEAM**2 / (20 * EI)) - 1) < 1e-3
