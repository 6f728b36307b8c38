"""Joint reactions: the force and moment that each joint exerts on each of its two bodies, from the
multipliers of its constraint rows.

The rows of joint j act on the coordinates with the generalised forces f = -G_j(q)^T lam_j (000 eq. 5:
M dv/dt = F - G^T lam), restricted to the coordinates of one body: the joint's pair rows, and its angle
and slide rows (so a drive on the joint coordinate -- a servo input, a load, friction -- reaches the
bodies as part of the joint's moment or force). What a generalised force on a body means as a force and
a moment follows from virtual work (000 eqs. 8-15, 001 eqs. 4-7, director formulation): a rigid motion
of the body moves its centre phi by du + dtheta x phi and turns every vector coordinate, dd_a =
dtheta x d_a, so

    dW = f_phi . du + sum_v f_v . (dtheta x v) = F . du + dtheta . M_O,
    F = f_phi,   M_O = sum_v v x f_v   (v: phi and the directors d_1 .. d_dim),

the resultant force and its moment about the origin; about the joint's point x_P on the body,
M_P = M_O - x_P x F. The same holds for a flexible body in its floating frame: its world-vector
unknowns (the nodal displacements and slopes of a world-vector beam, the carriers of the carrier
embedding and the section carriers of a material point) turn with it, its scalar unknowns (elastic
coordinates, twists) do not, and x = phi + ... makes the phi-part the resultant force (003 eqs. 1-4).
The joint's constraints are invariant under rigid motions of both bodies together, so the forces on
the two bodies are opposite and their moments about one point too (Newton's third law).

In 2D the moment is the scalar M_z = (x f_y - y f_x) summed likewise. The joint-frame components are
those along the axes of the body's own joint frame (``Joint.frame1`` on body 1, ``frame2`` on body 2),
which turn with the body (with the section, on a flexible body, where the joint uses the section's
axes).
"""
import numpy as np

from ..joints.angle import JointAngle
from ..joints.base import JointPair
from ..joints.slide import Slide
from .errors import GROUND
from .spec import oriented_sides


def _cross(a, b):
    """a x b over the last axis: the scalar z-component (..., 1) in the plane, (..., 3) in space."""
    if a.shape[-1] == 2:
        return (a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0])[..., None]
    return np.cross(a, b)


def _apply(matrix, q):
    """sum_n matrix[..., n, :] q[:, n] over the frames q (F, n) for a matrix (a, n) or (a, n, b): term by
    term in a fixed order (no BLAS, whose kernels change with the number of frames), so that a frame's
    result does not depend on the others -- the tables of a run in chunks, or resumed, are those of a
    run in one piece, bit for bit."""
    stacked = matrix[..., None] if matrix.ndim == 2 else matrix
    out = np.zeros((len(q), stacked.shape[0], stacked.shape[2]))
    for n in range(stacked.shape[1]):
        out += stacked[:, n] * q[:, n, None, None]
    return out[..., 0] if matrix.ndim == 2 else out


def _along(R, vector):
    """The components R^T v (F, dim) of the vectors v (F, dim) along the columns of R (F, dim, dim)."""
    return sum(R[:, i] * vector[:, i, None] for i in range(R.shape[1]))


def vector_starts(model, body):
    """First coordinates of the dim-vectors of body index ``body`` (the ground included) that turn
    with it: phi (first), the directors, and of a flexible body its world-vector unknowns."""
    flexible = model.bodies[body].flexible if body < len(model.bodies) else None
    return model.body_dofs(body)[:: model.dim] if flexible is None else flexible.turning_vectors()


class JointReactions:
    """The reactions of every joint of ``model`` on its two bodies (module docstring): ``sides`` lists
    (joint name, body name) in the order of ``columns``."""

    def __init__(self, model):
        self.model, dim = model, model.dim
        joints = {j.name: j for j in model.joints}
        self.families = [c for c in model.constraints if isinstance(c, (JointPair, Slide, JointAngle))]
        dofs = {}  # (joint, side) -> the union of the body coordinates its rows act on
        for c in self.families:
            for k, label in enumerate(c.labels):
                for side, part in enumerate((c.dofs[k, : c.n1], c.dofs[k, c.n1 : c.n1 + c.n2])):
                    dofs[label, side] = np.union1d(dofs.get((label, side), []), part).astype(np.int64)
        self.keys = sorted(dofs, key=lambda key: (list(joints).index(key[0]), key[1]))
        self.dofs = [dofs[key] for key in self.keys]
        self.slot = {key: i for i, key in enumerate(self.keys)}
        self.sides, self.geometry = [], []
        for joint, side in self.keys:
            j = joints[joint]
            body = (j.body1, j.body2)[side]
            oriented = oriented_sides(j.type, "angle" in j.coordinates, "slide" in j.coordinates, dim)[side]
            point_dofs, point, axes = model.material_point(body, (j.point1, j.point2)[side],
                                                           (j.frame1, j.frame2)[side], oriented)
            acted = self.dofs[len(self.geometry)]
            vectors = vector_starts(model, body)[:, None] + np.arange(dim)  # (V, dim)
            vectors = vectors[np.isin(vectors, acted).all(axis=1)]  # those the joint's rows act on
            self.geometry.append((vectors[:, 0], np.searchsorted(acted, vectors), np.asarray(point_dofs), point,
                                  np.stack(axes, axis=-1)))
            name = model.bodies[body].name if body < len(model.bodies) else GROUND
            self.sides.append((joint, name))

    def forces(self, Q, Lam):
        """The generalised forces -G_j^T lam_j of each (joint, side) on its coordinates ``dofs``, for
        the coordinates Q (F, n) and multipliers Lam (F, m) of F instants: a list of (F, len(dofs))."""
        out = [np.zeros((len(Q), len(d))) for d in self.dofs]
        for c in self.families:
            G, lam = c.jacobian_history(Q[:, c.dofs]), Lam[:, c.rows]
            local = -sum(G[:, :, r] * lam[:, :, r, None] for r in range(c.m))
            for k, label in enumerate(c.labels):
                for side, part in enumerate((slice(0, c.n1), slice(c.n1, c.n1 + c.n2))):
                    i = self.slot[label, side]
                    out[i][:, np.searchsorted(self.dofs[i], c.dofs[k, part])] += local[:, k, part]
        return out

    def columns(self, Q, Lam):
        """{column: (F,)}: for every (joint, body) ``J.B.force_x`` .. and ``J.B.moment_z`` (2D) or
        ``J.B.moment_x`` .. (3D) in the world frame, the moment about the joint's point on the body;
        ``J.B.force_1`` .. (and in 3D ``J.B.moment_1`` ..) along the axes of the body's joint frame."""
        dim, axes = self.model.dim, "xyz"[: self.model.dim]
        columns = {}
        for (joint, body), f, (starts, where, point_dofs, point, frame) in zip(self.sides, self.forces(Q, Lam),
                                                                           self.geometry):
            force = f[:, where[0]]  # phi first
            moment = sum(_cross(Q[:, s : s + dim], f[:, w]) for s, w in zip(starts, where))
            q_point = Q[:, point_dofs]
            x = _apply(point, q_point)
            moment = moment - _cross(x, force)
            R = _apply(frame, q_point)  # (F, dim, dim): columns the joint axes
            local = _along(R, force)
            prefix = f"{joint}.{body}."
            columns.update({f"{prefix}force_{a}": force[:, i] for i, a in enumerate(axes)})
            if dim == 2:
                columns[f"{prefix}moment_z"] = moment[:, 0]
            else:
                columns.update({f"{prefix}moment_{a}": moment[:, i] for i, a in enumerate(axes)})
            columns.update({f"{prefix}force_{i + 1}": local[:, i] for i in range(dim)})
            if dim == 3:
                turned = _along(R, moment)
                columns.update({f"{prefix}moment_{i + 1}": turned[:, i] for i in range(3)})
        return columns
