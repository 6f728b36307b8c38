"""Consistent initial conditions (000 eqs. 41-42, 56-57) and the independent set of constraints.

1. ``place``: bodies whose pose is given explicitly (and the ground) are placed first; the others
   follow through the joints from their generalised coordinates (joint angle, slide), breadth first
   as in a kinematic tree. Velocities propagate the same way from given body twists and joint rates;
   joint coordinates and rates that are not given are measured from the placed bodies.
2. ``independent_rows``: the rank of the constraint Jacobian at the initial configuration; dependent
   (redundant) rows are found and named.
3. ``project``: positions onto Phi = 0 (the links' elastic coordinates held where the frames can close
   the loops) and velocities onto G v = 0, each by the correction of least kinetic-energy norm, so that
   the stepper starts exactly on the constraint manifold. A pose given only roughly is closed first by
   ``assembly.assemble``, which holds the coordinates that set the mechanism.
"""
from collections import defaultdict, deque

import numpy as np
import scipy.sparse as sp

from ..joints.angle import JointAngle
from ..joints.slide import Slide
from ..numerics import kinematics as kin
from ..numerics.cholesky import NotPositiveDefiniteError, cholesky, pivots
from .assembly import close, rigid_count, weights
from .errors import GROUND, ModelError

PLACING = {"revolute": ("angle",), "prismatic": ("slide",), "cylindrical": ("angle", "slide"), "fixed": ()}


def _relative_rotation(dim, theta):
    """Rotation of joint frame 2 relative to joint frame 1 by the joint angle (about x in space)."""
    return kin.rotation_2d(theta) if dim == 2 else kin.rotation_3d([1.0, 0.0, 0.0], theta)


def _place_across(model, joint, known, pose, coords):
    """Pose and twist of the unknown side of ``joint`` given side ``known`` (1 or 2)."""
    dim = model.dim
    phi_k, R_k, v_k, w_k = pose
    theta, theta_dot = coords.get("angle", 0.0), coords.get("angle_rate", 0.0)
    u, u_dot = coords.get("slide", 0.0), coords.get("slide_rate", 0.0)
    if known == 1:
        X_k, F_k, X_o, F_o = joint.point1, joint.frame1, joint.point2, joint.frame2
    else:  # seen from body 2 the joint moves backwards
        X_k, F_k, X_o, F_o = joint.point2, joint.frame2, joint.point1, joint.frame1
        theta, theta_dot, u, u_dot = -theta, -theta_dot, -u, -u_dot
    J_k = R_k @ F_k
    n = J_k[:, 0]
    R_o = J_k @ _relative_rotation(dim, theta) @ F_o.T
    P_o = phi_k + R_k @ X_k + u * n
    phi_o = P_o - R_o @ X_o
    w_o = w_k + theta_dot * (1.0 if dim == 2 else n)
    v_o = v_k + kin.cross(w_k, P_o - phi_k) + u_dot * n + kin.cross(w_o, phi_o - P_o)
    return phi_o, R_o, v_o, w_o


def place(model, bodies, joints):
    """q0, v0 from explicit body poses/twists and joint coordinates/rates.

    bodies: {name: {"position", "angle" (2D) or "rotation" (3x3, 3D), "velocity", "angular_velocity"}}
    joints: {joint name: {"angle", "angle_rate", "slide", "slide_rate"}}
    """
    dim = model.dim
    zero_w = 0.0 if dim == 2 else np.zeros(3)
    index = {b.name: i for i, b in enumerate(model.bodies)}
    known_joints = {j.name for j in model.joints}
    for name in joints:
        if name not in known_joints:
            raise ModelError(f"initial.joints.{name}", "unknown joint")
    poses = {}
    if model.ground is not None:
        poses[model.ground] = (np.zeros(dim), np.eye(dim), np.zeros(dim), zero_w)
    for name, spec in bodies.items():
        if name not in index:
            raise ModelError(f"initial.bodies.{name}", "unknown body")
        R = kin.rotation_2d(spec.get("angle", 0.0)) if dim == 2 else np.asarray(spec.get("rotation", np.eye(3)), float)
        poses[index[name]] = (np.asarray(spec.get("position", np.zeros(dim)), float), R,
                              np.asarray(spec.get("velocity", np.zeros(dim)), float),
                              spec.get("angular_velocity", zero_w))

    neighbours = defaultdict(list)  # body -> joints that can place a neighbour from it
    for j in model.joints:
        if j.type in PLACING and all(k in joints.get(j.name, {}) for k in PLACING[j.type]):
            neighbours[j.body1].append((j, 1))
            neighbours[j.body2].append((j, 2))
    queue = deque(poses)
    while queue:
        body = queue.popleft()
        for j, side in neighbours[body]:
            other = j.body2 if side == 1 else j.body1
            if other not in poses:
                poses[other] = _place_across(model, j, side, poses[body], joints.get(j.name, {}))
                queue.append(other)
    missing = [i for i in range(len(model.bodies)) if i not in poses]
    if missing:
        names = ", ".join(model.bodies[i].name for i in missing)
        hints = [f"joint '{j.name}' needs its {' and '.join(PLACING[j.type])}" for j in model.joints
                 if j.type in PLACING and (j.body1 in missing or j.body2 in missing)
                 and not all(k in joints.get(j.name, {}) for k in PLACING[j.type])]
        raise ModelError("initial", f"cannot place {names}: give a pose in initial.bodies, or the "
                         "coordinates of a joint that leads there" + (f" ({'; '.join(hints)})" if hints else ""))

    q, v = np.zeros(model.n), np.zeros(model.n)
    for i, (phi, R, vel, w) in poses.items():
        dofs = model.body_dofs(i)
        q[dofs] = np.concatenate([phi, R.T.ravel()])
        v[dofs] = np.concatenate([vel, kin.cross(w, R.T).ravel()])
    _joint_coordinates(model, joints, q, v)
    return q, v


def _joint_coordinates(model, joints, q, v):
    """Fill the augmented coordinates: given values and rates where there are, else measured from the
    placed bodies. The measurement solves each augmentation row for its coordinate: the angle as
    atan2(s, c) (the zero of sin(Theta) c - cos(Theta) s on the branch with cos(Theta - Theta_rel) = 1),
    the slide and both rates from Phi = 0 and G v = 0 (the coordinate enters linearly there)."""
    given = {}
    for j in model.joints:
        for kind, i in j.coordinates.items():
            spec = joints.get(j.name, {})
            given[i] = (spec.get(kind), spec.get(f"{kind}_rate"))
    for family in model.constraints:
        if not isinstance(family, (JointAngle, Slide)):
            continue
        coord = family.dofs[:, -1]
        values = np.array([given[i][0] for i in coord], dtype=object)
        q_local = q[family.dofs]
        if isinstance(family, JointAngle):
            c, s, _, _ = family._cs(q_local)
            measured = np.arctan2(s, c)
        else:
            q_local[:, -1] = 0.0
            measured = family.phi(q_local)[:, 0]  # (p2 - p1).x1
        q[coord] = [m if g is None else g for g, m in zip(values, measured)]
        G = family.jacobian(q[family.dofs])[:, 0, :]
        rates = -np.sum(G[:, :-1] * v[family.dofs[:, :-1]], axis=1) / G[:, -1]
        v[coord] = [r if given[i][1] is None else given[i][1] for i, r in zip(coord, rates)]


def wrong_angle_branch(model, q):
    """Joints whose augmented angle is off by pi: sin(Theta - Theta_rel) = 0 also holds there, with
    the opposite slope, so the constraint alone does not tell the branches apart."""
    wrong = []
    for family in model.constraints:
        if isinstance(family, JointAngle):
            c, s, _, _ = family._cs(q[family.dofs])
            theta = q[family.dofs[:, -1]]
            wrong += [label for label, ok in zip(family.labels, c * np.cos(theta) + s * np.sin(theta) > 0) if not ok]
    return wrong


def independent_rows(model, q, tolerance=1e-9, block=64):
    """Indices of a maximal independent set of constraint rows at q, preferring earlier rows, and a
    list of (dropped row label, [joints whose rows it depends on]); the bodies' orthonormality and the
    ground anchor, on which every joint row depends, are not listed.

    Fast path: a sparse Cholesky (CHOLMOD) of the row-normalised G G^T; only if it reveals a
    (near-)zero pivot are the dependent rows located by a blocked Gram-Schmidt sweep over the rows in
    order, so that a row is dropped only if it depends on the rows before it.
    """
    G = model.jacobian(q)
    norms = np.sqrt(np.asarray(G.multiply(G).sum(axis=1)).ravel())
    Gs = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ G
    try:
        D = pivots(Gs @ Gs.T)
        if np.all(norms > 0) and D.min() > tolerance:
            return np.arange(model.m), []
    except NotPositiveDefiniteError:
        pass
    dense = Gs.toarray()
    basis = np.zeros((0, model.n))
    dependent = np.zeros(model.m, dtype=bool)
    for start in range(0, model.m, block):
        rows = dense[start : start + block]
        for _ in range(2):  # twice is enough (Kahan/Parlett) for orthogonality
            rows = rows - (rows @ basis.T) @ basis
        new = []
        for k, r in enumerate(rows):  # within the block, in order
            for b in new:
                r = r - (r @ b) * b
            norm = np.linalg.norm(r)
            if norm <= tolerance:
                dependent[start + k] = True
            else:
                new.append(r / norm)
        if new:
            basis = np.vstack([basis, new])
    active = np.flatnonzero(~dependent)
    labels = model.constraint_labels()
    # each dropped row as a combination of the (independent) active rows: unique, from G_a G_a^T
    Ga, Gd = Gs[active], Gs[np.flatnonzero(dependent)]
    coef = cholesky((Ga @ Ga.T).tocsc())((Ga @ Gd.T).toarray())
    report = []
    for row, c in zip(np.flatnonzero(dependent), coef.T):
        involved = sorted({labels[r].split(" row ")[0] for r in active[np.abs(c) > 1e-8]
                           if not labels[r].startswith(("orthonormality", "anchor"))})
        report.append((labels[row], involved))
    return active, report


DENSE_LIMIT = 3000  # coordinates up to which a refusal of ``check_inertia_fixed`` names the bodies moved


def check_inertia_fixed(model, q, rows, tolerance=1e-13):
    """Refuses a body without rotational inertia along some director (a point mass, a rod, a flat
    body: E_a = 0, ``ModelBuilder.add_body``) whose massless motion the constraints leave free: the
    saddle-point matrix [[M, G^T], [G, 0]] of every step is regular exactly when M is positive definite
    on the null space of G, i.e. when M + s G^T G is (s > 0; G the independent ``rows`` at q, each row
    normalised, s the mean positive mass entry). Only models with such bodies are checked (one sparse
    Cholesky factorisation; a refusal names the bodies that the undetermined motion moves, found from
    the matrix's eigenvector of least eigenvalue)."""
    flat = [b.name for b in model.bodies if b.flexible is None and b.name != GROUND and np.any(b.euler == 0)]
    if not flat:
        return
    G = model.jacobian(q, rows)
    norms = np.sqrt(np.asarray(G.multiply(G).sum(axis=1)).ravel())
    G = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ G
    M = model.mass_matrix
    diagonal = M.diagonal()
    s = diagonal[diagonal > 0].mean()
    try:
        D = pivots(M + s * (G.T @ G))
        regular = D.min() > tolerance * D.max()
    except NotPositiveDefiniteError:
        regular = False
    if not regular:
        if model.n <= DENSE_LIMIT:  # name the bodies that the undetermined motion moves
            _, vectors = np.linalg.eigh((M + s * (G.T @ G)).toarray())
            moved = np.abs(vectors[:, 0]) > 1e-6 * np.abs(vectors[:, 0]).max()
            flat = [b.name for b in model.bodies if b.name in flat
                    and moved[b.offset : b.offset + model.dim * (model.dim + 1)].any()] or flat
        raise ModelError("bodies", f"{', '.join(flat)}: no rotational inertia about some axis (euler or inertia "
                         "values of 0), and the joints leave that rotation free, so the motion is undetermined; "
                         "give the body inertia, or join it so that its rotation is fixed")


def project(model, q, v, rows, tolerance=1e-13, max_iterations=20):
    """Move q onto Phi_rows(q) = 0 and v onto G_rows(q) v = 0 by least W-norm corrections. The positions
    are corrected first with the elastic coordinates held (``assembly.close`` on the frames and joint
    coordinates, the ground held): a link is not bent to close a loop, so that a static equilibrium from
    q measures the sag and not the correction; only where that cannot close the loops (a link held at
    both ends by the ground, say) do all coordinates move (Newton's least-norm steps)."""
    w = weights(model)
    w_inv = sp.diags(1.0 / w)
    free = np.zeros(model.n, dtype=bool)
    free[:rigid_count(model)] = True
    if model.ground is not None:
        free[model.body_dofs(model.ground)] = False
    q = close(model, q, free, rows, w, tolerance, max_iterations)[0]
    for _ in range(max_iterations):
        residual = model.phi(q)[rows]
        if np.abs(residual).max(initial=0.0) <= tolerance * max(1.0, np.abs(q).max()):
            break
        G = model.jacobian(q, rows)
        q = q - w_inv @ (G.T @ cholesky((G @ w_inv @ G.T).tocsc())(residual))
    else:
        raise ModelError("initial", "the projection onto the constraints did not converge; "
                         "check the initial configuration")
    G = model.jacobian(q, rows)
    velocity_residual = G @ v + model.phi_time_derivative(q)[rows]
    if np.abs(velocity_residual).max(initial=0.0) > tolerance * max(1.0, np.abs(v).max()):
        v = v - w_inv @ (G.T @ cholesky((G @ w_inv @ G.T).tocsc())(velocity_residual))
    return q, v
