"""Servos on the reference motion of flexible bodies (``on = "frame"``, [Seifried2014]): the servo holds
the point phi + X_a d_a that a body's floating frame carries, not the deformed material point. Where the
frames move with the inputs (collocated), the servo run gives the inputs of the rigid path with the
links bending under them: they converge to the rigid-link inputs like 1/E, the frame follows its path
to round-off, the elastic deflection stays bounded and scales like 1/E, and the energy-momentum scheme
balances the input work against the change of energy to round-off (001 eq. 14). The zero-dynamics
diagnosis tells the collocated frames from the non-collocated ones."""
import numpy as np
import pytest
from shared import CASES

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.integrators.time_loop import simulate
from femdyn.integrators.zero_dynamics import zero_dynamics
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.joints.trajectories import Circle, Harmonic, SmoothRampAngle
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place
from femdyn.numerics import kinematics as kin
from femdyn.studies.run import prepare_case

FACTORS = (1.0, 10.0, 100.0, 1000.0)  # Young's modulus times these
LINK = CASES / "flexible_link_reference.toml"
PRR = CASES / "3prr_reference.toml"


def points(model, q, body, X):
    """World positions over time of the frame point phi + X_a d_a and of the material point X of
    ``body`` (name), (steps, dim) each."""
    i = [b.name for b in model.bodies].index(body)
    dofs, C = model.material_point(i, np.asarray(X, dtype=float))[:2]
    return q[:, model.body_dofs(i)] @ kin.point_matrix(X)[0].T, q[:, dofs] @ C.T


def orders(values):
    """log10 of the ratios of successive values of a refinement by 10 in E: the observed orders in 1/E."""
    v = np.asarray(values)
    return np.log10(v[:-1] / v[1:])


def runs(path, t_end, static):
    """The rigid-link run and the runs with E x FACTORS of the case at ``path`` to ``t_end``: (model,
    results) each, from the static equilibrium under gravity with the servos held if ``static`` (the
    rigid limit of a flexible body released undeformed under gravity is a vibration whose elastic force
    does not vanish as E grows), else from the case's initial state."""
    out = []
    for options in [Options(model="rigid")] + [Options(scale={"young": f}) for f in FACTORS]:
        case = load_case(path, options)
        setup = prepare_case(case)
        if static:
            q = static_equilibrium(setup).q
            setup = prepare(case.model, q, np.zeros_like(q))
        out.append((case.model, simulate(setup, case.settings.replace(t_end=t_end)), setup))
    return out


@pytest.fixture(scope="module")
def link():
    return runs(LINK, 2.0, static=False)


@pytest.fixture(scope="module")
def prr():
    return runs(PRR, 1.0, static=True)


def test_link_frame_servo_is_collocated_with_the_clamped_links_modes_as_zero_dynamics(link, tmp_path):
    """Fixed-free: the frame is clamped to the hub section, so its tip point's polar angle is the hub
    angle. Held, the link is a clamped-free beam: the slowest zero is its first bending frequency,
    omega_1 = 1.8751^2 sqrt(EI / (rho A L^4)). With the frame the chord (pinned-pinned) the frame tip is
    the material tip: not collocated, non-minimum phase, the zeros of the material-tip servo."""
    z = zero_dynamics(link[1][2])
    assert z.collocated == [True] and z.minimum_phase and np.all(z.omega2 > 0)
    E, rho, b, h, L = 70e9, 2700.0, 0.02, 0.01, 1.0
    omega1 = 1.8751040687**2 * np.sqrt(E * b * h**3 / 12 / (rho * b * h * L**4))
    assert abs(np.sqrt(z.omega2[0]) - omega1) / omega1 < 1e-4
    text = LINK.read_text()
    variants = {"chord": text.replace("h = 0.01}", 'h = 0.01, reference = "pinned-pinned"}'),
                "material": text.replace('on = "frame"\n', "")}
    found = {}
    for name, variant in variants.items():
        assert variant != text
        (tmp_path / f"{name}.toml").write_text(variant)
        found[name] = zero_dynamics(prepare_case(load_case(tmp_path / f"{name}.toml")))
        assert found[name].collocated == [False] and not found[name].minimum_phase
    assert np.allclose(found["chord"].sigma[:4], found["material"].sigma[:4], rtol=1e-6)


def test_link_frame_servo_gives_the_rigid_torque_as_E_grows(link):
    """The hub torque converges to the rigid link's at order 1 in 1/E over the whole run (the turn
    and the hold after it), the frame turns on its ramp to round-off, the work of the torque is the
    change of energy to round-off."""
    (rigid, r0, _), flexible = link[0], link[1:]
    u0 = r0.node_inputs(rigid.input_rows)
    ramp = SmoothRampAngle(0.5, 0.5, 1.0, 1.0)
    target = np.array([ramp.value(t)[0] for t in r0.t])
    errors = []
    for model, r, _ in flexible:
        assert r.complete and np.array_equal(r.t, r0.t)
        errors.append(np.abs(r.node_inputs(model.input_rows) - u0).max())
        frame, _ = points(model, r.q, "link", [1.0, 0.0])
        assert np.abs(np.arctan2(frame[:, 1], frame[:, 0]) - target).max() < 1e-13
        assert np.abs(r.energy_balance).max() < 1e-11 * np.abs(r.total).max()
    assert errors[0] < 0.1 * np.abs(u0).max()
    assert np.all(np.abs(orders(errors) - 1.0) < 0.1), errors


def test_link_elastic_deflection_is_bounded_and_scales_like_1_over_E(link):
    """The tip's deflection from the frame's tip point: largest during the turn, the free vibration of
    the clamped link after it does not grow (energy conserved), and its size goes like 1/E."""
    largest = []
    for model, r, _ in link[1:]:
        frame, material = points(model, r.q, "link", [1.0, 0.0])
        deflection = np.linalg.norm(material - frame, axis=1)
        turn, hold = deflection[r.t <= 1.0], deflection[r.t > 1.0]
        assert hold.max() <= turn.max()
        assert deflection[r.t > 1.5].max() <= 1.2 * deflection[(r.t > 1.0) & (r.t <= 1.5)].max()
        largest.append(deflection.max())
    assert np.all(np.abs(orders(largest) - 1.0) < 0.05), largest


def test_3prr_frame_servos_on_chords_are_collocated_fixed_free_frames_are_not(prr, tmp_path):
    """Pinned-held links (axially rigid chords): the frames are the chords between the joints, which move as the rigid
    3-PRR the sliders drive: collocated, minimum phase. Fixed-free: the platform frame is clamped to its
    section at D, which leg 2 moves by bending: not collocated, non-minimum phase."""
    z = zero_dynamics(prr[1][2])
    assert z.collocated == [True, True] and z.minimum_phase
    text = PRR.read_text()
    variant = text.replace(', reference = "pinned-held"}', "}")
    assert variant != text
    (tmp_path / "clamped.toml").write_text(variant)
    z = zero_dynamics(prepare_case(load_case(tmp_path / "clamped.toml")))
    assert z.collocated == [False, False] and not z.minimum_phase


def test_3prr_frame_servos_give_the_rigid_slider_forces_as_E_grows(prr):
    """From the static equilibrium under gravity: the slider forces converge to the rigid-link forces at
    order 1 in 1/E at every time node but the last, whose inputs are the consistent multipliers of the
    last state alone (not the mean of two steps'): there the stiff modes' step-to-step alternation that
    the energy-momentum scheme leaves unresolved (omega dt ~ 5-170) is not averaged out, about 4e-4 N
    whatever E. The frame's middle point runs on its circle and the frame stays level to round-off; the
    slider forces' work is the change of energy to round-off."""
    (rigid, r0, _), flexible = prr[0], prr[1:]
    u0 = r0.node_inputs(rigid.input_rows)
    circle = Circle(0.02, 2 * np.pi, 0.5)
    path = np.array([circle.value(t) - circle.value(0.0) for t in r0.t])
    errors = []
    for model, r, _ in flexible:
        assert r.complete and np.array_equal(r.t, r0.t)
        errors.append(np.abs(r.node_inputs(model.input_rows) - u0)[:-1].max())
        frame, _ = points(model, r.q, "platform", [0.1575, 0.0])
        assert np.abs(frame - frame[0] - path).max() < 1e-14
        d1 = r.q[:, model.body_dofs([b.name for b in model.bodies].index("platform"))[2:4]]
        assert np.abs(d1[:, 1]).max() < 1e-14
        assert np.abs(r.energy_balance).max() < 1e-11 * np.abs(r.total).max()
    assert errors[0] < 1e-5 * np.abs(u0).max()
    assert np.all(np.abs(orders(errors) - 1.0) < 0.05), errors


def test_3prr_platform_deflection_is_bounded_and_scales_like_1_over_E(prr):
    """The platform's mid-span against its chord: the same size over the second half of the run as over
    the first (no growth), and like 1/E."""
    largest = []
    for model, r, _ in prr[1:]:
        frame, material = points(model, r.q, "platform", [0.1575, 0.0])
        deflection = np.linalg.norm(material - frame, axis=1)
        first, second = deflection[r.t <= 0.5], deflection[r.t > 0.5]
        assert second.max() <= 1.5 * first.max()
        largest.append(deflection.max())
    assert np.all(np.abs(orders(largest) - 1.0) < 0.05), largest


def test_segmented_link_frame_servo_holds_the_link_frame(tmp_path):
    """On a link in two floating-frame segments the frame point is the link frame's (the first
    segment's, clamped to the hub): collocated as for one body; the material tip goes to the second
    segment and has the single body's slowest zero."""
    single = LINK.read_text()
    segmented = single.replace("h = 0.01}", "h = 0.01, segments = 2}")
    found = {}
    for name, variant in (("frame", segmented), ("material", segmented.replace('on = "frame"\n', "")),
                          ("single", single.replace('on = "frame"\n', ""))):
        (tmp_path / f"{name}.toml").write_text(variant)
        found[name] = zero_dynamics(prepare_case(load_case(tmp_path / f"{name}.toml")))
    assert found["frame"].collocated == [True] and found["frame"].minimum_phase
    assert found["material"].collocated == [False]
    assert abs(found["material"].sigma[0] - found["single"].sigma[0]) < 1e-3 * found["single"].sigma[0]


def gantry(factor, axial, on="frame", rigid=False):
    """A spatial Cartesian gantry: sliders along x, y, z in series (slides x, y, z, the inputs), a 0.5 m
    aluminium arm (20 x 10 mm) welded to the last one along x, no gravity; the servo moves the point
    (0.5, 0, 0) of the arm's frame (``on``) on a smooth 3D loop at 1 Hz. Its model and prepared setup;
    E x ``factor``, the arm's elements of the ``axial`` shape (cubic: world vectors, linear: carriers),
    ``rigid``: its rigid limit (no elastic coordinates)."""
    b = ModelBuilder(3)
    for k in range(3):
        b.add_body(f"slider{k}", 1.0, [1e-3] * 3)
    for k, (body1, body2, slide) in enumerate((("ground", "slider0", "x"), ("slider0", "slider1", "y"),
                                               ("slider1", "slider2", "z"))):
        b.add_joint(slide, "prismatic", body1, body2, axis=np.eye(3)[k], slide=slide)
    b.add_beam("arm", BeamBody.straight(0.5, 4, Section.rectangle(0.02, 0.01), 70e9 * factor, 2700.0, dim=3,
                                        axial=axial, modes=0 if rigid else None, poisson=0.33), stiffening=False)
    b.add_joint("weld", "fixed", "slider2", "arm")
    b.add_servo_point("loop", "arm", [0.5, 0.0, 0.0], Harmonic([0.05, 0.0, 0.02], [0.0, 0.05, 0.0], 2 * np.pi, 0.5),
                      on=on)
    b.set_inputs(["x", "y", "z"])
    model = b.build()
    q, v = place(model, {}, {s: {"slide": 0.0} for s in "xyz"})
    return model, prepare(model, q, v)


@pytest.mark.parametrize("axial", ["cubic", "linear"])
def test_spatial_frame_servo_gives_the_rigid_inputs_as_E_grows(axial):
    """In space, on a world-vector (cubic) and a carrier (linear) arm: the frame point is collocated with
    the slides (the material tip is not, non-minimum phase), the slider forces converge to the rigid
    arm's at order 1 in 1/E (every node but the last, see the 3-PRR), the frame point follows its loop to
    round-off and the energy balance holds to round-off."""
    settings = SolverSettings(dt=0.005, t_end=1.5)
    rigid, setup = gantry(1.0, axial, rigid=True)
    r0 = simulate(setup, settings)
    u0 = r0.node_inputs(rigid.input_rows)
    loop = Harmonic([0.05, 0.0, 0.02], [0.0, 0.05, 0.0], 2 * np.pi, 0.5)
    path = np.array([loop.value(t) for t in r0.t])
    errors = []
    for factor in FACTORS:
        model, setup = gantry(factor, axial)
        if factor == 1.0:
            z = zero_dynamics(setup)
            assert z.collocated == [True] and z.minimum_phase
            z = zero_dynamics(gantry(factor, axial, on="material")[1])
            assert z.collocated == [False] and not z.minimum_phase
        r = simulate(setup, settings)
        assert r.complete
        errors.append(np.abs(r.node_inputs(model.input_rows) - u0)[:-1].max())
        frame, _ = points(model, r.q, "arm", [0.5, 0.0, 0.0])
        assert np.abs(frame - frame[0] - path).max() < 1e-13
        assert np.abs(r.energy_balance).max() < 1e-11 * np.abs(r.total).max()
    assert errors[0] < 1e-3 * np.abs(u0).max()
    assert np.all(np.abs(orders(errors) - 1.0) < 0.05), errors


def test_builder_refuses_a_bad_on_or_frame_point():
    """From Python: a ModelError naming the field, for an unknown ``on``, a material angle and a frame
    point with the wrong number of components."""
    b = ModelBuilder(2)
    ramp = SmoothRampAngle(0.5, 0.5, 1.0, 1.0)
    for call, field in ((lambda: b.add_servo_point("s", "link", [1.0, 0.0], ramp, on="chord"), "servo 's'.on"),
                        (lambda: b.add_servo_angle("s", "link", ramp, on="material"), "servo 's'.on"),
                        (lambda: b.add_servo_polar("s", "link", [1.0, 0.0, 0.0], ramp, on="frame"), "servo 's'.point")):
        with pytest.raises(ModelError) as err:
            call()
        assert err.value.field == field
