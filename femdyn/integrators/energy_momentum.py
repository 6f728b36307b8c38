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

from ..assembly import SparsePattern, block_entries
from ..linalg import FixedPatternLU, SingularMatrixError
from .affine import AffineConstraints


class NewtonFailure(RuntimeError):
    def __init__(self, time, residual, iterations, reason, servos=()):
        self.time, self.residual, self.iterations = time, residual, iterations
        hint = "Try a smaller dt, or check the initial configuration and the loads."
        if servos:
            hint += (f" The servo constraints ({', '.join(servos)}) may ask for a pose outside the "
                     "workspace or through a singular one there.")
        super().__init__(f"Newton failed in the step to t = {time:.6g} after {iterations} iterations "
                         f"({reason}; residual {residual:.3e}). {hint}")


# Steps of iterative refinement of the first Newton solve of a step (``FixedPatternLU.solve``). Its
# increment is the large one: a solve with relative error e leaves e |dq_1| for the next iteration
# (N = 4096 beam elements: e = 2e-3, increments 3e-5, 6e-8, .. instead of 3e-5, 1e-9, ..), while the
# later, small increments carry that error far below the tolerance.
FIRST_SOLVE_REFINEMENT = 1


@dataclass
class NewtonOptions:
    tolerance: float = 1e-10  # on the error of q_n+1, relative to max(1, |q|_inf): see ``newton_converged``
    max_iterations: int = 25
    early_stop: bool = False  # generalized-alpha only: ``generalized_alpha.QuadraticStop``


def newton_converged(increment, previous, q, tolerance):
    """Newton's stopping test on the increments |dq_k|_inf (``increment``) and |dq_k-1|_inf
    (``previous``, None in the first iteration), E. Hairer, G. Wanner, Solving Ordinary Differential
    Equations II, 2nd ed., Springer 1996, sec. IV.8, eqs. (8.10)-(8.11): with the observed contraction
    Theta = |dq_k| / |dq_k-1| < 1 the error left in q_k is at most Theta / (1 - Theta) |dq_k|, and the
    iteration stops when that bound, or |dq_k| itself, is below ``tolerance`` max(1, |q|_inf).

    Testing the estimated error instead of the last increment saves the iteration that only confirms
    convergence (quadratic convergence with |dq| = 3e-5, 1e-9 leaves an error of about 1e-13 after the
    second iteration), and that iteration is the costly one on fine meshes: with 4096 beam elements the
    round-off of the elastic forces (EI / h^3 of 1e13 N/m times q) alone moves q by about 1e-10, the
    default tolerance, so an increment test there wanders at the round-off level for several more
    iterations (benchmarks/README.md, "Scaling and memory").
    """
    bound = tolerance * max(1.0, np.abs(q).max())
    if increment <= bound:
        return True
    if previous is None or increment >= previous:
        return False
    theta = increment / previous
    return theta / (1.0 - theta) * increment <= bound


@dataclass
class StepResult:
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    iterations: int
    work: float  # work of applied loads and servo inputs minus dissipation in the step
    potential: float  # at the end of the step
    dissipation: float  # energy dissipated by friction in the step (>= 0)
    states: list  # internal states of the forces at the end of the step


def saddle_layout(stepper, model, active_rows):
    """Sets the stepper's ``active`` rows, system ``size``, ``mass`` (COO) and ``_mass_csr``; returns
    the place of each constraint row among the active ones (-1: dropped) and the mean positive
    diagonal mass, the scale of the multipliers."""
    active = np.arange(model.m) if active_rows is None else np.asarray(active_rows)
    position = -np.ones(model.m, dtype=np.int64)
    position[active] = np.arange(active.size)
    stepper.active, stepper.size = active, model.n + active.size
    stepper.mass = model.mass_matrix.tocoo()
    stepper._mass_csr = stepper.mass.tocsr()
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
    the stepper's force lists, its fixed ``pattern``, the ``lu`` on it and the servo names."""
    stepper._varying = [k for k, f in enumerate(model.forces) if f.tangent_mask is not None]
    stepper._constant = [k for k, f in enumerate(model.forces) if f.tangent_mask is None]
    for k in stepper._varying:
        f = model.forces[k]
        i, j = f.tangent_pattern()
        rows.append(f.dofs[:, i].ravel())
        cols.append(f.dofs[:, j].ravel())
    stepper.pattern = SparsePattern((stepper.size,) * 2, np.concatenate(rows), np.concatenate(cols))
    stepper.lu = FixedPatternLU(stepper.pattern.indptr, stepper.pattern.indices)
    stepper.servos = sorted({label for fam in stepper._families if fam["servo"] for label in fam["c"].labels})


class EnergyMomentum:
    """Stepper for one model and one dt. ``active_rows`` selects the independent constraint rows."""

    def __init__(self, model, dt, active_rows=None, options=None):
        self.model, self.dt = model, dt
        self.options = options or NewtonOptions()
        position, mbar = saddle_layout(self, model, active_rows)
        self.scale = 2.0 * mbar / dt**2

        rows, cols = [self.mass.row], [self.mass.col]  # constant mass matrix
        constraint_layout(self, model, position, rows, cols)
        force_layout(self, model, rows, cols)

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

    def _system(self, qa, qb, lam, t_mid, inertia, constant_forces, starts, states):
        """Residual and Newton matrix data in pattern order. ``lam`` holds all m multipliers."""
        dt, s, n = self.dt, self.scale, self.model.n
        R = np.empty(self.size)
        R_q = (2.0 / dt**2 * (self._mass_csr @ qb) - inertia - constant_forces
               - self._forces(qa, qb, t_mid, states, self._varying))
        data = [2.0 / dt**2 * self.mass.data]
        force, entries = self._affine.contribute(starts[0], qb, lam, R, s)
        R_q += force
        data += entries
        for fam, start in zip(self._families, starts[1:]):
            c = fam["c"]
            phi, G, Gbar, T = c.linearize(start, qa[c.dofs], qb[c.dofs], lam[c.rows])
            R_q += self._constraint_forces(fam, Gbar, lam)
            R[fam["phi_at"]] = s * phi[fam["phi_keep"]]
            data += [T.ravel(), s * Gbar.ravel()[fam["f_keep"]], s * G.ravel()[fam["g_keep"]]]
        R[:n] = R_q
        for k in self._varying:
            f = self.model.forces[k]
            data.append(-f.tangent_values(qa[f.dofs], qb[f.dofs], t_mid, dt, states[k]).ravel())
        return R, np.concatenate(data)

    def step(self, t, qa, va, lam_guess, states):
        """One step from (t, qa, va) to t + dt; ``lam_guess`` (m,) starts Newton's iteration and
        ``states`` are the forces' internal states at t."""
        model, dt, n = self.model, self.dt, self.model.n
        t_mid = t + 0.5 * dt
        inertia = 2.0 / dt**2 * (self._mass_csr @ (qa + dt * va))
        constant_forces = self._forces(qa, qa, t_mid, states, self._constant)
        starts = self.begin_step(qa, t + dt)
        qb = qa + dt * va
        lam = np.zeros(model.m)
        lam[self.active] = lam_guess[self.active]
        previous = None
        for it in range(1, self.options.max_iterations + 1):
            R, data = self._system(qa, qb, lam, t_mid, inertia, constant_forces, starts, states)
            if not np.all(np.isfinite(R)):
                raise NewtonFailure(t + dt, np.inf, it, "the residual is not finite", self.servos)
            try:
                self.lu.factor(self.pattern.values(data))
            except SingularMatrixError:
                raise NewtonFailure(t + dt, np.abs(R).max(), it, "singular Newton matrix", self.servos) from None
            dx = self.lu.solve(-R, refine=FIRST_SOLVE_REFINEMENT if it == 1 else 0)
            qb = qb + dx[:n]
            lam[self.active] += self.scale * dx[n:]
            increment = np.abs(dx[:n]).max()
            if newton_converged(increment, previous, qb, self.options.tolerance):
                return self._finish(t, qa, va, qb, lam, it, constant_forces, states)
            previous = increment
        raise NewtonFailure(t + dt, np.abs(R).max(), self.options.max_iterations,
                            "no convergence within the iteration limit", self.servos)

    def _finish(self, t, qa, va, qb, lam, iterations, constant_forces, states):
        """Velocities, the step's work (loads, servo inputs, dissipation) and the new states."""
        model, dt = self.model, self.dt
        dq = qb - qa
        F = constant_forces + self._forces(qa, qb, t + 0.5 * dt, states, self._varying)
        for fam in self._families:
            if fam["servo"]:  # inputs u = -lam act along the Boolean B: work u . B dq
                F -= self._constraint_forces(fam, 1.0, lam)
        new_states = [f.advance(qa[f.dofs], qb[f.dofs], s) for f, s in zip(model.forces, states)]
        dissipation = sum(float(np.sum(f.dissipation(qa[f.dofs], qb[f.dofs], s)))
                          for f, s in zip(model.forces, states) if hasattr(f, "dissipation"))
        v_a = model.potential(qa, states)
        v_b = model.potential(qb, new_states)
        work = float(F @ dq) + v_b - v_a
        return StepResult(qb, 2.0 / dt * dq - va, lam, iterations, work, v_b, dissipation, new_states)
