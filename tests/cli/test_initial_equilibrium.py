"""``[initial] equilibrium = true``: the run starts at rest in the static equilibrium. A clamped beam
under its weight then starts with the cantilever's closed-form sag, w(L) = q L^4 / (8 EI) and
w'(L) = q L^3 / (6 EI) (Euler-Bernoulli; cubic Hermite elements are nodally exact under a uniform
load), and stays there: an equilibrium is a fixed point of the energy-momentum steps. Velocities given
with it are refused in one line."""
import numpy as np
import pytest

from femdyn.cli import main
from femdyn.io.tables import read_csv

RHO, E, B, H, L = 7850.0, 2.1e11, 0.02, 0.02, 1.0
CANTILEVER = f"""\
dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = 0.001
t_end = 0.05
[flexible]
model = "fem"
elements = 8
[[bodies]]
name = "bar"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "bar"]
[[probes]]
name = "tip"
body = "bar"
point = [{L}, 0.0]
[initial]
equilibrium = true
[initial.bodies.bar]
position = [0.0, 0.0]
angle = 0.0
"""


def run(tmp_path, text, name="out"):
    case = tmp_path / "case.toml"
    case.write_text(text)
    return main(["run", str(case), "--out", str(tmp_path / name), "--no-vtk", "--no-plots", "--quiet"]), case


def test_a_cantilever_starts_and_stays_at_its_closed_form_sag(tmp_path):
    code, _ = run(tmp_path, CANTILEVER)
    assert code == 0
    probes, history = read_csv(tmp_path / "out" / "probes.csv"), read_csv(tmp_path / "out" / "history.csv")
    q, EI = RHO * B * H * 9.81, E * B * H**3 / 12
    sag, slope = q * L**4 / (8 * EI), q * L**3 / (6 * EI)
    assert np.abs(probes["tip.y"] + sag).max() < 1e-12 * sag  # at every step, not only the first
    assert np.abs(probes["tip.angle"] + slope).max() < 1e-12 * slope
    assert np.abs(history["kinetic"]).max() < 1e-20 * np.abs(history["potential"]).max()


def test_released_undeformed_it_swings_past_the_sag(tmp_path):
    code, _ = run(tmp_path, CANTILEVER.replace("equilibrium = true", "equilibrium = false"))
    assert code == 0
    tip = read_csv(tmp_path / "out" / "probes.csv")["tip.y"]
    sag = RHO * B * H * 9.81 * L**4 / (8 * E * B * H**3 / 12)
    assert tip[0] == 0.0 and tip.min() < -1.5 * sag  # the dynamic overshoot, up to twice the sag


@pytest.mark.parametrize("old, new, field, words", [
    ("angle = 0.0\n", "angle = 0.0\nvelocity = [0.0, 0.1]\n", "initial.bodies.bar.velocity", "is at rest"),
    ("equilibrium = true", 'equilibrium = "yes"', "initial.equilibrium", "expected true or false"),
])
def test_a_start_in_equilibrium_that_moves_is_refused(tmp_path, capsys, old, new, field, words):
    code, case = run(tmp_path, CANTILEVER.replace(old, new))
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {case}: {field}:") and words in err and "\n" not in err
    assert not (tmp_path / "out").exists()
