"""The 3-PRR's end-effector deflection against the depth of its links (003 sections 8.1-8.4), built in
Python: the nonsymmetric 3-PRR of ``cases/3prr_sine.toml`` -- three sliders on the x axis driven by
the loads 10, -2, -2 sin 20t N, three legs and the platform FEM beams (4 elements, fixed-free,
geometric stiffening), gravity -- run for a short time with the links' depth h at 40, 50 and 60 mm
(their masses those of 003, whatever h). The elastic deflection of the end effector falls with the
bending stiffness E b h^3/12; the figure shows its elastic y displacement over time for each h.

Run: ``python docs/examples/prr3_deflection.py [FOLDER]`` (figures into FOLDER, default ``gallery``).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import femdyn  # noqa: E402

LINKS = {"leg1": (0.486, 8.5), "leg2": (0.5, 9.847), "leg3": (0.507, 10.842), "platform": (0.315, 15.2425)}
B = 0.15  # width of the links [m]


def three_prr(h: float = 0.05, t_end: float = 0.3) -> femdyn.Problem:
    """The 3-PRR of 003 with links of depth ``h`` [m] (masses [kg] of 003: rho = m / (L b h))."""
    m = femdyn.ModelBuilder(2)
    for k in (1, 2, 3):
        m.add_body(f"slider{k}", 7.0, [0.005833, 0.001458], size=[0.1, 0.05])
    for name, (length, mass) in LINKS.items():
        section = femdyn.Section.rectangle(B, h)
        m.add_beam(name, femdyn.BeamBody.straight(length, 4, section, 70e9, mass / (length * B * h)), stiffening=True)
    for k in (1, 2, 3):
        m.add_joint(f"P{k}", "prismatic", "ground", f"slider{k}", slide=f"s{k}")
        m.add_joint("ABC"[k - 1], "revolute", f"slider{k}", f"leg{k}", angle=f"alpha{k}")
    m.add_joint("D", "revolute", "leg2", "platform", point1=[0.5, 0.0])
    m.add_joint("E", "revolute", "leg1", "platform", point1=[0.486, 0.0], point2=[0.315, 0.0])
    m.add_joint("F", "revolute", "leg3", "platform", point1=[0.507, 0.0], point2=[0.315, 0.0])
    for k, amplitude in zip((1, 2, 3), (10.0, -2.0, -2.0)):
        m.add_joint_load(f"s{k}", femdyn.time_functions.sine(amplitude, 20 / (2 * np.pi)))
    m.set_gravity([0.0, -9.81])
    x1, x3 = 0.615 - np.sqrt(0.486**2 - 0.16), 0.615 + np.sqrt(0.507**2 - 0.16)
    bodies = {
        "slider1": {"position": [x1, 0.0]}, "slider2": {"position": [0.6, 0.0]}, "slider3": {"position": [x3, 0.0]},
        "leg1": {"position": [x1, 0.0], "angle": np.arctan(0.4 / (0.615 - x1))},
        "leg2": {"position": [0.6, 0.0], "angle": np.pi - np.arctan(0.4 / 0.3)},
        "leg3": {"position": [x3, 0.0], "angle": np.pi - np.arctan(0.4 / (x3 - 0.615))},
        "platform": {"position": [0.3, 0.4], "angle": 0.0},
    }
    settings = femdyn.SolverSettings(dt=0.002, t_end=t_end, integrator="generalized-alpha", rho_inf=0.5,
                                     early_stop=True)
    return femdyn.Problem(m, settings, bodies=bodies, probes={"effector": ("platform", [0.315, 0.0])},
                          name="3prr", title=f"3-PRR, links {B * 1e3:g} x {h * 1e3:g} mm")


def main(folder: Path) -> dict[float, float]:
    """Run the study, draw ``deflection.png`` into ``folder``; returns {h: largest elastic deflection [m]}."""
    folder.mkdir(parents=True, exist_ok=True)
    largest = {}
    fig, ax = plt.subplots(figsize=(7, 4))
    for h in (0.04, 0.05, 0.06):
        result = three_prr(h).run()
        u = np.hypot(result["effector.elastic_x"], result["effector.elastic_y"])
        largest[h] = float(u.max())
        ax.plot(result.t, 1e6 * result["effector.elastic_y"], label=f"h = {h * 1e3:g} mm")
        print(f"h = {h * 1e3:g} mm: largest elastic deflection of the end effector {largest[h]:.3e} m")
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("elastic displacement y [um]")
    ax.set_title("3-PRR end effector")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(folder / "deflection.png", dpi=100)
    plt.close(fig)
    return largest


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gallery"))
