"""Time loop: set up consistent initial conditions, step with the energy-momentum scheme, and record
the history (coordinates, energies, momenta, constraint residual, Newton iterations)."""
from dataclasses import dataclass, field

import numpy as np

from .initial import independent_rows, project
from .integrators.energy_momentum import EnergyMomentum, NewtonFailure, NewtonOptions
from .model import ModelError


@dataclass
class Setup:
    q0: np.ndarray
    v0: np.ndarray
    active_rows: np.ndarray
    dropped: list  # (row label, [labels it depends on])
    initial_violation: float


def prepare(model, q, v, tolerance=1e-6):
    """Check the placed configuration, find independent constraints, project onto the manifold."""
    residual = model.phi(q)
    worst = int(np.argmax(np.abs(residual))) if model.m else 0
    violation = float(np.abs(residual[worst])) if model.m else 0.0
    if violation > tolerance:
        raise ModelError("initial", f"the initial configuration violates {model.constraint_labels()[worst]} "
                         f"by {violation:.3g} (tolerance {tolerance:g})")
    active, dropped = independent_rows(model, q)
    q, v = project(model, q, v, active)
    return Setup(q, v, active, dropped, violation)


@dataclass
class Results:
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray  # max |Phi| over the active constraints
    kinetic: np.ndarray
    potential: np.ndarray
    work: np.ndarray  # cumulative non-conservative work of loads minus dissipation
    momentum: np.ndarray
    angular_momentum: np.ndarray
    complete: bool = True
    message: str = ""
    dropped: list = field(default_factory=list)

    @property
    def total(self):
        return self.kinetic + self.potential

    @property
    def energy_balance(self):
        """H_n - H_0 - W_n: zero to round-off for the energy-momentum scheme (001 eq. 14)."""
        return self.total - self.total[0] - self.work


def simulate(model, setup, dt, t_end, options=None, progress=None):
    """Integrate from t = 0 to t_end (the last step lands on t_end); returns ``Results``, marked
    incomplete (with the reason) if Newton fails, holding the steps computed up to there."""
    if not dt > 0:
        raise ModelError("dt", f"must be > 0, got {dt}")
    if not t_end > 0:
        raise ModelError("t_end", f"must be > 0, got {t_end}")
    steps = max(1, int(round(t_end / dt)))
    dt = t_end / steps
    stepper = EnergyMomentum(model, dt, setup.active_rows, options or NewtonOptions())
    n, m = model.n, model.m
    q, v, lam = setup.q0.copy(), setup.v0.copy(), np.zeros(m)
    Q, V, L = np.empty((steps + 1, n)), np.empty((steps + 1, n)), np.zeros((steps + 1, m))
    iterations, work = np.zeros(steps + 1, dtype=int), np.zeros(steps + 1)
    Q[0], V[0] = q, v
    complete, message, last = True, "", steps
    for k in range(steps):
        try:
            r = stepper.step(k * dt, q, v, lam)
        except NewtonFailure as failure:
            complete, message, last = False, str(failure), k
            break
        except KeyboardInterrupt:
            complete, message, last = False, f"interrupted at t = {k * dt:.6g}", k
            break
        q, v, lam = r.q, r.v, r.lam
        Q[k + 1], V[k + 1], L[k + 1], iterations[k + 1] = q, v, lam, r.iterations
        work[k + 1] = work[k] + r.work
        if progress is not None:
            progress.update(k + 1, (k + 1) * dt)
    keep = slice(0, last + 1)
    Q, V, L, iterations, work = Q[keep], V[keep], L[keep], iterations[keep], work[keep]
    momenta = [model.momenta(qk, vk) for qk, vk in zip(Q, V)]
    return Results(
        t=np.arange(last + 1) * dt, q=Q, v=V, lam=L, iterations=iterations,
        residual=np.array([np.abs(model.phi(qk)[setup.active_rows]).max(initial=0.0) for qk in Q]),
        kinetic=np.array([model.kinetic(vk) for vk in V]),
        potential=np.array([model.potential(qk) for qk in Q]),
        work=work, momentum=np.array([p for p, _ in momenta]),
        angular_momentum=np.array([a for _, a in momenta]),
        complete=complete, message=message, dropped=setup.dropped)
