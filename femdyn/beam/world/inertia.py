"""The constant mass matrix and the gravity force of a world-vector beam (``embedding``).

A centre-line point is x = sum_i (a_i I + b_i J) q_i over the body's slots i = [phi, d_1, .., d_dim,
w_k, s_k] with constant shape coefficients (b = 0 but for the planar slopes, whose coefficient is
l G (c I + s J)): the kinetic energy 1/2 int rho A |x'|^2 dx is the constant form
1/2 sum_ik v_i.(A_ik I + B_ik J) v_k of ``model.inertia`` with

    A_ik = int rho A (a_i a_k + b_i b_k) dx,        B_ik = int rho A (a_i b_k - b_i a_k) dx,

by 4-point Gauss quadrature on every element (exact: the integrands are of degree 6). The block of
the rigid slots is the undeformed body's mass, first and second moment (``BeamBody.rigid_inertia``),
which hold the sections' second moments (int rho y^2 dA = rho I_z, in space also rho I_y) besides the
centre line: the rotary inertia of the rigid motion. The rotary inertia of the bending motion is
neglected, as in 003 eq. 125.

The twist psi of a spatial beam has the torsional inertia 1/2 rho I_p int psi'^2 dx with the linear
element's consistent mass rho I_p l / 6 [2, 1; 1, 2] (I_p = I_y + I_z), as scalar mass entries. The
exact kinetic energy of the sections, 1/2 rho I_p (omega_1 + psi')^2 with omega_1 the frame's spin
about d_1, also has the gyroscopic cross term rho I_p omega_1 psi'. It is left out to keep M constant:
omega_1 is d_3' . d_2, which would make M depend on d. What it costs: the sections are not turned
by an angular acceleration of the frame about d_1 (the missing torque rho I_p omega_1' per length,
a twist of order rho I_p omega_1' L^2 / GJ), and the angular momentum rho I_p int psi' dx d_1 of the
twisting sections is missing from that of the body, a fraction of order I_p / (A L^2) ~ (h / L)^2 of
the body's own; energy and the (reduced) momenta stay exactly conserved, since psi enters no
rotation (``model.inertia``).
"""
import numpy as np
import scipy.sparse as sp

from ..elements import GAUSS_WEIGHTS, GAUSS_XI, shape_matrix
from .hermite import J, hermite


def _coefficients(world):
    """Shape coefficients (a, b) of every element's slots [phi, d_a, w_a, w_b, s_a, s_b] at the Gauss
    points, (K, P, 1 + dim + 4) each, and the element's slot indices among the body's slots (K, 1 +
    dim + 4), -1 for a removed vector."""
    dim, beam = world.dim, world.beam
    K, P = len(world.length), len(GAUSS_XI)
    x = beam.elements.positions(GAUSS_XI)  # (K, P, dim)
    values = hermite(shape_matrix(GAUSS_XI, world.length)[:, :, 1])  # (K, P, 4)
    a = np.concatenate([np.ones((K, P, 1)), x, values], axis=2)
    b = np.zeros_like(a)
    if dim == 2:  # l G (c I + s J) on the slopes
        c, s = world.tangent.T
        a[..., -2:], b[..., -2:] = values[..., 2:] * c[:, None, None], values[..., 2:] * s[:, None, None]
    vectors = world.element_vectors(np.arange(K))  # global first coordinates, -1 removed
    slots = np.concatenate([np.broadcast_to(np.arange(1 + dim), (K, 1 + dim)),
                            world.index_of(world.slots, vectors)], axis=1)
    return a, b, slots


def slot_blocks(world):
    """Mass coefficients (A, B) over the body's slots (``WorldBeam.slots``), A symmetric and B skew,
    sparse; and the scalar mass matrix of its twist angles (``WorldBeam.twists``), sparse."""
    dim = world.dim
    a, b, slots = _coefficients(world)
    weight = (world.beam.elements.rho * world.beam.elements.area * world.length)[:, None] * GAUSS_WEIGHTS
    A_e = np.einsum("kp,kpi,kpj->kij", weight, a, a) + np.einsum("kp,kpi,kpj->kij", weight, b, b)
    B_e = np.einsum("kp,kpi,kpj->kij", weight, a, b) - np.einsum("kp,kpi,kpj->kij", weight, b, a)
    rigid = 1 + dim
    A_e[:, :rigid, :rigid] = B_e[:, :rigid, :rigid] = 0.0  # the rigid block is the body's own, below
    S = len(world.slots)
    keep = (slots[:, :, None] >= 0) & (slots[:, None, :] >= 0)
    k, i, j = np.nonzero(keep)
    rows, cols = slots[k, i], slots[k, j]
    mass, first, second = world.beam.rigid_inertia
    own = np.zeros((rigid, rigid))
    own[0, 0], own[0, 1:], own[1:, 0], own[1:, 1:] = mass, first, first, second
    A = sp.coo_matrix((A_e[k, i, j], (rows, cols)), shape=(S, S)).tocsr() + sp.csr_matrix(
        (own.ravel(), np.divmod(np.arange(rigid * rigid), rigid)), shape=(S, S))
    B = sp.coo_matrix((B_e[k, i, j], (rows, cols)), shape=(S, S)).tocsr()
    A.eliminate_zeros()
    B.eliminate_zeros()
    return A, B, twist_mass(world)


def twist_mass(world):
    """rho I_p l / 6 [2, 1; 1, 2] per element over the kept twist angles (``WorldBeam.twists``)."""
    twists = world.twists
    if not twists.size:
        return sp.csr_matrix((0, 0))
    el = world.beam.elements
    local = world.index_of(twists, world.psi[el.connectivity])  # (K, 2), -1 removed
    blocks = (el.rho * el.polar * world.length / 6.0)[:, None, None] * np.array([[2.0, 1.0], [1.0, 2.0]])
    keep = (local[:, :, None] >= 0) & (local[:, None, :] >= 0)
    k, i, j = np.nonzero(keep)
    return sp.coo_matrix((blocks[k, i, j], (local[k, i], local[k, j])), shape=(twists.size,) * 2).tocsr()


def gravity_weights(world, g):
    """The generalised gravity force int rho A N^T g over the body's slots, (S, dim): m g and
    I1_a g on the rigid slots, sum (a_i g - b_i J g) on the vectors' (J^T = -J)."""
    dim = world.dim
    a, b, slots = _coefficients(world)
    weight = (world.beam.elements.rho * world.beam.elements.area * world.length)[:, None] * GAUSS_WEIGHTS
    g = np.asarray(g, dtype=float)
    Jg = J @ g if dim == 2 else np.zeros(dim)
    per = np.einsum("kp,kpi->ki", weight, a)[..., None] * g - np.einsum("kp,kpi->ki", weight, b)[..., None] * Jg
    out = np.zeros((len(world.slots), dim))
    keep = slots >= 0
    keep[:, :1 + dim] = False  # the rigid slots' weights are the body's own
    np.add.at(out, slots[keep], per[keep])
    mass, first, _ = world.beam.rigid_inertia
    out[0] = mass * g
    out[1:1 + dim] = first[:, None] * g
    return out
