"""The bilinear constraints of world-vector beams (``embedding``), as ``joints.quadratic.QuadraticForm``
families batched over all beams of a model:

- ``slope``: s_k . d_1 = 0 for every node's slope (000 eq. 26 makes the mid-point Jacobian of these
  bilinear rows their exact discrete gradient);
- ``held``: w_k . d_a = 0 (or s_k . d_a = 0) for a component that the reference conditions suppress
  on a kept vector (a rolled end);
- ``section``: the section carriers of a material point. In the plane r = theta(X) d_1 with
  theta(X) = n_e . u'(X):  r . d_2 = 0,  r . d_1 - n_e . u'(X) = 0. In space m_2 = theta x d_2,
  m_3 = theta x d_3 with the small rotation theta = (psi, -u'.d_3, u'.d_2) on the directors:
  m_2 . d_2 = 0, m_3 . d_3 = 0, m_2 . d_3 + m_3 . d_2 = 0, m_2 . d_1 + u'(X) . d_2 = 0,
  m_3 . d_1 + u'(X) . d_3 = 0, m_2 . d_3 - psi(X) = 0.

Every row is a dot product of world vectors (or the twist, a scalar), so it is invariant under a
common rotation: the constraint forces conserve angular momentum.
"""
import numpy as np

from ...joints.quadratic import QuadraticForm, dot_form


def _select(n, start, dim):
    """(dim, n): picks the dim-vector at local coordinates start .. start + dim."""
    out = np.zeros((dim, n))
    out[:, start:start + dim] = np.eye(dim)
    return out


def _pairs(world, vector, nodes, a):
    """Rows vector_k . d_a = 0 at the ``nodes`` (K,): local dofs [d_a, vector_k] (K, 2 dim) and the
    Hessians (K, 1, 2 dim, 2 dim)."""
    dim, K = world.dim, len(nodes)
    director = np.broadcast_to(world.d[a * dim:(a + 1) * dim], (K, dim))
    columns = np.concatenate([director, (world.w if vector == 0 else world.s)[nodes]], axis=1)
    H = dot_form(_select(2 * dim, 0, dim), _select(2 * dim, dim, dim))
    return columns, np.broadcast_to(H, (K, 1, 2 * dim, 2 * dim))


def _section(world, X, carriers):
    """Local dofs, Hessians (m, n, n) and linear parts (m, n) of the section rows of point X."""
    dim = world.dim
    columns, _, slope, twist, coefficients = world.point_maps(X)
    elastic = dim * (dim + 1)
    keep = np.flatnonzero((columns[0, elastic:] >= 0) & np.any(slope[0, :, elastic:] != 0, axis=0))
    spin = np.flatnonzero(twist[0] >= 0) if dim == 3 else np.zeros(0, dtype=np.int64)
    dofs = np.concatenate([world.d, carriers, columns[0, elastic + keep], twist[0, spin]])
    n, nd = dofs.size, dim * dim
    d = [_select(n, a * dim, dim) for a in range(dim)]
    u = np.zeros((dim, n))
    u[:, nd + carriers.size:nd + carriers.size + keep.size] = slope[0][:, elastic + keep]  # (dim, keep)
    if dim == 2:
        c, s = world.tangent[world.beam.locate(X)[0][0]]
        r, normal = _select(n, nd, 2), -s * d[0] + c * d[1]
        H = np.stack([dot_form(r, d[1]), dot_form(r, d[0]) - dot_form(normal, u)])
        return dofs, H, np.zeros((2, n))
    m2, m3 = _select(n, nd, 3), _select(n, nd + 3, 3)
    H = np.stack([dot_form(m2, d[1]), dot_form(m3, d[2]), dot_form(m2, d[2]) + dot_form(m3, d[1]),
                  dot_form(m2, d[0]) + dot_form(u, d[1]), dot_form(m3, d[0]) + dot_form(u, d[2]),
                  dot_form(m2, d[2])])
    g = np.zeros((6, n))
    g[5, n - spin.size:] = -coefficients[0, spin]
    return dofs, H, g


def families(worlds):
    """The slope, held and section families of the world beams ``worlds``, each batched over the
    beams and grouped by local width."""
    groups = {}  # (kind, width) -> ([dofs (K, n)], [H (K, m, n, n)], [g (K, m, n)], [labels])

    def add(kind, labels, dofs, H, g=None):
        group = groups.setdefault((kind, dofs.shape[1]), ([], [], [], []))
        group[0].append(dofs)
        group[1].append(H)
        group[2].append(np.zeros(H.shape[:3]) if g is None else g)
        group[3].extend(labels)

    for world in worlds:
        nodes = np.flatnonzero(world.s[:, 0] >= 0)
        if nodes.size:
            add("slope", [f"{world.name} node {k}" for k in nodes], *_pairs(world, 1, nodes, 0))
        for node, vector, a in world.held:
            add("held", [f"{world.name} node {node} {'ws'[vector]}.d{a + 1}"], *_pairs(world, vector, [node], a))
        for X, carriers in zip(world.points, world.carriers):
            dofs, H, g = _section(world, X[None], carriers)
            add("section", [f"{world.name} at {np.round(X, 12).tolist()}"], dofs[None], H[None], g[None])
    return [QuadraticForm(np.concatenate(dofs), labels, kind, np.concatenate(H), np.concatenate(g))
            for (kind, _), (dofs, H, g, labels) in groups.items()]
