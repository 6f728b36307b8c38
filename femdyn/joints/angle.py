"""Coordinate augmentation with the rotation angle Theta of a revolute (or cylindrical) pair.

With body-fixed unit vectors a1, b1 (on body 1, perpendicular to the joint axis, b1 = axis x a1) and
a2 (on body 2, equal to a1 when Theta = 0), the relative angle has cos = c(q) = a1.a2 and
sin = s(q) = b1.a2, and the augmented constraint is

    Phi = sin(Theta) c(q) - cos(Theta) s(q)   ( = sin(Theta - Theta_rel) ).

000 eq. 28 uses instead  d2^2.d1^1 + d2^2.d2^1 + sin(Theta) - cos(Theta), whose Theta-derivative
sin + cos vanishes at Theta = 3 pi/4 + k pi: there the Newton matrix is singular and a joint torque
needs an unbounded multiplier. The form above has dPhi/dTheta = cos(Theta - Theta_rel): +1 on the
branch Theta = Theta_rel for every angle (Theta = Theta_rel + pi also solves Phi = 0, with slope -1;
``initial.wrong_angle_branch`` refuses initial angles on that branch).

Discrete gradient (same idea as 000 eq. 39, Greenspan's quotient for sin and cos): with mid values
sbar = (sin Theta_n + sin Theta_n+1)/2 etc., cbar = (c_n + c_n+1)/2, sbar_q = (s_n + s_n+1)/2,

    Gbar_q     = sbar grad c(q_mid) - cbar_Theta grad s(q_mid)
    Gbar_Theta = cbar Dsin - sbar_q Dcos,  Dsin = (sin b - sin a)/(b - a) = cos m sinc h,
                                            Dcos = (cos b - cos a)/(b - a) = -sin m sinc h,

m = (a + b)/2, h = (b - a)/2. Then Phi_n+1 - Phi_n = Gbar . (q_n+1 - q_n) exactly, and Gbar_q is
equivariant (c, s are rotation invariant), so energy and angular momentum are conserved.
Local coordinates: [q1, q2, Theta].
"""
from functools import cached_property

import numpy as np

from ..numerics.lazy import compiled, floats
from ..numerics.recent import Recent
from .base import Constraint

KERNELS = __package__ + ".angle_kernels"  # numba: imported where the kernels run
_NO_START = (np.zeros(0), np.zeros(0), np.zeros((0, 0)), np.zeros((0, 0)))  # continuous forms: no q_n
_NO_PLACES = np.zeros((0, 0), dtype=np.int64)
_NO_VALUES = np.zeros(0)
# ``JointAngle.loop_arguments`` of no family, of the same types: a Newton loop without joint angles
NO_FAMILY = (_NO_VALUES, True, *_NO_START, _NO_PLACES, np.zeros(0, dtype=np.int64), np.zeros((0, 2, 0, 0)),
             np.zeros(0, dtype=np.int64), np.zeros((0, 0)), np.zeros((0, 0)), *(np.zeros(0, dtype=np.int64),) * 4,
             *(_NO_PLACES,) * 3)


class JointAngle(Constraint):
    m = 1

    def __init__(self, dofs, labels, A1, B1, A2):
        """``A1``, ``B1`` (K, dim, n1) and ``A2`` (K, dim, n2): the directions a1, b1, a2 as linear maps
        of the two bodies' local coordinates (``JointPair`` sides; on a flexible body they turn with
        the cross-section at the joint point)."""
        super().__init__(dofs, labels)
        self.A1, self.B1, self.A2 = (np.asarray(x, dtype=float) for x in (A1, B1, A2))
        self.n1, self.n2 = self.A1.shape[2], self.A2.shape[2]
        self._cs = Recent(self._cos_sin, 2)  # q_n and the Newton iterate

    def _cos_sin(self, q):
        """c, s (..., K) and their gradients (..., K, J) with respect to the coordinates of [q1, q2]
        at the Jacobian's structural non-zeros, for q (..., K, n). Both are bilinear, c = 1/2 q.H_c q
        and s = 1/2 q.H_s q, so the gradients are H q. Called through ``_cs``, which remembers the
        last two results."""
        x = q[..., : self.n1 + self.n2, None]
        grads = (self._stacked_hessians @ x[..., None, :, :])[..., 0]  # (..., K, 2, J)
        values = 0.5 * (grads @ x[..., self._coordinates, :])[..., 0]  # (..., K, 2)
        return values[..., 0], values[..., 1], grads[..., 0, :], grads[..., 1, :]

    def begin_step(self, qa, t):
        return self._start(qa)

    def _start(self, q):
        """c, s (K,) and their gradients (K, J) at the local coordinates q (K, n), compiled."""
        K, J = q.shape[0], int(self._coordinates.sum())
        start = np.empty(K), np.empty(K), np.empty((K, J)), np.empty((K, J))
        compiled(KERNELS).cos_sin(floats(q), self._stacked_hessians, self._coordinate_indices, *start)
        return start

    def _evaluate(self, qa, qb, lam, start=None):
        """phi(qb) (K, 1); G(qb) and Gbar(qa, qb) at ``jacobian_mask`` (K, J + 1); the tangent
        d(Gbar^T lam)/dqb at ``tangent_mask`` (K, P), for local coordinates (``angle_kernels``);
        ``qa is qb``: the continuous forms at qb (generalized-alpha)."""
        same = qa is qb
        start = _NO_START if same else (self._start(qa) if start is None else start)
        K, J = qb.shape[0], int(self._coordinates.sum())
        out = np.empty((K, 1)), np.empty((K, J + 1)), np.empty((K, J + 1)), np.empty((K, self._tangent_size))
        compiled(KERNELS).linearize(floats(qa), floats(qb), same, *start, floats(np.reshape(lam, K)),
                                    *self._kernel_data, *out)
        return out

    def contribute(self, start, qa, qb, lam, R, scale, tangent, values, places):
        """The family's part of ``SaddleSystem.constrain`` in one compiled call (``angle_kernels``):
        global qa, qb and all multipliers lam; ``places`` from ``places``."""
        same = qa is qb
        if same:
            start = _NO_START
        elif start is None:
            start = self._start(qa[self.dofs])
        T_at, F_at, G_at, phi_at, rows = places if tangent is not None else (_NO_PLACES,) * 3 + places[3:]
        compiled(KERNELS).contribute(qa, qb, same, *start, lam, float(scale), 0.0 if tangent is None else float(tangent),
                                     R, _NO_VALUES if values is None else values, self.dofs, rows, *self._kernel_data,
                                     phi_at, T_at, F_at, G_at)

    def loop_arguments(self, start: tuple | None, qa: np.ndarray | None, places: tuple) -> tuple:
        """What ``integrators.kernels.newton_loop`` takes to add this family in its iterations
        (``contribute``'s arguments but the iterate's, the multipliers and the outputs), a tuple of the
        types of ``NO_FAMILY``: the global step's start qa and the values there (``begin_step``), or
        qa None for the continuous forms at each iterate; ``places`` from ``places``."""
        same = qa is None
        if same:
            qa, start = _NO_VALUES, _NO_START
        elif start is None:
            start = self._start(qa[self.dofs])
        T_at, F_at, G_at, phi_at, rows = places
        return (qa, same, *start, self.dofs, rows, *self._kernel_data, phi_at, T_at, F_at, G_at)

    @cached_property
    def _coordinate_indices(self):
        return np.flatnonzero(self._coordinates).astype(np.int64)

    @cached_property
    def _kernel_data(self):
        """The constant arrays of the kernels: stacked Hessians, coordinates, masked Hessians and the
        tangent's places."""
        return (np.ascontiguousarray(self._stacked_hessians), self._coordinate_indices,
                *(np.ascontiguousarray(H) for H in self._masked_hessians),
                *(p.astype(np.int64) for p in self._tangent_places))

    def phi(self, q):
        """(..., K, 1) for q (..., K, n): also a whole history at once (``Model.residual_history``)."""
        c, s, _, _ = self._cs(q)
        return (np.sin(q[..., -1]) * c - np.cos(q[..., -1]) * s)[..., None]

    def _full(self, values, mask):
        out = np.zeros((values.shape[0],) + mask.shape)
        out[:, mask] = values
        return out

    def jacobian(self, q):
        return self._full(self._evaluate(q, q, np.zeros((q.shape[0], 1)))[1], self.jacobian_mask)

    def jacobian_history(self, q):
        """G(q) (F, K, 1, n) for a history of local coordinates q (F, K, n): sin(Theta) grad c -
        cos(Theta) grad s on [q1, q2], cos(Theta) c + sin(Theta) s on Theta (module docstring)."""
        c, s, grad_c, grad_s = self._cos_sin(q)  # not through ``_cs``: the steps' cache stays as it is
        sin, cos = np.sin(q[..., -1]), np.cos(q[..., -1])
        G = np.zeros(q.shape[:-1] + (1, q.shape[-1]))
        G[..., 0, np.flatnonzero(self._coordinates)] = sin[..., None] * grad_c - cos[..., None] * grad_s
        G[..., 0, -1] = cos * c + sin * s
        return G

    def discrete_jacobian(self, qa, qb):
        return self._full(self._evaluate(qa, qb, np.zeros((qa.shape[0], 1)))[2], self.jacobian_mask)

    def discrete_tangent(self, qa, qb, lam):
        return self._full(self._evaluate(qa, qb, lam)[3], self.tangent_mask)

    def linearize(self, start, qa, qb, lam):
        return self._evaluate(qa, qb, lam, start)

    @cached_property
    def _hessians(self):
        """Constant Hessians of c and s with respect to [q1, q2], (K, n1 + n2, n1 + n2)."""
        n1, n, K = self.n1, self.n1 + self.n2, self.dofs.shape[0]
        H_c, H_s = np.zeros((K, n, n)), np.zeros((K, n, n))
        for H, B in ((H_c, self.A1), (H_s, self.B1)):
            cross = np.einsum("kin,kim->knm", B, self.A2)
            H[:, :n1, n1:] = cross
            H[:, n1:, :n1] = cross.transpose(0, 2, 1)
        return H_c, H_s

    @cached_property
    def _coordinates(self):
        """Which coordinates of [q1, q2] enter c and s (the Jacobian's structural non-zeros)."""
        return self.jacobian_mask[0, :-1]

    @cached_property
    def _stacked_hessians(self):
        """H_c, H_s at the rows of ``_coordinates``, (K, 2, J, n1 + n2)."""
        return np.stack(self._hessians, axis=1)[:, :, self._coordinates]

    @cached_property
    def _masked_hessians(self):
        """H_c, H_s at the structural non-zeros of the tangent's (q, q) block, (K, Pqq) each."""
        mask = self.tangent_mask[:-1, :-1]
        return tuple(H[:, mask] for H in self._hessians)

    @cached_property
    def _tangent_places(self):
        """Places, in the row order of ``tangent_mask``, of its (q, q), (q, Theta) and (Theta, q)
        entries."""
        mask = self.tangent_mask
        place = np.full(mask.shape, -1)
        place[mask] = np.arange(mask.sum())
        return place[:-1, :-1][mask[:-1, :-1]], place[:-1, -1][mask[:-1, -1]], place[-1, :-1][mask[-1, :-1]]

    @cached_property
    def _tangent_size(self):
        return int(self.tangent_mask.sum())

    @cached_property
    def jacobian_mask(self):
        body1 = np.any((self.A1 != 0) | (self.B1 != 0), axis=(0, 1))
        body2 = np.any(self.A2 != 0, axis=(0, 1))
        return np.concatenate([body1, body2, [True]])[None, :]

    @cached_property
    def tangent_mask(self):
        H_c, H_s = self._hessians
        mask = np.zeros((self.n1 + self.n2 + 1,) * 2, dtype=bool)
        mask[:-1, :-1] = np.any((H_c != 0) | (H_s != 0), axis=0)
        mask[-1, :] = mask[:, -1] = self.jacobian_mask[0]
        return mask
