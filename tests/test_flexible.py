"""Flexible bodies under the floating frame of reference in director form (``femdyn.beam.ffr``):
conservation, the rigid limit, the 3-PRR of 003 (rigid / Rayleigh-Ritz / FEM) and the spin-up beam."""
import numpy as np
import pytest

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.io.beams import Options
from femdyn.io.case import load_case
from femdyn.joints.trajectories import SpinUp
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.kinematics import point_matrix

STEEL = dict(young=2.1e11, rho=7850.0)
TIGHT = dict(tolerance=1e-13)  # Newton tolerance of the conservation tests


def free_beam(stiffening, modes=None):
    """A free 1 m steel beam (10 x 10 mm), spinning and bending: no loads, no joints."""
    beam = BeamBody.straight(1.0, 6, Section.rectangle(0.01, 0.01), STEEL["young"], STEEL["rho"], modes=modes)
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=stiffening)
    model = b.build()
    q, v = place(model, {"beam": {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2],
                                  "angular_velocity": 15.0}}, {})
    f = model.flexible[0]
    v[f.elastic] = 0.05 * np.sin(np.arange(f.n_elastic) + 1.0)  # elastic motion ...
    v[f.carriers] = v[f.elastic, None] * q[f.rigid[2:4]]  # ... with consistent carriers c' = q' d_1
    return model, prepare(model, q, v)


@pytest.mark.parametrize("stiffening, modes", [(True, None), (False, None), (False, 4)],
                         ids=["fem-stiffening", "fem-linear", "modal"])
def test_free_flexible_body_conserves_energy_and_momenta(stiffening, modes):
    """Everything in the director form is at most quadratic (module docstring of ``flexible``), so
    the energy-momentum scheme conserves H, p and L to the Newton tolerance, for any dt."""
    model, setup = free_beam(stiffening, modes)
    r = simulate(setup, SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    elastic = r.q[:, model.flexible[0].elastic]
    assert np.abs(elastic).max() > 1e-5  # the beam really bends
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    p_scale = np.sqrt(2.0 * r.kinetic.max() * model.bodies[0].mass)
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-11 * p_scale
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * np.abs(r.angular_momentum[0]).max()
    assert r.residual.max() <= 1e-12


@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
def test_elastic_tangent_is_the_derivative_of_the_discrete_force(stiffening):
    """The elastic forces' Newton entries are d Fbar(qa, qb)/d qb (central differences), for a step
    (qa != qb, the energy-momentum form) and at one point (qa is qb: generalized-alpha's continuous
    force F(q) = Fbar(q, q), whose derivative is twice the qb-derivative)."""
    model, setup = free_beam(stiffening)
    f = model.forces[[type(g).__name__ for g in model.forces].index("BeamElasticity")]
    rng = np.random.default_rng(3)
    qa = setup.q0[f.dofs] + 1e-3 * rng.standard_normal(f.dofs.shape)
    qb = qa + 1e-3 * rng.standard_normal(f.dofs.shape)
    rows, cols = f.tangent_pattern()
    n = f.dofs.shape[1]

    def dense(values):
        T = np.zeros((n, n))
        np.add.at(T, (rows, cols), values[0])
        return T

    def derivative(force, q, h=1e-7):
        return np.stack([(force(q + h * e) - force(q - h * e))[0] / (2 * h) for e in np.eye(n)[:, None, :]], axis=1)

    step = derivative(lambda x: f.discrete_force(qa, x, 0.0, 1e-3), qb)
    point = derivative(lambda x: f.discrete_force(x, x, 0.0, 1e-3), qb)
    scale = np.abs(step).max()
    np.testing.assert_allclose(dense(f.tangent_values(qa, qb, 0.0, 1e-3)), step, atol=1e-7 * scale)
    np.testing.assert_allclose(2.0 * dense(f.tangent_values(qb, qb, 0.0, 1e-3)), point, atol=1e-7 * scale)


def test_rigid_limit_reproduces_the_rigid_director_body():
    """A beam body with every elastic coordinate removed (modes = 0) is a rigid director body whose
    frame sits at the beam's end; a rigid body at the centre of mass with the same Euler tensor
    (m L^2/12 along the axis, rho I L across) must move identically: the two descriptions differ by a
    constant linear change of coordinates, under which the scheme is invariant."""
    L, section = 0.8, Section.rectangle(0.02, 0.01)
    beam = BeamBody.straight(L, 4, section, STEEL["young"], STEEL["rho"], modes=0)
    inv = beam.invariants
    np.testing.assert_allclose(inv.first_moment, [inv.mass * L / 2, 0.0], atol=1e-15)
    pendulums = []
    for flexible in (True, False):
        b = ModelBuilder(2)
        if flexible:
            b.add_beam("link", beam)
            point = [0.0, 0.0]
        else:
            euler = [inv.mass * L**2 / 12, inv.second_moment[1, 1]]
            b.add_body("link", inv.mass, euler)
            point = [-L / 2, 0.0]
        b.add_joint("pivot", "revolute", "ground", "link", point2=point, angle="theta")
        b.set_gravity([0.0, -9.81])
        model = b.build()
        q, v = place(model, {}, {"pivot": {"angle": -0.3, "angle_rate": 2.0}})
        r = simulate(prepare(model, q, v), SolverSettings(0.01, 1.0, **TIGHT))
        assert r.complete, r.message
        tip = (point_matrix([[L, 0.0]] if flexible else [[L / 2, 0.0]])[0] @ r.q[:, :6].T).T
        pendulums.append((tip, r.q[:, model.joint_coordinates["theta"]], r.total))
    (tip_f, theta_f, H_f), (tip_r, theta_r, H_r) = pendulums
    assert np.abs(tip_f - tip_r).max() <= 1e-12 * L
    assert np.abs(theta_f - theta_r).max() <= 1e-12
    np.testing.assert_allclose(H_f, H_r, rtol=1e-12)


def effector(case_options, t_end, dt=1e-3, case="3prr_sine.toml"):
    """Deformed and rigid-reference world position of the 3-PRR end effector over time."""
    from pathlib import Path
    c = load_case(Path(__file__).resolve().parent.parent / "cases" / case, case_options)
    setup = prepare(c.model, c.q0, c.v0)
    r = simulate(setup, SolverSettings(dt, t_end))
    assert r.complete, r.message
    name, body, X = c.probes[0]
    b = [x for x in c.model.bodies if x.name == body][0]
    deformed = b.flexible.positions(r.q, [X])[:, 0]
    rigid = (point_matrix([X])[0] @ r.q[:, b.offset:b.offset + 6].T).T
    return r, deformed, deformed - rigid


def test_3prr_flexible_converges_to_rigid_as_E_grows():
    """As E grows the elastic part vanishes like 1/E and the flexible trajectory tends to the rigid
    one (the rigid limit of the same uniform beams)."""
    _, rigid, _ = effector(Options(model="rigid"), 0.06)
    gaps = []
    for scale in (1.0, 10.0, 100.0):
        _, x, _ = effector(Options(model="fem", elements=2).with_scale("young", scale), 0.06)
        gaps.append(np.abs(x - rigid).max())
    ratios = np.array(gaps[:-1]) / np.array(gaps[1:])
    print("gap to rigid", gaps, "ratios per decade of E", ratios)
    assert gaps[0] > 1e-7  # the links really bend
    assert np.all((ratios > 5.0) & (ratios < 20.0))


def test_3prr_rayleigh_ritz_and_fem_agree_and_fem_converges():
    """003 section 8.3: Rayleigh-Ritz and FEM elastic end-effector displacements agree in sign and
    order of magnitude; FEM converges under mesh refinement (order reported)."""
    t_end = 0.1
    _, _, rr = effector(Options(model="rayleigh-ritz"), t_end)
    fem = {n: effector(Options(model="fem", elements=n), t_end)[2] for n in (2, 4, 8, 16)}
    for a in range(2):
        ratio = np.abs(fem[4][:, a]).max() / np.abs(rr[:, a]).max()
        assert 0.2 < ratio < 5.0, ratio
        assert np.sign(fem[4][-1, a]) == np.sign(rr[-1, a])
    diffs = [np.abs(fem[2 * n] - fem[n]).max() for n in (2, 4, 8)]
    orders = np.log2(np.array(diffs[:-1]) / np.array(diffs[1:]))
    print("FEM refinement differences", diffs, "observed orders", orders)
    assert diffs[2] < diffs[1] < diffs[0]
    assert np.all(orders > 1.0)


def spin_up(stiffening, t_end):
    """Kane's spin-up beam (L = 10 m, A = 4e-4 m^2, I = 2e-7 m^4, E = 70 GPa, rho = 3000 kg/m^3,
    6 rad/s reached in 15 s) clamped to a hub whose angle is prescribed by a servo."""
    beam = BeamBody.straight(10.0, 4, Section(4e-4, 2e-7), 7e10, 3000.0)
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=stiffening)
    b.add_joint("hub", "revolute", "ground", "beam", angle="theta")
    b.add_servo_coordinate("spin", "theta", SpinUp(6.0, 15.0))
    b.set_inputs(["theta"])
    model = b.build()
    q, v = place(model, {}, {"hub": {"angle": 0.0}})
    r = simulate(prepare(model, q, v), SolverSettings(0.02, t_end))
    tip = r.q[:, model.flexible[0].elastic] @ beam.shape_at([[10.0, 0.0]])[0, 1]
    return r, tip


def test_spin_up_needs_geometric_stiffening():
    """With geometric stiffening the tip deflection of the spin-up beam stays bounded and small
    (about 0.4 m of 10 m while spinning up, then oscillating about the stretched shape); linear FFR
    diverges once the spin rate passes the first bending frequency (3.8 rad/s), the known failure of
    linear FFR for fast rotation."""
    r, tip = spin_up(True, 12.0)
    assert r.complete, r.message
    assert np.abs(tip).max() < 0.6
    r_lin, tip_lin = spin_up(False, 12.0)
    assert np.abs(tip_lin).max() > 10.0 or not r_lin.complete
