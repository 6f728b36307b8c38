"""No silent nonsense: a step whose state, energy or constraint residual is not finite, or whose residual
is far above the Newton tolerance, stops the run as a failure (exit 1, ``complete: false``, the quantity
named, the good steps kept); inputs that the steps cannot represent -- extreme step and end times,
sections whose inertia underflows, huge initial rates, points at 1e300 -- are refused in one line naming
the field, with no traceback and no NumPy warning, before anything is written; the summary flags an
energy balance error that the scheme should not have and states generalized-alpha's expected damping,
and warns of a step longer than half the period of the prescribed motion; every JSON file is strict
(``null``, never ``NaN``)."""
import json

import numpy as np
import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.forces.time_functions import sine
from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.stepping import MidpointSteps
from femdyn.joints.trajectories import Circle, FigureEight, SmoothRampAngle, SpinUp
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
    """The time loop's checks of a step's result: the sixth step of the double pendulum spoiled, the
    steps one by one (the compiled steps, ``integrators.stepping``, are not spoilt so: they are left
    out here)."""
    spoil, message = BAD_STEPS[kind]
    step = EnergyMomentum.step
    calls = []
    monkeypatch.setattr(MidpointSteps, "of", classmethod(lambda cls, stepper: None))

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
    """The energy-momentum scheme keeps the energy to round-off: by simplified Newton with a tolerance of
    1e-2 at dt = 0.01 (one iteration per step, the steps not converged to the energy: 4.6e-6 of it) the
    double pendulum's balance error is flagged; the 3-PRR with links of E = 7e31 Pa
    gains energy under generalized-alpha, whose damping only takes energy away (flagged too). The
    nominal runs are clean, and generalized-alpha's summary states the damping it expects."""
    loose = tmp_path / "loose.toml"
    loose.write_text((CASES / "double_pendulum.toml").read_text().replace(
        "dt = 0.005", "dt = 0.01\ntolerance = 1e-2\nnewton = 'modified'"))
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


# --- a step too long for the prescribed motion ------------------------------------------------------

def test_periods_of_the_prescribed_motions():
    """The periods the step is checked against: a harmonic trajectory's 2 pi/angular_speed, a sine's
    1/frequency, a figure 8's sin 2s component half the turn of its angle at full rate (000 eq. 78 with
    omega0 = pi: 1 s), a spin-up's turn at its final rate."""
    assert Circle(0.04, 2 * np.pi, 0.5).period == 1.0
    assert sine(1.0, 3.2).period == 1 / 3.2 and sine(1.0, 0.0).period is None
    assert FigureEight(0.1, 0.1, SmoothRampAngle(1.0, 2.0, 3.0, np.pi)).period == 1.0
    assert SpinUp(4.0, 15.0).period == pytest.approx(2 * np.pi / 4.0, rel=1e-15)


@pytest.mark.parametrize("dt, warned", [(0.005, False), (0.5, False), (0.51, True), (1.0, True)])
def test_a_step_longer_than_half_the_motions_period_is_warned_of(dt, warned, tmp_path, capfd):
    """The 3-RRR's platform centre runs a circle with the phase 2 pi s(t) (period 1 s once ramped up):
    a step longer than half that period -- fewer than two samples per period -- is warned of in one line
    on stderr by ``femdyn check`` and ``femdyn run`` and in summary.json, and the run goes on (exit 0).
    The case's own step and exactly half the period are not. Why it matters: at dt = 1 s the ramped phase is
    2 pi (n - 1/4) at every step t = n, so the steps see the platform stand still at (-0.04, 0.04) with
    the angle -0.2 (sin psi = -1, 1 - cos psi = 1) while it runs 0.25 m of circle per second."""
    case = tmp_path / "case.toml"
    t_end = 3 * dt if dt > 0.1 else 0.1
    case.write_text((CASES / "3rrr_inverse.toml").read_text().replace("dt = 0.005\nt_end = 2.0",
                                                                        f"dt = {dt}\nt_end = {t_end}"))
    assert main(["check", str(case)]) == 0
    checked = capfd.readouterr().err
    out = tmp_path / "out"
    code = main(["run", str(case), "--out", str(out), "--quiet", "--no-vtk", "--no-plots"])
    err = capfd.readouterr().err
    assert checked == err
    summary = strict_json(out / "summary.json")
    assert code == 0 and summary["complete"]
    warning = "is longer than half the period 1 s of servo 'centre'"
    assert (warning in summary.get("step_warning", "")) == warned
    assert err == (f"warning: {summary['step_warning']}\n" if warned else "")
    if dt == 1.0:
        bodies = read_csv(out / "bodies.csv")
        for column, seen in (("platform.x", -0.04), ("platform.y", 0.04), ("platform.angle", -0.2)):
            assert np.abs(bodies[column][1:] - seen).max() < 1e-12, bodies[column]
