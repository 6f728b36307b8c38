"""Reference conditions of a beam body (003 section 4): which nodal coordinates the end conditions
``"start-end"`` suppress, and the check that they stop every rigid motion.

Nodal coordinates are ``[ux, uy, theta]`` per node in the plane and ``[ux, uy, uz, psi, theta_y,
theta_z]`` in space (``elements``, ``spatial``). Each end is one of

- ``fixed``: every coordinate of the node suppressed,
- ``pinned``: the displacement suppressed, the bending rotations stay; in space the twist psi is
  suppressed too (a fork support): otherwise ``pinned-pinned`` and ``pinned-rolled`` would leave the
  rotation about the beam's axis, which moves none of the centre line's points,
- ``rolled``: the displacement across the body's x1 axis suppressed (uy; in space uy, uz): the end
  slides along the axial direction of a straight beam,
- ``free``: nothing suppressed,
- ``held`` (an end only): the displacement suppressed, as ``pinned`` (in space the twist too): the end
  node held on the frame's x1 axis at its undeformed distance from the start -- an axially rigid link,
  a modelling choice that removes the stretch between the ends (and in space the twist between them).

A ``pinned`` end after a start that holds the axial displacement already (``pinned`` or ``fixed``)
suppresses what ``rolled`` does: the frame's x1 axis passes through both end points (the chord frame),
and the link's stretch between its ends -- a deformation, not a choice of frame -- stays (in space the
twist between the ends too). Suppressing the end's axial displacement as well would hold the two end
points at their undeformed distance, so that a link of a mechanism could not stretch between its
joints: reference conditions choose the floating frame and must not remove a deformation (a
deviation from the rigid mechanism coming from the stretch, ``model.deviation``, would vanish).
``pinned-pinned`` is therefore the frame of ``pinned-rolled``; ``pinned-held`` is the old, axially
rigid ``pinned-pinned``, for a model that means it (its frames then move as the rigid mechanism:
reference-motion servos on them are collocated, ``cases/3prr_reference.toml``).

The components are the body frame's: on a spatial polyline whose end element does not lie along x1,
``pinned`` holds the rotation about x1 (not about the end's tangent) and ``rolled`` the displacement
across x1; ``fixed`` and ``free`` mean the same for every centre line.

Suppressing coordinates is the Boolean reduction ``q_nodal = B2 q`` of 003 eqs. 117 and 156.
"""
import numpy as np

END_CONDITIONS = {
    2: {"fixed": (0, 1, 2), "pinned": (0, 1), "rolled": (1,), "free": (), "held": (0, 1)},
    3: {"fixed": (0, 1, 2, 3, 4, 5), "pinned": (0, 1, 2, 3), "rolled": (1, 2), "free": (), "held": (0, 1, 2, 3)},
}
NODE_SIZE = {2: 3, 3: 6}


def suppressed_coordinates(reference, n_nodes, dim=2):
    """Indices of the nodal coordinates (node after node) that the reference conditions
    ``"start-end"`` suppress (003 eq. 156)."""
    conditions = END_CONDITIONS[dim]
    parts = reference.split("-") if isinstance(reference, str) else []
    if len(parts) != 2 or not all(p in conditions for p in parts) or parts[0] == "held":
        raise ValueError(f"reference conditions must be 'start-end' with each end one of "
                         f"{', '.join(c for c in conditions if c != 'held')} (the end also held) (e.g. "
                         f"'fixed-free'), got {reference!r}")
    if parts[1] == "pinned" and parts[0] in ("pinned", "fixed"):
        parts[1] = "rolled"  # the stretch between the ends stays (module docstring)
    start, end = (np.array(conditions[p], dtype=np.int64) for p in parts)
    return np.unique(np.concatenate([start, NODE_SIZE[dim] * (n_nodes - 1) + end]))


def _rigid_rows(X, component, dim):
    """Nodal coordinate ``component`` of the rigid motion (c, omega) at the points X (S, dim), as rows
    on the motion's parameters: in the plane [c_x, c_y, omega] with u = c + omega J X, theta = omega;
    in space [c (3), omega (3)] with u = c + omega x X and the rotations (psi, theta_y, theta_z) =
    omega."""
    S = len(component)
    if dim == 2:
        rows = np.zeros((S, 3))
        rows[np.arange(S), component] = 1.0
        rows[component == 0, 2] = -X[component == 0, 1]
        rows[component == 1, 2] = X[component == 1, 0]
        return rows
    rows = np.zeros((S, 6))
    rows[np.arange(S), component] = 1.0  # c_a for displacements, omega_a for rotations
    cross = np.zeros((S, 3, 3))  # d(omega x X)/d omega = -[X]_x
    cross[:, 0, 1], cross[:, 0, 2] = X[:, 2], -X[:, 1]
    cross[:, 1, 0], cross[:, 1, 2] = -X[:, 2], X[:, 0]
    cross[:, 2, 0], cross[:, 2, 1] = X[:, 1], -X[:, 0]
    moving = component < 3
    rows[moving, 3:] = cross[moving, component[moving]]
    return rows


def _motion(vector, size, dim):
    """Words for the one rigid motion (c, omega) (scaled: omega times ``size``) that is left, signed
    so that the largest component of its direction (a translation's, or a rotation's axis) is
    positive."""
    c, omega = vector[:dim], vector[dim:] / size
    lead = omega if np.linalg.norm(omega) * size >= 1e-10 * np.linalg.norm(c) else c
    if lead[np.argmax(np.abs(lead))] < 0:
        c, omega = -c, -omega
    omega_size = np.linalg.norm(omega) * size
    if omega_size < 1e-10 * np.linalg.norm(c):
        direction = c / np.linalg.norm(c)
        return f"the translation along ({', '.join(f'{a:.3g}' for a in direction + 0.0)})"
    if dim == 2:
        return f"the rotation about the point ({-c[1] / omega[0] + 0.0:.6g}, {c[0] / omega[0] + 0.0:.6g})"
    axis = omega / np.linalg.norm(omega)
    point = np.cross(omega, c) / (omega @ omega)  # the axis' point nearest the origin: c = -omega x point
    pitch = (omega @ c) / (omega @ omega)
    kind = "rotation" if abs(pitch) < 1e-10 * size else f"screw motion (pitch {pitch:.3g})"
    return (f"the {kind} about the axis ({', '.join(f'{a:.3g}' for a in axis + 0.0)}) through "
            f"({', '.join(f'{a:.6g}' for a in point + 0.0)})")


def check_reference(nodes, suppressed, reference):
    """Refuse reference conditions that leave a rigid motion of the elastic coordinates.

    A rigid motion (3 in the plane, 6 in space) gives every nodal coordinate a value linear in its
    parameters (``_rigid_rows``). The reduced stiffness is regular exactly when no such motion
    vanishes on all suppressed coordinates, i.e. when the rigid motions restricted to them have full
    rank. Otherwise the motion left has no stiffness and duplicates the reference motion, so the
    body's stiffness and its FFR mass matrix are singular (003 section 4 says so of pinned-free);
    the ``ValueError`` names the motion.
    """
    nodes = np.asarray(nodes, dtype=float)
    dim = nodes.shape[1]
    size = np.ptp(nodes, axis=0).max()
    node, component = np.divmod(suppressed, NODE_SIZE[dim])
    count = 3 * (dim - 1)
    rows = _rigid_rows(nodes[node] / size, component, dim)
    rigid = np.vstack([rows, np.zeros((count, count))])  # zero rows keep the SVD defined and change nothing
    _, singular, vt = np.linalg.svd(rigid)
    rank = int(np.sum(singular > 1e-10 * max(singular.max(), 1.0)))
    if rank == count:
        return
    left = count - rank
    motion = (_motion(vt[-1], size, dim) if left == 1
              else f"{left} independent rigid motions of the plane" if dim == 2 else f"{left} independent rigid motions in space")
    raise ValueError(f"reference conditions {reference!r} leave {motion} to the elastic coordinates, "
                     f"without stiffness and duplicating the reference motion: the body would be "
                     f"singular (003 section 4); suppress more coordinates, e.g. 'fixed-free'")
