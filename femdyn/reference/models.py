"""The 3-RRR and the Stewart-Gough platform as femdyn DAE models, built from the parameters of the
analysis modules (:mod:`femdyn.reference.rrr`, :mod:`femdyn.reference.stewart`), with consistent initial
states for a platform pose and optional servo constraints along the analysis trajectories.

The two descriptions of each manipulator share nothing but the parameters: the analysis modules work
in actuated coordinates (recursive DeNOC, Gauss/Appell), the DAE models in redundant director
coordinates with joints as constraints, integrated by the energy-momentum (BEM) scheme, inverse
dynamics by servo constraints whose multipliers are the actuator inputs.  Agreement of the two is the
cross-check of the DAE against the recursive (002) and Gauss/Appell (004) formulations
(tests/test_rrr_dae.py, tests/test_stewart_dae.py).

3-RRR (planar).  Bodies ``crank<j>`` (link 1 of leg j), ``coupler<j>`` (link 2) and ``platform``;
joints ``A<j>`` (ground - crank, at the base point A_j, augmented angle ``theta<j>``: the absolute
crank angle, the actuated coordinate), ``E<j>`` (crank - coupler, the elbow) and ``B<j>`` (coupler -
platform).  Each link's director d1 points along it from joint to joint, its centre is mid-length.
Inertia: a planar body has the rotational inertia E1 + E2 only; the links take E1 = (1 - 1e-6) m l^2/12
and E2 = 1e-6 m l^2/12 (a slender bar of hair width), so that E1 + E2 = m l^2/12 as in
``RRRParameters``; the platform takes E1 = E2 = I_p / 2 (the equilateral plate is isotropic in its
plane).  Servo (``servo=True``): the platform centre on the circle (trajectory ``Circle``), the
platform angle swinging (``Swing``), both relative to the initial pose -- exactly
``rrr.circle_trajectory`` with ``center`` = the initial pose; inputs: the three crank torques.

Stewart-Gough (spatial).  Bodies ``platform``, ``cylinder<i>`` and ``piston<i>``; joints ``U<i>``
(universal, ground - cylinder at A_i), ``P<i>`` (prismatic, cylinder - piston, augmented slide
``L<i>``) and ``S<i>`` (spherical, piston - platform at B_i).  The slide is measured from A_i (the
cylinder's point -c_c e1) to B_i (the piston's point +c_p e1), so ``L<i>`` is the leg length L_i and
its generalised force is the leg force f_i, pushing the platform away from the base when positive.
The cylinder's d1 is the leg direction u_i; the universal joint's base axis n_i is horizontal and
perpendicular to the leg at the pose that builds the model (default: home), its cylinder axis is the
cylinder's d2 = n_i x u_i / |n_i x u_i|, so the joint is far from its own singularity (u_i along n_i).

Modelling statement (legs' axial inertia).  The Gauss/Appell model treats cylinder and piston as
slender bars with no inertia about the leg axis, and assumes omega_i . u_i = 0.  A universal joint,
however, drives the cylinder's spin about its own axis: omega_c = omega_i + s_i u_i with s_i fixed by
n_i . (omega_c x d2) = 0, in general non-zero.  The two models therefore describe the same mechanics
exactly only if the legs have no axial inertia.  A director body needs E_a > 0, so the legs take
E1 = I_t - eps, E2 = E3 = eps with I_t = m l^2 / 12: transverse inertia E1 + E3 = I_t exactly, axial
inertia E2 + E3 = 2 eps, eps = ``axial_inertia`` * I_t (default 1e-10).  The spin kinetic energy
eps s_i^2 and its inertia torques are O(eps / I_t) of the leg's, and so is the disagreement with
Gauss/Appell, proportionally: measured on platform_trajectory, about 0.04 eps relative in the leg
forces and 0.9 eps in the platform accelerations, i.e. 4e-12 and 1e-10 at the default, 4e-6 and 1e-4
at axial_inertia = 1e-4 (tests/test_stewart_dae.py).  The same holds for the platform: a flat disc has
E3 = (J1 + J2 - J3)/2 = 0, replaced by ``axial_inertia`` * max(J) (J1 and J2 larger by that).  Tiny
Euler values do not make the DAE singular: the joints fix the spin of the legs and the orthonormality
rows fix d3, so the saddle-point matrix stays regular; they only add the spin energy.  One limit:
``prepare`` projects the initial state in the metric of the mass matrix, and its Cholesky
factorisation of G M^-1 G^T fails for 48 and more legs at the default 1e-10 (the states of
:func:`stewart_state` are consistent already); take axial_inertia = 1e-8 there.
With ``servo=True`` the platform centre and orientation follow ``stewart.platform_trajectory``
(absolute targets; point servo and orientation servo), inputs the six slides.  Other than six legs
cannot be servo-driven (as many inputs as servo rows are needed); they can be driven by leg forces.
"""
import numpy as np

from ..joints.trajectories import Circle, Function, Swing
from ..model.builder import ModelBuilder, axis_frame
from ..model.initial import place
from . import rrr, stewart

__all__ = [
    "AXIAL_INERTIA", "HAIR", "platform_accelerations", "platform_target_accelerations",
    "rrr_actuated", "rrr_model", "rrr_platform", "rrr_state", "stewart_legs", "stewart_model", "stewart_platform",
    "stewart_state",
]

HAIR = 1e-6
"""Share of a planar link's inertia m l^2/12 put into E2 (its width): E1 + E2 stays m l^2/12."""
AXIAL_INERTIA = 1e-10
"""Default axial inertia of the Stewart legs (E2 = E3 = eps) relative to their transverse inertia."""


# ------------------------------------------------------------------------------------------ 3-RRR

def rrr_model(params=None, servo=False, trajectory=None, torques=None):
    """The 3-RRR of ``params`` (default ``RRRParameters()``) as a femdyn Model (see module docstring).

    servo: add the servo constraints of ``rrr.circle_trajectory`` with the keyword arguments
        ``trajectory`` (radius, angular_speed, t_ramp, rotation; their defaults if not given), relative
        to the initial platform pose, and the crank angles ``theta1..3`` as inputs.
    torques: optional three callables f(t), crank torques applied as joint loads on ``theta1..3``.
    """
    p = rrr.RRRParameters() if params is None else params
    b = ModelBuilder(2)
    width = 0.02
    for j in range(1, 4):
        for name, m, length, inertia in (("crank", p.m1, p.l1, p.inertia1), ("coupler", p.m2, p.l2, p.inertia2)):
            b.add_body(f"{name}{j}", m, [(1.0 - HAIR) * inertia, HAIR * inertia], size=[length, width])
    side = np.sqrt(3.0) * p.platform_radius
    b.add_body("platform", p.platform_mass, [p.platform_inertia / 2.0] * 2, size=[side, side])
    for j in range(1, 4):
        A, B = p.base_points[j - 1], p.platform_points[j - 1]
        b.add_joint(f"A{j}", "revolute", "ground", f"crank{j}", point1=A, point2=[-p.l1 / 2, 0.0], angle=f"theta{j}")
        b.add_joint(f"E{j}", "revolute", f"crank{j}", f"coupler{j}", point1=[p.l1 / 2, 0.0], point2=[-p.l2 / 2, 0.0])
        b.add_joint(f"B{j}", "revolute", f"coupler{j}", "platform", point1=[p.l2 / 2, 0.0], point2=B)
    if any(p.gravity):
        b.set_gravity(p.gravity)
    if torques is not None:
        if len(torques) != 3:
            raise ValueError(f"3-RRR: three crank torques are needed, got {len(torques)}")
        for j, f in enumerate(torques, start=1):
            b.add_joint_load(f"theta{j}", f)
    if servo:
        kw = dict(radius=0.04, angular_speed=2.0 * np.pi, t_ramp=0.5, rotation=0.2)
        unknown = set(trajectory or {}) - set(kw)
        if unknown:
            raise ValueError(f"3-RRR servo trajectory: unknown arguments {sorted(unknown)} (known: {sorted(kw)})")
        kw.update(trajectory or {})
        b.add_servo_point("centre", "platform", [0.0, 0.0], Circle(kw["radius"], kw["angular_speed"], kw["t_ramp"]))
        b.add_servo_angle("swing", "platform", Swing(kw["rotation"], kw["angular_speed"], kw["t_ramp"]))
        b.set_inputs(["theta1", "theta2", "theta3"])
    return b.build()


def rrr_state(model, params, pose, twist=(0.0, 0.0, 0.0)):
    """Consistent (q, v) of an ``rrr_model`` for a platform pose (x, y, phi) and twist
    (phi_dot, x_dot, y_dot), in the working mode ``params.branch``: link poses by ``rrr.body_poses``,
    link twists by ``rrr.link_twists`` (002 eq. 25); the joint angles are measured from the bodies."""
    centres, angles = rrr.body_poses(params, pose)
    twists = rrr.link_twists(params, pose, twist)[0]
    bodies = {}
    for j in range(3):
        for k, name in enumerate(("crank", "coupler", "platform")):
            key = name if name == "platform" else f"{name}{j + 1}"
            bodies[key] = dict(position=centres[j, k], angle=angles[j, k], velocity=twists[j, k, 1:],
                               angular_velocity=twists[j, k, 0])
    return place(model, bodies, {})


def _index(model, name):
    return [b.name for b in model.bodies].index(name)


def rrr_platform(model, q):
    """Platform pose(s) (x, y, phi) of state(s) q (..., n)."""
    centres, rotations = model.frames(q)
    k = _index(model, "platform")
    return np.concatenate([centres[..., k, :], np.arctan2(rotations[..., k, 1, 0], rotations[..., k, 0, 0])[..., None]],
                          axis=-1)


def rrr_actuated(model, q):
    """Crank angles theta1..3 of state(s) q (..., n) (the augmented coordinates)."""
    return q[..., [model.joint_coordinates[f"theta{j}"] for j in range(1, 4)]]


# ------------------------------------------------------------------------------------ Stewart-Gough

def _leg_frame(u, n):
    """Cylinder (and piston) directors [u, w, u x w], w = n x u / |n x u|: d1 along the leg, d2 the
    universal joint's cylinder axis (perpendicular to the base axis n)."""
    w = np.cross(n, u)
    w /= np.linalg.norm(w)
    return np.column_stack([u, w, np.cross(u, w)])


def _base_axis(u):
    """Horizontal unit vector perpendicular to the leg direction u (e_x for a vertical leg)."""
    n = np.cross([0.0, 0.0, 1.0], u)
    norm = np.linalg.norm(n)
    return n / norm if norm > 1e-8 else np.array([1.0, 0.0, 0.0])


def stewart_model(params=None, servo=False, trajectory=None, forces=None, axial_inertia=AXIAL_INERTIA, pose=None):
    """The Stewart-Gough platform of ``params`` (default ``StewartParameters()``) as a femdyn Model.

    servo: True: the platform centre and orientation follow ``stewart.platform_trajectory(params, t,
        **trajectory)``; or a callable motion(t) -> (position, rotation, twist, ...) of the platform
        (e.g. a constant pose held under gravity).  Absolute targets; the slides ``L1..Ln`` are the
        inputs (six legs only).
    forces: optional n callables f(t), leg forces applied as joint loads on ``L1..Ln``.
    axial_inertia: the legs' axial inertia relative to their transverse inertia (module docstring).
    pose: (position, rotation) at which the universal joints' base axes are chosen (default home).
    """
    p = stewart.StewartParameters() if params is None else params
    n = p.n_legs
    if not (p.cylinder_mass > 0 and p.piston_mass > 0):
        raise ValueError("the DAE model needs legs with mass: a director body has a positive mass")
    if not 0 < axial_inertia < 0.5:
        raise ValueError(f"axial_inertia must lie in (0, 0.5), got {axial_inertia}")
    if servo and n != 6:
        raise ValueError(f"servo-driven inverse dynamics needs six legs (6 servo rows, one input each), got {n}")
    position, rotation = (p.home_position, np.eye(3)) if pose is None else pose
    legs = stewart.inverse_kinematics(p, position, rotation)
    b = ModelBuilder(3)
    J = np.asarray(p.platform_inertia, dtype=float)
    E = 0.5 * J.sum() - J
    floor = axial_inertia * J.max()
    E = np.maximum(E, floor)   # a flat platform (E3 = 0) gets a hair of thickness
    radius = np.max(np.linalg.norm(p.platform_points, axis=1))
    b.add_body("platform", p.platform_mass, E, size=[2 * radius, 2 * radius, 0.02])
    c_c, c_p = p.cylinder_length / 2.0, p.piston_length / 2.0
    for i in range(1, n + 1):
        for name, m, length, inertia, width in (
                ("cylinder", p.cylinder_mass, p.cylinder_length, p.cylinder_inertia, 0.06),
                ("piston", p.piston_mass, p.piston_length, p.piston_inertia, 0.04)):
            eps = axial_inertia * inertia
            b.add_body(f"{name}{i}", m, [inertia - eps, eps, eps], size=[length, width, width])
    for i in range(1, n + 1):
        axis = _base_axis(legs.directions[i - 1])
        b.add_joint(f"U{i}", "universal", "ground", f"cylinder{i}", point1=p.base_points[i - 1],
                    point2=[-c_c, 0.0, 0.0], axis=axis, relative_rotation=axis_frame(axis))
        b.add_joint(f"P{i}", "prismatic", f"cylinder{i}", f"piston{i}", point1=[-c_c, 0.0, 0.0],
                    point2=[c_p, 0.0, 0.0], slide=f"L{i}")
        b.add_joint(f"S{i}", "spherical", f"piston{i}", "platform", point1=[c_p, 0.0, 0.0],
                    point2=p.platform_points[i - 1])
    if any(p.gravity):
        b.set_gravity(p.gravity)
    if forces is not None:
        if len(forces) != n:
            raise ValueError(f"Stewart: {n} leg forces are needed, got {len(forces)}")
        for i, f in enumerate(forces, start=1):
            b.add_joint_load(f"L{i}", f)
    if servo:
        if callable(servo):
            motion = servo
        else:
            kw = dict(trajectory or {})
            motion = lambda t: stewart.platform_trajectory(p, t, **kw)  # noqa: E731
        b.add_servo_point("centre", "platform", [0.0, 0.0, 0.0],
                          Function(lambda t: motion(t)[0], lambda t: motion(t)[2][3:], 3), relative=False)
        b.add_servo_orientation("orientation", "platform", lambda t: (motion(t)[1], motion(t)[2][:3]),
                                relative=False)
        b.set_inputs([f"L{i}" for i in range(1, n + 1)])
    return b.build()


def stewart_state(model, params, position, rotation, twist=None):
    """Consistent (q, v) of a ``stewart_model`` for a platform pose and twist (omega_0, v_0).

    Legs by ``stewart.inverse_kinematics`` and ``stewart.leg_velocities``: cylinder and piston on the
    leg line with directors :func:`_leg_frame`; their angular velocity is the leg's omega_i plus the
    spin s_i u_i that the universal joint imposes, n_i . (omega x d2) = 0."""
    twist = np.zeros(6) if twist is None else np.asarray(twist, dtype=float)
    legs = stewart.inverse_kinematics(params, position, rotation)
    omega = stewart.leg_velocities(params, position, rotation, twist)[1]
    v_B = twist[3:] + np.cross(twist[:3], legs.arms)
    c_c, c_p = params.cylinder_length / 2.0, params.piston_length / 2.0
    bodies = {"platform": dict(position=np.asarray(position, float), rotation=np.asarray(rotation, float),
                               velocity=twist[3:], angular_velocity=twist[:3])}
    joints = {j.name: j for j in model.joints}
    for i in range(params.n_legs):
        u, w_leg = legs.directions[i], omega[i]
        n = joints[f"U{i + 1}"].frame1[:, 0]
        R = _leg_frame(u, n)
        cross_axis = np.cross(R[:, 1], n)
        spin = -(w_leg @ cross_axis) / (u @ cross_axis)
        w = w_leg + spin * u
        bodies[f"cylinder{i + 1}"] = dict(position=legs.base[i] + c_c * u, rotation=R,
                                          velocity=c_c * np.cross(w_leg, u), angular_velocity=w)
        bodies[f"piston{i + 1}"] = dict(position=legs.tips[i] - c_p * u, rotation=R,
                                        velocity=v_B[i] - c_p * np.cross(w_leg, u), angular_velocity=w)
    return place(model, bodies, {})


def stewart_platform(model, q, v):
    """Platform position, rotation (directors as columns) and twist (omega_0, v_0) of a state (the
    body named ``platform`` of a spatial model)."""
    k = _index(model, "platform")
    dofs = model.body_dofs(k)
    D, Dd = q[dofs[3:]].reshape(3, 3), v[dofs[3:]].reshape(3, 3)   # rows: directors and their rates
    omega = 0.5 * np.sum(np.cross(D, Dd), axis=0)
    return q[dofs[:3]].copy(), D.T.copy(), np.concatenate([omega, v[dofs[:3]]])


def platform_accelerations(model, q, v, a):
    """Platform twist rate (omega_0_dot, a_0) from DAE accelerations a: with the directors' rates
    d_a' = omega x d_a, omega_dot = 1/2 sum_a d_a x (d_a'' - omega x (omega x d_a))."""
    k = _index(model, "platform")
    dofs = model.body_dofs(k)
    D, Ddd = q[dofs[3:]].reshape(3, 3), a[dofs[3:]].reshape(3, 3)
    omega = stewart_platform(model, q, v)[2][:3]
    centripetal = np.cross(omega, np.cross(omega, D))
    return np.concatenate([0.5 * np.sum(np.cross(D, Ddd - centripetal), axis=0), a[dofs[:3]]])


def platform_target_accelerations(model, q, twist, twist_dot):
    """DAE accelerations (n,) that are zero except on the platform: phi'' = a_0 and
    d_a'' = omega_dot x d_a + omega x (omega x d_a) for the twist and twist rate."""
    k = _index(model, "platform")
    dofs = model.body_dofs(k)
    D = q[dofs[3:]].reshape(3, 3)
    omega, omega_dot = np.asarray(twist[:3], float), np.asarray(twist_dot[:3], float)
    a = np.zeros(model.n)
    a[dofs[:3]] = twist_dot[3:]
    a[dofs[3:]] = (np.cross(omega_dot, D) + np.cross(omega, np.cross(omega, D))).ravel()
    return a


def stewart_legs(model, q):
    """Leg lengths L1..Ln of state(s) q (the augmented slides)."""
    names = sorted((c for c in model.joint_coordinates if c.startswith("L")), key=lambda c: int(c[1:]))
    return q[..., [model.joint_coordinates[c] for c in names]]


