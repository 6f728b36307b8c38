"""Result folders are untrusted input (issue 33): ``femdyn run --resume`` checks the checkpoint's record
of the folder before it writes anything -- only femdyn's own table names inside the folder, each table at
least as long as recorded and holding the recorded rows, every frame there, no symbolic link --, refuses a
folder that does not match in one line naming what does not match (exit 2), touches no file inside or
outside the folder then, and the folder, put right, is resumed to the same files as a run that was never
stopped. ``--out`` replaces only a folder that femdyn made (``.femdyn``), also behind a symbolic link,
unless ``--force``; a sweep's folder is made whole or not at all (a full disk leaves nothing behind)."""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest
from shared import CASES
from test_resume import PACKAGE, assert_same_results

from femdyn.cli import main
from femdyn.post import results
from femdyn.studies import sweep as sweeps
from femdyn.studies import sweep_files

ARGV = [str(CASES / "double_pendulum.toml"), "--t-end", "0.1", "--every", "3", "--no-plots", "--quiet"]


def snapshot(root):
    """Every path under ``root`` with its bytes (files), link target (links) and modification time."""
    state = {}
    for path in sorted(root.rglob("*")):
        info = os.lstat(path)
        content = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
        state[str(path.relative_to(root))] = (content, info.st_mtime_ns, info.st_size)
    return state


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """``stop_run`` once for the tests of this module."""
    return stop_run(tmp_path_factory.mktemp("made"))


def stop_run(root):
    """The double pendulum stopped by SIGTERM after its 8th saved chunk (a chunk every step: the stop is
    an event of the run itself, not a time), and the folder of the same run not stopped, in ``root``."""
    reference = root / "reference"
    assert main(["run", *ARGV, "--out", str(reference)]) == 0
    write, calls = results.ResultWriter.write, []

    def write_then_stop(self, chunk, checkpoint):
        write(self, chunk, checkpoint)
        calls.append(1)
        if len(calls) == 8:
            os.kill(os.getpid(), signal.SIGTERM)

    results.ResultWriter.write = write_then_stop
    try:
        assert main(["run", *ARGV, "--out", str(root / "stopped"), "--save-every", "1e-9"]) == 143
    finally:
        results.ResultWriter.write = write
    assert (root / "stopped" / "incomplete.json").is_file() and (root / "stopped" / "checkpoint.npz").is_file()
    return root / "stopped", reference


@pytest.fixture
def stopped(made, tmp_path):
    """A copy of the stopped folder (``made``) in this test's folder, and the reference."""
    folder = tmp_path / "stopped"
    shutil.copytree(made[0], folder)
    return folder, made[1]


def craft(folder, change):
    """Rewrite the folder's checkpoint with its record ``meta`` changed by ``change(meta)``."""
    with np.load(folder / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    change(meta)
    arrays["meta"] = np.array(json.dumps(meta))
    with open(folder / "checkpoint.npz", "wb") as f:
        np.savez(f, **arrays)


def crafted_tables(victim, absolute):
    def change(meta):
        for table, size in ((os.path.relpath(victim, victim.parent / "stopped"), 3), (str(absolute), 0)):
            meta["bytes"][table], meta["rows"][table] = size, 0
    return change


def cut_history(fraction):
    def tamper(folder):
        path = folder / "history.csv"
        path.write_bytes(path.read_bytes()[: int(fraction * path.stat().st_size)])
    return tamper


TAMPERING = {  # what is done to the folder, and the words of the refusal
    "crafted table names": (None, "records the table '../victim.txt', which is not one of femdyn's"),
    "truncated history": (cut_history(0.5), "history.csv holds"),
    "emptied history": (cut_history(0.0), "history.csv holds 0 bytes"),
    "deleted table": (lambda folder: (folder / "bodies.csv").unlink(), "bodies.csv is missing"),
    "deleted frame": (lambda folder: (folder / "vtk" / "frame_00001.vtu").unlink(),
                      "the frame vtk/frame_00001.vtu that checkpoint.npz records is missing"),
    "planted link": (lambda folder: (folder / ".incomplete.json.partial").symlink_to(folder.parent / "victim.txt"),
                     ".incomplete.json.partial is a symbolic link"),
    "linked table": (lambda folder: os.link(folder / "probes.csv" if (folder / "probes.csv").exists() else
                                            folder / "bodies.csv", folder.parent / "outside.csv"),
                     "is not a regular file with one name"),
}


@pytest.mark.parametrize("kind", TAMPERING)
def test_a_folder_that_does_not_match_its_checkpoint_is_refused_and_nothing_is_written(stopped, tmp_path, capfd,
                                                                                         kind):
    folder, reference = stopped
    victim, absolute = tmp_path / "victim.txt", tmp_path / "elsewhere" / "file.txt"
    absolute.parent.mkdir()
    victim.write_text("precious\n")
    absolute.write_text("also precious\n")
    tamper, words = TAMPERING[kind]
    kept = {name: (folder / name).read_bytes() for name in ("history.csv", "bodies.csv", "checkpoint.npz")}
    if tamper is None:
        craft(folder, crafted_tables(victim, absolute))
    else:
        tamper(folder)
    before = snapshot(tmp_path)
    capfd.readouterr()
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 2
    err = capfd.readouterr().err
    assert err.startswith(f"error: {folder}") and err.count("\n") == 1 and words in err, err
    assert snapshot(tmp_path) == before  # no byte, no time stamp changed, inside or outside the folder
    assert victim.read_text() == "precious\n" and absolute.read_text() == "also precious\n"
    # put right, the folder is still resumable, to the run that was not stopped
    for name, content in kept.items():
        (folder / name).write_bytes(content)
    (folder / ".incomplete.json.partial").unlink(missing_ok=True)
    (tmp_path / "outside.csv").unlink(missing_ok=True)
    if kind == "deleted frame":
        (folder / "vtk" / "frame_00001.vtu").write_bytes((reference / "vtk" / "frame_00001.vtu").read_bytes())
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 0
    assert_same_results(folder, reference)


@pytest.mark.parametrize("meta", [{"bytes": {"history.csv": "12"}}, {"frames": [[0.0, 0, "../../x.vtu"]]},
                                  {"next_step": 2**80}, {"options": {"every": 2**70}}, {"unwraps": {"p": "x"}}])
def test_a_checkpoint_record_of_the_wrong_kind_is_refused_in_one_line(stopped, capfd, meta):
    folder, _ = stopped
    craft(folder, lambda record: record.update(meta))
    before = snapshot(folder)
    capfd.readouterr()
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 2
    err = capfd.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert snapshot(folder) == before


def test_a_checkpoint_of_another_model_is_refused(stopped, capfd):
    """The arrays of the state are checked against the model before the run goes on from them."""
    folder, _ = stopped
    with np.load(folder / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    arrays["q"] = arrays["q"][:-1]
    np.savez(folder / "checkpoint.npz", **arrays)
    capfd.readouterr()
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "checkpoint.npz holds q of shape" in err, err


def test_a_checkpoint_holding_pickled_objects_is_refused_without_numpys_advice(stopped, capfd):
    """An object array in checkpoint.npz would be unpickled -- code run -- if loaded with pickles
    allowed: it is refused in one line that does not pass on NumPy's advice to allow them."""
    folder, _ = stopped
    with np.load(folder / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    arrays["q"] = np.array([{"q": 1.0}, "x"], dtype=object)
    np.savez(folder / "checkpoint.npz", **arrays)
    before = snapshot(folder)
    capfd.readouterr()
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "cannot read the checkpoint" in err and "allow_pickle" not in err, err
    assert snapshot(folder) == before


def test_resume_removes_only_femdyns_own_files(stopped):
    """The user's files in a run's folder stay through a resume; femdyn's plots and summary of the
    interruption are written anew."""
    folder, reference = stopped
    (folder / "notes.txt").write_text("mine\n")
    (folder / "mine").mkdir()
    (folder / "vtk" / "camera.pvsm").write_text("mine\n")
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 0
    assert (folder / "notes.txt").read_text() == "mine\n" and (folder / "mine").is_dir()
    assert (folder / "vtk" / "camera.pvsm").read_text() == "mine\n"
    for name in ("history.csv", "bodies.csv", "reactions.csv", "motion.pvd", *(f"vtk/frame_{k:05d}.vtu" for k in range(8))):
        assert (folder / name).read_bytes() == (reference / name).read_bytes(), name
    assert {"notes.txt", "mine/"} <= set(json.loads((folder / "summary.json").read_text())["files"])


# --- --out replaces only femdyn's folders ----------------------------------------------------------

def users_folder(path):
    """A folder of the user's that happens to hold a summary.json, with their other files."""
    path.mkdir()
    (path / "summary.json").write_text("{}")
    (path / "thesis.tex").write_text("chapter 1\n")
    (path / "data").mkdir()
    (path / "data" / "measured.csv").write_text("1,2\n")
    return path


@pytest.mark.parametrize("through_link", [False, True])
def test_out_refuses_a_folder_femdyn_did_not_make_unless_forced(tmp_path, capfd, through_link):
    folder = users_folder(tmp_path / "work")
    out = folder
    if through_link:
        out = tmp_path / "link"
        out.symlink_to(folder)
    before = snapshot(tmp_path)
    capfd.readouterr()
    assert main(["run", *ARGV, "--out", str(out)]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "was not made by femdyn (no .femdyn)" in err and "--force" in err, err
    assert snapshot(tmp_path) == before
    assert main(["run", *ARGV, "--out", str(out), "--force"]) == 0  # asked for: replaced
    assert (out / ".femdyn").is_file() and not (out / "thesis.tex").exists()
    assert main(["run", *ARGV, "--out", str(out)]) == 0  # femdyn's own folder now: replaced without --force


@pytest.mark.parametrize("command", [["static"], ["modes", "--count", "1"]])
def test_the_other_commands_refuse_a_folder_femdyn_did_not_make(tmp_path, capfd, command):
    folder = users_folder(tmp_path / "work")
    (folder / "modes.json").write_text("{}")
    before = snapshot(tmp_path)
    capfd.readouterr()
    assert main([command[0], ARGV[0], *command[1:], "--out", str(folder)]) == 2
    assert "--force" in capfd.readouterr().err
    assert snapshot(tmp_path) == before


def test_a_sweep_that_cannot_write_its_folder_leaves_none(tmp_path):
    """A full disk (emulated by a file size limit of 0 bytes: every write fails) when a sweep starts
    leaves no folder -- not an empty sweep.json that would block the next run --, and the next run
    makes it whole."""
    plan = sweeps.plan_sweep(CASES / "double_pendulum.toml", [sweeps.parse_parameter("solver.dt=0.005,0.004")])
    out = tmp_path / "sweep"
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, limits[1]))
    try:
        with pytest.raises(sweeps.CaseError, match="cannot write the sweep's files"):
            sweep_files.open_folder(out, plan)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert sweep_files.open_folder(out, plan) == []
    assert json.loads((out / "sweep.json").read_text())["parameters"][0]["name"] == "solver.dt"
    assert (out / ".femdyn").is_file()


# --- a stop signal ends a step that does not end ---------------------------------------------------

ENDLESS = """
import sys
from femdyn.cli import main
from femdyn.integrators import energy_momentum, stepping

step, calls = energy_momentum.EnergyMomentum.step, []
stepping.MidpointSteps.of = classmethod(lambda cls, stepper: None)  # the steps one by one, where one hangs

def endless(self, *args):
    calls.append(1)
    if len(calls) == 5:  # a step that never ends (as a Newton iteration without end)
        print("endless step", flush=True)
        while True:
            pass
    return step(self, *args)

energy_momentum.EnergyMomentum.step = endless
sys.exit(main(["run", *sys.argv[1:]]))
"""


def test_ctrl_c_ends_a_step_that_does_not_end(tmp_path):
    """Ctrl-C in a step that never ends stops it within ``interrupt.GRACE`` (3 s) and leaves a folder that
    --resume completes; synchronised on the line the step prints, not on a time."""
    from femdyn.post.interrupt import GRACE

    folder = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PACKAGE, os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-c", ENDLESS, *ARGV, "--out", str(folder), "--save-every", "1e-9"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in process.stdout:
            if line == "endless step\n":
                break
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=GRACE + 60)
    finally:
        process.kill()
    err = process.stderr.read()
    assert code == 130 and "Traceback" not in err and "interrupted: the steps up to t = " in err, err
    assert main(["run", ARGV[0], "--resume", str(folder), "--quiet", "--no-plots"]) == 0
