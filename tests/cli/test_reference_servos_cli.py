"""Servos on the reference motion from the command line (``on = "frame"`` in a ``[[servos]]`` table):
the shipped single-link case runs and checks as a collocated, minimum-phase servo problem whose frame
turns on its ramp, with the hub torque of the rigid link within the link's elastic coupling (the rigid
run's torque is J theta'' of the closed form); a bad ``on`` is refused in one line."""
import numpy as np
import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.io.tables import read_csv
from femdyn.joints.trajectories import SmoothRampAngle

LINK = CASES / "flexible_link_reference.toml"
J = 2700.0 * 0.02 * 0.01 * (1.0 / 3 + 0.01**2 / 12)  # rho A (L^2/3 + h^2/12) L: hub inertia of the rigid link


def run(tmp_path, name, *options):
    out = tmp_path / name
    assert main(["run", str(LINK), "--out", str(out), "--no-vtk", "--no-plots", "--quiet", *options]) == 0
    return out


def test_frame_servo_case_runs_as_a_collocated_minimum_phase_problem(tmp_path, capsys):
    assert main(["check", str(LINK)]) == 0
    out = capsys.readouterr().out
    assert "servo tip: collocated with its inputs" in out and "minimum phase" in out and "non-minimum" not in out
    flexible, rigid = run(tmp_path, "fem"), run(tmp_path, "rigid", "--flexible", "rigid")
    ramp = SmoothRampAngle(0.5, 0.5, 1.0, 1.0)
    bodies = read_csv(flexible / "bodies.csv")
    target = np.array([ramp.value(t)[0] for t in bodies["t"]])
    assert np.abs(bodies["link.angle"] - target).max() < 1e-13  # the frame angle on its ramp
    history = read_csv(flexible / "history.csv")
    assert np.abs(history["energy_balance"]).max() < 1e-11 * np.abs(history["total"]).max()
    u, u0 = (read_csv(folder / "inputs.csv") for folder in (flexible, rigid))
    h = 1e-6  # theta'' by central differences of the exact rate: error ~1e-12
    acceleration = np.array([(ramp.rate(t + h)[0] - ramp.rate(t - h)[0]) / (2 * h) for t in u0["t"]])
    assert np.abs(u0["theta"] - J * acceleration).max() < 1e-4 * np.abs(u0["theta"]).max()  # O(dt^2) nodes
    # the flexible link's torque: the rigid one plus the elastic coupling, a few per cent at 70 GPa
    assert 1e-3 < np.abs(u["theta"] - u0["theta"]).max() < 0.1 * np.abs(u0["theta"]).max()


@pytest.mark.parametrize("old, new, words", [
    ('on = "frame"', 'on = "chord"', "unknown value 'chord' (known: material, frame)"),
    ('type = "polar"\nbody = "link"\npoint = [1.0, 0.0]\non = "frame"', 'type = "angle"\nbody = "link"\non = "material"',
     "must be 'frame'"),
    ('on = "frame"', "on = 1", "expected a string"),
])
def test_a_bad_servo_on_is_refused_in_one_line(tmp_path, capsys, old, new, words):
    text = LINK.read_text()
    assert old in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new))
    assert main(["run", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {bad}: servos[0].on:") and words in err and "\n" not in err
    assert not (tmp_path / "out").exists()
