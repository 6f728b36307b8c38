"""Strain gauges (``beam.gauges``, ``model.gauges``) against beam theory: a cantilever under a static tip
force F has the bending moment F (L - s), so its fibre at y reads eps = -y v'' = F (L - s) y/(E I) --
the top surface at the root F L c/(E I), at mid-span half that, the bottom the same in compression --
exactly with cubic Hermite elements, whose cubic deflection is the exact one (to the geometric
nonlinearity of the equilibrium, (v/L)^2 ~ 1e-13 for the force used); a link pulled by N reads
eps = N/(E A) at every fibre and sigma = N/A. Tension is positive; sigma = E eps."""
import json

import numpy as np
import pytest

import femdyn
from femdyn.beam.body import BeamBody, Section
from femdyn.cli import main
from femdyn.forces import time_functions as tf
from femdyn.integrators.settings import SolverSettings
from femdyn.io.tables import read_csv
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError

E, RHO, L, B, H = 2.1e11, 7850.0, 1.0, 0.02, 0.01  # a steel strip, 1 m
FORCE = 1e-3  # N: a deflection of 1e-7 L, linear to 1e-13
SETTINGS = SolverSettings(dt=1e-3, t_end=0.01)


def cantilever(dim, force, gauges, segments=1, elements=4):
    """A cantilever of ``elements`` elements (welded to the ground at s = 0) with the world ``force`` at
    its tip, as a ``Problem`` with ``gauges``; and its section."""
    section = Section.rectangle(B, H)
    builder = ModelBuilder(dim)
    builder.add_beam("link", BeamBody.straight(L, elements, section, E, RHO, dim=dim,
                                               **({"poisson": 0.3} if dim == 3 else {})), segments=segments)
    builder.add_joint("root", "fixed", "ground", "link")
    builder.add_point_force("link", np.eye(dim)[0] * L, force, tf.constant(1.0))
    return femdyn.Problem(builder, SETTINGS, gauges=gauges), section


def test_cantilever_surface_strain_is_the_flexure_formula():
    """Root top fibre F L c/(E I), mid-span half of it, bottom fibre in compression, and sigma = E eps."""
    c = H / 2
    gauges = {"root": {"body": "link", "s": 0.0, "fibre": c}, "mid": {"body": "link", "fraction": 0.5, "fibre": c},
              "bottom": {"body": "link", "s": 0.3, "fibre": -c}, "axis": {"body": "link", "s": 0.7, "fibre": 0.0}}
    problem, section = cantilever(2, [0.0, -FORCE], gauges)
    g = problem.static().gauges
    root = FORCE * L * c / (E * section.inertia)
    assert g["root.strain"][0] == pytest.approx(root, rel=1e-9)  # hogging: the top fibre stretches
    assert g["mid.strain"][0] == pytest.approx(root / 2, rel=1e-9)
    assert g["bottom.strain"][0] == pytest.approx(-root * (L - 0.3) / L, rel=1e-9)
    assert abs(g["axis.strain"][0]) < 1e-9 * root  # the neutral axis of pure bending
    for name in gauges:
        assert g[f"{name}.stress"][0] == pytest.approx(E * g[f"{name}.strain"][0], rel=1e-15, abs=1e-30)


def test_link_in_tension_reads_n_over_a_at_every_fibre():
    """An axial tip force N: eps = N/(E A) at the top, bottom and centre fibres, sigma = N/A (to the
    strain itself, 2e-11: with geometric stiffening the section's force is EA times the Green strain, the
    second Piola-Kirchhoff stress, which is N/(1 + eps))."""
    force = FORCE
    gauges = {f"g{i}": {"body": "link", "fraction": f, "fibre": y}
              for i, (f, y) in enumerate([(0.0, H / 2), (0.5, -H / 2), (1.0, 0.0)])}
    problem, section = cantilever(2, [force, 0.0], gauges)
    g = problem.static().gauges
    for name in gauges:
        assert g[f"{name}.stress"][0] == pytest.approx(force / section.area, rel=1e-9)
        assert g[f"{name}.strain"][0] == pytest.approx(force / (E * section.area), rel=1e-9)


def test_spatial_cantilever_adds_the_z_fibre_term():
    """In space eps = eps_0 - y v'' - z w'': a tip force along -x3 bends about x2, so the fibre z = +c_z at
    the root stretches by F L c_z/(E I_y) and y does not enter; along -x2 the y fibre as in the plane."""
    c_y, c_z = H / 2, B / 2
    gauges = {"z": {"body": "link", "s": 0.0, "fibre": [0.3 * c_y, c_z]},
              "y": {"body": "link", "fraction": 0.5, "fibre": [c_y, 0.0]}}
    section = Section.rectangle(B, H)
    for force, name, expected in (([0.0, 0.0, -FORCE], "z", FORCE * L * c_z / (E * section.iy)),
                                  ([0.0, -FORCE, 0.0], "y", FORCE * L / 2 * c_y / (E * section.inertia))):
        problem, _ = cantilever(3, force, gauges, elements=2)
        assert problem.static().gauges[f"{name}.strain"][0] == pytest.approx(expected, rel=1e-9)


def test_segmented_link_reads_as_one_link():
    """A gauge by arc length along a link split into two floating-frame segments reads the same strain as
    on the unsplit link (it goes to the segment that holds it, at its own arc length)."""
    gauges = {"a": {"body": "link", "s": 0.25, "fibre": H / 2}, "b": {"body": "link", "fraction": 0.75, "fibre": H / 2}}
    one = cantilever(2, [0.0, -FORCE], gauges)[0].static().gauges
    two = cantilever(2, [0.0, -FORCE], gauges, segments=2)[0].static().gauges
    for name in gauges:
        assert two[f"{name}.strain"][0] == pytest.approx(one[f"{name}.strain"][0], rel=1e-9)
    assert two["b.strain"][0] == pytest.approx(FORCE * (L - 0.75) * (H / 2) / (E * Section.rectangle(B, H).inertia),
                                               rel=1e-9)


@pytest.mark.parametrize("entry, field", [
    ({"body": "link", "s": 1.5, "fibre": 0.0}, "gauges.g.s"),
    ({"body": "link", "s": 0.5, "fibre": H}, "gauges.g.fibre"),  # outside the section
    ({"body": "link", "s": 0.5, "fraction": 0.5, "fibre": 0.0}, "gauges.g"),
    ({"body": "tip", "s": 0.0, "fibre": 0.0}, "gauges.g.body"),  # a rigid body
])
def test_a_gauge_off_the_link_is_refused(entry, field):
    builder = ModelBuilder(2)
    builder.add_beam("link", BeamBody.straight(L, 2, Section.rectangle(B, H), E, RHO))
    builder.add_attachment("tip", "link", [L, 0.0], 0.1)
    builder.add_joint("root", "fixed", "ground", "link")
    with pytest.raises(ModelError) as err:
        femdyn.Problem(builder, SETTINGS, gauges={"g": entry})
    assert err.value.field == field


CASE = f"""
dimension = 2
[solver]
dt = 1e-3
t_end = 2e-3
[[bodies]]
name = "link"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[joints]]
name = "root"
type = "fixed"
bodies = ["ground", "link"]
[[loads]]
type = "point_force"
body = "link"
point = [{L}, 0.0]
force = [0.0, {-FORCE}]
[[gauges]]
name = "root"
body = "link"
s = 0.0
fibre = {H / 2}
"""


def test_case_file_gauges_in_static_and_run_folders(tmp_path, capsys):
    """``[[gauges]]``: ``femdyn static`` prints the root strain F L c/(E I) and writes gauges.csv with its
    units (1, Pa) and summary.json's extremes; ``femdyn run`` writes the history; a gauge off the link is
    refused with exit 2 and one line naming its field."""
    case = tmp_path / "cantilever.toml"
    case.write_text(CASE)
    out = tmp_path / "static"
    assert main(["static", str(case), "--out", str(out), "--no-vtk"]) == 0
    printed = capsys.readouterr().out
    root = FORCE * L * (H / 2) / (E * Section.rectangle(B, H).inertia)
    line = next(s for s in printed.splitlines() if s.startswith("gauge root"))
    assert float(line.split("strain ")[1].split(",")[0]) == pytest.approx(root, rel=1e-5)  # printed to 6 digits
    units = json.loads((out / "units.json").read_text())["gauges.csv"]
    assert units == {"t": "s", "root.strain": "1", "root.stress": "Pa"}
    static = json.loads((out / "static.json").read_text())
    assert static["gauges"]["root.strain"] == pytest.approx(root, rel=1e-9)
    run = tmp_path / "run"
    assert main(["run", str(case), "--out", str(run), "--no-vtk", "--no-plots", "--quiet"]) == 0
    table = read_csv(run / "gauges.csv")
    summary = json.loads((run / "summary.json").read_text())["gauges"]["root"]
    k = int(np.argmax(table["root.stress"]))
    assert summary["stress"]["max_pa"] == table["root.stress"][k] and summary["stress"]["t_max_s"] == table["t"][k]
    assert np.allclose(table["root.stress"], E * table["root.strain"], rtol=1e-15, atol=0)
    case.write_text(CASE.replace("s = 0.0", "s = 2.0"))
    assert main(["static", str(case), "--out", str(tmp_path / "bad")]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "gauges.root.s" in error and "Traceback" not in error
