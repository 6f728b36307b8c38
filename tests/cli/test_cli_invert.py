"""`femdyn invert`: the stable inversion of the shipped single flexible link from its case file, checked
by the forward run it reports; a bad [inversion] table refused in one line (exit code 2, nothing
written)."""
import json

import numpy as np
from shared import CASES

from femdyn.cli import main


def test_invert_the_flexible_link_case(tmp_path, capsys):
    out = tmp_path / "inverse"
    assert main(["invert", str(CASES / "flexible_link.toml"), "--out", str(out), "--post", "0.1"]) == 0
    printed = capsys.readouterr().out
    assert "non-minimum phase" in printed and "path error" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["pre"] == 0.2 and summary["post"] == 0.1 and not summary["minimum_phase"]
    assert summary["path_error"] < 1e-10  # the forward run at the same step follows the tip path
    t, u = np.loadtxt(out / "inputs.csv", delimiter=",", skiprows=1).T
    assert t[0] < -0.19 and t[-1] > 1.09
    assert np.abs(u[(t > -0.03) & (t < 0)]).min() > 1e-9 * np.abs(u).max()  # pre-actuation


def test_invert_refuses_a_bad_inversion_table(tmp_path, capsys):
    text = (CASES / "flexible_link.toml").read_text().replace("pre = 0.2", "pre = -0.2")
    path = tmp_path / "link.toml"
    path.write_text(text)
    out = tmp_path / "inverse"
    assert main(["invert", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "inversion.pre" in err and "Traceback" not in err
    assert not out.exists()


def test_invert_refuses_a_path_that_ends_moving(tmp_path, capsys):
    """Held at rest after t_end, a target still turning at t_end would jump in velocity (an impulse):
    the servo's trajectory is named, exit code 2, nothing written."""
    path = tmp_path / "link.toml"
    path.write_text((CASES / "flexible_link.toml").read_text().replace("t_end = 1.0", "t_end = 0.7"))
    out = tmp_path / "inverse"
    assert main(["invert", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "servos.tip.trajectory" in err and "t = 0.7 s" in err
    assert not out.exists()


def test_the_forward_check_runs_the_case_as_overridden(tmp_path):
    """A case loaded with overrides (here E x 10 and pre = 0.1 s) is inverted and checked as overridden:
    the forward run's model is built from the same tables, so it follows the path to round-off; a model
    read again from the file (E, not 10 E) would miss it by the difference of the elastic responses."""
    from femdyn.casefile.case import load_case
    from femdyn.studies.inversion import invert_case, inversion_settings

    case = load_case(CASES / "flexible_link.toml", overrides={"bodies.link.beam.young": 7e11, "inversion.pre": 0.1})
    settings = inversion_settings(case)
    assert settings.pre == 0.1
    setup, inversion, check = invert_case(case, settings)
    assert inversion.t[0] == -0.1
    assert case.model.bodies[0].flexible.beam.young == 7e11
    assert check.max_error < 1e-10
