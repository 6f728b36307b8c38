"""A sweep of a model built in Python, on Dask: a steel strip (0.5 m, 20 x 2 mm, 4 FEM elements)
pinned at one end and released horizontally under gravity, its Young's modulus E swept over three
values on a LocalCluster of two workers (``femdyn.sweep``; each sample runs ``build(E=..)``, a
function that the workers receive by value). The tip's largest elastic deflection falls as the strip
stiffens, like 1/E for a quasi-static bending (the tip load of the swinging strip is nearly the same);
the figure shows it against E with the 1/E line through the stiffest sample.

Run: ``python docs/examples/sweep_python_model.py [FOLDER]`` (figures into FOLDER, default ``gallery``).
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import femdyn  # noqa: E402

YOUNG = [1.0e11, 2.0e11, 4.0e11]  # Pa


def build(E: float) -> femdyn.Problem:
    """The pinned strip with Young's modulus ``E`` [Pa]."""
    b = femdyn.ModelBuilder(2)
    b.add_beam("strip", femdyn.BeamBody.straight(0.5, 4, femdyn.Section.rectangle(0.02, 0.002), E, 7850.0),
               stiffening=True)
    b.add_joint("pin", "revolute", "ground", "strip", angle="theta")
    b.set_gravity([0.0, -9.81])
    settings = femdyn.SolverSettings(dt=0.002, t_end=0.1, integrator="generalized-alpha", rho_inf=0.5)
    return femdyn.Problem(b, settings, joints={"pin": {"angle": 0.0}}, probes={"tip": ("strip", [0.5, 0.0])},
                          name="pinned_strip", title="Pinned steel strip released under gravity")


def main(folder: Path) -> femdyn.SweepResult:
    """Sweep E on two workers, write the sweep's folder and ``deflection_vs_E.png`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    swept = femdyn.sweep(build, {"E": YOUNG}, workers=2)
    print(swept)
    swept.write(folder / "sweep", plots=False)
    E, largest = swept["E"], swept["elastic_max"]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(E, largest, "o-", label="femdyn.sweep")
    ax.loglog(E, largest[-1] * E[-1] / E, "--", label="1/E")
    ax.set_xlabel("Young's modulus E [Pa]")
    ax.set_ylabel("largest tip deflection [m]")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(folder / "deflection_vs_E.png", dpi=100)
    plt.close(fig)
    return swept


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("gallery"))
