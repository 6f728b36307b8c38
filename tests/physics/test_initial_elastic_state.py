"""A flexible body started in one of its natural modes (``elastic = {mode, amplitude}`` in a case file)
vibrates in that mode alone: for a linear mode the mid-point rule (the energy-momentum scheme on a
linear system) turns the modal phase by exactly 2 atan(omega dt / 2) per step, so the tip follows
a cos(n theta) to round-off -- the discrete solution, not an approximation of it."""
import numpy as np

from femdyn.beam.modes import natural_frequencies
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case

L, A = 0.8, 2e-3  # m: length and tip amplitude

CASE = """\
dimension = {dim}
[solver]
dt = {dt}
t_end = 0.05
[flexible]
elements = 6
geometric_stiffening = false
[[bodies]]
name = "arm"
beam = {{length = {L}, young = 70e9, density = 2700.0, b = 0.02, h = 0.01{poisson}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "arm"]
[initial.bodies.arm]
position = {origin}
elastic = {{mode = {mode}, amplitude = {A}}}
"""


def run(tmp_path, dim, mode, dt):
    path = tmp_path / f"arm{dim}_{mode}.toml"
    path.write_text(CASE.format(dim=dim, dt=dt, L=L, A=A, mode=mode, origin=[0.0] * dim,
                                poisson=", poisson = 0.33" if dim == 3 else ""))
    case = load_case(path)
    r = simulate(prepare(case.model, case.q0, case.v0), case.settings)
    assert r.complete, r.message
    return case, r


def test_a_cantilever_started_in_a_mode_vibrates_in_it_alone(tmp_path):
    """Planar cantilevers started in their first and second modes, spatial ones in their first three
    (bending in both planes): the modal coordinate is a cos(n theta) with
    tan(theta / 2) = omega dt / 2, to 1e-9 of a, and no other mode is excited."""
    for dim, modes in ((2, (1, 2)), (3, (1, 2, 3))):
        for mode in modes:
            dt = 2e-4
            case, r = run(tmp_path, dim, mode, dt)
            beam = case.model.bodies[0].flexible
            body_modes = natural_frequencies(beam.beam, mode)
            omega = body_modes.omega[mode - 1]
            theta = 2 * np.arctan(omega * dt / 2)
            elastic = beam.elastic_coordinates(r.q)  # (steps, coordinates)
            shape = body_modes.q[mode - 1]
            amplitude = elastic @ (beam.beam.mass @ shape)  # modal coordinate (mass-normalised shape)
            expected = amplitude[0] * np.cos(np.arange(len(r.t)) * theta)
            assert np.abs(amplitude - expected).max() < 1e-9 * abs(amplitude[0]), (dim, mode)
            rest = elastic - np.outer(amplitude, shape)
            assert np.abs(rest).max() < 1e-9 * np.abs(elastic).max(), (dim, mode)
            nodal = body_modes.nodal[mode - 1][:, :dim] * amplitude[0]
            assert abs(np.linalg.norm(nodal, axis=1).max() - A) < 1e-12  # the amplitude asked for


def test_bad_elastic_states_are_refused(tmp_path, capsys):
    """A mode the body does not have, mode 0, an unknown key: one line naming the field, exit code 2."""
    from femdyn.cli import main
    text = CASE.format(dim=2, dt=1e-3, L=L, A=A, mode=1, origin=[0.0, 0.0], poisson="")
    for old, new, field in (("mode = 1", "mode = 100", "initial.bodies.arm.elastic.mode"),
                            ("mode = 1", "mode = 0", "initial.bodies.arm.elastic.mode"),
                            (f"amplitude = {A}}}", f"amplitude = {A}, phase = 1}}", "initial.bodies.arm.elastic.phase")):
        path = tmp_path / "bad.toml"
        path.write_text(text.replace(old, new))
        assert main(["check", str(path)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"error: {path}: {field}") and "\n" not in err, err
