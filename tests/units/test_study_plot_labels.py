"""The plots of ``femdyn sweep``, ``femdyn bench convergence`` and a run's ``gauges.png`` read as matplotlib
objects (not pixels):
every axis ``quantity [SI unit]``, legends that tell the curves apart, no panel of round-off: the energy
error, which the energy-momentum scheme holds at round-off, is not a sweep response, and a convergence
study's errors at or below their round-off level are left out (named in the title)."""
import re
from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.figure import Figure

from femdyn.post import plots
from femdyn.io.units import field_unit
from femdyn.studies import convergence
from femdyn.studies.orders import finish_study
from femdyn.studies.sweep_files import plot_responses, plot_scatter_matrix

UNIT = re.compile(r"^[^\[\]]+ \[[^\[\]]+\]$")  # one quantity, one unit in brackets


def axes_of(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


@pytest.fixture
def saved(monkeypatch):
    """The figures the plots save, by file name."""
    seen = {}

    def record(fig, path, **_):
        seen[getattr(path, "name", str(path))] = fig

    monkeypatch.setattr(Figure, "savefig", record)
    monkeypatch.setattr(plots, "_save", record)
    return seen


def test_sweep_axes_have_si_units_and_no_round_off_panel(saved, tmp_path):
    names = ["bodies.link.beam.h", "solver.dt"]
    sweep = SimpleNamespace(names=names, design="factorial", case=SimpleNamespace(title="t"))
    rows = [{"bodies.link.beam.h": h, "solver.dt": dt, "deviation_max": 1e-6 * h, "deviation_rms": 5e-7 * h,
             "elastic_max": 2e-6 * h, "max_stress": 1e6 * h, "energy_error": 1e-15, "wall_time": 1.0, "error": ""}
            for h in (0.01, 0.02) for dt in (1e-3, 2e-3)]
    plot_responses(tmp_path / "responses.png", sweep, rows)
    plot_scatter_matrix(tmp_path / "scatter.png", sweep, rows)
    for name in ("responses.png", "scatter.png"):
        labels = [label for ax in axes_of(saved[name]) for label in (ax.get_xlabel(), ax.get_ylabel()) if label]
        assert labels and all(UNIT.match(label) for label in labels), labels
        assert not any("energy_error" in label for label in labels)
    responses = axes_of(saved["responses.png"])
    assert responses[0].get_ylabel() == "deviation_max [m]"  # the effector's deviation leads
    assert {ax.get_xlabel() for ax in responses} >= {"bodies.link.beam.h [m]", "solver.dt [s]"}
    curves = [line.get_label() for line in responses[0].get_lines()]
    assert len(set(curves)) == len(curves) == 2 and all("[" not in c and " s" in c for c in curves)  # dt = .. s
    assert field_unit("springs.k1.stiffness") == "N/m" and field_unit("gravity.1") == "m/s^2"


def test_convergence_plot_units_legends_and_round_off(saved, tmp_path):
    h = np.array([0.1, 0.05, 0.025])
    errors = np.column_stack([1e-3 * h**2, 2e-2 * h, np.full(3, 1e-17)])  # the last one: round-off
    study = finish_study({"title": "t", "parameter": "dt", "count_label": "steps", "h": h, "counts": 1 / h,
                          "quantities": ["theta", "input:theta", "energy_error"], "units": ["rad", "N m", "J"],
                          "descriptions": ["", "", ""], "reference": "r", "reference_values": None},
                         np.zeros((3, 3)), h, errors, np.full((3, 3), 1e-14))
    convergence.plot_study(study, tmp_path / "convergence.png")
    (ax,) = axes_of(saved["convergence.png"])
    assert ax.get_xlabel() == "time step dt [s]"
    assert UNIT.match(ax.get_ylabel())
    labels = [line.get_label() for line in ax.get_lines()]
    assert len(set(labels)) == len(labels) == 4  # points and fitted line of each quantity above round-off
    assert any("[rad]" in label for label in labels) and any("[N m]" in label for label in labels)
    assert not any("energy_error" in label for label in labels) and "energy_error" in ax.get_title()


def test_gauges_plot_has_strain_and_stress_axes(saved, tmp_path):
    """``gauges.png`` of a run: the strains [1] and stresses [Pa] on their own axes, a line per gauge."""
    from femdyn.post.run_plots import PlotSpec, figures

    spec = PlotSpec("t", 2, {}, {}, (), 1e-3, ())
    t = np.linspace(0.0, 1.0, 5)
    gauges = {"t": t, "root.strain": 1e-4 * t, "root.stress": 2.1e7 * t, "mid.strain": 5e-5 * t,
              "mid.stress": 1.05e7 * t}
    history = {"t": t, "kinetic": t, "potential": t, "total": t, "momentum_x": t, "momentum_y": t,
               "angular_momentum_z": t}
    drawn = {args[0].name: (function, args) for _, function, args in
             figures(tmp_path, spec, history, {}, None, None, gauges=gauges)}
    function, args = drawn["gauges.png"]
    function(*args)
    axes = axes_of(saved["gauges.png"])
    assert [ax.get_ylabel() for ax in axes] == ["normal strain [1]", "normal stress [Pa]"]
    assert [line.get_label() for line in axes[1].get_lines()] == ["root.stress", "mid.stress"]
    assert UNIT.match(axes[-1].get_xlabel())
