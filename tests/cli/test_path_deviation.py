"""``path.png``'s magnified deviation view: for the five-bar's tool, the dotted line is the rigid
mechanism's path x - dx plus the deviation from the rigid mechanism magnified by the factor K its
legend states, x - dx + K dx (``probes.csv``'s columns), and K draws the largest deviation at about a
twentieth of the path's extent (K a 1-2-5 step, so within a factor 2.5 below it)."""
import re

import numpy as np
from matplotlib.axes import Axes
from shared import CASES

from femdyn.cli import main
from femdyn.post import plots
from femdyn.post.plot_child import PROCESSES
from femdyn.io.tables import read_csv


def test_path_shows_the_deviation_magnified_by_its_stated_factor(tmp_path, capsys, monkeypatch):
    drawn = {}
    plot = Axes.plot

    def keep(ax, *args, **kwargs):
        lines = plot(ax, *args, **kwargs)
        drawn[kwargs.get("label")] = lines[0].get_xydata()
        return lines

    monkeypatch.setattr(Axes, "plot", keep)
    monkeypatch.setenv(PROCESSES, "0")  # drawn here, where the lines are seen
    out = tmp_path / "out"
    assert main(["run", str(CASES / "five_bar_flexible.toml"), "--t-end", "0.1", "--out", str(out), "--quiet",
                 "--no-vtk"]) == 0
    capsys.readouterr()
    table = read_csv(out / "probes.csv")
    x = np.column_stack([table["P.x"], table["P.y"]])
    dx = np.column_stack([table["P.deviation_x"], table["P.deviation_y"]])
    (label, line), = [(k, v) for k, v in drawn.items() if k and k.startswith("P (rigid mechanism + deviation x ")]
    k = float(re.fullmatch(r"P \(rigid mechanism \+ deviation x (.+)\)", label).group(1))
    np.testing.assert_allclose(line, x - dx + k * dx, rtol=0, atol=1e-12 * np.abs(x).max())
    extent = max(np.ptp(drawn["P (flexible)"], axis=0).max(), np.ptp(drawn["P (rigid: floating frame)"], axis=0).max())
    largest = k * np.linalg.norm(dx, axis=1).max()
    assert extent / 20 / 2.5 < largest <= extent / 20 * (1 + 1e-12) and k > 1
