"""``units.json``: every column of every CSV table of a result folder has its SI unit, and the unit is
the dimension of the quantity the column holds.

The dimensions are checked against physics, not against a list: the energies of ``history.csv`` are
(1/2) m v^2 of the bodies, so their unit is that of kg (m/s)^2 = J; a reaction force is a multiplier
conjugate to a position constraint, N; a probe's position, elastic displacement and deviation are
lengths (m), its angles radians, its velocity the time derivative of its position (m/s), its
acceleration that of its velocity (m/s^2); a joint rate is its coordinate's unit per second."""
import json
from pathlib import Path

import pytest

from femdyn.cli import main
from femdyn.io.tables import read_csv

CASES = Path(__file__).resolve().parents[2] / "cases"
DERIVED = {"m/s": ("m", "s"), "m/s^2": ("m/s", "s"), "rad/s": ("rad", "s")}  # d(unit)/dt


@pytest.mark.parametrize("case", ["five_bar_flexible", "3prr_sine"])
def test_every_column_has_its_unit(tmp_path, case):
    out = tmp_path / case
    assert main(["run", str(CASES / f"{case}.toml"), "--t-end", "0.01", "--out", str(out), "--no-vtk", "--no-plots",
                 "--quiet"]) == 0
    units = json.loads((out / "units.json").read_text())
    tables = sorted(p.name for p in out.glob("*.csv"))
    assert sorted(units) == tables and {"history.csv", "bodies.csv", "probes.csv", "reactions.csv"} <= set(tables)
    assert ("inputs.csv" in tables) == (case == "five_bar_flexible")  # servos there, prescribed motion here
    for table in tables:
        columns = read_csv(out / table)
        assert list(units[table]) == list(columns), table  # every column, in the file's order
        assert all(isinstance(u, str) and u for u in units[table].values())
        assert units[table]["t"] == "s"
    history, probes = units["history.csv"], units["probes.csv"]
    for energy in ("kinetic", "potential", "total", "work", "energy_balance"):
        assert history[energy] == "J"  # kg (m/s)^2
    for name, unit in history.items():  # a joint rate: its coordinate's unit per second
        if name.endswith("_rate"):
            assert unit == f"{history[name.removesuffix('_rate')]}/s" and unit in ("rad/s", "m/s")
    assert all(u == "N" for c, u in units["reactions.csv"].items() if ".force_" in c)
    assert all(u == "N m" for c, u in units["reactions.csv"].items() if ".moment_" in c)
    assert set(units.get("inputs.csv", {}).values()) - {"s"} <= {"N m", "N"}
    probe = next(c.partition(".")[0] for c in probes if "." in c)
    assert probes[f"{probe}.x"] == probes[f"{probe}.deviation_x"] == "m"
    assert probes[f"{probe}.angle"] == probes[f"{probe}.deviation_angle"] == "rad"
    for axis in "xy":  # velocity and acceleration: time derivatives of position and velocity
        v, a = probes[f"{probe}.v{axis}"], probes[f"{probe}.a{axis}"]
        assert DERIVED[v] == (probes[f"{probe}.{axis}"], "s") and DERIVED[a] == (v, "s")
    if case == "five_bar_flexible":
        assert any(c.endswith(".elastic_x") and u == "m" for c, u in probes.items())
        assert any(c.endswith(".elastic_angle") and u == "rad" for c, u in probes.items())
    assert all(u in ("m", "rad", "1") for c, u in units["bodies.csv"].items() if c != "t")
