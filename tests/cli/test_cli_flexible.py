"""The command line for flexible bodies: ``--flexible``/``--elements`` overrides, ``femdyn
sensitivity`` against beam theory, and ``femdyn view --screenshot``.

The sensitivity study runs on a cantilever clamped to the ground with a tip load applied smoothly (a
logistic ramp, slow against the first bending period) so that at the end the beam rests in its static
deflection d = P L^3 / (3 E I), tip rotation P L^2 / (2 E I), I = b h^3 / 12: the gradients there
follow from d ~ 1 / (E b h^3) and do not depend on rho. Over the whole history the linear beam
dynamics M(rho b h) q'' + K(E b h^3) q = F(t) has exact scaling laws (the same for the discrete model):
scaling b scales M and K together, so b dw/db = -w; scaling E and rho together leaves the time scale,
so E dw/dE + rho dw/drho = -w; h -> s h with rho -> s^2 rho likewise, so h dw/dh + 2 rho dw/drho = -3 w.
"""
import ctypes.util
import json

import numpy as np
import pytest
from case_texts import NM_BODIES_AND_JOINT

from femdyn.cli import main
from femdyn.post import viewer
from femdyn.io.tables import read_csv
from femdyn.studies.cantilever import CANTILEVER_BETA_L

E, RHO, B, H, L, P = 1e10, 100.0, 0.1, 0.1, 1.0, 100.0
EI = E * B * H**3 / 12
DEFLECTION, ROTATION = -P * L**3 / (3 * EI), -P * L**2 / (2 * EI)

# first bending frequency 3.516 sqrt(EI / (rho A L^4)) = 1015 rad/s; ramp time scale 0.03 s
CANTILEVER = f"""\
title = "cantilever, smoothly applied tip load"
dimension = 2
[solver]
dt = 0.01
t_end = 1.2
[flexible]
model = "fem"
elements = 2
geometric_stiffening = false
[[bodies]]
name = "beam"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
points = [[0.0, 0.0], [0.0, 0.0]]
[[loads]]
type = "point_force"
body = "beam"
point = [{L}, 0.0]
force = [0.0, {-P}]
function = {{type = "expression", expr = "1 / (1 + exp(-(t - 0.6) / 0.03))"}}
[[probes]]
name = "tip"
body = "beam"
point = [{L}, 0.0]
[initial.bodies.beam]
position = [0.0, 0.0]
angle = 0.0
"""

RIGID = """\
dimension = 2
[solver]
dt = 0.01
t_end = 0.03
""" + NM_BODIES_AND_JOINT + """\
[initial.bodies.N]
position = [0, 0]
[initial.joints.NM]
angle = "pi"
"""


@pytest.fixture
def cantilever(tmp_path):
    path = tmp_path / "cantilever.toml"
    path.write_text(CANTILEVER)
    return path


def one_line_error(capsys, code):
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def summary(folder):
    return json.loads((folder / "summary.json").read_text())


@pytest.mark.parametrize("command", ["sensitivity", "view"])
def test_help(command, capsys):
    assert main([command, "--help"]) == 0
    assert f"femdyn {command}" in capsys.readouterr().out


def test_overrides_change_the_model(cantilever, tmp_path, capsys):
    cantilever.write_text(CANTILEVER.replace("elements = 2\n", 'elements = 2\naxial = "linear"\n'))  # carriers
    n = {}
    for model, extra in (("fem", ["--elements", "3"]), ("rayleigh-ritz", []), ("rigid", [])):
        out = tmp_path / model
        assert main(["run", str(cantilever), "--flexible", model, *extra, "--t-end", "0.02", "--out", str(out),
                     "--quiet", "--no-plots", "--no-vtk"]) == 0
        n[model] = summary(out)["n"]
        assert "flexible bodies (1): " in capsys.readouterr().out
    # per elastic coordinate one carrier vector: 3 coordinates (fixed-free) per fem element,
    # 3 for the one Rayleigh-Ritz element, none in the rigid limit
    assert n["fem"] - n["rigid"] == 3 * 3 * 3 and n["rayleigh-ritz"] - n["rigid"] == 3 * 3
    assert main(["check", str(cantilever), "--flexible", "rigid"]) == 0
    assert "flexible bodies (1): rigid limit; 0 elastic coordinates" in capsys.readouterr().out
    assert main(["check", str(cantilever), "--elements", "5"]) == 0
    assert "fem, 5 elements per body; 15 elastic coordinates" in capsys.readouterr().out


def test_run_prints_the_tip_deflection(cantilever, tmp_path, capsys):
    """The end of ``femdyn run``: the tip's largest elastic deflection and section rotation are the
    static cantilever's P L^3 / (3 EI) and P L^2 / (2 EI), reached at the end (the load grows to within
    2e-9 of P, slowly against the bending period), as printed and in summary.json with units."""
    out = tmp_path / "out"
    assert main(["run", str(cantilever), "--out", str(out), "--quiet", "--no-plots", "--no-vtk"]) == 0
    printed = capsys.readouterr().out
    tip = summary(out)["probes"]["tip"]
    deflection, rotation = tip["deflection"], tip["rotation"]
    assert deflection["max_m"] == pytest.approx(abs(DEFLECTION), rel=1e-6)
    assert rotation["max_rad"] == pytest.approx(abs(ROTATION), rel=1e-6)
    assert deflection["t_max_s"] == rotation["t_max_s"] == pytest.approx(1.2)
    table = read_csv(out / "probes.csv")
    length = np.hypot(table["tip.elastic_x"], table["tip.elastic_y"])
    assert deflection["rms_m"] == pytest.approx(np.sqrt(np.mean(length**2)), rel=1e-12)
    elastic = (f"probe tip: elastic deflection from its body frame max {deflection['max_m']:.4g} m at t = 1.2 s, "
               f"RMS {deflection['rms_m']:.4g} m; section rotation max {rotation['max_rad']:.4g} rad at t = 1.2 s")
    assert elastic in printed
    # clamped to the ground, the rigid cantilever stays put: the deviation from it is the deflection too,
    # printed first
    deviation = tip["deviation"]
    assert deviation["max_m"] == pytest.approx(abs(DEFLECTION), rel=1e-6) and deviation["t_max_s"] == pytest.approx(1.2)
    assert deviation["rotation"]["max_rad"] == pytest.approx(abs(ROTATION), rel=1e-6)
    line = f"probe tip: deviation from the rigid mechanism max {deviation['max_m']:.4g} m at t = 1.2 s"
    assert line in printed and printed.index(line) < printed.index(elastic)


def test_override_refusals(cantilever, tmp_path, capsys):
    rigid = tmp_path / "rigid.toml"
    rigid.write_text(RIGID)
    err = one_line_error(capsys, main(["check", str(rigid), "--flexible", "fem"]))
    assert "--flexible: the case has no flexible (beam) bodies" in err
    err = one_line_error(capsys, main(["check", str(cantilever), "--flexible", "rayleigh-ritz", "--elements", "4"]))
    assert "--elements" in err
    one_line_error(capsys, main(["check", str(cantilever), "--flexible", "shell"]))


def test_sensitivity_of_a_cantilever_follows_beam_theory(cantilever, tmp_path, capsys):
    out = tmp_path / "sens"
    assert main(["sensitivity", str(cantilever), "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err
    assert "E     y" in captured.out and f"results in {out}" in captured.out
    assert sorted(p.name for p in out.iterdir()) == [".femdyn", "sensitivity.csv", "sensitivity.json", "sensitivity.png"]
    assert (out / "sensitivity.png").stat().st_size > 10_000
    study = json.loads((out / "sensitivity.json").read_text())
    assert study["probe"]["name"] == "tip" and study["runs"] == 17
    history = read_csv(out / "sensitivity.csv")
    assert history["y"][-1] == pytest.approx(DEFLECTION, rel=1e-6)
    assert history["theta"][-1] == pytest.approx(ROTATION, rel=1e-6)
    for output, static in (("y", DEFLECTION), ("theta", ROTATION)):
        figures = {p: study["parameters"][p]["outputs"][output] for p in ("E", "rho", "b", "h")}
        # static gradients at the end
        assert figures["E"]["gradient_at_end"] == pytest.approx(-static / E, rel=1e-6)
        assert figures["b"]["gradient_at_end"] == pytest.approx(-static / B, rel=1e-6)
        assert figures["h"]["gradient_at_end"] == pytest.approx(-3 * static / H, rel=1e-6)
        assert abs(figures["rho"]["scaled_at_end"]) < 1e-6 * abs(static)
        assert all(f["resolved"] and f["step_agreement"] < 1e-5 for f in figures.values())
        # the scaling laws of the dynamics, at every time
        w = history[output] - history[output][0]
        scaled = {p: history[f"{p}*d{output}/d{p}"] for p in ("E", "rho", "b", "h")}
        tolerance = 1e-6 * np.abs(w).max()
        assert np.abs(scaled["b"] + w).max() < tolerance
        assert np.abs(scaled["E"] + scaled["rho"] + w).max() < tolerance
        assert np.abs(scaled["h"] + 2 * scaled["rho"] + 3 * w).max() < tolerance
        assert np.allclose(history[f"d{output}/dE"], scaled["E"] / E, rtol=1e-12, atol=0)
    # no axial load: the tip does not move along the beam, and the table says so
    assert not any(study["parameters"][p]["outputs"]["x"]["resolved"] for p in ("E", "rho", "b", "h"))


@pytest.mark.parametrize("change, argv, field", [
    ("", ["--params", "E,nu"], "unknown parameter 'nu'"),
    ("", ["--params", "E,E"], "twice"),
    ("", ["--step", "0.5"], "at most 0.1"),
    ("", ["--probe", "elbow"], "--probe: unknown probe 'elbow' (known: tip)"),
    ("no probe", [], ": probes: the case has no probes"),
    ("rigid", [], ": bodies: the case has no flexible (beam) bodies"),
])
def test_sensitivity_bad_input(cantilever, tmp_path, capsys, change, argv, field):
    case = cantilever
    if change == "no probe":
        case.write_text(CANTILEVER.split("[[probes]]")[0] + "[initial.bodies.beam]\nposition = [0.0, 0.0]\n")
    elif change == "rigid":
        case.write_text(RIGID)
    out = tmp_path / "sens"
    err = one_line_error(capsys, main(["sensitivity", str(case), "--out", str(out), "--quiet", *argv]))
    assert field in err and not out.exists()


def test_sensitivity_run_stopping_early(cantilever, tmp_path, capsys):
    cantilever.write_text(CANTILEVER.replace("t_end = 1.2", "t_end = 1.2\nmax_iterations = 1"))
    out = tmp_path / "sens"
    assert main(["sensitivity", str(cantilever), "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "the run with the nominal parameters stopped early" in err and err.count("\n") == 1
    assert not out.exists()


@pytest.fixture
def result(cantilever, tmp_path):
    out = tmp_path / "result"
    assert main(["run", str(cantilever), "--t-end", "0.1", "--out", str(out), "--quiet", "--no-plots"]) == 0
    return out


def test_view_screenshot_writes_a_picture(result, tmp_path, capsys):
    png = tmp_path / "frame.png"
    assert main(["view", str(result), "--screenshot", str(png), "--frame", "5"]) == 0
    assert "frame 5 of 10, t = 0.05" in capsys.readouterr().out
    image = png.read_bytes()
    assert image.startswith(b"\x89PNG") and len(image) > 5_000
    import matplotlib.image

    pixels = matplotlib.image.imread(png)
    assert pixels.shape[:2] == (768, 1024) and np.ptp(pixels[..., :3]) > 0.5  # something drawn


@pytest.fixture
def loaded(cantilever, tmp_path):
    """The cantilever's run to the static tip deflection, its last frame in the series."""
    out = tmp_path / "loaded"
    assert main(["run", str(cantilever), "--out", str(out), "--quiet", "--no-plots", "--every", "60"]) == 0
    return out


def test_view_scale_magnifies_the_deflection_about_the_frame(loaded, tmp_path, capsys):
    """``femdyn view --scale K`` draws every centre-line point at the point the frame carries plus K
    times its elastic displacement: the clamped cantilever's frame stays on the x axis, so the drawn
    line is (X + K u, K v) with the tip at K P L^3 / (3 EI); the beam is drawn as its b x h section swept
    along the line, a section without outer fibres as a tube of radius sqrt(A / pi)."""
    capsys.readouterr()
    pvd, times = viewer.series_times(loaded)
    blocks = viewer.read_frame(pvd, times[-1])
    line = blocks[-1]
    u = np.asarray(line.point_data["elastic_displacement"])
    K = 1000.0
    drawn, plain, frame = (viewer.magnified(blocks, k)[-1].points for k in (K, 1.0, 0.0))
    np.testing.assert_allclose(drawn - plain, (K - 1) * u, rtol=0, atol=1e-12)
    np.testing.assert_allclose(drawn - frame, K * u, rtol=0, atol=1e-12)
    np.testing.assert_allclose(frame[:, 1:], 0.0, atol=1e-15)  # the frame's undeformed beam on the x axis
    tip = np.argmax(frame[:, 0])
    assert frame[tip, 0] == pytest.approx(L, rel=1e-12)
    assert drawn[tip, 1] == pytest.approx(K * DEFLECTION, rel=1e-6)
    slab = viewer.geometry(blocks, 0.0)[-1]  # the b x h rectangle swept along the frame's beam
    np.testing.assert_allclose(slab.bounds, [0.0, L, -H / 2, H / 2, -B / 2, B / 2], rtol=0, atol=1e-12)
    line.point_data.remove("section_depth")  # a section without outer fibres: the tube of the same area
    tube = viewer.geometry(blocks, 0.0)[-1]
    distance = np.hypot(tube.points[:, 1], tube.points[:, 2])  # from the straight centre line
    np.testing.assert_allclose(distance, np.sqrt(B * H / np.pi), rtol=1e-6)
    assert tube.bounds[0] == pytest.approx(0.0, abs=1e-12) and tube.bounds[1] == pytest.approx(L, rel=1e-12)
    pictures = {}
    for k in (1, K):
        png = tmp_path / f"scale{k:g}.png"
        assert main(["view", str(loaded), "--screenshot", str(png), "--scale", f"{k:g}"]) == 0
        pictures[k] = png.read_bytes()
        assert pictures[k].startswith(b"\x89PNG") and len(pictures[k]) > 5_000
    assert "deformation magnified 1000 times" in capsys.readouterr().out
    assert pictures[1] != pictures[K]


def test_view_draws_a_spatial_beam_as_its_section_along_d2():
    """In space the rectangle is turned by the frame's d2 (``section_axis_2``): depth h along it, width
    b along d3 = d1 x d2; a straight beam along x with d2 = z spans z in +-h/2 and y in -+b/2."""
    import pyvista as pv

    n, b, h = 9, 0.15, 0.05
    x = np.linspace(0.0, L, n)
    block = pv.UnstructuredGrid({pv.CellType.LINE: np.column_stack([np.arange(n - 1), np.arange(1, n)])},
                                np.column_stack([x, 0 * x, 0 * x]))
    block.cell_data["body_id"] = np.zeros(n - 1, dtype=int)
    for name, value in (("section_radius", np.sqrt(b * h / np.pi)), ("section_depth", h), ("section_width", b)):
        block.point_data[name] = np.full(n, value)
    block.point_data["section_axis_2"] = np.tile([0.0, 0.0, 1.0], (n, 1))
    np.testing.assert_allclose(viewer.solid(block).bounds, [0.0, L, -b / 2, b / 2, -h / 2, h / 2], atol=1e-15)


def test_view_scalar_bar_names_quantity_and_unit():
    assert viewer.bar_title("bending_moment", False) == "bending_moment [N m]"
    assert viewer.bar_title("velocity", True) == "|velocity| [m/s]"
    assert viewer.bar_title("max_bending_stress", False) == "max_bending_stress [Pa]"


@pytest.mark.parametrize("argv, field", [
    (["--frame", "11"], "--frame: must be between 0 and 10"),
    (["--scale", "-1"], "--scale: must be a number >= 0, got -1"),
    (["--scalars", "nothing"], "--scalars: no array 'nothing'"),
    (["--screenshot", "frame.jpg"], "--screenshot: the screenshot is written as PNG"),
    ([], "display: no display"),
])
def test_view_bad_input(result, tmp_path, capsys, monkeypatch, argv, field):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.chdir(tmp_path)
    if "--screenshot" not in argv and argv:
        argv = [*argv, "--screenshot", "frame.png"]
    assert field in one_line_error(capsys, main(["view", str(result), *argv]))
    assert not (tmp_path / "frame.png").exists()


def test_view_of_a_folder_without_series(tmp_path, capsys):
    assert "motion.pvd: not found" in one_line_error(capsys, main(["view", str(tmp_path)]))


@pytest.mark.skipif(ctypes.util.find_library("OSMesa") is not None, reason="OSMesa present: VTK does not crash")
def test_view_screenshot_reports_a_rendering_crash(result, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("VTK_DEFAULT_OPENGL_WINDOW", "vtkOSMesaRenderWindow")  # OSMesa missing: VTK crashes
    err = one_line_error(capsys, main(["view", str(result), "--screenshot", str(tmp_path / "frame.png")]))
    assert "off-screen rendering crashed" in err and "setup.sh" in err


def test_bench_convergence_in_elements(cantilever, tmp_path, capsys):
    """``bench convergence --refine elements`` on the cantilever resting under its tip load at the end.
    With all nodal coordinates the Hermite elements give the static deflection P L^3 / (3 E I) at the
    nodes of every mesh: the values agree to 1e-9 and their differences lie below Newton's error bound,
    which the study says. Kept to its lowest mode, the continuous beam's tip deflection is
    P phi_1(L)^2 / (m_1 omega_1^2) = 4 P L^3 / ((beta_1 L)^4 E I) (phi_1(L) = 2 with int phi_1^2 = L),
    and the meshes of 2, 4, 8 elements converge to it at order 4."""
    cantilever.write_text(CANTILEVER.replace("elements = 2\n", 'elements = 2\naxial = "linear"\n'))  # carriers
    out = tmp_path / "nodal"
    # differences at 1e-14 may or may not give an order (measured: 0.94, 0.11, exit code 0); either
    # way the exit code is the study's verdict, and a refusal can only be for round-off or non-monotone errors
    code = main(["bench", "convergence", str(cantilever), "--refine", "elements", "--levels", "3",
                 "--quantity", "tip.elastic_y", "--out", str(out)])
    data = json.loads((out / "convergence.json").read_text())
    assert code == (0 if data["ok"] else 1), (code, data["ok"])
    problem = data["quantities"]["tip.elastic_y"]["problem"]
    assert data["ok"] == (problem is None) and (problem is None or "round-off" in problem
                                                 or "non-monotone" in problem), problem
    assert data["parameter"] == "h" and data["elements"] == [2, 4, 8]
    assert np.allclose(data["quantities"]["tip.elastic_y"]["values"], DEFLECTION, rtol=1e-9, atol=0)
    assert any("not above Newton's error bound 1e-10" in note and "tip.elastic_y at h = 0.5, 0.25, 0.125" in note
               for note in data["notes"]), data["notes"]
    capsys.readouterr()

    reduced = tmp_path / "reduced.toml"
    reduced.write_text(CANTILEVER.replace("elements = 2\n", "elements = 2\nmodes = 1\n"))
    one_mode = -4.0 * P * L**3 / (CANTILEVER_BETA_L[0] ** 4 * EI)
    out = tmp_path / "reduced"
    assert main(["bench", "convergence", str(reduced), "--refine", "elements", "--levels", "3", "--quantity",
                 "tip.elastic_y", "--reference", repr(one_mode), "--out", str(out)]) == 0
    assert "h = 1 / elements" in capsys.readouterr().out
    data = json.loads((out / "convergence.json").read_text())
    assert data["elements"] == [2, 4, 8] and not any("Newton" in note for note in data["notes"])
    orders = data["quantities"]["tip.elastic_y"]["orders"]
    assert abs(orders[-1] - 4.0) < 0.15, orders


def test_bench_convergence_in_elements_refusals(cantilever, tmp_path, capsys, monkeypatch):
    """Refused in one line before any run (nothing written to the default folder)."""
    monkeypatch.chdir(tmp_path)
    rigid = tmp_path / "rigid.toml"
    rigid.write_text(RIGID)
    err = one_line_error(capsys, main(["bench", "convergence", str(rigid), "--refine", "elements"]))
    assert "--refine: elements: the case has no flexible (beam) bodies" in err
    err = one_line_error(capsys, main(["bench", "convergence", str(cantilever), "--refine", "elements",
                                       "--flexible", "rayleigh-ritz"]))
    assert "the flexible bodies are rayleigh-ritz (add --flexible fem)" in err
    err = one_line_error(capsys, main(["bench", "convergence", str(cantilever), "--refine", "elements",
                                       "--dt", "0.01", "0.005"]))
    assert "--dt: with --refine elements give one time step" in err
    # the finest reference mesh's history is judged before the meshes are built
    err = one_line_error(capsys, main(["bench", "convergence", str(cantilever), "--refine", "elements",
                                       "--elements", "1000", "--levels", "8"]))
    assert "the run with 512000 elements: t_end/dt = 120 steps would store" in err and "GiB of history" in err
    assert not (tmp_path / "results").exists()


def test_magnified_3prr_stays_joined(tmp_path):
    """The FEM 3-PRR after some steps, its deflection magnified 1e4 times (``femdyn view --scale``, the
    ``deflection`` field of the series): every link end at a joint stays where the joint is -- the legs
    on the (rigid, unmagnified) slider pins and the legs' far ends on the platform's ends -- while
    magnifying the elastic displacement about the floating frames would open those joints by 1e4 times
    its difference there; in between, the deflection is the links' bending (nonzero)."""
    from shared import CASES

    from femdyn.casefile.case import load_case
    from femdyn.post.probes import centre_lines
    from femdyn.studies.run import run_case

    case = load_case(CASES / "3prr_sine.toml", overrides={"solver.t_end": 0.2})
    run = run_case(case)
    r, model, K = run.results, run.setup.model, 1e4
    assert r.complete, r.message
    lines = centre_lines(model, r.q[-1:], r.v[-1:])
    drawn = lines.points[0] + (K - 1) * lines.point_data["deflection"][0]
    about_frames = lines.points[0] + (K - 1) * lines.point_data["elastic_displacement"][0]
    index = {b.name: i for i, b in enumerate(model.bodies)}

    def ends(points, name):
        cells = lines.segments[lines.body_id == index[name]]
        return points[cells[0, 0]], points[cells[-1, 1]]

    pairs = [(("leg1", 1), ("platform", 1)), (("leg2", 1), ("platform", 0)), (("leg3", 1), ("platform", 1))]
    opened = 0.0
    for (a, i), (b, j) in pairs:
        assert np.linalg.norm(ends(drawn, a)[i] - ends(drawn, b)[j]) < 1e-9
        opened = max(opened, np.linalg.norm(ends(about_frames, a)[i] - ends(about_frames, b)[j]))
    assert opened > 1e-3  # what the old magnification did to the same joints (m)
    for k, leg in enumerate(("leg1", "leg2", "leg3"), start=1):  # the legs' pins on their sliders
        pin = r.q[-1, model.body_dofs(index[f"slider{k}"])[:2]]
        assert np.linalg.norm(ends(drawn, leg)[0] - pin) < 1e-9
    assert np.abs(lines.point_data["deflection"]).max() > 1e-8  # the links do bend
