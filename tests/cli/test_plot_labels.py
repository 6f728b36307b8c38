"""The plots of runs of the shipped cases: every axis labelled ``quantity [SI unit]``, one kind of
quantity per axis (joint angles apart from slides, servo torques apart from forces, as the joints say),
legends outside the data, every text inside the image and off the other axes' data, and a path plot of
the probes with the rigid (floating frame) and flexible paths overlaid. The figures are read as
``femdyn run`` makes them (``plots._save`` recorded)."""
import re

import numpy as np
from matplotlib.axes import Axes
from matplotlib.transforms import Bbox
import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.post import plots
from femdyn.casefile.case import load_case
from femdyn.post.plot_child import PROCESSES
from femdyn.io.tables import read_csv

UNIT = re.compile(r"^[^\[\]]+ \[[^\[\]]+\]$")  # one quantity, one unit in brackets
SHIPPED = sorted(p.name for p in CASES.glob("*.toml"))


class Seen(dict):
    """{file name: [(x label, y label, line labels, legend box, axes box)]}, and ``misplaced``: {file name:
    what of its texts stands out of the image or on another axes' data (``misplaced``)}."""

    def __init__(self):
        super().__init__()
        self.misplaced = {}


@pytest.fixture
def figures(monkeypatch):
    """``Seen`` of every plot saved, drawn by the run's process (``plot_child.PROCESSES`` = 0), so that
    they are seen; read as the file has them (after ``plots._save``'s layout)."""
    seen = Seen()
    save = plots._save
    monkeypatch.setenv(PROCESSES, "0")

    def record(fig, path):
        save(fig, path)
        renderer = fig.canvas.get_renderer()
        seen[path.name] = [(ax.get_xlabel(), ax.get_ylabel(), [line.get_label() for line in ax.get_lines()],
                            None if ax.get_legend() is None else ax.get_legend().get_window_extent(renderer).frozen(),
                            ax.get_window_extent(renderer).frozen()) for ax in fig.axes if ax.get_visible()]
        seen.misplaced[path.name] = misplaced(fig, renderer)

    monkeypatch.setattr(plots, "_save", record)
    return seen


def misplaced(fig, renderer):
    """What of ``fig``'s texts a reader would not see whole, as drawn: anything beyond the figure (its tight
    box, inches), and any axis's tick labels and label, title or legend on the data area of another axes."""
    problems = []
    box, (width, height) = fig.get_tightbbox(renderer), fig.get_size_inches()
    if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
        problems.append(f"drawn over {box.extents} in, beyond the figure of {width} x {height} in")
    shown = [ax for ax in fig.axes if ax.get_visible()]
    for ax in shown:
        texts = {"x axis": ax.xaxis.get_tightbbox(renderer), "y axis": ax.yaxis.get_tightbbox(renderer),
                 "title": ax.title.get_window_extent(renderer) if ax.get_title() else None,
                 "legend": ax.get_legend().get_window_extent(renderer) if ax.get_legend() else None}
        for other in shown:
            for name, text in texts.items():
                common = None if other is ax or text is None else Bbox.intersection(text, other.get_window_extent(renderer))
                if common is not None and common.width > 1 and common.height > 1:  # pixels
                    problems.append(f"{name} of {ax.get_ylabel()!r} on the axes of {other.get_ylabel()!r}")
    return problems


def kinds(model):
    """{joint coordinate: "angle" or "slide"} as the joints of the model name them."""
    return {name: kind for joint in model.joints for kind, i in joint.coordinates.items()
            for name, j in model.joint_coordinates.items() if i == j}


@pytest.mark.parametrize("name", SHIPPED)
def test_every_axis_has_one_quantity_and_its_unit(name, figures, tmp_path, capsys):
    case = load_case(CASES / name)
    out = tmp_path / "out"
    extra = ["--compare-dt", str(case.settings.step / 2)] if case.model.joint_coordinates else []
    assert main(["run", str(CASES / name), "--t-end", str(4 * case.settings.step), "--out", str(out), "--quiet",
                 "--no-vtk", *extra]) == 0
    capsys.readouterr()
    expected = {"energy.png"}
    for files, present in (({"joint_coordinates.png", "joint_coordinates_dt.png"}, extra),
                           ({"inputs.png"}, case.model.inputs), ({"probes.png", "path.png"}, case.probes),
                           ({"reactions.png"}, case.model.joints), ({"gauges.png"}, case.gauges)):
        expected |= files if present else set()
    assert set(figures) == expected and {p.name for p in out.glob("*.png")} == expected
    assert all(problems == [] for problems in figures.misplaced.values()), figures.misplaced
    for figure, axes in figures.items():
        assert any(x for x, *_ in axes), figure  # the time or position axis is labelled
        for x, y, lines, legend, box in axes:
            assert UNIT.match(y), (figure, y)
            assert not x or UNIT.match(x), (figure, x)
            if legend is not None:  # to the right of the data
                assert legend.x0 >= box.x1, (figure, y)
    angle, slide = "joint angle [rad]", "joint slide [m]"
    coordinate_kinds = kinds(case.model)
    for figure, units in (("joint_coordinates.png", {"angle": angle, "slide": slide}),
                          ("inputs.png", {"angle": "servo torque [N m]", "slide": "servo force [N]"})):
        for _, y, lines, _, _ in figures.get(figure, []):
            assert {units[coordinate_kinds[line.split(",")[0]]] for line in lines} == {y}, (figure, lines)
    for _, y, lines, _, _ in figures.get("joint_coordinates_dt.png", []):
        assert {"joint " + coordinate_kinds[line.split(",")[0]] for line in lines} == {y.split(" [")[0]}
    if case.probes:
        (x, y, lines, _, _), = figures["path.png"]
        flexible = [p for p, body, _ in case.probes if case.model.bodies[[b.name for b in case.model.bodies]
                                                                          .index(body)].flexible is not None]
        assert {f"{p} (rigid: floating frame)" for p in flexible} <= set(lines)
        magnified = [line for line in lines if " (rigid mechanism + deviation x " in line]  # a factor > 1
        assert len(lines) == len(case.probes) + len(flexible) + len(magnified)
        if case.model.dim == 2:
            assert (x, y) == ("position x [m]", "position y [m]")


def test_path_plot_overlays_the_rigid_and_the_flexible_path(tmp_path, capsys, monkeypatch):
    """The rigid path is the floating frame's point: the deformed point minus the elastic displacement
    (probes.csv), drawn for the 3-PRR's end effector next to its deformed path."""
    drawn = {}
    plot = Axes.plot

    def keep(ax, *args, **kwargs):
        lines = plot(ax, *args, **kwargs)
        drawn[kwargs.get("label")] = lines[0].get_xydata()
        return lines

    monkeypatch.setattr(Axes, "plot", keep)
    monkeypatch.setenv(PROCESSES, "0")  # drawn here, where the lines are seen
    out = tmp_path / "out"
    assert main(["run", str(CASES / "3prr_sine.toml"), "--t-end", "0.05", "--out", str(out), "--quiet", "--no-vtk"]) == 0
    capsys.readouterr()
    table = read_csv(out / "probes.csv")
    probe = next(c.split(".")[0] for c in table if c.endswith(".elastic_x"))
    deformed = np.column_stack([table[f"{probe}.x"], table[f"{probe}.y"]])
    elastic = np.column_stack([table[f"{probe}.elastic_x"], table[f"{probe}.elastic_y"]])
    np.testing.assert_array_equal(drawn[f"{probe} (flexible)"], deformed)
    np.testing.assert_allclose(drawn[f"{probe} (rigid: floating frame)"], deformed - elastic, rtol=0, atol=1e-15)
    assert np.abs(elastic).max() > 0


@pytest.mark.parametrize("table", ["inputs", "history", "bodies", "probes"])
def test_compare_labels_every_column_with_its_unit(table, figures, tmp_path, capsys, monkeypatch):
    """``femdyn compare``: the columns of two runs of the figure-8 RPR on one axis per quantity, the
    joint angles and slides, torques and forces told apart by the case the runs name."""
    monkeypatch.chdir(CASES.parent)  # the runs name their case relative to here
    folders = []
    for dt in ("0.02", "0.01"):
        folders.append(tmp_path / f"dt{dt}")
        assert main(["run", "cases/rpr_figure8.toml", "--dt", dt, "--t-end", "0.06", "--out", str(folders[-1]),
                     "--quiet", "--no-vtk", "--no-plots"]) == 0
    assert main(["compare", *map(str, folders), "--table", table, "--out", str(tmp_path / "c.png")]) == 0
    capsys.readouterr()
    axes = figures["c.png"]
    for x, y, lines, legend, box in axes:
        assert UNIT.match(y) and (" or " not in y or y == "constraint residual [m or 1]"), y  # rows of both
        assert legend.x0 >= box.x1
    assert axes[-1][0] == plots.TIME
    labels = {y: {line.split(",")[0] for line in lines} for _, y, lines, _, _ in axes}
    if table == "inputs":
        assert labels == {"servo torque [N m]": {"Theta1", "Theta2", "Theta3"}}
    if table == "history":
        assert labels["joint slide [m]"] == {"u1", "u2", "u3"}
        assert labels["joint angle rate [rad/s]"] == {"Theta1_rate", "Theta2_rate", "Theta3_rate"}
        assert labels["energy [J]"] == {"kinetic", "potential", "total", "work", "dissipation", "energy_balance"}
