"""The command line: help texts, a complete run, replacing and refusing output folders, a run that
stops early, ``check``, ``mesh``, ``bench convergence``, and the integrator chosen in the case file or
on the command line."""
import json

import numpy as np
import pytest
from case_texts import NM_BODIES_AND_JOINT
from shared import CASES, double_pendulum_ode

from femdyn.cli import main
from femdyn.casefile.case import load_case
from femdyn.io.tables import read_csv

CASE = """\
title = "NM logo"
dimension = 2
[solver]
dt = 0.01
t_end = 0.03
[output]
every = 2
""" + NM_BODIES_AND_JOINT + """\
[[loads]]
type = "joint"
coordinate = "theta"
function = {type = "expression", expr = "5*sin(2*pi*t)"}
[initial.bodies.N]
position = [0, 0]
angular_velocity = 1.0
[initial.joints.NM]
angle = "pi"
"""


@pytest.fixture
def case(tmp_path):
    path = tmp_path / "logo.toml"
    path.write_text(CASE)
    return path


def summary(folder):
    return json.loads((folder / "summary.json").read_text())


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["check", "--help"], ["--version"]])
def test_help(argv, capsys):
    assert main(argv) == 0
    assert "femdyn" in capsys.readouterr().out


def test_run_writes_all_files(case, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(case), "--out", str(out), "--quiet", "--compare-dt", "0.015"]) == 0
    files = {"history.csv", "bodies.csv", "energy.png", "joint_coordinates.png", "joint_coordinates_dt.png",
             "motion.pvd", "bodies.txt", "vtk", "summary.json", "reactions.csv", "reactions.png", ".femdyn",
             "units.json"}
    assert {p.name for p in out.iterdir()} == files
    assert sorted(p.name for p in (out / "vtk").iterdir()) == [f"frame_0000{k}.vtu" for k in range(3)]
    s = summary(out)
    assert s["complete"] and s["steps"] == 3 and s["degrees_of_freedom"] == 4
    assert s["max_abs_energy_balance"] < 1e-10
    history = read_csv(out / "history.csv")
    assert list(history)[-2:] == ["theta", "theta_rate"]
    assert history["theta"][0] == pytest.approx(3.141592653589793)
    assert list(read_csv(out / "bodies.csv")) == ["t", "N.x", "N.y", "N.angle", "M.x", "M.y", "M.angle"]
    assert f"results in {out}" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logo.toml", "out"]


def test_newton_method_is_chosen_on_the_command_line_and_reported(case, tmp_path, capsys):
    """``--newton modified`` overrides the case's ``solver.newton``: the summary names the method and
    counts fewer factorised Newton matrices than iterations (full Newton: one per iteration)."""
    counts = {}
    for method in ("full", "modified"):
        out = tmp_path / method
        assert main(["run", str(case), "--out", str(out), "--no-plots", "--no-vtk", "--newton", method,
                     "--t-end", "0.2"]) == 0
        s = summary(out)
        assert s["newton"] == method and s["complete"]
        counts[method] = (s["newton_factorisations"], round(s["newton_iterations_mean"] * s["steps"]))
        assert f"Newton iterations per step ({method} Newton)" in capsys.readouterr().out
    assert counts["full"][0] == counts["full"][1]
    assert counts["modified"][0] < counts["modified"][1]


def test_rerun_replaces_result_folder(case, tmp_path):
    out = tmp_path / "out"
    args = ["run", str(case), "--out", str(out), "--quiet", "--no-plots", "--no-vtk"]
    assert main(args) == 0
    (out / "stale.txt").write_text("from the first run")
    assert main(args) == 0
    assert not (out / "stale.txt").exists() and summary(out)["complete"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logo.toml", "out"]


def test_refuses_to_replace_other_folder(case, tmp_path, capsys):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert main(["run", str(case), "--out", str(out), "--quiet"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {out}: ")
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logo.toml", "notes"]


def test_newton_failure_keeps_partial_results(case, tmp_path, capsys):
    case.write_text(CASE.replace("t_end = 0.03", "t_end = 0.03\nmax_iterations = 1\ntolerance = 1e-14"))
    out = tmp_path / "out"
    assert main(["run", str(case), "--out", str(out), "--quiet", "--no-plots"]) == 1
    s = summary(out)
    assert not s["complete"] and "Newton failed" in s["message"] and s["steps"] < s["steps_planned"]
    assert (out / "history.csv").is_file() and (out / "motion.pvd").is_file()
    assert "Newton failed" in capsys.readouterr().err


def test_check_describes_model(case, capsys):
    assert main(["check", str(case)]) == 0
    out = capsys.readouterr().out
    assert "n = 13, constraints m = 9, active rows 9, degrees of freedom 4" in out
    assert "NM: revolute, N - M, angle 'theta'" in out


def test_mesh_writes_a_straight_beam_that_reads_back(tmp_path, capsys):
    from femdyn.io.meshes import read_centreline

    path = tmp_path / "beam.vtu"
    assert main(["mesh", str(path), "--length", "0.5", "--elements", "8", "--angle", "0.3"]) == 0
    points = read_centreline(path)
    assert len(points) == 9
    assert points[-1] == pytest.approx([0.5 * np.cos(0.3), 0.5 * np.sin(0.3)], abs=1e-12)
    capsys.readouterr()
    assert main(["mesh", str(tmp_path / "beam.txt"), "--length", "1", "--elements", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {tmp_path / 'beam.txt'}: file:") and "\n" not in err
    # nodes beyond the range of floats, or closer than their resolution: refused, nothing written
    for start, length, words in (("1e308", "1e308", "not finite"), ("1e20", "1", "coincide")):
        path = tmp_path / f"far{start}.vtu"
        assert main(["mesh", str(path), "--length", length, "--elements", "3", "--start", start, "0"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"error: {path}: file:") and words in err and "\n" not in err
        assert not path.exists()


def test_bench_convergence_reports_orders_and_refuses_round_off(tmp_path, capsys, case_path):
    out = tmp_path / "conv"
    assert main(["bench", "convergence", str(case_path("nm_logo.toml")), "--quantity", "theta",
                 "--levels", "3", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "observed order (finest pair)" in table
    data = json.loads((out / "convergence.json").read_text())
    assert abs(data["quantities"]["theta"]["orders"][-1] - 2.0) < 0.15
    assert (out / "convergence.png").is_file()
    # the energy error of a conservative case is at round-off: no order, exit 1, one line
    assert main(["bench", "convergence", str(case_path("nm_logo.toml")), "--quantity", "energy_error",
                 "--levels", "3", "--out", str(tmp_path / "conv2")]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("error:") and "round-off" in err
    # a probe's outputs are quantities too: an unknown one is refused in one line that lists them
    flexible = case_path("3prr_sine.toml")
    assert main(["bench", "convergence", str(flexible), "--quantity", "effector.z", "--out", str(tmp_path / "c3")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {flexible}:") and "\n" not in err
    assert "unknown quantity 'effector.z'" in err and "effector.elastic_y" in err
    assert not (tmp_path / "c3").exists()
    # --flexible / --elements as in femdyn run, refused where they change nothing
    assert main(["bench", "convergence", str(flexible), "--flexible", "rayleigh-ritz", "--elements", "8",
                 "--quantity", "effector.elastic_y", "--out", str(tmp_path / "c4")]) == 2
    assert "--elements: sets the elements of fem beams; the flexible bodies are rayleigh-ritz" in capsys.readouterr().err


def test_case_file_and_command_line_select_generalized_alpha(tmp_path):
    """``[solver] integrator``/``rho_inf`` and ``femdyn run --integrator --rho-inf`` reach the
    stepper: the double pendulum run through the CLI with generalized-alpha (rho_inf = 0.8, with its
    numerical dissipation) loses energy, and every joint coordinate in history.csv matches the
    minimal-coordinate solution to O(dt^2): at dt = 1 ms over 1 s the errors are 8.4e-6 (theta1) and
    2.1e-5 (theta2, the relative angle), each held to a bound just above it (1e-5, 2.5e-5); they are the
    scheme's second-order error, not round-off: 3.4e-5 and 8.2e-5 at dt = 2 ms, 2.1e-6 and 5.1e-6 at
    0.5 ms (ratios 4.0 per halving)."""
    from femdyn.cli import main
    from femdyn.io.tables import read_csv
    case = CASES / "double_pendulum.toml"
    out = tmp_path / "ga"
    assert main(["run", str(case), "--integrator", "generalized-alpha", "--rho-inf", "0.8", "--t-end", "1",
                 "--dt", "0.001", "--out", str(out), "--quiet", "--no-vtk", "--no-plots"]) == 0
    history = read_csv(out / "history.csv")
    model = load_case(case).model
    names = list(model.joint_coordinates)
    theta = double_pendulum_ode(history["t"], (history[names[0]][0], history[names[0]][0] + history[names[1]][0]))
    assert names == ["theta1", "theta2"]  # every joint coordinate: rod 1's angle, then rod 2's relative to it
    exact = {"theta1": (theta[0], 1e-5), "theta2": (theta[1] - theta[0], 2.5e-5)}
    for name, (angle, bound) in exact.items():
        assert np.abs(history[name] - angle).max() < bound, name
    assert history["total"][-1] < history["total"][0]  # generalized-alpha dissipates, a little
    text = (tmp_path / "ga.toml")
    text.write_text(case.read_text().replace("[solver]", "[solver]\nintegrator = \"generalized-alpha\"\nrho_inf = 0.5"))
    c = load_case(text)
    assert (c.settings.integrator, c.settings.rho_inf) == ("generalized-alpha", 0.5)
