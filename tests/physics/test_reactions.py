"""Joint reactions (reactions.csv) and servo inputs (inputs.csv) at the time nodes, read from the result
folders of ``femdyn run``: the pivot force of a swinging pendulum against the exact large-amplitude
solution, the reactions of a statically determinate truss against hand calculation, Newton's third law
and the actuated joint's moment against the servo input, and inputs at the nodes free of the step-to-step
alternation of the mid-point multipliers."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from shared import CASES, observed_orders

from femdyn.beam.body import BeamBody, Section
from femdyn.cli import main
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case
from femdyn.io.tables import read_csv
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.model.reactions import JointReactions

G = 9.81
PENDULUM = """
title = "rigid rod pendulum released horizontally"
dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = {dt}
t_end = 2.0
[[bodies]]
name = "rod"
mass = 2.0
euler = ["2/12", "2*0.05**2/12"]
[[joints]]
name = "pivot"
type = "revolute"
bodies = ["ground", "rod"]
points = [[0.0, 0.0], [-0.5, 0.0]]
angle = "theta"
[initial.joints.pivot]
angle = 0.0
"""

TRUSS = """
title = "two-bar truss under its weight and a load at the apex"
dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = 0.01
t_end = 0.2
[[bodies]]
name = "left"
mass = 1.0
euler = ["1*2/12", "1*0.05**2/12"]
[[bodies]]
name = "right"
mass = 3.0
euler = ["3*2/12", "3*0.05**2/12"]
[[joints]]
name = "A"
type = "revolute"
bodies = ["ground", "left"]
points = [[0.0, 0.0], ["-sqrt(2)/2", 0.0]]
[[joints]]
name = "B"
type = "revolute"
bodies = ["ground", "right"]
points = [[2.0, 0.0], ["-sqrt(2)/2", 0.0]]
[[joints]]
name = "C"
type = "revolute"
bodies = ["left", "right"]
points = [["sqrt(2)/2", 0.0], ["sqrt(2)/2", 0.0]]
[[loads]]
type = "point_force"
body = "left"
point = ["sqrt(2)/2", 0.0]
force = [5.0, -20.0]
[initial.bodies.left]
position = [0.5, 0.5]
angle = "pi/4"
[initial.bodies.right]
position = [1.5, 0.5]
angle = "3*pi/4"
"""


def run(tmp_path, text, name, *options):
    case = tmp_path / f"{name}.toml"
    case.write_text(text)
    out = tmp_path / name
    assert main(["run", str(case), "--out", str(out), "--no-vtk", "--no-plots", "--quiet", *options]) == 0
    return {table: read_csv(out / f"{table}.csv") for table in ("history", "reactions", "inputs")
            if (out / f"{table}.csv").exists()}


def exact_pivot_force(t, m=2.0, r=0.5, length=1.0, width=0.05):
    """The force of the pivot on a uniform rod (mass m, centre at r from the pivot) released at rest
    horizontally: theta (from the horizontal) solves I_p theta'' = -m g r cos(theta), I_p = m (l^2 +
    w^2)/12 + m r^2 (solve_ivp, rtol 1e-12), and the pivot force is m x_c'' - m g with the centre's
    acceleration x_c'' = r (-sin th th'' - cos th th'^2, cos th th'' - sin th th'^2). Returns the world
    components (N, 2) and those along and across the rod (d_1 = (cos th, sin th), d_2 = J d_1)."""
    inertia = m * (length**2 + width**2) / 12 + m * r**2

    def rhs(_, y):
        return [y[1], -m * G * r * np.cos(y[0]) / inertia]

    sol = solve_ivp(rhs, (0.0, t[-1]), [0.0, 0.0], t_eval=t, rtol=1e-12, atol=1e-12, method="DOP853")
    th, w = sol.y
    acc = -m * G * r * np.cos(th) / inertia
    x_dd = r * np.stack([-np.sin(th) * acc - np.cos(th) * w**2, np.cos(th) * acc - np.sin(th) * w**2], axis=1)
    force = m * x_dd - m * np.array([0.0, -G])
    d1 = np.stack([np.cos(th), np.sin(th)], axis=1)
    d2 = np.stack([-np.sin(th), np.cos(th)], axis=1)
    return force, np.stack([np.sum(force * d1, axis=1), np.sum(force * d2, axis=1)], axis=1)


def test_pendulum_pivot_force_equals_the_exact_solution_at_second_order(tmp_path):
    """The rod swings through -pi/2 with its largest speed (|F| up to 2.5 m g): the largest error of the
    pivot force over every node of 2 s, in world and joint-frame components, falls at order 2 (1.9 to 2.1)
    for dt = 0.01, 0.005, 0.0025 and is below 1e-3 of m g at the finest; the ground feels the opposite
    force, and a free revolute transmits no moment about its point."""
    errors = []
    for dt in (0.01, 0.005, 0.0025):
        tables = run(tmp_path, PENDULUM.format(dt=dt), f"pendulum_{dt}")
        r = tables["reactions"]
        assert np.array_equal(r["t"], tables["history"]["t"])  # every node, the first and the last included
        world, local = exact_pivot_force(r["t"])
        got = np.stack([r["pivot.rod.force_x"], r["pivot.rod.force_y"]], axis=1)
        got_local = np.stack([r["pivot.rod.force_1"], r["pivot.rod.force_2"]], axis=1)
        errors.append(max(np.abs(got - world).max(), np.abs(got_local - local).max()) / (2.0 * G))
        np.testing.assert_allclose(r["pivot.ground.force_x"], -r["pivot.rod.force_x"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(r["pivot.ground.force_y"], -r["pivot.rod.force_y"], rtol=0, atol=1e-12)
        assert np.abs(r["pivot.rod.moment_z"]).max() < 1e-12 and np.abs(r["pivot.ground.moment_z"]).max() < 1e-12
    orders = observed_orders(errors)
    assert np.all((orders > 1.9) & (orders < 2.1)), (errors, orders)
    assert errors[-1] < 1e-3


def test_statically_determinate_truss_reactions_equal_hand_calculation(tmp_path):
    """Two rods pinned to the ground at A = (0, 0), B = (2, 0) and to each other at C = (1, 1) (no degree
    of freedom), under their weights m_1 g, m_2 g at the rods' middles and a load P at C on the left rod,
    stay at rest under the energy-momentum scheme, and the pin forces are those of statics: with C_x, C_y
    the force of the right rod on the left one, moments about A of the left rod and about B of the right
    rod give C_y - C_x = m_1 g/2 - P_y + P_x, C_y + C_x = -m_2 g/2; then A = (-C_x - P_x, m_1 g - C_y - P_y),
    B = (C_x, m_2 g + C_y). Equal at every node to 1e-9 (relative to m_2 g), along the rods' axes too."""
    tables = run(tmp_path, TRUSS, "truss")
    r = tables["reactions"]
    m1, m2, px, py = 1.0, 3.0, 5.0, -20.0
    diff, total = 0.5 * m1 * G - py + px, -0.5 * m2 * G
    cy, cx = 0.5 * (total + diff), 0.5 * (total - diff)
    expected = {"A.left": (-cx - px, m1 * G - cy - py), "B.right": (cx, m2 * G + cy), "C.left": (cx, cy),
                "C.right": (-cx, -cy), "A.ground": (cx + px, cy + py - m1 * G), "B.ground": (-cx, -m2 * G - cy)}
    scale = m2 * G
    for side, (fx, fy) in expected.items():
        assert np.abs(r[f"{side}.force_x"] - fx).max() < 1e-9 * scale, side
        assert np.abs(r[f"{side}.force_y"] - fy).max() < 1e-9 * scale, side
        assert np.abs(r[f"{side}.moment_z"]).max() < 1e-9 * scale, side
    s = np.sqrt(0.5)  # the left rod's axes d_1 = (s, s), d_2 = (-s, s); the right rod's d_1 = (-s, s)
    assert np.abs(r["C.left.force_1"] - s * (cx + cy)).max() < 1e-9 * scale
    assert np.abs(r["C.left.force_2"] - s * (cy - cx)).max() < 1e-9 * scale
    assert np.abs(r["C.right.force_1"] - s * (cx - cy)).max() < 1e-9 * scale
    assert np.abs(tables["history"]["kinetic"]).max() < 1e-20  # at rest


def test_actuated_joint_moment_is_the_servo_input_and_forces_balance(tmp_path):
    """The RPR figure-8 (servo-driven revolutes R1..R3, prismatic P1..P3, effector pins E1..E3) at dt =
    0.02 and 0.01: at every node each joint's forces on its two bodies are opposite, with opposite
    moments about a common point (a revolute's two points coincide), to round-off; the moment of each
    actuated revolute on its second body about the joint point is the servo input on its angle (the
    drive acts through the joint) to O(dt^2): the two differ by the step's discrete gradient of the angle
    row (Greenspan's quotient, ``joints.angle``), and their largest difference falls by 4 (3.5 to 4.5)."""
    differences = []
    for dt in (0.02, 0.01):
        tables = run(tmp_path, (CASES / "rpr_figure8.toml").read_text(), f"rpr_{dt}", "--dt", str(dt))
        r, u = tables["reactions"], tables["inputs"]
        assert np.array_equal(r["t"], u["t"])
        scale = max(np.abs(u[k]).max() for k in ("Theta1", "Theta2", "Theta3"))
        differences.append(max(np.abs(r[f"R{k}.cylinder{k}.moment_z"] - u[f"Theta{k}"]).max() for k in (1, 2, 3))
                           / scale)
        for k in (1, 2, 3):
            for one, two in [(f"R{k}.base", f"R{k}.cylinder{k}"), (f"E{k}.piston{k}", f"E{k}.effector")]:
                for c in ("force_x", "force_y", "moment_z"):
                    assert np.abs(r[f"{one}.{c}"] + r[f"{two}.{c}"]).max() < 1e-10 * scale, (one, c)
    assert 3.5 < differences[0] / differences[1] < 4.5 and differences[1] < 1e-3, differences


def test_inputs_at_the_nodes_do_not_alternate():
    """RPR figure-8 at dt = 0.02, 0.01, 0.005: the largest second difference of the inputs at the nodes
    falls by 4 per halving (3.8 to 4.2: O(dt^2), a smooth function); where the motion has stopped
    (t >= 3.2 s) the mid-point multipliers of the steps alternate in sign from step to step with
    amplitude above 1e-9 N m, while the nodal inputs are below 1e-2 of that (2e-12 to 1e-11)."""
    case = load_case(CASES / "rpr_figure8.toml")
    setup = prepare(case.model, case.q0, case.v0)
    largest = []
    for dt in (0.02, 0.01, 0.005):
        r = simulate(setup, case.settings.replace(dt=dt))
        u = r.node_inputs(case.model.input_rows)
        largest.append(np.abs(np.diff(u, 2, axis=0)).max())
        rest = r.t_mid >= 3.2
        mid = r.inputs[rest]
        assert np.all(mid[1:] * mid[:-1] < 0) and np.abs(mid).min() > 1e-9
        assert np.abs(u[r.t >= 3.2]).max() < 1e-2 * np.abs(mid).min()
    ratios = np.array(largest[:-1]) / np.array(largest[1:])
    assert np.all((ratios > 3.8) & (ratios < 4.2)), (largest, ratios)


@pytest.mark.parametrize("axial", ["cubic", "linear"], ids=["world-vectors", "carriers"])
@pytest.mark.parametrize("at", [0.0, 0.25])
def test_clamp_of_a_bent_beam_balances_its_loads(axial, at):
    """A steel beam (1 m, 20 x 10 mm, 8 elements) clamped to the ground at x = ``at`` (its end, or a
    material point that carries the section's axes), in static equilibrium under its weight and a tip
    load of 50 N that bends it by 3-5 % of its free length: the clamp's force and moment on the beam
    balance the loads on the deformed beam (Euler's laws of the body at rest), F = -(m g + P) and
    M = -((x_c - x_P) x m g + (x_tip - x_P) x P) about the clamp point x_P, with the deformed centre of
    mass x_c = int rho x / m (``Model.momenta`` at v = q) and tip x_tip, to 1e-9; the ground feels the
    opposite. Both embeddings of a flexible body (world vectors, carriers)."""
    steel, rho, length, tip = 2.1e11, 7850.0, 1.0, np.array([0.0, -50.0])
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(length, 8, Section.rectangle(0.02, 0.01), steel, rho, axial=axial),
               stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "beam", point1=[at, 0.0], point2=[at, 0.0])
    b.set_gravity([0.0, -G])
    b.add_point_force("beam", [length, 0.0], tip, lambda t: 1.0)
    model = b.build()
    q, v = place(model, {"beam": {"position": [0.0, 0.0], "angle": 0.0}}, {})
    eq = static_equilibrium(prepare(model, q, v))
    columns = JointReactions(model).columns(eq.q[None], eq.lam[None])
    mass = rho * 0.02 * 0.01 * length
    centre = model.momenta(eq.q, eq.q)[0] / mass
    dofs, C, _ = model.material_point(0, np.array([length, 0.0]))
    x_tip, x_p = C @ eq.q[dofs], np.array([at, 0.0])
    assert abs(x_tip[1]) > 0.02 * (length - at)  # bent
    weight = np.array([0.0, -mass * G])
    force = -(weight + tip)
    def cross(a, b):
        return a[0] * b[1] - a[1] * b[0]

    moment = -(cross(centre - x_p, weight) + cross(x_tip - x_p, tip))
    scale = np.abs(tip).max() * length
    assert abs(columns["clamp.beam.force_x"][0] - force[0]) < 1e-9 * scale
    assert abs(columns["clamp.beam.force_y"][0] - force[1]) < 1e-9 * scale
    assert abs(columns["clamp.beam.moment_z"][0] - moment) < 1e-9 * scale
    assert abs(columns["clamp.ground.moment_z"][0] + moment) < 1e-9 * scale


@pytest.mark.parametrize("axial", ["cubic", "linear"], ids=["world-vectors", "carriers"])
def test_clamp_of_a_bent_spatial_beam_balances_its_loads(axial):
    """The spatial twin of ``test_clamp_of_a_bent_beam_balances_its_loads``: the steel beam (1 m, 20 x
    10 mm, 4 elements) clamped at x = 0.25 m, bent by its weight along -z and a tip load (0, 30, -50) N
    that also twists it about the axis of its weak and strong planes: the clamp's force and moment
    (world frame, about the clamp point) balance the loads on the deformed beam to 1e-9, and the
    ground feels the opposite. With carriers (``spatial_ffr``) the joint's rows act on the carriers
    c_aj = q_j d_a too, which turn with the body: their moment x x f belongs to the body's
    (``reactions``), without it the balance misses the bending moment of the elastic part."""
    steel, rho, length, tip, at = 2.1e11, 7850.0, 1.0, np.array([0.0, 30.0, -50.0]), 0.25
    b = ModelBuilder(3)
    b.add_beam("beam", BeamBody.straight(length, 4, Section.rectangle(0.02, 0.01), steel, rho, dim=3,
                                         axial=axial, poisson=0.3),
               stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "beam", point1=[at, 0.0, 0.0], point2=[at, 0.0, 0.0])
    b.set_gravity([0.0, 0.0, -G])
    b.add_point_force("beam", [length, 0.0, 0.0], tip, lambda t: 1.0)
    model = b.build()
    q, v = place(model, {"beam": {"position": [0.0, 0.0, 0.0], "rotation": np.eye(3)}}, {})
    eq = static_equilibrium(prepare(model, q, v))
    columns = JointReactions(model).columns(eq.q[None], eq.lam[None])
    mass = rho * 0.02 * 0.01 * length
    centre = model.momenta(eq.q, eq.q)[0] / mass
    dofs, C, _ = model.material_point(0, np.array([length, 0.0, 0.0]))
    x_tip, x_p = C @ eq.q[dofs], np.array([at, 0.0, 0.0])
    assert np.hypot(*x_tip[1:]) > 0.01 * (length - at)  # bent
    weight = np.array([0.0, 0.0, -mass * G])
    force = -(weight + tip)
    moment = -(np.cross(centre - x_p, weight) + np.cross(x_tip - x_p, tip))
    scale = np.abs(tip).max() * length
    for i, a in enumerate("xyz"):
        assert abs(columns[f"clamp.beam.force_{a}"][0] - force[i]) < 1e-9 * scale
        assert abs(columns[f"clamp.beam.moment_{a}"][0] - moment[i]) < 1e-9 * scale
        assert abs(columns[f"clamp.ground.moment_{a}"][0] + moment[i]) < 1e-9 * scale
