"""Material points of a model's bodies over the frames of a run: where a point with body-frame position
``X`` is, and how its body's elastic deformation moves and turns it (the probes of a case, 003 Figs.
8-11; ``post.probes`` names the columns).

A material point has the rigid reference position ``phi + X_a d_a`` (001 eq. 4,
``kinematics.material_points``). On a flexible body the elastic displacement ``u = S(X) q`` moves it
further by ``u_a d_a`` (003 eq. 4). Both embeddings of flexible bodies (carriers, ``beam.ffr``; world
vectors, ``beam.world``) give the deformed positions as linear maps of the coordinates (``positions``:
the same map applied to the velocities gives the material velocity) and the body's elastic
coordinates q (``elastic_coordinates``); nothing here asks which embedding a body has. The elastic
displacement is deformed minus rigid reference position, in the world frame and along the body's
directors d_1, d_2 (, d_3). The section at ``X`` is turned by the rotation rows of
``BeamBody.shape_at`` applied to q: ``theta(X)``, the slope of the centre line, in the plane; in space
the small rotation (psi, theta_y, theta_z) about the directors (the twist and the two bending
rotations), in the world frame psi d_1 + theta_y d_2 + theta_z d_3.

On a later segment of a segmented link (``model.segments``) the elastic motion is the link's, measured
from the link frame (its first segment's) at the link point start + X (``link_chain``).
"""
from dataclasses import dataclass

import numpy as np

from ..numerics import kinematics as kin
from .segments import SEPARATOR, segment_name


def body_coordinates(body, q: np.ndarray, dim: int) -> np.ndarray:
    """The coordinates [phi, d_1, .., d_dim] of ``body`` over the frames q (F, n): (F, dim (dim + 1))."""
    return q[:, body.offset + np.arange(kin.body_size(dim))]


def director_angle(body, q: np.ndarray) -> np.ndarray:
    """Angle in (-pi, pi] of the director d_1 of a planar body over the frames (F,)."""
    d1 = q[:, body.offset + 2 : body.offset + 4]
    return np.arctan2(d1[:, 1], d1[:, 0])


def point_positions(body, X: np.ndarray, q: np.ndarray, dim: int) -> np.ndarray:
    """World position (F, dim) of the body-frame point X (1, dim) of ``body`` over the frames q: a
    linear map of the coordinates (module docstring), so that the same map of v gives its velocity."""
    f = body.flexible
    return kin.material_points(body_coordinates(body, q, dim), X)[:, 0] if f is None else f.positions(q, X)[:, 0]


def section_rotation(body, X: np.ndarray, q: np.ndarray, dim: int) -> np.ndarray:
    """The small rotation of the section at the body-frame point X (1, dim) over the frames q, on the
    body's directors (module docstring): (F, 1) theta in the plane, (F, 3) (psi, theta_y, theta_z) in
    space; zero on a rigid body or one without elastic coordinates."""
    f = body.flexible
    if f is None or not f.beam.n_coordinates:
        return np.zeros((len(q), 1 if dim == 2 else 3))
    return f.elastic_coordinates(q) @ f.beam.shape_at(X)[0, dim:].T


def link_chain(index: dict, body):
    """The segments of a segmented link (``model.segments``) from its first, whose frame is the link's,
    up to ``body`` when ``body`` is a later one (``NAME#i``), and the link-frame coordinates of the origin
    of ``body``'s frame (the sum of the earlier segments' end nodes: segment frames start parallel to the
    link's); None for any other body. ``index``: the model's bodies by name."""
    link, separator, number = body.name.partition(SEPARATOR)
    if not separator or not number.isdigit() or link not in index:
        return None
    chain = [index[segment_name(link, i)] for i in range(int(number))]
    return chain, sum(np.asarray(b.flexible.beam.nodes[-1], dtype=float) for b in chain[:-1])


@dataclass(frozen=True)
class ElasticMotion:
    """The elastic motion of a material point of a flexible body over F frames (module docstring):
    ``displacement`` (F, dim) the world-frame elastic displacement [m]; ``along`` (F, dim) its
    components on the directors d_a [m]; ``rotation`` the section rotation on the directors [rad], (F,
    1) theta in the plane, (F, 3) (psi, theta_y, theta_z) in space; ``turned`` (F, 3) that rotation in the
    world frame in space, None in the plane."""

    displacement: np.ndarray
    along: np.ndarray
    rotation: np.ndarray
    turned: np.ndarray | None


@dataclass(frozen=True)
class PointMotion:
    """A material point over F frames: its world ``position`` (F, dim) [m], in the plane the ``angle``
    (F,) in (-pi, pi] of its body's d_1 (of the link's first segment on a segmented link; None in space)
    [rad], and on a flexible body its ``elastic`` motion (None on a rigid one)."""

    position: np.ndarray
    angle: np.ndarray | None
    elastic: ElasticMotion | None


def point_motion(body, point, q: np.ndarray, dim: int, chain=None) -> PointMotion:
    """The motion of the material point at the body-frame ``point`` (dim,) of ``body`` over the frames q
    (F, n) (module docstring). On a later segment of a segmented link (``chain`` from ``link_chain``) the
    elastic motion is the link's, measured from the link frame (its first segment's) at the link point
    start + X: in the plane the section rotation adds the segments' turns, each wrapped to (-pi, pi]
    (continuous along the link however far it bends), and the angle is the link's; in space the rotation
    vector of the section's rotation relative to the link frame, the segments' relative rotation
    composed with the local one."""
    X = np.asarray(point, dtype=float)[None]
    frame = body_coordinates(body, q, dim)
    rigid = kin.material_points(frame, X)[:, 0]
    position = point_positions(body, X, q, dim)
    angle = director_angle(body if chain is None else chain[0][0], q) if dim == 2 else None
    if body.flexible is None:
        return PointMotion(position, angle, None)
    rotation = section_rotation(body, X, q, dim)
    if chain is not None:
        segments, start = chain
        link = body_coordinates(segments[0], q, dim)
        rigid = kin.material_points(link, start + X)[:, 0]
        if dim == 2:
            angles = np.stack([director_angle(b, q) for b in segments], axis=1)
            turns = np.mod(np.diff(angles, axis=1) + np.pi, 2 * np.pi) - np.pi
            rotation = rotation + turns.sum(axis=1)[:, None]
        else:
            D0, Di = link[:, 3:].reshape(-1, 3, 3), frame[:, 3:].reshape(-1, 3, 3)
            relative = np.einsum("fai,fbi->fab", D0, Di)  # segment-frame components -> link-frame ones
            from scipy.spatial.transform import Rotation  # here: scipy.spatial costs a run a tenth of a second
            rotation = Rotation.from_matrix(relative @ Rotation.from_rotvec(rotation).as_matrix()).as_rotvec()
        frame = link
    elastic = position - rigid
    directors = frame[:, dim:].reshape(-1, dim, dim)  # rows d_a
    along = np.einsum("fab,fb->fa", directors, elastic)
    turned = None if dim == 2 else np.einsum("fab,fa->fb", directors, rotation)
    return PointMotion(position, angle, ElasticMotion(elastic, along, rotation, turned))
