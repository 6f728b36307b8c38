"""Workspace maps, the quantities at one pose (``map_pose``): one static solve and one constrained
eigen-solve of the flexible mechanism with its servos held at the pose.

At the rigid pose of a grid point, its flexible links undeformed (``with_elastic``), the servo targets
are the pose's (every servo relative, ``Servo.referenced``: gamma(0) = b(q_pose)) and the static
equilibrium under gravity, the case's constant loads at t = 0 and the ``payload`` force at P is found
(``statics.static_equilibrium``, as ``femdyn static``); at it

- **sag** ``sag_x`` .. (and ``sag_angle``, 2D, or ``sag_rx`` .. , 3D): the deviation of P from the
  rigid mechanism (``model.deviation``), the servo inputs that hold the pose ``input:NAME`` (000 eq. 84);
- **compliance** of P: the linearised static response to a force f (and in 3D a torque m) at P. With
  D = d(x_P, theta_P)/dq the point's velocity map (its transpose maps (f, m) to generalised forces by
  virtual work), the constrained tangent of the equilibrium (``SaddleSystem.static``, KLU-factored)

      [[K, s Gbar^T], [s G, 0]] [dq; y] = [D^T (f, m); 0],

  gives dq, and P's deviation from the rigid mechanism changes by D dq - D_r dq_r (the rigid
  mechanism's motion at the actuated coordinates' change dq[act], zero where the servos hold their own
  inputs): the compliance matrix C (dim x dim, m/N; in 3D 6 x 6 with the torque's rows and columns:
  m/N, 1/N, rad/N, rad/(N m)) column by column, ``compliance_xx`` .. ``compliance_zz`` for the force
  block and ``compliance_rxrx`` .. in 3D. The largest eigenvalue of C's force block (its symmetric part)
  is ``compliance_max`` [m/N] with its unit eigenvector ``compliance_dir_x`` .. (sign: largest component
  positive). K holds the elastic and the geometric stiffness of the preload: the compliance of the loaded
  pose, not of the unloaded links ([Pashkevich2009], here of the finite
  element model). D is the derivative of P's world position, which is linear (rigid bodies, world-vector
  beams) or bilinear (floating-frame beams: phi + (X + u) d_a) in q: central differences of any step are
  exact there; the orientation's rows (3D) are central differences of the rotation vector, error O(h^2);
- **modes**: the ``modes`` lowest natural frequencies with the servos held (``modes.natural_modes``, its
  sparse method from ``SPARSE_FROM`` coordinates)
  ``frequency_1`` .. [Hz], and each mode's ``participation_k``: the share of its kinetic energy
  x_b^T M_bb x_b / x^T M x carried by the coordinates of P's body (1: the effector moves alone, 0: it
  stays still; a flexible body's frame and nodes together).

A quantity that is not finite at a point the pose calls ok makes the point ``failed`` with the reason
(an unstable equilibrium, fewer modes than asked): no ok row carries NaN.
"""
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..forces.time_functions import constant
from ..integrators.modes import natural_modes
from ..integrators.saddle import SaddleSystem
from ..integrators.setup import prepare
from ..integrators.statics import static_equilibrium
from ..io.units import COORDINATES, INPUTS, coordinate_kind
from ..model.deviation import UNITS, Deviation, _rotation_vectors, column_names, point_poses
from ..model.model import Model
from ..model.assembly import actuated
from ..model.spec import PointForceSpec
from .map_pose import AXES, Pose, Poser

STEP = 1e-4  # of the central differences of D, relative to max(1, |q|)
SPARSE_FROM = 100  # coordinates from which the modes are found by shift-invert Lanczos (``modes``: the
# dense method's SVD of G costs a Delta robot's point 1.5 s, Lanczos 0.2 s; both agree to 1e-14)


def held_model(model: Model, payload, probe) -> Model:
    """``model`` with every servo relative (its target at t = 0 the pose's own) and the ``payload``
    force (dim,) at the probe (name, body name, point); the model itself where that changes nothing."""
    spec = model.spec
    loaded = payload is not None and np.any(payload)
    if all(s.relative for s in spec.servos) and not loaded:
        return model
    forces = spec.point_forces + ((PointForceSpec(probe[1], np.asarray(probe[2], dtype=float),
                                                  np.asarray(payload, dtype=float), constant(1.0)),) if loaded else ())
    return Model(replace(spec, servos=tuple(replace(s, relative=True) for s in spec.servos), point_forces=forces))


def columns(model: Model, probe: str, modes: int) -> dict:
    """{column: SI unit} of a map's quantities (module docstring), in order; ``actuated:NAME`` and
    ``pose_x`` ..: the pose's actuated coordinates and P's world point in the rigid mechanism."""
    dim = model.dim
    axes = AXES[:dim]
    sag = {c.replace(f"{probe}.deviation_", "sag_"): UNITS[c.rsplit("_", 1)[1]] for c in column_names(probe, dim)}
    force = [*axes]
    both = force + ([f"r{a}" for a in axes] if dim == 3 else [])
    compliance = {}
    for row in both:
        for col in both:
            compliance[f"compliance_{row}{col}"] = {(True, True): "m/N", (True, False): "1/N", (False, True): "rad/N",
                                                    (False, False): "rad/(N m)"}[(row in force, col in force)]
    inputs = {f"input:{name}": INPUTS[coordinate_kind(model, name)][1] for name in model.inputs}
    return {**sag, **compliance, "compliance_max": "m/N", **{f"compliance_dir_{a}": "1" for a in axes},
            **{f"frequency_{k}": "Hz" for k in range(1, modes + 1)},
            **{f"participation_{k}": "1" for k in range(1, modes + 1)}, **inputs,
            **{f"actuated:{n}": COORDINATES[coordinate_kind(model, n)][1] for n in actuated(model)},
            **{f"pose_{a}": "m" for a in axes}, "jacobian_condition": "1", "jacobian_smallest": "m"}


@dataclass
class PointStudy:
    """What every point of a map shares: the held model (``held_model``), the probe (name, body name,
    point), the pose finder (``Poser``), the number of modes and the case's start pose ``q_start``."""

    model: Model
    probe: tuple
    poser: Poser
    modes: int
    q_start: np.ndarray

    def __post_init__(self):
        self.deviation = Deviation(self.model, [self.probe], self.q_start)
        self.model.phi(self.q_start)  # builds the model's constraint batch once: the points' run models share it

    @property
    def columns(self) -> dict:
        return columns(self.model, self.probe[0], self.modes)

    def state(self, pose: Pose) -> np.ndarray:
        """The flexible state at the pose: its rigid coordinates, every flexible link undeformed -- the
        model's coordinates after the rigid mechanism's (``rigid_mechanism``: the rigid ones come first)
        are the links' elastic part, zero where they are undeformed in either embedding (world-vector
        unknowns u_a d_a and their carriers, floating-frame elastic coordinates: ``with_elastic`` of zero)."""
        q = np.zeros(self.model.n)
        q[: len(pose.q_rigid)] = pose.q_rigid
        return q

    def __call__(self, values) -> dict:
        """{column: value} at the grid point ``values`` with ``status`` and ``message`` (module
        docstring); NaN quantities where the pose is unreachable or a solve fails."""
        pose = self.poser.pose(values)
        row = dict.fromkeys(self.columns, np.nan)
        row.update(status=pose.status, message=pose.message)
        if pose.q_rigid is None:
            return row
        row.update({f"actuated:{n}": float(a) for n, a in zip(self.poser.coordinates, pose.actuated)},
                   **{f"pose_{a}": float(x) for a, x in zip(AXES, pose.point)},
                   jacobian_condition=float(pose.condition), jacobian_smallest=float(pose.smallest))
        try:
            row.update(self.quantities(pose))
        except Exception as err:  # noqa: BLE001  (a point that fails is a row with its message)
            text = " ".join(str(err).split()) or type(err).__name__
            if pose.status == "ok":
                return {**row, "status": "failed", "message": text}
            return {**row, "message": f"{pose.message}; {text}"}
        bad = [c for c, v in row.items() if c not in ("status", "message") and not np.isfinite(v)]
        if bad and pose.status == "ok":
            row.update(status="failed", message=f"{', '.join(bad[:3])}{' ..' if len(bad) > 3 else ''} not finite")
        return row

    def quantities(self, pose: Pose) -> dict:
        """The quantities of a pose (module docstring)."""
        model, (name, body, point) = self.model, self.probe
        setup = prepare(model, self.state(pose), np.zeros(model.n))
        system = SaddleSystem(setup.model, setup.active_rows)  # one for the static, compliance and modes solves
        equilibrium = static_equilibrium(setup, system=system)
        q = equilibrium.q
        deviation = self.deviation(q)
        out = {c.replace(f"{name}.deviation_", "sag_"): float(deviation[c][0])
               for c in column_names(name, model.dim)}
        out.update({f"input:{n}": float(u) for n, u in zip(model.inputs, equilibrium.inputs)})
        out.update(self._compliance(system, equilibrium, pose))
        method = "sparse" if model.n > SPARSE_FROM else "auto"
        modes = natural_modes(setup, q, equilibrium.lam, k=self.modes, servos="held", method=method, system=system)
        if len(modes.omega2) < self.modes:
            raise RuntimeError(f"the mechanism has {len(modes.omega2)} degrees of freedom with its servos held, "
                               f"fewer than the {self.modes} modes asked")
        if modes.unstable.any():
            raise RuntimeError("the equilibrium is unstable (a mode with omega^2 < 0)")
        dofs = self._body_dofs()
        M = model.mass_matrix
        X = modes.shapes.T
        share = np.einsum("ik,ik->k", X[dofs], M[dofs][:, dofs] @ X[dofs]) / np.einsum("ik,ik->k", X, M @ X)
        out.update({f"frequency_{k}": float(f) for k, f in enumerate(modes.frequency, start=1)})
        out.update({f"participation_{k}": float(s) for k, s in enumerate(share, start=1)})
        return out

    def _body_dofs(self):
        """The coordinates of P's body: those its frame's mass couples to (the connected component of
        the mass matrix's graph: bodies share no mass, a flexible body's frame and nodes do)."""
        index = [b.name for b in self.model.bodies].index(self.probe[1])
        M = sp.csr_matrix(self.model.mass_matrix)
        _, labels = connected_components(M, directed=False)
        return np.flatnonzero(np.isin(labels, labels[self.model.body_dofs(index)]))

    def point_map(self, q) -> np.ndarray:
        """D (rows, n): P's world position (dim rows) and, in 3D, orientation (3 rows) per unit dq."""
        model, dim = self.model, self.model.dim
        n = model.n
        h = STEP * max(1.0, np.abs(q).max())
        Q = np.concatenate([q + h * np.eye(n), q - h * np.eye(n)])
        x, turn = point_poses(model, [self.probe], Q)
        D = [((x[:n, 0] - x[n:, 0]) / (2 * h)).T]
        if dim == 3:
            _, R = point_poses(model, [self.probe], q[None])
            turned = _rotation_vectors(turn[:, 0] @ R[0, 0].T)
            D.append(((turned[:n] - turned[n:]) / (2 * h)).T)
        return np.vstack(D)

    def _compliance(self, system, equilibrium, pose):
        model, dim = system.model, self.model.dim
        n, q, lam = model.n, equilibrium.q, equilibrium.lam
        states, starts = model.initial_states(q), system.begin_step(q, 0.0, midpoint=False)
        data = system.static(q, lam, 0.0, states, starts, 1.0)[1]
        K = system.pattern.csc(data)[:n, :n]
        scale = float(abs(K).max()) or 1.0  # both blocks of one magnitude
        system.lu.factor(system.static(q, lam, 0.0, states, starts, scale)[1])
        D = self.point_map(q)
        rhs = np.zeros(system.size)
        response = np.empty((n, len(D)))
        for k, column in enumerate(D):
            rhs[:n] = column
            response[:, k] = system.lu.solve(rhs, refine=1)[:n]
        C = D @ response - self._rigid_motion(pose, response[self.poser.mechanism.act])
        size = dim if dim == 2 else 6
        C = C[:size, :size]
        names = [*AXES[:dim]] + ([f"r{a}" for a in AXES] if dim == 3 else [])
        out = {f"compliance_{r}{c}": float(C[i, j]) for i, r in enumerate(names) for j, c in enumerate(names)}
        block = C[:dim, :dim]
        w, V = np.linalg.eigh((block + block.T) / 2)
        v = V[:, -1] * np.sign(V[np.argmax(np.abs(V[:, -1])), -1])
        out["compliance_max"] = float(w[-1])
        out.update({f"compliance_dir_{a}": float(c) for a, c in zip(AXES, v)})
        return out

    def _rigid_motion(self, pose, da):
        """The rigid mechanism's motion of P (position rows, and in 3D the orientation's) for the changes
        ``da`` (k, columns) of the actuated coordinates: from the points P, P + e_a of its body,
        theta = 1/2 sum_a r_a x (dp_a - dp_0) with r_a the world offsets (a rigid body's rotation)."""
        dim = self.model.dim
        dp = (pose.J @ da).reshape(dim + 1, dim, -1)
        if dim == 2:
            return dp[0]
        r = (self.poser.mechanism.E @ pose.q_rigid).reshape(dim + 1, dim)
        r = r[1:] - r[0]
        turn = 0.5 * sum(np.cross(r[a][:, None], dp[a + 1] - dp[0], axis=0) for a in range(dim))
        return np.vstack([dp[0], turn])
