"""Bad output folders and other bad input found by the audit: every command that writes a folder
checks it before any run, a sweep checks its design size, its earlier files and its scheduler before
it writes, ``view`` reports missing or unreadable frame files, and ``--elements`` is checked against
the history budget before the model is built. Each error is one line on stderr with exit code 2, and
nothing is left behind."""
import gc
from pathlib import Path

import pytest
from test_cli_flexible import RIGID
from test_sweep import CANTILEVER

from femdyn.cli import main
from femdyn.studies import sweep as sweeps
from femdyn.studies import sweep_cluster
from femdyn.studies import sweep_files

# the commands that write a folder, each on the case it needs (--out is added)
WRITERS = {
    "run": ["run", "{rigid}", "--quiet", "--no-plots", "--no-vtk"],
    "sensitivity": ["sensitivity", "{beam}", "--params", "E", "--quiet"],
    "sweep": ["sweep", "{beam}", "--param", "h=0.1,0.2", "--workers", "1", "--quiet", "--no-plots"],
    "sweep --sensitivity": ["sweep", "{beam}", "--sensitivity", "E", "--workers", "1", "--quiet"],
    "bench convergence": ["bench", "convergence", "{rigid}", "--levels", "2"],
}


@pytest.fixture
def cases(tmp_path):
    """The case files, in a folder of their own (tmp_path holds only what a command leaves)."""
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "logo.toml").write_text(RIGID)
    (folder / "cantilever.toml").write_text(CANTILEVER)
    return {"rigid": str(folder / "logo.toml"), "beam": str(folder / "cantilever.toml")}


def command(cases, name, *more):
    return [arg.format(**cases) for arg in WRITERS[name]] + list(more)


def one_line_error(capfd, code, *names):
    """The one stderr line of a refused command (exit code 2, no traceback, no VTK log), which names
    all of ``names``."""
    err = capfd.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for name in names:
        assert name in err, err
    return err


def files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("name", WRITERS)
def test_an_out_under_a_regular_file_is_refused_before_any_run(cases, tmp_path, capfd, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    before = files(tmp_path)
    ran = []
    monkeypatch.setattr("femdyn.integrators.time_loop.EnergyMomentum", lambda *a, **k: ran.append(1))  # no run
    code = main(command(cases, name, "--out", "afile/sub"))
    one_line_error(capfd, code, "afile/sub: --out: ", "afile is not a folder")
    assert not ran and files(tmp_path) == before


@pytest.mark.parametrize("name", ["run", "sweep", "bench convergence"])
def test_an_out_name_too_long_is_refused_and_leaves_no_folder(cases, tmp_path, capfd, name):
    out = tmp_path / "new" / "deeper" / ("x" * 300)
    code = main(command(cases, name, "--out", str(out)))
    one_line_error(capfd, code, "--out: cannot be created (File name too long)")
    assert not (tmp_path / "new").exists()


def test_an_out_name_too_long_for_the_partial_folder_is_refused(cases, tmp_path, capfd):
    """A name that fits but whose temporary sibling (``.NAME.XXXXXXXX.partial``) does not."""
    out = tmp_path / "new" / ("x" * 250)
    code = main(command(cases, "run", "--out", str(out)))
    one_line_error(capfd, code, f"{out}: --out: cannot be created")
    assert not (tmp_path / "new").exists()


def test_an_out_that_cannot_be_created_is_refused(cases, capfd):
    one_line_error(capfd, main(command(cases, "run", "--out", "/proc/femdyn-test")), "/proc/femdyn-test: --out: ")


def test_bench_convergence_refuses_a_foreign_folder_and_replaces_its_own(cases, tmp_path, capfd):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    code = main(command(cases, "bench convergence", "--out", str(out)))
    one_line_error(capfd, code, f"{out}: --out: exists and is not an earlier convergence study")
    assert files(out) == ["notes.txt"]
    (out / "notes.txt").unlink()
    # the study's exit code: 1, no order (theta of the torque-free logo stays at round-off)
    assert main(command(cases, "bench convergence", "--out", str(out))) == 1  # an empty folder is used
    assert (out / "convergence.json").is_file()
    assert main(command(cases, "bench convergence", "--out", str(out))) == 1  # so is an earlier study
    assert "convergence.json" in files(out)


def test_sweep_refuses_too_many_values_before_building_them(cases, tmp_path, capfd):
    out = tmp_path / "sweep"
    code = main(["sweep", cases["beam"], "--param", "E=1:2:100000000000", "--out", str(out), "--quiet"])
    one_line_error(capfd, code, "--param: E: n in a:b:n is 100000000000; at most 1000000 samples")
    assert not out.exists()


@pytest.mark.parametrize("damage", ["garbage", "folder"])
def test_resuming_a_sweep_with_a_damaged_table_is_refused(cases, tmp_path, capfd, damage):
    out = tmp_path / "sweep"
    argv = command(cases, "sweep", "--out", str(out))
    plan = sweeps.plan_sweep(cases["beam"], [sweeps.parse_parameter("h=0.1,0.2")])
    sweep_files.open_folder(out, plan)
    table = out / sweep_files.TABLE
    table.unlink()
    if damage == "garbage":
        table.write_bytes(bytes(range(128, 256)) * 8)
    else:
        table.mkdir()
    before = files(out)
    one_line_error(capfd, main(argv), f"{table}: file: cannot read the earlier sweep's samples", "--restart")
    assert files(out) == before


@pytest.mark.parametrize("restart", [False, True])
def test_a_bad_scheduler_leaves_no_folder_and_keeps_an_earlier_sweep(cases, tmp_path, capfd, restart):
    out = tmp_path / "sweep"
    argv = ["sweep", cases["beam"], "--param", "h=0.1,0.2", "--scheduler", "not a url", "--out", str(out),
            "--quiet"]
    if restart:  # --restart would discard the earlier sweep: not before the cluster answers
        sweep_files.open_folder(out, sweeps.plan_sweep(cases["beam"], [sweeps.parse_parameter("h=0.1,0.2")]))
        with open(out / sweep_files.TABLE, "a") as table:
            table.write("0,0.1,a row done earlier\n")
        before = {name: (out / name).read_text() for name in files(out)}
    one_line_error(capfd, main([*argv, *["--restart"] * restart]), "--scheduler: cannot reach the dask scheduler")
    if restart:
        assert {name: (out / name).read_text() for name in files(out)} == before
    else:
        assert not out.exists()


def test_a_scheduler_not_reached_leaves_no_client_to_collect_later():
    """The Client that failed to connect is gone when ``connect`` refuses: left to a later garbage
    collection, its ``__del__`` can run inside the next Client's start, under the lock of distributed's
    shared loop runner that it takes again, and the process hangs (seen in this file's sweeps)."""
    from distributed import Client

    with pytest.raises(sweep_cluster.ConnectError, match="cannot reach the dask scheduler"):
        with sweep_cluster.connect("not a url"):
            pass
    assert not [o for o in gc.get_objects() if isinstance(o, Client)]


# --- --elements: the history budget before the model is built ----------------------------------------

@pytest.mark.parametrize("name", ["check", "run", "bench convergence", "sensitivity", "sweep",
                                  "sweep --sensitivity"])
def test_too_many_elements_are_refused_before_the_model_is_built(cases, tmp_path, capfd, monkeypatch, name):
    """100 000 elements per beam of the cantilever (the most femdyn builds) would take seconds and
    gigabytes to build; the estimate from the case as written (1000 steps) refuses them at once and names
    --elements."""
    monkeypatch.chdir(tmp_path)
    Path(cases["beam"]).write_text(CANTILEVER.replace("t_end = 0.3", "t_end = 10.0"))  # the 1000 steps
    cases = {**cases, "rigid": cases["beam"]}
    argv = ["check", cases["beam"]] if name == "check" else command(cases, name, "--out", "out")
    code = main([*argv, "--elements", "100000"])
    one_line_error(capfd, code, "cantilever.toml: --elements: 100000 elements per beam", "GiB of history")
    assert not (tmp_path / "out").exists()


def test_elements_within_the_budget_are_used(cases, capfd):
    assert main(["check", cases["beam"], "--elements", "6"]) == 0
    assert "6 elements per body" in capfd.readouterr().out


def test_the_elements_estimate_is_the_models_count(case_path, capfd, tmp_path):
    """The 3-PRR (2000 steps) has n = 54 + 36 E coordinates with E elements per link, so its 2 GiB history
    budget (16 bytes per coordinate and step) holds E = 1500 (1.61 GiB) but not E = 1900 (2.04 GiB): the
    estimate counts the rigid bodies' coordinates once, not in proportion to the elements."""
    case = tmp_path / "3prr_pulse.toml"  # with the carriers of 003's element, whose count this is
    case.write_text(case_path("3prr_pulse.toml").read_text().replace('model = "fem"', 'model = "fem"\naxial = "linear"'))
    case = str(case)
    assert main(["check", case, "--elements", "1500"]) == 0
    assert "coordinates n = 54054," in capfd.readouterr().out
    one_line_error(capfd, main(["check", case, "--elements", "1900"]), "--elements: 1900 elements per beam give "
                   "about 68454 coordinates", "2.04 GiB of history")


def test_an_out_through_a_folder_not_made_yet_and_back(cases, tmp_path, capfd, monkeypatch):
    """``new/../result``: the folder is written where the path leads, and ``new`` is not left behind."""
    monkeypatch.chdir(tmp_path)
    assert main(command(cases, "run", "--out", "new/../result")) == 0
    assert (tmp_path / "result" / "summary.json").is_file() and not (tmp_path / "new").exists()


@pytest.mark.parametrize("name", ["sweep", "bench convergence"])
def test_a_folder_written_in_place_needs_no_room_beside_it(cases, tmp_path, capfd, monkeypatch, name):
    """A sweep and a convergence study write into their folder, so an earlier one is resumed or replaced
    even where nothing may be created beside it (a parent that cannot be written); a run, which is written
    beside its folder and moved there, is refused there before it starts."""
    out = tmp_path / "out"
    done = {"sweep": 0, "bench convergence": 1}[name]  # the study: 1, no order (theta stays at round-off)
    assert main(command(cases, name, "--out", str(out))) == done
    written = files(out)

    def no_room(out):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("femdyn.post.folders.partial", no_room)
    assert main(command(cases, name, "--out", str(out))) == done and files(out) == written
    capfd.readouterr()
    one_line_error(capfd, main(command(cases, "run", "--out", str(tmp_path / "run"))), "--out: cannot be created")


# --- view: missing and unreadable frame files ---------------------------------------------------------

@pytest.fixture
def result(cases, tmp_path):
    out = tmp_path / "result"
    assert main(["run", cases["rigid"], "--out", str(out), "--quiet", "--no-plots"]) == 0
    return out


def view(result, tmp_path):
    return main(["view", str(result), "--screenshot", str(tmp_path / "frame.png")])


def test_view_names_a_missing_frame_file(result, tmp_path, capfd):
    missing = result / "vtk" / "frame_00001.vtu"
    missing.unlink()
    capfd.readouterr()
    one_line_error(capfd, view(result, tmp_path), f"{missing}: file: not found (a data set of")
    assert not (tmp_path / "frame.png").exists()


def test_view_names_an_unreadable_frame_file_in_one_line(result, tmp_path, capfd):
    """VTK's own log of a file it cannot parse (some fifty lines) is silenced."""
    bad = result / "vtk" / "frame_00003.vtu"
    bad.write_bytes(b"\x00garbage\xff" * 20)
    capfd.readouterr()
    one_line_error(capfd, view(result, tmp_path), f"{bad}: file: holds no points")
    assert not (tmp_path / "frame.png").exists()


def test_view_refuses_a_time_that_is_not_a_number(result, tmp_path, capfd):
    pvd = result / "motion.pvd"
    pvd.write_text(pvd.read_text().replace('timestep="0.0"', 'timestep="nan"', 1))
    capfd.readouterr()
    one_line_error(capfd, view(result, tmp_path), f"{pvd}: timestep: ", "not a finite number")


def test_view_refuses_a_collection_that_points_elsewhere(result, tmp_path, capfd):
    pvd = result / "motion.pvd"
    pvd.write_text(pvd.read_text().replace('file="vtk/', 'file="../../elsewhere/vtk/'))
    capfd.readouterr()
    one_line_error(capfd, view(result, tmp_path), "elsewhere/vtk/frame_00000.vtu: file: not found")


def test_a_sound_result_is_still_shown(result, tmp_path, capfd):
    assert view(result, tmp_path) == 0 and Path(tmp_path / "frame.png").stat().st_size > 1000
