"""Inverse dynamics of a flexible link, built in Python: a 1 m aluminium link (20 x 10 mm, 4 FEM
elements, dt = 5 ms) on a hub driven by a torque, whose tip must turn by 0.5 rad rest to rest in 1 s
([Bayo1987]; the data of ``cases/flexible_link.toml``). The tip's polar angle is a servo constraint,
the hub angle the input: non-collocated, the zero dynamics are unstable (non-minimum phase), so the
torque is found by stable inversion (``Problem.invert``: [Devasia1996], [Seifried2014]) -- it acts
before the motion starts (pre-actuation) and after it ends -- and checked by a forward run with it.
The figure shows the hub torque, with the torque that turns the link rigidly for comparison.

Run: ``python docs/examples/flexible_link_inverse.py [FOLDER]`` (figures into FOLDER, default ``gallery``).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import femdyn  # noqa: E402
from femdyn import InversionSettings  # noqa: E402

LENGTH, RHO, B, H = 1.0, 2700.0, 0.02, 0.01


def flexible_link(t_end: float = 1.0) -> femdyn.Problem:
    """The link on its hub with the tip's rest-to-rest servo (module docstring)."""
    b = femdyn.ModelBuilder(2)
    b.add_beam("link", femdyn.BeamBody.straight(LENGTH, 4, femdyn.Section.rectangle(B, H), 70e9, RHO),
               stiffening=True)
    b.add_joint("hub", "revolute", "ground", "link", angle="theta")
    turn = femdyn.trajectories.SmoothRampAngle(0.5, 0.5, 1.0, 1.0)  # 0.5 rad, at rest at 0 and 1 s
    b.add_servo_polar("tip", "link", [LENGTH, 0.0], turn)
    b.set_inputs(["theta"])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.005, t_end=t_end), joints={"hub": {"angle": 0.0}},
                          probes={"tip": ("link", [LENGTH, 0.0])}, name="flexible_link",
                          inversion=InversionSettings("stable", 0.2, 0.2))


def main(folder: Path) -> femdyn.InversionResult:
    """Invert the link's turn, draw ``torque.png`` into ``folder``; returns the inversion."""
    folder.mkdir(parents=True, exist_ok=True)
    problem = flexible_link()
    inverse = problem.invert()
    print(inverse)
    t, torque = inverse.inputs["t"], inverse.inputs["theta"]
    turn = femdyn.trajectories.SmoothRampAngle(0.5, 0.5, 1.0, 1.0)
    inertia = RHO * B * H * LENGTH**3 / 3  # the rigid link about its hub
    rigid = inertia * np.gradient([turn.rate(min(max(s, 0.0), 1.0))[0] for s in t], t)
    print(f"hub torque up to {np.abs(torque).max():.3g} N m (rigid link {np.abs(rigid).max():.3g} N m); "
          f"path error of the forward run {inverse.path_error:.2e}")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(t, torque, label="flexible link (stable inversion)")
    ax.plot(t, rigid, "--", label="rigid link, J theta''")
    ax.axvspan(t[0], 0.0, alpha=0.1)
    ax.axvspan(1.0, t[-1], alpha=0.1)
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("hub torque [N m]")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(folder / "torque.png", dpi=100)
    plt.close(fig)
    return inverse


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gallery"))
