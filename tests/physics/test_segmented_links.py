"""Segmented links (``femdyn.model.segments``): a beam body split into k floating-frame segments welded end
to end. A free segmented link spinning and bending conserves energy and both momenta to round-off (2D and
3D); a cantilever under a dead tip load converges to the elastica (a shooting solution written here,
checked against Mattiasson's table) and under a tip moment to the circular arc, full circle included,
both at order 2 in k, in the plane and in space; the segmented 3-PRR moves as the single one and
tends to the rigid one as E grows."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
from shared import CASES, TIGHT
from test_spatial_beams import spinning

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.modes import natural_modes
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.integrators.time_loop import simulate
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.post.probes import probe_table
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place
from femdyn.studies.run import run_case

E, NU, RHO = 2.1e11, 0.3, 7850.0
SECTION = Section.rectangle(0.01, 0.02)


def beam(dim, n, length=1.0):
    return BeamBody.straight(length, n, SECTION, E, RHO, dim=dim, axial="cubic", poisson=NU)


def free_link(dim, segments, n=6, stiffening=True):
    """A free link of n elements in ``segments`` segments, spinning about an axis that is not principal and
    bending (transverse nodal velocities (x^2 - x^3/3) across, projected onto the welds)."""
    b = ModelBuilder(dim)
    b.add_beam("link", beam(dim, n), stiffening=stiffening, segments=segments)
    model = b.build()
    q, v = place(model, {"link": spinning(dim)}, {})
    d = q[model.worlds[0].d].reshape(dim, dim)  # rows d_a of the link frame (the first segment's)
    across = d[1] + (0.5 * d[2] if dim == 3 else 0.0)
    for world in model.worlds:
        x = world.beam.nodes[1:, 0]
        held = world.w[1:, 0] >= 0
        v[world.w[1:][held]] = (2.0 * (x**2 - x**3 / 3))[held, None] * across
        v[world.s[1:][held]] = (2.0 * (2 * x - x**2))[held, None] * across
    return model, prepare(model, q, v)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("segments", [2, 3])
def test_free_segmented_link_conserves_energy_and_momenta(dim, segments):
    """The welds are fixed joints (bilinear rows through the section carriers of the segment ends), the
    segments world-vector beams (constant mass, quadratic invariant strains, Gonzalez's discrete
    gradient): the energy-momentum scheme conserves H, p and L to the Newton tolerance (000 eqs. 5-7,
    26), as for one body."""
    model, setup = free_link(dim, segments)
    assert len(model.bodies) == segments and len(model.joints) == segments - 1
    r = simulate(setup, SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    elastic = np.concatenate([w.elastic_coordinates(r.q) for w in model.worlds], axis=1)
    assert np.abs(elastic).max() > 1e-4  # the link really bends
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    mass = sum(body.mass for body in model.bodies)
    p_scale = np.sqrt(2.0 * r.kinetic.max() * mass)
    assert np.abs(r.momentum - r.momentum[0]).max() <= 1e-11 * p_scale
    L = np.linalg.norm(np.atleast_2d(r.angular_momentum.T).T, axis=-1) if dim == 3 else np.abs(r.angular_momentum)
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * L.max()
    assert r.residual.max() <= 1e-12


def loaded_in_steps(model, q, steps):
    """The static equilibrium (``integrators.statics``) under loads f(t) = t ... reached in ``steps`` equal
    increments of t up to 1, each Newton iteration started from the secant extrapolation of the last
    two equilibria: (the model of the run, q at t = 1)."""
    setup = prepare(model, q, np.zeros(model.n))
    before = None
    for t in np.linspace(0.0, 1.0, steps + 1)[1:]:
        q = static_equilibrium(setup, t).q
        setup.q0 = q if before is None else 2.0 * q - before
        before = q
    return setup.model, q


def tip(model, q):
    """Position and tangent angle of the link's free end: the last segment's end node, its angle that
    of the segment's frame plus atan of the node's rotation d_2.s (the tangent of the centre line is
    d_1 + (d_2.s) d_2 there)."""
    world = model.worlds[-1]
    end = world.beam.nodes[-1]
    d = q[world.d].reshape(2, 2)
    return (world.positions(q[None], [end])[0, 0],
            np.arctan2(d[0, 1], d[0, 0]) + np.arctan(world.elastic_coordinates(q)[-1]))


SLENDER = Section(1e-4, 1e-11)  # radius of gyration 0.3 mm on a 1 m link: axial stretch P/EA ~ 1e-7 lambda


def cantilever(k, length=1.0):
    """A straight link of k elements in k segments along x, clamped at the origin (fixed-free: the first
    segment's frame is the clamped section)."""
    b = ModelBuilder(2)
    b.add_beam("link", BeamBody.straight(length, k, SLENDER, E, RHO, dim=2, axial="cubic"), stiffening=True,
               segments=k)
    b.add_joint("clamp", "fixed", "ground", "link")
    return b


def elastica(lam):
    """The inextensible elastica of a cantilever under a dead tip load P perpendicular to the undeformed
    beam, lambda = P L^2 / EI. With s = S/L in [0, 1] and theta(s) the tangent's angle turned towards the
    load, the bending moment at s is P L (x(1) - x(s)): EI theta' / L = P L (x(1) - x(s)), and with
    x' = cos(theta), y' = sin(theta) (lengths over L)

        theta'' = -lambda cos(theta),  theta(0) = 0,  theta'(1) = 0      (Mattiasson 1981, eq. 2)

    solved by shooting on kappa = theta'(0) in (0, lambda] (kappa = lambda x(1), x(1) <= 1) with
    ``solve_ivp`` (rtol 1e-12) and ``brentq``. Returns the tip deflection along the load y(1), the
    shortening 1 - x(1) and the tip rotation theta(1); Mattiasson's Table 1 gives 0.30172, 0.05643,
    0.46135 at lambda = 1; 0.49346, 0.16064, 0.78175 at 2; 0.71379, 0.38763, 1.21537 at 5; 0.81061,
    0.55500, 1.43029 at 10 (``test_elastica_shooting_reproduces_mattiasson``)."""
    def rhs(s, y):
        return [y[1], -lam * np.cos(y[0]), np.cos(y[0]), np.sin(y[0])]

    def shoot(kappa):
        return solve_ivp(rhs, (0.0, 1.0), [0.0, kappa, 0.0, 0.0], rtol=1e-12, atol=1e-14).y[:, -1]

    kappa = brentq(lambda kappa: shoot(kappa)[1], 1e-12, lam, xtol=1e-15, rtol=1e-15)
    theta, _, x, y = shoot(kappa)
    return np.array([y, 1.0 - x, theta])


MATTIASSON = {1: [0.30172, 0.05643, 0.46135], 2: [0.49346, 0.16064, 0.78175], 5: [0.71379, 0.38763, 1.21537],
              10: [0.81061, 0.55500, 1.43029]}


def test_elastica_shooting_reproduces_mattiasson():
    """The shooting solution agrees with Mattiasson's five-digit table (1981, Table 1)."""
    for lam, table in MATTIASSON.items():
        assert np.abs(elastica(lam) - table).max() <= 5e-6, lam


def orders(errors):
    return np.log2(errors[:-1] / errors[1:])


@pytest.mark.parametrize("lam", [1, 2, 5, 10])
def test_elastica_of_a_segmented_cantilever(lam):
    """A cantilever under a dead tip load across it, lambda = P L^2/EI = 1, 2, 5, 10: its tip deflection,
    shortening and rotation converge to the elastica (``elastica``) as the number k of floating-frame
    segments grows (one element each), at order 2 (each segment's sections turn by about theta/k
    relative to its frame; the strains measured in the frame are exact to O((theta/k)^2)), within 1e-3
    relative at k = 128 (measured: 3.2e-4 at lambda = 10, the shortening's). The load is raised in
    increments of t (a dead load: f(t) = t, constant direction)."""
    exact = elastica(lam)
    P, errors = lam * E * SLENDER.inertia, []
    ks = [16, 32, 64, 128]
    for k in ks:
        b = cantilever(k)
        b.add_point_force("link", [1.0, 0.0], [0.0, -P], lambda t: t)
        model = b.build()
        model, q = loaded_in_steps(model, place(model, {}, {})[0], 2 * lam)
        position, angle = tip(model, q)
        errors.append(np.abs(np.array([-position[1], 1.0 - position[0], -angle]) / exact - 1.0))
    errors = np.array(errors)  # (k, component)
    print(f"lambda = {lam}: relative errors (deflection, shortening, rotation) at k = {ks}:\n{errors}\n"
          f"orders {orders(errors)}")
    assert errors[-1].max() <= 1e-3
    assert np.all(np.abs(orders(errors)[1:] - 2.0) <= 0.15)


def test_a_tip_moment_bends_a_segmented_cantilever_into_a_circular_arc():
    """A pure tip moment M bends a cantilever into an arc of curvature M/EI (Euler-Bernoulli, exact for
    the inextensible Kirchhoff rod): with phi = M L/EI the tip sits at L (sin(phi), 1 - cos(phi))/phi
    and its section is turned by phi -- for phi = 2 pi a full circle, the tip back at the clamp. The
    moment is a torque on the augmented angle of a revolute joint between the tip and a carriage that
    slides freely in x and y (two prismatic pairs, no rotation): a couple, no force. Converges as the
    segments k grow at order 2 (measured: tip position errors at k = 16, 32, 64, 128 of 1.9e-3, 4.9e-4,
    1.2e-4, 3.1e-5 L at phi = 1; 0.047, 0.013, 0.0032, 8.0e-4 L at pi; 0.146, 0.048, 0.013, 0.0032 L at
    2 pi, orders 1.62, 1.91, 1.98; the rotation's relative errors alike)."""
    L = 1.0
    for phi in (1.0, np.pi, 2.0 * np.pi):
        exact = L * np.array([np.sin(phi), 1.0 - np.cos(phi)]) / phi
        errors = []
        for k in (16, 32, 64, 128):
            b = cantilever(k, L)
            for slider in ("x", "y"):
                b.add_body(slider, 1.0, [1.0, 1.0])
            b.add_joint("along x", "prismatic", "ground", "x", point1=[L, 0.0], slide="ux")
            b.add_joint("along y", "prismatic", "x", "y", axis=[0.0, 1.0], slide="uy")
            b.add_joint("hand", "revolute", "y", "link", point2=[L, 0.0], angle="turn")
            b.add_joint_load("turn", lambda t: t * phi * E * SLENDER.inertia / L)
            model = b.build()
            q, _ = place(model, {"x": {"position": [L, 0.0]}, "y": {"position": [L, 0.0]}}, {})
            model, q = loaded_in_steps(model, q, int(np.ceil(8 * phi)))
            position, angle = tip(model, q)
            turn = q[model.joint_coordinates["turn"]]  # the joint's angle: the tip section's, unwrapped
            angle += 2.0 * np.pi * np.round((turn - angle) / (2.0 * np.pi))
            assert abs(turn - angle) <= 1e-12
            errors.append([np.abs(position - exact).max() / L, abs(angle / phi - 1.0)])
        errors = np.array(errors)
        print(f"phi = {phi:.4f}: tip position error / L and rotation error at k = 16 .. 128:\n{errors}\n"
              f"orders {orders(errors)}")
        assert np.all(np.diff(errors, axis=0) < 0) and np.all(np.abs(orders(errors)[-1] - 2.0) <= 0.1)
        assert errors[-1].max() <= 5e-3


def test_a_segmented_3prr_moves_as_the_single_one():
    """Small deflections: the 3-PRR (cases/3prr_sine.toml, fem, 4 elements per link, its own step and
    integrator) with every link in 2 or 4 segments (``--segments``) moves as with single links: the FFR
    is exact to O(theta^2) relative to each frame, and the segmented link has the single link's mass
    (the centre line's, plus the sections' rotary inertia turning with the link frame): the end effector
    and the sliders agree to 1e-9 m and rad (measured 4e-12 to 4.3e-10, the effector's angle) over
    0.3 s, while the links' elastic displacements are 1.7e-6 m. With 1 segment the run is the single
    link's, bit for bit."""
    runs = {}
    for segments in (None, 1, 2, 4):
        case = load_case(CASES / "3prr_sine.toml", Options(segments=segments), overrides={"solver.t_end": 0.3})
        assert len(case.model.bodies) == 7 + 4 * ((segments or 1) - 1)
        r = run_case(case).results
        assert r.complete, r.message
        columns = probe_table(case.model, case.probes, r.q)
        if segments is None:  # the links do bend
            assert np.abs(columns["effector.elastic_y"]).max() > 1e-6
        runs[segments] = np.column_stack([columns["effector.x"], columns["effector.y"], columns["effector.angle"],
                                          *(r.q[:, case.model.joint_coordinates[s]] for s in ("s1", "s2", "s3"))])
    assert np.array_equal(runs[1], runs[None])  # one segment: the link itself, bit for bit
    for segments in (2, 4):
        gap = np.abs(runs[segments] - runs[None]).max(axis=0)
        print(f"{segments} segments: largest differences (x, y, angle, s1, s2, s3) {gap}")
        assert gap.max() <= 1e-9


@pytest.mark.parametrize("axis", [1, 2], ids=["across d2", "across d3"])
def test_elastica_of_a_segmented_spatial_cantilever(axis):
    """The spatial construction (welds holding position and section orientation, twist included): a 3D
    cantilever under a dead tip load along d_2 or d_3, lambda = P L^2/EI = 2 with the I of that bending
    plane (I_z = 1e-11, I_y = 2e-11 m^4), bends in that plane into the planar elastica, at order 2 in the
    segments (measured: relative errors 1.2e-3 .. 2.5e-3 at k = 32, 3.2e-4 .. 6.4e-4 at 64)."""
    section = Section(1e-4, 1e-11, iy=2e-11, j=1e-11)
    EI = E * (section.iz if axis == 1 else section.iy)
    exact, errors = elastica(2.0), []
    for k in (32, 64):
        b = ModelBuilder(3)
        b.add_beam("link", BeamBody.straight(1.0, k, section, E, RHO, dim=3, axial="cubic", poisson=NU),
                   stiffening=True, segments=k)
        b.add_joint("clamp", "fixed", "ground", "link")
        b.add_point_force("link", [1.0, 0.0, 0.0], -2.0 * EI * np.eye(3)[axis], lambda t: t)
        model = b.build()
        model, q = loaded_in_steps(model, place(model, {}, {})[0], 4)
        world = model.worlds[-1]
        position = world.positions(q[None], [world.beam.nodes[-1]])[0, 0]
        tangent = q[world.d][:3] + q[world.s[-1]]  # d_1 + s at the end node
        assert np.abs(np.delete(position, [0, axis])).max() < 1e-12  # in the plane of the load
        angle = np.arctan2(-tangent[axis], tangent[0])
        errors.append(np.abs(np.array([-position[axis], 1.0 - position[0], angle]) / exact - 1.0))
    errors = np.array(errors)
    print(f"3D, load along d_{axis + 1}: relative errors at k = 32, 64:\n{errors}\norders {orders(errors)}")
    assert errors[-1].max() <= 1e-3
    assert np.all(np.abs(orders(errors) - 2.0) <= 0.1)


def test_segmented_3prr_tends_to_the_rigid_one_as_E_grows():
    """The rigid limit: as E grows the segments' elastic parts vanish like 1/E, and the 3-PRR with every
    link in 2 segments (2 elements each) tends to the rigid model (``flexible.model = "rigid"``: one
    body per link, the segments ignored) -- its end effector's gap falls about 10x per decade of E
    (measured 1.9e-7, 1.8e-8, 1.8e-9 m at E x 1, 10, 100)."""
    def effector(options):
        case = load_case(CASES / "3prr_sine.toml", options, overrides={"solver.t_end": 0.06, "solver.dt": 1e-3})
        r = run_case(case).results
        assert r.complete, r.message
        columns = probe_table(case.model, case.probes, r.q)
        return len(case.model.bodies), np.column_stack([columns["effector.x"], columns["effector.y"]])

    count, rigid = effector(Options(model="rigid", segments=2))
    assert count == 7
    gaps = []
    for scale in (1.0, 10.0, 100.0):
        count, x = effector(Options(model="fem", elements=4, segments=2).with_scale("young", scale))
        assert count == 11
        gaps.append(np.abs(x - rigid).max())
    ratios = np.array(gaps[:-1]) / np.array(gaps[1:])
    print("gap to rigid", gaps, "ratios per decade of E", ratios)
    assert gaps[0] > 1e-7
    assert np.all((ratios > 5.0) & (ratios < 20.0))


def test_spatial_segments_keep_the_bending_modes_and_restore_the_free_twist():
    """A 3D link (32 elements, b x h = 20 x 50 mm) on a ball joint, free in twist: its bending
    frequencies are those of the single body to 1e-9 in any number of segments (the same elements, the
    sections' rotary inertia across the link on the first segment's frame). Its first torsion frequency
    is the free-free rod's, pi/L (G J / rho I_p)^(1/2) (the sections free to spin at both ends), which
    one body misses: its twist is measured from its frame and the frame's spin drives no twist (the
    dropped cross term, ``beam.world.inertia``), so it gives the fixed-free pi/2L (..)^(1/2). Each
    segment's sections spin with its own frame: the torsion frequency converges to the free-free one
    at order 2 in the segments (measured errors 708, 197, 50.7, 12.8 rad/s at k = 4, 8, 16, 32; orders
    1.85, 1.96, 1.99)."""
    section, young, n = Section.rectangle(0.02, 0.05), 70e9, 32
    G = young / (2 * (1 + NU))
    free = np.pi * np.sqrt(G * section.j / (2700.0 * (section.iy + section.iz)))
    bending, torsion = [], []
    for k in (1, 4, 8, 16, 32):
        b = ModelBuilder(3)
        b.add_beam("link", BeamBody.straight(1.0, n, section, young, 2700.0, dim=3, axial="cubic", poisson=NU),
                   stiffening=True, segments=k)
        b.add_joint("ball", "spherical", "ground", "link")
        model = b.build()
        q, v = place(model, {"link": {}}, {})
        setup = prepare(model, q, np.zeros(model.n))
        omega = natural_modes(setup, setup.q0, np.zeros(setup.model.m), k=12).omega[3:]  # 3 rotations at 0
        twist = np.argmin(np.abs(omega - (free if k > 1 else free / 2)))
        torsion.append(omega[twist])
        bending.append(np.delete(omega, twist)[:7])
    assert abs(torsion[0] / (free / 2) - 1) < 1e-3  # one body: the fixed-free rod (32 elements)
    for other in bending[1:]:
        np.testing.assert_allclose(other, bending[0], rtol=1e-9)
    errors = np.abs(np.array(torsion[1:]) - free)
    print("torsion", torsion, "free-free", free, "errors", errors, "orders", orders(errors))
    assert np.all(np.abs(orders(errors)[1:] - 2.0) <= 0.1) and errors[-1] <= 2.5e-3 * free


def test_a_segmented_spatial_3prr_moves_as_the_single_one():
    """The 3-PRR as a 3D model (cases/3prr_3d.toml: spatial world-vector beams, its own step and
    integrator) with every link in 2 segments: the motion stays planar (no twist is excited), where the
    segments have the single links' mass, so the end effector agrees to 1e-9 m (measured 4.5e-11) and
    every joint coordinate to 1e-9 (measured 3.1e-10) over 0.3 s."""
    runs = {}
    for segments in (None, 2):
        case = load_case(CASES / "3prr_3d.toml", Options(segments=segments), overrides={"solver.t_end": 0.3})
        r = run_case(case).results
        assert r.complete, r.message
        columns = probe_table(case.model, case.probes, r.q)
        runs[segments] = (np.column_stack([columns[f"effector.{a}"] for a in "xyz"]),
                          r.q[:, list(case.model.joint_coordinates.values())])
    for single, split in zip(runs[None], runs[2]):
        assert np.abs(split - single).max() <= 1e-9


def test_probes_of_a_segmented_link_read_as_one_link():
    """A probe at the free end of a segmented cantilever bent into a full circle by a tip moment (phi = 2
    pi) reports the link's elastic displacement and section rotation, measured from the link frame (the
    clamped first segment's) at the link point L: the displacement is the tip's position minus (L, 0),
    across the link (elastic_2) and along it (elastic_1), and the section rotation is the bend itself,
    continuous past pi up to 2 pi (the segments' turns added, each below pi), to the accuracy of the
    segments (the arc test's errors at k = 64: 0.013 L and 1.2e-2 of the angle); a probe midway agrees
    with the arc's point there."""
    L, phi, k = 1.0, 2.0 * np.pi, 64
    b = cantilever(k, L)
    for slider in ("x", "y"):
        b.add_body(slider, 1.0, [1.0, 1.0])
    b.add_joint("along x", "prismatic", "ground", "x", point1=[L, 0.0], slide="ux")
    b.add_joint("along y", "prismatic", "x", "y", axis=[0.0, 1.0], slide="uy")
    b.add_joint("hand", "revolute", "y", "link", point2=[L, 0.0], angle="turn")
    b.add_joint_load("turn", lambda t: t * phi * E * SLENDER.inertia / L)
    probes = [("end", *b.resolve("link", [L, 0.0])), ("middle", *b.resolve("link", [L / 2, 0.0]))]
    assert probes[0][1] == "link#64" and probes[1][1] == "link#33"
    model = b.build()
    q, _ = place(model, {"x": {"position": [L, 0.0]}, "y": {"position": [L, 0.0]}}, {})
    model, q = loaded_in_steps(model, q, int(np.ceil(8 * phi)))
    columns = probe_table(model, probes, q[None])
    for name, s in (("end", 1.0), ("middle", 0.5)):
        arc = L * np.array([np.sin(phi * s), 1.0 - np.cos(phi * s)]) / phi  # the point at arc length s L
        expected = arc - [s * L, 0.0]
        got = np.array([columns[f"{name}.elastic_1"][0], columns[f"{name}.elastic_2"][0]])
        assert np.abs(got - expected).max() <= 0.02 * L, (name, got, expected)
        assert np.allclose(got, [columns[f"{name}.elastic_x"][0], columns[f"{name}.elastic_y"][0]], atol=1e-12)
        assert abs(columns[f"{name}.elastic_angle"][0] / (phi * s) - 1) <= 0.02, columns[f"{name}.elastic_angle"]
        assert abs(columns[f"{name}.angle"][0] - phi * s) <= 0.02 * phi
