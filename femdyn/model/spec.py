"""The frozen specification of a model: what ``builder.ModelBuilder`` collected and checked, as records
that cannot change (frozen dataclasses, tuples, read-only arrays). ``model.Model`` numbers a
``ModelSpec`` into coordinates, constraint families and forces; the records keep the builder's
names and units (body-frame points, world-frame forces)."""
from dataclasses import dataclass

import numpy as np

from ..beam.spatial_ffr import CARRIER_SIZE
from ..beam.world import WorldBeam, uses_world_embedding, world_unknowns
from ..beam.world.embedding import same_point, section_size
from ..joints.registry import JOINT_TYPES
from ..numerics import kinematics as kin
from .errors import GROUND


def frozen_array(values):
    """A read-only float copy of ``values``: changing the caller's array later changes no record."""
    array = np.array(values, dtype=float)
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class BodySpec:
    """A body: mass, Euler-tensor eigenvalues E_1..E_dim (000 eq. 13, 001 eq. 7) and the box edge
    lengths it is drawn with; a flexible body also has its ``beam.BeamBody`` and whether its
    geometric stiffening is added (``beam.elasticity``, ``beam.world``)."""

    name: str
    mass: float
    euler: np.ndarray
    size: np.ndarray
    beam: object = None
    stiffening: bool = False


@dataclass(frozen=True)
class JointSpec:
    """A pair between ``bodies`` (names, either may be the ground): the joint point in each body's
    frame, the joint frames (columns, x = joint axis) in each body's frame, and the names of its
    augmented angle and slide coordinates (None: not augmented; 000 eqs. 27, 49)."""

    name: str
    type: str
    bodies: tuple
    point1: np.ndarray
    point2: np.ndarray
    frame1: np.ndarray
    frame2: np.ndarray
    angle: str | None
    slide: str | None


@dataclass(frozen=True)
class CoordinateLoadSpec:
    """A torque or force ``function(t)`` on an augmented joint coordinate (000 eq. 43)."""

    coordinate: str
    function: object


@dataclass(frozen=True)
class PointForceSpec:
    """A force ``function(t) * force`` (world components) at body point ``point`` (body frame)."""

    body: str
    point: np.ndarray
    force: np.ndarray
    function: object
    frame: str = "world"  # "body": the components follow the body's frame (the section's axes at the point)


@dataclass(frozen=True)
class TorqueSpec:
    """A torque ``function(t) * torque`` (world components in space, a scalar in the plane) on the
    section of body ``body`` at its material point ``point`` (body frame; on a rigid body any point)."""

    body: str
    point: np.ndarray
    torque: np.ndarray
    function: object
    frame: str = "world"  # "body": the components follow the section's axes (space)


@dataclass(frozen=True)
class SpringSpec:
    """A spring-damper between ``points`` (body frames) of ``bodies``."""

    name: str
    bodies: tuple
    points: tuple
    stiffness: float
    damping: float
    free_length: float


@dataclass(frozen=True)
class FrictionSpec:
    """Stick-slip friction (001 section 4.2) on an augmented joint coordinate."""

    coordinate: str
    stiffness: float
    max_force: float


@dataclass(frozen=True)
class ServoSpec:
    """A servo (000 eqs. 58-59, 78-84) of ``kind`` "point" or "polar" (``body``, ``point``), "angle" or
    "orientation" (``body``) or "coordinate" (``coordinate``). ``target``: the trajectory, or for an
    orientation the callable t -> (R, omega); ``relative``: the target is added to the initial value;
    ``on`` (body servos): "material" (the material point, deformed on a flexible body) or "frame" (the
    point phi + X_a d_a the body's floating frame carries: its reference motion; angles and orientations
    are always the frame's)."""

    name: str
    kind: str
    target: object
    body: str | None = None
    point: np.ndarray | None = None
    coordinate: str | None = None
    relative: bool = False
    on: str | None = None


@dataclass(frozen=True)
class ModelSpec:
    """Everything a model is built from, in the order given: bodies, joints, gravity (None: none),
    loads, springs, frictions, servos and the input coordinates paired in order with the servo rows
    (000 eq. 84), and the torques at material points."""

    dim: int
    bodies: tuple
    joints: tuple
    gravity: np.ndarray | None
    coordinate_loads: tuple
    point_forces: tuple
    springs: tuple
    frictions: tuple
    servos: tuple
    inputs: tuple
    torques: tuple = ()

    def grounded(self):
        """Whether a joint or a spring is attached to the ground (which then has coordinates, held fixed)."""
        return any(GROUND in x.bodies for x in (*self.joints, *self.springs))

    def section_points(self):
        """{body name: [body-frame points]}: the material points of the world-vector beams
        (``beam.world``) that carry section carriers -- the joint points whose joint frames must turn
        with the section (``oriented_sides``), the points of torques and of forces that follow the body,
        where the section does turn (not at a fixed end), each point once."""
        worlds = {b.name: WorldBeam(b.name, b.beam, b.stiffening, 0, 0) for b in self.bodies
                  if b.beam is not None and uses_world_embedding(b.beam)}
        points = {name: [] for name in worlds}
        sides = [(oriented, body, point) for j in self.joints for oriented, body, point in
                 zip(oriented_sides(j.type, j.angle is not None, j.slide is not None, self.dim), j.bodies,
                     (j.point1, j.point2))]
        loads = [(True, t.body, t.point) for t in self.torques] + [
            (True, p.body, p.point) for p in self.point_forces if p.frame == "body"]
        for oriented, body, point in sides + loads:
            if (oriented and body in worlds and worlds[body].needs_section(point)
                    and not any(same_point(point, p) for p in points[body])):
                points[body].append(point)
        return points

    def coordinate_count(self):
        """The number n of coordinates of the model built from this specification, counted without
        building it: the directors of the bodies and the ground, the joints' angles and slides, per
        elastic coordinate of a beam embedded by carriers the coordinate and its carrier 2-vector
        (``beam.ffr``) or its three carrier 3-vectors (``beam.spatial_ffr``), and the unknowns and section carriers of the world-vector beams, as ``Model``
        numbers them."""
        joint_coordinates = sum(getattr(j, kind) is not None for j in self.joints for kind in ("angle", "slide"))
        sections = self.section_points()
        elastic = sum(world_unknowns(b.beam) + section_size(self.dim) * len(sections[b.name])
                      if b.name in sections else (3 if self.dim == 2 else CARRIER_SIZE) * b.beam.n_coordinates
                      for b in self.bodies if b.beam is not None)
        return (len(self.bodies) + self.grounded()) * kin.body_size(self.dim) + joint_coordinates + elastic


def oriented_sides(type, angle, slide, dim):
    """Whether each side of a joint of ``type``, augmented with its angle and/or slide (booleans), uses
    its joint frame's axes in ``dim`` dimensions: both sides of a pair whose rows use them
    (``JointPair.oriented``) or that is augmented with its angle, and the first side of one
    augmented with its slide (000 eqs. 27, 49)."""
    both = JOINT_TYPES[type].oriented(dim) or angle
    return both or slide, both
