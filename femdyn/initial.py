"""Consistent initial conditions (000 eqs. 41-42, 56-57) and the independent set of constraints.

1. ``place``: bodies whose pose is given explicitly (and the ground) are placed first; the others
   follow through the joints from their generalised coordinates (joint angle, slide), as in a
   kinematic tree. Velocities propagate the same way from given body twists and joint rates.
2. ``independent_rows``: the rank of the constraint Jacobian at the initial configuration; dependent
   (redundant) rows are found and named.
3. ``project``: positions onto Phi = 0 and velocities onto G v = 0, each by the correction of least
   kinetic-energy norm, so that the stepper starts exactly on the constraint manifold.
"""
import numpy as np
import scipy.sparse as sp
from sksparse.cholmod import CholmodNotPositiveDefiniteError, cholesky

from . import kinematics as kin
from .model import ModelError

PLACING = {"revolute": ("angle",), "prismatic": ("slide",), "cylindrical": ("angle", "slide"), "fixed": ()}


def _relative_rotation(dim, theta, axis):
    """Rotation of joint frame 2 relative to joint frame 1 by the joint angle (about x in space)."""
    return kin.rotation_2d(theta) if dim == 2 else kin.rotation_3d(axis, theta)


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
    J_o = J_k @ _relative_rotation(dim, theta, np.array([1.0, 0.0, 0.0]))
    R_o = J_o @ F_o.T
    P_k = phi_k + R_k @ X_k
    P_o = P_k + u * n
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
    for name in joints:
        if name not in {j.name for j in model.joints}:
            raise ModelError(f"initial.joints.{name}", "unknown joint")
    progress = True
    while progress:
        progress = False
        for j in model.joints:
            coords = joints.get(j.name, {})
            if j.type not in PLACING or not all(k in coords for k in PLACING[j.type]):
                continue
            ends = (j.body1 in poses, j.body2 in poses)
            if ends == (True, False):
                poses[j.body2] = _place_across(model, j, 1, poses[j.body1], coords)
                progress = True
            elif ends == (False, True):
                poses[j.body1] = _place_across(model, j, 2, poses[j.body2], coords)
                progress = True
    missing = [b.name for i, b in enumerate(model.bodies) if i not in poses]
    if missing:
        raise ModelError("initial", f"cannot place bod{'y' if len(missing) == 1 else 'ies'} "
                         f"{', '.join(missing)}: give a pose, or the coordinate of a joint that leads to it")

    q, v = np.zeros(model.n), np.zeros(model.n)
    for i, (phi, R, vel, w) in poses.items():
        dofs = model.body_dofs(i)
        q[dofs] = np.concatenate([phi, R.T.ravel()])
        v[dofs] = np.concatenate([vel, kin.cross(w, R.T).ravel()])
    for j in model.joints:
        coords = joints.get(j.name, {})
        for kind, index_q in j.coordinates.items():
            q[index_q] = coords[kind] if kind in coords else _measure(model, j, kind, q)
            v[index_q] = coords.get(f"{kind}_rate", 0.0)
    return q, v


def _measure(model, joint, kind, q):
    """Joint angle or slide of a placed pair (for joints that close loops)."""
    def pose(i):  # the ground included
        c = q[model.body_dofs(i)].reshape(model.dim + 1, model.dim)
        return c[0], c[1:].T

    (phi1, R1), (phi2, R2) = pose(joint.body1), pose(joint.body2)
    J1, J2 = R1 @ joint.frame1, R2 @ joint.frame2
    if kind == "slide":
        return float((phi2 + R2 @ joint.point2 - phi1 - R1 @ joint.point1) @ J1[:, 0])
    i, k = (0, 1) if model.dim == 2 else (1, 2)
    return float(np.arctan2(J1[:, k] @ J2[:, i], J1[:, i] @ J2[:, i]))


def sparse_jacobian(model, q, rows=None):
    """G(q) as CSR, optionally restricted to ``rows``."""
    r, c, d = [], [], []
    for fam in model.constraints:
        G = fam.jacobian(q[fam.dofs])
        r.append(np.broadcast_to(fam.rows[:, :, None], G.shape).ravel())
        c.append(np.broadcast_to(fam.dofs[:, None, :], G.shape).ravel())
        d.append(G.ravel())
    G = sp.csr_matrix((np.concatenate(d), (np.concatenate(r), np.concatenate(c))), shape=(model.m, model.n))
    return G if rows is None else G[rows]


def _weights(model):
    """Kinetic-energy metric, with unit-less weight for the massless augmented coordinates."""
    w = model.mass.copy()
    w[w == 0] = 1e-3 * (w[w > 0].min() if np.any(w > 0) else 1.0)
    return w


def independent_rows(model, q, tolerance=1e-9):
    """Indices of a maximal independent set of constraint rows at q, preferring earlier rows, and a
    list of (dropped row label, [joints whose rows it depends on]); the bodies' orthonormality and the
    ground anchor, on which every joint row depends, are not listed.

    Fast path: a sparse Cholesky (CHOLMOD) of the row-normalised G G^T; only if it reveals a
    (near-)zero pivot are the dependent rows located by an ordered Gram-Schmidt sweep over the rows,
    so that a row is dropped only if it depends on the rows before it.
    """
    G = sparse_jacobian(model, q)
    norms = np.sqrt(np.asarray(G.multiply(G).sum(axis=1)).ravel())
    Gs = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ G
    try:
        D = cholesky((Gs @ Gs.T).tocsc(), mode="simplicial").D()
        if np.all(norms > 0) and D.min() > tolerance:
            return np.arange(model.m), []
    except CholmodNotPositiveDefiniteError:
        pass
    dense = Gs.toarray()
    basis = np.zeros((0, model.n))
    dependent = np.zeros(model.m, dtype=bool)
    for row in range(model.m):  # set-up only, and only for models with redundant constraints
        r = dense[row] - basis.T @ (basis @ dense[row])
        r -= basis.T @ (basis @ r)  # twice is enough (Kahan/Parlett) for orthogonality
        norm = np.linalg.norm(r)
        if norm <= tolerance:
            dependent[row] = True
        else:
            basis = np.vstack([basis, r / norm])
    active = np.flatnonzero(~dependent)
    labels = model.constraint_labels()
    report = []
    for row in np.flatnonzero(dependent):
        earlier = active[active < row]
        coef = np.linalg.lstsq(dense[earlier].T, dense[row], rcond=None)[0]
        involved = sorted({labels[r].split(" row ")[0] for r in earlier[np.abs(coef) > 1e-8]
                           if not labels[r].startswith(("orthonormality", "anchor"))})
        report.append((labels[row], involved))
    return active, report


def project(model, q, v, rows, tolerance=1e-13, max_iterations=20):
    """Move q onto Phi_rows(q) = 0 and v onto G_rows(q) v = 0 by least W-norm corrections."""
    w_inv = sp.diags(1.0 / _weights(model))
    for _ in range(max_iterations):
        residual = model.phi(q)[rows]
        if np.abs(residual).max(initial=0.0) <= tolerance * max(1.0, np.abs(q).max()):
            break
        G = sparse_jacobian(model, q, rows)
        q = q - w_inv @ (G.T @ cholesky((G @ w_inv @ G.T).tocsc())(residual))
    G = sparse_jacobian(model, q, rows)
    v = v - w_inv @ (G.T @ cholesky((G @ w_inv @ G.T).tocsc())(G @ v))
    return q, v
