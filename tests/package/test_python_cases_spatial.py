"""The spatial parallel manipulators of cases/ built from Python alone (``femdyn.ModelBuilder``,
``femdyn.Problem``, no TOML) run the history of their case files (``femdyn.load(path).run()``) to
round-off, every table column by column (``python_cases.same_tables``):

- the Stewart-Gough platform (6-UPS, 004 section II): rigid legs on universal, prismatic and spherical
  joints, its platform's centre and attitude moved by a point and an orientation servo (Euler angles),
  the six leg forces the inputs;
- the same with a flexible platform frame (four welded 3D FEM beams under pinned-held reference
  conditions and a tool plate), its legs' lengths driven by clamped splines through the rigid motion's
  inverse kinematics (coordinate servos, absolute targets), started in the static equilibrium;
- the Delta robot with flexible upper arms (3D beams of a general tube section), universal and spherical
  joints on the forearm rods, the motor angles driven by harmonic coordinate servos, started in the
  static equilibrium.

The geometry is computed from the case files' stated data (radii, angles, lengths), not copied from
their 17-digit numbers; the rigid Stewart-Gough platform and its legs are the gallery's
(docs/examples/stewart_gough.py)."""
import runpy
from dataclasses import replace

import numpy as np
import pytest
from python_cases import ROUND_OFF, same_tables
from scipy.spatial.transform import Rotation
from shared import CASES, ROOT

import femdyn

pi = np.pi
GALLERY = runpy.run_path(str(ROOT / "docs" / "examples" / "stewart_gough.py"), run_name="gallery_stewart_gough")
stewart_gough = GALLERY["stewart_gough"]  # cases/stewart_gough.toml, built in the gallery's example
BASE, PLATFORM, HOME, Z = GALLERY["BASE"], GALLERY["PLATFORM"], GALLERY["HOME"], GALLERY["Z"]
add_leg_bodies, add_leg_joints, leg_poses = GALLERY["add_leg_bodies"], GALLERY["add_leg_joints"], GALLERY["leg_poses"]


def leg_lengths(times):
    """The legs' lengths |c(t) + R(t) B_i - A_i| along the rigid platform's motion (c the centre, R its
    rotation), (times, 6), to the 12 decimals the case file gives them with."""
    centre, angles = GALLERY["platform_motion"]()
    attitude = femdyn.trajectories.EulerAngles(angles)
    lengths = [np.linalg.norm(HOME + centre.value(t) + PLATFORM @ attitude(t)[0].T - BASE, axis=1) for t in times]
    return np.round(lengths, 12)


def stewart_gough_flexible():
    """cases/stewart_gough_flexible.toml: the platform a frame of aluminium beams (30 x 50 mm; a deck
    along x welded to three cross-beams along y that carry the spherical joints) with a 3.5 kg tool plate
    at its centre, the legs' lengths driven by splines through the rigid motion's (every 0.02 s to 2.2 s),
    generalized-alpha steps, started in the static equilibrium."""
    b = femdyn.ModelBuilder(3)
    deg = pi / 180
    deck = 0.3 * (np.cos(10 * deg) + np.cos(50 * deg))
    cross = {"C1": 0.6 * np.sin(50 * deg), "C2": 0.6 * np.sin(70 * deg), "C3": 0.6 * np.sin(10 * deg)}
    for name, length in {"deck": deck, **cross}.items():
        beam = femdyn.BeamBody.straight(length, 4, femdyn.Section.rectangle(0.03, 0.05), 70e9, 2700.0, dim=3,
                                        poisson=0.33, reference="pinned-held")
        b.add_beam(name, beam)
    b.add_body("tool", 3.5, [3.5 * 0.2**2 / 12, 3.5 * 0.2**2 / 12, 3.5 * 0.03**2 / 12], size=[0.2, 0.2, 0.03])
    for i in range(6):
        add_leg_bodies(b, i)
    turn = Rotation.from_rotvec(pi / 2 * Z).as_matrix()  # a cross-beam's d_1 along +y
    welds = {"W1": ("C1", deck), "W2": ("C2", 0.3 * (np.cos(10 * deg) + np.cos(70 * deg))), "W3": ("C3", 0.0)}
    for weld, (name, x) in welds.items():
        b.add_joint(weld, "fixed", "deck", name, point1=[x, 0.0, 0.0], point2=[cross[name] / 2, 0.0, 0.0],
                    relative_rotation=turn)
    b.add_joint("T", "fixed", "deck", "tool", point1=[0.3 * np.cos(10 * deg), 0.0, 0.0], point2=[0.0, 0.0, 0.0])
    for i in range(6):
        add_leg_joints(b, i)
    ends = [("C1", 0.0), ("C1", cross["C1"]), ("C2", cross["C2"]), ("C3", cross["C3"]), ("C3", 0.0), ("C2", 0.0)]
    for k, (name, x) in enumerate(ends, start=1):
        b.add_joint(f"S{k}", "spherical", f"piston{k}", name, point1=[0.25, 0.0, 0.0], point2=[x, 0.0, 0.0])
    times = np.round(np.arange(111) * 0.02, 12)
    for k, lengths in enumerate(leg_lengths(times).T, start=1):
        b.add_servo_coordinate(f"leg{k}", f"L{k}", femdyn.trajectories.Spline(times, lengths), relative=False)
    b.set_inputs([f"L{k}" for k in range(1, 7)])
    b.set_gravity([0.0, 0.0, -9.81])
    first = {"C1": 0, "C2": 5, "C3": 4}  # a cross-beam's first node at B1, B6, B5 (its last at B2, B3, B4)
    bodies = {"deck": {"position": [-0.3 * np.cos(10 * deg), 0.0, 0.8]},
              **{name: {"position": HOME + PLATFORM[i], "rotation": turn} for name, i in first.items()},
              "tool": {"position": HOME}, **leg_poses()}
    settings = femdyn.SolverSettings(dt=0.002, t_end=2.0, integrator="generalized-alpha", rho_inf=0.5)
    return femdyn.Problem(b, settings, bodies=bodies, equilibrium=True,
                          probes={"centre": ("deck", [0.3 * np.cos(10 * deg), 0.0, 0.0]),
                                  "edge": ("C2", [cross["C2"], 0.0, 0.0])}, name="stewart_gough_flexible")


def delta_flexible():
    """cases/delta_flexible.toml: three motors at 0.1 m from the centre, each turning an aluminium tube
    arm (0.2 m, 20 x 2 mm, a 3D FEM beam) with a 20 g elbow bar that carries two forearm rods (0.45 m,
    universal joints at the elbow, spherical at the 0.2 kg effector); the motor angles follow harmonic
    coordinate servos from the static equilibrium, the motor torques the inputs."""
    b = femdyn.ModelBuilder(3)
    b.add_body("effector", 0.2, inertia=[1.317e-4, 1.317e-4, 2.5e-4], size=[0.1, 0.1, 0.02])
    tube = femdyn.Section(pi * (0.01**2 - 0.008**2), pi / 4 * (0.01**4 - 0.008**4), iy=pi / 4 * (0.01**4 - 0.008**4),
                          j=pi / 2 * (0.01**4 - 0.008**4))
    rod = 2700 * pi * (0.005**2 - 0.004**2) * 0.45  # kg
    across = 2700 * pi * (0.005**2 - 0.004**2) * 0.45**3 / 12
    tilt = pi - np.arctan(np.sqrt(0.45**2 - 0.26**2) / 0.26)  # a rod's pitch down from the elbow, at theta = 0
    phis = [0.0, 2 * pi / 3, 4 * pi / 3]
    for k in (1, 2, 3):
        b.add_beam(f"arm{k}", femdyn.BeamBody.straight(0.2, 4, tube, 70e9, 2700.0, dim=3, poisson=0.33))
        b.add_body(f"elbow{k}", 0.02, [0.02 * 0.02**2 / 12, 0.02 * 0.07**2 / 12, 0.02 * 0.02**2 / 12],
                   size=[0.02, 0.07, 0.02])
        for side in "ab":
            b.add_body(f"rod{k}{side}", rod, inertia=[rod * (0.005**2 + 0.004**2) / 2, across, across],
                       size=[0.45, 0.01, 0.01])
    bodies = {"effector": {"position": [0.0, 0.0, -np.sqrt(0.45**2 - 0.26**2)]}}
    for k, phi in zip((1, 2, 3), phis):
        yaw = Rotation.from_rotvec(phi * Z).as_matrix()
        pitch = Rotation.from_rotvec(tilt * np.array([0.0, 1.0, 0.0])).as_matrix()
        b.add_joint(f"motor{k}", "revolute", "ground", f"arm{k}", point1=yaw @ [0.1, 0.0, 0.0], point2=[0.0, 0.0, 0.0],
                    axis=yaw @ [0.0, 1.0, 0.0], relative_rotation=yaw, angle=f"theta{k}")
        b.add_joint(f"elbow{k}", "fixed", f"arm{k}", f"elbow{k}", point1=[0.2, 0.0, 0.0], point2=[0.0, 0.0, 0.0])
        for side, y in (("a", 0.03), ("b", -0.03)):
            b.add_joint(f"upper{k}{side}", "universal", f"elbow{k}", f"rod{k}{side}", point1=[0.0, y, 0.0],
                        point2=[-0.225, 0.0, 0.0], axis=[0.0, 1.0, 0.0], relative_rotation=pitch)
            b.add_joint(f"lower{k}{side}", "spherical", f"rod{k}{side}", "effector", point1=[0.225, 0.0, 0.0],
                        point2=yaw @ [0.04, y, 0.0])
            bodies[f"rod{k}{side}"] = {"position": yaw @ [0.3, y, 0.0] + yaw @ pitch @ [0.225, 0.0, 0.0],
                                       "rotation": yaw @ pitch}
        bodies[f"arm{k}"] = {"position": yaw @ [0.1, 0.0, 0.0], "rotation": yaw}
        bodies[f"elbow{k}"] = {"position": yaw @ [0.3, 0.0, 0.0], "rotation": yaw}
        b.add_servo_coordinate(f"motor{k}", f"theta{k}", femdyn.trajectories.Harmonic(
            [0.2 * np.cos(phi)], [-0.2 * np.sin(phi)], 2 * pi, t_ramp=0.5))
    b.set_inputs(["theta1", "theta2", "theta3"])
    b.set_gravity([0.0, 0.0, -9.81])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.002, t_end=2.0), bodies=bodies, equilibrium=True,
                          probes={"tcp": ("effector", [0.0, 0.0, 0.0]), "arm1_tip": ("arm1", [0.2, 0.0, 0.0])},
                          name="delta_flexible")


BUILT = {"stewart_gough": stewart_gough, "stewart_gough_flexible": stewart_gough_flexible,
         "delta_flexible": delta_flexible}
T_END = 0.02  # s: ten steps of 2 ms


@pytest.mark.parametrize("case", list(BUILT))
def test_a_spatial_case_built_in_python_runs_the_history_of_its_file(case):
    """Every column as the file's to round-off: ``ROUND_OFF`` of its scale, or where the case itself
    spreads more under round-off, ten times the spread of the file's own run from its initial state moved
    by one unit in the last place (the reactions of the stiff frames and the nearly massless leg axes,
    the Delta effector's twist: 1e-10 to 2e-9 of their scale)."""
    problem = femdyn.load(CASES / f"{case}.toml")
    theirs = problem.run(t_end=T_END)
    q0 = problem.q0  # each non-zero coordinate moved by one unit in the last place
    moved = femdyn.Problem.from_case(replace(problem.case, q0=np.where(q0 != 0, np.nextafter(q0, np.inf), 0.0)))
    spread = same_tables(moved.run(t_end=T_END).tables, theirs.tables, tolerance=np.inf)
    ours = BUILT[case]().run(t_end=T_END)
    assert ours.complete and theirs.complete
    assert np.array_equal(ours.t, theirs.t)
    same_tables(ours.tables, theirs.tables, tolerance=max(ROUND_OFF, 10 * spread))
