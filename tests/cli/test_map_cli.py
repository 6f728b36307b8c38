"""``femdyn map`` (``commands.map``) and the map's result folder (``studies.map_files``): the command on a
LocalCluster gives the rows of the in-process map, resumes a finished map without running a point (a
failed point is run again with --retry-errors), and
writes map.csv with units.json, map.parquet, map.vts (a structured grid whose point fields are the
table's columns) and the plots; bad input is one line."""
import base64
import csv
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from shared import two_link_arm

import femdyn
from femdyn.cli import main



@pytest.fixture
def arm(tmp_path):
    return two_link_arm(tmp_path)


def read_vts(path):
    """{name: values} of the point fields and the points of a .vts file (base64 float64 with a UInt32 count)."""
    def decode(element):
        raw = base64.b64decode(element.text)
        return np.frombuffer(raw[4:4 + int(np.frombuffer(raw[:4], dtype="<u4")[0])], dtype="<f8")

    root = ET.parse(path).getroot()
    fields = {a.get("Name"): decode(a) for a in root.iter("PointData") for a in a}
    points = decode(next(root.iter("Points"))[0]).reshape(-1, 3)
    return fields, points, root.find("StructuredGrid").get("WholeExtent")


def test_the_command_gives_the_in_process_map_and_its_files(arm, tmp_path, capsys):
    """One worker of a LocalCluster maps a 3 x 2 grid that leaves the arm's reach: the same rows as the
    map run in this process, exit 0 (unreachable points are results), the files; run again, the map is
    resumed with nothing to run."""
    out = tmp_path / "map"
    argv = ["map", str(arm), "--grid", "tip.x=0.3:1.0:3", "--grid", "tip.y=0.1,0.4", "--modes", "2",
            "--workers", "1", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "6 points: 4 ok, 2 unreachable" in printed and "frequency_1: lowest" in printed
    expected = femdyn.load(arm).map({"tip.x": [0.3, 0.65, 1.0], "tip.y": [0.1, 0.4]}, modes=2, workers=0)
    with open(out / "map.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == list(expected.status.ravel())
    for column in expected.quantities:
        values = np.array([float(r[column]) if r[column] else np.nan for r in rows])  # empty: undefined
        assert np.array_equal(values, expected[column].ravel(), equal_nan=True), column
    units = json.loads((out / "units.json").read_text())["map"]
    assert units["tip.x"] == "m" and units["frequency_1"] == "Hz" and units["input:theta1"] == "N m"
    assert units["compliance_max"] == "m/N"
    fields, points, extent = read_vts(out / "map.vts")
    assert extent == "0 2 0 1 0 0"
    grid = expected["frequency_1"]  # (x, y): VTK's order has x fastest
    assert np.array_equal(fields["frequency_1"], grid.ravel(order="F"), equal_nan=True)
    assert np.allclose(points[:, :2], np.column_stack([expected["tip.x"].ravel(order="F"),
                                                      expected["tip.y"].ravel(order="F")]))
    assert list(fields["status_code"]) == [0, 0, 1, 0, 0, 1]
    import pyarrow.parquet as pq

    assert pq.read_table(out / "map.parquet").column("status").to_pylist() == [r["status"] for r in rows]
    assert (out / "map_frequency_1.png").stat().st_size > 0 and (out / "map_input_theta2.png").exists()
    assert main(argv) == 0  # resumed: every point done, no cluster started
    assert "resuming: 6 done, 0 to run" in capsys.readouterr().out
    # a point that failed (its worker lost, say) stays failed on resume, and is run again with --retry-errors
    blank = next(r for r in rows if r["status"] == "unreachable")
    failed = {**rows[0], **{c: blank[c] for c in expected.quantities}, "status": "failed", "message": "worker lost"}
    with open(out / "map.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows([failed, *rows[1:]])
    assert main(argv) != 0
    assert "resuming: 6 done, 0 to run" in capsys.readouterr().out
    assert main([*argv, "--retry-errors"]) == 0
    assert "resuming: 5 done, 1 to run" in capsys.readouterr().out
    with open(out / "map.csv") as f:  # the same rows, the point run again included (its own wall time aside)
        again = list(csv.DictReader(f))
    assert [{**r, "wall_time": ""} for r in again] == [{**r, "wall_time": ""} for r in rows]


@pytest.mark.parametrize("argv, message", [
    (["--grid", "theta3=0:1:3"], "--grid: 'theta3' is neither an actuated coordinate (theta1, theta2)"),
    (["--grid", "tip.x=0:1:3", "--grid", "theta1=0:1:2"], "--grid: a grid sets effector coordinates"),
    (["--grid", "theta1=0:1:3", "--probe", "nope"], "--probe: unknown probe 'nope'"),
    (["--grid", "theta1=0:1:3", "--singular", "2"], "--singular: must be in (0, 1)"),
    (["--grid", "theta1=0:1:3", "--payload", "1,2,3"], "--payload: a payload is a number"),
])
def test_bad_input_is_one_line(arm, tmp_path, capsys, argv, message):
    assert main(["map", str(arm), *argv, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "m").exists()
