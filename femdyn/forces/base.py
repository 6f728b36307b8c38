"""Applied forces as batched components behind one interface for both time steppers.

A component holds K instances over ``dofs`` (K, n) and gives, in local coordinates (K, n):

* for the energy-momentum scheme the discrete generalised force ``Fbar(qa, qb, t_mid, dt)`` that
  enters 000 eq. 5_2 as ``F = Q - grad_bar V`` (eq. 6), its derivative with respect to qb for
  Newton, and the state and dissipation at the end of the step (``advance``, ``dissipation``);
* for the generalized-alpha scheme (Arnold & Bruls 2007) the continuous force F(q, v, t) with
  dF/dq and dF/dv (``continuous_force``, ``continuous_tangents``) and its own end of the step
  (``continuous_advance``, ``continuous_dissipation``);
* its potential energy, its internal state at the start, and the problems of an initial
  configuration (``check_initial``).

Work and dissipation per step follow generically: ``W = Fbar.(qb - qa) + V(qb) - V(qa)`` is the
non-conservative work; a dissipative component also reports its loss in the step (``dissipation``,
friction's and the bodies' damping's), which is part of W already. No stepper asks what type a force is: the defaults below serve every
component whose discrete form is the symmetric mid-point form of its continuous force and which
has no internal state.
"""
from abc import ABC, abstractmethod

import numpy as np

# the forms of the compiled loop's force kernels (``viscous_kernels.loop``, ``friction_kernels.loop``,
# ``spring_kernels.loop``; a model without the force passes None, ``integrators.saddle.SaddleSystem.loop_force``):
# the discrete one over a step (energy-momentum) and the continuous one at its end (generalized-alpha)
DISCRETE, CONTINUOUS = 1, 2


class Force(ABC):
    """Components may carry an internal state (e.g. the plastic slip of friction): ``state`` is the
    value at the start of the step, ``advance`` gives the value at its end."""

    tangent_mask = None  # (n, n) structure of the tangent; None: Fbar does not depend on qb
    # Fbar is exactly -grad_bar V, a discrete gradient (Fbar.(qb - qa) = V(qa) - V(qb)): its work W is
    # zero by construction, and the energy-momentum stepper leaves it out of the step's work
    conservative = False
    # the force dissipates (a damper, friction): it depends on the velocities or on the history, so it
    # has no value at an instant from (q, t) alone (``model.instantaneous`` refuses it), and only
    # these components are asked for their ``dissipation``
    dissipative = False
    # Fbar is one constant array, whatever q, t, dt and the state (gravity): the steps evaluate it once
    invariant = False

    def __init__(self, dofs):
        self.dofs = np.asarray(dofs, dtype=np.int64)

    def time_targets(self):
        """(name, function) of every function of time that scales the component (loads; it may know its
        ``period``); none by default."""
        return []

    def initial_state(self, q):
        """Internal state at the initial local coordinates q (K, n)."""
        return None

    def check_initial(self, q):
        """The problems of the initial local coordinates q (K, n), as (field, message) pairs for a
        ``ModelError``; none by default."""
        return []

    def potential(self, q, state=None):
        """Total potential energy of the component (0 for non-conservative loads)."""
        return 0.0

    def potential_history(self, Q, states):
        """The potential energy at each of F configurations: ``Q`` (F, K, n) and the state at each
        (list of F); vectorised over F by the components whose energy a run reports every step."""
        if type(self).potential is Force.potential:
            return np.zeros(len(Q))
        return np.array([self.potential(q, s) for q, s in zip(Q, states)])

    # --- energy-momentum: the discrete form over a step from qa to qb ---------------------------
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
        """Internal state at the end of a converged step; none by default."""
        return state

    def dissipation(self, qa, qb, state, dt=None):
        """Energy dissipated in the step of length ``dt``, per instance (K,) or 0; asked of
        ``dissipative`` components only."""
        return 0.0

    # --- generalized-alpha: the continuous force at the step's end -----------------------------
    def continuous_force(self, q, v, t, dt, state=None):
        """F(q, v, t), (K, n), from the internal state at the step's start. Default: the symmetric
        mid-point form at qa = qb = q (the same array, which components may use as a shortcut),
        where it is the continuous force."""
        return self.discrete_force(q, q, t, dt, state)

    def continuous_tangents(self, q, v, t, dt, state=None):
        """(F, dF/dq, dF/dv) at (q, v, t), the derivatives at ``tangent_pattern`` (K, nnz); dF/dv None
        where F does not depend on v. Default: the mid-point form is symmetric in (qa, qb), so its
        qb-derivative at qa = qb is half of dF/dq."""
        return (self.continuous_force(q, v, t, dt, state), 2.0 * self.tangent_values(q, q, t, dt, state),
                None)

    def continuous_advance(self, q, state):
        """Internal state at the end of a converged step that ends at q; none by default."""
        return state

    def continuous_dissipation(self, q, state, qa=None, va=None, v=None, dt=None):
        """Energy dissipated in the step from (qa, va) that ends at (q, v) (length ``dt``), per instance
        (K,) or 0; asked of ``dissipative`` components only."""
        return 0.0
