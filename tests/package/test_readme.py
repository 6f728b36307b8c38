"""The README's Python examples run as written: every ```python block of README.md is executed in a
fresh namespace in an empty folder, and the examples of "From Python" show what their last lines say.
The first is the NM logo (000 section 4.1.4) turned by the internal hat torque of 5 N m between 0.25 and
0.5 s in free flight: the energy grows by the torque's work while it acts and is constant after, to
round-off (the energy-momentum scheme), the angular momentum stays zero, and the letters turn
against each other."""
import ast
import re

import numpy as np
import pytest
from shared import ROOT, angular_momentum_scale

BLOCKS = re.findall(r"^```python\n(.*?)^```", (ROOT / "README.md").read_text(), flags=re.M | re.S)


def run_block(code):
    """Executes ``code``; returns its namespace and the value of its last statement if that is an
    expression (what the example shows in an interactive session), else None."""
    tree = ast.parse(code)
    shown = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    namespace = {"__name__": "__readme__"}
    exec(compile(tree, "README.md", "exec"), namespace)
    value = eval(compile(ast.Expression(shown.value), "README.md", "eval"), namespace) if shown else None
    return namespace, value


def test_every_python_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert BLOCKS, "README.md has no ```python block"
    for code in BLOCKS:
        run_block(code)


def test_the_python_example_shows_conservation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    example = next(code for code in BLOCKS if ".run()" in code)
    namespace, shown = run_block(example)
    result = namespace["result"]
    model, results = result.problem.model, result.results
    total, angular_momentum, theta = shown
    # the folder it writes is a run's: its history holds the same numbers
    history = np.genfromtxt(tmp_path / "results" / "nm_logo" / "history.csv", delimiter=",", names=True)
    assert np.array_equal(history["theta"], theta) and np.array_equal(history["t"], result.t)
    assert results.complete, results.message
    assert np.array_equal(results.t, np.linspace(0.0, 2.0, 201))
    scale = np.abs(total).max()
    # the torque does work while it acts (0.25 s to 0.5 s): H - H0 = W in every step, to round-off
    assert results.work[-1] > 1.0 and total[-1] > total[0] + 1.0
    assert np.abs(total - total[0] - results.work).max() <= 1e-10 * scale
    # afterwards the energy stays constant, and the angular momentum of an internal torque is zero
    after = results.t >= 0.5 - 1e-12
    assert np.ptp(total[after]) <= 1e-10 * scale
    assert np.abs(angular_momentum).max() <= 1e-10 * angular_momentum_scale(model, results)
    assert np.abs(results.momentum).max() <= 1e-10
    # the letters turn against each other: from pi, by more than a turn (they spin apart after the kick)
    assert abs(theta[0] - np.pi) <= 1e-12 and theta[-1] - theta[0] > 2 * np.pi


def test_the_static_example_shows_the_hanging_rod_and_its_pendulum_frequency(tmp_path, monkeypatch):
    """The rod of 0.8 m pinned at one end hangs straight down (theta = -pi/2) and swings there at
    omega = sqrt(m g (L/2) / (m L^2/3)) = sqrt(3 g / (2 L)), the physical pendulum."""
    monkeypatch.chdir(tmp_path)
    example = next(code for code in BLOCKS if ".static()" in code)
    _, (theta, omega, words) = run_block(example)
    assert abs(theta + np.pi / 2) <= 1e-12
    assert omega == pytest.approx([np.sqrt(3 * 9.81 / (2 * 0.8))], rel=1e-10)
    assert words == "rotation of 'rod' about (0, 0)"


def test_the_first_command_prints_the_deflection_it_shows(tmp_path, capsys):
    """The README's first command runs a flexible manipulator and ends with its end effector's elastic
    deflection: the line the README quotes, to the digits it shows but the last."""
    text = (ROOT / "README.md").read_text()
    command = re.search(r"^bash setup.sh && \.venv/bin/femdyn (run \S+)", text, flags=re.M).group(1).split()
    quoted = re.search(r"^(probe \w+: elastic deflection .*)$", text, flags=re.M).group(1)
    from femdyn.cli import main

    assert main([command[0], str(ROOT / command[1]), "--out", str(tmp_path / "out"), "--quiet", "--no-vtk",
                 "--no-plots"]) == 0
    printed = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("probe "))
    number = r"[-+]?\d[\d.]*(?:e[-+]?\d+)?"
    assert re.sub(number, "#", printed) == re.sub(number, "#", quoted)
    for shown, got in zip(re.findall(number, quoted), re.findall(number, printed)):
        assert float(got) == pytest.approx(float(shown), rel=1e-3)
