"""Holonomic constraints as batched components.

A component holds K instances of one constraint type; each instance has ``m`` rows over ``n`` local
coordinates, gathered from the global vector by ``dofs`` (K, n). A component provides
``phi`` (K, m), ``jacobian`` (K, m, n), the discrete Jacobian ``discrete_jacobian(qa, qb)`` with
``phi(qb) - phi(qa) = discrete_jacobian(qa, qb) (qb - qa)`` (000 eq. 7), and the derivative of the
discrete constraint forces ``d(Gbar^T lam)/dqb`` for Newton's method (``discrete_tangent``).

Constraints that are at most quadratic (all joint constraints of the rotationless formulation) get the
discrete Jacobian for free: it is the Jacobian at the mid-point (000 eq. 26), and their Hessians are
constant. ``QuadraticConstraint`` derives both from the subclass's ``phi``/``jacobian``.
"""
from abc import ABC, abstractmethod
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ..numerics.kinematics import apply


class Constraint(ABC):
    """K instances of one constraint type: ``m`` rows each over ``n`` local coordinates."""

    m = 0

    def __init__(self, dofs, labels):
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.labels = list(labels)
        if self.dofs.ndim != 2 or len(self.labels) != self.dofs.shape[0]:
            raise ValueError("dofs must be (K, n) with one label per instance")

    @property
    def count(self):
        return self.dofs.shape[0]

    @abstractmethod
    def phi(self, q):
        """See the module docstring."""

    @abstractmethod
    def jacobian(self, q):
        """See the module docstring."""

    @abstractmethod
    def discrete_jacobian(self, qa, qb):
        """See the module docstring."""

    @abstractmethod
    def discrete_tangent(self, qa, qb, lam):
        """d(Gbar(qa, qb)^T lam)/dqb, shape (K, n, n)."""

    time_dependent = False  # phi and jacobian take the time as second argument

    def time_targets(self):
        """(name, target) of every motion in time that the family prescribes (servos: a trajectory or a
        rotation function, which may know its ``period``); none by default."""
        return []

    def begin_step(self, qa, t):
        """Whatever ``linearize`` can reuse over the step that ends at time t."""
        return qa

    def linearize(self, start, qa, qb, lam):
        """Everything one Newton iteration needs, restricted to the structural non-zeros:
        phi(qb) (K, m), G(qb) at ``jacobian_mask`` (K, nnz), Gbar(qa, qb) at ``force_mask``
        (K, nnz_f), and the tangent d(Gbar^T lam)/dqb at ``tangent_mask`` (K, nnz_t)."""
        return (self.phi(qb), self.jacobian(qb)[:, self.jacobian_mask],
                self.discrete_jacobian(qa, qb)[:, self.force_mask],
                self.discrete_tangent(qa, qb, lam)[:, self.tangent_mask])

    def places(self, layout):
        """Where a family with its own compiled ``contribute`` (``angle.JointAngle``, ``servo.Servo``)
        writes, from its ``integrators.families.FamilyLayout``: the CSC places of its Newton-matrix entries per
        instance -- tangent (K, P), Gbar^T at ``force_mask`` (K, F) and G at ``jacobian_mask`` (K, J),
        -1 on dropped rows --, the residual place of each row's phi (K m,; -1: dropped) and the rows
        (K m,)."""
        K, P = self.count, int(self.tangent_mask.sum())
        at, f, g = layout.at, int(layout.f_keep.sum()), int(layout.g_keep.sum())
        F_at, G_at = -np.ones(layout.f_keep.size, dtype=np.int64), -np.ones(layout.g_keep.size, dtype=np.int64)
        F_at[layout.f_keep] = at[K * P : K * P + f]
        G_at[layout.g_keep] = at[K * P + f : K * P + f + g]
        phi_at = -np.ones(self.rows.size, dtype=np.int64)
        phi_at[layout.phi_keep.ravel()] = layout.phi_at
        return (np.ascontiguousarray(at[: K * P].reshape(K, P), dtype=np.int64), F_at.reshape(K, -1),
                G_at.reshape(K, -1), phi_at, np.ascontiguousarray(self.rows.ravel(), dtype=np.int64))

    @property
    @abstractmethod
    def jacobian_mask(self):
        """(m, n) structural non-zeros of the (discrete) Jacobian."""

    @property
    @abstractmethod
    def tangent_mask(self):
        """(n, n) structural non-zeros of ``discrete_tangent``."""

    @property
    def force_mask(self):
        """(m, n) structural non-zeros of the force direction Gbar; that of the Jacobian, except
        for servo rows, whose force acts on the actuated coordinates."""
        return self.jacobian_mask


class QuadraticConstraint(Constraint):
    """A constraint at most quadratic in q: Phi_r = 1/2 q.H_r q + g_r.q + c_r with constant H_r.

    The mid-point Jacobian is then an exact discrete gradient (000 eq. 26) and the Newton tangent of
    the discrete constraint force is ``1/2 sum_r lam_r H_r``.
    """

    @cached_property
    def _constant_jacobian(self):
        return self.jacobian(np.zeros(self.dofs.shape))

    @cached_property
    def _hessian(self):
        """(K, m, n, n): H[k, r, :, j] = G_k(e_j) - G_k(0), exact because G is affine in q."""
        K, n = self.dofs.shape
        g0 = self._constant_jacobian
        H = np.empty((K, self.m, n, n))
        for j in range(n):  # setup only: one pass per local coordinate
            e = np.zeros((K, n))
            e[:, j] = 1.0
            H[..., j] = self.jacobian(e) - g0
        return H

    def discrete_jacobian(self, qa, qb):
        return self.jacobian(0.5 * (qa + qb))

    def discrete_tangent(self, qa, qb, lam):
        return 0.5 * np.einsum("km,kmij->kij", lam, self._hessian)

    def jacobian_history(self, q):
        """G(q) (F, K, m, n) for a history of local coordinates q (F, K, n): g + H q, G being affine;
        summed term by term in a fixed order, so that a frame's result does not depend on the others."""
        G = np.broadcast_to(self._constant_jacobian, q.shape[:1] + self._constant_jacobian.shape).copy()
        for j in np.flatnonzero(np.any(self._hessian != 0, axis=(0, 1, 2))):
            G += self._hessian[..., j] * q[:, :, None, None, j]
        return G

    @cached_property
    def jacobian_mask(self):
        return np.any(self._constant_jacobian != 0, axis=0) | np.any(self._hessian != 0, axis=(0, 3))

    @cached_property
    def _affine(self):
        """Sparse form of G(q) = g + H q on the Jacobian's structural non-zeros ("slots"):
        g at the slots (K, s), the non-zero Hessian entries (K, t) with their column j (t,), a 0/1
        matrix slot <- entry (t, s), a 0/1 matrix row <- slot (s, m), the constants c = phi(0) and
        the Hessian entries at the tangent's non-zeros (K, m, nnz_t)."""
        H, g = self._hessian, self._constant_jacobian
        r, i = np.nonzero(self.jacobian_mask)
        slot, j = np.nonzero(np.any(H != 0, axis=0)[r, i, :])
        to_slot = np.zeros((slot.size, r.size))
        to_slot[np.arange(slot.size), slot] = 1.0
        to_row = np.zeros((r.size, self.m))
        to_row[np.arange(r.size), r] = 1.0
        c = self.phi(np.zeros(self.dofs.shape))
        return g[:, r, i], H[:, r[slot], i[slot], j], j, to_slot, to_row, i, c, H[:, :, self.tangent_mask]

    def _values(self, q):
        """phi(q) (K, m) and G(q) at the slots (K, s) from the affine form:
        phi = 1/2 (G + g).q + c (Phi_r = 1/2 q.H_r q + g_r.q + c_r)."""
        g, h, j, to_slot, to_row, i, c, _ = self._affine
        G = g + (h * q[:, j]) @ to_slot
        return 0.5 * ((G + g) * q[:, i]) @ to_row + c, G

    def begin_step(self, qa, t):
        return self._values(qa)[1]

    def linearize(self, start, qa, qb, lam):
        phi, Gb = self._values(qb)
        tangent = 0.5 * np.einsum("km,kmp->kp", lam, self._affine[-1])
        return phi, Gb, 0.5 * (start + Gb), tangent

    @cached_property
    def tangent_mask(self):
        return np.any(self._hessian != 0, axis=(0, 1))


class TwoBodyConstraint(QuadraticConstraint):
    """Constraints between body 1 (local coordinates ``[:n1]``) and body 2 (``[n1:n1 + n2]``), possibly
    followed by augmented coordinates, written as a list of bilinear terms. A side's local coordinates
    are a rigid body's ``[phi, d_a]`` or, on a flexible body, those plus the elastic carriers that
    move the joint's material point (``flexible.FlexibleBody.side``).

    Terms (all batched over the K instances, matrices from ``kinematics``):
      ``("points", C1, C2)``           C2 q2 - C1 q1                 (dim rows: coincident points)
      ``("dot", A1, A2, value)``       (A1 q1).(A2 q2) - value       (1 row: angle between directions)
      ``("along", C1, C2, A1)``        (C2 q2 - C1 q1).(A1 q1)       (1 row: offset along a direction)
    Subclasses set ``self.terms``, ``self.n1`` and ``self.n2``; the rows follow the order of the terms.
    """

    terms = ()
    n1 = n2 = 0

    def _split(self, q):
        return q[:, : self.n1], q[:, self.n1 : self.n1 + self.n2]

    def phi(self, q):
        q1, q2 = self._split(q)
        rows = []
        for term in self.terms:
            kind = term[0]
            if kind == "points":
                rows.append(apply(term[2], q2) - apply(term[1], q1))
            elif kind == "dot":
                a1, a2 = apply(term[1], q1), apply(term[2], q2)
                rows.append((np.sum(a1 * a2, axis=1) - term[3])[:, None])
            else:
                r = apply(term[2], q2) - apply(term[1], q1)
                rows.append(np.sum(r * apply(term[3], q1), axis=1)[:, None])
        return np.concatenate(rows, axis=1)

    def jacobian(self, q):
        K, n = q.shape
        q1, q2 = self._split(q)
        n1, n2 = self.n1, self.n2
        blocks = []
        for term in self.terms:
            kind = term[0]
            if kind == "points":
                C1, C2 = term[1], term[2]
                G = np.zeros((K, C1.shape[1], n))
                G[:, :, :n1] = -C1
                G[:, :, n1 : n1 + n2] = C2
            elif kind == "dot":
                A1, A2 = term[1], term[2]
                G = np.zeros((K, 1, n))
                G[:, 0, :n1] = np.einsum("ki,kin->kn", apply(A2, q2), A1)
                G[:, 0, n1 : n1 + n2] = np.einsum("ki,kin->kn", apply(A1, q1), A2)
            else:
                C1, C2, A1 = term[1], term[2], term[3]
                a, r = apply(A1, q1), apply(C2, q2) - apply(C1, q1)
                G = np.zeros((K, 1, n))
                G[:, 0, :n1] = np.einsum("ki,kin->kn", r, A1) - np.einsum("ki,kin->kn", a, C1)
                G[:, 0, n1 : n1 + n2] = np.einsum("ki,kin->kn", a, C2)
            blocks.append(G)
        return np.concatenate(blocks, axis=1)


class Side(NamedTuple):
    """One body's side of K joint instances as linear maps of its local coordinates (K, ., n):
    ``point`` (K, dim, n) gives the joint point, ``axes`` the dim joint-frame axes (each (K, dim, n))."""

    point: np.ndarray
    axes: list


class JointPair(TwoBodyConstraint):
    """A kinematic pair between two bodies, each side a joint point and a joint frame (``Side``); on
    rigid bodies the frames are (K, dim, dim) rotations whose columns are the joint axes (x, y[, z]) in
    body coordinates. The pair is assembled when both joint frames coincide. The joint axis (rotation
    axis of a spatial revolute, sliding axis of a prismatic pair) is x.

    Subclasses implement ``build_terms(C1, C2, F1, F2)`` where ``C`` are point matrices and ``F`` are
    lists of direction matrices of the frame axes, and declare ``dims`` and ``coordinates`` (the kinds of
    scalar joint coordinate the pair can be augmented with: "angle" and/or "slide").
    """

    dims = (2, 3)
    coordinates = ()

    @classmethod
    def oriented(cls, dim):
        """Whether the pair's rows use the joint frames' axes (in ``dim`` dimensions), so that on a
        flexible body they must turn with the section; a pair augmented with its angle or slide uses
        them anyway (``JointAngle``, ``Slide``)."""
        return True

    def __init__(self, dofs, labels, side1, side2):
        super().__init__(dofs, labels)
        self.dim, self.n1, self.n2 = side1.point.shape[1], side1.point.shape[2], side2.point.shape[2]
        self.terms = self.build_terms(side1.point, side2.point, side1.axes, side2.axes)
        self.m = sum(t[1].shape[1] if t[0] == "points" else 1 for t in self.terms)

    @abstractmethod
    def build_terms(self, C1, C2, F1, F2):
        """List of bilinear terms (see ``TwoBodyConstraint``)."""


def orientation_lock(F1, F2):
    """Terms that fix the relative orientation of two joint frames (they coincide when assembled):
    planar y2.x1 = 0 (generalises 000 eq. 44_2); spatial y1.z2 = z1.x2 = x1.y2 = 0."""
    if len(F1) == 2:
        return [("dot", F1[0], F2[1], 0.0)]
    return [("dot", F1[1], F2[2], 0.0), ("dot", F1[2], F2[0], 0.0), ("dot", F1[0], F2[1], 0.0)]
