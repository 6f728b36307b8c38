"""Elastic forces of a flexible beam body on its elastic coordinates, in energy-consistent form.

Linear (003 eqs. 38, 129-133): V = 1/2 q.K q summed over element blocks; the discrete gradient is
K q_mid (exact for a quadratic). With geometric stiffening the axial energy of each element becomes
1/2 EA l eps^2 with the element-averaged von Karman strain

    eps = u' + (1/l) int v'^2 / 2 dx         (element frame; u' is constant along the element),

in space with both bending planes, eps = u' + (1/l) int (v'^2 + w'^2) / 2 dx (straight elements
along the body's x1 axis: the body frame is the element frame),
the quadratic axial-transverse coupling that keeps a rotating beam stiff (centrifugal stiffening).
Averaging the nonlinear part over the element is an assumed strain that removes membrane locking:
with the pointwise strain u' + v'^2/2 the element's constant u' cannot follow the quadratic v'^2, so
a bent element is stretched at its Gauss points and stiffens spuriously on coarse meshes; with the
average, the axial force EA eps is constant along the element like the strain it can represent, and
a load without axial force leaves it zero. eps is quadratic in the element coordinates e, so

    grad_bar V = EA l eps_bar grad eps(e_mid),   eps_bar = (eps(e_a) + eps(e_b))/2,

satisfies grad_bar V . (e_b - e_a) = V(e_b) - V(e_a) exactly (Gonzalez's discrete gradient through a
quadratic strain, Gonzalez 1996). The average is 5-point Gauss quadrature, exact for v'^2 (degree 4
in xi).

Elements map to the body's elastic coordinates through its Boolean reference conditions (suppressed
coordinates are zero); a modally reduced body keeps its reduced stiffness as one dense block and has
no geometric stiffening (the modes are linear shapes). All bodies are one batch: elements with
stiffening off carry EA = 0 in the nonlinear part and their axial stiffness in the linear blocks.
"""
import numpy as np
import scipy.sparse as sp

from ..forces.base import Force
from ..numerics.linalg import operator
from ..numerics.recent import Recent

_X, _W = np.polynomial.legendre.leggauss(5)
XI, WEIGHTS = 0.5 * (_X + 1.0), 0.5 * _W


class BeamElasticity(Force):
    """Elastic forces of all beam bodies of a model in one component: ``dofs`` (1, n) are their
    elastic coordinates one body after the other, ``beams`` the ``BeamBody``s, ``stiffening`` a flag
    per body. Elements of all bodies are evaluated together; the tangent is a sparse pattern over
    the element blocks, never a dense (n, n) matrix."""

    tangent_mask = True  # depends on q_n+1; the entries come from ``tangent_pattern``
    conservative = True  # the discrete gradient of the module docstring
    REMEMBERED = 2  # strains kept by ``_strain``: q_n and the Newton iterate

    def __init__(self, dofs, beams, stiffening):
        super().__init__(dofs)
        # the transverse slopes of every bending plane (1 in the plane, 2 in space) at the points XI
        self.weights = np.tile(WEIGHTS, beams[0].dim - 1)
        maps, blocks, ea_l, U, V, start = [], [], [], [], [], 0
        for beam, stiff in zip(beams, stiffening):
            n, el = beam.n_coordinates, beam.elements
            if beam.modal_frequencies is not None:
                if stiff:
                    raise ValueError("geometric stiffening needs nodal elastic coordinates, not modes")
                # the reduced stiffness as one block; zero-padded to the common block width below
                maps.append(start + np.arange(n)[None, :])
                blocks.append(beam.stiffness.toarray()[None])
                ea_l.append(np.zeros(1))
                U.append(np.zeros((1, 1, n)))
                V.append(np.zeros((1, self.weights.size, n)))
            else:
                coo = beam.basis.tocoo()
                reduced = -np.ones(el.n_dofs, dtype=np.int64)
                reduced[coo.row] = start + coo.col
                maps.append(reduced[el.dofs])  # (K, 2 node_size), -1 where suppressed
                # with stiffening the axial energy is the nonlinear one
                blocks.append(el.stiffness_blocks(axial=not stiff))
                ea_l.append(el.young * el.area * el.length * float(stiff))  # EA l: int .. dx = l int .. dxi
                u, v = el.stiffening_rows(XI)  # (K, 1, 2 node_size), (K, P, 2 node_size)
                U.append(u)
                V.append(v)
            start += n
        width = max(m.shape[1] for m in maps)
        pad = lambda a, axes: np.pad(a, [(0, 0)] * (a.ndim - axes) + [(0, width - a.shape[-1])] * axes)  # noqa: E731
        self.map = np.concatenate([np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=-1) for m in maps])
        self.blocks = np.concatenate([pad(b, 2) for b in blocks])
        self.U, self.V = np.concatenate([pad(u, 1) for u in U]), np.concatenate([pad(v, 1) for v in V])
        self.ea_l = np.concatenate(ea_l)
        self.stiffening = any(stiffening)
        self._kept = (self.map[:, :, None] >= 0) & (self.map[:, None, :] >= 0)
        k, i, j = np.nonzero(self._kept)
        self._pattern = (self.map[k, i], self.map[k, j])
        # the element rows assembled once over the n coordinates, so that strains and forces are
        # products: U (K, n) the axial strain rows, V (K P, n) the slope rows at the Gauss points
        n = start
        U_rows = self._assemble(self.U[:, 0, :])
        V_rows = self._assemble(self.V.reshape(-1, width), np.repeat(self.map, self.weights.size, axis=0))
        # the element forces K_e e of all elements, (K width, n), and the sum of element vectors into the
        # coordinates (n, K width): K q is summed element by element, since the assembled K q adds the
        # large, nearly cancelling terms of neighbouring elements first and loses digits (N = 4096:
        # Newton's second increment 1e-8 instead of 1e-9, the round-off floor of its residual)
        k, i = np.nonzero(self.map >= 0)
        gather = sp.csr_matrix((np.ones(k.size), (k * width + i, self.map[k, i])), shape=(self.map.size, n))
        block_diagonal = sp.block_diag(list(self.blocks), format="csr")
        self._element_forces = operator(block_diagonal @ gather)
        self._strain_map = operator(sp.vstack([U_rows, V_rows]))  # q -> (u', slopes)
        # (element forces, sum_g a_g, a_g slope_g) -> generalised force
        self._force_map = operator(sp.hstack([gather.T, U_rows.T, V_rows.T]))
        self._no_stiffening = np.zeros(U_rows.shape[0] + V_rows.shape[0])
        self._hessians = np.einsum("p,kpi,kpj->kij", self.weights, self.V, self.V)  # of the averaged v'^2 / 2
        self._strain = Recent(self._strains, self.REMEMBERED)

    def _assemble(self, rows, maps=None):
        """Sparse (R, n) matrix of element rows (R, width) on the coordinates ``maps`` (R, width)."""
        maps = self.map if maps is None else maps
        r, c = np.nonzero(maps >= 0)
        return sp.csr_matrix((rows[r, c], (r, maps[r, c])), shape=(len(rows), self.dofs.shape[1]))

    def tangent_pattern(self):
        return self._pattern

    def _strains(self, q):
        """eps (K,) and the slopes (K, P) at the Gauss points for the coordinates q (n,);
        grad eps = U + sum_g w_g slope_g V_g. Called through ``_strain``, which remembers the last
        results: a step evaluates force and tangent at the same few points."""
        K = self.ea_l.size
        strains = self._strain_map @ q
        slope = strains[K:].reshape(K, -1)
        return strains[:K] + 0.5 * slope**2 @ self.weights, slope

    def potential(self, q, state=None):
        return float(self.potential_history(q[None], None)[0])

    def potential_history(self, Q, states):
        """V = sum_e 1/2 e.K_e e + 1/2 EA l eps_e^2 at each of F configurations Q (F, 1, n)
        (the elastic coordinates): the elements' energies from the element forces, the strains from
        the strain map, both as products with the F configurations at once."""
        Q = Q[:, 0, :]
        e = np.concatenate([Q, np.zeros((len(Q), 1))], axis=1)[:, self.map]  # index -1 picks the appended zero
        element_forces = (self._element_forces @ Q.T).T.reshape(e.shape)
        v = 0.5 * np.sum(e * element_forces, axis=(1, 2))
        if self.stiffening:
            K = self.ea_l.size
            strains = self._strain_map @ Q.T  # (K + K P, F): axial strains, then the slopes
            eps = strains[:K] + 0.5 * np.einsum("p,kpf->kf", self.weights, strains[K:].reshape(K, -1, len(Q)) ** 2)
            v += 0.5 * self.ea_l @ eps**2
        return v

    def _step_terms(self, qa, qb):
        """eps_bar (K,), the slopes at q_mid and at q_b (K, P); grad eps is affine in the
        coordinates: grad eps(q_mid) = U + sum_g w_g slope_g(q_mid) V_g. ``qa is qb``: the continuous terms at
        that point (generalized-alpha evaluates the mid-point forms there)."""
        eps_b, slope_b = self._strain(qb[0])
        if qa is qb:
            return eps_b, slope_b, slope_b
        eps_a, slope_a = self._strain(qa[0])
        return 0.5 * (eps_a + eps_b), 0.5 * (slope_a + slope_b), slope_b

    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        """-(sum_e K_e e_mid + a_e grad eps_e(q_mid)), a_e = EA l eps_bar_e (module docstring),
        grad eps = U + sum_g w_g slope_g V_g: the element forces, then one product of the assembled maps."""
        element_forces = self._element_forces @ (qb[0] if qa is qb else 0.5 * (qa[0] + qb[0]))
        if not self.stiffening:
            return -(self._force_map @ np.concatenate([element_forces, self._no_stiffening]))[None, :]
        eps_bar, slope_m, _ = self._step_terms(qa, qb)
        a = self.ea_l * eps_bar
        return -(self._force_map @ np.concatenate([element_forces, a, (a[:, None] * self.weights * slope_m).ravel()]))[None, :]

    def _gradients(self, slope):
        """grad eps = U + sum_g w_g slope_g V_g of every element (K, width) for its slopes (K, P)."""
        return self.U[:, 0] + np.einsum("kp,kpj->kj", self.weights * slope, self.V)

    def tangent_values(self, qa, qb, t_mid, dt, state=None):
        """d Fbar / d qb at the pattern: -(K + EA l [grad eps(e_mid) grad eps(e_b)^T
        + eps_bar sum_g w_g V_g V_g^T]) / 2 per element."""
        T = self.blocks
        if self.stiffening:
            eps_bar, slope_m, slope_b = self._step_terms(qa, qb)
            grad_m = self._gradients(slope_m)
            grad_b = grad_m if slope_b is slope_m else self._gradients(slope_b)
            T = T + self.ea_l[:, None, None] * (grad_m[:, :, None] * grad_b[:, None, :]
                                                + eps_bar[:, None, None] * self._hessians)
        return -0.5 * T[self._kept][None, :]


def carrier_elasticity(bodies):
    """The elastic force of the bodies embedded by carriers (``ffr``, ``spatial_ffr``): one
    ``BeamElasticity`` over the elastic coordinates of those that have any, or none."""
    elastic = [f for f in bodies if f.n_elastic]
    if not elastic:
        return []
    return [BeamElasticity(np.concatenate([f.elastic for f in elastic])[None, :], [f.beam for f in elastic],
                           [f.stiffening for f in elastic])]
