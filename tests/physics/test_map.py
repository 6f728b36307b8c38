"""Workspace maps (``femdyn map``, ``Problem.map``: ``studies.map_plan``, ``map_pose``, ``map_point``).

The mechanism with a closed form is a planar two-link arm: a flexible first link (aluminium, L1 = 0.5 m,
clamped to its motor: fixed-free) and a rigid second link whose tool point P is L2 = 0.4 m from the
elbow, both joints held by coordinate servos. A force f at P loads the first link's tip by f and the
moment M = r x f (r from the elbow to P); the tip moves by u = N L/(EA) along the link, w = V L^3/(3EI)
+ M L^2/(2EI) across it and turns by phi = V L^2/(2EI) + M L/(EI) (Euler-Bernoulli; cubic Hermite
elements are exact for end loads), and P by u t + w n + phi e_z x r: C = T^T C_tip T. Its Jacobian
J = dP/d(theta1, theta2) has s_1^2, s_2^2 = (F +- sqrt(F^2 - 4 det^2))/2 with F = |J|_F^2 =
L1^2 + 2 L2^2 + 2 L1 L2 cos theta2 and det J = L1 L2 sin theta2.
"""
import numpy as np
import pytest
from shared import CASES, two_link_arm

import femdyn
from femdyn.model.motion import body_motion

L1, L2, YOUNG, B, H = 0.5, 0.4, 70e9, 0.02, 0.01
# the spatial cantilever: length, Poisson's ratio, area, second moments about d_2 and d_3, torsion constant
LENGTH, POISSON, AREA, IY, IZ, TORSION = 0.5, 0.33, 2e-4, 1.6e-9, 6.7e-9, 4.5e-9
CANTILEVER = f"""
title = "a cantilever on a held hub"
dimension = 3
gravity = [0.0, 0.0, 0.0]
[solver]
dt = 0.001
t_end = 0.01
[flexible]
model = "fem"
elements = 2
[[bodies]]
name = "link"
beam = {{length = {LENGTH}, young = {YOUNG}, density = 2700.0, area = {AREA}, iy = {IY}, iz = {IZ}, \
j = {TORSION}, poisson = {POISSON}}}
[[joints]]
name = "hub"
type = "revolute"
bodies = ["ground", "link"]
axis = [0.0, 0.0, 1.0]
angle = "theta"
[[servos]]
name = "motor"
type = "coordinate"
coordinate = "theta"
trajectory = {{type = "constant", value = [0.0]}}
[control]
inputs = ["theta"]
[[probes]]
name = "tip"
body = "link"
point = [{LENGTH}, 0.0, 0.0]
[initial.joints.hub]
angle = 0.2
"""



def arm(tmp_path, gravity=-9.81, young=YOUNG, theta1=0.3, theta2=1.0):
    return femdyn.load(two_link_arm(tmp_path, gravity, young, theta1, theta2))


def closed_form_compliance(theta1, theta2):
    """C = T^T C_tip T (module docstring) at the arm's pose."""
    area, inertia = B * H, B * H**3 / 12
    tangent = np.array([np.cos(theta1), np.sin(theta1)])
    normal = np.array([-np.sin(theta1), np.cos(theta1)])
    r = L2 * np.array([np.cos(theta1 + theta2), np.sin(theta1 + theta2)])
    T = np.array([tangent, normal, [-r[1], r[0]]])  # (N, V, M) = T f
    EI = YOUNG * inertia
    tip = np.array([[L1 / (YOUNG * area), 0, 0], [0, L1**3 / (3 * EI), L1**2 / (2 * EI)],
                    [0, L1**2 / (2 * EI), L1 / EI]])
    return T.T @ tip @ T


def closed_form_conditioning(theta2):
    F = L1**2 + 2 * L2**2 + 2 * L1 * L2 * np.cos(theta2)
    det = abs(L1 * L2 * np.sin(theta2))
    root = np.sqrt(F**2 - 4 * det**2)
    s1, s2 = np.sqrt((F + root) / 2), np.sqrt((F - root) / 2)
    return s1 / s2, s2


def test_compliance_and_conditioning_equal_the_closed_form(tmp_path):
    """Over a 2 x 2 grid of the arm's joint angles (no gravity: the links unloaded), the compliance of P
    equals the beam's closed form to 1e-6 relative and the Jacobian's condition number and smallest
    singular value equal theirs to 1e-9."""
    grid = {"theta1": [0.3, -0.4], "theta2": [1.0, 2.2]}
    result = arm(tmp_path, gravity=0.0).map(grid, modes=1, workers=0)
    assert (result.status == "ok").all(), result.messages
    for i, theta1 in enumerate(grid["theta1"]):
        for j, theta2 in enumerate(grid["theta2"]):
            C = np.array([[result[f"compliance_{a}{b}"][i, j] for b in "xy"] for a in "xy"])
            expected = closed_form_compliance(theta1, theta2)
            assert np.abs(C - expected).max() <= 1e-6 * np.abs(expected).max()
            w = np.linalg.eigvalsh(expected)
            assert result["compliance_max"][i, j] == pytest.approx(w[-1], rel=1e-6)
            kappa, smallest = closed_form_conditioning(theta2)
            assert result["jacobian_condition"][i, j] == pytest.approx(kappa, rel=1e-9)
            assert result["jacobian_smallest"][i, j] == pytest.approx(smallest, rel=1e-9)
            assert abs(result["sag_x"][i, j]) + abs(result["sag_y"][i, j]) < 1e-14  # no load: round-off of 1 m


def test_spatial_compliance_of_force_and_torque_equals_the_cantilevers(tmp_path):
    """In space the compliance of P is 6 x 6, its deviation and turn per unit force and torque at P. A
    beam clamped to a hub whose servo holds it (no gravity: unloaded) is a cantilever, whose tip
    compliance in the beam's frame (d_1 along it) is, Euler-Bernoulli and exact for end loads on cubic
    Hermite elements: L/(EA) along it, L/(GJ) in torsion, and in each bending plane L^3/(3EI),
    L^2/(2EI) (deflection per torque, turn per force) and L/(EI) (turn per torque) -- with I_z for the
    d_1-d_2 plane and I_y, the coupling's sign turned, for the d_1-d_3 plane; at the hub's angle theta
    it is that matrix turned by R_z(theta) in both blocks. Agreement to 1e-6 relative per block, and
    ``compliance_max`` with its direction is the force block's largest eigenvalue and eigenvector; the
    beam, P's body, carries all of a mode's kinetic energy (participation 1)."""
    path = tmp_path / "cantilever.toml"
    path.write_text(CANTILEVER)
    angles = [0.0, 0.7]
    result = femdyn.load(path).map({"theta": angles}, modes=1, workers=0)
    assert (result.status == "ok").all(), result.messages
    shear = YOUNG / (2 * (1 + POISSON))
    local = np.zeros((6, 6))  # rows and columns: force x, y, z, torque x, y, z in the beam's frame
    local[0, 0], local[3, 3] = LENGTH / (YOUNG * AREA), LENGTH / (shear * TORSION)
    local[1, 1], local[5, 5] = LENGTH**3 / (3 * YOUNG * IZ), LENGTH / (YOUNG * IZ)
    local[1, 5] = local[5, 1] = LENGTH**2 / (2 * YOUNG * IZ)
    local[2, 2], local[4, 4] = LENGTH**3 / (3 * YOUNG * IY), LENGTH / (YOUNG * IY)
    local[2, 4] = local[4, 2] = -LENGTH**2 / (2 * YOUNG * IY)
    names = ["x", "y", "z", "rx", "ry", "rz"]
    for i, theta in enumerate(angles):
        C = np.array([[result[f"compliance_{a}{b}"][i] for b in names] for a in names])
        turn = np.array([[np.cos(theta), -np.sin(theta), 0], [np.sin(theta), np.cos(theta), 0], [0, 0, 1]])
        T = np.kron(np.eye(2), turn)
        expected = T @ local @ T.T
        for rows, cols in [(slice(0, 3), slice(0, 3)), (slice(0, 3), slice(3, 6)), (slice(3, 6), slice(3, 6))]:
            block = expected[rows, cols]
            assert np.abs(C[rows, cols] - block).max() <= 1e-6 * np.abs(block).max()
        w, V = np.linalg.eigh(expected[:3, :3])
        assert result["compliance_max"][i] == pytest.approx(w[-1], rel=1e-6)
        direction = np.array([result[f"compliance_dir_{a}"][i] for a in "xyz"])
        assert abs(direction @ V[:, -1]) == pytest.approx(1.0, abs=1e-9)
        assert result["participation_1"][i] == pytest.approx(1.0, rel=1e-12)  # P's body is all that moves


def test_a_map_point_equals_static_and_modes_alone(tmp_path):
    """A point of the map (set by its joint angles, and one set by its tool point through the inverse
    kinematics) gives the deviation, servo inputs and frequencies that ``static`` and ``modes`` give for
    the case started at that pose, to 1e-9 relative, and each mode's participation is the share of its
    kinetic energy in the effector's body, found from that body's velocity and angular velocity in the
    mode (``body_motion``) rather than from the mass matrix's block."""
    problem = arm(tmp_path)
    by_angles = problem.map({"theta1": [0.2], "theta2": [1.3]}, modes=3, workers=0)
    by_point = problem.map({"tip.x": [0.55], "tip.y": [0.35]}, modes=3, workers=0)
    for result in (by_angles, by_point):
        assert result.status[0, 0] == "ok"
        angles = [float(result[f"actuated:theta{k}"][0, 0]) for k in (1, 2)]
        alone = arm(tmp_path, theta1=angles[0], theta2=angles[1])
        static, modes = alone.static(), alone.modes(count=3)
        deviation = static.deviation("tip")
        sag = np.array([result[c][0, 0] for c in ("sag_x", "sag_y", "sag_angle")])
        expected = np.concatenate([deviation.position[0], deviation.rotation[0]])
        assert np.abs(sag - expected).max() <= 1e-9 * np.abs(expected).max()
        for name, value in static.servo_inputs.items():
            assert result[f"input:{name}"][0, 0] == pytest.approx(value, rel=1e-9)
        assert np.allclose([result[f"frequency_{k}"][0, 0] for k in (1, 2, 3)], modes.frequency, rtol=1e-9, atol=0)
        # P's body, the rigid link2 (0.5 kg, polar moment m (0.4^2 + 0.02^2)/12), carries of each
        # mass-normalised mode x (x^T M x = 1) the kinetic energy m |v_c|^2 + J omega^2 of its frame's motion
        model = modes.modes.model
        index = [b.name for b in model.bodies].index("link2")
        _, _, velocity, omega = body_motion(model, np.repeat(modes.modes.q[None], 3, axis=0), modes.shapes)
        share = 0.5 * np.sum(velocity[:, index] ** 2, axis=1) + 0.5 * (0.4**2 + 0.02**2) / 12 * omega[:, index] ** 2
        participation = [result[f"participation_{k}"][0, 0] for k in (1, 2, 3)]
        assert np.allclose(participation, share, rtol=1e-9, atol=0)
    assert by_point["pose_x"][0, 0] == pytest.approx(0.55, abs=1e-12)
    assert by_point["pose_y"][0, 0] == pytest.approx(0.35, abs=1e-12)


def test_stiffer_links_scale_compliance_sag_and_frequencies(tmp_path):
    """With E x 10, 100, 1000 the compliance and the sag fall by 10 per decade and the frequencies grow
    by sqrt(10): the servos hold the joints, so every stiffness is the links' but the geometric stiffness
    of the weight's preload, which does not grow with E -- the ratios' departure from 10 falls tenfold
    per decade with it."""
    rows = []
    for factor in (1, 10, 100, 1000):
        result = arm(tmp_path, young=YOUNG * factor).map({"theta1": [0.3], "theta2": [1.0]}, modes=2, workers=0)
        rows.append([result["compliance_max"][0, 0], np.hypot(result["sag_x"][0, 0], result["sag_y"][0, 0]),
                     result["frequency_1"][0, 0] ** 2, result["frequency_2"][0, 0] ** 2])
    rows = np.array(rows)
    ratio = np.hstack([rows[:-1, :2] / rows[1:, :2], rows[1:, 2:] / rows[:-1, 2:]])  # f^2 grows by 10
    departure = np.abs(ratio / 10 - 1)
    assert departure[0].max() < 1e-2  # the preload's geometric stiffness is small beside the links'
    assert np.allclose(departure[1:] / departure[:-1], 0.1, rtol=0.05, atol=0), departure


def test_unreachable_and_singular_points_are_marked(tmp_path):
    """A grid that leaves the arm's reach (|P| > L1 + L2 = 0.9 m) marks those points unreachable, the
    stretched arm (theta2 = 0) singular; the map completes and no ok point has a NaN quantity."""
    problem = arm(tmp_path)
    reach = problem.map({"tip.x": [0.4, 1.0], "tip.y": [0.2]}, modes=1, workers=0)
    assert list(reach.status[:, 0]) == ["ok", "unreachable"]
    assert "inverse kinematics" in reach.messages[1, 0]
    assert np.isnan(reach["frequency_1"][1, 0])
    stretched = problem.map({"theta1": [0.3], "theta2": [0.0, 1.0]}, modes=1, workers=0)
    assert list(stretched.status[0]) == ["singular", "ok"]
    assert "singular value" in stretched.messages[0, 0]
    for result in (reach, stretched):
        ok = result.status == "ok"
        assert all(np.isfinite(result[c][ok]).all() for c in result.quantities)


def test_the_heat_maps_leave_points_that_are_not_ok_blank(tmp_path, monkeypatch):
    """The 2-D heat maps of a grid that leaves the arm's reach draw the ok points' values and mask the
    unreachable ones (blank, never drawn as zero)."""
    from matplotlib.axes import Axes

    drawn = []
    pcolormesh = Axes.pcolormesh

    def record(self, *args, **options):
        if self.get_label() != "<colorbar>":  # the maps, not their colour bars
            drawn.append(np.ma.asarray(args[2]))
        return pcolormesh(self, *args, **options)

    monkeypatch.setattr(Axes, "pcolormesh", record)
    result = arm(tmp_path).map({"tip.x": [0.4, 1.0], "tip.y": [0.1, 0.2]}, modes=1, workers=0)
    ok = result.status == "ok"
    assert ok.sum() == 2 and (result.status[~ok] == "unreachable").all()
    result.write(tmp_path / "map")
    assert drawn and all(values.count() == ok.sum() and np.ma.getmaskarray(values).sum() == (~ok).sum()
                         for values in drawn)
    frequency = np.sort(result["frequency_1"][ok])
    assert any(np.array_equal(np.sort(values.compressed()), frequency) for values in drawn)


def test_the_delta_map_has_the_robots_120_degree_symmetry():
    """The flexible Delta robot (one element per arm: the symmetry does not depend on the mesh) mapped
    over its tool plane at a point and its images turned by 120 and 240 degrees about the base's axis:
    the lowest frequency, |sag| and the eigenvalues of the tool point's compliance agree to 1e-9 relative
    (the solvers' tolerance), and the motor torques are those of the point, passed on to the next motor."""
    problem = femdyn.load(CASES / "delta_flexible.toml", elements=1)
    turn = np.array([[np.cos(2 * np.pi / 3), -np.sin(2 * np.pi / 3)], [np.sin(2 * np.pi / 3), np.cos(2 * np.pi / 3)]])
    points = [np.array([0.05, 0.02])]
    points += [turn @ points[-1], turn @ turn @ points[0]]
    x, y = np.array(points).T
    result = problem.map({"tcp.x": x, "tcp.y": y}, modes=1, workers=0)
    diagonal = [(k, k) for k in range(3)]  # the grid's points with their own y
    assert all(result.status[i, j] == "ok" for i, j in diagonal)
    frequency = np.array([result["frequency_1"][i, j] for i, j in diagonal])
    sag = np.array([np.linalg.norm([result[f"sag_{a}"][i, j] for a in "xyz"]) for i, j in diagonal])
    eigenvalues = np.array([np.linalg.eigvalsh(np.array([[result[f"compliance_{a}{b}"][i, j] for b in "xyz"]
                                                         for a in "xyz"])) for i, j in diagonal])
    torques = np.array([[result[f"input:theta{m}"][i, j] for m in (1, 2, 3)] for i, j in diagonal])
    for values in (frequency, sag, eigenvalues):
        assert np.abs(values - values[0]).max() <= 1e-9 * np.abs(values[0]).max()
    for k in (1, 2):
        assert np.allclose(np.roll(torques[0], k), torques[k], rtol=1e-9, atol=0)


def test_the_payload_sag_tends_to_the_compliance_times_the_payload(tmp_path):
    """The sag a payload F adds (the nonlinear static solve with F at P) over F tends to the compliance
    along gravity (the linearised solve at the unloaded equilibrium), the difference falling tenfold
    with F (first order: the stiffness changes with the load)."""
    problem = arm(tmp_path)
    grid = {"theta1": [0.3], "theta2": [1.0]}
    base = problem.map(grid, modes=1, workers=0)
    C = np.array([[base[f"compliance_{a}{b}"][0, 0] for b in "xy"] for a in "xy"])
    expected = C @ np.array([0.0, -1.0])  # per newton along gravity
    errors = []
    for force in (1.0, 0.1):
        loaded = problem.map(grid, modes=1, payload=force, workers=0)
        added = np.array([loaded[f"sag_{a}"][0, 0] - base[f"sag_{a}"][0, 0] for a in "xy"]) / force
        errors.append(np.linalg.norm(added - expected) / np.linalg.norm(expected))
    assert errors[0] < 1e-2
    assert np.allclose(np.array(errors[1:]) / errors[:-1], 0.1, rtol=0.1), errors
