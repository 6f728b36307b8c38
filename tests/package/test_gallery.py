"""The gallery (docs/examples/*.py) runs: every script's ``main(folder)`` is executed with its figures
written to a temporary folder, and what each shows holds.

- ``prr3_deflection``: the 3-PRR end effector's elastic deflection falls with the links' depth h like
  the bending compliance 12/(E b h^3) (003 section 8.4: the cross section dominates), the masses fixed:
  the exponent between successive depths lies between 2.5 and 3 (3 for pure bending under the same
  loads; the axial compliance, like 1/h, and the dynamics pull it below).
- ``spatial_mechanism``: the energy balance H - H0 - W of the energy-momentum scheme is round-off, and
  the angular momentum about the vertical axis gains the torque's impulse (3 N m s) and keeps it.
- ``flexible_link_inverse``: the stable inversion's torque turns the link rest to rest, so its impulse
  (the hub's angular momentum at the end) is zero; the forward run with it follows the path; the
  problem is non-minimum phase.
- ``stewart_gough``: the leg forces' work is the change of the energy (the balance H - H0 - W at
  round-off), the servos keep the platform's centre on its path, and at the start, at rest at home
  (the smooth start has no acceleration there), the leg forces are those of the static equilibrium,
  equal in the six legs by the pose's symmetry.
- ``sweep_python_model``: the strip's tip deflection falls like 1/E, its largest bending stress (set by
  the loads, not by E) stays within 10 %."""
import runpy

import numpy as np
import pytest
from shared import ROOT

import femdyn

EXAMPLES = ROOT / "docs" / "examples"


def run_example(name, folder):
    """The example's ``main(folder)``, its module run under another name than __main__."""
    return runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name=f"gallery_{name}")["main"](folder)


def test_every_example_is_tested():
    tested = [name.removeprefix("test_") for name in globals() if name.startswith("test_")]
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == sorted(set(tested) - {"every_example_is_tested"})


def test_prr3_deflection(tmp_path):
    largest = run_example("prr3_deflection", tmp_path)
    assert (tmp_path / "deflection.png").stat().st_size > 0
    h = sorted(largest)
    for thin, thick in zip(h, h[1:]):
        exponent = np.log(largest[thin] / largest[thick]) / np.log(thick / thin)
        assert 2.5 < exponent <= 3.0, (thin, thick, exponent)


def test_spatial_mechanism(tmp_path):
    result = run_example("spatial_mechanism", tmp_path)
    assert {"path.png", "energy.png"} <= {p.name for p in tmp_path.iterdir()}
    assert result.complete
    scale = max(np.abs(result["total"]).max(), result["kinetic"].max())
    assert np.abs(result["energy_balance"]).max() <= 1e-10 * scale
    spin = result["angular_momentum_z"]
    after = result.t >= 0.3 - 1e-12  # the torque pulse ends at 0.3 s
    assert np.ptp(spin[after]) <= 1e-10 * 3.0
    assert spin[-1] == pytest.approx(0.5 * 0.3 * 20.0, rel=1e-4)  # the hat's impulse, to O(dt^2)


def test_flexible_link_inverse(tmp_path):
    inverse = run_example("flexible_link_inverse", tmp_path)
    assert (tmp_path / "torque.png").stat().st_size > 0
    torque, t = inverse.inputs["theta"], inverse.t_mid
    dt = t[1] - t[0]
    assert abs(torque.sum() * dt) <= 1e-8 * np.abs(torque).max() * (t[-1] - t[0])
    assert inverse.path_error <= 1e-9
    assert not inverse.minimum_phase
    assert np.abs(torque[t < 0]).max() > 0  # pre-actuation: the torque acts before the tip moves


def test_stewart_gough(tmp_path):
    result = run_example("stewart_gough", tmp_path)
    assert (tmp_path / "leg_forces.png").stat().st_size > 0
    assert result.complete
    scale = max(np.abs(result["total"]).max(), result["kinetic"].max())
    assert np.abs(result["energy_balance"]).max() <= 1e-10 * scale
    psi = 2 * np.pi * femdyn.trajectories.smooth_start(result.t, 0.5)[0]
    path = {"x": 0.05 * np.sin(psi), "y": 0.05 * (1 - np.cos(psi)), "z": 0.8 + 0.04 * np.sin(psi)}
    for axis, expected in path.items():
        assert np.abs(result[f"centre.{axis}"] - expected).max() <= 1e-9, axis
    held = result.problem.static().servo_inputs  # at rest at home: the forces that hold the weight
    for k in range(1, 7):
        assert result.inputs[f"L{k}"][0] == pytest.approx(held[f"L{k}"], rel=1e-9)
        assert held[f"L{k}"] == pytest.approx(held["L1"], rel=1e-12)  # the home pose's symmetry


def test_sweep_python_model(tmp_path):
    swept = run_example("sweep_python_model", tmp_path)
    assert (tmp_path / "deflection_vs_E.png").stat().st_size > 0
    assert (tmp_path / "sweep" / "samples.csv").is_file()
    assert not swept.errors
    E, largest, stress = swept["E"], swept["elastic_max"], swept["max_stress"]
    exponents = -np.diff(np.log(largest)) / np.diff(np.log(E))
    assert np.all((0.9 < exponents) & (exponents < 1.1)), exponents
    assert np.ptp(stress) <= 0.1 * stress.max()
