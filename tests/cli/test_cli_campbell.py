"""``femdyn modes --moving`` and ``--sweep``: a strip on a hub that a servo turns at constant speed. At
zero speed the modes about the (resting) steady motion are the natural modes of ``femdyn modes`` (the
first-order form of the carried linearisation against the symmetric pencil at the static equilibrium,
to 1e-8), and with modal damping zeta every pole has that damping ratio and |s| = w (s = -zeta w +- i w
sqrt(1 - zeta^2)); the Campbell diagram's files carry SI units, its lag modes stiffen with the speed and keep
their shapes from one speed to the next (MAC near 1); ``Problem.campbell`` gives the CSV's numbers; a
malformed --sweep is refused in one line."""
import json

import numpy as np

import femdyn
from femdyn.cli import main

BLADE = """\
dimension = 2
[solver]
dt = 0.001
t_end = 0.01
[flexible]
elements = 4
[[bodies]]
name = "blade"
beam = {{length = 1.0, young = 70e9, density = 2700.0, b = 0.01, h = 0.001{damping}}}
[[joints]]
name = "hub"
type = "revolute"
bodies = ["ground", "blade"]
angle = "theta"
[[servos]]
name = "spin"
type = "coordinate"
coordinate = "theta"
trajectory = {{ type = "polynomial", coefficients = [[0.0, {speed}]] }}
[control]
inputs = ["theta"]
[initial.joints.hub]
angle = 0.0
"""
RATE = "servos.spin.trajectory.coefficients.0.1"


def case(folder, speed=0.0, damping=""):
    path = folder / "blade.toml"
    path.write_text(BLADE.format(speed=speed, damping=damping))
    return path


def test_modes_about_rest_are_the_natural_modes_and_keep_the_damping(tmp_path, capsys):
    path = case(tmp_path)
    assert main(["modes", str(path), "--count", "3", "--out", str(tmp_path / "static"), "--no-vtk"]) == 0
    assert main(["modes", str(path), "--moving", "--count", "3", "--out", str(tmp_path / "moving")]) == 0
    static = json.loads((tmp_path / "static" / "modes.json").read_text())["modes"]
    moving = json.loads((tmp_path / "moving" / "motion_modes.json").read_text())["modes"]
    for a, b in zip(static, moving):
        assert abs(b["frequency_hz"] / a["frequency_hz"] - 1.0) < 1e-8
        assert abs(b["damping_ratio"]) < 1e-9
    units = json.loads((tmp_path / "moving" / "units.json").read_text())["motion_modes.csv"]
    assert units["frequency_hz"] == "Hz" and units["real_1_s"] == "1/s"
    damped = case(tmp_path, damping=", damping = {ratio = 0.02}")
    assert main(["modes", str(damped), "--moving", "--count", "3", "--out", str(tmp_path / "damped")]) == 0
    damped_modes = json.loads((tmp_path / "damped" / "motion_modes.json").read_text())["modes"]
    for a, b in zip(static, damped_modes):  # |s| = omega, -Re s / |s| = zeta
        assert abs(b["frequency_hz"] / a["frequency_hz"] - 1.0) < 1e-8
        assert abs(b["damping_ratio"] - 0.02) < 1e-8

def test_campbell_diagram_files_and_tracking(tmp_path, capsys):
    path = case(tmp_path)
    out = tmp_path / "campbell"
    assert main(["modes", str(path), "--sweep", f"{RATE}=0:30:4", "--count", "3", "--out", str(out)]) == 0
    lines = (out / "campbell.csv").read_text().splitlines()
    head = lines[0].split(",")
    assert head[:4] == [RATE, "f1_hz", "zeta1", "mac1"]
    table = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
    units = json.loads((out / "units.json").read_text())["campbell.csv"]
    assert units[RATE] == "rad/s" and units["f1_hz"] == "Hz" and units["mac1"] == "1"
    assert (out / "campbell.png").stat().st_size > 0
    frequencies = table[:, [head.index(f"f{k}_hz") for k in (1, 2, 3)]]
    assert np.all(np.diff(frequencies, axis=0) > 0)  # stiffened by the centrifugal tension
    assert table[1:, [head.index(f"mac{k}") for k in (1, 2, 3)]].min() > 0.98
    diagram = femdyn.load(path).campbell(RATE, np.linspace(0.0, 30.0, 4), count=3)
    assert np.allclose(diagram.frequency, frequencies, rtol=1e-12, atol=0)
    assert diagram.unit == "rad/s" and np.array_equal(diagram.mode(2), frequencies[:, 1])


def test_a_malformed_sweep_is_refused_in_one_line(tmp_path, capsys):
    path = case(tmp_path)
    assert main(["modes", str(path), "--sweep", f"{RATE}=0:30", "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--sweep" in err[0] and err[0].startswith("error:")
