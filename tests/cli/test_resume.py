"""Runs that survive being killed: ``femdyn run`` writes its folder as it goes, marked incomplete
(``incomplete.json``) until the run ends; after ``kill -9`` the folder holds every step of the chunks
saved and is read by ``femdyn view``, ``femdyn compare`` and any CSV reader; SIGTERM stops the run like
Ctrl-C (exit 143, the steps so far kept); ``femdyn run CASE --resume DIR`` completes either to the
folder of a run that was never stopped, byte for byte (every table, every ParaView frame, the summary
but its wall time)."""
import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from shared import CASES

import femdyn
from femdyn.cli import main
from femdyn.io.tables import STATUS, read_csv
from femdyn.model.deviation import OK

PACKAGE = str(Path(femdyn.__file__).resolve().parents[1])
TABLES = ("history.csv", "bodies.csv", "probes.csv", "inputs.csv")
CLOCK = ("wall_time_s", "ms_per_step")  # the summary's figures of the wall time


def start(argv, folder):
    """``python -m femdyn run ..`` as a process of its own, saving every 50 ms; returns it once its
    marker shows at least 300 steps written."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PACKAGE, os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-m", "femdyn", "run", *argv, "--out", str(folder), "--quiet",
                                "--save-every", "0.05"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600  # the event is the marker; the deadline only ends a run that hangs
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if json.loads((folder / "incomplete.json").read_text())["steps_written"] >= 300:
                return process
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.01)
    process.kill()
    pytest.fail(f"the run did not write 300 steps: {process.communicate()[1]}")


def files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def assert_same_results(folder, reference):
    """The same files, the same bytes (the summary: the same but for the wall time)."""
    assert files(folder) == files(reference)
    for name in files(reference):
        path = reference / name
        if name == "summary.json":
            a, b = (json.loads((f / name).read_text()) for f in (folder, reference))
            assert {k: v for k, v in a.items() if k not in CLOCK} == {k: v for k, v in b.items() if k not in CLOCK}
        elif path.is_file() and path.suffix != ".png":
            assert (folder / name).read_bytes() == path.read_bytes(), name


@pytest.fixture
def sine(tmp_path):
    """The 3-PRR under sine loads (generalized-alpha with the early stop, flexible links, a probe) over
    3000 steps, run without interruption."""
    argv = [str(CASES / "3prr_sine.toml"), "--t-end", "6"]
    reference = tmp_path / "reference"
    assert main(["run", *argv, "--out", str(reference), "--quiet"]) == 0
    return argv, reference


def test_kill_9_leaves_a_readable_folder_that_resume_completes(sine, tmp_path, capfd):
    argv, reference = sine
    killed = tmp_path / "killed"
    process = start(argv, killed)
    process.kill()
    assert process.wait() == -signal.SIGKILL
    marker = json.loads((killed / "incomplete.json").read_text())
    assert not (killed / "summary.json").exists() and marker["complete"] is False
    steps = marker["steps_written"]
    assert 300 <= steps < 3000 and marker["valid_until_t"] == pytest.approx(steps * 0.002)
    assert marker["resume"].endswith(f"--resume {killed}")
    for table in ("history.csv", "bodies.csv", "probes.csv"):  # every step of the saved chunks, as run
        rows = marker["rows"][table]
        assert rows == steps + 1
        saved = (killed / table).read_text().splitlines()[: rows + 1]
        assert saved == (reference / table).read_text().splitlines()[: rows + 1]
        with open(killed / table, newline="") as f:  # any CSV reader: a header and rows of numbers, but in
            # probes.csv the status words and, where the status is singular, the undefined deviation left empty
            header, *lines = list(csv.reader(f))[: rows + 1]
        ok = np.array([STATUS not in header or line[header.index(STATUS)] == OK for line in lines])
        values = np.array([[float(v) if v else np.nan for v, name in zip(line, header) if name != STATUS]
                           for line in lines])
        defined = [not (".deviation_" in name or name.startswith("jacobian_")) for name in header if name != STATUS]
        assert np.isfinite(values[ok]).all() and np.isfinite(values[:, defined]).all()
        assert read_csv(killed / table, rows)["t"][-1] == marker["valid_until_t"]
    rows = marker["rows"]["reactions.csv"]  # at the nodes: the last node needs the next step
    assert rows == steps
    saved = (killed / "reactions.csv").read_text().splitlines()[: rows + 1]
    assert saved == (reference / "reactions.csv").read_text().splitlines()[: rows + 1]
    with open(killed / "probes.csv", "a") as f:
        f.write("1.0,0.3")  # a line cut off, as by a kill in the middle of a write
    capfd.readouterr()
    assert main(["compare", str(killed), str(reference), "--table", "probes", "--columns", "effector.elastic_y",
                 "--out", str(tmp_path / "compare.png")]) == 0
    assert f"note: {killed} is incomplete" in capfd.readouterr().err
    assert main(["view", str(killed), "--screenshot", str(tmp_path / "frame.png")]) == 0
    shown = float(capfd.readouterr().out.rsplit("t = ", 1)[1])  # the last frame saved: one of every 6 steps
    assert marker["valid_until_t"] - 6 * 0.002 < shown <= marker["valid_until_t"]
    assert main(["run", argv[0], "--resume", str(killed), "--quiet"]) == 0
    assert_same_results(killed, reference)


def test_sigterm_stops_like_ctrl_c_and_resume_completes(tmp_path, capfd):
    """The RPR with stick-slip friction (servo inputs, friction states) by modified Newton (a kept
    factorisation across steps)."""
    argv = [str(CASES / "rpr_figure8_friction.toml"), "--t-end", "25", "--newton", "modified", "--no-plots"]
    reference = tmp_path / "reference"
    assert main(["run", *argv, "--out", str(reference), "--quiet"]) == 0
    stopped = tmp_path / "stopped"
    process = start(argv, stopped)
    process.send_signal(signal.SIGTERM)
    assert process.wait() == 143
    err = process.stderr.read()
    assert "Traceback" not in err and f"continue with femdyn run {argv[0]} --resume {stopped}" in err
    summary = json.loads((stopped / "summary.json").read_text())
    assert not summary["complete"] and summary["message"].startswith("interrupted at t = ")
    marker = json.loads((stopped / "incomplete.json").read_text())
    assert marker["state"] == "interrupted" and marker["resumes_from_t"] == summary["t_reached"]
    assert (stopped / "inputs.csv").read_text() in (reference / "inputs.csv").read_text()
    capfd.readouterr()
    # resumed with the options it started with: a different one is refused, in one line
    assert main(["run", argv[0], "--resume", str(stopped), "--quiet", "--newton", "full"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "--resume: the run in it has --newton modified, not full" in err
    assert main(["run", *argv, "--resume", str(stopped), "--quiet"]) == 0
    assert_same_results(stopped, reference)
    assert main(["run", argv[0], "--resume", str(stopped), "--quiet"]) == 2  # nothing left to resume
    assert "holds a finished run" in capfd.readouterr().err


def test_a_folder_being_written_is_neither_resumed_nor_replaced(tmp_path, capfd):
    """While a run writes its folder (it holds the folder's lock), another ``femdyn run`` into it is
    refused, with --resume or without."""
    case = tmp_path / "logo.toml"
    case.write_text((CASES / "nm_logo.toml").read_text().replace("t_end = 2.0", "t_end = 400.0"))
    out = tmp_path / "out"
    process = start([str(case)], out)
    try:
        capfd.readouterr()
        for more in (["--resume", str(out)], ["--out", str(out)]):
            assert main(["run", str(case), "--quiet", *more]) == 2
            err = capfd.readouterr().err
            assert err.count("\n") == 1 and f"{out}: {more[0]}: a femdyn run is still writing into it" in err, err
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait() == 130


def test_resume_refuses_a_changed_case(tmp_path, capfd):
    case = tmp_path / "logo.toml"
    case.write_text((CASES / "nm_logo.toml").read_text().replace("t_end = 2.0", "t_end = 400.0"))
    out = tmp_path / "out"
    process = start([str(case)], out)
    process.send_signal(signal.SIGINT)
    assert process.wait() == 130
    case.write_text(case.read_text().replace("peak = 5.0", "peak = 6.0"))
    capfd.readouterr()
    assert main(["run", str(case), "--resume", str(out), "--quiet"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and f"error: {out}: --resume: the run in it is not of {case} as it is now" in err
    assert (out / "incomplete.json").is_file()
    checkpoint = (out / "checkpoint.npz").read_bytes()
    (out / "checkpoint.npz").write_bytes(checkpoint[:100])  # damaged
    assert main(["run", str(case), "--resume", str(out), "--quiet"]) == 2
    one = capfd.readouterr().err
    assert one.count("\n") == 1 and f"error: {out / 'checkpoint.npz'}: file: cannot read the checkpoint" in one
    assert main(["run", str(case), "--t-end", "0.2", "--out", str(out), "--quiet"]) == 0  # a new run replaces it
    assert (out / "summary.json").is_file() and not (out / "incomplete.json").exists()


# The run killed at a moment set in the process itself (no race): the method named is replaced by one that
# sends the process SIGKILL -- after its first call's own work for "summary.json" (the summary in place).
KILL_AT = """
import os, signal, sys
from femdyn.post import plot_child, results
from femdyn.cli import main

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

moment = sys.argv[1]
if moment == "plots":  # as the job goes to the children that draw them
    plot_child.PlotChild.submit = die
else:
    replace = results.replace
    def kill_after(path, write):
        replace(path, write)
        if path.name == moment:
            die()
    results.replace = kill_after
sys.exit(main(["run", *sys.argv[2:]]))
"""


@pytest.mark.parametrize("moment", ["plots", "summary.json"])
def test_a_run_killed_while_it_writes_its_plots_and_summary_is_resumed_to_them(tmp_path, moment):
    """Killed after its last step was written -- as it starts the plots, or with summary.json written
    but the marker not yet removed --, the run leaves a folder that --resume completes, byte for byte,
    to the one of a run that was not killed: the last chunk saved its checkpoint, and the resumed run
    has no step left but writes the plots, the last frame (100 steps: not one of every 7th) and the
    summary."""
    argv = [str(CASES / "3prr_sine.toml"), "--t-end", "0.2", "--every", "7", "--quiet"]
    reference = tmp_path / "reference"
    assert main(["run", *argv, "--out", str(reference)]) == 0
    killed = tmp_path / "killed"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PACKAGE, os.environ.get("PYTHONPATH")])))
    process = subprocess.run([sys.executable, "-c", KILL_AT, moment, *argv, "--out", str(killed)], env=env,
                             capture_output=True, text=True)
    assert process.returncode == -signal.SIGKILL, process.stderr
    marker = json.loads((killed / "incomplete.json").read_text())
    assert marker["state"] == "running" and marker["steps_written"] == marker["steps_planned"] == 100
    assert (killed / "summary.json").exists() == (moment == "summary.json")
    assert (killed / "checkpoint.npz").is_file()
    assert main(["run", argv[0], "--resume", str(killed), "--quiet"]) == 0
    assert_same_results(killed, reference)


def test_a_new_run_killed_over_an_older_result_leaves_its_own_incomplete_folder(tmp_path):
    """A finished result at --out is replaced when the new run starts, not when it ends: killed, the new
    run leaves its own folder marked incomplete -- not the old summary, which would show an older run as
    the result -- and nothing beside it."""
    case = tmp_path / "logo.toml"
    case.write_text((CASES / "nm_logo.toml").read_text().replace("t_end = 2.0", "t_end = 400.0"))
    out = tmp_path / "out"
    assert main(["run", str(case), "--t-end", "0.2", "--out", str(out), "--quiet"]) == 0
    assert (out / "summary.json").is_file()
    process = start([str(case)], out)
    process.kill()
    assert process.wait() == -signal.SIGKILL
    marker = json.loads((out / "incomplete.json").read_text())
    assert marker["complete"] is False and marker["steps_planned"] == 8000 and marker["steps_written"] >= 300
    assert not (out / "summary.json").exists()
    history = read_csv(out / "history.csv", marker["rows"]["history.csv"])
    assert history["t"][-1] == marker["valid_until_t"] > 0.2  # the new run's rows, beyond the old run's end
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
