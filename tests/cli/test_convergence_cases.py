"""``femdyn bench convergence CASE`` on every shipped case without flexible bodies, with the default
quantities, reference and measure (the largest error over the time nodes all runs share, the servo
inputs at the nodes): observed order 2 for every joint coordinate and servo input. The runs are made
short by ``--t-end`` and ``--levels 2`` (dt, dt/2 and the Richardson runs at dt/4, dt/8).

Where the servos leave no degree of freedom (3rrr_inverse, stewart_gough) the constraints fix every joint
coordinate at the nodes to round-off: the default quantities are then the inputs, and a study of a joint
coordinate says that no order can be seen (round-off). Friction (stick-slip) is not smooth: over a
window with stick-slip transitions the order falls towards 1 (friction_oscillator over 2 s: 1.13 for
dt/2 -> dt/4; rpr_figure8_friction's inputs over 3.5 s: 1.1-1.2), so friction_oscillator is left out
and rpr_figure8_friction is studied over its first 0.5 s."""
import json

import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.casefile.case import load_case

RUNS = {"3rrr_forward": 0.5, "3rrr_inverse": 0.5, "double_pendulum": 1.0, "four_bar_spatial": 1.0,
        "linear_guide": 1.5, "nm_logo": 2.0, "rpr_figure8": 3.5, "rpr_figure8_friction": 0.5, "stewart_gough": 0.2}


def test_every_rigid_case_is_listed():
    rigid = {p.stem for p in CASES.glob("*.toml") if not load_case(p).model.flexible}
    assert rigid - set(RUNS) == {"friction_oscillator"} and set(RUNS) <= rigid


@pytest.mark.parametrize("name", sorted(RUNS))
def test_joint_coordinates_and_inputs_converge_at_order_2(name, tmp_path):
    case = load_case(CASES / f"{name}.toml")
    model = case.model
    out = tmp_path / "study"
    assert main(["bench", "convergence", str(CASES / f"{name}.toml"), "--levels", "2", "--t-end", str(RUNS[name]),
                 "--out", str(out)]) == 0
    data = json.loads((out / "convergence.json").read_text())
    inputs = [f"input:{c}" for c in model.inputs]
    fixed = inputs and model.n == model.m  # no degree of freedom left by the servos
    assert list(data["quantities"]) == ([] if fixed else list(model.joint_coordinates)) + inputs
    assert data["error"] == "max error" and len(data["time"]) == len(data["quantities"])
    for quantity, study in data["quantities"].items():
        assert 1.8 < study["orders"][-1] < 2.2, (quantity, study["orders"])
    if fixed:
        coordinate = next(iter(model.joint_coordinates))
        assert main(["bench", "convergence", str(CASES / f"{name}.toml"), "--levels", "2", "--t-end",
                     str(RUNS[name]), "--quantity", coordinate, "--out", str(tmp_path / "fixed")]) == 1
        study = json.loads((tmp_path / "fixed" / "convergence.json").read_text())["quantities"][coordinate]
        assert "round-off" in study["problem"]


@pytest.mark.parametrize("name", ["3prr_3d", "delta_flexible", "stewart_gough_flexible"])
def test_spatial_probe_columns_are_quantities(name, tmp_path, capsys):
    """Every column probes.csv has for a probe on a spatial flexible body (world and director components)
    is a quantity a study can read; the study of an unknown one names them, in one line."""
    from femdyn.post.probes import probe_table
    from femdyn.studies.quantities import quantity_names

    case = load_case(CASES / f"{name}.toml")
    columns = probe_table(case.model, case.probes, case.q0[None])
    assert columns and set(columns) <= set(quantity_names(case.model, case.probes))
    assert main(["bench", "convergence", str(CASES / f"{name}.toml"), "--quantity", "nothing",
                 "--out", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "unknown quantity 'nothing'" in err and next(iter(columns)) in err
