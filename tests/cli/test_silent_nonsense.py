"""No silent nonsense: a step whose state, energy or constraint residual is not finite, or whose residual
is far above the Newton tolerance, stops the run as a failure (exit 1, ``complete: false``, the quantity
named, the good steps kept); inputs that the steps cannot represent -- extreme step and end times,
sections whose inertia underflows, huge initial rates, points at 1e300 -- are refused in one line naming
the field, with no traceback and no NumPy warning, before anything is written; the summary flags an
energy balance error that the scheme should not have and states generalized-alpha's expected damping;
every JSON file is strict (``null``, never ``NaN``)."""
import json

import numpy as np
import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.io.tables import read_csv


def strict_json(path):
    """The JSON of ``path``, refusing NaN and Infinity as strict readers do."""
    def refuse(constant):
        raise ValueError(f"{path}: {constant} is not JSON")
    return json.loads(path.read_text(), parse_constant=refuse)


def one_line(capfd, code, *words):
    err = capfd.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert "Warning" not in err
    for word in words:
        assert word in err, err
    return err


# --- a bad step stops the run ----------------------------------------------------------------------

BAD_STEPS = {  # what the sixth step returns instead, and the quantity named
    "nan": (lambda r: setattr(r, "q", np.full_like(r.q, np.nan)), "the state (q, v) is not finite after the step "
            "to t = 0.06"),
    "fast": (lambda r: setattr(r, "v", 1e200 * r.v), "the kinetic energy is not finite at t = 0.06"),
    "off": (lambda r: setattr(r, "q", r.q + 1e-3), "at t = 0.06 is far above the Newton tolerance"),
}


@pytest.mark.parametrize("kind", BAD_STEPS)
def test_a_bad_step_stops_the_run_and_keeps_the_good_ones(kind, tmp_path, monkeypatch, capfd):
    spoil, message = BAD_STEPS[kind]
    step = EnergyMomentum.step
    calls = []

    def sixth_spoiled(self, *args):
        r = step(self, *args)
        calls.append(1)
        if len(calls) == 6:
            spoil(r)
        return r

    monkeypatch.setattr(EnergyMomentum, "step", sixth_spoiled)
    out = tmp_path / "out"
    assert main(["run", str(CASES / "double_pendulum.toml"), "--dt", "0.01", "--t-end", "0.2", "--out", str(out),
                 "--quiet"]) == 1
    err = capfd.readouterr().err
    assert message in err and "Traceback" not in err
    summary = strict_json(out / "summary.json")
    assert not summary["complete"] and message in summary["message"]
    assert summary["steps"] == 5 and summary["t_reached"] == pytest.approx(0.05)  # the good steps
    history = read_csv(out / "history.csv")
    assert len(history["t"]) == 6 and all(np.isfinite(v).all() for v in history.values())
    assert not (out / "incomplete.json").exists()


# --- inputs the steps cannot represent ------------------------------------------------------------

LOGO = (CASES / "nm_logo.toml").read_text()
PRR = (CASES / "3prr_sine.toml").read_text()
REFUSED = {  # case text, what is replaced, by what, the field named
    "step-1e-300": (LOGO, "dt = 0.05\nt_end = 2.0", "dt = 1e-300\nt_end = 1e-300", "solver.dt: the step 1e-300 s"),
    "end-1e-300": (LOGO, "t_end = 2.0", "t_end = 1e-300", "solver.t_end: 1e-300 is shorter than one step dt = 0.05"),
    "dt-over-t_end": (LOGO, "dt = 0.05", "dt = 5.0", "solver.t_end: 2 is shorter than one step dt = 5"),
    "huge-mass": (LOGO, "mass = 2.0", "mass = 1e300", "solver.dt: the step 0.05 s with mass entries"),
    "huge-rate": (LOGO, "[initial.bodies.N]\n", "[initial.bodies.N]\nangular_velocity = 1e300\n",
                  "initial.bodies.N.angular_velocity: the initial kinetic energy is not finite"),
    "huge-velocity": (LOGO, "[initial.bodies.N]\n", "[initial.bodies.N]\nvelocity = [-1e300, 1e300]\n",
                      "initial.bodies.N.velocity: the initial kinetic energy is not finite"),
    "huge-joint-rate": (LOGO, 'angle = "pi"', 'angle = "pi"\nangle_rate = 1e300',
                        "initial.joints.NM.angle_rate: the initial kinetic energy is not finite"),
    "points-at-1e308": (LOGO, "[0.0, -0.4], [0.0, 0.4]", "[1e308, -0.4], [-1e308, 0.4]",
                        "initial: the initial configuration's residual of revolute 'NM' row 1/2 is not finite"),
    "thin-section": (PRR, "b = 0.15, h = 0.05}", "b = 0.15, h = 1e-110}",
                     "bodies[3].beam.h: the second moment of area b h^3/12 is 0"),
    "narrow-section": (PRR, "b = 0.15, h = 0.05}", "b = 1e-300, h = 0.05}", "bodies[3].beam.b: the area b h is 5e-302"),
    "huge-modulus": (PRR, "young = 70e9", "young = 1e303", "bodies[3].beam.young: the axial stiffness"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_inputs_the_steps_cannot_represent_are_refused_in_one_line(name, tmp_path, capfd):
    text, old, new, message = REFUSED[name]
    assert old in text
    case = tmp_path / "case.toml"
    case.write_text(text.replace(old, new))
    one_line(capfd, main(["check", str(case)]), f"{case}: {message}")
    out = tmp_path / "out"
    one_line(capfd, main(["run", str(case), "--out", str(out), "--quiet"]), f"{case}: {message}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["case.toml"]  # nothing left behind


def test_an_end_time_shorter_than_the_step_is_refused_on_the_command_line(tmp_path, capfd):
    one_line(capfd, main(["run", str(CASES / "nm_logo.toml"), "--t-end", "0.01", "--out", str(tmp_path / "o")]),
             "--t-end: 0.01 is shorter than one step dt = 0.05")
    assert not (tmp_path / "o").exists()


# --- the energy balance in the summary ------------------------------------------------------------

def test_an_energy_error_the_scheme_should_not_have_is_flagged(tmp_path, capfd):
    """The energy-momentum scheme keeps the energy to round-off: by modified Newton with a tolerance of
    1e-4 (steps not converged to it) the double pendulum's balance error is flagged; the 3-PRR with links of E = 7e31 Pa
    gains energy under generalized-alpha, whose damping only takes energy away (flagged too). The
    nominal runs are clean, and generalized-alpha's summary states the damping it expects."""
    loose = tmp_path / "loose.toml"
    loose.write_text((CASES / "double_pendulum.toml").read_text().replace("[solver]", "[solver]\ntolerance = 1e-4\nnewton = 'modified'"))
    stiff = tmp_path / "stiff.toml"
    stiff.write_text(PRR.replace("young = 70e9", "young = 7e31").replace('model = "fem"', 'model = "fem"\naxial = "linear"'))
    for case, flagged in ((loose, True), (stiff, True), (CASES / "double_pendulum.toml", False),
                          (CASES / "3prr_sine.toml", False)):
        out = tmp_path / f"{case.stem}-{flagged}"
        assert main(["run", str(case), "--t-end", "0.4", "--out", str(out), "--quiet", "--no-vtk", "--no-plots"]) == 0
        summary = strict_json(out / "summary.json")
        err = capfd.readouterr().err
        assert ("energy_warning" in summary) == flagged == (f"warning: {summary.get('energy_warning')}" in err), case
        if summary["integrator"] == "generalized-alpha":
            assert summary["energy_expected"].startswith("generalized-alpha (rho_inf = 0.5) damps numerically")
            assert "at omega dt >> 1 by rho_inf = 0.5" in summary["energy_expected"]
