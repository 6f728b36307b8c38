"""World-vector beams (``femdyn.beam.world``), planar and spatial: conservation of a free body, the rigid
limit, the discrete gradient and its tangent, static cantilevers and an L-shaped frame against beam
theory, the section carriers of material points, and the spin-up beam under mesh refinement."""
import numpy as np
import pytest
from scipy.optimize import brentq
from shared import TIGHT, assert_conserved, static_equilibrium

from femdyn.beam.body import BeamBody, Section
from femdyn.beam.modes import static_deflection
from femdyn.integrators.modes import natural_modes
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.integrators.time_loop import simulate
from femdyn.joints.trajectories import SpinUp
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place
from femdyn.numerics.kinematics import point_matrix, rotation_3d

E, NU, RHO = 2.1e11, 0.3, 7850.0
G = E / (2 * (1 + NU))
SECTION = Section.rectangle(0.01, 0.02)  # b = 10 mm along d_3, h = 20 mm along d_2


def beam(dim, n, length=1.0, **options):
    return BeamBody.straight(length, n, SECTION, E, RHO, dim=dim, axial="cubic", poisson=NU, **options)


def elasticity(model):
    return next(f for f in model.forces if type(f).__name__ == "WorldElasticity")


def spinning(dim):
    """The initial pose and twist of a free body spinning about an axis that is not principal."""
    if dim == 2:
        return {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2], "angular_velocity": 15.0}
    return {"position": [0.2, -0.1, 0.3], "rotation": rotation_3d([1.0, 2.0, 3.0], 0.4),
            "velocity": [0.5, -0.2, 0.1], "angular_velocity": np.array([3.0, 10.0, -5.0])}


def free_body(dim, stiffening, n=6):
    """A free beam spinning about an axis that is not principal and vibrating: no loads, no joints."""
    b = ModelBuilder(dim)
    b.add_beam("beam", beam(dim, n), stiffening=stiffening)
    model = b.build()
    q, v = place(model, {"beam": spinning(dim)}, {})
    world = model.worlds[0]
    d = q[world.d].reshape(dim, dim)  # rows d_a
    x = world.beam.nodes[:, 0]
    across = d[1] + (0.5 * d[2] if dim == 3 else 0.0)  # bending with the velocity (x^2 - x^3/3) across
    v[world.w[1:]] = 2.0 * (x[1:, None] ** 2 - x[1:, None] ** 3 / 3) * across
    v[world.s[1:]] = 2.0 * (2 * x[1:, None] - x[1:, None] ** 2) * across
    return model, prepare(model, q, v)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
def test_free_body_conserves_energy_and_momenta(dim, stiffening):
    """Constant mass matrix, quadratic rotation-invariant strains with Gonzalez's discrete gradient and
    bilinear constraints: the energy-momentum scheme conserves H, p and L to the Newton tolerance."""
    model, setup = free_body(dim, stiffening)
    r = simulate(setup, SolverSettings(2e-3, 0.2, **TIGHT))
    assert r.complete, r.message
    elastic = model.worlds[0].elastic_coordinates(r.q)
    assert np.abs(elastic).max() > 1e-4  # the beam really bends
    assert_conserved(model, r)


def test_rigid_limit_is_the_spatial_director_body():
    """A spatial beam with every elastic coordinate removed (modes = 0) is a director body whose frame
    sits at the beam's end; a rigid body at the centre of mass with Euler tensor (m L^2/12, rho I_z L,
    rho I_y L) must move identically -- here a heavy top on a ball joint, released spinning about a
    skew axis: the two differ by a constant linear change of coordinates, under which the scheme is
    invariant."""
    L = 0.8
    body = beam(3, 4, L, modes=0)
    mass, first, second = body.rigid_inertia
    np.testing.assert_allclose(first, [mass * L / 2, 0, 0], rtol=1e-14, atol=1e-15)
    tops = []
    for flexible in (True, False):
        b = ModelBuilder(3)
        if flexible:
            b.add_beam("top", body, stiffening=False)
            point = [0.0, 0.0, 0.0]
        else:
            b.add_body("top", mass, [mass * L**2 / 12, second[1, 1], second[2, 2]])
            point = [-L / 2, 0.0, 0.0]
        b.add_joint("ball", "spherical", "ground", "top", point2=point)
        b.set_gravity([0.0, 0.0, -9.81])
        model = b.build()
        R = rotation_3d([0.2, 1.0, 0.1], -1.0)
        w = np.array([20.0, 1.0, -2.0])
        centre = -R @ point  # the ball at the origin
        pose = {"position": centre if not flexible else np.zeros(3), "rotation": R,
                "angular_velocity": w, "velocity": np.cross(w, centre) if not flexible else np.zeros(3)}
        q, v = place(model, {"top": pose}, {})
        r = simulate(prepare(model, q, v), SolverSettings(0.01, 1.0, **TIGHT))
        assert r.complete, r.message
        X = [[L, 0.0, 0.0]] if flexible else [[L / 2, 0.0, 0.0]]
        tops.append(((point_matrix(X)[0] @ r.q[:, :12].T).T, r.total))
    (tip_f, H_f), (tip_r, H_r) = tops
    assert np.ptp(tip_r[:, 2]) > 0.1 * L  # it really moves
    assert np.abs(tip_f - tip_r).max() <= 1e-12 * L
    np.testing.assert_allclose(H_f, H_r, rtol=1e-12)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
def test_tangent_is_the_derivative_of_the_discrete_force(dim, stiffening):
    """The compiled kernels' Newton entries are d Fbar(qa, qb)/d qb (central differences) for a step,
    and dF/dq of the continuous force F(q) for generalized-alpha; Fbar is a discrete gradient:
    Fbar . (qb - qa) = V(qa) - V(qb) to round-off."""
    model, setup = free_body(dim, stiffening, n=3)
    assert_tangent_and_discrete_gradient(elasticity(model), setup.q0)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
def test_tangent_with_removed_coordinates(dim, stiffening):
    """The same identities for beams whose first node's vectors are removed -- a pinned pendulum in
    the plane (w_a of the first element gone) and a cantilever clamped in space (w_a, s_a and psi_a
    gone): the kernels leave those rows and columns out of the tangent's pattern."""
    b = ModelBuilder(dim)
    b.add_beam("beam", beam(dim, 3), stiffening=stiffening)
    b.add_joint("root", "revolute" if dim == 2 else "fixed", "ground", "beam")
    model = b.build()
    q, _ = place(model, {}, {"root": {"angle": 0.0}} if dim == 2 else {})
    f = elasticity(model)
    assert (f.index < 0).any() and (f.index >= 0).any(axis=1).all()
    assert_tangent_and_discrete_gradient(f, q)


def assert_tangent_and_discrete_gradient(f, q0):
    """d Fbar(qa, qb)/d qb and dF/dq of ``f`` at random qa, qb near q0 against central differences, and
    Fbar . (qb - qa) = V(qa) - V(qb) to round-off."""
    rng = np.random.default_rng(3)
    qa = q0[f.dofs] + 1e-2 * rng.standard_normal(f.dofs.shape)
    qb = qa + 1e-2 * rng.standard_normal(f.dofs.shape)
    rows, cols = f.tangent_pattern()
    n = f.dofs.shape[1]

    def dense(values):
        T = np.zeros((n, n))
        np.add.at(T, (rows, cols), values[0])
        return T

    def derivative(force, q, h=1e-6):
        return np.stack([(force(q + h * e) - force(q - h * e))[0] / (2 * h) for e in np.eye(n)[:, None, :]], axis=1)

    step = derivative(lambda x: f.discrete_force(qa, x, 0.0, 1e-3), qb)
    point = derivative(lambda x: f.continuous_force(x, 0 * x, 0.0, 1e-3), qb)
    scale = np.abs(step).max()
    np.testing.assert_allclose(dense(f.tangent_values(qa, qb, 0.0, 1e-3)), step, atol=1e-7 * scale)
    force, tangent, _ = f.continuous_tangents(qb, 0 * qb, 0.0, 1e-3)
    np.testing.assert_allclose(force, f.continuous_force(qb, 0 * qb, 0.0, 1e-3), rtol=0, atol=0)
    np.testing.assert_allclose(dense(tangent), point, atol=1e-7 * np.abs(point).max())
    work = float(np.sum(f.discrete_force(qa, qb, 0.0, 1e-3) * (qb - qa)))
    drop = f.potential(qa) - f.potential(qb)
    assert abs(work - drop) <= 1e-12 * (abs(f.potential(qa)) + abs(f.potential(qb)))


def clamped(dim, n, stiffening, length=1.0):
    """A cantilever welded to the ground at its first node (fixed-free: the body frame is that of the
    clamped section)."""
    b = ModelBuilder(dim)
    b.add_beam("beam", beam(dim, n, length), stiffening=stiffening)
    b.add_joint("clamp", "fixed", "ground", "beam")
    return b


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_clamped_cantilever_static(dim, stiffening, n):
    """Tip force P across the beam along d_2 (and d_3): tip deflection P L^3/3EI with I_z (I_y); along
    d_1: P L/EA (a load of small strain: with stiffening the averaged strain adds (3/5) eps^2); a torque
    T on the tip's twist: T L/GJ. With stiffening the axial displacements are free, so the transverse
    load leaves the element forces N_e = EA eps_e zero: the deflection is the linear one at every mesh
    size (no membrane locking)."""
    L, P = 1.0, 200.0
    cases = [(1, P, P * L**3 / (3 * E * SECTION.iz))] + ([(2, P, P * L**3 / (3 * E * SECTION.iy))] if dim == 3 else [])
    cases += [(0, 1e-3, 1e-3 * L / (E * SECTION.area))]
    for axis, force, expected in cases:
        b = clamped(dim, n, stiffening, L)
        b.add_point_force("beam", np.eye(dim)[0] * L, force * np.eye(dim)[axis], lambda t: 1.0)
        model = b.build()
        q, _ = place(model, {}, {})
        model, q = static_equilibrium(model, q)
        tip = model.worlds[0].elastic_coordinates(q)[-model.worlds[0].beam.elements.node_size:]
        assert abs(tip[axis] / expected - 1) < 1e-9, (axis, tip[axis], expected)
    if dim == 3:
        model = clamped(dim, n, stiffening, L).build()
        q, _ = place(model, {}, {})
        torque, loads = 3.0, np.zeros(model.n)
        loads[model.worlds[0].psi[-1]] = torque
        model, q = static_equilibrium(model, q, loads=loads)
        tip = model.worlds[0].elastic_coordinates(q)[-6:]
        assert abs(tip[3] / (torque * L / (G * SECTION.j)) - 1) < 1e-9
        assert np.abs(tip[[0, 1, 2, 4, 5]]).max() < 1e-12 * abs(tip[3]) * L


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("stiffening", [True, False], ids=["stiffening", "linear"])
def test_self_weight_of_a_clamped_cantilever(dim, stiffening):
    """Gravity across the clamped beam (along d_2 in the plane, d_3 in space): the consistent nodal
    forces int rho A N^T g of the world vectors give the exact tip deflection w L^4/8EI of Hermite
    elements (w = rho A g), at 1 and 4 elements."""
    L, g = 1.0, 9.81
    ei = E * (SECTION.iz if dim == 2 else SECTION.iy)
    for n in (1, 4):
        b = clamped(dim, n, stiffening, L)
        b.set_gravity(-g * np.eye(dim)[dim - 1])
        model = b.build()
        q, _ = place(model, {}, {})
        model, q = static_equilibrium(model, q)
        tip = model.worlds[0].positions(q, [np.eye(dim)[0] * L])[0]
        expected = -RHO * SECTION.area * g * L**4 / (8 * ei)
        assert abs(tip[dim - 1] / expected - 1) < 1e-9


def test_polyline_frame_is_the_local_body():
    """A kinked planar centre line (slopes turned by c I + s J per element): the embedded static
    solution under a tip load, read back as local coordinates, is the local body's static deflection
    (the same element), and so the closed form of test_beam_static's L-frame: u_y = P a^3/3EI + P b/EA,
    u_x = -P a^2 b/2EI."""
    a, bl, p = 0.4, 0.3, 5.0
    nodes = np.vstack([np.column_stack([np.linspace(0, a, 5), np.zeros(5)]),
                       np.column_stack([np.full(3, a), np.linspace(0, bl, 4)[1:]])])
    body = BeamBody(nodes, SECTION, E, RHO, axial="cubic")
    b = ModelBuilder(2)
    b.add_beam("frame", body, stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "frame")
    b.add_point_force("frame", nodes[-1], [0.0, p], lambda t: 1.0)
    model = b.build()
    q, _ = place(model, {}, {})
    model, q = static_equilibrium(model, q)
    local = model.worlds[0].elastic_coordinates(q)
    expected = static_deflection(body, {-1: (0.0, p, 0.0)})
    np.testing.assert_allclose(local, expected, rtol=0, atol=1e-9 * np.abs(expected).max())
    tip = body.nodal_displacements(local)[-1]
    EI, EA = E * SECTION.iz, E * SECTION.area
    assert abs(tip[1] / (p * a**3 / (3 * EI) + p * bl / EA) - 1) < 1e-9
    assert abs(tip[0] / (-p * a**2 * bl / (2 * EI)) - 1) < 1e-9


@pytest.mark.parametrize("stiffening", [False, True], ids=["linear", "stiffening"])
def test_l_frame_bending_and_torsion(stiffening):
    """Leg 1 (length a) along x, clamped at the origin; leg 2 (length b) along y, welded by a fixed
    joint to leg 1's tip (a material point of leg 1, whose section carriers turn the joint frame);
    a load P along z at leg 2's tip. Leg 2 bends as a cantilever: P b^3/3EI. Leg 1 carries at its
    tip the force P, which bends it by P a^3/3EI, and the torque P b about x, which twists it by
    P b a/GJ and swings leg 2's tip by that angle times b: P b^2 a/GJ; its tip rotation about y,
    P a^2/2EI, moves no point of leg 2 (which lies along y). Both legs bend about their d_3 = z
    sections: I = I_y. So the deflection is P a^3/3EI + P b^3/3EI + P b^2 a/GJ. The structure is
    symmetric under z -> -z, so the deflection is odd in P and the linear theory holds to O(theta^2):
    with rotations of 1e-5 that is below 1e-9. With stiffening, neither leg carries an axial force (to
    the order of the rotations, P theta: the reactions of the deformed corner)."""
    a, bl, n = 0.6, 0.4, 4
    EI, GJ = E * SECTION.iy, G * SECTION.j
    P = 1e-5 * EI / a**2  # rotations of about 1e-5
    b = ModelBuilder(3)
    b.add_beam("leg1", beam(3, n, a), stiffening=stiffening)
    b.add_beam("leg2", beam(3, n, bl), stiffening=stiffening)
    b.add_joint("clamp", "fixed", "ground", "leg1")
    turn = rotation_3d([0.0, 0.0, 1.0], np.pi / 2)  # leg 2's d_1 along leg 1's d_2
    b.add_joint("corner", "fixed", "leg1", "leg2", point1=[a, 0.0, 0.0], relative_rotation=turn)
    b.add_point_force("leg2", [bl, 0.0, 0.0], [0.0, 0.0, P], lambda t: 1.0)
    model = b.build()
    assert b.coordinate_count() == model.n
    assert len(model.worlds[0].points) == 1 and len(model.worlds[1].points) == 0  # the corner's section only
    q, _ = place(model, {"leg1": {"position": np.zeros(3)}}, {"corner": {}})
    model, q = static_equilibrium(model, q)
    tip = model.worlds[1].positions(q, [[bl, 0.0, 0.0]])[0]
    expected = P * a**3 / (3 * EI) + P * bl**3 / (3 * EI) + P * bl**2 * a / GJ
    assert abs(tip[2] / expected - 1) < 1e-9, (tip[2], expected)
    if stiffening:  # to the order of the rotations: the joint's reactions turn with the sections
        for world in model.worlds:
            axial = E * SECTION.area * elastic_axial_strains(model, world, q)
            assert np.abs(axial).max() < 10 * 1e-5 * P


def welded(dim, joint, a, bl):
    """Beam 2 (length b) continuing beam 1 (length a, clamped) along x, joined at beam 1's free tip by a
    weld or by a revolute joint whose augmented angle a servo holds at zero."""
    b = ModelBuilder(dim)
    b.add_beam("beam1", beam(dim, 3, a), stiffening=False)
    b.add_beam("beam2", beam(dim, 2, bl), stiffening=False)
    b.add_joint("clamp", "fixed", "ground", "beam1")
    if joint == "fixed":
        b.add_joint("weld", "fixed", "beam1", "beam2", point1=np.eye(dim)[0] * a)
    else:
        b.add_joint("weld", "revolute", "beam1", "beam2", point1=np.eye(dim)[0] * a, angle="alpha")
        b.add_servo_coordinate("hold", "alpha", SpinUp(0.0, 1.0))
        b.set_inputs(["alpha"])
    return b


@pytest.mark.parametrize("dim, joint", [(2, "fixed"), (2, "revolute"), (3, "fixed")])
def test_two_welded_beams_are_one_cantilever(dim, joint):
    """Beam 2 continues beam 1 along x, joined at beam 1's free tip -- a material point whose section
    carriers turn the joint frame -- by a weld, or by a revolute joint whose angle a servo holds at
    zero (the augmented angle's rows use the turned axes too). Under a tip load it is one cantilever
    of length L = a + b: deflection P L^3/3EI across, in each bending plane. The structure is
    symmetric under the mirror of the load, so the linearised section rotation of the joint costs
    O(theta^2): below 1e-9 at rotations of 1e-5. (The twist through a section carrier is the
    L-frame's.)"""
    a, bl = 0.6, 0.4
    L = a + bl
    for axis, ei in [(1, E * SECTION.iz)] + ([(2, E * SECTION.iy)] if dim == 3 else []):
        P = 1e-5 * ei / L**2
        b = welded(dim, joint, a, bl)
        b.add_point_force("beam2", np.eye(dim)[0] * bl, P * np.eye(dim)[axis], lambda t: 1.0)
        model = b.build()
        assert b.coordinate_count() == model.n
        assert len(model.worlds[0].points) == 1  # the joint's point on beam 1 carries a section
        q, _ = place(model, {"beam1": {"position": np.zeros(dim)}, "beam2": {"position": np.eye(dim)[0] * a}}, {})
        model, q = static_equilibrium(model, q)
        tip = model.worlds[1].positions(q, [np.eye(dim)[0] * bl])[0]
        assert abs(tip[axis] / (P * L**3 / (3 * ei)) - 1) < 1e-9, (axis, tip[axis], P * L**3 / (3 * ei))


def elastic_axial_strains(model, world, q):
    """The element-averaged axial strains eps_e = t.(w_b - w_a)/l + c_e of one world beam at q: from the
    kernels' strains of its elements."""
    from femdyn.beam.world import kernels
    f = elasticity(model)
    elements = slice(*[sum(len(w.length) for w in model.worlds[:k]) for k in
                       (model.worlds.index(world), model.worlds.index(world) + 1)])
    R, t, beta, lam, gam, C, k = (x[elements] for x in f.data)
    index = f.index[elements]
    Q = q[f.dofs[0]]
    out = []
    for el in range(index.shape[0]):
        z = np.where(index[el] >= 0, Q[np.maximum(index[el], 0)], 0.0)
        e, grad = np.zeros(t.shape[1]), np.zeros((t.shape[1], z.size))
        kernels._strains(z, world.dim, R[el], t[el], beta[el], lam[el], gam[el], C[el], e, grad, *kernels._work(world.dim))
        out.append(e[0])
    return np.array(out)


def spin_up(dim, n, integrator="energy-momentum"):
    """Kane's spin-up beam (L = 10 m, A = 4e-4 m^2, I = 2e-7 m^4, E = 70 GPa, rho = 3000 kg/m^3, 6 rad/s
    reached in 15 s) clamped to a hub whose angle about the normal of its plane is prescribed by a
    servo, with geometric stiffening: the tip's deflection across the beam (local d_2 . w) over time."""
    section = Section(4e-4, 2e-7, iy=2e-7, j=4e-7)
    body = BeamBody.straight(10.0, n, section, 7e10, 3000.0, dim=dim, axial="cubic", poisson=NU)
    b = ModelBuilder(dim)
    b.add_beam("beam", body, stiffening=True)
    b.add_joint("hub", "revolute", "ground", "beam", angle="theta", axis=None if dim == 2 else [0.0, 0.0, 1.0])
    b.add_servo_coordinate("spin", "theta", SpinUp(6.0, 15.0))
    b.set_inputs(["theta"])
    model = b.build()
    q, v = place(model, {}, {"hub": {"angle": 0.0}})
    r = simulate(prepare(model, q, v), SolverSettings(0.02, 15.0, integrator=integrator, rho_inf=0.9))
    assert r.complete, r.message
    return model.worlds[0].elastic_coordinates(r.q)[:, 1 - body.elements.node_size]


def test_spin_up_peak_deflection_converges_under_refinement():
    """The peak tip deflection of the spin-up (element-averaged stiffening: no locking) converges with
    the mesh at an observed order; at 8 elements it lies within 2 % of the value extrapolated from 4, 8
    and 16 elements (Richardson, with the observed order). The spatial beam spinning in its x1-x2
    plane deflects exactly as the planar one, and generalized-alpha (rho_inf = 0.9) agrees with the
    energy-momentum scheme to within their O(dt^2) errors."""
    peaks = {n: np.abs(spin_up(2, n)).max() for n in (4, 8, 16)}
    order = np.log2((peaks[8] - peaks[4]) / (peaks[16] - peaks[8]))
    assert order > 1.0, order
    extrapolated = peaks[16] + (peaks[16] - peaks[8]) / (2**order - 1)
    assert abs(peaks[8] / extrapolated - 1) < 0.02
    assert 0.1 < extrapolated < 1.0  # bounded: linear FFR would diverge past 3.8 rad/s
    spatial = spin_up(3, 8)
    planar = spin_up(2, 8)
    assert np.abs(spatial - planar).max() <= 1e-9 * peaks[8]
    alpha = np.abs(spin_up(2, 8, "generalized-alpha")).max()
    assert abs(alpha / peaks[8] - 1) < 0.01


def test_spatial_refusals():
    with pytest.raises(ModelError, match="needs nodal elastic coordinates"):
        ModelBuilder(3).add_beam("b", beam(3, 4, modes=2), stiffening=True)
    with pytest.raises(ModelError, match="2D beam in a 3D model"):
        ModelBuilder(3).add_beam("b", beam(2, 4), stiffening=False)


def clamped_families(n):
    """The natural frequencies of the world-vector 3D cantilever of n elements (``beam``, clamped to the
    ground by a fixed joint, stiffening on), ``integrators.modes`` on the model, sorted into the modes'
    families by their largest nodal component: {0: axial, 1: bending along d_2, 2: along d_3, 3: torsion}
    (the twist weighed by the radius of gyration sqrt(I_p/A)), and the largest share of a second family
    in any mode."""
    b = ModelBuilder(3)
    b.add_beam("beam", beam(3, n), stiffening=True)
    b.add_joint("clamp", "fixed", "ground", "beam")
    model = b.build()
    setup = prepare(model, *place(model, {"beam": {"position": [0.0, 0.0, 0.0]}}, {}))
    modes = natural_modes(setup, k=10**6)  # all of them
    world = setup.model.worlds[0]
    shapes = np.concatenate([modes.shapes, np.zeros((len(modes.shapes), 1))], axis=1)  # index -1: removed
    size = np.column_stack([np.abs(shapes[:, world.w]).max(axis=1),
                            np.abs(shapes[:, world.psi]).max(axis=1)[:, None]
                            * np.sqrt((SECTION.iy + SECTION.inertia) / SECTION.area)])
    kind = np.argmax(size, axis=1)
    second = np.sort(size, axis=1)[:, -2] / size.max(axis=1)
    return {family: modes.omega[kind == family] for family in range(4)}, second.max()


def test_world_cantilever_frequencies_converge_at_their_orders():
    """The 3D cantilever the models step (world vectors, ``integrators.modes`` on the clamped model), 4,
    8 and 16 elements: its two lowest modes of each family converge to the closed forms from above --
    bending along d_2 and d_3 to (beta L)^2 sqrt(E I/(rho A L^4)) with I_z and I_y (cos bL cosh bL = -1)
    at order 4 (cubic Hermite, consistent mass); axial to (2n - 1) pi/(2L) sqrt(E/rho) and torsion to
    (2n - 1) pi/(2L) sqrt(G J/(rho I_p)) (J of the rectangle, I_p = I_y + I_z) at order 2: the axial
    shape is the cubic with zero nodal slopes under the element-averaged strain, the twist linear with
    consistent mass. Observed between 8 and 16 elements: bending 3.97-3.99, axial 1.98-2.00, torsion
    2.00-2.01."""
    roots = np.array([brentq(lambda b: np.cos(b) * np.cosh(b) + 1, a, a + 1) for a in (1.5, 4.4)])
    odd = (2 * np.arange(1, 3) - 1) * np.pi / 2
    area, iz, iy = SECTION.area, SECTION.inertia, SECTION.iy
    exact = {0: odd * np.sqrt(E / RHO), 1: roots**2 * np.sqrt(E * iz / (RHO * area)),
             2: roots**2 * np.sqrt(E * iy / (RHO * area)), 3: odd * np.sqrt(G * SECTION.j / (RHO * (iy + iz)))}
    errors = []
    for n in (4, 8, 16):
        families, mixed = clamped_families(n)
        assert mixed <= 1e-7  # a straight beam's families do not couple
        errors.append([families[f][:2] / exact[f] - 1 for f in range(4)])
    errors = np.array(errors)  # (mesh, family, mode)
    assert np.all(errors > 0)
    order = np.log2(errors[-2] / errors[-1])
    assert np.all(np.abs(order[[1, 2]] - 4) < 0.15), order
    assert np.all(np.abs(order[[0, 3]] - 2) < 0.1), order
