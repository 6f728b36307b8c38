"""Servo inputs (inverse dynamics in one step, 000 section 5) against other formulations of the same
motion: applied as joint torques in a forward run without servo constraints they reproduce the
prescribed motion, and the generalized-alpha scheme's inputs approach the energy-momentum scheme's
at order 2."""
import numpy as np
import tomllib
from shared import effector
from shared import observed_orders as orders
from shared import run_file as run

from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case

GA = "generalized-alpha"








def forward_case(path, tmp_path, inputs, t_mid):
    """The same manipulator without servo constraints, driven by joint torques that take the given
    values at the mid-times (a piecewise-linear table evaluated exactly there)."""
    data = tomllib.loads(path.read_text())
    names = data.pop("control")["inputs"]
    data.pop("servos")
    data["loads"] = [{"type": "joint", "coordinate": name,
                      "function": {"type": "table", "times": [0.0, *t_mid, t_mid[-1] + 1.0],
                                   "values": [0.0, *inputs[:, k], inputs[-1, k]]}}
                     for k, name in enumerate(names)]
    out = tmp_path / "forward.toml"
    out.write_text(_toml(data))
    return out


def _toml(data, prefix=""):
    """Minimal TOML writer for the case dictionaries used here."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict) and not prefix.startswith("loads"):
            tables.append((key, value))
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {_value(value)}")
    for key, value in tables:
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, list):
            for item in value:
                lines += [f"[[{name}]]", *(f"{k} = {_value(v)}" for k, v in item.items())]
        else:
            lines += [f"[{name}]", _toml(value, name)]
    return "\n".join(lines)


def _value(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(float(v)) if isinstance(v, float) else str(v).lower() if isinstance(v, bool) else str(v)


def test_inputs_drive_the_forward_dynamics_along_the_path(case_path, tmp_path):
    """Applied as joint torques in a forward simulation (no servo constraints), the inputs of the
    servo solve reproduce the prescribed motion: the discrete equations are the same, so the effector
    path agrees to the Newton tolerance."""
    path = case_path("rpr_figure8.toml")
    case, r = run(path)
    forward = forward_case(path, tmp_path, r.inputs, r.t_mid)
    fcase, f = run(forward)
    assert f.complete
    np.testing.assert_allclose(effector(fcase, f)[0], effector(case, r)[0], atol=1e-8)
    assert np.abs(f.q[:, :48] - r.q[:, :48]).max() <= 1e-8


def test_servo_inputs_agree_with_the_energy_momentum_scheme(case_path):
    """The free-floating RPR manipulator following the figure-8 for 1.5 s (servo rows with the Boolean input
    matrix): constraints to round-off, linear momentum stays zero (the inputs are internal), and the
    step-mean inputs approach those of the energy-momentum scheme at second order."""
    case = load_case(case_path("rpr_figure8.toml"))
    setup = prepare(case.model, case.q0, case.v0)
    differences = []
    for dt in (0.02, 0.01):
        g = simulate(setup, SolverSettings(dt, 1.5, integrator=GA, rho_inf=0.8))
        e = simulate(setup, SolverSettings(dt, 1.5))
        assert g.complete and g.residual.max() <= 1e-12
        assert np.abs(g.momentum).max() <= 1e-10
        differences.append(np.abs(g.inputs - e.inputs).max())
    assert differences[1] <= 1e-3 * np.abs(e.inputs).max()
    assert abs(orders(differences)[0] - 2.0) <= 0.2, differences
