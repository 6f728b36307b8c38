"""The basic energy-momentum (BEM) scheme, 000 eqs. 5-7 (001 eq. 3, with the EMC forces of eq. 14):

    q_n+1 - q_n = dt/2 (v_n + v_n+1)
    M (v_n+1 - v_n) = dt Fbar(q_n, q_n+1) - dt Gbar(q_n, q_n+1)^T lam
    Phi(q_n+1) = 0

v_n+1 is eliminated with the first line; Newton solves for (q_n+1, lam) with

    R_q = 2/dt^2 M (q_n+1 - q_n - dt v_n) - Fbar + Gbar^T lam,     R_lam = Phi(q_n+1)
    K   = [[2/dt^2 M - dFbar/dq + d(Gbar^T lam)/dq,  Gbar^T],
           [G(q_n+1),                                0     ]]

assembled into a fixed sparsity pattern. M is constant and sparse: diagonal for rigid director
bodies (000 eq. 10), with the FFR inertia invariants as off-diagonal blocks for flexible bodies
(``flexible``). The multipliers are scaled by s = 2 mbar/dt^2 (mbar: mean of the positive diagonal
of M) so that both blocks of K have the same magnitude. Because every Gbar is a discrete gradient,
the step conserves energy (up to the work of applied loads) and momentum maps to the Newton
tolerance.
"""
from dataclasses import dataclass

import numpy as np

from ..joints.batch import AffineConstraints
from ..numerics.linalg import FixedPatternLU, operator
from ..numerics.pattern import SparsePattern, block_entries
from .newton import Newton, NewtonOptions


@dataclass
class StepResult:
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    iterations: int
    work: float  # work of applied loads and servo inputs minus dissipation in the step
    dissipation: float  # energy dissipated by friction in the step (>= 0)
    states: list  # internal states of the forces at the end of the step


def worked_potential(model, q, states, worked):
    """The potential energy at q of the forces whose work a step evaluates (``worked``, see
    ``force_layout``): the share V(qb) - V(qa) of the work. The others' potential enters only the
    energy of the run's history (``Model.potential_history``), so the steps do not evaluate it."""
    return sum(f.potential(q[f.dofs], s) for f, s, w in zip(model.forces, states, worked) if w)


def saddle_layout(stepper, model, active_rows):
    """Sets the stepper's ``active`` rows, system ``size``, ``mass`` (COO) and ``_mass_operator``; returns
    the place of each constraint row among the active ones (-1: dropped) and the mean positive
    diagonal mass, the scale of the multipliers."""
    active = np.arange(model.m) if active_rows is None else np.asarray(active_rows)
    position = -np.ones(model.m, dtype=np.int64)
    position[active] = np.arange(active.size)
    stepper.active, stepper.size = active, model.n + active.size
    stepper.mass = model.mass_matrix.tocoo()
    stepper._mass_operator = operator(stepper.mass)
    diagonal = stepper.mass.diagonal()
    positive = diagonal[diagonal > 0]
    return position, (positive.mean() if positive.size else 1.0)


def family_layout(c, position, n, rows, cols):
    """Newton-matrix entries of constraint family ``c`` -- its tangent block, the force directions
    Gbar^T and the Jacobian G, in this order -- appended to ``rows``/``cols``; returns what the
    assembly needs to fill them. ``position``: place of each constraint row among the active ones
    (-1: dropped); multiplier unknowns follow the n coordinates."""
    t_i, t_j = block_entries(c.dofs, c.dofs, c.tangent_mask)
    r_g, c_g = np.nonzero(c.jacobian_mask)
    r_f, c_f = np.nonzero(c.force_mask)
    g_rows, g_cols = position[c.rows[:, r_g]].ravel(), c.dofs[:, c_g].ravel()
    f_rows, f_cols = position[c.rows[:, r_f]].ravel(), c.dofs[:, c_f].ravel()
    g_keep, f_keep = g_rows >= 0, f_rows >= 0
    rows += [t_i, f_cols[f_keep], n + g_rows[g_keep]]
    cols += [t_j, n + f_rows[f_keep], g_cols[g_keep]]
    phi_rows = position[c.rows]
    return dict(c=c, g_keep=g_keep, f_keep=f_keep, f_cols=f_cols, lam_rows=c.rows[:, r_f],
                phi_keep=phi_rows >= 0, phi_at=n + phi_rows[phi_rows >= 0], servo=c.time_dependent)


def constraint_layout(stepper, model, position, rows, cols):
    """The stepper's ``_affine`` batch of the quadratic families and the ``_families`` layouts of
    the others, their Newton-matrix entries appended to ``rows``/``cols`` in this order."""
    quadratic, others = AffineConstraints.split(model.constraints)
    stepper._affine = AffineConstraints(quadratic, model.n, model.m)
    stepper._affine.place(position, model.n, rows, cols)
    stepper._families = [family_layout(c, position, model.n, rows, cols) for c in others]


def force_layout(stepper, model, rows, cols):
    """Appends the tangent entries of the forces that depend on q_n+1 to ``rows``/``cols`` and sets
    the stepper's force lists, its fixed ``pattern``, the ``lu`` on it, the servo names and its
    ``newton`` iteration."""
    stepper._varying = [k for k, f in enumerate(model.forces) if f.tangent_mask is not None]
    stepper._constant = [k for k, f in enumerate(model.forces) if f.tangent_mask is None]
    # the forces whose work a step evaluates: the constant ones and the non-conservative varying ones
    # (a conservative varying force, a discrete gradient, does no work: ``worked_potential``)
    stepper._worked = [k not in stepper._varying or not f.conservative for k, f in enumerate(model.forces)]
    stepper._varying_worked = [k for k in stepper._varying if stepper._worked[k]]
    for k in stepper._varying:
        f = model.forces[k]
        i, j = f.tangent_pattern()
        rows.append(f.dofs[:, i].ravel())
        cols.append(f.dofs[:, j].ravel())
    stepper.pattern = SparsePattern((stepper.size,) * 2, np.concatenate(rows), np.concatenate(cols))
    stepper.lu = FixedPatternLU(stepper.pattern.indptr, stepper.pattern.indices)
    stepper.servos = sorted({label for fam in stepper._families if fam["servo"] for label in fam["c"].labels})
    stepper.newton = Newton(stepper.options, stepper.pattern, stepper.lu, model.n, stepper.active, stepper.scale,
                            stepper.servos)


class EnergyMomentum:
    """Stepper for one model and one dt. ``active_rows`` selects the independent constraint rows."""

    def __init__(self, model, dt, active_rows=None, options=None):
        self.model, self.dt = model, dt
        self.options = options or NewtonOptions()
        position, mbar = saddle_layout(self, model, active_rows)
        self.scale = 2.0 * mbar / dt**2
        self._mass_data = 2.0 / dt**2 * self.mass.data  # the Newton matrix's mass entries

        rows, cols = [self.mass.row], [self.mass.col]  # constant mass matrix
        constraint_layout(self, model, position, rows, cols)
        force_layout(self, model, rows, cols)
        self._potential = None  # (states, q, ``worked_potential``) at the end of the last step

    def _scatter(self, dofs, values):
        return np.bincount(dofs.ravel(), weights=values.ravel(), minlength=self.model.n)

    def _forces(self, qa, qb, t_mid, states, which):
        F = np.zeros(self.model.n)
        for k in which:
            f = self.model.forces[k]
            F += self._scatter(f.dofs, f.discrete_force(qa[f.dofs], qb[f.dofs], t_mid, self.dt, states[k]))
        return F

    def _constraint_forces(self, fam, Gbar, lam):
        return np.bincount(fam["f_cols"], weights=(Gbar * lam[fam["lam_rows"]]).ravel(), minlength=self.model.n)

    def begin_step(self, qa, t_end):
        """What the constraints reuse over the step from qa to time ``t_end``: G(qa) of the affine
        batch, then each other family's ``begin_step``."""
        return [self._affine.jacobian(qa)] + [fam["c"].begin_step(qa[fam["c"].dofs], t_end) for fam in self._families]

    def _system(self, qa, qb, lam, t_mid, inertia, constant_forces, starts, states, tangents=True):
        """Residual and (with ``tangents``, else None) Newton matrix data in pattern order. ``lam``
        holds all m multipliers."""
        dt, s, n = self.dt, self.scale, self.model.n
        R = np.empty(self.size)
        R_q = (2.0 / dt**2 * (self._mass_operator @ qb) - inertia - constant_forces
               - self._forces(qa, qb, t_mid, states, self._varying))
        force, data = self._affine.contribute(starts[0], qb, lam, R, s, tangent=1.0 if tangents else None)
        R_q += force
        for fam, start in zip(self._families, starts[1:]):
            c = fam["c"]
            phi, G, Gbar, T = c.linearize(start, qa[c.dofs], qb[c.dofs], lam[c.rows])
            R_q += self._constraint_forces(fam, Gbar, lam)
            R[fam["phi_at"]] = s * phi[fam["phi_keep"]]
            if tangents:
                data += [T.ravel(), s * Gbar.ravel()[fam["f_keep"]], s * G.ravel()[fam["g_keep"]]]
        R[:n] = R_q
        if not tangents:
            return R, None
        for k in self._varying:
            f = self.model.forces[k]
            data.append(-f.tangent_values(qa[f.dofs], qb[f.dofs], t_mid, dt, states[k]).ravel())
        return R, np.concatenate([self._mass_data] + data)

    def step(self, t, qa, va, lam_guess, states):
        """One step from (t, qa, va) to t + dt; ``lam_guess`` (m,) starts Newton's iteration and
        ``states`` are the forces' internal states at t."""
        dt = self.dt
        t_mid = t + 0.5 * dt
        inertia = 2.0 / dt**2 * (self._mass_operator @ (qa + dt * va))
        constant_forces = self._forces(qa, qa, t_mid, states, self._constant)
        starts = self.begin_step(qa, t + dt)
        lam = np.zeros(self.model.m)
        lam[self.active] = lam_guess[self.active]

        def system(qb, lam, tangents):
            return self._system(qa, qb, lam, t_mid, inertia, constant_forces, starts, states, tangents)

        qb, lam, iterations = self.newton.solve(system, qa + dt * va, lam, t + dt)
        return self._finish(t, qa, va, qb, lam, iterations, constant_forces, states)

    def _finish(self, t, qa, va, qb, lam, iterations, constant_forces, states):
        """Velocities, the step's work (loads, servo inputs, dissipation) and the new states.

        The work of the step is W = Fbar.(qb - qa) + V(qb) - V(qa) summed over the forces (``forces``
        module docstring) plus the servo inputs' u.B (qb - qa). A conservative varying force (a discrete
        gradient, e.g. the beams' elasticity) contributes zero by construction and is left out: so the
        step does not evaluate it again, and the energy balance H - H_0 - W checks its discrete
        gradient instead of cancelling it."""
        model, dt = self.model, self.dt
        dq = qb - qa
        F = constant_forces + self._forces(qa, qb, t + 0.5 * dt, states, self._varying_worked)
        for fam in self._families:
            if fam["servo"]:  # inputs u = -lam act along the Boolean B: work u . B dq
                F -= self._constraint_forces(fam, 1.0, lam)
        new_states = [f.advance(qa[f.dofs], qb[f.dofs], s) for f, s in zip(model.forces, states)]
        dissipation = sum(float(np.sum(f.dissipation(qa[f.dofs], qb[f.dofs], s)))
                          for f, s in zip(model.forces, states) if hasattr(f, "dissipation"))
        known = self._potential is not None and self._potential[0] is states and np.array_equal(self._potential[1], qa)
        v_a = self._potential[2] if known else worked_potential(model, qa, states, self._worked)
        v_b = worked_potential(model, qb, new_states, self._worked)
        self._potential = (new_states, qb.copy(), v_b)  # V_n of the next step, if it starts here
        work = float(F @ dq) + v_b - v_a
        return StepResult(qb, 2.0 / dt * dq - va, lam, iterations, work, dissipation, new_states)
