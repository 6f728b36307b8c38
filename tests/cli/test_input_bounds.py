"""Bounds on every input that costs time or memory (issue 33), each refused in one line with exit 2 and
nothing left behind: a Newton tolerance below the round-off of q and more than ``MAX_ITERATIONS``
iterations (so that a step ends), more elements than femdyn builds, mesh files over their size limit,
integers beyond their range (``--every``, ``output.every`` >= 2^63), arrays nested deeper than the parser
can follow, and a ``--scheduler`` that answers nothing or something else than dask. Names, keys and values
with control characters are shown escaped, on the one line."""
import io
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from shared import CASES
from test_resume import PACKAGE

from femdyn.cli import main
from femdyn.integrators.settings import MAX_ITERATIONS
from femdyn.casefile import case as case_module
from femdyn.io.meshes import MAX_MESH_BYTES
from femdyn.casefile.notice import Notice
from femdyn.model.builder import ModelBuilder

PENDULUM = (CASES / "double_pendulum.toml").read_text()


def refused(capfd, code, *words):
    err = capfd.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and all(w in err for w in words), err
    return err


def femdyn(*argv, timeout):
    """``python -m femdyn ARGV`` in a process of its own, which must end within ``timeout`` seconds (else
    the test fails): (exit code, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PACKAGE, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "femdyn", *argv], env=env, capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stderr


def test_an_unreachable_newton_tolerance_with_a_billion_iterations_ends_at_once(tmp_path):
    """The issue's case: [solver] tolerance = 1e-300, max_iterations = 1000000000 never finished its first
    step; it is refused, in a few seconds at most (the process is given 30)."""
    case = tmp_path / "case.toml"
    case.write_text(PENDULUM.replace("[solver]", "[solver]\ntolerance = 1e-300\nmax_iterations = 1000000000"))
    code, err = femdyn("run", str(case), "--out", str(tmp_path / "out"), "--quiet", timeout=30)
    assert code == 2 and err.count("\n") == 1 and "solver.tolerance: 1e-300 is below the round-off of q" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.toml"]


@pytest.mark.parametrize("line, words", [("tolerance = 1e-17", "solver.tolerance: 1e-17 is below the round-off"),
                                         ("max_iterations = 1000000000", f"from 1 to {MAX_ITERATIONS}, got 1000000000")])
def test_newton_settings_out_of_bounds_are_refused(tmp_path, capfd, line, words):
    case = tmp_path / "case.toml"
    case.write_text(PENDULUM.replace("[solver]", f"[solver]\n{line}"))
    refused(capfd, main(["check", str(case)]), words)


def test_a_tolerance_at_the_round_off_still_runs(tmp_path):
    """2.3e-16, just above the spacing of floats, is accepted: the double pendulum's increments reach it."""
    case = tmp_path / "case.toml"
    case.write_text(PENDULUM.replace("[solver]", "[solver]\ntolerance = 2.3e-16\nmax_iterations = 50"))
    assert main(["run", str(case), "--t-end", "0.02", "--out", str(tmp_path / "out"), "--quiet", "--no-plots"]) in (0, 1)


@pytest.mark.parametrize("where", ["--every", "output.every"])
def test_integers_beyond_their_range_are_refused_before_use(tmp_path, capfd, where):
    """2^63 does not fit NumPy's integers (an OverflowError that left a folder marked running)."""
    case = tmp_path / "case.toml"
    big = str(2**63)
    case.write_text(PENDULUM + (f"\n[output]\nevery = {big}\n" if where == "output.every" else ""))
    argv = ["run", str(case), "--out", str(tmp_path / "out"), "--quiet", "--no-plots"]
    code = main([*argv, "--every", big] if where == "--every" else argv)
    refused(capfd, code, where, big)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.toml"]  # no .lock, no incomplete.json


def test_arrays_nested_too_deep_are_one_line(tmp_path, capfd):
    case = tmp_path / "case.toml"
    case.write_text(PENDULUM.replace("gravity = [0.0, -9.81]", "gravity = " + "[" * 3000 + "]" * 3000))
    refused(capfd, main(["check", str(case)]), "syntax: arrays or inline tables nested too deep")


def test_too_many_elements_are_refused_at_once(tmp_path, capfd):
    """A million elements per beam kept ``check`` busy for minutes; the limit is 100 000."""
    case = tmp_path / "case.toml"
    case.write_text((CASES / "flexible_link.toml").read_text().replace("elements = 4", "elements = 1000000"))
    start = time.monotonic()
    refused(capfd, main(["check", str(case)]), "flexible.elements: must be <= 100000, got 1000000")
    assert time.monotonic() - start < 30


def test_a_mesh_file_over_the_limit_is_refused_before_it_is_read(tmp_path, capfd):
    """A sparse file of 65 MiB: refused by its size, not read."""
    mesh = tmp_path / "huge.vtu"
    with open(mesh, "wb") as f:
        f.truncate(MAX_MESH_BYTES + 2**20)
    case = tmp_path / "case.toml"
    case.write_text((CASES / "flexible_link.toml").read_text().replace("length = 1.0,", 'mesh = "huge.vtu",'))
    refused(capfd, main(["check", str(case)]), "huge.vtu", "larger than 64 MiB, the limit of a mesh file")


@pytest.mark.parametrize("elements, says", [(40, True), (4, False)])
def test_a_long_build_of_a_large_model_says_so_on_stderr_while_it_runs(monkeypatch, capsys, elements, says):
    """A build past ``BUILD_NOTICE_S`` (here 0 s) of a model of ``BUILD_NOTICE_COORDINATES`` coordinates or
    more (here 100: the link of 40 elements, not that of 4) prints one line on stderr while it runs, then
    ``check`` reports as usual. The build waits for the line (an event, not a time)."""
    notices = []

    class Recorded(Notice):
        def __enter__(self):
            notices.append(self)
            return super().__enter__()

    def held(self, build=ModelBuilder.build):  # the large model's build (check builds its rigid limit too)
        assert notices[-1].after is None or notices[-1].said.wait(timeout=60), "no line while the build ran"
        return build(self)

    monkeypatch.setattr(case_module, "Notice", Recorded)
    monkeypatch.setattr(case_module, "BUILD_NOTICE_S", 0.0)
    monkeypatch.setattr(case_module, "BUILD_NOTICE_COORDINATES", 100)
    if says:
        monkeypatch.setattr(ModelBuilder, "build", held)
    case = CASES / "flexible_link.toml"
    assert main(["check", str(case), "--elements", str(elements)]) == 0
    captured = capsys.readouterr()
    size = 4 * elements + 13  # coordinates: the hub's frame and angle, 4 per node of the beam
    assert f"coordinates n = {size}," in captured.out
    line = f"{case}: building a model of {size} coordinates (more than 0 s so far) ..."
    timed = [n for n in notices if n.after is not None]
    assert captured.err.splitlines() == [line] * len(timed) and len(timed) == says


def test_a_quick_block_says_nothing():
    """A block that ends before the notice's time: no line, and its timer thread is gone."""
    with Notice("never", 3600.0) as notice:
        notice.stream = stream = io.StringIO()
    assert stream.getvalue() == "" and not notice.said.is_set() and not notice._timer.is_alive()


@pytest.mark.parametrize("text, words", [
    ('title = "x"\n"bad\\nkey" = 1\n', r"unknown key 'bad\nkey'"),
    (PENDULUM.replace('name = "rod2"', 'name = "rod\\n2"'), r"'rod\n2' is not a valid name"),
    (PENDULUM.replace('name = "hinge2"\ntype = "revolute"', 'name = "hinge2"\ntype = "revo\\rlute"'),
     r"unknown value 'revo\rlute'"),
])
def test_control_characters_in_a_refusal_stay_on_one_line(tmp_path, capfd, text, words):
    case = tmp_path / "case.toml"
    case.write_text(text)
    refused(capfd, main(["check", str(case)]), words)


# --- a --scheduler that is no dask scheduler ------------------------------------------------------

@pytest.fixture(params=["silent", "banner"])
def impostor(request):
    """A TCP server on 127.0.0.1 that accepts connections and says nothing (``silent``: the kernel accepts
    them; nobody reads or writes) or greets them with a text banner: its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def greet():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                connection.sendall(b"SSH-2.0-OpenSSH_9.6 hello, this is not dask\r\n")
                stop.wait()

    thread = threading.Thread(target=greet, daemon=True) if request.param == "banner" else None
    if thread:
        thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}", request.param
    stop.set()
    if thread:
        thread.join()
    server.close()


def test_a_scheduler_that_is_no_dask_scheduler_is_refused_in_bounded_time(tmp_path, capfd, monkeypatch, impostor):
    """``femdyn sweep --scheduler`` to a server that says nothing hung, and one that sends a banner made
    distributed allocate exabytes; each is one line, exit 2, within ``CONNECT_SECONDS`` (10 s; 1 s here)."""
    from femdyn.studies import sweep_cluster

    monkeypatch.setattr(sweep_cluster, "CONNECT_SECONDS", 1.0)
    address, kind = impostor
    start = time.monotonic()
    code = main(["sweep", str(CASES / "double_pendulum.toml"), "--param", "solver.dt=0.005,0.004", "--t-end", "0.02",
                 "--scheduler", address, "--out", str(tmp_path / "out"), "--quiet"])
    refused(capfd, code, "--scheduler", "did not answer within 1 s" if kind == "silent" else "is not a dask scheduler")
    assert time.monotonic() - start < 30 and not (tmp_path / "out").exists()


def test_a_load_that_is_not_finite_is_named_with_its_time(tmp_path, capfd):
    """A joint torque log(0.0125 - t) is -inf at the middle of the third step (energy-momentum takes
    the loads there) and NaN after: the run stops (exit 1) naming the load and the time, not a Newton
    failure to be cured by a smaller dt."""
    case = tmp_path / "case.toml"
    case.write_text(PENDULUM + '\n[[loads]]\ntype = "joint"\ncoordinate = "theta1"\n'
                    'function = {type = "expression", expr = "log(0.0125 - t)"}\n')
    capfd.readouterr()
    assert main(["run", str(case), "--t-end", "0.05", "--out", str(tmp_path / "out"), "--quiet", "--no-plots"]) == 1
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "smaller dt" not in err, err
    assert f"the function of time of the load loads[0].function of {case} is -inf at t = 0.0125" in err, err
