"""Stable inversion of the flexible 3-PRR (cases/3prr_inverse.toml, FEM, 4 elements per link): the slider
forces that move the platform's middle along the rest-to-rest figure-8 with the platform level, checked by
a forward run of the same model, by the energy balance of the energy-momentum steps, and against the
rigid-link inverse dynamics as E grows. The path is the case's, run through in 0.4 s instead of 1 s to keep
the tests short."""
import numpy as np
import pytest
from shared import CASES

from femdyn.integrators.inversion import InversionError, stable_inversion
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.studies.inversion import InversionSettings, invert_case
from femdyn.studies.run import prepare_case, run_case

DT, PRE = 2e-3, 0.02  # s; the slowest zero sigma = 3.1e3 1/s: exp(-sigma PRE) = 1e-27
FAST = ("t1 = 0.25, t2 = 0.75, t3 = 1.0, rate = \"2*pi/0.75\"", "t1 = 0.1, t2 = 0.3, t3 = 0.4, rate = \"2*pi/0.3\"")


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    """The case with its figure-8 in 0.4 s and dt = 2 ms (a file: the forward check reads the case again)."""
    text = (CASES / "3prr_inverse.toml").read_text()
    assert FAST[0] in text
    text = text.replace(FAST[0], FAST[1]).replace("t_end = 1.0", "t_end = 0.4").replace("dt = 0.002", f"dt = {DT}")
    path = tmp_path_factory.mktemp("3prr") / "3prr_fast.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def inverted(path):
    case = load_case(path, Options(model="fem"))
    return (case,) + invert_case(case, InversionSettings("stable", PRE, PRE), Options(model="fem"))


def test_slider_forces_fed_to_a_forward_run_reproduce_the_path(inverted):
    """The same model, scheme and dt, driven by the inversion's slider forces from its first state (before
    the motion, on the unstable manifold), keeps the platform's middle on the figure-8 and the platform
    level: the forward run solves the same step equations (000 eqs. 5-7) the inversion solved."""
    case, setup, inversion, check = inverted
    assert inversion.iterations <= 4  # Newton with the exact space-time Jacobian
    assert check.max_error < 1e-6, check.max_error  # m (the path spans 4 cm)
    amplitude = np.abs(inversion.inputs).max()
    assert amplitude > 500.0  # N: the forces that move the 40 kg mechanism along the path


def test_input_work_equals_the_change_of_energy(inverted):
    """Energy-momentum steps dissipate nothing: the slider forces' work sum_k u_k . (s_k+1 - s_k) equals
    H_k - H_0 at every node (H kinetic plus elastic plus gravitational energy) to the Newton tolerance, and
    H returns to H_0 after the rest-to-rest motion."""
    case, setup, inversion, check = inverted
    model = setup.model
    H = np.array([model.kinetic(v) + model.potential(q) for q, v in zip(inversion.q, inversion.v)])
    slides = inversion.q[:, [model.joint_coordinates[name] for name in model.inputs]]
    work = np.cumsum(np.sum(inversion.inputs * np.diff(slides, axis=0), axis=1))
    kinetic = max(model.kinetic(v) for v in inversion.v)
    assert np.abs(H[1:] - H[0] - work).max() < 1e-9 * kinetic, np.abs(H[1:] - H[0] - work).max() / kinetic
    assert abs(H[-1] - H[0]) < 1e-9 * kinetic


def test_slider_forces_converge_to_the_rigid_link_forces_as_E_grows(path):
    """As E grows (x 1, 10, 100, 1000) the slider forces tend to those of the rigid links (the servo run of
    `--flexible rigid`, collocated, at the same dt) like 1/E: the elastic deflections, and with them the
    forces' share that moves the links' elastic mass, are quasi-static. The forces are smooth: their
    second differences are those of the rigid forces (dt^2 u''), no step-to-step alternation. Two
    elements per link (a quarter of the time of four)."""
    rigid = run_case(load_case(path, Options(model="rigid"))).results.inputs
    start = int(round(PRE / DT))
    scale, bending = np.abs(rigid).max(), np.abs(np.diff(rigid, 2, axis=0)).max()
    differences = []
    for young in (1.0, 10.0, 100.0, 1000.0):
        case = load_case(path, Options(model="fem", elements=2, scale={"young": young}))
        u = stable_inversion(prepare_case(case), DT, case.settings.t_end, PRE, PRE).inputs
        differences.append(np.abs(u[start : start + len(rigid)] - rigid).max())
        assert np.abs(np.diff(u, 2, axis=0)).max() < 1.01 * bending, (young, np.abs(np.diff(u, 2, axis=0)).max(), bending)
    ratios = np.array(differences[:-1]) / differences[1:]
    # measured 9.9, 7.6, 5.4: 1/E, until the trapezoidal rule's O(dt^3) error on the stiffest zeros
    # (sigma dt >> 2, decreasing like E^-1/2) takes over at E x 1000
    assert abs(ratios[0] - 10.0) < 1.0 and np.all(ratios > 5.0), (differences, ratios)
    assert differences[-1] < 2e-6 * scale, (differences, scale)


def test_a_path_that_ends_moving_is_refused(path):
    """Held at rest after t_end, a target still moving there jumps in velocity: an impulse, refused."""
    case = load_case(path, Options(model="fem"), {"solver.t_end": 0.35})
    with pytest.raises(InversionError, match="servo middle moves at t = 0.35"):
        stable_inversion(prepare_case(case), DT, 0.35, PRE, PRE)
