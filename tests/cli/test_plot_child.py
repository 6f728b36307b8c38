"""The plots of ``femdyn run`` drawn by a forked child and helpers forked from it (``post.plot_child``): the
same images as the run's own process draws, an error in a child or a helper raised in the parent, no child
left behind by a parent that dies, helpers that do not prepare again, and children that keep drawing
through the Ctrl-C the parent answers by writing its results."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.post import plot_child
from femdyn.post.plot_child import PROCESSES


@pytest.mark.parametrize("name, t_end", [("rpr_figure8.toml", "0.1"), ("3prr_sine.toml", "0.03")])
def test_children_draw_the_images_the_run_process_draws(name, t_end, tmp_path, monkeypatch, capsys):
    """Two processes share the figures (servo inputs, reactions, probes and paths among them); each PNG
    file is byte for byte the one drawn without children."""
    images = {}
    for processes in ("0", "2"):
        monkeypatch.setenv(PROCESSES, processes)
        out = tmp_path / processes
        assert main(["run", str(CASES / name), "--t-end", t_end, "--out", str(out), "--quiet", "--no-vtk",
                     "--compare-dt", "0.005"]) == 0
        images[processes] = {p.name: p.read_bytes() for p in out.glob("*.png")}
    capsys.readouterr()
    assert len(images["0"]) >= 6 and images["2"] == images["0"]


def _fail(*job):
    raise ValueError(f"no plot of {job}")


def _touch(path, part, parts):
    with open(f"{path}.{part}", "w") as f:
        f.write(f"{parts} {os.getpid()}")


def _fail_in_helper(path, part, parts):
    _touch(path, part, parts)
    if part == parts - 1:
        raise ValueError(f"no plot {part} of {path}")


def test_an_error_in_a_child_is_raised_in_the_parent():
    child = plot_child.start(lambda: None, _fail, 2)
    child.submit("history.csv")
    with pytest.raises(ValueError, match="no plot of"):
        child.wait()


def test_an_error_in_a_helper_is_raised_in_the_parent_after_every_part(tmp_path):
    """Part 2 of 3, drawn by the second helper, fails: the parent raises its exception, and the other parts
    are drawn."""
    child = plot_child.start(lambda: None, _fail_in_helper, 3)
    child.submit(str(tmp_path / "drawn"))
    with pytest.raises(ValueError, match="no plot 2 of"):
        child.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["drawn.0", "drawn.1", "drawn.2"]


def test_helpers_are_forked_from_the_prepared_child(tmp_path):
    """Three parts: the child prepares once (matplotlib's import, not repeated by the helpers, which are forked
    from it after it), and each part is drawn by a process of its own."""
    ready = tmp_path / "ready"
    ready.mkdir()
    child = plot_child.start(lambda: (ready / str(os.getpid())).touch(), _touch, 3)
    child.submit(str(tmp_path / "drawn"))
    pid = child.pid
    child.wait()
    drawers = {part: (tmp_path / f"drawn.{part}").read_text().split() for part in range(3)}
    assert [p.name for p in ready.iterdir()] == [str(pid)]
    assert drawers[0] == ["3", str(pid)] and {parts for parts, _ in drawers.values()} == {"3"}
    assert len({drawer for _, drawer in drawers.values()}) == 3


def test_children_ignore_the_ctrl_c_of_the_parent(tmp_path):
    """SIGINT reaches the whole process group; the parent stops its run and writes what it has, plots
    included, so the children draw on."""
    ready = tmp_path / "ready"
    ready.mkdir()
    child = plot_child.start(lambda: (ready / str(os.getpid())).touch(), _touch, 2)
    deadline = time.monotonic() + 20
    while not list(ready.iterdir()) and time.monotonic() < deadline:  # prepared: signals ignored
        time.sleep(0.01)
    ignored = int(next(line for line in Path(f"/proc/{child.pid}/status").read_text().splitlines()
                       if line.startswith("SigIgn:")).split()[1], 16)  # (SIG_IGN: the kernel discards them as sent)
    assert all(ignored >> (getattr(signal, name) - 1) & 1 for name in ("SIGINT", "SIGTERM", "SIGHUP"))
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        os.kill(child.pid, getattr(signal, name))
    child.submit(str(tmp_path / "drawn"))
    child.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["drawn.0", "drawn.1", "ready"]


PARENT = """
import sys, time
from femdyn.post import plot_child

def touch(path, part, parts):
    open(path + str(part), "w").close()

child = plot_child.start(lambda: None, touch, 2)
print(child.pid, flush=True)
time.sleep(60)
child.submit(sys.argv[1])
"""


def _ended(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in "ZX"  # a zombie has ended
    except FileNotFoundError:
        return True


def test_children_end_with_a_killed_parent_and_draw_nothing(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(tmp_path / "drawn")], stdout=subprocess.PIPE,
                              text=True)
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 1 and not any(_ended(pid) for pid in pids)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 20
    while not all(_ended(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_ended(pid) for pid in pids)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("load, cores, count", [(0.0, 2, 2), (1.4, 2, 2), (1.6, 2, 1), (3.0, 16, 2), (0.0, 1, 1)])
def test_a_second_drawer_only_where_a_core_is_idle(load, cores, count, monkeypatch):
    """Without FEMDYN_PLOT_PROCESSES two processes draw where the load average leaves a core idle at least
    half of the time, else one."""
    monkeypatch.delenv(PROCESSES, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert plot_child.drawers() == count


def test_a_bad_number_of_plot_processes_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PROCESSES, "two")
    out = tmp_path / "out"
    assert main(["run", str(CASES / "nm_logo.toml"), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: environment: {PROCESSES}: must be a whole number from 0 to 8, got 'two'"]
    assert not out.exists()


def test_children_without_a_job_end_when_closed():
    """``close`` before any job (a run that fails or draws nothing) ends the child, which has forked no
    helper."""
    child = plot_child.start(lambda: None, _touch, 3)
    pid = child.pid
    child.close()
    assert _ended(pid)


PREPARED = """
import sys
import numpy as np
from femdyn.commands.run import prepare_plots
from femdyn.post import plots
from femdyn.post.run_plots import PlotSpec, figures

prepare_plots()
t = np.linspace(0.0, 1.0, 11)
history = {"t": t, "kinetic": t, "potential": -t, "total": 0 * t, "angular_momentum_z": t, "momentum_x": t,
           "momentum_y": t, "theta": t}
spec = PlotSpec("prepared", 2, {"theta": plots.label("joint angle", "rad")}, {}, (), 0.1, ())
for _, function, arguments in figures(__import__("pathlib").Path(sys.argv[1]), spec, history, {}, None, None):
    function(*arguments)
print(*(type(sys.modules[name]).__name__ for name in plots.CONVERTERS), "dateutil.parser" in sys.modules)
"""


def test_the_plot_child_draws_without_the_unit_converters_of_strings_and_dates(tmp_path):
    """``prepare`` (the plot child's import) leaves matplotlib's converters of strings and dates, and dateutil's
    parser, unrun, and the figures of float data are drawn without them."""
    out = subprocess.run([sys.executable, "-c", PREPARED, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Deferred", "Deferred", "False"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["energy.png", "joint_coordinates.png"]
