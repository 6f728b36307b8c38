"""The analyses of issues 34 and 36 on the public API: ``Problem.linearize`` (``LinearResult``) and a
result's deviation from the rigid mechanism (``RunResult.deviation``, ``deviation_summary``).

- A damped steel cantilever built in Python (1 m, 10 x 10 mm, zeta = 0.03): the DC gain from its tip
  force to its tip deflection is L^3 / (3 EI) (cubic Hermite elements are exact for a tip load), its
  poles carry the modal damping ratio, its first pole is the Euler-Bernoulli frequency
  (beta_1 L)^2 / (2 pi L^2) sqrt(EI / (rho A)) and converges at the elements' order h^4, and its arrays
  and files are those of ``femdyn linearize`` on the equivalent case file (to round-off).
- The flexible five-bar run from Python: the deviation of its tool point is the ``probes.csv`` columns
  that ``femdyn run`` writes for the same run, and its figures are ``summary.json``'s; statically, the
  deviation falls in proportion to 1 / E.
- The README's example ("From Python"): a damped clamped arm under a tip load P = 1 N.
"""
import json
import math

import numpy as np
import pytest
from shared import CASES
from test_readme import BLOCKS, run_block

import femdyn
from femdyn.cli import main
from femdyn.io.tables import read_csv

L, YOUNG, RHO, SIDE, ZETA = 1.0, 2.1e11, 7850.0, 0.01, 0.03
EI, RHO_A = YOUNG * SIDE**4 / 12, RHO * SIDE**2
BETA1_L = 1.8751040687119611  # the first root of cos(x) cosh(x) = -1 (clamped-free)

CASE = f"""\
dimension = 2
[solver]
dt = 0.001
t_end = 0.01
[flexible]
elements = 4
[[bodies]]
name = "beam"
beam = {{length = {L}, young = {YOUNG}, density = {RHO}, b = {SIDE}, h = {SIDE}, damping = {{ratio = {ZETA}}}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[[probes]]
name = "tip"
body = "beam"
point = [{L}, 0.0]
[initial.bodies.beam]
position = [0.0, 0.0]
"""


def cantilever(elements=4):
    """The case file's cantilever built in Python (FEM, geometric stiffening as the case file's default)."""
    b = femdyn.ModelBuilder(2)
    beam = femdyn.BeamBody.straight(L, elements, femdyn.Section.rectangle(SIDE, SIDE), YOUNG, RHO,
                                    damping=femdyn.Damping(ratio=ZETA))
    b.add_beam("beam", beam, stiffening=True)
    b.add_joint("clamp", "fixed", "ground", "beam")
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.001, t_end=0.01),
                          bodies={"beam": {"position": [0.0, 0.0], "angle": 0.0}},
                          probes={"tip": ("beam", [L, 0.0])}, name="cantilever")


def test_linearize_a_python_cantilever_gives_its_static_compliance_and_damped_poles():
    plant = cantilever().linearize(inputs=["tip.fy"], outputs=["tip.y", "tip.x"])
    assert plant.inputs == ["tip.fy"] and plant.outputs == ["tip.y", "tip.x"]
    assert plant.input_units == ["N"] and plant.output_units == ["m", "m"]
    assert plant.A.shape == (len(plant.states), len(plant.states)) and plant.B.shape == (len(plant.states), 1)
    compliance = L**3 / (3 * EI)
    assert plant.dc_gain("tip.y", "tip.fy") == pytest.approx(compliance, rel=1e-9)
    assert abs(plant.dc_gain("tip.x", "tip.fy")) <= 1e-9 * compliance  # no axial motion to first order
    assert np.abs(plant.damping_ratio - ZETA).max() <= 1e-7
    system = plant.to_scipy()  # scipy.signal's StateSpace of the same arrays
    assert all(np.array_equal(getattr(system, name), getattr(plant, name)) for name in "ABCD")
    assert np.allclose(np.sort_complex(np.linalg.eigvals(system.A)), np.sort_complex(plant.poles), rtol=1e-12)
    assert abs(np.real(plant.response([0.0])[0, 0, 0]) - compliance) <= 1e-9 * compliance
    E, A_d, B_d, C_d, D_d = plant.descriptor
    assert E.shape == A_d.shape and B_d.shape[1] == 1 and C_d.shape[0] == 2 and D_d.shape == (2, 1)
    with pytest.raises(KeyError, match="unknown signal 'tip.z'"):
        plant.dc_gain("tip.z", "tip.fy")
    with pytest.raises(ValueError, match="unknown input 'nowhere.fy'"):
        cantilever().linearize(inputs=["nowhere.fy"])


def test_the_first_pole_converges_to_euler_bernoulli_at_the_elements_order():
    """f_1 = (beta_1 L)^2 / (2 pi L^2) sqrt(EI / (rho A)); |s| of a damped pole is the undamped omega."""
    exact = BETA1_L**2 / (2 * math.pi * L**2) * math.sqrt(EI / RHO_A)
    errors = []
    for elements in (2, 4, 8):
        plant = cantilever(elements).linearize(inputs=["tip.fy"], outputs=["tip.y"])
        errors.append(abs(plant.frequency[0] / exact - 1))
    assert errors[-1] <= 5e-6
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all(orders >= 3.8), orders  # cubic Hermite elements: frequencies converge as h^4


def test_linearize_from_python_is_femdyn_linearize_on_the_case_file(tmp_path):
    case = tmp_path / "cantilever.toml"
    case.write_text(CASE)
    signals = ["--inputs", "tip.fy", "--outputs", "tip.y,tip.x,clamp.beam.force_y"]
    assert main(["linearize", str(case), *signals, "--out", str(tmp_path / "cli"), "--no-plots"]) == 0
    ours = cantilever().linearize(inputs=["tip.fy"], outputs=["tip.y", "tip.x", "clamp.beam.force_y"])
    theirs = np.load(tmp_path / "cli" / "statespace.npz")
    arrays = {"A": ours.A, "B": ours.B, "C": ours.C, "D": ours.D,
              **dict(zip(("E", "A_d", "B_d", "C_d", "D_d"), ours.descriptor))}
    for name, value in arrays.items():
        assert value.shape == theirs[name].shape, name
        assert np.abs(value - theirs[name]).max(initial=0.0) <= 1e-12 * max(1.0, np.abs(theirs[name]).max()), name
    assert list(theirs["states"]) == ours.states and list(theirs["outputs"]) == ours.outputs
    # write() writes the command's folder: the same arrays and the same summary but the case's name
    summary = ours.write(tmp_path / "api", plots=False)
    assert sorted(p.name for p in (tmp_path / "api").iterdir()) == sorted(p.name for p in (tmp_path / "cli").iterdir())
    written = np.load(tmp_path / "api" / "statespace.npz")
    assert all(np.array_equal(written[name], value) for name, value in arrays.items())
    cli = json.loads((tmp_path / "cli" / "linearize.json").read_text())
    assert summary["dc_gains"]["tip.y"]["tip.fy"]["unit"] == cli["dc_gains"]["tip.y"]["tip.fy"]["unit"] == "m/N"
    assert summary["dc_gains"]["clamp.beam.force_y"]["tip.fy"]["value"] == pytest.approx(-1.0, rel=1e-9)
    for pole, other in zip(summary["poles"], cli["poles"], strict=True):
        assert pole["frequency_hz"] == pytest.approx(other["frequency_hz"], rel=1e-12)
        assert pole["damping_ratio"] == pytest.approx(other["damping_ratio"], abs=1e-12)


FIVE_BAR = CASES / "five_bar_flexible.toml"
T_END = 0.02


def test_the_deviation_from_python_is_the_command_lines(tmp_path):
    """``load(case).run(t_end)``'s ``deviation("P")`` against the ``P.deviation_*`` columns of the
    probes.csv of ``femdyn run`` (the same steps: to round-off), and ``deviation_summary`` against
    summary.json's ``probes.P.deviation``, ``deviation`` and ``conditioning``."""
    out = tmp_path / "cli"
    assert main(["run", str(FIVE_BAR), "--t-end", str(T_END), "--out", str(out), "--quiet", "--no-plots",
                 "--no-vtk"]) == 0
    result = femdyn.load(FIVE_BAR).run(t_end=T_END)
    assert result.complete
    table = read_csv(out / "probes.csv")
    deviation = result.deviation("P")
    assert np.array_equal(deviation.t, table["t"])
    assert list(deviation.components) == ["x", "y", "angle"] and deviation.units["angle"] == "rad"
    scale = np.abs(deviation.position).max()
    assert 1e-8 < scale < 1e-5  # the links' stretch under the tool's weight: F L / (E A) ~ 1e-7 m
    for axis, values in deviation.components.items():
        assert np.abs(values - table[f"P.deviation_{axis}"]).max() <= 1e-9 * scale, axis
    for column in ("jacobian_condition", "jacobian_smallest"):
        assert np.abs(result[column] - table[column]).max() <= 1e-12 * np.abs(table[column]).max()
    summary = json.loads((out / "summary.json").read_text())
    figures = result.deviation_summary
    assert figures["deviation"] == summary["deviation"]
    ours, theirs = deviation.statistics, summary["probes"]["P"]["deviation"]
    assert ours == figures["probes"]["P"]
    for key in ("max_m", "rms_m"):
        assert ours[key] == pytest.approx(theirs[key], rel=1e-9)
    assert ours["rotation"]["max_rad"] == pytest.approx(theirs["rotation"]["max_rad"], rel=1e-9)
    for key, value in summary["conditioning"].items():
        assert figures["conditioning"][key] == (pytest.approx(value, rel=1e-12) if isinstance(value, float) else value)
    with pytest.raises(KeyError, match="no probe 'tool'"):
        result.deviation("tool")


def test_the_static_deviation_of_the_five_bar_falls_as_one_over_young():
    """The tool's static deviation (``StaticResult.deviation``, as its ``deflections``) comes from the
    distal links' deformation under the tool's and their own weight: D(E) = a / E + b / E^2 + ..., so
    E x 10 divides it by 10 but for the second-order part, whose share falls 10x per decade of E
    (measured: D(E) / D(10 E) - 10 = 4.5e-3 at 70 GPa, 4.5e-4 at 700 GPa)."""
    links = ("bodies.link1.beam.young", "bodies.link2.beam.young")
    sizes = []
    for young in (70e9, 700e9, 7000e9):
        static = femdyn.load(FIVE_BAR, overrides={name: young for name in links}).static()
        deviation = static.deviation("P")
        assert np.allclose(deviation.position[0], static.deflections["P"]["deviation"], rtol=1e-9, atol=1e-18)
        sizes.append(np.linalg.norm(deviation.position[0]))
    assert sizes[0] > 1e-8
    departure = np.array(sizes[:-1]) / np.array(sizes[1:]) - 10
    assert 0 < departure[0] < 1e-2
    assert 0.08 <= departure[1] / departure[0] <= 0.12, departure


def test_the_readme_example_shows_the_compliance_the_sag_and_the_step_response(tmp_path, monkeypatch):
    """The arm of "From Python" (1 m, 10 x 10 mm steel, 8 elements, zeta = 0.02, P = 1 N at the tip): DC
    gain and static deviation P L^3 / (3 EI) (to the geometric stiffening at the loaded pose, (w/L)^2 ~
    4e-6), f_1 of Euler-Bernoulli, and the run's largest deviation between 1.8x the sag and 2x, the
    bound of a step load on a linear structure (P w_max = U + T >= w_max^2 / (2 C), C the tip's
    compliance); the first mode alone overshoots to 1 + exp(-pi zeta / sqrt(1 - zeta^2)) = 1.94."""
    monkeypatch.chdir(tmp_path)
    example = next(code for code in BLOCKS if ".linearize(" in code)
    namespace, (gain, frequency, ratio, sag, swing) = run_block(example)
    compliance = L**3 / (3 * EI)
    assert gain == pytest.approx(compliance, rel=1e-5) and sag[1] == pytest.approx(-compliance, rel=1e-5)
    assert frequency == pytest.approx(BETA1_L**2 / (2 * math.pi * L**2) * math.sqrt(EI / RHO_A), rel=1e-4)
    assert ratio == pytest.approx(0.02, rel=1e-2)
    peak = swing.statistics["max_m"]
    assert 1.8 * compliance <= peak <= 2 * compliance
    assert peak == pytest.approx(np.linalg.norm(swing.position, axis=1).max(), rel=1e-12)
    assert (tmp_path / "results" / "arm_linearize" / "statespace.npz").exists()
