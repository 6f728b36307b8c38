"""``femdyn linearize``: the damped cantilever's plant from its tip force to its tip deflection written as
statespace.npz, linearize.json and Bode plots; scipy.signal reproduces the JSON's poles and DC gains from
the npz's A, B, C, D as they are; unknown inputs or outputs are refused in one line."""
import json

import warnings

import numpy as np
import pytest
import scipy.signal

from femdyn.cli import main

EI = 2.1e11 * 0.01**4 / 12

CANTILEVER = """\
dimension = 2
[solver]
dt = 0.001
t_end = 0.01
[flexible]
elements = 4
[[bodies]]
name = "beam"
beam = {length = 1.0, young = 2.1e11, density = 7850.0, b = 0.01, h = 0.01, damping = {ratio = 0.03}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[[probes]]
name = "tip"
body = "beam"
point = [1.0, 0.0]
[initial.bodies.beam]
position = [0.0, 0.0]
"""


@pytest.fixture(scope="module")
def linearized(tmp_path_factory):
    folder = tmp_path_factory.mktemp("linearize")
    case = folder / "cantilever.toml"
    case.write_text(CANTILEVER)
    out = folder / "out"
    assert main(["linearize", str(case), "--inputs", "tip.fy", "--outputs", "tip.y,tip.x", "--out", str(out)]) == 0
    return out


def test_files_and_units(linearized):
    summary = json.loads((linearized / "linearize.json").read_text())
    assert [o["unit"] for o in summary["outputs"]] == ["m", "m"] and summary["inputs"][0]["unit"] == "N"
    gain = summary["dc_gains"]["tip.y"]["tip.fy"]
    assert gain["unit"] == "m/N" and gain["value"] == pytest.approx(1 / (3 * EI), rel=1e-9)  # L^3 / (3 EI)
    assert all(p["damping_ratio"] == pytest.approx(0.03, abs=1e-7) for p in summary["poles"])
    assert (linearized / "bode_tip_y_tip_fy.png").stat().st_size > 0 and (linearized / "bode_tip_x_tip_fy.png").exists()


def test_scipy_signal_reproduces_the_poles_and_dc_gains(linearized):
    """scipy.signal.StateSpace of each input-output pair from the npz's arrays as they are: its poles (by
    SciPy's transfer function, the roots of its denominator) are the JSON's (one of each conjugate pair
    there) to 1e-12, and its DC gain num(0)/den(0) is the JSON's to 1e-8 of the largest gain (the
    polynomials' round-off; the gain to tip.x is zero)."""
    data = np.load(linearized / "statespace.npz")
    summary = json.loads((linearized / "linearize.json").read_text())
    listed = np.array([p["real"] + 1j * p["imag"] for p in summary["poles"]])
    scale = 1 / (3 * EI)
    for i, output in enumerate(data["outputs"]):
        pair = (data["A"], data["B"][:, [0]], data["C"][[i]], data["D"][[i]][:, [0]])
        with warnings.catch_warnings():  # SciPy warns of the numerator's tiny leading coefficients
            warnings.simplefilter("ignore", scipy.signal.BadCoefficients)
            poles = scipy.signal.StateSpace(*pair).poles
            num, den = scipy.signal.ss2tf(*pair)
        poles = poles[poles.imag >= 0]
        assert poles.size == listed.size
        assert np.abs(poles[:, None] - listed[None, :]).min(axis=0).max() <= 1e-12 * np.abs(listed).max()
        expected = summary["dc_gains"][str(output)]["tip.fy"]["value"]
        assert abs(num[0][-1] / den[-1] - expected) <= 1e-8 * scale
    assert list(data["inputs"]) == ["tip.fy"] and list(data["outputs"]) == ["tip.y", "tip.x"]
    assert data["E"].shape == data["A_d"].shape


@pytest.mark.parametrize("option, name", [("--inputs", "nowhere.fy"), ("--outputs", "tip.fx")])
def test_unknown_signal_is_refused_in_one_line(tmp_path, capsys, option, name):
    case = tmp_path / "cantilever.toml"
    case.write_text(CANTILEVER)
    assert main(["linearize", str(case), option, name, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {case}: {option}: unknown") and "\n" not in err
    assert not (tmp_path / "out").exists()


def test_case_plant_from_python(tmp_path):
    """The same plant from Python by names (``studies.linear.case_plant``): the clamp's reaction on the beam
    per unit tip force is -1 N at DC, the tip deflection L^3 / (3 EI)."""
    from femdyn.casefile.case import load_case
    from femdyn.studies.linear import case_plant

    case = tmp_path / "cantilever.toml"
    case.write_text(CANTILEVER)
    plant = case_plant(load_case(case), ["tip.fy"], ["clamp.beam.force_y", "tip.y"])
    assert plant.output_units == ("N", "m")
    assert np.abs(plant.dc_gains()[:, 0] - [-1.0, 1 / (3 * EI)]).max() <= 1e-9 * max(1.0, 1 / (3 * EI))


LOADED = CANTILEVER + """\
[[loads]]
name = "push"
type = "point_force"
body = "beam"
point = [1.0, 0.0]
force = [0.0, 0.0]

[[loads]]
type = "point_force"
body = "beam"
point = [0.5, 0.0]
force = [0.0, 0.0]

[[loads]]
name = "twist"
type = "torque"
body = "beam"
torque = 0.0
"""


def test_loads_by_name_and_the_deviation_from_the_rigid_mechanism(tmp_path):
    """Inputs: the case's point-force loads by name (``push``, at the tip) or by index (``loads.1``, at
    mid-span); outputs: the tip's deviation from the rigid mechanism (the clamped rigid beam, which does
    not move). DC gains of the Euler-Bernoulli cantilever (the cubic elements are exact for point
    loads at nodes): tip force -> tip deflection and slope L^3 / 3EI and L^2 / 2EI, mid-span force ->
    tip deflection 5 L^3 / 48 EI (a = L/2: a^2 (3L - a) / 6EI); the deviation along x is zero."""
    from femdyn.casefile.case import load_case
    from femdyn.studies.linear import case_plant

    case = tmp_path / "cantilever.toml"
    case.write_text(LOADED)
    plant = case_plant(load_case(case), ["push.fy", "loads.1.fy"],
                       ["tip.deviation_y", "tip.deviation_angle", "tip.deviation_x"])
    assert plant.input_units == ("N", "N") and plant.output_units == ("m", "rad", "m")
    expected = np.array([[1 / 3, 5 / 48], [1 / 2, 1 / 8], [0.0, 0.0]]) / EI  # slope at the tip: a^2 / 2EI
    assert np.abs(plant.dc_gains() - expected).max() <= 1e-7 * np.abs(expected).max()


@pytest.mark.parametrize("name", ["twist", "twist.fy", "push", "loads.5.fy"])
def test_torque_loads_and_unknown_loads_are_not_inputs(tmp_path, capsys, name):
    case = tmp_path / "cantilever.toml"
    case.write_text(LOADED)
    assert main(["linearize", str(case), "--inputs", name, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {case}: --inputs: unknown input '{name}'") and "push" in err and "\n" not in err


def test_a_load_name_is_new(tmp_path):
    """A load's name may not be a probe's, a joint coordinate's or another load's."""
    from femdyn.casefile.case import load_case
    from femdyn.casefile.reader import CaseError

    case = tmp_path / "cantilever.toml"
    case.write_text(LOADED.replace('name = "twist"', 'name = "tip"'))
    with pytest.raises(CaseError, match=r"loads\[2\]\.name: name 'tip' is used twice"):
        load_case(case)


def test_3prr_plant_deviation_scales_with_the_links_compliance():
    """The shipped 3-PRR plant (``cases/3prr_plant.toml``, servos free): the slider forces move the
    sliders freely (the slide's DC gain is infinite), but the effector's deviation from the rigid 3-PRR
    does not see that motion and has finite DC gains. With every link's Young's modulus doubled (the
    masses kept) the linear elastic machine's deviation gains halve and its flexible poles move by
    sqrt(2) with the same damping ratios (K proportional to E, M fixed): to 1e-8 (measured 9e-11 and
    5e-10; ``LinearPlant.dc_gains`` balances A, whose entries span 1e12, before splitting off the free
    motions)."""
    from shared import CASES

    from femdyn.casefile.case import load_case
    from femdyn.studies.linear import case_plant

    outputs = ["effector.deviation_x", "effector.deviation_y", "s1"]
    stiff = {f"bodies.{link}.beam.young": 1.4e11 for link in ("leg1", "leg2", "leg3", "platform")}
    plants = [case_plant(load_case(CASES / "3prr_plant.toml", overrides=overrides), ["s1", "s2", "s3"], outputs,
                         servos="free") for overrides in (None, stiff)]
    gains = [plant.dc_gains() for plant in plants]
    assert np.all(np.isfinite(gains[0][:2])) and np.isinf(gains[0][2]).all()
    assert np.abs(gains[1][:2] - gains[0][:2] / 2).max() <= 1e-8 * np.abs(gains[0][:2]).max()
    poles = [plant.poles() for plant in plants]
    flexible = [s[np.abs(s) > 1.0][:20] for s in poles]  # above the free sliders' pairs (|s| < 1e-2)
    assert np.abs(flexible[1] / (np.sqrt(2) * flexible[0]) - 1).max() <= 1e-8
