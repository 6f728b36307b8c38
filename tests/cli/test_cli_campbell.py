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
    with np.load(tmp_path / "moving" / "motion_modes.npz") as shapes:  # unit complex shapes over the coordinates
        assert shapes["shapes"].shape == (3, len(shapes["coordinates"]))
        assert np.allclose(np.linalg.norm(shapes["shapes"], axis=1), 1.0)
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
    assert main(["modes", str(path), "--sweep", "servos.spin.trajectory.nope=0:1:3", "--out", str(tmp_path / "no")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "servos.spin.trajectory.nope" in err[0] and err[0].startswith("error:")


def lag_compliance(gamma, terms=10):
    """The spinning cantilever's static tip deflection per unit tip force in its plane, times EI / L^3: the
    lag stiffness of the inextensible rotating beam (bending, the tension T = rho A Omega^2 (L^2 - x^2)/2
    and the centrifugal -rho A Omega^2 w) by Rayleigh-Ritz on w = sum_k c_k xi^(k+1), k = 1..terms."""
    p = np.arange(2, terms + 2, dtype=float)
    a, b = p[:, None], p[None, :]
    mass = 1.0 / (a + b + 1.0)
    stiffness = a * (a - 1) * b * (b - 1) / (a + b - 3.0) + gamma**2 / 2 * a * b * (1 / (a + b - 1) - 1 / (a + b + 1))
    return np.ones(terms) @ np.linalg.solve(stiffness - gamma**2 * mass, np.ones(terms))


def test_linearize_about_the_spinning_state_gives_the_rotating_beams_compliance(tmp_path):
    """``Problem.linearize(moving=True)``: the DC gain from a tip force to the tip's in-plane position of the
    spinning strip is the rotating beam's lag compliance (``lag_compliance``): L^3 / (3 EI) at rest to 1e-8,
    and at gamma = Omega sqrt(rho A L^4 / (E I)) = 10 converging at order 2 (the tension constant per
    element; measured 1.86e-2 / 4.78e-3 at 8 / 16 elements, order 1.96), the order-2 Richardson value
    within 1e-3 (measured 1.8e-4)."""
    path = case(tmp_path).with_suffix(".toml")
    path.write_text(path.read_text() + '[[probes]]\nname = "tip"\nbody = "blade"\npoint = [1.0, 0.0]\n')
    EI, rho_A = 70e9 * 0.01 * 0.001**3 / 12, 2700.0 * 0.01 * 0.001
    scale = np.sqrt(EI / rho_A)  # Omega per unit gamma (L = 1)
    errors = {}
    for gamma in (0.0, 10.0):
        for elements in (8, 16):
            problem = femdyn.load(path, overrides={"flexible.elements": elements, RATE: gamma * scale})
            plant = problem.linearize(inputs=["tip.fy"], outputs=["tip.y"], moving=True)
            errors[gamma, elements] = plant.dc_gain("tip.y", "tip.fy") * EI / lag_compliance(gamma) - 1.0
    assert abs(errors[0.0, 8]) < 1e-8 and abs(errors[0.0, 16]) < 1e-8
    coarse, fine = errors[10.0, 8], errors[10.0, 16]
    assert coarse < fine < 0 and 1.8 < np.log2(coarse / fine) < 2.2, (coarse, fine)
    assert abs(fine + (fine - coarse) / 3) < 1e-3
