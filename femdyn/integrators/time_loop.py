"""Time loop: step from a prepared initial state (``setup.prepare``) under ``settings.SolverSettings``
with the energy-momentum scheme (default) or the generalized-alpha scheme, and record the history
(coordinates, energies, momenta, constraint residual, Newton iterations)."""
from dataclasses import dataclass, field

import numpy as np

from .energy_momentum import EnergyMomentum
from .generalized_alpha import GeneralizedAlpha
from .newton import NewtonFailure
from .settings import GENERALIZED_ALPHA


@dataclass
class Results:
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    inputs: np.ndarray  # (steps, inputs): servo inputs over each step, at the mid-times t_mid
    # (generalized-alpha: the mean of the inputs at the step's two ends)
    iterations: np.ndarray
    residual: np.ndarray  # max |Phi| over the active constraints
    kinetic: np.ndarray
    potential: np.ndarray
    work: np.ndarray  # cumulative work of loads and servo inputs minus dissipation
    dissipation: np.ndarray  # cumulative energy dissipated by friction
    momentum: np.ndarray
    angular_momentum: np.ndarray
    complete: bool = True
    message: str = ""
    dropped: list = field(default_factory=list)
    integrator: str = "energy-momentum"
    factorisations: int = 0  # Newton matrices factorised (fewer than iterations with modified Newton)

    @property
    def t_mid(self):
        return 0.5 * (self.t[1:] + self.t[:-1])

    @property
    def dt(self):
        return self.t[1] - self.t[0] if len(self.t) > 1 else float("nan")

    @property
    def total(self):
        return self.kinetic + self.potential

    @property
    def energy_balance(self):
        """H_n - H_0 - W_n: zero to round-off for the energy-momentum scheme (001 eq. 14); O(dt^2)
        for the generalized-alpha scheme, whose work is a trapezoidal sum and which dissipates
        numerically for rho_inf < 1."""
        return self.total - self.total[0] - self.work


def simulate(setup, settings, progress=None):
    """Integrate the model of ``setup`` (``setup.prepare``) from t = 0 to ``settings.t_end`` in
    ``settings.steps`` equal steps no larger than ``settings.dt`` (``settings.SolverSettings``); returns
    ``Results``, marked incomplete (with the reason) if Newton fails or the run is interrupted, holding
    the steps computed up to there. ``settings.integrator``: "energy-momentum" (000, 001: conserves
    energy and momenta) or "generalized-alpha" (Arnold & Bruls 2007, index 3, with the spectral radius
    ``settings.rho_inf`` in [0, 1] at infinite frequency: smaller values damp high frequencies more; 1 has
    no numerical dissipation but is only weakly stable on constrained systems, see
    ``generalized_alpha``). ``progress``: an object with ``update(step, t)``, told after every step.
    SettingsError if the history would not fit ``settings.HISTORY_BUDGET``."""
    model = setup.model
    settings.check_history(model.n)
    steps, dt, options = settings.steps, settings.step, settings.newton_options
    alpha = settings.integrator == GENERALIZED_ALPHA
    if alpha:
        stepper = GeneralizedAlpha(model, dt, setup.active_rows, options, settings.rho_inf)
    else:
        stepper = EnergyMomentum(model, dt, setup.active_rows, options)
    q, v, lam = setup.q0.copy(), setup.v0.copy(), np.zeros(model.m)
    states = model.initial_states(q)
    Q, V = np.empty((steps + 1, model.n)), np.empty((steps + 1, model.n))
    inputs = np.empty((steps, len(model.inputs)))
    iterations, work, dissipation = np.zeros(steps + 1, dtype=int), np.zeros(steps + 1), np.zeros(steps + 1)
    history = [states]  # the forces' states at each step, for the potential energy
    Q[0], V[0] = q, v
    complete, message, last = True, "", steps
    for k in range(steps):
        try:
            r = stepper.step(k * dt, q, v, lam, states)
        except NewtonFailure as failure:
            complete, message, last = False, str(failure), k
            break
        except KeyboardInterrupt:
            complete, message, last = False, f"interrupted at t = {k * dt:.6g}", k
            break
        q, v, lam, states = r.q, r.v, r.lam, r.states
        Q[k + 1], V[k + 1], iterations[k + 1] = q, v, r.iterations
        history.append(states)
        inputs[k] = -(0.5 * (r.lam_start + lam) if alpha else lam)[model.input_rows]
        work[k + 1] = work[k] + r.work
        dissipation[k + 1] = dissipation[k] + r.dissipation
        if progress is not None:
            progress.update(k + 1, (k + 1) * dt)
    Q, V = Q[: last + 1], V[: last + 1]
    momentum, angular = model.momenta(Q, V)
    t = np.arange(last + 1) * dt
    return Results(
        t=t, q=Q, v=V, inputs=inputs[:last], iterations=iterations[: last + 1],
        residual=model.residual_history(Q, t, setup.active_rows),
        kinetic=model.kinetic(V), potential=model.potential_history(Q, history[: last + 1]),
        work=work[: last + 1], dissipation=dissipation[: last + 1], momentum=momentum, angular_momentum=angular,
        complete=complete, message=message, dropped=setup.dropped, integrator=settings.integrator,
        factorisations=stepper.factorisations)
