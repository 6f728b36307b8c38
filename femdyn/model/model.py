"""The model: rigid director bodies, joints, loads and the numbering of coordinates and constraints.

Coordinates ``q`` are the bodies' ``[phi, d_1, .., d_dim]`` one after the other (the ground last among
them, if any joint references it), then the augmented joint coordinates (000 eqs. 27, 49, 73), then
per flexible body either its elastic coordinates and their carrier vectors (``beam.ffr``,
``beam.spatial_ffr``: Rayleigh-Ritz and modal bodies) or its world-vector unknowns and section
carriers (``beam.world``: FEM bodies).
Constraints are stacked family by family: internal orthonormality, the flexible bodies' carriers, the
world beams' slope, held and section rows, the ground anchor, the joint pairs, the augmentation
rows, then the servo rows. A ``Model`` is built from
a frozen ``spec.ModelSpec`` and is immutable once built: its constructor sets every attribute (the
families' ``rows`` too, numbered there once), and setting one afterwards is an AttributeError;
integrators keep their own workspace. The relative servo targets of a run depend on its initial
configuration: the run steps its own model, ``with_servo_references(q0)``, which shares everything with
the built one but its servo families (made anew; the built model and its families stay as they are).
"""
import copy
import functools
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..beam.damping import viscous_damping
from ..beam.flexible import Flexible, constraint_families, elastic_forces, embed, world_beams
from ..forces.friction import Friction
from ..forces.loads import FollowerForce, FollowerTorque, Gravity, TimeLoad, TimeTorque
from ..forces.spring_damper import SpringDamper
from ..joints.anchor import Anchor
from ..joints.angle import JointAngle
from ..joints.base import Side
from ..joints.batch import AffineConstraints
from ..joints.orthonormality import Orthonormality
from ..joints.registry import JOINT_TYPES
from ..joints.servo import FAMILIES as SERVO_FAMILIES
from ..joints.servo import Servo, ServoRow
from ..joints.slide import Slide
from ..numerics import kinematics as kin
from .errors import GROUND, ModelError
from .inertia import Inertia
from .spec import oriented_sides


@dataclass(frozen=True)
class Body:
    name: str
    mass: float
    euler: np.ndarray  # eigenvalues of the Euler tensor E_a (000 eq. 13)
    size: np.ndarray  # box outline edge lengths along the directors, for drawing
    offset: int  # first coordinate of the body in q
    flexible: Flexible | None = None  # the elastic coordinates of a flexible body (``beam.flexible``)


@dataclass(frozen=True)
class Joint:
    name: str
    type: str
    body1: int
    body2: int
    point1: np.ndarray
    point2: np.ndarray
    frame1: np.ndarray  # joint frame in body-1 coordinates, columns = axes, x = joint axis
    frame2: np.ndarray
    coordinates: dict = field(default_factory=dict)  # "angle"/"slide" -> index in q

class Model:
    """Immutable multibody model (see module docstring) numbered from a ``ModelSpec``. Build with
    ``ModelBuilder``."""

    def __init__(self, spec):
        self.spec = spec  # what it was numbered from (``rigid_mechanism.rigid_limit`` rebuilds from it)
        dim = self.dim = spec.dim
        nb = kin.body_size(dim)
        specs = spec.bodies
        names = [b.name for b in specs]
        uses_ground = spec.grounded()
        self.ground = len(specs) if uses_ground else None
        index = {name: i for i, name in enumerate(names)}
        if uses_ground:
            index[GROUND] = self.ground
        n_body_coords = (len(specs) + uses_ground) * nb

        def body_index(name, where):
            if name not in index:
                raise ModelError(where, f"unknown body '{name}' (bodies: {', '.join(index)})")
            return index[name]

        # augmented coordinates in joint order
        self.coordinate_names = [f"{name}.{c}" for name in names for c in _body_coordinate_names(dim)]
        if uses_ground:
            self.coordinate_names += [f"{GROUND}.{c}" for c in _body_coordinate_names(dim)]
        self.joint_coordinates = {}
        self.joints = []
        for j in spec.joints:
            b1 = body_index(j.bodies[0], f"joint '{j.name}'.bodies")
            b2 = body_index(j.bodies[1], f"joint '{j.name}'.bodies")
            if b1 == b2:
                raise ModelError(f"joint '{j.name}'.bodies", "a joint needs two different bodies")
            coords = {}
            for kind in ("angle", "slide"):
                cname = getattr(j, kind)
                if cname is None:
                    continue
                if cname in self.joint_coordinates or cname in names:
                    raise ModelError(f"joint '{j.name}'.{kind}", f"coordinate name '{cname}' used twice")
                coords[kind] = n_body_coords + len(self.joint_coordinates)
                self.joint_coordinates[cname] = coords[kind]
                self.coordinate_names.append(cname)
            if j.point1.shape != (dim,) or j.point2.shape != (dim,):
                raise ModelError(f"joint '{j.name}'.points", f"need {dim} components per point")
            self.joints.append(Joint(j.name, j.type, b1, b2, j.point1, j.point2, j.frame1, j.frame2, coords))
        self.bodies = []
        sections = spec.section_points()
        for i, b in enumerate(specs):
            flexible = None
            if b.beam is not None:
                flexible = embed(b.name, b.beam, b.stiffening, dim, i * nb, len(self.coordinate_names),
                                 sections.get(b.name, ()))
                self.coordinate_names += flexible.coordinate_names()
            self.bodies.append(Body(b.name, b.mass, b.euler, b.size, i * nb, flexible))
        self.flexible = [b.flexible for b in self.bodies if b.flexible is not None]
        self.worlds = world_beams(self.flexible)  # the FEM bodies, for outputs and tests; the model never asks
        self.n = len(self.coordinate_names)
        self.gravity = spec.gravity
        self.inertia = self._inertia()
        self.mass_matrix = self.inertia.matrix

        self.inputs = list(spec.inputs)  # the actuated coordinates, one per servo row
        servos, orders = self._servo_families(spec.servos, spec.inputs)
        self.constraints = self._constraint_families() + servos
        row = 0
        for c in self.constraints:  # numbered once, here, before anything reads them
            c.rows = row + np.arange(c.count * c.m).reshape(c.count, c.m)
            row += c.count * c.m
        self.m = row
        self.input_rows = np.empty(len(self.inputs), dtype=np.int64)  # servo row of each input
        for family, order in zip(servos, orders):
            self.input_rows[order] = family.rows[:, 0]
        self.forces = self._forces(spec, body_index)
        self._built = True  # from here on nothing is set (``__setattr__``)

    def __setattr__(self, name, value):
        if getattr(self, "_built", False):
            raise AttributeError(f"a built Model is immutable: cannot set {name} (build another from its spec)")
        object.__setattr__(self, name, value)

    def __repr__(self):
        flexible = f" ({len(self.flexible)} flexible)" if self.flexible else ""
        coordinates = ", ".join(self.joint_coordinates) or "none"
        return (f"<Model {self.dim}D: {len(self.bodies)} bodies{flexible}, {len(self.joints)} joints, "
                f"{self.n} coordinates (joint coordinates: {coordinates}), {self.m} constraints, "
                f"{len(self.forces)} forces, {len(self.inputs)} servo inputs>")

    def body_dofs(self, i):
        nb = kin.body_size(self.dim)
        return np.arange(i * nb, (i + 1) * nb)

    def _inertia(self):
        """Slots and mass coefficients (``inertia``): [m, E_a] on the diagonal for rigid bodies
        (000 eq. 10), those of each flexible body over its slots (``beam.flexible``: the FFR
        invariants of the carrier embeddings, the quadrature of the world-vector beams) with their
        twists as scalar massive coordinates."""
        dim, slots, reference, A, B, scalars, S = self.dim, [], [], [], [], [], []
        for b in self.bodies:
            reference.append(len(slots))
            if b.flexible is None:
                slots += list(b.offset + dim * np.arange(dim + 1))
                a = sp.diags(np.concatenate([[b.mass], b.euler]))
                c = sp.csr_matrix((dim + 1, dim + 1))
            else:
                slots += list(b.flexible.slots)
                a, c, s = b.flexible.slot_blocks()
                scalars += list(b.flexible.twists)
                S.append(s)
            A.append(a)
            B.append(c)
        empty = sp.csr_matrix((0, 0))
        return Inertia(dim, self.n, slots, sp.block_diag(A) if A else empty, sp.block_diag(B) if B else empty,
                       reference, scalars, sp.block_diag(S) if S else empty)

    def _constraint_families(self):
        dim = self.dim
        families = [Orthonormality(np.array([self.body_dofs(i) for i in range(len(self.bodies))]),
                                   [b.name for b in self.bodies], dim)]
        families += constraint_families(self.flexible)
        if self.ground is not None:
            frame = np.concatenate([np.zeros(dim), np.eye(dim).T.ravel()])  # phi = 0, d_a = e_a
            families.append(Anchor(self.body_dofs(self.ground)[None, :], [GROUND], frame[None, :]))
        for type_name, cls in JOINT_TYPES.items():
            for dofs, labels, side1, side2, _ in self._pairs([j for j in self.joints if j.type == type_name]):
                families.append(cls(dofs, labels, side1, side2))
        for dofs, labels, side1, side2, js in self._pairs([j for j in self.joints if "slide" in j.coordinates]):
            dofs = np.column_stack([dofs, [j.coordinates["slide"] for j in js]])
            families.append(Slide(dofs, labels, side1, side2))
        i, k = (0, 1) if dim == 2 else (1, 2)  # planar: about the normal; spatial: about x
        for dofs, labels, side1, side2, js in self._pairs([j for j in self.joints if "angle" in j.coordinates]):
            dofs = np.column_stack([dofs, [j.coordinates["angle"] for j in js]])
            families.append(JointAngle(dofs, labels, side1.axes[i], side1.axes[k], side2.axes[i]))
        return families

    def material_point(self, body, point, frame=None, oriented=False):
        """Local dofs, point matrix (dim, n) and axis matrices of a material point of body index
        ``body`` (the ground included) with a joint frame (columns = axes, default identity);
        ``oriented``: the axes are used, and turn with the section of a world-vector beam."""
        frame = np.eye(self.dim) if frame is None else frame
        flexible = self.bodies[body].flexible if body < len(self.bodies) else None
        if flexible is not None:
            return flexible.side(point, frame, oriented)
        return (self.body_dofs(body), kin.point_matrix(point)[0],
                [kin.direction_matrix(a)[0] for a in frame.T])

    def _pairs(self, joints):
        """Joint families with equal local widths: (dofs, labels, side1, side2, joints) each."""
        groups = {}
        for j in joints:
            oriented = oriented_sides(j.type, "angle" in j.coordinates, "slide" in j.coordinates, self.dim)
            sides = (self.material_point(j.body1, j.point1, j.frame1, oriented[0]),
                     self.material_point(j.body2, j.point2, j.frame2, oriented[1]))
            groups.setdefault((len(sides[0][0]), len(sides[1][0])), []).append((j, sides))
        for members in groups.values():
            js = [j for j, _ in members]
            stacked = [Side(np.array([s[k][1] for _, s in members]),
                            [np.array([s[k][2][a] for _, s in members]) for a in range(self.dim)]) for k in (0, 1)]
            dofs = np.array([np.concatenate([s[0][0], s[1][0]]) for _, s in members])
            yield dofs, [j.name for j in js], stacked[0], stacked[1], js

    def _servo_rows(self, sv, index):
        """The ``ServoRow``s of one ``ServoSpec``."""
        where, kind = f"servo '{sv.name}'", sv.kind
        if kind == "coordinate":
            if sv.coordinate not in self.joint_coordinates:
                raise ModelError(f"{where}.coordinate", f"unknown joint coordinate '{sv.coordinate}'")
            dofs, coefficients = [self.joint_coordinates[sv.coordinate]], [[1.0]]
        else:
            if sv.body not in index:
                raise ModelError(f"{where}.body", f"unknown body '{sv.body}'")
            body = self.body_dofs(index[sv.body])
            if kind in ("point", "polar"):  # a frame point: x = phi + X_a d_a = C(X) q_body, any body
                dofs, point = ((body, kin.point_matrix(sv.point)[0]) if sv.on == "frame"
                               else self.material_point(index[sv.body], sv.point)[:2])
            if kind == "point":
                coefficients = point
            elif kind == "angle" and self.dim == 2:
                dofs, coefficients = body[2:4], [()]  # d1; the coefficients depend on time
            elif kind == "polar" and self.dim == 2:  # one row; its point matrix, flattened
                coefficients = [np.ravel(point)]
            elif kind == "orientation" and self.dim == 3:
                dofs, coefficients = body[3:], [(), (), ()]
            else:
                raise ModelError(f"{where}.type", f"{kind} servos exist only in {3 if kind == 'orientation' else 2}D models")
        if kind != "orientation" and sv.target.size != len(coefficients):
            raise ModelError(f"{where}.trajectory", f"needs {len(coefficients)} components, has {sv.target.size}")
        return [ServoRow(sv.name, kind, tuple(dofs), tuple(c), sv.target, k, sv.relative)
                for k, c in enumerate(coefficients)]

    def _servo_families(self, servos, inputs):
        """Servo rows in the order given, each paired with the next input coordinate (000 eq. 84),
        batched by family and width, and the indices of the inputs of each family's rows. Relative
        targets start at zero here: a run fixes them from its initial configuration in its own model
        (``with_servo_references``)."""
        index = {b.name: i for i, b in enumerate(self.bodies)}
        rows = [row for sv in servos for row in self._servo_rows(sv, index)]
        if len(inputs) != len(rows):
            raise ModelError("control.inputs", f"{len(rows)} servo rows need as many input coordinates, "
                             f"got {len(inputs)}")
        for name in inputs:
            if name not in self.joint_coordinates:
                raise ModelError("control.inputs", f"unknown joint coordinate '{name}'")
        if len(set(inputs)) < len(inputs):
            raise ModelError("control.inputs", "an input coordinate is listed twice: each servo row "
                             "needs its own actuated coordinate")
        batches = {}
        for i, row in enumerate(rows):
            batches.setdefault((SERVO_FAMILIES[row.kind], len(row.dofs)), []).append(i)
        families, orders = [], []
        for (cls, _), picked in batches.items():
            dofs = np.array([[*rows[i].dofs, self.joint_coordinates[inputs[i]]] for i in picked])
            try:
                family = cls.from_rows(dofs, [rows[i] for i in picked])
            except ValueError as err:
                raise ModelError("servos", str(err)) from None
            families.append(family)
            orders.append(np.array(picked))
        return families, orders

    def _forces(self, spec, body_index):
        forces = []
        if spec.gravity is not None and self.bodies:
            if spec.gravity.shape != (self.dim,):
                raise ModelError("gravity", f"needs {self.dim} components")
            forces.append(self._gravity(spec.gravity))
        coord_loads = spec.coordinate_loads
        for load in coord_loads:
            if load.coordinate not in self.joint_coordinates:
                known = ", ".join(self.joint_coordinates) or "none"
                raise ModelError("loads", f"unknown joint coordinate '{load.coordinate}' (known: {known})")
        if coord_loads:
            dofs = np.array([[self.joint_coordinates[load.coordinate]] for load in coord_loads])
            forces.append(TimeLoad(dofs, np.ones((len(coord_loads), 1)), [load.function for load in coord_loads]))
        groups = {}  # point forces C(X)^T f, batched by local width
        for p in spec.point_forces:
            if p.frame == "world":
                dofs, C, _ = self.material_point(body_index(p.body, "loads.body"), p.point)
                groups.setdefault(len(dofs), []).append((dofs, C.T @ p.force, p.function))
        for members in groups.values():
            forces.append(TimeLoad(np.array([d for d, _, _ in members]), np.array([c for _, c, _ in members]),
                                   [f for _, _, f in members]))
        groups = {}  # forces that follow the frame at their point (``FollowerForce``), by local width
        for p in spec.point_forces:
            if p.frame == "body":
                dofs, C, axes = self.material_point(body_index(p.body, "loads.body"), p.point, oriented=True)
                groups.setdefault(len(dofs), []).append((dofs, C, axes, p.force, p.function))
        for members in groups.values():
            forces.append(FollowerForce(*(np.array([m[k] for m in members]) for k in range(4)),
                                        [m[4] for m in members]))
        groups = {}  # torques on the section's axes (``TimeTorque``, ``FollowerTorque``), by kind and width
        for p in spec.torques:
            dofs, _, axes = self.material_point(body_index(p.body, "loads.body"), p.point, oriented=True)
            groups.setdefault((p.frame, len(dofs)), []).append((dofs, axes, p.torque, p.function))
        for (frame, _), members in groups.items():
            kind = FollowerTorque if frame == "body" else TimeTorque
            forces.append(kind(*(np.array([m[k] for m in members]) for k in range(3)), [m[3] for m in members]))
        forces += elastic_forces(self.flexible)
        damped = [f for f in self.flexible if f.beam.damping is not None and f.beam.n_coordinates]
        if damped:  # material damping on the elastic coordinates (``beam.damping``)
            forces.append(viscous_damping(damped))
        frictions = spec.frictions
        if frictions:
            for x in frictions:
                if x.coordinate not in self.joint_coordinates:
                    raise ModelError(f"friction on '{x.coordinate}'", "unknown joint coordinate")
            forces.append(Friction(np.array([[self.joint_coordinates[x.coordinate]] for x in frictions]),
                                   [x.coordinate for x in frictions],
                                   [x.stiffness for x in frictions], [x.max_force for x in frictions]))
        s = spec.springs
        if s:
            b = [tuple(body_index(name, f"spring '{x.name}'") for name in x.bodies) for x in s]
            for x, pair in zip(s, b):
                if any(i < len(self.bodies) and self.bodies[i].flexible is not None for i in pair):
                    raise ModelError(f"spring '{x.name}'", "springs between flexible bodies are not supported")
            dofs = np.array([np.concatenate([self.body_dofs(b1), self.body_dofs(b2)]) for b1, b2 in b])
            forces.append(SpringDamper(dofs, [x.name for x in s], np.array([x.points[0] for x in s]),
                                       np.array([x.points[1] for x in s]), [x.stiffness for x in s],
                                       [x.damping for x in s], [x.free_length for x in s]))
        return forces

    def _gravity(self, g):
        """Uniform gravity as the constant generalised force int rho N^T g of every body."""
        weights = np.zeros(self.n)
        for i, b in enumerate(self.bodies):
            if b.flexible is None:
                weights[self.body_dofs(i)[: self.dim]] = b.mass * g
            else:
                weights[b.flexible.slots[:, None] + np.arange(self.dim)] = b.flexible.gravity_weights(g)
        dofs = np.flatnonzero(weights)
        return Gravity(dofs[None, :], weights[dofs][None, :])

    # --- quantities of a state ---------------------------------------------------------------
    def constraint_labels(self):
        """Name of every constraint row: family, joint (or body) name and row within it."""
        labels = np.empty(self.m, dtype=object)
        for c in self.constraints:
            kind = getattr(c, "kind", type(c).__name__.lower())
            for k, label in enumerate(c.labels):
                for r in range(c.m):
                    labels[c.rows[k, r]] = f"{kind} '{label}'" + (f" row {r + 1}/{c.m}" if c.m > 1 else "")
        return labels

    @functools.cached_property
    def _quadratic_batch(self):
        """The quadratic constraint families as one ``AffineConstraints`` batch (no servo families
        among them: the models of runs, ``with_servo_references``, share it)."""
        return AffineConstraints(AffineConstraints.split(self.constraints)[0], self.n, self.m)

    @property
    def _constraint_batch(self):
        """The batch of the quadratic families, and the other families (joint angles, servos)."""
        return self._quadratic_batch, AffineConstraints.split(self.constraints)[1]

    def phi(self, q, t=0.0):
        batch, others = self._constraint_batch
        out = np.empty(self.m)
        out[batch.rows] = batch.phi(q)
        for c in others:
            out[c.rows] = c.phi(q[c.dofs], t) if c.time_dependent else c.phi(q[c.dofs])
        return out

    def residual_history(self, Q, t, rows):
        """max |phi| over ``rows`` at each row of Q (F, n) and time t (F,), for a chunk of the history
        at once (``HISTORY_ENTRIES`` values at a time): the constraint batch and the other
        time-independent families (the joint angles, whose phi takes leading axes) in one call
        each, the servo rows by ``Servo.phi_history``."""
        batch, others = self._constraint_batch
        out = np.empty(len(Q))
        for part in _history_chunks(len(Q), max(self.m, batch.slot_row.size)):
            chunk, times = Q[part], t[part]
            phi = np.empty((len(chunk), self.m))
            phi[:, batch.rows] = batch.phi_history(chunk)
            for c in others:
                if c.time_dependent:
                    phi[:, c.rows] = c.phi_history(chunk[:, c.dofs], times)
                else:
                    phi[:, c.rows] = c.phi(chunk[:, c.dofs])
            out[part] = np.abs(phi[:, rows]).max(axis=1, initial=0.0)
        return out

    def phi_time_derivative(self, q, t=0.0):
        """dPhi/dt at fixed q (non-zero for servo rows only): velocities satisfy G v = -dPhi/dt."""
        out = np.zeros(self.m)
        for c in self.constraints:
            if c.time_dependent:
                out[c.rows[:, 0]] = c.time_derivative(q[c.dofs], t)
        return out

    def with_servo_references(self, q):
        """The model of a run from the initial configuration q: a new ``Model`` that shares everything
        with this one but its servo families, created anew with their relative targets fixed from q,
        gamma(t) = b(q0) + trajectory(t) - trajectory(0) (``Servo.referenced``; 000 eqs. 78-82).
        This model is unchanged: runs prepared from different initial states do not share targets."""
        run = copy.copy(self)
        vars(run)["constraints"] = [c.referenced(q[c.dofs]) if isinstance(c, Servo) else c for c in self.constraints]
        return run  # its own list of families, set before anyone holds it

    def jacobian(self, q, rows=None, t=0.0):
        """Constraint Jacobian G(q) as a sparse CSR matrix (m, n), optionally only ``rows``: for
        set-up and checks; the time loop assembles its own fixed pattern."""
        r, c, d = [], [], []
        for fam in self.constraints:
            G = fam.jacobian(q[fam.dofs], t) if fam.time_dependent else fam.jacobian(q[fam.dofs])
            r.append(np.broadcast_to(fam.rows[:, :, None], G.shape).ravel())
            c.append(np.broadcast_to(fam.dofs[:, None, :], G.shape).ravel())
            d.append(G.ravel())
        G = sp.csr_matrix((np.concatenate(d), (np.concatenate(r), np.concatenate(c))), shape=(self.m, self.n))
        return G if rows is None else G[rows]

    def potential(self, q, states=None):
        """Potential energy; ``states``: the forces' internal states (default: their initial ones)."""
        states = states or self.initial_states(q)
        return sum(f.potential(q[f.dofs], s) for f, s in zip(self.forces, states))

    def potential_history(self, Q, states):
        """Potential energy at each row of Q (F, n), ``states`` (list of F): the forces' states there.
        Each force evaluates a chunk of the configurations at once (``Force.potential_history``)."""
        V = np.zeros(len(Q))
        for part in _history_chunks(len(Q), self.n):
            chunk, chunk_states = Q[part], states[part]
            for k, f in enumerate(self.forces):
                V[part] += f.potential_history(chunk[:, f.dofs], [s[k] for s in chunk_states])
        return V

    def initial_states(self, q):
        """Internal states of the forces (e.g. friction slip) at the initial configuration q."""
        return [f.initial_state(q[f.dofs]) for f in self.forces]

    def kinetic(self, v):
        """Kinetic energy 1/2 v.M v of one state (n,) or of a history (..., n)."""
        return self.inertia.kinetic(v)

    def frames(self, q, ground=False):
        """Centres (..., B, dim) and rotations (..., B, dim, dim), directors as columns, of the bodies
        (and the ground last, if ``ground``) for one state (n,) or a history (..., n)."""
        dim, count = self.dim, len(self.bodies) + (ground and self.ground is not None)
        Q = q[..., : count * kin.body_size(dim)].reshape(*q.shape[:-1], count, dim + 1, dim)
        return Q[..., 0, :], np.swapaxes(Q[..., 1:, :], -1, -2)

    def momenta(self, q, v):
        """Linear momentum (..., dim) and angular momentum about the origin (..., 1 or 3) of one state
        or a history (``inertia``)."""
        return self.inertia.momenta(q, v)

    def kinetic_momenta(self, q, v):
        """``kinetic``, then ``momenta`` of one state or a history, from one product M v (``inertia``)."""
        return self.inertia.kinetic_momenta(q, v)


HISTORY_ENTRIES = 4_000_000  # values per configuration times configurations in a chunk of a history (32 MB)


def _history_chunks(count, width):
    """Slices of ``count`` configurations of a run's history, each with about ``HISTORY_ENTRIES``
    values when one configuration needs ``width``: the history's products keep their memory bounded."""
    chunk = max(1, HISTORY_ENTRIES // max(width, 1))
    return [slice(start, start + chunk) for start in range(0, count, chunk)]


def _body_coordinate_names(dim):
    axes = "xyz"[:dim]
    return [f"{p}{a}" for p in ["phi"] + [f"d{i + 1}" for i in range(dim)] for a in axes]
