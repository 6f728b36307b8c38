"""``femdyn linearize`` / ``femdyn modes --moving`` at a stored state of a run (``--result DIR --frame K``,
``Problem.linearize``/``motion_modes(result=, frame=)``): a strip that a servo spins at 30 rad/s with
modal damping 0.02, run from its steady motion (the continuous relative equilibrium of ``femdyn modes
--moving``). Frame 0 holds exactly that state (``states.csv`` keeps float64 to the last bit), so the
poles at it are those about the steady motion to round-off (1e-10). A later frame holds the run's
state, which leaves the continuous steady motion by the scheme's O(dt^2) error: its poles differ from the
steady ones by an amount that falls 4x when dt halves (measured at t = 0.01 s: 2.34e-5 / 5.78e-6,
ratio 4.04), so the linearisation at the run's state converges to the one about the steady motion with
the run's accuracy. A folder without the states, with states of another mesh or non-finite values, a
frame out of range and --frame without --result are refused in one line, exit code 2."""
import dataclasses
import json

import numpy as np

import femdyn
from femdyn.cli import main
from femdyn.post.results import write_results
from femdyn.studies.campbell import case_motion
from femdyn.studies.run import run_case
from test_cli_campbell import BLADE


def spinning_run(folder, dt):
    """The case file of the spinning damped strip, and a result folder of its run over 0.01 s at ``dt``
    from the steady motion, a frame every 5 steps."""
    path = folder / "blade.toml"
    path.write_text(BLADE.format(speed=30.0, damping=", damping = {ratio = 0.02}").replace(
        "dt = 0.001", f"dt = {dt}"))
    case = dataclasses.replace(femdyn.load(path).case, every=5, states=True)  # [output] states = true
    setup, motion = case_motion(case)
    run = run_case(case, setup=dataclasses.replace(setup, q0=motion.q, v0=motion.v))
    assert run.results.complete
    out = folder / f"run_{dt}"
    write_results(out, case, run.results)
    return path, out


def relative_change(modes, steady):
    return max(np.abs(modes.frequency / steady.frequency - 1).max(),
               np.abs(modes.damping_ratio - steady.damping_ratio).max())


def test_a_frame_of_a_steady_run_linearises_as_the_steady_motion(tmp_path, capsys):
    path, coarse = spinning_run(tmp_path, 1e-3)
    _, fine = spinning_run(tmp_path, 5e-4)
    problem = femdyn.load(path)
    steady = problem.motion_modes(3).modes
    assert relative_change(problem.motion_modes(3, result=coarse, frame=0).modes, steady) < 1e-10
    later = [relative_change(problem.motion_modes(3, result=folder, frame=k).modes, steady)
             for folder, k in ((coarse, 2), (fine, 4))]  # both at t = 0.01 s
    assert later[1] < 1e-5 and 3.6 < later[0] / later[1] < 4.4, later  # the run's O(dt^2) departure
    assert main(["linearize", str(path), "--result", str(coarse), "--frame", "0", "--out", str(tmp_path / "at"),
                 "--no-plots"]) == 0
    assert main(["linearize", str(path), "--moving", "--out", str(tmp_path / "moving"), "--no-plots"]) == 0
    assert "frame 0" in capsys.readouterr().out
    at, moving = (json.loads((tmp_path / name / "linearize.json").read_text())["poles"] for name in ("at", "moving"))
    assert len(at) == len(moving) > 0
    for a, b in zip(at, moving):
        assert abs(a["frequency_hz"] / b["frequency_hz"] - 1) < 1e-8 and abs(a["damping_ratio"] - b["damping_ratio"]) < 1e-8
    assert main(["modes", str(path), "--result", str(coarse), "--frame", "2", "--count", "2",
                 "--out", str(tmp_path / "modes")]) == 0
    rows = json.loads((tmp_path / "modes" / "motion_modes.json").read_text())["modes"]
    assert abs(rows[0]["frequency_hz"] / steady.frequency[0] - 1) < 1e-3


def test_a_folder_without_the_state_or_a_frame_out_of_range_is_refused(tmp_path, capsys):
    path, run = spinning_run(tmp_path, 1e-3)
    states = run / "states.csv"
    text = states.read_text()

    def refused(arguments, *words):
        assert main(arguments + ["--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and all(w in err[0] for w in words), err

    refused(["modes", str(path), "--moving", "--result", str(run), "--frame", "3"], "--frame", "between 0 and 2")
    refused(["linearize", str(path), "--result", str(run), "--frame", "99"], "--frame", "between 0 and 2")
    refused(["linearize", str(path), "--frame", "0"], "--frame", "--result")
    states.write_text(text.replace(text.splitlines()[2].split(",")[3], "nan", 1))
    refused(["linearize", str(path), "--result", str(run), "--frame", "0"], "--result", "finite")
    states.write_text(text.replace("q.blade", "q.other"))
    refused(["linearize", str(path), "--result", str(run), "--frame", "0"], "--result", "coordinates")
    states.unlink()
    refused(["modes", str(path), "--result", str(run), "--frame", "0"], "--result", "states.csv")
