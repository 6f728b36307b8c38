"""Applied forces as batched components, each evaluated in its energy-consistent discrete form.

A component holds K instances over ``dofs`` (K, n) and returns the discrete generalised force
``Fbar(qa, qb, t_mid, dt)`` (K, n) that enters 000 eq. 5_2 as ``F = Q - grad_bar V`` (eq. 6), its
derivative with respect to qb for Newton, and its potential energy. Work and dissipation per step
follow generically: ``W = Fbar.(qb - qa) + V(qb) - V(qa)`` is the non-conservative work.
"""
from abc import ABC, abstractmethod

import numpy as np


class Force(ABC):
    """Components may carry an internal state (e.g. the plastic slip of friction): ``state`` is the
    value at the start of the step, ``advance`` gives the value at its end."""

    tangent_mask = None  # (n, n) structure of the tangent; None: Fbar does not depend on qb
    # Fbar is exactly -grad_bar V, a discrete gradient (Fbar.(qb - qa) = V(qa) - V(qb)): its work W is
    # zero by construction, and the energy-momentum stepper leaves it out of the step's work
    conservative = False

    def __init__(self, dofs):
        self.dofs = np.asarray(dofs, dtype=np.int64)

    def initial_state(self, q):
        """Internal state at the initial local coordinates q (K, n)."""
        return None

    def potential(self, q, state=None):
        """Total potential energy of the component (0 for non-conservative loads)."""
        return 0.0

    def potential_history(self, Q, states):
        """The potential energy at each of F configurations: ``Q`` (F, K, n) and the state at each
        (list of F); vectorised over F by the components whose energy a run reports every step."""
        if type(self).potential is Force.potential:
            return np.zeros(len(Q))
        return np.array([self.potential(q, s) for q, s in zip(Q, states)])

    @abstractmethod
    def discrete_force(self, qa, qb, t_mid, dt, state=None):
        """(K, n) generalised force over the step."""

    def tangent(self, qa, qb, t_mid, dt, state=None):
        """d Fbar/d qb, (K, n, n), at the entries of ``tangent_mask``."""

    def tangent_pattern(self):
        """Local (row, column) index arrays of the tangent's structural entries."""
        return np.nonzero(self.tangent_mask)

    def tangent_values(self, qa, qb, t_mid, dt, state=None):
        """The tangent at ``tangent_pattern``, (K, nnz); components with large sparse tangents
        override this and ``tangent_pattern`` instead of ``tangent``."""
        return self.tangent(qa, qb, t_mid, dt, state)[:, self.tangent_mask]

    def advance(self, qa, qb, state):
        """Internal state at the end of a converged step."""
        return state
