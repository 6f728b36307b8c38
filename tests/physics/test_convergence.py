"""The convergence tool: it recovers the known orders of accuracy (2 for the energy-momentum scheme on
a linear oscillator and on a clamped flexible beam's elastic deflection, both with exact solutions, and
on the NM logo; 4 in h for the Hermite beam frequencies and for a modally reduced cantilever's
deflection under element refinement) and refuses an order that the data cannot
support (round-off, non-monotone errors)."""
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.linalg

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.casefile.case import load_case
from femdyn.joints.trajectories import Constant, Function
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.studies.cantilever import (
    CANTILEVER_BETA_L,
    beam_frequency_study,
    cantilever_roots,
)
from femdyn.studies.convergence import (
    convergence_benchmark,
    element_study,
    refinement_study,
    write_study,
)
from femdyn.studies.orders import ConvergenceError, observed_orders

MASS, STIFFNESS, AMPLITUDE, FREE_LENGTH = 2.0, 8.0, 0.3, 2.0
SECTION, YOUNG, DENSITY, GRAVITY = (0.01, 0.01), 2.1e11, 7850.0, 9.81  # the steel cantilever
OMEGA = math.sqrt(STIFFNESS / MASS)


def oscillator(servo=None):
    """A body on a prismatic joint (slide u along x) to the ground, held by a linear spring whose
    free length is reached at u = 0: m u'' = -k u, u(0) = A, u'(0) = 0, so u(t) = A cos(omega t).
    ``servo``: a trajectory for u (absolute), with the force on u as the input."""
    b = ModelBuilder(2)
    b.add_body("mass", MASS, [0.1, 0.1])
    b.add_joint("guide", "prismatic", "ground", "mass", slide="u")
    b.add_spring_damper("spring", "ground", [-FREE_LENGTH, 0.0], "mass", [0.0, 0.0], STIFFNESS, 0.0, FREE_LENGTH)
    if servo is not None:
        b.add_servo_coordinate("hold", "u", servo, relative=False)
        b.set_inputs(["u"])
    model = b.build()
    rate = 0.0 if servo is None else float(servo.rate(0.0)[0])
    q, v = place(model, {}, {"guide": {"slide": AMPLITUDE, "slide_rate": rate}})
    return SimpleNamespace(model=model, q0=q, v0=v, settings=SolverSettings(dt=0.1, t_end=1.0),
                           title="linear oscillator")


def test_linear_oscillator_order_two_against_the_exact_solution():
    """The slide and the body's x against A cos(omega t_end): order 2 at every level."""
    case = oscillator()
    exact = AMPLITUDE * math.cos(OMEGA * case.settings.t_end)
    study = refinement_study(case, ["u", "mass.x"], levels=4, reference={"u": exact, "mass.x": exact})
    assert np.allclose(study.h, [0.1, 0.05, 0.025, 0.0125])
    for name in ("u", "mass.x"):
        assert np.all(np.abs(study.order(name) - 2.0) < 0.01), study.table()
        assert abs(study.fitted[study.quantities.index(name)] - 2.0) < 0.01
    # the midpoint rule's phase error: u_N = A cos(N theta), tan(theta / 2) = omega dt / 2
    theta = 2 * np.arctan(OMEGA * study.h / 2)
    assert np.allclose(study.values[:, 0], AMPLITUDE * np.cos(theta * study.counts), rtol=0, atol=1e-12)
    # Richardson's reference from two finer runs gives the same orders
    richardson = refinement_study(case, "u", levels=4)
    assert np.all(np.abs(richardson.order("u") - 2.0) < 0.01), richardson.table()
    assert abs(richardson.reference_values[0] - exact) < 1e-8


def clamped_cantilever(elements=1, modes=None):
    """A steel cantilever (L = 1 m, 10 x 10 mm, fixed-free FEM beam, its ``modes`` lowest modes or all
    nodal coordinates) whose body frame is welded to the ground, at rest and undeformed when gravity
    acts from t = 0; a probe at 3/4 of the span. The frame does not move, so the elastic coordinates obey
    the linear M q'' + K q = f (003 eq. 4 with d_1, d_2 fixed). One element: bending modes of 52.7 and
    520 rad/s, both resolved by the steps below."""
    beam = BeamBody.straight(1.0, elements, Section.rectangle(*SECTION), YOUNG, DENSITY, modes=modes)
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "beam")
    b.set_gravity([0.0, -GRAVITY])
    model = b.build()
    q, v = place(model, {}, {})
    return SimpleNamespace(model=model, q0=q, v0=v, settings=SolverSettings(dt=2e-4, t_end=0.05),
                           title="clamped cantilever",
                           probes=[("sensor", "beam", np.array([0.75, 0.0]))]), beam


def test_probe_elastic_deflection_order_two_against_the_modal_solution():
    """The elastic deflection of a point of the suddenly loaded cantilever (a probe output). With mass-
    normalised modes phi_i and the static modal deflections a_i = phi_i.f / omega_i^2 the exact
    solution is q(t) = sum_i a_i (1 - cos omega_i t) phi_i; the energy-momentum (mid-point) steps give
    q_N = sum_i a_i (1 - cos N theta_i) phi_i with tan(theta_i / 2) = omega_i dt / 2, so the study's
    values are known in closed form and its errors against the exact solution fall as dt^2."""
    case, beam = clamped_cantilever()
    omega2, phi = scipy.linalg.eigh(beam.stiffness.toarray(), beam.mass.toarray())
    inv = beam.invariants
    f = -GRAVITY * inv.s_bar[1]  # gravity on the elastic coordinates: int rho S^T g, the body frame = world
    amplitude = phi.T @ f / omega2
    point = beam.shape_at(np.array([[0.75, 0.0]]))[0, 1] @ phi  # the point's deflection in each mode
    exact = float(np.sum(point * amplitude * (1.0 - np.cos(np.sqrt(omega2) * case.settings.t_end))))
    assert exact < -1e-3  # the point has moved down by millimetres
    study = refinement_study(case, ["sensor.elastic_y", "sensor.y", "sensor.elastic_x"], levels=4,
                             reference={"sensor.elastic_y": exact, "sensor.y": exact, "sensor.elastic_x": 0.0},
                             strict=False)
    theta = 2.0 * np.arctan(np.sqrt(omega2)[None, :] * study.h[:, None] / 2.0)
    discrete = np.sum(point * amplitude * (1.0 - np.cos(theta * study.counts[:, None])), axis=1)
    for name in ("sensor.elastic_y", "sensor.y"):
        j = study.quantities.index(name)
        assert np.allclose(study.values[:, j], discrete, rtol=1e-9, atol=0), study.table()
        assert np.all(np.abs(study.order(name) - 2.0) < 0.05), study.table()
    # a straight beam loaded across its axis does not stretch: no axial displacement, no order
    assert "sensor.elastic_x: errors at round-off" in study.problems["sensor.elastic_x"]
    with pytest.raises(ValueError, match="unknown quantity 'sensor.z'.*sensor.elastic_angle"):
        refinement_study(case, "sensor.z")
    case.probes = [("beam", "beam", np.array([0.75, 0.0]))]  # named like its body: beam.y is both
    with pytest.raises(ValueError, match="'beam.y' names an output of probe beam and of the body"):
        refinement_study(case, "beam.y")


def continuum_tip_deflection(modes, dt, steps):
    """The tip deflection after ``steps`` mid-point steps of the suddenly loaded continuous cantilever
    of ``clamped_cantilever`` kept to its ``modes`` lowest modes: mode i, phi_i(x) = cosh b x - cos b x
    - s_i (sinh b x - sin b x) with s_i = (cosh b L + cos b L) / (sinh b L + sin b L) and b = beta_i,
    omega_i = beta_i^2 sqrt(E I / rho A), has the static modal deflection Q_i / (m_i omega_i^2),
    Q_i = -rho A g int phi_i, m_i = rho A int phi_i^2, and the mid-point rule turns its 1 - cos omega_i t
    into 1 - cos N theta_i, tan(theta_i / 2) = omega_i dt / 2."""
    from scipy.integrate import quad

    area, inertia = SECTION[0] * SECTION[1], SECTION[0] * SECTION[1] ** 3 / 12.0
    total = 0.0
    for beta in cantilever_roots(modes):  # L = 1 m
        s = (math.cosh(beta) + math.cos(beta)) / (math.sinh(beta) + math.sin(beta))
        phi = lambda x: math.cosh(beta * x) - math.cos(beta * x) - s * (math.sinh(beta * x) - math.sin(beta * x))
        omega = beta**2 * math.sqrt(YOUNG * inertia / (DENSITY * area))
        load = -DENSITY * area * GRAVITY * quad(phi, 0.0, 1.0, epsabs=0, epsrel=1e-13)[0]
        mass = DENSITY * area * quad(lambda x: phi(x) ** 2, 0.0, 1.0, epsabs=0, epsrel=1e-13)[0]
        theta = 2.0 * math.atan(omega * dt / 2.0)
        total += load / (mass * omega**2) * (1.0 - math.cos(steps * theta)) * phi(1.0)
    return total


@pytest.mark.parametrize("modes", [1, 2])
def test_element_refinement_of_a_modally_reduced_cantilever_order_four(modes):
    """The suddenly loaded cantilever reduced to its lowest modes, meshed with 2 ... 16 elements, all
    runs at one dt: the tip deflection converges to that of the continuous beam's modes integrated
    with the same dt (``continuum_tip_deflection``) at order 4 in h, the order of the Hermite
    element's frequencies; the study's own Richardson reference (32 and 64 elements) finds the same
    limit."""
    dt, steps = 1e-4, 500

    def make_case(n):
        case = clamped_cantilever(n, modes)[0]
        case.probes = [("tip", "beam", np.array([1.0, 0.0]))]
        return case

    exact = continuum_tip_deflection(modes, dt, steps)
    assert exact < -5e-3  # about 10 mm down
    study = element_study(make_case, (2, 4, 8, 16), "tip.elastic_y", dt=dt, t_end=dt * steps,
                          reference=exact)
    assert np.allclose(study.h, 1.0 / np.array([2, 4, 8, 16])) and study.parameter == "h"
    orders = study.order("tip.elastic_y")
    assert abs(orders[-1] - 4.0) < 0.1 and np.all(orders > 3.3), study.table()
    richardson = element_study(make_case, (8, 16), "tip.elastic_y", dt=dt, t_end=dt * steps)
    assert abs(richardson.reference_values[0] - exact) < 1e-2 * study.errors[-1, 0], richardson.table()
    assert "Richardson extrapolation (order 4) of the runs with 32 elements and 64 elements" in richardson.table()


def test_element_refinement_refuses_what_it_cannot_refine():
    """A case whose beams do not take the element count asked for, a case without beams, one mesh,
    counts that do not increase: one-line refusals before any run."""
    fixed_mesh = lambda n: clamped_cantilever(3)[0]
    with pytest.raises(ValueError, match="body beam has 3 elements where 2 were asked for"):
        element_study(fixed_mesh, (2, 4))
    with pytest.raises(ValueError, match="the case has no flexible \\(beam\\) bodies to refine"):
        element_study(lambda n: oscillator(), (2, 4), "u")
    with pytest.raises(ConvergenceError, match="too few levels: 1 mesh gives no observed order"):
        element_study(lambda n: clamped_cantilever(n)[0], (2,), "beam.y")
    with pytest.raises(ValueError, match="must increase strictly"):
        element_study(lambda n: clamped_cantilever(n)[0], (4, 4), "beam.y")


def test_servo_input_order_two_at_inner_and_final_nodes():
    """u prescribed as A cos(w t) (w != omega): the input force is (k - m w^2) A cos(w t); read at an
    inner node (mean of the mid-step values) and at the end (extrapolated), both converge at order 2."""
    w = 3.0
    servo = Function(lambda t: [AMPLITUDE * math.cos(w * t)], lambda t: [-AMPLITUDE * w * math.sin(w * t)], 1)
    case = oscillator(servo)
    force = lambda t: (STIFFNESS - MASS * w**2) * AMPLITUDE * math.cos(w * t)
    for time in (0.5, 1.0):
        study = refinement_study(case, "input:u", levels=4, reference=force(time), time=time)
        assert np.all(np.abs(study.order("input:u") - 2.0) < 0.1), study.table()


def test_nm_logo_angle_order_two_from_successive_differences(case_path):
    case = load_case(case_path("nm_logo.toml"))
    study = refinement_study(case, "theta", levels=4, reference="differences")
    assert np.allclose(study.h, 0.05 / 2.0 ** np.arange(4))
    assert np.all(np.abs(study.order("theta") - 2.0) <= 0.15), study.table()


def test_hermite_beam_frequencies_order_four():
    """Cantilever, steel 10 x 10 mm, L = 1 m: relative frequency errors of modes 1-3 fall as h^4."""
    assert np.allclose(cantilever_roots(3), CANTILEVER_BETA_L, rtol=0, atol=1e-13)
    study = beam_frequency_study(1.0, Section.rectangle(0.01, 0.01), 2.1e11, 7850.0, elements=(2, 4, 8, 16))
    assert np.all(np.abs(study.orders[-1] - 4.0) < 0.1), study.table()
    assert np.all(np.abs(study.orders[1:] - 4.0) < 0.4), study.table()
    assert np.all(study.errors[-1] < 1e-4)


def test_round_off_errors_are_refused():
    """The energy error of a conservative case and a coordinate held constant by a servo are exact
    to round-off: no order, and a one-line reason that says so."""
    with pytest.raises(ConvergenceError, match="energy_error: errors at round-off") as caught:
        refinement_study(oscillator(), "energy_error", levels=3, reference="differences")
    assert "\n" not in str(caught.value)
    held = oscillator(Constant([AMPLITUDE]))
    with pytest.raises(ConvergenceError, match="u: errors at round-off"):
        refinement_study(held, "u", levels=3)
    # non-strict: the quantities that converge keep their orders, the others carry the reason
    study = refinement_study(oscillator(), ["u", "energy_error"], levels=3, strict=False)
    assert set(study.problems) == {"energy_error"}
    assert np.all(np.abs(study.order("u") - 2.0) < 0.02)
    with pytest.raises(ConvergenceError, match="round-off"):
        study.order("energy_error")
    with pytest.raises(ConvergenceError, match="round-off"):
        observed_orders([0.1, 0.05, 0.025], [1e-3, 1e-14, 1e-16], scale=1.0)


def test_non_monotone_and_too_few_levels_are_refused():
    with pytest.raises(ConvergenceError, match="non-monotone refinement: the error does not decrease "
                                                "from 0.0002 at h = 0.05 to 0.0003 at h = 0.025"):
        observed_orders([0.1, 0.05, 0.025], [1e-3, 2e-4, 3e-4], scale=1.0)
    with pytest.raises(ConvergenceError, match="non-monotone"):
        observed_orders([0.1, 0.05], [1e-3, 1e-3])
    with pytest.raises(ConvergenceError, match="too few levels"):
        observed_orders([0.1], [1e-3])
    with pytest.raises(ConvergenceError, match="too few levels"):
        refinement_study(oscillator(), "u", levels=2, reference="differences")
    with pytest.raises(ValueError, match="decrease strictly"):
        observed_orders([0.1, 0.2], [1e-3, 1e-4])
    # any refinement ratio: e = C h^p is recovered exactly
    h = np.array([0.3, 0.1, 0.04, 0.01])
    assert np.allclose(observed_orders(h, 7.0 * h**3), 3.0)


def test_unknown_quantity_is_named_before_any_run():
    with pytest.raises(ValueError, match="unknown quantity 'phi'.*known: u, mass.x"):
        refinement_study(oscillator(), "phi")
    with pytest.raises(ValueError, match="servo inputs are none"):
        refinement_study(oscillator(), "input:u")


def test_written_table_json_and_plot(tmp_path):
    study = convergence_benchmark(oscillator(), "u", levels=3, folder=tmp_path / "out", echo=None)
    paths = write_study(study, tmp_path / "again")
    data = json.loads(paths["json"].read_text())
    assert data["ok"] and data["dt"] == pytest.approx([0.1, 0.05, 0.025])
    assert data["quantities"]["u"]["orders"] == pytest.approx(study.order("u").tolist())
    table = paths["table"].read_text()  # by default the largest error over the time nodes all runs share
    assert "u (joint coordinate), value at t = " in table and "max error" in table
    assert "the largest over the 11 time nodes all runs share" in table and data["error"] == "max error"
    at_end = convergence_benchmark(oscillator(), "u", levels=3, time=1.0, folder=tmp_path / "end", echo=None)
    assert "u (joint coordinate) at t = 1" in at_end.table()
    assert paths["plot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "out" / "convergence.png").is_file()
    # a quantity without an order: the files are written, then the error is raised
    with pytest.raises(ConvergenceError, match="round-off") as caught:
        convergence_benchmark(oscillator(), ["u", "energy_error"], levels=3, folder=tmp_path / "bad", echo=None)
    assert caught.value.study is not None
    assert json.loads((tmp_path / "bad" / "convergence.json").read_text())["ok"] is False
