"""A spatial mechanism built in Python: a turntable turning about the vertical z axis, a shoulder hinge
about its horizontal axis and a flexible steel arm (a 3D FEM beam, 0.8 m, 30 x 10 mm) carrying a
gripper of 0.5 kg at its tip (``ModelBuilder.add_attachment``), under gravity, the turntable driven by a
torque pulse (20 N m at its peak, 3 N m s in all) while the free shoulder lets the arm swing down. The
energy-momentum scheme (000 eqs. 5-7) keeps the energy balance H - H0 - W, W the work of the torque,
at round-off, and the angular momentum about the vertical axis, which neither gravity nor the hinges
change, gains the torque's impulse and keeps it; the figures show the gripper's path seen from above
and the energies.

Run: ``python docs/examples/spatial_mechanism.py [FOLDER]`` (figures into FOLDER, default ``gallery``).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import femdyn  # noqa: E402


def arm(t_end: float = 1.0) -> femdyn.Problem:
    """The turntable arm (module docstring), started with the arm 0.3 rad above the horizontal."""
    b = femdyn.ModelBuilder(3)
    b.add_body("turntable", 5.0, [0.02, 0.02, 0.005], size=[0.3, 0.3, 0.1])
    beam = femdyn.BeamBody.straight(0.8, 4, femdyn.Section.rectangle(0.03, 0.01), 2.1e11, 7850.0, dim=3,
                                    poisson=0.3)
    b.add_beam("arm", beam, stiffening=True)
    b.add_attachment("gripper", "arm", [0.8, 0.0, 0.0], 0.5)
    b.add_joint("base", "revolute", "ground", "turntable", axis=[0.0, 0.0, 1.0], angle="yaw")
    # the shoulder's axis is the turntable's y axis; the arm lies along its own x axis
    b.add_joint("shoulder", "revolute", "turntable", "arm", point1=[0.0, 0.0, 0.05], axis=[0.0, 1.0, 0.0],
                angle="pitch")
    b.add_joint_load("yaw", femdyn.time_functions.hat(0.1, 0.3, 20.0))
    b.set_gravity([0.0, 0.0, -9.81])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.002, t_end=t_end),
                          joints={"base": {"angle": 0.0}, "shoulder": {"angle": -0.3}},
                          probes={"tip": ("arm", [0.8, 0.0, 0.0])}, name="turntable_arm",
                          title="Turntable with a flexible arm and a gripper")


def main(folder: Path) -> femdyn.RunResult:
    """Run the arm, draw ``path.png`` and ``energy.png`` into ``folder``; returns the run."""
    folder.mkdir(parents=True, exist_ok=True)
    problem = arm()
    print(problem.model)
    result = problem.run()
    print(result)
    balance = np.abs(result["energy_balance"]).max()
    print(f"largest |H - H0 - W| {balance:.2e} J against the work of the torque {result['work'][-1]:.3f} J")
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot(result["tip.x"], result["tip.y"])
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_aspect("equal")
    ax.set_title("gripper path, seen from above")
    fig.tight_layout()
    fig.savefig(folder / "path.png", dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 4))
    for column in ("kinetic", "potential", "total", "work"):
        ax.plot(result.t, result[column], label=column)
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("energy [J]")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(folder / "energy.png", dpi=100)
    plt.close(fig)
    return result


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gallery"))
