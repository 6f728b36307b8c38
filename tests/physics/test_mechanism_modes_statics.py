"""Natural modes and static deflection of whole mechanisms with flexible links, against beam theory and
against the dynamics: a beam clamped inside a mechanism whose other bodies are fixed has the
cantilever's beta L frequencies; the 3-PRR of 003 with its sliders held converges under mesh refinement
to its frequencies, and its static sag under gravity is where a damped run settles."""
import re

import numpy as np
from shared import CASES

from femdyn.integrators.modes import natural_modes
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.case import load_case

BETA_L = np.array([1.875104068711961, 4.694091132974175, 7.854757438237613])  # cos x cosh x = -1
L, E, RHO, B, H = 0.6, 210e9, 7850.0, 0.03, 0.012  # m, Pa, kg/m^3, m, m

MECHANISM = """\
dimension = 2
[solver]
dt = 0.001
t_end = 0.01
[flexible]
elements = {elements}
[[bodies]]
name = "base"
mass = 3.0
euler = [0.02, 0.01]
[[bodies]]
name = "arm"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[bodies]]
name = "tool"
mass = 1.0
euler = [0.002, 0.002]
[[joints]]
name = "bolt"
type = "fixed"
bodies = ["ground", "base"]
points = [[0.0, 0.0], [0.0, 0.0]]
[[joints]]
name = "weld"
type = "fixed"
bodies = ["base", "arm"]
points = [[0.1, 0.0], [0.0, 0.0]]
[[joints]]
name = "stand"
type = "fixed"
bodies = ["ground", "tool"]
points = [[1.5, 0.0], [0.0, 0.0]]
[initial.bodies.base]
position = [0.0, 0.0]
[initial.bodies.arm]
position = [0.1, 0.0]
"""


def test_beam_clamped_inside_a_mechanism_has_the_beta_l_frequencies(tmp_path):
    """A steel arm welded to a base that is bolted to the ground, beside a tool on a stand: the
    mechanism's three lowest modes are the arm's bending frequencies (beta_i L)^2 sqrt(E I / (rho A L^4))
    (its axial modes lie far above), each converging at order 4 (the first within 2e-7 at 16 elements)."""
    exact = BETA_L**2 * np.sqrt(E * B * H**3 / 12 / (RHO * B * H * L**4))
    errors = []
    for elements in (4, 8, 16):
        path = tmp_path / f"mechanism_{elements}.toml"
        path.write_text(MECHANISM.format(elements=elements, L=L, E=E, RHO=RHO, B=B, H=H))
        case = load_case(path)
        modes = natural_modes(prepare(case.model, case.q0, case.v0), k=3)
        errors.append(np.abs(modes.omega / exact - 1))
    errors = np.array(errors)
    orders = np.log2(errors[:-1] / errors[1:])
    assert np.all(orders[-1] > 3.9), orders  # 8 -> 16 elements: asymptotic for all three
    assert errors[-1, 0] < 2e-7, errors


def held_3prr(tmp_path, elements, integrator='"generalized-alpha"', rho_inf=0.0, t_end=1.0):
    """The 3-PRR of 003 (``cases/3prr_sine.toml``, FEM links, gravity in the plane) with its slider loads
    replaced by servos that hold the three slides where they start: a structure that sags under
    gravity."""
    text = (CASES / "3prr_sine.toml").read_text()
    text = re.sub(r"\[\[loads\]\]\n(.*\n)*?function = .*\n", "", text)
    assert "[[loads]]" not in text
    text = re.sub(r"elements = \d+", f"elements = {elements}", text)
    text = re.sub(r"t_end = [\d.]+", f"t_end = {t_end}", text)
    text = re.sub(r"rho_inf = [\d.]+", f"rho_inf = {rho_inf}", text)
    text = text.replace("early_stop = true\n", "")
    text = text.replace('integrator = "generalized-alpha"', f"integrator = {integrator}")
    for k in (1, 2, 3):
        text += (f'\n[[servos]]\ntype = "coordinate"\nname = "hold{k}"\ncoordinate = "s{k}"\n'
                 'trajectory = {type = "constant", value = 0.0}\n')
    text += '\n[control]\ninputs = ["s1", "s2", "s3"]\n'
    path = tmp_path / f"3prr_held_{elements}.toml"
    path.write_text(_control_first(text))
    return load_case(path)


def _control_first(text):
    """TOML: the [control] table and the servo array tables must precede the [initial.*] tables."""
    head, initial = text.split("\n[initial.", 1)
    initial, tail = "[initial." + initial.split("\n[[servos]]", 1)[0], "\n[[servos]]" + text.split("\n[[servos]]", 1)[1]
    return head + tail + "\n" + initial


def test_3prr_frequencies_converge_under_mesh_refinement(tmp_path):
    """The held 3-PRR's three lowest natural frequencies at its static equilibrium converge at the
    Hermite elements' order 4 (observed order of the differences of 2-4-8-16 elements per link)."""
    omega = []
    for elements in (2, 4, 8, 16):
        case = held_3prr(tmp_path, elements)
        setup = prepare(case.model, case.q0, case.v0)
        eq = static_equilibrium(setup)
        omega.append(natural_modes(setup, eq.q, eq.lam, k=3).omega)
    omega = np.array(omega)
    differences = np.abs(np.diff(omega, axis=0))
    orders = np.log2(differences[:-1] / differences[1:])
    assert np.all(orders[-1] > 3.5), (omega, orders)
    assert np.all(differences[-1] < 1e-4 * omega[-1]), differences[-1] / omega[-1]


def test_3prr_static_sag_is_where_a_damped_run_settles(tmp_path):
    """Released undeformed under gravity with its sliders held, the 3-PRR oscillates about its static
    equilibrium (lowest mode about 426 Hz), damped by generalized-alpha (rho_inf = 0.5, omega dt = 0.5);
    the end effector's mean position over the last 0.1 s (about 40 periods) is the static solution's,
    to the bound amplitude / (pi N) ~ 1e-3 of a mean over N periods of what oscillation is left."""
    from dataclasses import replace
    case = held_3prr(tmp_path, 4)
    setup = prepare(case.model, case.q0, case.v0)
    eq = static_equilibrium(setup)
    r = simulate(setup, replace(case.settings, dt=2e-4, t_end=0.3, rho_inf=0.5))
    assert r.complete, r.message
    platform = [b.name for b in case.model.bodies].index("platform")
    dofs, X, _ = case.model.material_point(platform, np.array([0.315, 0.0]))  # the end effector (joint F)
    sag_static = X @ (eq.q - setup.q0)[dofs]
    sag_run = (r.q[:, dofs] - setup.q0[dofs]) @ X.T
    late = sag_run[r.t > 0.2]
    assert np.linalg.norm(sag_static) > 1e-7
    assert np.abs(late - sag_static).max() > 1e-2 * np.linalg.norm(sag_static)  # it still moves
    assert np.linalg.norm(late.mean(axis=0) - sag_static) < 2e-3 * np.linalg.norm(sag_static)
