"""The deformed centre line of a flexible body (either embedding, ``beam.flexible``) over the frames
of a run: its points, their elastic displacement from the floating frame and their deflection from the
reference that the body's joint points move with (the centre lines drawn in ParaView, ``femdyn view
--scale``; ``post.probes.centre_lines`` names the fields).

The points are the body's linear maps of the coordinates (``element_points``, the cubic Hermite shape
of every element, 003 eq. 46); the elastic displacement is the deformed point minus the point
``phi + X_a d_a`` the floating frame carries (001 eq. 4, 003 eq. 4).
"""
import numpy as np

from ..numerics import kinematics as kin


def centre_line_points(f, q: np.ndarray, xi: np.ndarray):
    """The body-frame points X (K P, dim) of the flexible body ``f`` at the points ``xi`` (P,) of every
    element (element ends repeated), their deformed world positions (F, K P, dim) over the frames q
    (F, n) and their world-frame elastic displacements (F, K P, dim) (module docstring)."""
    dim = f.beam.dim
    X = f.beam.elements.positions(xi).reshape(-1, dim)
    points = f.element_points(q, xi).reshape(len(q), -1, dim)
    return X, points, points - kin.material_points(q[:, f.rigid], X)


def joint_deflection(f, q: np.ndarray, X: np.ndarray, points: np.ndarray, joined) -> np.ndarray:
    """The deflection of a flexible body's centre-line points (F, N, dim) at the body-frame points X
    (N, dim) from the reference that its joint points ``joined`` (body frame) move with: with two or
    more, the rigid motion, stretched along the chord, that carries the two farthest apart, P_a and P_b,
    onto their deformed places x_a, x_b -- x_a + Q R (Y + (s - 1) (Y.e) e), Y = X - P_a, R the floating
    frame's rotation, Q the least rotation from R (P_b - P_a) to x_b - x_a, e = (P_b - P_a)/|P_b - P_a|,
    s = |x_b - x_a| / |P_b - P_a|; with one, the frame's rotation about x_a; with none, the frame. The
    deflection vanishes at those joint points, so magnifying it (``femdyn view --scale``, Warp By Vector)
    leaves the links joined there."""
    dim = f.beam.dim
    D = q[:, f.rigid[dim:]].reshape(len(q), dim, dim)  # rows d_a: world = phi + D^T X
    if not len(joined):
        return points - kin.material_points(q[:, f.rigid], X)
    P = np.asarray(joined, dtype=float)
    far = np.linalg.norm(P[:, None] - P[None], axis=2)
    a, b = np.unravel_index(np.argmax(far), far.shape)
    x = f.positions(q, P[[a, b]])  # (F, 2, dim)
    Y = X - P[a]
    if far[a, b] <= 1e-12 * max(1.0, np.abs(X).max()):
        return points - (x[:, :1] + np.einsum("fab,na->fnb", D, Y))
    e = (P[b] - P[a]) / far[a, b]
    chord = x[:, 1] - x[:, 0]
    s = np.linalg.norm(chord, axis=1) / far[a, b]
    unit = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    Q = kin.least_rotations(unit(np.einsum("fab,a->fb", D, P[b] - P[a])), unit(chord))
    stretched = Y[None] + (s[:, None, None] - 1.0) * (Y @ e)[None, :, None] * e
    return points - (x[:, :1] + np.einsum("fij,fnj->fni", Q, np.einsum("fab,fna->fnb", D, stretched)))
