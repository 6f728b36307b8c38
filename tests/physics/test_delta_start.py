"""The shipped Delta (cases/delta_flexible.toml) starts at rest in its static equilibrium under gravity
(``[initial] equilibrium = true``): its motor torques carry no ringing at the arms' modes, where the same
robot released from straight arms rings for the whole run (nothing damps the energy-momentum steps) at
a natural mode of the mechanism, seen at the frequency the mid-point steps give it; and ``femdyn static``
still measures the sag from the straight pose, not from the equilibrium the run starts in."""
import dataclasses
import json

import numpy as np
from shared import CASES

from femdyn.cli import main
from femdyn.integrators.modes import natural_modes
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.casefile.case import load_case
from femdyn.post.equilibrium import deflections
from femdyn.post.nodes import INPUTS, NodeTables
from femdyn.studies.run import run_case

PATH = CASES / "delta_flexible.toml"


def spectrum(t, u):
    """Frequencies [Hz] and single-sided amplitudes of u(t) about its mean (Hann window: a steady sine
    of amplitude a reads a at its bin, and the slow motion's 1 Hz harmonics leak into the bins near the
    modes by less than 1e-5 of their size)."""
    window = np.hanning(len(u))
    amplitude = 2.0 * np.abs(np.fft.rfft((u - u.mean()) * window)) / window.sum()
    return np.fft.rfftfreq(len(u), t[1] - t[0]), amplitude


def torques(case):
    """t and the motor torques (``inputs.csv`` columns) of a run of ``case``."""
    results = run_case(case).results
    assert results.complete, results.message
    table = NodeTables(case.model).rows(results)[INPUTS]
    return table["t"], [table[name] for name in case.model.inputs]


def test_the_shipped_delta_starts_without_ringing():
    """As shipped: above half the lowest natural frequency f1 (``femdyn modes``: 79 Hz, servos held, at the
    equilibrium), where every elastic mode lies, no motor torque has a spectral amplitude of 1 % of its
    mean magnitude (measured: 2e-5). Released from straight arms (equilibrium = false, 1 s) the torques
    ring at 50 % of their mean, at the discrete frequency (1/(pi dt)) atan(pi f dt) of one of the six
    lowest modes f (the mid-point rule's period elongation: the 134.7 Hz mode of the arms bending under
    the effector shows at 111.8 Hz), to the 1 Hz resolution."""
    case = load_case(PATH)
    assert case.equilibrium
    setup = prepare(case.model, case.q0, case.v0)
    eq = static_equilibrium(setup)
    modes = natural_modes(setup, eq.q, eq.lam, k=6)
    lowest = modes.frequency[0]
    assert 70.0 < lowest < 90.0
    t, shipped = torques(case)
    for u in shipped:
        f, amplitude = spectrum(t, u)
        assert amplitude[f > lowest / 2].max() < 0.01 * np.abs(u).mean()
    released = dataclasses.replace(case, equilibrium=False,
                                   settings=case.settings.replace(t_end=1.0))
    t, ringing = torques(released)
    dt = case.settings.step
    discrete = np.arctan(np.pi * modes.frequency * dt) / (np.pi * dt)
    for u in ringing:
        f, amplitude = spectrum(t, u)
        band = f > lowest / 2
        peak = f[band][np.argmax(amplitude[band])]
        assert amplitude[band].max() > 0.1 * np.abs(u).mean()
        assert np.abs(discrete - peak).min() <= 1.0


def test_static_measures_the_sag_from_the_straight_pose(tmp_path, capsys):
    """``femdyn static`` of the shipped Delta, which starts its runs in equilibrium: the effector's
    displacement is the sag from the placed, straight pose (the arms' cantilever deflection, 14.4 um;
    ``test_delta``), the same as from ``prepare`` without the equilibrium, not zero."""
    case = load_case(PATH)
    setup = prepare(case.model, case.q0, case.v0)
    sag = deflections(case, static_equilibrium(setup).q, setup.q0)["tcp"]["displacement"]
    assert main(["static", str(PATH), "--out", str(tmp_path / "static"), "--no-vtk"]) == 0
    capsys.readouterr()
    static = json.loads((tmp_path / "static" / "static.json").read_text())
    shown = static["probes"]["tcp"]["displacement"]
    assert sag[2] < -1e-5
    np.testing.assert_allclose(shown, sag, rtol=0, atol=1e-6 * abs(sag[2]))
