"""Test support used by more than one folder of tests: the repository's shipped cases and meshes,
small models built in code with their initial states, a reference solution in minimal coordinates,
and the scale against which a vanishing angular momentum is judged. pytest puts ``tests/`` on
``sys.path`` (``pythonpath`` in pyproject.toml), so a test imports these as ``from shared import ...``.
"""
import math
import pathlib

import numpy as np
import scipy.sparse.linalg as spla
from scipy.integrate import solve_ivp

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.saddle import SaddleSystem
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.joints.trajectories import Polynomial
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

ROOT = pathlib.Path(__file__).resolve().parent.parent  # the repository
CASES = ROOT / "cases"
MESHES = ROOT / "meshes"
STEEL = dict(young=2.1e11, rho=7850.0)
TIGHT = dict(tolerance=1e-13)  # Newton tolerance of the conservation tests


def flexible_pendulum(elements=8, axial="linear"):
    """A 1 m steel beam (10 x 10 mm, FFR Euler-Bernoulli with stiffening) pinned at one end and
    released horizontally under gravity: the model of benchmarks/exudyn_flexible.py (there with
    ``axial`` = "cubic"), and its projected initial state."""
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(1.0, elements, Section.rectangle(0.01, 0.01), 2.1e11, 7850.0,
                                         axial=axial), stiffening=True)
    b.add_joint("pin", "revolute", "ground", "beam")
    b.set_gravity([0.0, -9.81])
    model = b.build()
    q, v = place(model, {}, {"pin": {"angle": 0.0}})
    return model, prepare(model, q, v)


def free_beam(stiffening, modes=None):
    """A free 1 m steel beam (10 x 10 mm), spinning and bending: no loads, no joints."""
    beam = BeamBody.straight(1.0, 6, Section.rectangle(0.01, 0.01), STEEL["young"], STEEL["rho"], modes=modes,
                             axial="linear")
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=stiffening)
    model = b.build()
    q, v = place(model, {"beam": {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2],
                                  "angular_velocity": 15.0}}, {})
    f = model.flexible[0]
    v[f.elastic] = 0.05 * np.sin(np.arange(f.n_elastic) + 1.0)  # elastic motion ...
    v[f.carriers] = v[f.elastic, None] * q[f.rigid[2:4]]  # ... with consistent carriers c' = q' d_1
    return model, prepare(model, q, v)


def clamped_cantilever_text(dim, beam, stiffening, loads, probe=False, elements=4):
    """A case file's text: the beam body "beam" (``beam``: the inside of its beam table) clamped to the
    ground at its first node by a fixed joint, ``elements`` elements, geometric stiffening on or off,
    the ``loads`` at its tip x1 = L -- (type, key, value) as ("point_force", "force", [..]) or
    ("torque", "torque", value) -- and with ``probe`` a probe "tip" there; L is the beam's length."""
    length = float(beam.split("length = ")[1].split(",")[0])
    tip = [length] + [0.0] * (dim - 1)
    tables = "".join(f'[[loads]]\ntype = "{kind}"\nbody = "beam"\npoint = {tip}\n{key} = {value}\n'
                     for kind, key, value in loads)
    probes = f'[[probes]]\nname = "tip"\nbody = "beam"\npoint = {tip}\n' if probe else ""
    return f"""\
dimension = {dim}
[solver]
dt = 0.01
t_end = 0.02
[flexible]
elements = {elements}
geometric_stiffening = {str(stiffening).lower()}
[[bodies]]
name = "beam"
beam = {{{beam}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
{tables}{probes}[initial.bodies.beam]
position = {[0.0] * dim}
"""


def free_spatial_body(body, stiffening=False, rate=0.05):
    """A free 3D beam body spinning about an axis that is not principal and vibrating (the elastic rates
    ``rate`` (1 .. 2) on its coordinates, one after the other): no loads, no joints. The model and its
    prepared setup."""
    from femdyn.numerics.kinematics import rotation_3d

    b = ModelBuilder(3)
    b.add_beam("beam", body, stiffening=stiffening)
    model = b.build()
    pose = {"position": [0.2, -0.1, 0.3], "rotation": rotation_3d([1.0, 2.0, 3.0], 0.4),
            "velocity": [0.5, -0.2, 0.1], "angular_velocity": np.array([3.0, 10.0, -5.0])}
    q, v = place(model, {"beam": pose}, {})
    rates = rate * np.linspace(1.0, 2.0, body.n_coordinates)
    q, v = model.flexible[0].with_elastic(q, v, 0.0 * rates, rates)
    return model, prepare(model, q, v)


def assert_conserved(model, r, tolerance=1e-11):
    """A free body's run r (``simulate``) conserved the energy, the linear momentum (against
    sqrt(2 T m) of its first body) and the angular momentum to ``tolerance`` relative, its constraints
    to 1e-12."""
    assert np.ptp(r.total) <= tolerance * r.total.max()
    p_scale = np.sqrt(2.0 * r.kinetic.max() * model.bodies[0].mass)
    assert np.abs(r.momentum - r.momentum[0]).max() <= tolerance * p_scale
    L = np.linalg.norm(r.angular_momentum, axis=1)
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= tolerance * L.max()
    assert r.residual.max() <= 1e-12


def static_equilibrium(model, q, loads=None, tolerance=1e-13):
    """Static equilibrium F(q) + loads = G^T lam, Phi(q) = 0 from the placed state q: Newton's method on
    the model's saddle system with zero mass factor (the continuous forms of forces and constraints,
    as generalized-alpha evaluates them); returns the model of the run and q. ``loads`` (n,):
    generalised forces added to the model's."""
    setup = prepare(model, q, np.zeros(model.n))
    model, q = setup.model, setup.q0.copy()
    system = SaddleSystem(model, setup.active_rows)
    n, lam, states = model.n, np.zeros(model.m), model.initial_states(q)
    loads = np.zeros(n) if loads is None else loads
    for _ in range(30):
        R = np.empty(system.size)
        F, values = system.applied(q, q, 0.0, 1.0, states, system.constant) + loads, system.newton_values(0.0)
        for k in system.varying:
            f = system.forces[k]
            force, dF_dq, _ = f.continuous_tangents(q[f.dofs], 0 * q[f.dofs], 0.0, 1.0, states[k])
            F += system.scatter(f.dofs, force)
            system.add_tangent(values, k, dF_dq, -1.0)
        R[:n] = -F
        starts = system.begin_step(q, 0.0, midpoint=False)
        system.constrain(R, starts, q, q, lam, 1.0, 2.0, values)
        dx = spla.spsolve(system.pattern.csc(values), -R)
        q += dx[:n]
        lam[system.active] += dx[n:]
        if np.abs(dx[:n]).max() <= tolerance * max(1.0, np.abs(q).max()):
            return model, q
    raise AssertionError("the static Newton iteration did not converge")


def damped_oscillator(damping):
    """A 1.5 kg mass on a prismatic joint to the ground, held by a spring (40 N/m, free length 1 m) with
    the given damping, released at 1.3 m moving at 0.5 m/s."""
    b = ModelBuilder(2)
    b.add_body("mass", 1.5, [0.01, 0.02])
    b.add_joint("track", "prismatic", "ground", "mass", slide="x")
    b.add_spring_damper("spring", "ground", [0.0, 0.0], "mass", [0.0, 0.0], 40.0, damping, 1.0)
    model = b.build()
    q, v = place(model, {}, {"track": {"slide": 1.3, "slide_rate": 0.5}})
    return model, prepare(model, q, v)


def oscillator(stiffness, mass=1.0, free_length=10.0, stretch=1e-3, rate=0.0):
    """A mass on a straight guide held by a spring to the ground: a linear oscillator along the
    guide, omega^2 = k/m. The long free length keeps the mirrored spring branch out of reach."""
    b = ModelBuilder(2)
    b.add_body("mass", mass, [0.01, 0.02])
    b.add_joint("guide", "prismatic", "ground", "mass", slide="x")
    b.add_spring_damper("spring", "ground", [0.0, 0.0], "mass", [0.0, 0.0], stiffness, 0.0, free_length)
    model = b.build()
    q, v = place(model, {}, {"guide": {"slide": free_length + stretch, "slide_rate": rate}})
    return model, prepare(model, q, v)


def double_pendulum_ode(t_eval, theta0, rates0=(0.0, 0.0), m=1.0, l=1.0, w=0.05, g=9.81):
    """Absolute rod angles and rates (from the horizontal) of two uniform rods (cases/double_pendulum.toml),
    Lagrange's equations in minimal coordinates: (4, len(t_eval)) rows theta1, theta2, rates."""
    J = m * (l**2 + w**2) / 12.0
    a = m * l * l / 2.0
    M11, M22 = m * l**2 / 4 + J + m * l**2, m * l**2 / 4 + J

    def rhs(t, y):
        t1, t2, w1, w2 = y
        c, s = math.cos(t1 - t2), math.sin(t1 - t2)
        M = np.array([[M11, a * c], [a * c, M22]])
        f = np.array([-a * s * w2**2 - g * (m * l / 2 + m * l) * math.cos(t1),
                      a * s * w1**2 - g * m * l / 2 * math.cos(t2)])
        return [w1, w2, *np.linalg.solve(M, f)]

    return solve_ivp(rhs, (0.0, t_eval[-1]), [*theta0, *rates0], t_eval=t_eval, method="DOP853",
                     rtol=1e-12, atol=1e-12).y


def angular_momentum_scale(model, results):
    """Sum of the magnitudes of the bodies' angular-momentum contributions, max over time: the scale
    against which a total angular momentum that happens to be zero is compared."""
    dim = model.dim
    nb = dim * (dim + 1)
    k = len(model.bodies)
    Q = results.q[:, : k * nb].reshape(len(results.t), k, dim + 1, dim)
    V = results.v[:, : k * nb].reshape(len(results.t), k, dim + 1, dim)
    W = model.mass_matrix.diagonal()[: k * nb].reshape(k, dim + 1, dim)[:, :, 0]
    cross = np.cross(Q, V) if dim == 3 else Q[..., 0] * V[..., 1] - Q[..., 1] * V[..., 0]
    magnitude = np.linalg.norm(cross, axis=-1) if dim == 3 else np.abs(cross)
    return float(np.max(np.sum(W * magnitude, axis=(1, 2))))


def observed_orders(errors):
    """log2 of the ratios of successive errors of a refinement by halving: the observed orders."""
    e = np.asarray(errors)
    return np.log2(e[:-1] / e[1:])


def run_at(case, dt, t_end=None):
    """The case prepared and simulated with time step dt (to its end time, or t_end)."""
    setup = prepare(case.model, case.q0, case.v0, case.settings.initial_tolerance)
    return simulate(setup, SolverSettings(dt, t_end or case.settings.t_end))


def run_file(path, dt=None, t_end=None):
    """The case file loaded and simulated (its dt and t_end unless given): (case, results)."""
    case = load_case(path)
    return case, run_at(case, dt or case.settings.dt, t_end)


def effector(case, r):
    """Centres (F, dim) and rotations (F, dim, dim) of the body named "effector" over a run."""
    k = [b.name for b in case.model.bodies].index("effector")
    centres, rotations = case.model.frames(r.q)
    return centres[:, k], rotations[:, k]


LINK = dict(length=1.0, b=0.02, h=0.01, young=70e9, rho=2700.0)  # aluminium, h in the plane


def flexible_link(output="tip", elements=4, trajectory=None, young=LINK["young"], torque=None, modes=None):
    """The single flexible link (E. Bayo, J. Robotic Systems 4 (1987) 63): a 1 m aluminium beam (LINK) on a
    hub revolute joint at the origin (angle 'theta', the input), no gravity; the servo holds the tip
    point's polar angle (``output`` "tip", non-collocated) or the hub angle ("hub", collocated) on
    ``trajectory`` (default: a rest-to-rest turn by 0.5 rad over 1 s); its model and prepared setup.
    With a ``torque`` (a function of t): no servo, that hub torque instead; the model only. ``modes`` = 0:
    the rigid limit of the beam."""
    from femdyn.joints.trajectories import SmoothRampAngle

    trajectory = trajectory or SmoothRampAngle(0.5, 0.5, 1.0, 1.0)
    b = ModelBuilder(2)
    b.add_beam("link", BeamBody.straight(LINK["length"], elements, Section.rectangle(LINK["b"], LINK["h"]), young,
                                         LINK["rho"], axial="linear", modes=modes), stiffening=False)
    b.add_joint("hub", "revolute", "ground", "link", angle="theta")
    if torque is not None:
        b.add_joint_load("theta", torque)
        return b.build()
    if output == "tip":
        b.add_servo_polar("tip", "link", [LINK["length"], 0.0], trajectory)
    else:
        b.add_servo_coordinate("hub", "theta", trajectory)
    b.set_inputs(["theta"])
    model = b.build()
    q, v = place(model, {}, {"hub": {"angle": 0.0}})
    return model, prepare(model, q, v)


def damped_free_bodies(dim, rate=0.5, spin=15.0):
    """Two free damped beams (1 m steel, 10 x 10 mm), spinning, translating and vibrating: a FEM body of
    world vectors with Rayleigh damping and a Rayleigh-Ritz body (carriers) with modal damping ratios, no
    joints, no loads. The model and its prepared setup (elastic rates ``rate`` m/s on every elastic
    coordinate, the bodies already deformed by 2 mm)."""
    from femdyn.beam.damping import Damping
    from femdyn.numerics.kinematics import rotation_3d

    section, spatial = Section.rectangle(0.01, 0.01), {"poisson": 0.3} if dim == 3 else {}
    fem = BeamBody.straight(1.0, 4, section, STEEL["young"], STEEL["rho"], dim=dim,
                            damping=Damping(alpha=2.0, beta=2e-4), **spatial)
    nodes = np.zeros((2, dim))
    nodes[1, 0] = 0.8
    ritz = BeamBody.rayleigh_ritz(nodes, section, STEEL["young"], STEEL["rho"], damping=Damping(ratio=(0.05, 0.02)),
                                  **spatial)
    b = ModelBuilder(dim)
    b.add_beam("fem", fem, stiffening=False)
    b.add_beam("ritz", ritz, stiffening=False)
    model = b.build()
    if dim == 2:
        poses = {"fem": {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2], "angular_velocity": spin},
                 "ritz": {"position": [0.0, 1.0], "angle": -0.5, "velocity": [-0.3, 0.1], "angular_velocity": -spin}}
    else:
        poses = {"fem": {"position": [0.2, -0.1, 0.3], "rotation": rotation_3d([1.0, 2.0, 3.0], 0.4),
                         "velocity": [0.5, -0.2, 0.1], "angular_velocity": spin * np.array([0.3, 1.0, -0.5])},
                 "ritz": {"position": [0.0, 1.0, 0.0], "rotation": rotation_3d([0.0, 1.0, 1.0], -0.5),
                          "velocity": [-0.3, 0.1, 0.0], "angular_velocity": spin * np.array([-1.0, 0.2, 0.4])}}
    q, v = place(model, poses, {})
    for f in model.flexible:
        k = f.beam.n_coordinates
        q, v = f.with_elastic(q, v, 2e-3 * np.cos(np.arange(k)), rate * np.sin(np.arange(k) + 1.0))
    return model, prepare(model, q, v)


def rotating_blade(elements, speed, side=1e-3):
    """A uniform cantilever of length 1 with EI = 1, rho A = 1 (frequency unit 1 rad/s), square section of
    ``side``, spatial world-vector beam with geometric stiffening, on a revolute joint about z to the
    ground whose angle ``theta`` a coordinate servo (the input) holds at ``speed`` t: the rotating beam of
    test_rotating_beam.py and test_rotating_cantilever_modes.py (Wright et al. 1982). Returns the model."""
    section = Section.rectangle(side, side)
    body = BeamBody.straight(1.0, elements, section, 1.0 / section.iz, 1.0 / section.area, dim=3, axial="cubic",
                             poisson=0.3)
    b = ModelBuilder(3)
    b.add_beam("blade", body, stiffening=True)
    b.add_joint("hub", "revolute", "ground", "blade", angle="theta", axis=[0.0, 0.0, 1.0])
    b.add_servo_coordinate("spin", "theta", Polynomial([[0.0, float(speed)]]))
    b.set_inputs(["theta"])
    return b.build()


# The planar two-link arm of the workspace-map tests (tests/physics/test_map.py has its closed form): a
# flexible first link (aluminium, 0.5 m, clamped to its motor) and a rigid second link, both joints servo-held.
TWO_LINK_ARM = """
title = "two-link arm"
dimension = 2
gravity = [0.0, {gravity}]

[solver]
dt = 0.001
t_end = 0.01

[flexible]
model = "fem"
elements = 2

[[bodies]]
name = "link1"
beam = {{length = 0.5, young = {young}, density = 2700.0, b = 0.02, h = 0.01}}

[[bodies]]
name = "link2"
mass = 0.5
euler = ["0.5*0.4**2/12", "0.5*0.02**2/12"]

[[joints]]
name = "shoulder"
type = "revolute"
bodies = ["ground", "link1"]
angle = "theta1"

[[joints]]
name = "elbow"
type = "revolute"
bodies = ["link1", "link2"]
points = [[0.5, 0.0], [-0.2, 0.0]]
angle = "theta2"

[[servos]]
name = "m1"
type = "coordinate"
coordinate = "theta1"
trajectory = {{type = "constant", value = [0.0]}}

[[servos]]
name = "m2"
type = "coordinate"
coordinate = "theta2"
trajectory = {{type = "constant", value = [0.0]}}

[control]
inputs = ["theta1", "theta2"]

[[probes]]
name = "tip"
body = "link2"
point = [0.2, 0.0]

[initial.joints.shoulder]
angle = {theta1}
[initial.joints.elbow]
angle = {theta2}
"""


def two_link_arm(folder, gravity=-9.81, young=70e9, theta1=0.3, theta2=1.0):
    """The case file of the two-link arm (``TWO_LINK_ARM``) written into ``folder``: its path."""
    path = folder / f"arm_{gravity}_{young:g}_{theta1}_{theta2}.toml"
    path.write_text(TWO_LINK_ARM.format(gravity=gravity, young=young, theta1=theta1, theta2=theta2))
    return path


def newton_matrix_by_differences(residual, qb, lam, active, scale):
    """The saddle Newton matrix from its residual R(q, lam): columns of q by central differences (step
    1e-6 max(1, |q|)), those of the scaled multipliers lam/s (``active`` rows, s = ``scale``) by one
    difference each, exact since R is linear in them."""
    R = residual(qb, lam)
    h = 1e-6 * max(1.0, np.abs(qb).max())
    columns = []
    for j in range(qb.size):
        e = np.zeros(qb.size)
        e[j] = h
        columns.append((residual(qb + e, lam) - residual(qb - e, lam)) / (2 * h))
    for i in active:
        e = np.zeros(lam.size)
        e[i] = scale  # the unknown is lam/s
        columns.append(residual(qb, lam + e) - R)
    return np.column_stack(columns)


def pinned_beam(dim, elements=4, gravity=True):
    """A pinned steel beam of 0.5 m (world-vector elements with geometric stiffening) released
    horizontal from rest under gravity (or none), in space tilted out of the first plane: (model, its
    setup)."""
    b = ModelBuilder(dim)
    b.add_beam("beam", BeamBody.straight(0.5, elements, Section.rectangle(0.01, 0.01), 2.1e11, 7850.0, dim=dim,
                                         **({"poisson": 0.3} if dim == 3 else {})), stiffening=True)
    b.add_joint("pin", "revolute" if dim == 2 else "spherical", "ground", "beam")
    if gravity:
        b.set_gravity([0.0, -9.81] + [3.0] * (dim - 2))
    model = b.build()
    if dim == 2:
        q, v = place(model, {}, {"pin": {"angle": 0.0}})
    else:
        q, v = place(model, {"beam": {"position": [0.0] * 3}}, {})
    return model, prepare(model, q, v)
