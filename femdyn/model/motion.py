"""Kinematic measures of a model's configurations and motions: the bodies' frames with their velocities
and angular velocities (the rows of ``bodies.csv`` and of the ParaView series), and back the
coordinates of given frames and joint coordinates; the largest motion of a mode shape and the extent
of the model (the amplitude of a mode's animation).

The angular velocity follows from the director rates (000 eq. 8: the directors d_a are orthonormal,
so d_a' = omega x d_a): omega = d_1 x d_1' in the plane, omega = 1/2 sum_a d_a x d_a' in space."""
import numpy as np

from ..numerics import kinematics as kin


def body_motion(model, q, v):
    """Centres, rotations (columns = directors), centre velocities and angular velocities (module
    docstring) of every body of ``model`` over the frames q, v (F, n): (F, B, dim), (F, B, dim, dim),
    (F, B, dim) and (F, B) in 2D or (F, B, 3)."""
    centres, rotations = model.frames(q)
    velocities, rates = model.frames(v)  # director rates as columns
    if model.dim == 2:
        omega = rotations[..., 0, 0] * rates[..., 1, 0] - rotations[..., 1, 0] * rates[..., 0, 0]
    else:
        omega = 0.5 * np.cross(np.swapaxes(rotations, -1, -2), np.swapaxes(rates, -1, -2)).sum(axis=-2)
    return centres, rotations, velocities, omega


def rigid_coordinates(model, centres, rotations, joints):
    """Coordinates q (n,) with the bodies' centres (B, dim) and rotations (B, dim, dim; columns the
    directors d_a, 000 eq. 8; in the plane also the angles (B,) of d_1), the ground's frame the identity
    at the origin, the joint coordinates ``joints`` {name: value} and the elastic coordinates zero: the
    inverse of ``model.frames``."""
    dim, q = model.dim, np.zeros(model.n)
    if dim == 2 and np.ndim(rotations) == 1:
        rotations = [kin.rotation_2d(angle) for angle in rotations]
    for body, centre, rotation in zip(model.bodies, centres, rotations):
        q[body.offset:body.offset + kin.body_size(dim)] = np.concatenate([centre, np.asarray(rotation).T.ravel()])
    if model.ground is not None:
        q[model.ground * kin.body_size(dim):(model.ground + 1) * kin.body_size(dim)] = \
            np.concatenate([np.zeros(dim), np.eye(dim).ravel()])
    for name, value in joints.items():
        q[model.joint_coordinates[name]] = value
    return q


def largest_motion(model, x):
    """The largest speed of a body's box corner or a flexible body's centre-line point for the velocity
    x (n,) (the motion of a mode)."""
    dim = model.dim
    corners = np.array(np.meshgrid(*[[-0.5, 0.5]] * dim)).reshape(dim, -1).T
    speeds = [0.0]
    for body in model.bodies:
        if body.flexible is None:
            local = kin.material_points(x[body.offset + np.arange(kin.body_size(dim))], corners * body.size)
        else:
            local = body.flexible.element_points(x[None], np.linspace(0.0, 1.0, 5))
        speeds.append(float(np.linalg.norm(local, axis=-1).max()))
    return max(speeds)


def model_size(model, q):
    """The extent of the model at q: the spread of the bodies' centres and their largest box."""
    centres, _ = model.frames(q)
    return float(max(np.ptp(centres, axis=0).max(), max(float(np.max(b.size)) for b in model.bodies)))
