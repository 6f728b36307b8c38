"""``femdyn sweep``: designs, case overrides, runs on Dask (a LocalCluster and a separately started
``dask scheduler`` + ``dask worker`` on loopback), faults (a killed worker, failing samples, an
interrupted sweep resumed) and the sensitivity study in parallel.

Most samples are runs of a small cantilever (one FEM beam clamped to the ground, a tip load ramped
up smoothly; a run takes about 0.1 s); the 3-PRR is used where the paper's finding is checked.
The scheduler and workers are processes of the venv's ``dask`` entry point on 127.0.0.1 with ports
chosen by the system, stopped in a ``finally``; a test that hangs is stopped with a traceback.
"""
import csv
import faulthandler
import json
import math
import subprocess
import sys
import threading
import time
from pathlib import Path

import distributed
import numpy as np
import pytest
from shared import CASES

from femdyn.beam.sections import section_forces
from femdyn.cli import main
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import CaseError, load_case, read_case_data
from femdyn.casefile.overrides import override
from femdyn.io.tables import read_csv
from femdyn.studies import sweep as sweeps
from femdyn.studies import sweep_cluster, sweep_files

DASK = Path(sys.executable).with_name("dask")
START_TIMEOUT = 60  # s for a scheduler or worker process to come up
HANG = 150  # s after which a test is taken to hang: traceback and exit

CANTILEVER = """\
title = "cantilever"
dimension = 2
[solver]
dt = 0.01
t_end = 0.3
max_iterations = 20
[flexible]
model = "fem"
elements = 2
geometric_stiffening = false
[[bodies]]
name = "beam"
beam = {length = 1.0, young = 1e10, density = 100.0, b = 0.1, h = 0.1}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
points = [[0.0, 0.0], [0.0, 0.0]]
[[loads]]
type = "point_force"
body = "beam"
point = [1.0, 0.0]
force = [0.0, -100.0]
function = {type = "expression", expr = "1 / (1 + exp(-(t - 0.1) / 0.03))"}
[[probes]]
name = "tip"
body = "beam"
point = [1.0, 0.0]
[initial.bodies.beam]
position = [0.0, 0.0]
angle = 0.0
"""
ROUNDOFF_OUTPUTS = ("energy_error", "constraint_residual")  # values at round-off level themselves


@pytest.fixture(autouse=True)
def no_hang():
    faulthandler.dump_traceback_later(HANG, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def cantilever(tmp_path):
    path = tmp_path / "cantilever.toml"
    path.write_text(CANTILEVER)
    return path


def parameters(*texts):
    return [sweeps.parse_parameter(t) for t in texts]


def read_rows(path):
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    return [{c: int(v) if c == "sample" else v if c == "error" else float(v) if v else math.nan  # empty: undefined
             for c, v in zip(lines[0], line)}
            for line in lines[1:]]


def assert_same_rows(rows, expected):
    """Same samples, parameter values and errors; outputs equal to round-off (not the wall time)."""
    rows, expected = sorted(rows, key=lambda r: r["sample"]), sorted(expected, key=lambda r: r["sample"])
    assert [r["sample"] for r in rows] == [r["sample"] for r in expected]
    for row, want in zip(rows, expected):
        assert set(row) == set(want) and row["error"] == want["error"]
        for column, value in want.items():
            if column in ("sample", "error", "wall_time"):
                continue
            if math.isnan(value):
                assert math.isnan(row[column]), column
            elif column in ROUNDOFF_OUTPUTS:
                assert abs(row[column] - value) < 1e-12, column
            else:
                assert row[column] == pytest.approx(value, rel=1e-9, abs=0.0), column


def test_help(capsys):
    assert main(["sweep", "--help"]) == 0
    assert "femdyn sweep" in capsys.readouterr().out


# --- overrides of case fields --------------------------------------------------------------------

def test_overrides_by_name_and_index():
    path = CASES / "3prr_sine.toml"
    data = read_case_data(path)
    by_name = load_case(path, overrides={"bodies.leg1.beam.h": 0.06, "flexible.elements": 2.0}, data=data)
    by_index = load_case(path, overrides={"bodies.3.beam.h": 0.06, "flexible.elements": 2})
    for case in (by_name, by_index):
        beams = {b.name: b.flexible.beam for b in case.model.bodies if b.flexible is not None}
        assert beams["leg1"].section.fibre == pytest.approx(0.03) and beams["leg2"].section.fibre == pytest.approx(0.025)
        assert case.flexible.elements == 2 and len(beams["leg1"].nodes) == 3
    assert read_case_data(path) == data  # the parsed file is not changed
    changed = override(data, {"gravity.1": -1.62, "loads.0.function.frequency": 3.0, "initial.bodies.platform.position.1": 0.41})
    assert changed["gravity"] == [0.0, -1.62] and changed["loads"][0]["function"]["frequency"] == 3.0
    assert changed["initial"]["bodies"]["platform"]["position"] == [0.3, 0.41]


@pytest.mark.parametrize("path, message", [
    ("bodies.leg9.beam.h", "bodies.leg9: no entry named 'leg9' (names: slider1, slider2, slider3, leg1, leg2, leg3, platform; or an index from 0)"),
    ("bodies.7.beam.h", "bodies.7: index 7 out of range (7 entries)"),
    ("bodies.leg1.beam.hh", "bodies.leg1.beam.hh: no field 'hh' in bodies.leg1.beam (fields: length, young, density, b, h)"),
    ("bodies.leg1.beam", "bodies.leg1.beam: is a table, not a number"),
    ("bodies.leg1.beam.h.x", "bodies.leg1.beam.h.x: bodies.leg1.beam.h is number 0.05, not a table or an array"),
    ("flexible.model", "flexible.model: holds string 'fem', not a number"),
    ("loads.first.function.amplitude", "loads.first: expected an index from 0 to 2, got 'first'"),
    ("solver..dt", "solver..dt: not a dotted path"),
])
def test_override_paths_are_checked(path, message):
    with pytest.raises(CaseError) as error:
        load_case(CASES / "3prr_sine.toml", overrides={path: 1.0})
    assert str(error.value).startswith(f"{CASES / '3prr_sine.toml'}: {message}")


def test_max_stress_is_the_largest_section_stress_of_all_frames(cantilever):
    case = load_case(cantilever, overrides={"solver.t_end": 0.05})
    results = simulate(prepare(case.model, case.q0, case.v0), SolverSettings(case.settings.dt, case.settings.t_end))
    beam = case.model.flexible[0]
    direct = max(section_forces(beam.beam, q).sigma_max.max() for q in beam.elastic_coordinates(results.q))
    assert sweeps.outputs(case, results, "tip")["max_stress"] == pytest.approx(direct, rel=1e-12)


# --- designs -------------------------------------------------------------------------------------

def test_factorial_design_and_ranges():
    ps = parameters("b=0.10:0.20:11", "E=6.5e10,7.0e10,7.5e10")
    assert ps[0].levels == pytest.approx(np.linspace(0.1, 0.2, 11)) and ps[1].levels == (6.5e10, 7.0e10, 7.5e10)
    values = sweeps.factorial(ps)
    assert values.shape == (33, 2) and list(values[:4, 1]) == [6.5e10, 7.0e10, 7.5e10, 6.5e10]
    assert list(values[:3, 0]) == [0.1, 0.1, 0.1]  # the first parameter varies slowest
    assert sweeps.parse_parameter("solver.rho_inf=pi/8,0.5").levels == pytest.approx((math.pi / 8, 0.5))


def test_latin_hypercube_is_stratified_and_seeded():
    ps = parameters("h=0.04:0.06", "E=6e10:8e10", "gravity.1=-10:-9")
    values = sweeps.latin_hypercube(ps, 20, seed=7)
    assert values.shape == (20, 3)
    for j, (low, high) in enumerate(p.bounds for p in ps):
        strata = np.floor((values[:, j] - low) / (high - low) * 20)
        assert sorted(strata) == list(range(20))  # one point in each of the 20 strata
    assert np.array_equal(values, sweeps.latin_hypercube(ps, 20, seed=7))
    assert not np.array_equal(values, sweeps.latin_hypercube(ps, 20, seed=8))


@pytest.mark.parametrize("argv, message", [
    (["--param", "bodies.beam.beam.hh=1,2"], "bodies.beam.beam.hh: no field 'hh' in bodies.beam.beam"),
    (["--param", "bodies.tip.beam.h=1"], "bodies.tip: no entry named 'tip' (names: beam; or an index from 0)"),
    (["--param", "title=1"], "title: holds string 'cantilever', not a number"),
    (["--param", "h=0.1:0.2"], "--param h: a factorial design needs a:b:n"),
    (["--param", "h=0.1:0.2:3", "--design", "lhs", "--samples", "4"], "--param h: a Latin hypercube needs a range a:b"),
    (["--param", "h=0.1:0.2", "--design", "lhs"], "--samples: a Latin hypercube needs the number of samples"),
    (["--param", "h=0.1", "--param", "bodies.beam.beam.h=0.2"], "sets bodies.beam.beam.h, which --param h sets too"),
    (["--param", "h=0.1", "--probe", "elbow"], "--probe: unknown probe 'elbow' (known: tip)"),
    (["--param", "h=0.1", "--step", "0.01"], "--step: sets the step of --sensitivity"),
    (["--sensitivity", "E", "--samples", "3"], "--samples: sets the design of a sweep"),
    (["--param", "h=0.1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "--workers: sets the size of the LocalCluster"),
    (["--param", "h=0.1:0.2:1"], "n in a:b:n must be an integer >= 2"),
    (["--param", "h"], "expected NAME=a:b:n or NAME=v1,v2,.."),
    (["--param", "h=0.1", "--sensitivity", "E"], "not allowed with argument --param"),
])
def test_bad_input_is_one_line(cantilever, tmp_path, capsys, argv, message):
    out = tmp_path / "sweep"
    code = main(["sweep", str(cantilever), "--out", str(out), "--quiet", *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err and not out.exists()


def test_a_different_sweep_in_the_folder_is_refused(cantilever, tmp_path, capsys):
    out = tmp_path / "sweep"
    plan = sweeps.plan_sweep(cantilever, parameters("h=0.1,0.2"))
    assert sweep_files.open_folder(out, plan) == []
    code = main(["sweep", str(cantilever), "--param", "h=0.1,0.3", "--out", str(out), "--quiet"])
    assert code == 2 and "holds a different sweep (other parameters, samples)" in capsys.readouterr().err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    code = main(["sweep", str(cantilever), "--param", "h=0.1", "--out", str(tmp_path / "other"), "--quiet"])
    assert code == 2 and "is not a femdyn sweep folder" in capsys.readouterr().err


# --- Dask: a LocalCluster, and a scheduler and workers started here ------------------------------

def start(args, folder, name):
    with open(folder / f"{name}.log", "w") as log:
        return subprocess.Popen([str(DASK), *args], cwd=folder, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)


def stop(processes):
    for process in processes:
        if process.poll() is None:
            process.kill()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass


def start_worker(address, folder, name):
    return start(["worker", address, "--name", name, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
                  "--no-dashboard", "--death-timeout", "60"], folder, name)


def wait_for_workers(address, names):
    with distributed.Client(address, timeout="20s") as client:
        deadline = time.monotonic() + START_TIMEOUT
        while {w["name"] for w in client.scheduler_info()["workers"].values()} < set(names):
            assert time.monotonic() < deadline, f"workers {names} did not come up"
            time.sleep(0.1)


def _address(file):
    """The address in the scheduler file, once it is there whole; else None."""
    try:
        return json.loads(file.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return None


class Scheduler:
    def __init__(self, address, folder, processes):
        self.address, self.folder, self.processes = address, folder, processes


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """``dask scheduler`` on 127.0.0.1 (a port the system chooses, read from its scheduler file) with
    two ``dask worker`` processes of one thread each."""
    folder = tmp_path_factory.mktemp("dask")
    file = folder / "scheduler.json"
    processes = []
    try:
        processes.append(start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                "--scheduler-file", str(file)], folder, "scheduler"))
        deadline = time.monotonic() + START_TIMEOUT
        while not _address(file):  # the file written whole (it is written in one go, but may be seen half-way)
            assert processes[0].poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not come up"
            time.sleep(0.1)
        address = _address(file)
        assert address.startswith("tcp://127.0.0.1:")
        processes += [start_worker(address, folder, f"steady{k}") for k in range(2)]
        wait_for_workers(address, ["steady0", "steady1"])
        yield Scheduler(address, folder, processes)
    finally:
        stop(processes)


def test_local_cluster_equals_in_process_runs(cantilever, tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = ["sweep", str(cantilever), "--param", "h=0.05:0.1:3", "--param", "E=1e10,2e10", "--workers", "2",
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "dask: LocalCluster, 2 workers; dashboard: http://127.0.0.1:" in printed
    assert "6 samples run in" in printed and "failed" not in printed
    rows = read_rows(out / "samples.csv")
    plan = sweeps.plan_sweep(cantilever, parameters("h=0.05:0.1:3", "E=1e10,2e10"))
    assert_same_rows(rows, sweeps.run_local(plan))
    assert [r["sample"] for r in rows] == list(range(6)) and all(r["elastic_max"] > 0 for r in rows)
    # a stiffer section deflects less: elastic displacement ~ 1 / (E h^3)
    assert rows[0]["elastic_max"] / rows[1]["elastic_max"] == pytest.approx(2.0, rel=5e-3)
    assert rows[0]["elastic_max"] / rows[4]["elastic_max"] == pytest.approx(8.0, rel=2e-2)
    import pyarrow.parquet as pq

    assert_same_rows(pq.read_table(out / "samples.parquet").to_pylist(), rows)
    for name in ("response.png", "scatter_matrix.png"):
        assert (out / name).read_bytes().startswith(b"\x89PNG") and (out / name).stat().st_size > 20_000
    plan_file = json.loads((out / "sweep.json").read_text())
    assert plan_file["samples"] == plan.values.tolist() and plan_file["parameters"][0]["fields"] == ["bodies.beam.beam.h"]


def test_external_scheduler_gives_the_same_rows(cantilever, scheduler, tmp_path, capsys):
    out = tmp_path / "sweep"
    cantilever.write_text("gravity = [0.0, -9.81]\n" + CANTILEVER)
    assert main(["sweep", str(cantilever), "--param", "bodies.beam.beam.h=0.05:0.1:3", "--param", "gravity.1=0,-9.81",
                 "--scheduler", scheduler.address, "--out", str(out), "--quiet", "--no-plots"]) == 0
    printed = capsys.readouterr().out
    assert f"dask: {scheduler.address}, 2 workers; dashboard: none (http://" in printed
    plan = sweeps.plan_sweep(cantilever, parameters("bodies.beam.beam.h=0.05:0.1:3", "gravity.1=0,-9.81"))
    rows = read_rows(out / "samples.csv")
    assert_same_rows(rows, sweeps.run_local(plan))
    assert rows[0]["elastic_max"] < rows[1]["elastic_max"]  # gravity adds to the tip load


def test_killing_a_worker_loses_no_sample(cantilever, scheduler, tmp_path):
    """A third worker is killed (SIGKILL) while it runs samples; the scheduler runs them again on the
    others and every sample has its row, equal to the in-process run."""
    plan = sweeps.plan_sweep(cantilever, parameters("h=0.05:0.1:6"), t_end=1.5)  # about 0.4 s a sample
    victim = start_worker(scheduler.address, scheduler.folder, "victim")
    killed = []
    try:
        wait_for_workers(scheduler.address, ["steady0", "steady1", "victim"])
        with distributed.Client(scheduler.address, timeout="20s") as client:
            address = next(a for a, w in client.scheduler_info()["workers"].items() if w["name"] == "victim")

            def kill_when_busy():
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and not killed:
                    running = client.processing(workers=[address]).get(address, ())
                    if running:  # the event: it runs samples (killed at once: a sample lasts 0.4 s)
                        victim.kill()
                        killed.extend(running)
                    time.sleep(0.01)

            rows = []
            watcher = threading.Thread(target=kill_when_busy, daemon=True)
            watcher.start()
            sweep_cluster.run_on_cluster(client, [plan.task(i) for i in range(len(plan.values))], rows.append)
            watcher.join(timeout=30)
            assert killed and victim.wait(timeout=20) is not None
            deadline = time.monotonic() + 20
            while address in client.scheduler_info()["workers"]:  # the scheduler has let it go
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        stop([victim])
    assert not any(r["error"] for r in rows)
    assert {int(key.split("-")[2]) for key in killed} <= {r["sample"] for r in rows}
    assert_same_rows(rows, sweeps.run_local(plan))


def test_failing_samples_are_error_rows(cantilever, scheduler, tmp_path, capsys):
    """The sweep runs to its end and exits with code 3, its failed samples in a table on stderr."""
    out = tmp_path / "sweep"
    argv = ["sweep", str(cantilever), "--param", "h=0.1,-0.1", "--param", "solver.max_iterations=20,1",
            "--scheduler", scheduler.address, "--out", str(out), "--quiet", "--no-plots"]
    assert main(argv) == 3
    printed = capsys.readouterr()
    assert "3 of 4 failed (see the error column)" in printed.out
    table = printed.err.splitlines()
    assert table[:2] == ["failed samples (3 of 4):", "  sample  h     solver.max_iterations  error"]
    assert table[2].startswith("  1       0.1   1                      RuntimeError: the run stopped early: ")
    assert table[3] == "  2       -0.1  20                     bodies[0].beam.h: must be > 0, got -0.1"
    assert len(table) == 5 and "Traceback" not in printed.err
    rows = read_rows(out / "samples.csv")
    assert [r["error"] for r in rows[:1]] == [""] and rows[0]["elastic_max"] > 0
    assert rows[1]["error"].startswith("RuntimeError: the run stopped early: ")  # Newton in 1 iteration
    for row in rows[2:]:  # h < 0: the case refuses it
        assert row["error"] == "bodies[0].beam.h: must be > 0, got -0.1"
    for row in rows[1:]:
        assert all(math.isnan(row[o]) for o in sweeps.OUTPUTS if o != "wall_time") and row["wall_time"] > 0


def test_an_interrupted_sweep_resumes_with_the_missing_samples(cantilever, scheduler, tmp_path, capsys,
                                                               monkeypatch):
    out = tmp_path / "sweep"
    argv = ["sweep", str(cantilever), "--param", "h=0.05:0.1:6", "--scheduler", scheduler.address,
            "--out", str(out), "--quiet", "--no-plots"]
    append = sweep_files.Table.append

    def interrupt_after_two(table, row):  # Ctrl-C once two rows are written
        append(table, row)
        if len(table.read()) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(sweep_files.Table, "append", interrupt_after_two)
    assert main(argv) == 130
    assert "interrupted: 2 of 6 samples are in" in capsys.readouterr().err
    monkeypatch.undo()
    before = (out / "samples.csv").read_text().splitlines()
    assert len(before) == 3
    with open(out / "samples.csv", "a") as f:
        f.write(before[1][:20])  # a line cut off by a hard stop
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "resuming: 2 done, 4 to run" in printed and "4 samples run in" in printed
    after = (out / "samples.csv").read_text().splitlines()
    assert len(after) == 7 and set(before[1:]) <= set(after)  # the rows done before, wall times and all
    plan = sweeps.plan_sweep(cantilever, parameters("h=0.05:0.1:6"))
    assert_same_rows(read_rows(out / "samples.csv"), sweeps.run_local(plan))
    assert main(argv) == 0  # complete: nothing runs, no cluster is contacted
    assert "resuming: 6 done, 0 to run" in capsys.readouterr().out


def test_resume_runs_failed_samples_again_on_request(cantilever, scheduler, tmp_path, capsys):
    out = tmp_path / "sweep"
    argv = ["sweep", str(cantilever), "--param", "h=0.1,-0.1", "--scheduler", scheduler.address,
            "--out", str(out), "--quiet", "--no-plots"]
    assert main(argv) == 3 and main(argv) == 3
    assert "resuming: 2 done, 0 to run" in capsys.readouterr().out
    assert main([*argv, "--retry-errors"]) == 3
    assert "resuming: 1 done, 1 to run" in capsys.readouterr().out
    assert len(read_rows(out / "samples.csv")) == 2


@pytest.mark.parametrize("deaths, code", [(1, 0), (2, 3)])
def test_a_sample_whose_workers_die_is_retried_once_at_the_end(cantilever, tmp_path, capfd, monkeypatch, deaths,
                                                                code):
    """Sample 1 kills every LocalCluster worker that runs it, ``deaths`` times (a worker preload,
    dying_worker.py); the scheduler gives up after the first death (allowed-failures 0). Run once more
    when the others are done, it succeeds after one death; after two it is an error row, the sweep's
    exit code is 3 and its table names it. Dask's log of the deaths reaches no one."""
    import dask

    monkeypatch.setenv("FEMDYN_TEST_DEATHS", str(tmp_path / "deaths.txt"))
    monkeypatch.setenv("FEMDYN_TEST_DEATH_COUNT", str(deaths))
    monkeypatch.setattr(sweep_cluster, "ALLOWED_FAILURES", 0)
    out = tmp_path / "sweep"
    with dask.config.set({"distributed.worker.preload": [str(Path(__file__).with_name("dying_worker.py"))]}):
        assert main(["sweep", str(cantilever), "--param", "h=0.1,0.2,0.3", "--workers", "2", "--out", str(out),
                     "--quiet", "--no-plots"]) == code
    assert len((tmp_path / "deaths.txt").read_text().splitlines()) == deaths
    rows = read_rows(out / "samples.csv")
    assert [r["sample"] for r in rows] == [0, 1, 2] and not rows[0]["error"] and not rows[2]["error"]
    err = capfd.readouterr().err
    assert "Traceback" not in err and "distributed" not in err and "ERROR" not in err, err
    if code:
        assert rows[1]["error"].startswith("KilledWorker: every worker that ran this sample died")
        assert err.splitlines()[:3] == ["failed samples (1 of 3):", "  sample  h    error",
                                        f"  1       0.2  {rows[1]['error']}"]
    else:
        assert not rows[1]["error"] and rows[1]["elastic_max"] > 0 and not err


# --- sensitivities -------------------------------------------------------------------------------

def test_sensitivity_sweep_gives_the_numbers_of_femdyn_sensitivity(cantilever, scheduler, tmp_path, capsys):
    sequential, parallel = tmp_path / "sequential", tmp_path / "parallel"
    assert main(["sensitivity", str(cantilever), "--out", str(sequential), "--quiet"]) == 0
    assert main(["sweep", str(cantilever), "--sensitivity", "E,rho,b,h", "--scheduler", scheduler.address,
                 "--out", str(parallel), "--quiet"]) == 0
    assert "E     y" in capsys.readouterr().out
    assert sorted(p.name for p in parallel.iterdir()) == [".femdyn", "sensitivity.csv", "sensitivity.json", "sensitivity.png"]
    a, b = read_csv(sequential / "sensitivity.csv"), read_csv(parallel / "sensitivity.csv")
    assert list(a) == list(b)
    for column in a:
        assert np.allclose(b[column], a[column], rtol=1e-9, atol=1e-12 * np.abs(a[column]).max()), column
    assert json.loads((parallel / "sensitivity.json").read_text())["runs"] == 17


def test_3prr_sensitivities_agree_with_the_paper(scheduler, tmp_path, capsys):
    """003 section 8.4: the end effector's x, y, theta are more sensitive to the cross section (b, h)
    than to E and rho, and more to h than to b (gradients per SI unit, as 003 takes them). Over a short
    run the sensitivities are those of the links' masses (rho, b, h scale them alike) and stiffness."""
    out = tmp_path / "sens"
    assert main(["sweep", str(CASES / "3prr_sine.toml"), "--sensitivity", "E,rho,b,h", "--t-end", "0.02",
                 "--scheduler", scheduler.address, "--out", str(out), "--quiet"]) == 0
    assert "warning" not in capsys.readouterr().err
    study = json.loads((out / "sensitivity.json").read_text())
    lightest = min(np.min(f.beam.rho) for f in load_case(CASES / "3prr_sine.toml").model.flexible)
    for output in ("x", "y", "theta"):
        f = {p: study["parameters"][p]["outputs"][output] for p in ("E", "rho", "b", "h")}
        assert f["b"]["resolved"] and f["h"]["resolved"]
        # h dominates b: about 3x here, as b = 3 h
        assert abs(f["h"]["max_abs_gradient"]) > 2 * abs(f["b"]["max_abs_gradient"])
        # the cross section dominates E and rho (rho differs between the links: its gradient is at
        # most max |rho drho/dY| / min rho)
        assert f["b"]["max_abs_gradient"] > 1e6 * f["E"]["max_abs_gradient"]
        assert f["b"]["max_abs_gradient"] > 100 * f["rho"]["max_abs_scaled"] / lightest
        # normalised (p dY/dp): a deeper section still outweighs a stiffer material
        assert f["h"]["max_abs_scaled"] > 10 * f["E"]["max_abs_scaled"]
        # thicker or deeper links: heavier and stiffer alike, the same sign
        assert np.sign(f["b"]["scaled_at_end"]) == np.sign(f["h"]["scaled_at_end"]) != 0
