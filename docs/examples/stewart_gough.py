"""A spatial parallel manipulator built in Python: the Stewart-Gough platform of
``cases/stewart_gough.toml`` (6-UPS, 004 section II). Six legs, each a cylinder on a universal joint on
the ground and a piston sliding in it (the actuated slide L_i, the leg's length), hold a 10 kg disc by
spherical joints; base joints on a circle of 0.5 m, platform joints on one of 0.3 m, home 0.8 m above the
base. Servo constraints move the platform's centre by (0.05 sin psi, 0.05 (1 - cos psi), 0.04 sin psi) m
and turn it by roll 0.1 (1 - cos psi), yaw 0.15 sin psi rad (Euler angles), psi = 2 pi s(t) started
smoothly over 0.5 s; the leg forces that do it are the inputs (inverse dynamics by servo constraints,
000 eq. 84). The energy-momentum steps (000 eqs. 5-7) keep the energy balance H - H0 - W, W the work of
the leg forces, at round-off. The figure shows the six leg forces.

``tests/package/test_python_cases_spatial.py`` builds the case from these functions and gets the
history of the case file to round-off.

Run: ``python docs/examples/stewart_gough.py [FOLDER]`` (figures into FOLDER, default ``gallery``).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

import femdyn  # noqa: E402

Z = np.array([0.0, 0.0, 1.0])
HOME = np.array([0.0, 0.0, 0.8])  # the platform's centre at home [m]


def ring(radius: float, degrees: list[float], z: float = 0.0) -> NDArray[np.float64]:
    """Points (n, 3) on a circle about the z axis at the given angles (degrees), at height z."""
    angles = np.radians(degrees)
    return np.column_stack([radius * np.cos(angles), radius * np.sin(angles), np.full(len(angles), z)])


BASE = ring(0.5, [-10, 10, 110, 130, 230, 250])  # A_i, the universal joints on the ground
PLATFORM = ring(0.3, [-50, 50, 70, 170, 190, 290])  # B_i in the platform's frame


def leg_frame(i: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Leg i's home: its base point A, unit direction u from A to B and the directors [u, n x u, n] of
    its cylinder and piston, n = e_z x u / |e_z x u| the universal joint's axis on the ground."""
    a = BASE[i]
    u = PLATFORM[i] + HOME - a
    u /= np.linalg.norm(u)
    n = np.cross(Z, u)
    n /= np.linalg.norm(n)
    return a, u, np.column_stack([u, np.cross(n, u), n])


def add_leg_bodies(b: femdyn.ModelBuilder, i: int) -> None:
    """Leg i + 1's cylinder (2 kg) and piston (1 kg), slender 0.5 m bars (their axial inertia 1e-10 of
    the transverse one: a director body needs each E_a > 0)."""
    b.add_body(f"cylinder{i + 1}", 2.0, [(1 - 1e-10) / 24, 1e-10 / 24, 1e-10 / 24], size=[0.5, 0.06, 0.06])
    b.add_body(f"piston{i + 1}", 1.0, [(1 - 1e-10) / 48, 1e-10 / 48, 1e-10 / 48], size=[0.5, 0.04, 0.04])


def add_leg_joints(b: femdyn.ModelBuilder, i: int) -> None:
    """Leg i + 1's universal joint U on the ground (axes n and the cylinder's d_2: assembled with the
    cylinder turned to the joint's frame, ``ModelBuilder.axis_frame``) and its actuated prismatic joint
    P, whose slide L is the leg's length."""
    a, _, directors = leg_frame(i)
    k = i + 1
    n = directors[:, 2]
    b.add_joint(f"U{k}", "universal", "ground", f"cylinder{k}", point1=a, point2=[-0.25, 0.0, 0.0],
                axis=n, relative_rotation=femdyn.ModelBuilder.axis_frame(n))
    b.add_joint(f"P{k}", "prismatic", f"cylinder{k}", f"piston{k}", point1=[-0.25, 0.0, 0.0],
                point2=[0.25, 0.0, 0.0], slide=f"L{k}")


def leg_poses() -> dict[str, dict[str, NDArray[np.float64]]]:
    """The cylinders' and pistons' poses at home: 0.25 m from each end of the leg."""
    poses = {}
    for i in range(6):
        a, u, directors = leg_frame(i)
        poses[f"cylinder{i + 1}"] = {"position": a + 0.25 * u, "rotation": directors}
        poses[f"piston{i + 1}"] = {"position": PLATFORM[i] + HOME - 0.25 * u, "rotation": directors}
    return poses


def platform_motion() -> tuple[femdyn.trajectories.Harmonic, femdyn.trajectories.Harmonic]:
    """The platform's centre offset and Euler angles [roll, pitch, yaw] along the smooth phase psi
    (module docstring)."""
    harmonic = femdyn.trajectories.Harmonic
    return (harmonic([0.05, 0.0, 0.04], [0.0, 0.05, 0.0], 2 * np.pi, t_ramp=0.5),
            harmonic([0.0, 0.0, 0.15], [0.1, 0.0, 0.0], 2 * np.pi, t_ramp=0.5))


def stewart_gough(dt: float = 0.002, t_end: float = 2.0) -> femdyn.Problem:
    """The platform on its six legs, moved by servos on its centre and attitude (module docstring)."""
    b = femdyn.ModelBuilder(3)
    b.add_body("platform", 10.0, [0.225, 0.225, 4.5e-11], size=[0.6, 0.6, 0.02])  # a disc: E3 ~ 0
    for i in range(6):
        add_leg_bodies(b, i)
    for i in range(6):
        add_leg_joints(b, i)
        b.add_joint(f"S{i + 1}", "spherical", f"piston{i + 1}", "platform", point1=[0.25, 0.0, 0.0],
                    point2=PLATFORM[i])
    centre, angles = platform_motion()
    b.add_servo_point("centre", "platform", [0.0, 0.0, 0.0], centre)
    b.add_servo_orientation("attitude", "platform", femdyn.trajectories.EulerAngles(angles), relative=True)
    b.set_inputs([f"L{k}" for k in range(1, 7)])
    b.set_gravity([0.0, 0.0, -9.81])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=dt, t_end=t_end),
                          bodies={"platform": {"position": HOME, "rotation": np.eye(3)}, **leg_poses()},
                          probes={"centre": ("platform", [0.0, 0.0, 0.0])}, name="stewart_gough",
                          title="Stewart-Gough platform: inverse dynamics by servo constraints, leg forces")


def main(folder: Path) -> femdyn.RunResult:
    """One cycle of the motion in steps of 10 ms, ``leg_forces.png`` into ``folder``; returns the run."""
    folder.mkdir(parents=True, exist_ok=True)
    problem = stewart_gough(dt=0.01, t_end=1.0)
    print(problem.model)
    result = problem.run()
    print(result)
    balance = np.abs(result["energy_balance"]).max()
    print(f"largest |H - H0 - W| {balance:.2e} J; the leg forces' work {result['work'][-1]:.3f} J")
    legs = range(1, 7)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(result.inputs["t"], np.column_stack([result.inputs[f"L{k}"] for k in legs]))
    ax.set(xlabel="time t [s]", ylabel="leg force [N]", title="leg forces along the platform's motion")
    ax.legend([f"leg {k}" for k in legs], ncols=2)
    fig.savefig(folder / "leg_forces.png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return result


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gallery"))
