"""Joints and servos at material points of 3D flexible bodies (world-vector beams, ``beam.world``): a free
mechanism of a spinning, bending beam and a rigid arm joined at an interior point of the beam by each
spatial joint (the section carriers turn the joint frame with the section there), and a point servo at
an interior point of a beam."""
import numpy as np
import pytest
from shared import TIGHT

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.integrators.zero_dynamics import zero_dynamics
from femdyn.joints.trajectories import Polynomial
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import rotation_3d

SECTION = Section.rectangle(0.01, 0.02)  # b = 10 mm along d_3, h = 20 mm along d_2
JOINT = np.array([0.4, 0.0, 0.0])  # the beam's material point that carries the joint (inside element 3 of 6)
ARM = np.array([-0.15, 0.0, 0.0])  # the joint's point on the arm
AXIS = np.array([0.3, 1.0, 0.2])  # the joint axis on the beam's section (body-1 frame)
COORDINATES = {  # augmented coordinates of the pairs that have them (000 eqs. 27, 49)
    "spherical": {}, "universal": {}, "fixed": {}, "revolute": {"angle": "theta"}, "prismatic": {"slide": "s"},
    "cylindrical": {"angle": "theta", "slide": "s"},
}


def steel_beam(length, elements):
    return BeamBody.straight(length, elements, SECTION, 2.1e11, 7850.0, dim=3, axial="cubic", poisson=0.3)


def bending_rates(world, q, v, scale):
    """v with the elastic velocity scale (x^2 - 2 x X) e (e = d_2 + d_3/2 of the placed q, X the
    joint's point; the slopes its derivative) added at the beam's nodes, and the elastic velocity
    -scale X^2 e (3,) of the material point X: the beam bends while it spins, and its section at X
    translates without turning (Hermite elements represent the quadratic exactly away from the clamped
    root node)."""
    d = q[world.d].reshape(3, 3)  # rows d_a
    x = world.beam.nodes[1:, 0, None]
    across = d[1] + 0.5 * d[2]
    v[world.w[1:]] += scale * (x**2 - 2 * x * JOINT[0]) * across
    v[world.s[1:]] += scale * (2 * x - 2 * JOINT[0]) * across
    return v, -scale * JOINT[0] ** 2 * across


@pytest.mark.parametrize("joint", list(COORDINATES))
def test_free_mechanism_joined_at_a_material_point_conserves(joint):
    """A free beam (1 m, 6 elements, stiffening) and a rigid arm joined at the beam's interior point
    x1 = 0.4 m by ``joint`` (axis (0.3, 1, 0.2) on the beam's section, with the augmented angle and/or
    slide where the pair has them), spinning about a skew axis with the arm turning about the joint
    axis (4 rad/s) and sliding along it (0.5 m/s) where the pair lets it, the beam bending (its
    section at the joint translating), no ground, no gravity: the energy-momentum scheme keeps H, p and L to
    1e-11 relative, and every constraint row -- the joint's, the section carriers', the augmentation's
    -- holds to 1e-12."""
    b = ModelBuilder(3)
    b.add_beam("beam", steel_beam(1.0, 6), stiffening=True)
    b.add_body("arm", 0.5, [2e-3, 1e-3, 1.5e-3])
    b.add_joint("pair", joint, "beam", "arm", point1=JOINT, point2=ARM, axis=AXIS, **COORDINATES[joint])
    model = b.build()
    R = rotation_3d([1.0, 2.0, 3.0], 0.4)
    position, velocity, spin = np.array([0.2, -0.1, 0.3]), np.array([0.5, -0.2, 0.1]), np.array([3.0, 5.0, -5.0])
    arm = position + R @ (JOINT - ARM)
    axis = R @ AXIS / np.linalg.norm(AXIS)
    turn = 4.0 * axis * (joint not in ("fixed", "prismatic"))  # the arm's spin about the joint axis
    slide = 0.5 * axis * ("s" in COORDINATES[joint].values())  # and its slide along it
    bodies = {"beam": {"position": position, "rotation": R, "velocity": velocity, "angular_velocity": spin},
              "arm": {"position": arm, "rotation": R, "velocity": velocity + np.cross(spin, arm - position)
                      + np.cross(turn, R @ -ARM) + slide, "angular_velocity": spin + turn}}
    q, v = place(model, bodies, {})
    world = model.worlds[0]
    assert world.carrier_of(JOINT) is not None or joint == "spherical"  # the section turns the joint frame
    v, moved = bending_rates(world, q, v, 2.0)
    v[model.body_dofs(1)[:3]] += moved  # the arm's joint point moves with the beam's
    r = simulate(prepare(model, q, v), SolverSettings(1e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    assert np.abs(world.elastic_coordinates(r.q)).max() > 1e-3  # the beam bends
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    p_scale = np.sqrt(2.0 * r.kinetic.max() * sum(body.mass for body in model.bodies))
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-11 * p_scale
    L = np.linalg.norm(r.angular_momentum, axis=1)
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * L.max()
    assert r.residual.max() <= 1e-12
    for name in COORDINATES[joint].values():  # the augmented coordinate moves with the pair
        assert np.ptp(r.q[:, model.joint_coordinates[name]]) > 1e-3


@pytest.mark.parametrize("integrator", ["energy-momentum", "generalized-alpha"])
def test_point_servo_at_a_material_point_of_a_beam(integrator):
    """A beam (1 m, 6 elements) carried at its interior material point x1 = 0.55 m (inside element 4)
    by an x-y-z stage of three prismatic joints whose slides are the inputs (the last joint's frame
    turns with the beam's section there); a point servo moves that material point along a cubic path
    from where it starts -- collocated with the actuation, so that the inverse dynamics is well posed
    (a servo at a point away from the actuation would leave the beam's vibration between the two
    unprescribed; the zero dynamics diagnose it as collocated and minimum phase): with either
    integrator the point follows the path to 1e-12 m at every step (the servo rows are linear in the
    coordinates and hold at the step's end), while both free ends of the beam bend under the
    accelerations."""
    b = ModelBuilder(3)
    for name in ("x", "y"):
        b.add_body(f"stage_{name}", 1.0, [0.01, 0.01, 0.01])
    b.add_beam("beam", steel_beam(1.0, 6), stiffening=True)
    b.add_joint("slide_x", "prismatic", "ground", "stage_x", axis=[1.0, 0.0, 0.0], slide="sx")
    b.add_joint("slide_y", "prismatic", "stage_x", "stage_y", axis=[0.0, 1.0, 0.0], slide="sy")
    point = np.array([0.55, 0.0, 0.0])
    b.add_joint("slide_z", "prismatic", "stage_y", "beam", point2=point, axis=[0.0, 0.0, 1.0], slide="sz")
    path = Polynomial([[0.0, 0.0, 2.0, -4.0], [0.0, 0.0, -1.0, 3.0], [0.0, 0.0, 1.5, 2.0]])
    b.add_servo_point("hold", "beam", point, path)
    b.set_inputs(["sx", "sy", "sz"])
    model = b.build()
    q, v = place(model, {}, {name: {"slide": 0.0} for name in ("slide_x", "slide_y", "slide_z")})
    setup = prepare(model, q, v)
    diagnosis = zero_dynamics(setup)
    assert all(diagnosis.collocated) and diagnosis.minimum_phase
    r = simulate(setup, SolverSettings(2e-3, 0.3, integrator=integrator, rho_inf=0.5, **TIGHT))
    assert r.complete, r.message
    world = setup.model.worlds[0]
    start = world.positions(setup.q0, point[None])[0]
    traced = world.positions(r.q, point[None])[:, 0]
    target = start + np.array([path.value(t) - path.value(0.0) for t in r.t])
    assert np.abs(traced - target).max() <= 1e-12
    assert np.abs(world.elastic_coordinates(r.q)).max() > 1e-6  # the beam bends
