"""Material points and body-fixed directions of director bodies as linear maps of the coordinates.

A rigid body in ``dim`` dimensions carries ``q = [phi, d_1, ..., d_dim]`` (000 eq. 8, 001 eq. 5). A
material point ``X`` sits at ``x = phi + X_a d_a`` (001 eq. 4) and a body-fixed direction ``a`` is
``a_a d_a``; both are linear in ``q``:  ``x = C(X) q`` and ``a = A(a) q``.  These matrices make every
joint constraint of the rotationless formulation at most quadratic in ``q`` (000 eqs. 21-23, 44-47).
"""
import numpy as np


def body_size(dim):
    """Number of coordinates of a rigid director body: 6 in the plane, 12 in space."""
    return dim * (dim + 1)


def _kron_rows(coeff, dim):
    """(K, dim+1) coefficients c -> (K, dim, dim*(dim+1)) matrices [c_0 I, c_1 I, ...]."""
    K = coeff.shape[0]
    return np.einsum("ka,ij->kiaj", coeff, np.eye(dim)).reshape(K, dim, body_size(dim))


def point_matrix(X):
    """C(X) with x = phi + X_a d_a = C(X) q for a batch of body-frame points X of shape (K, dim)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    return _kron_rows(np.hstack([np.ones((X.shape[0], 1)), X]), X.shape[1])


def direction_matrix(a):
    """A(a) with a_a d_a = A(a) q for a batch of body-frame directions a of shape (K, dim)."""
    a = np.atleast_2d(np.asarray(a, dtype=float))
    return _kron_rows(np.hstack([np.zeros((a.shape[0], 1)), a]), a.shape[1])


def material_points(body, X):
    """World positions ``phi + X_a d_a`` (..., P, dim) of body-frame points X (P, dim) for the body
    coordinates ``body`` = [phi, d_1, .., d_dim] (..., dim (dim + 1)) of one body (001 eq. 4);
    applied to velocities, the rigid velocities of the points."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    dim = X.shape[-1]
    body = np.asarray(body, dtype=float)
    directors = body[..., dim:].reshape(body.shape[:-1] + (dim, dim))  # rows d_a
    return body[..., None, :dim] + np.einsum("pa,...ab->...pb", X, directors)


def apply(matrix, q):
    """Batched product: (K, r, n) matrices times (K, n) coordinates -> (K, r)."""
    return np.einsum("krn,kn->kr", matrix, q)


def rotation_2d(angle):
    """Rotation matrix of the plane whose columns are the directors d_1, d_2."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def rotation_3d(axis, angle):
    """Rotation about a unit ``axis`` by ``angle`` (Rodrigues); columns are the directors."""
    n = np.asarray(axis, dtype=float)
    n = n / np.linalg.norm(n)
    N = np.array([[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]])
    return np.eye(3) + np.sin(angle) * N + (1.0 - np.cos(angle)) * N @ N


def least_rotations(a, b):
    """Rotations (K, dim, dim) taking the unit vectors a to the unit vectors b (K, dim): in the plane the
    turn by the angle between them; in space the least one, about a x b (Rodrigues: I + [v]x +
    [v]x^2 / (1 + c), v = a x b, c = a.b), and where b = -a the half turn 2 u u^T - I about the unit u
    perpendicular to a nearest to e_3 (e_2 where a is along e_3)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape[1] == 2:
        cos, sin = np.sum(a * b, axis=1), a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
        return np.stack([np.stack([cos, -sin], axis=1), np.stack([sin, cos], axis=1)], axis=1)
    v, c = np.cross(a, b), np.sum(a * b, axis=1)
    V = np.zeros((len(a), 3, 3))
    V[:, 0, 1], V[:, 0, 2], V[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    V[:, 1, 0], V[:, 2, 0], V[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    back = 1.0 + c <= 1e-12
    scale = np.where(back, 0.0, 1.0 / np.where(back, 1.0, 1.0 + c))
    R = np.eye(3) + V + scale[:, None, None] * (V @ V)
    for k in np.flatnonzero(back):
        e = np.eye(3)[2] if abs(a[k, 2]) < 0.9 else np.eye(3)[1]
        u = e - (e @ a[k]) * a[k]
        u /= np.linalg.norm(u)
        R[k] = 2.0 * np.outer(u, u) - np.eye(3)
    return R


def cross(omega, r):
    """omega x r for a planar scalar omega (r of shape (..., 2)) or a spatial vector omega."""
    r = np.asarray(r, dtype=float)
    if r.shape[-1] == 2:
        omega = np.asarray(omega, dtype=float)[..., None]
        return omega * np.stack([-r[..., 1], r[..., 0]], axis=-1)
    return np.cross(omega, r)


def perpendicular_frame(axis):
    """Right-handed orthonormal frame [x, y, z] (columns) with z along ``axis``.

    x is the unit vector of the coordinate axis least aligned with ``axis``, made orthogonal to it;
    the choice is deterministic so that equal axes give equal frames.
    """
    z = np.asarray(axis, dtype=float)
    z = z / np.linalg.norm(z)
    e = np.eye(3)[np.argmin(np.abs(z))]
    x = e - (e @ z) * z
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])
