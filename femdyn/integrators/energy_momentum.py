"""The basic energy-momentum (BEM) scheme, 000 eqs. 5-7 (001 eq. 3, with the EMC forces of eq. 14):

    q_n+1 - q_n = dt/2 (v_n + v_n+1)
    M (v_n+1 - v_n) = dt Fbar(q_n, q_n+1) - dt Gbar(q_n, q_n+1)^T lam
    Phi(q_n+1) = 0

v_n+1 is eliminated with the first line; Newton solves for (q_n+1, lam) with

    R_q = 2/dt^2 M (q_n+1 - q_n - dt v_n) - Fbar + Gbar^T lam,     R_lam = Phi(q_n+1)
    K   = [[2/dt^2 M - dFbar/dq + d(Gbar^T lam)/dq,  Gbar^T],
           [G(q_n+1),                                0     ]]

assembled into a fixed sparsity pattern. The multipliers are scaled by s = 2 mbar/dt^2 (mbar: mean
mass) so that both blocks of K have the same magnitude. Because every Gbar is a discrete gradient, the
step conserves energy (up to the work of applied loads) and momentum maps to the Newton tolerance.
"""
from dataclasses import dataclass

import numpy as np

from ..assembly import SparsePattern, block_entries
from ..linalg import FixedPatternLU, SingularMatrixError


class NewtonFailure(RuntimeError):
    def __init__(self, time, residual, iterations, reason):
        self.time, self.residual, self.iterations = time, residual, iterations
        super().__init__(
            f"Newton failed in the step to t = {time:.6g} after {iterations} iterations "
            f"({reason}; residual {residual:.3e}). Try a smaller dt, or check the initial "
            f"configuration and the loads.")


@dataclass
class NewtonOptions:
    tolerance: float = 1e-10  # on the increment, relative to max(1, |q|_inf)
    max_iterations: int = 25


@dataclass
class StepResult:
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    iterations: int
    work: float  # non-conservative work of applied loads minus dissipation in the step


class EnergyMomentum:
    """Stepper for one model and one dt. ``active_rows`` selects the independent constraint rows."""

    def __init__(self, model, dt, active_rows=None, options=None):
        self.model, self.dt = model, dt
        self.options = options or NewtonOptions()
        n = model.n
        active = np.arange(model.m) if active_rows is None else np.asarray(active_rows)
        self.active = active
        position = -np.ones(model.m, dtype=np.int64)
        position[active] = np.arange(active.size)
        self.size = n + active.size
        positive = model.mass[model.mass > 0]
        self.scale = 2.0 * (positive.mean() if positive.size else 1.0) / dt**2

        rows, cols = [np.arange(n)], [np.arange(n)]  # mass diagonal
        self._families = []
        for c in model.constraints:
            t_i, t_j = block_entries(c.dofs, c.dofs, c.tangent_mask)
            r_local, c_local = np.nonzero(c.jacobian_mask)
            g_rows = position[c.rows[:, r_local]].ravel()
            g_cols = c.dofs[:, c_local].ravel()
            keep = g_rows >= 0
            rows += [t_i, g_cols[keep], n + g_rows[keep]]
            cols += [t_j, n + g_rows[keep], g_cols[keep]]
            phi_rows = position[c.rows]
            self._families.append(dict(c=c, keep=keep, g_cols=g_cols, lam_rows=c.rows[:, r_local],
                                       phi_keep=phi_rows >= 0, phi_at=n + phi_rows[phi_rows >= 0]))
        self._varying = [f for f in model.forces if f.tangent_mask is not None]
        for f in self._varying:
            t_i, t_j = block_entries(f.dofs, f.dofs, f.tangent_mask)
            rows.append(t_i)
            cols.append(t_j)
        self.pattern = SparsePattern((self.size, self.size), np.concatenate(rows), np.concatenate(cols))
        self.lu = FixedPatternLU(self.pattern.indptr, self.pattern.indices)

    def _scatter(self, dofs, values):
        return np.bincount(dofs.ravel(), weights=values.ravel(), minlength=self.model.n)

    def _varying_forces(self, qa, qb, t_mid):
        F = np.zeros(self.model.n)
        for f in self._varying:
            F += self._scatter(f.dofs, f.discrete_force(qa[f.dofs], qb[f.dofs], t_mid, self.dt))
        return F

    def _system(self, qa, qb, lam, t_mid, inertia, constant_forces, starts):
        """Residual and Newton matrix data in pattern order. ``lam`` holds all m multipliers."""
        dt, s, n = self.dt, self.scale, self.model.n
        R = np.empty(self.size)
        R_q = 2.0 / dt**2 * self.model.mass * qb - inertia - constant_forces - self._varying_forces(qa, qb, t_mid)
        data = [2.0 / dt**2 * self.model.mass]
        for fam, start in zip(self._families, starts):
            c = fam["c"]
            phi, G, Gbar, T = c.linearize(start, qa[c.dofs], qb[c.dofs], lam[c.rows])
            R_q += np.bincount(fam["g_cols"], weights=(Gbar * lam[fam["lam_rows"]]).ravel(), minlength=n)
            R[fam["phi_at"]] = s * phi[fam["phi_keep"]]
            data += [T.ravel(), s * Gbar.ravel()[fam["keep"]], s * G.ravel()[fam["keep"]]]
        R[:n] = R_q
        for f in self._varying:
            data.append(-f.tangent(qa[f.dofs], qb[f.dofs], t_mid, dt)[:, f.tangent_mask].ravel())
        return R, np.concatenate(data)

    def step(self, t, qa, va, lam_guess):
        """One step from (t, qa, va) to t + dt; ``lam_guess`` (m,) starts Newton's iteration."""
        model, dt, n = self.model, self.dt, self.model.n
        t_mid = t + 0.5 * dt
        inertia = 2.0 / dt**2 * model.mass * (qa + dt * va)
        constant_forces = np.zeros(n)
        for f in model.forces:
            if f.tangent_mask is None:
                constant_forces += self._scatter(f.dofs, f.discrete_force(qa[f.dofs], qa[f.dofs], t_mid, dt))
        starts = [fam["c"].begin_step(qa[fam["c"].dofs]) for fam in self._families]
        qb = qa + dt * va
        lam = np.zeros(model.m)
        lam[self.active] = lam_guess[self.active]
        for it in range(1, self.options.max_iterations + 1):
            R, data = self._system(qa, qb, lam, t_mid, inertia, constant_forces, starts)
            if not np.all(np.isfinite(R)):
                raise NewtonFailure(t + dt, np.inf, it, "the residual is not finite")
            try:
                self.lu.factor(self.pattern.values(data))
            except SingularMatrixError:
                raise NewtonFailure(t + dt, np.abs(R).max(), it, "singular Newton matrix") from None
            dx = self.lu.solve(-R)
            qb = qb + dx[:n]
            lam[self.active] += self.scale * dx[n:]
            if np.abs(dx[:n]).max() <= self.options.tolerance * max(1.0, np.abs(qb).max()):
                vb = 2.0 / dt * (qb - qa) - va
                F = constant_forces + self._varying_forces(qa, qb, t_mid)
                work = float(F @ (qb - qa)) + model.potential(qb) - model.potential(qa)
                return StepResult(qb, vb, lam, it, work)
        raise NewtonFailure(t + dt, np.abs(R).max(), self.options.max_iterations,
                            "no convergence within the iteration limit")
