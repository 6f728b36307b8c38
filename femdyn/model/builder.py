"""Building a model: bodies, joints, loads, servos and inputs are collected by ``ModelBuilder`` as
frozen records (``spec``), checked as they come; ``build()`` hands the frozen ``spec.ModelSpec`` to
``model.Model``, which numbers everything into an immutable model."""
import warnings

import numpy as np

from ..joints.registry import JOINT_TYPES
from ..numerics import kinematics as kin
from .errors import GROUND, ModelError
from .model import Model
from .segments import SegmentedLink
from .spec import (
    BodySpec,
    CoordinateLoadSpec,
    FrictionSpec,
    JointSpec,
    ModelSpec,
    PointForceSpec,
    ServoSpec,
    SpringSpec,
    TorqueSpec,
    frozen_array,
)


def axis_frame(axis):
    """Joint frame (columns) whose x axis is ``axis``: [n, n rotated by 90 deg] in the plane,
    [n, y, z] right-handed in space, y the coordinate axis least aligned with n made orthogonal to it
    (``kinematics.perpendicular_frame``: equal axes give equal frames)."""
    n = np.asarray(axis, dtype=float)
    n = n / np.linalg.norm(n)
    if n.size == 2:
        return np.column_stack([n, [-n[1], n[0]]])
    f = kin.perpendicular_frame(n)  # z = n
    return np.column_stack([n, f[:, 0], f[:, 1]])


SERVO_ON = ("material", "frame")  # what a point or polar servo prescribes (``ModelBuilder._servo_point``)
STEEL_DENSITY = 7850.0  # kg/m^3: the drawn size of bodies without extent along a direction


def euler_from_inertia(J):
    """Euler-tensor eigenvalues from principal moments of inertia: E_i = (J_j + J_k - J_i)/2."""
    J = np.asarray(J, dtype=float)
    return 0.5 * (J.sum() - 2.0 * J)


def inertia_violation(J) -> str | None:
    """What is wrong with the principal moments J = [J1, J2, J3] of a rigid body, or None: each must be at
    most the sum of the other two (the triangle inequality of a body's principal moments, E_i >= 0 of
    ``euler_from_inertia``)."""
    J = np.asarray(J, dtype=float)
    euler = euler_from_inertia(J)
    if np.all(euler >= 0):
        return None
    i = int(np.argmin(euler))
    j, k = (x + 1 for x in range(3) if x != i)
    return (f"principal moments [{', '.join(f'{x:g}' for x in J)}]: J{i + 1} > J{j} + J{k} (no body has that; "
            f"J{i + 1} = J{j} + J{k} is a flat body)")

class ModelBuilder:
    """Collects bodies, joints and loads as frozen records (``spec``); ``build()`` numbers them and
    returns a ``Model``."""

    axis_frame = staticmethod(axis_frame)  # the joint frame of an axis (``add_joint``), public for relative rotations

    def __init__(self, dim):
        if dim not in (2, 3):
            raise ModelError("dimension", f"must be 2 or 3, got {dim!r}")
        self.dim = dim
        self._bodies, self._joints, self._coordinate_loads, self._point_forces = [], [], [], []
        self._gravity = None
        self._springs, self._servos, self._frictions = [], [], []
        self._inputs = ()
        self._torques = []
        self._links = {}  # segmented links by name (``segments.SegmentedLink``)

    def add_body(self, name, mass, euler=None, size=None, *, inertia=None):
        """A rigid body with mass and Euler-tensor eigenvalues E_1..E_dim (000 eq. 13, 001 eq. 7),
        E_a = int X_a^2 dm >= 0. A zero value is a body without extent along d_a: a flat body (a disc
        or plate, E_3 = 0: J_2 = J_1 + J_3), a slender rod (all but E_1 zero) or a point mass (all
        zero). Its director d_a then carries no mass; the orthonormality rows fix it where another
        director has mass, and the joints must fix a point mass's rotation (``setup.prepare`` checks
        that the mass matrix is positive definite on the motions the constraints allow).

        In 3D the principal moments of inertia about the centre, ``inertia`` = [J1, J2, J3] (kg m^2, about
        d_1, d_2, d_3), may be given instead of ``euler`` (exactly one of the two), as the case file's
        ``inertia``: E_i = (J_j + J_k - J_i)/2 (``euler_from_inertia``)."""
        self._check_name(name)
        if (euler is None) == (inertia is None):
            raise ModelError(f"body '{name}'", "give exactly one of euler or inertia")
        if inertia is not None:
            euler = self._euler_of(name, inertia)
        euler = np.asarray(euler, dtype=float)
        if not mass > 0:
            raise ModelError(f"body '{name}'.mass", f"must be > 0, got {mass}")
        if euler.shape != (self.dim,) or not np.all(euler >= 0):
            raise ModelError(f"body '{name}'.euler", f"needs {self.dim} values >= 0, got {euler.tolist()}")
        if size is None:  # the uniform box with the same Euler tensor: E_a = m l_a^2 / 12
            size = np.sqrt(12.0 * euler / mass)
            if not np.all(size > 0):  # drawn as a box of steel's density in its flat directions
                size = np.where(size > 0, size, (mass / STEEL_DENSITY) ** (1.0 / self.dim))
        self._bodies.append(BodySpec(name, float(mass), frozen_array(euler), frozen_array(size)))

    def _euler_of(self, name, inertia):
        """The Euler-tensor eigenvalues of body ``name`` from its principal moments ``inertia`` (3D only)."""
        J = np.asarray(inertia, dtype=float)
        if self.dim != 3:
            raise ModelError(f"body '{name}'.inertia", "only in 3D models; give euler = [E1, E2] in 2D")
        if J.shape != (3,) or not np.all(J >= 0):
            raise ModelError(f"body '{name}'.inertia", f"needs 3 values >= 0, got {J.tolist()}")
        wrong = inertia_violation(J)
        if wrong:
            raise ModelError(f"body '{name}'.inertia", wrong)
        return euler_from_inertia(J)

    def add_beam(self, name, beam, stiffening=None, segments=1):
        """A flexible body: a ``beam.BeamBody`` whose body frame is carried by the director frame,
        embedded by world vectors (``beam.world``: FEM bodies of the cubic axial shape) or by carriers
        (``beam.ffr``, ``beam.spatial_ffr``: Rayleigh-Ritz, modal and linear-axial bodies); ``stiffening``
        adds the geometric stiffening; None (the default) as a case file's ``geometric_stiffening``
        default: on for a FEM body with nodal elastic coordinates, off for a modal one
        (``modal_frequencies``) and a Rayleigh-Ritz one (``BeamBody.rayleigh_ritz``; with a
        ``DeprecationWarning``: it was on for those from 0.1.0's first change until issue 36).
        A straight spatial beam lies along d_1, its section's depth h along d_2 and width b along d_3; along a polyline each section turns with its element by the
        minimal rotation from d_1 to the element's tangent (``beam.spatial``). ``segments`` = k > 1
        splits the body into k floating-frame segments welded end to end (``segments.SegmentedLink``),
        for large deflections; points of the link given later (joints, loads, servos, springs) go to
        the segment that holds them (``resolve``)."""
        self._check_name(name)
        if segments != 1:
            link = SegmentedLink.split(name, beam, segments)
            for piece, part in zip(link.names, link.beams):
                self.add_beam(piece, part, stiffening)
            for weld, before, end, after in link.welds():
                self.add_joint(weld, "fixed", before, after, point1=end)
            self._links[name] = link
            return
        if beam.dim != self.dim:
            raise ModelError(f"body '{name}'", f"a {beam.dim}D beam in a {self.dim}D model")
        if stiffening is None:
            stiffening = beam.modal_frequencies is None and not beam.ritz
            if beam.ritz:
                warnings.warn(f"ModelBuilder.add_beam('{name}'): a Rayleigh-Ritz body now has no geometric stiffening "
                              "by default, as in a case file (geometric_stiffening defaults to true for FEM bodies "
                              "only); pass stiffening=True for the earlier default, stiffening=False to silence this",
                              DeprecationWarning, stacklevel=2)
        if stiffening and beam.modal_frequencies is not None:
            raise ModelError(f"body '{name}'.geometric_stiffening",
                             "needs nodal elastic coordinates (FEM or Rayleigh-Ritz), not modes")
        mass, _, second_moment = beam.rigid_inertia
        self._bodies.append(BodySpec(name, mass, frozen_array(np.diag(second_moment)),
                                     frozen_array(np.ptp(beam.nodes, axis=0)), beam, bool(stiffening)))

    def add_attachment(self, name, body, point, mass, euler=None, *, inertia=None):
        """A mass attached at the material point ``point`` (body frame) of the rigid or flexible body
        ``body`` -- a motor, a gripper, a tool: a rigid body ``name`` (a point mass unless its Euler-tensor
        eigenvalues ``euler``, or in 3D its principal moments ``inertia``, are given, about its centre,
        along the carrier's frame there) welded by a fixed joint named '<name>@<body>' at the point (the
        case file's ``[[attachments]]``). Returns the joint's name."""
        if euler is None and inertia is None:
            euler = np.zeros(self.dim)
        self.add_body(name, mass, euler, inertia=inertia)
        joint = f"{name}@{body}"
        self.add_joint(joint, "fixed", body, name, point1=point, point2=np.zeros(self.dim))
        return joint

    def __repr__(self):
        counts = {"bodies": self._bodies, "joints": self._joints, "loads": [*self._coordinate_loads,
                  *self._point_forces, *self._torques], "springs": self._springs, "friction": self._frictions,
                  "servos": self._servos}
        parts = [f"{len(items)} {kind}" for kind, items in counts.items() if items or kind in ("bodies", "joints")]
        flexible = sum(b.beam is not None for b in self._bodies)
        names = ", ".join(b.name for b in self._bodies[:8]) + (", .." if len(self._bodies) > 8 else "")
        return (f"<ModelBuilder {self.dim}D: {', '.join(parts)}{f' ({flexible} flexible)' if flexible else ''}"
                f"{'; gravity ' + str(self._gravity.tolist()) if self._gravity is not None else ''}"
                f"{'; bodies ' + names if names else ''}>")

    def _check_name(self, name):
        """Refuse the ground's name or the name of a body (or segmented link) added before."""
        if name == GROUND or name in self._links or any(b.name == name for b in self._bodies):
            raise ModelError(f"body '{name}'", "name is reserved or used twice")

    def add_joint(self, name, type, body1, body2, point1=None, point2=None, axis=None,
                  relative_rotation=None, angle=None, slide=None):
        """A pair between ``body1`` and ``body2`` (either may be "ground").

        point1/point2: joint point in each body's frame (default: centre of mass).
        axis: joint axis in body-1 coordinates (rotation axis in space, sliding axis; default e_1).
        relative_rotation: orientation of body 2 relative to body 1 at which the pair is assembled
            (planar: an angle; spatial: a 3x3 rotation), default identity. The joint's frame is
            ``ModelBuilder.axis_frame(axis)`` (columns [axis, y, z]) on body 1 and that frame turned back
            by ``relative_rotation`` on body 2; a universal joint's second axis is its y on body 2, so
            ``relative_rotation = ModelBuilder.axis_frame(axis)`` puts it along body 2's d_2.
        angle/slide: name of an augmented coordinate for the joint angle / slide (000 eqs. 27, 49).
        """
        cls = JOINT_TYPES.get(type)
        where = f"joint '{name}'"
        if cls is None:
            raise ModelError(f"{where}.type", f"unknown joint type '{type}' (known: {', '.join(JOINT_TYPES)})")
        if self.dim not in cls.dims:
            raise ModelError(f"{where}.type", f"'{type}' joints exist only in {cls.dims[0]}D models")
        if any(j.name == name for j in self._joints):
            raise ModelError(where, "name used twice")
        for kind, coord in (("angle", angle), ("slide", slide)):
            if coord is not None and kind not in cls.coordinates:
                raise ModelError(f"{where}.{kind}", f"a {type} joint has no {kind} coordinate")
        dim = self.dim
        zero = np.zeros(dim)
        axis = np.eye(dim)[0] if axis is None else np.asarray(axis, dtype=float)
        if axis.shape != (dim,) or not np.isfinite(axis).all() or not np.abs(axis).max() > 0:
            raise ModelError(f"{where}.axis", f"needs {dim} finite components, not all zero")
        frame1 = axis_frame(axis / np.abs(axis).max())  # scaled first: no underflow in the norm
        if relative_rotation is None:
            R0 = np.eye(dim)
        elif dim == 2:
            R0 = kin.rotation_2d(float(relative_rotation))
        else:
            R0 = np.asarray(relative_rotation, dtype=float)
        point1 = np.asarray(zero if point1 is None else point1, float)
        point2 = np.asarray(zero if point2 is None else point2, float)
        (body1, point1), (body2, point2) = (self.resolve(body, point, f"{where}.points[{k}]") for k, (body, point)
                                            in enumerate(((body1, point1), (body2, point2))))
        for k, (body, point) in enumerate(((body1, point1), (body2, point2))):
            self._check_point(body, point, f"{where}.points[{k}]")
        self._joints.append(JointSpec(name, type, (body1, body2), frozen_array(point1), frozen_array(point2),
                                      frozen_array(frame1), frozen_array(R0.T @ frame1), angle, slide))

    def resolve(self, body, point, field="point"):
        """The body and body-frame point that a material point ``point`` of ``body`` is: on a segmented
        link the segment that holds it and the point in that segment's frame (``SegmentedLink.locate``;
        a point off the link's centre line is refused as a ``ModelError`` on ``field``), else as given."""
        link = self._links.get(body)
        if link is None:
            return body, np.asarray(point, dtype=float)
        try:
            return link.locate(point)
        except ValueError as err:
            raise ModelError(field, str(err)) from None

    def _check_point(self, body, point, field):
        """Refuse a material point of a flexible body (added before) that is not on its centre line
        (``BeamBody.locate``) with a ``ModelError`` on ``field``; points of rigid bodies are anywhere."""
        beam = next((b.beam for b in self._bodies if b.name == body), None)
        if beam is not None:
            try:
                beam.locate(point)
            except ValueError as err:
                raise ModelError(field, str(err)) from None

    def set_gravity(self, g):
        self._gravity = frozen_array(g)

    def add_joint_load(self, coordinate, function):
        """A torque (on an angle) or force (on a slide) acting on augmented coordinate ``coordinate``,
        scaled by ``function(t)`` (000 eq. 43)."""
        self._coordinate_loads.append(CoordinateLoadSpec(coordinate, function))

    def add_point_force(self, body, point, force, function, frame="world"):
        """A force ``function(t) * force`` at body point ``point``: ``force`` in world components, or with
        ``frame="body"`` in the body's frame, following it (the section's axes at the point of a
        flexible body; ``forces.loads.FollowerForce``)."""
        body, point = self.resolve(body, point, f"point force on '{body}'.point")
        self._check_point(body, point, f"point force on '{body}'.point")
        self._check_frame(frame, f"point force on '{body}'.frame")
        self._point_forces.append(PointForceSpec(body, frozen_array(point), frozen_array(force), function, frame))

    @staticmethod
    def _check_frame(frame, where):
        if frame not in ("world", "body"):
            raise ModelError(where, f"must be 'world' or 'body', got {frame!r}")

    def add_point_torque(self, body, torque, function, point=None, frame="world"):
        """A torque ``function(t) * torque`` -- world components (3,) in space, a scalar in the plane --
        on the section of ``body`` at its material point ``point`` (body frame, default the origin; on
        a rigid body the point does not matter), ``forces.loads.TimeTorque``; with ``frame="body"`` the
        components are the body's (the section's axes), following it (``FollowerTorque``; in the plane
        the same torque)."""
        where = f"torque on '{body}'"
        self._check_frame(frame, f"{where}.frame")
        torque = np.atleast_1d(np.asarray(torque, dtype=float))
        size = 3 if self.dim == 3 else 1
        if torque.shape != (size,) or not np.isfinite(torque).all():
            raise ModelError(f"{where}.torque", f"needs {size} finite component{'s' * (size > 1)}, got "
                             f"{torque.tolist()}")
        point = np.zeros(self.dim) if point is None else np.asarray(point, dtype=float)
        body, point = self.resolve(body, point, f"{where}.point")
        self._check_point(body, point, f"{where}.point")
        self._torques.append(TorqueSpec(body, frozen_array(point), frozen_array(torque), function,
                                        "body" if frame == "body" and self.dim == 3 else "world"))

    def add_spring_damper(self, name, body1, point1, body2, point2, stiffness, damping, free_length):
        body1, point1 = self.resolve(body1, point1, f"spring '{name}'.points[0]")
        body2, point2 = self.resolve(body2, point2, f"spring '{name}'.points[1]")
        self._springs.append(SpringSpec(name, (body1, body2), (frozen_array(point1), frozen_array(point2)),
                                        float(stiffness), float(damping), float(free_length)))

    def add_friction(self, coordinate, stiffness, max_force):
        """Joint friction (stick-slip, 001 section 4.2) on augmented coordinate ``coordinate``."""
        if not (stiffness > 0 and max_force > 0):
            raise ModelError(f"friction on '{coordinate}'", "stiffness and max_force must be > 0")
        self._frictions.append(FrictionSpec(coordinate, float(stiffness), float(max_force)))

    def add_servo_point(self, name, body, point, trajectory, relative=True, on="material"):
        """Servo: body point ``point`` (body frame) follows ``trajectory`` (dim components), added to
        its initial position if ``relative`` (000 eq. 78). ``on``: "material" -- the material point,
        deformed on a flexible body -- or "frame" -- the point x = phi + X_a d_a that the body's floating
        frame carries (its reference motion, the rigid body's point on a rigid body; ``_servo_point``)."""
        body, point = self._servo_point(name, body, point, on)
        self._servos.append(ServoSpec(name, "point", trajectory, body=body, point=frozen_array(point),
                                      relative=relative, on=on))

    def add_servo_angle(self, name, body, trajectory, relative=True, on="frame"):
        """Servo (planar): the body's angle -- its director d_1, on a flexible body the floating frame's
        (``on`` = "frame", the only choice) -- follows ``trajectory`` (1 component), from its initial
        angle if ``relative`` (000 eq. 82 for a constant trajectory)."""
        self._check_frame_only(name, on, "angle")
        self._servos.append(ServoSpec(name, "angle", trajectory, body=body, relative=relative, on=on))

    def add_servo_polar(self, name, body, point, trajectory, relative=True, on="material"):
        """Servo (planar): the polar angle of body point ``point`` about the world origin follows
        ``trajectory`` (1 component), from its initial angle if ``relative`` (``servo.ServoPolar``);
        ``on`` as for ``add_servo_point``."""
        body, point = self._servo_point(name, body, point, on)
        self._servos.append(ServoSpec(name, "polar", trajectory, body=body, point=frozen_array(point),
                                      relative=relative, on=on))

    def add_servo_orientation(self, name, body, rotation, relative=None, on="frame"):
        """Servo (spatial): the body's directors -- on a flexible body the floating frame's (``on`` =
        "frame", the only choice) -- follow the target rotation, given by a callable
        ``rotation(t) -> (R, omega)`` (3 rows; ``trajectories.EulerAngles``, ``AxisAngle``), absolute or,
        if ``relative``, applied to the body's initial orientation (``servo.ServoOrientation``).
        ``relative`` None (the default) is True, as a case file's ``relative``, with a
        ``DeprecationWarning``: it was False until issue 36 (the same motion where the body starts at
        ``rotation(0)``)."""
        if relative is None:
            warnings.warn(f"ModelBuilder.add_servo_orientation('{name}'): relative now defaults to True (the "
                          "rotation since t = 0 applied to the initial orientation), as in a case file; pass "
                          "relative=False for the earlier absolute target", DeprecationWarning, stacklevel=2)
            relative = True
        self._check_frame_only(name, on, "orientation")
        self._servos.append(ServoSpec(name, "orientation", rotation, body=body, relative=relative, on=on))

    def _servo_point(self, name, body, point, on):
        """The body and body-frame point of a point or polar servo: a material point goes to the segment
        of a segmented link that holds it and must lie on a beam's centre line (``resolve``,
        ``_check_point``); a frame point (``on`` = "frame") is the link's own frame's -- its first
        segment's, which has the link's name -- at any X."""
        if on not in SERVO_ON:
            raise ModelError(f"servo '{name}'.on", f"must be one of {', '.join(SERVO_ON)}, got {on!r}")
        point = np.asarray(point, dtype=float)
        if point.shape != (self.dim,) or not np.isfinite(point).all():
            raise ModelError(f"servo '{name}'.point", f"needs {self.dim} finite components, got {point.tolist()}")
        if on == "frame":
            return body, point
        body, point = self.resolve(body, point, f"servo '{name}'.point")
        self._check_point(body, point, f"servo '{name}'.point")
        return body, point

    @staticmethod
    def _check_frame_only(name, on, kind):
        if on != "frame":
            raise ModelError(f"servo '{name}'.on", f"an {kind} servo prescribes the body's directors, on a "
                             f"flexible body its floating frame's: must be 'frame', got {on!r}")

    def add_servo_coordinate(self, name, coordinate, trajectory, relative=True):
        """Servo: augmented coordinate ``coordinate`` follows ``trajectory`` (1 component)."""
        self._servos.append(ServoSpec(name, "coordinate", trajectory, coordinate=coordinate, relative=relative))

    def set_inputs(self, coordinates):
        """The actuated coordinates whose generalised forces are the servo inputs, paired in order
        with the servo rows (000 eq. 84: B is Boolean on these coordinates)."""
        self._inputs = tuple(coordinates)

    def spec(self):
        """The frozen ``ModelSpec`` of what has been collected so far; later additions do not change it."""
        return ModelSpec(self.dim, tuple(self._bodies), tuple(self._joints), self._gravity,
                         tuple(self._coordinate_loads), tuple(self._point_forces), tuple(self._springs),
                         tuple(self._frictions), tuple(self._servos), self._inputs, tuple(self._torques))

    def grounded(self):
        """Whether a joint or a spring is attached to the ground (which then has coordinates, held fixed)."""
        return self.spec().grounded()

    def coordinate_count(self):
        """The number n of coordinates of the model that ``build`` makes, counted without making it (on a
        fine mesh the build takes far longer; ``ModelSpec.coordinate_count``)."""
        return self.spec().coordinate_count()

    def build(self):
        return Model(self.spec())
