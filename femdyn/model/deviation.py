"""Deviation from the rigid mechanism: how far a material point is from where the rigid machine would
put it at the same actuated joint coordinates -- the deflection of the end effector as a designer
means it.

For a probe (a material point X of a body, rigid or flexible) and a state q of the model, the
deviation is its world position and orientation minus those of the same material point in the rigid
mechanism (``rigid_mechanism``: the rigid limit of the model, assembled with the actuated coordinates
at q's values; its free motions, if the actuated coordinates leave any, fitted to q's frames):

    dx = x(X; q) - x_r(X; q_r),    2D: dtheta = theta(X; q) - theta_r(q_r) (wrapped to (-pi, pi]),
    3D: the rotation vector of R(X; q) R_r(q_r)^T (world frame).

A flexible body's point is x = phi + (X_a + u_a) d_a with u = S(X) q_e and its section turned by the
rotation rows of ``BeamBody.shape_at`` (003 eqs. 1-4): in the plane theta = angle(d_1) + theta_e(X), in
space R = exp([r]) D with D = [d_1 d_2 d_3] and r = sum_a r_a d_a the small section rotation about the
directors; a rigid body's point is phi + X_a d_a and its orientation D. Unlike the elastic displacement
measured from the body's floating frame (``model.points``), the deviation does not depend on which frame
the reference conditions choose, nor on the segments of a link (both are frames of one deformation),
and it is defined for probes on rigid bodies too.

Where the rigid mechanism cannot be assembled at the actuated coordinates of a frame -- it passes a
singular pose there (a type-2, parallel singularity: a fold of its assembly, beyond which no rigid pose
near the current one has those actuated coordinates; the flexible machine, its links stretched, goes
through) -- the deviation from it is **undefined**, not a number: NaN in the arrays (NumPy's marker of a
missing value), an empty field in the CSV tables (``io.tables``), and the frame's status ``STATUS`` is
``SINGULAR`` instead of ``OK``. The dynamics of the flexible machine are not affected: the run is
complete and finite.
"""
import numpy as np

from ..io.tables import STATUS  # the column of a frame's status: OK, or SINGULAR where there is no rigid pose
from .model import Model
from .points import body_coordinates, point_positions, section_rotation
from .rigid_mechanism import RigidMechanism

AXES = "xyz"
OK, SINGULAR = "ok", "singular"
SINGULAR_WORDS = ("the rigid mechanism passes a singular pose (type-2 singularity): the deviation from it is "
                  "undefined there")  # why a frame has no deviation (``post.probes.singular_statistics``)


def _index(model):
    return {b.name: i for i, b in enumerate(model.bodies)}


def point_poses(model: Model, probes, Q):
    """World positions (F, P, dim) and orientations -- angles (F, P) in the plane, rotation matrices (F,
    P, 3, 3) in space -- of the probes' material points over the states Q (F, n) (module docstring)."""
    dim, index = model.dim, _index(model)
    Q = np.atleast_2d(Q)
    positions, turns = [], []
    for _, body_name, point in probes:
        body = model.bodies[index[body_name]]
        X = np.asarray(point, dtype=float)[None]
        positions.append(point_positions(body, X, Q, dim))
        rotation = section_rotation(body, X, Q, dim)
        D = body_coordinates(body, Q, dim)[:, dim:].reshape(-1, dim, dim)  # rows d_a
        if dim == 2:
            turns.append(np.arctan2(D[:, 0, 1], D[:, 0, 0]) + rotation[:, 0])
        else:
            turned = np.einsum("fab,fa->fb", D, rotation)  # world components of the section rotation
            turns.append(_rotation_matrices(turned) @ np.swapaxes(D, 1, 2))
    return np.stack(positions, axis=1), np.stack(turns, axis=1)


def _rotation_matrices(vectors):
    """exp([r]_x) of rotation vectors r (..., 3) (Rodrigues)."""
    angle = np.linalg.norm(vectors, axis=-1)[..., None, None]
    K = np.zeros((*vectors.shape[:-1], 3, 3))
    K[..., 0, 1], K[..., 0, 2], K[..., 1, 2] = -vectors[..., 2], vectors[..., 1], -vectors[..., 0]
    K = K - np.swapaxes(K, -1, -2)
    small = angle < 1e-8
    a = np.where(small, 1.0 - angle**2 / 6.0, np.sin(angle) / np.where(small, 1.0, angle))
    b = np.where(small, 0.5 - angle**2 / 24.0, (1.0 - np.cos(angle)) / np.where(small, 1.0, angle) ** 2)
    return np.eye(3) + a * K + b * K @ K


def _rotation_vectors(R):
    """The rotation vectors (..., 3) of rotation matrices R (..., 3, 3) (small or not, below pi)."""
    from scipy.spatial.transform import Rotation  # here: scipy.spatial costs a run a tenth of a second

    shape = R.shape[:-2]
    return Rotation.from_matrix(R.reshape(-1, 3, 3)).as_rotvec().reshape(*shape, 3)


def column_names(name: str, dim: int) -> list:
    """The deviation columns of probe ``name``: ``name.deviation_x`` .. and ``name.deviation_angle``
    (2D) or ``name.deviation_rx`` .. (3D)."""
    rotation = ["angle"] if dim == 2 else ["rx", "ry", "rz"]
    return [f"{name}.deviation_{a}" for a in [*AXES[:dim], *rotation]]


UNITS = {"x": "m", "y": "m", "z": "m", "angle": "rad", "rx": "rad", "ry": "rad", "rz": "rad"}


class Deviation:
    """The deviation of ``probes`` [(name, body name, body-frame point)] of ``model`` from its rigid
    mechanism, table by table of a run (each time's numbers depend on that time alone: a run given in
    chunks gets the numbers of the run at once); ``q_start``: a state at which the rigid mechanism's
    independent constraint rows are chosen (the run's first). ``conditioning``:
    also the condition number and smallest singular value of the actuated-to-effector Jacobian of the
    rigid mechanism, the effector the probes' points (``rigid_mechanism``)."""

    def __init__(self, model: Model, probes, q_start):
        self.model, self.probes = model, list(probes)
        index = _index(model)
        points = [(index[body], np.asarray(point, dtype=float)) for _, body, point in self.probes]
        self.mechanism = RigidMechanism(model, points, q_start)

    @property
    def free(self) -> int:
        """Motions of the rigid mechanism the actuated coordinates leave free (fitted to the frames)."""
        return self.mechanism.free

    def describe(self) -> dict:
        """What the rigid mechanism is held at: {"actuated": names, "free_motions": count, "against":
        words for the output, "effector": the Jacobian's effector}."""
        names = self.mechanism.names
        held = f"at the actuated coordinates {', '.join(names)}" if names else "with no actuated coordinate"
        free = self.free
        words = held + (f"; its {free} free motion{'s' * (free > 1)} (a free-floating base, an unactuated joint) "
                        f"fitted to the bodies' frames in the metric diag(m, E_a)" if free else "")
        return {"actuated": names, "free_motions": free, "against": words,
                "effector": f"the world points of the probes {', '.join(p[0] for p in self.probes)}",
                "jacobian_rank": self.mechanism.rank if names and self.probes else 0}

    def conditioning(self, q) -> tuple:
        """Condition number and smallest singular value of the actuated-to-effector Jacobian of the rigid
        mechanism assembled at the actuated coordinates of the state q (NaN where it cannot be)."""
        _, J = self.mechanism.solve(np.asarray(q, dtype=float)[None], jacobians=True)
        kappa, smallest = self.mechanism.conditioning(J)
        return float(kappa[0]), float(smallest[0])

    def __call__(self, Q, conditioning=False):
        """{column: (F,)} for the states Q (F, n): the deviation columns of every probe
        (``column_names``), undefined (NaN) where the rigid mechanism cannot be assembled, the status of
        each frame ``STATUS`` (``OK`` or ``SINGULAR``: there), and with ``conditioning`` (in a model with
        actuated coordinates) ``jacobian_condition`` and ``jacobian_smallest`` (NaN where singular)."""
        Q = np.atleast_2d(np.asarray(Q, dtype=float))
        if not self.probes:
            return {}
        conditioning = conditioning and len(self.mechanism.act) > 0  # a map to condition: actuated coordinates
        rigid, J = self.mechanism.solve(Q, jacobians=True) if conditioning else (self.mechanism.solve(Q), None)
        dim = self.model.dim
        x, turn = point_poses(self.model, self.probes, Q)
        filled = np.where(np.isfinite(rigid), rigid, 0.0)
        xr, turn_r = point_poses(self.mechanism.rigid, self.probes, filled)
        dx = x - xr
        singular = ~np.isfinite(rigid).all(axis=1)
        if dim == 2:
            rotation = (np.mod(turn - turn_r + np.pi, 2 * np.pi) - np.pi)[..., None]
        else:  # only where the rigid pose exists: the zeros standing in for it are no rotation
            rotation = np.full((*turn.shape[:-2], 3), np.nan)
            if not singular.all():
                rotation[~singular] = _rotation_vectors(turn[~singular] @ np.swapaxes(turn_r[~singular], -1, -2))
        values = np.concatenate([dx, rotation], axis=-1)
        values[singular] = np.nan
        columns = {}
        for p, (name, _, _) in enumerate(self.probes):
            columns.update(zip(column_names(name, dim), values[:, p].T))
        if conditioning:
            kappa, smallest = self.mechanism.conditioning(J)
            columns["jacobian_condition"], columns["jacobian_smallest"] = kappa, smallest
        columns[STATUS] = np.where(singular, SINGULAR, OK)
        return columns


def deviation_table(model: Model, probes, Q, conditioning=False) -> dict:
    """The deviation from the rigid mechanism of every probe over the states Q (F, n) of a run (rows of
    ``Results.q``, or one state): {``P.deviation_x`` .. : (F,)} (``Deviation``)."""
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    return Deviation(model, probes, Q[0])(Q, conditioning)


def deviation_shapes(model: Model, probes, q, shapes, step=1e-7) -> np.ndarray:
    """The linearised deviation from the rigid mechanism of the probes for the motions ``shapes`` (k, n)
    about the state q (a mode's deviation shape): (k, P, dim + rotations), dD/ds of D(q + s x) by central
    differences with s |x|_max = ``step`` (truncation O(step^2), round-off O(eps / step) relative)."""
    shapes = np.atleast_2d(shapes)
    scale = step / np.maximum(np.abs(shapes).max(axis=1), 1e-300)[:, None]
    Q = np.concatenate([q + scale * shapes, q - scale * shapes])
    table = deviation_table(model, probes, Q)
    dim = model.dim
    values = np.stack([np.stack([table[c] for c in column_names(name, dim)], axis=1) for name, _, _ in probes], axis=1)
    k = len(shapes)
    return (values[:k] - values[k:]) / (2 * scale[:, :, None])
