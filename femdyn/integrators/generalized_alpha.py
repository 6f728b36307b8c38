"""The generalized-alpha scheme for constrained mechanical systems in index-3 form.

Source: M. Arnold, O. Bruls, "Convergence of the generalized-alpha scheme for constrained mechanical
systems", Multibody System Dynamics 18 (2007) 185-202 (the scheme applied to the index-3 equations
of motion); parameters after J. Chung, G. M. Hulbert, J. Appl. Mech. 60 (1993) 371-375.
With the step h = dt, the acceleration-like variable a and the accelerations vd = dv/dt:

    q_n+1 = q_n + h v_n + h^2 (1/2 - beta) a_n + h^2 beta a_n+1
    v_n+1 = v_n + h (1 - gamma) a_n + h gamma a_n+1
    (1 - alpha_m) a_n+1 + alpha_m a_n = (1 - alpha_f) vd_n+1 + alpha_f vd_n
    M vd_n+1 + G(q_n+1)^T lam_n+1 = F(q_n+1, v_n+1, t_n+1)
    Phi(q_n+1, t_n+1) = 0

    alpha_m = (2 rho_inf - 1)/(rho_inf + 1),  alpha_f = rho_inf/(rho_inf + 1),
    gamma = 1/2 + alpha_f - alpha_m,          beta = (gamma + 1/2)^2 / 4,

rho_inf in [0, 1] the spectral radius of the amplification matrix for h -> infinity: 1 is the
non-dissipative trapezoidal rule (alpha_m = alpha_f = 1/2), 0 annihilates the high frequencies in one
step. gamma = 1/2 + alpha_f - alpha_m gives second order, and the index-3 form keeps q on the
constraint manifold (to the Newton tolerance) without drift; G(q_n+1) v_n+1 = 0 holds to O(h^2) only.

With a_n+1 = (q_n+1 - qt)/(beta h^2), qt = q_n + h v_n + h^2 (1/2 - beta) a_n, everything is a function
of q_n+1, and Newton solves for (q_n+1, lam) with

    R_q = beta' M (q_n+1 - qt) + M c_n + Gbar^T lam - F(q_n+1, v_n+1(q_n+1), t_n+1),  R_lam = Phi
    K   = [[beta' M + d(Gbar^T lam)/dq - dF/dq - gamma' dF/dv,  Gbar^T],
           [G(q_n+1),                                           0     ]],

beta' = (1 - alpha_m)/((1 - alpha_f) beta h^2), gamma' = gamma/(beta h), c_n = (alpha_m a_n -
alpha_f vd_n)/(1 - alpha_f), in the fixed pattern of the model's ``saddle.SaddleSystem`` (as for the
energy-momentum stepper), multipliers scaled by s = beta' mbar. Gbar is the force direction of a row
at q_n+1: the Jacobian for joint rows, the Boolean input matrix B for servo rows (000 eq. 84). The
constraint families and forces provide mid-point (discrete-gradient) forms; at qa = qb these are the
continuous quantities, and because they are symmetric in (qa, qb) their derivative with respect to
qb alone is half the full one, so the tangents enter doubled (the defaults of
``Force.continuous_force`` and ``continuous_tangents``). Where the discrete form is not the
continuous one (the damper of a ``SpringDamper`` uses (l_b - l_a)/dt; ``Friction`` averages the
return map over the step) the force gives its continuous force and exact derivatives itself:
F = -(k (l - l0) + c dl/dt) grad l, and friction by the backward-Euler return map with the slip of the
step's start, which also gives its state and dissipation at the step's end
(``Force.continuous_advance``, ``continuous_dissipation``).

Start: vd_0 are the consistent accelerations at (q_0, v_0, t_0), M vd_0 + Gbar^T lam_0 = F,
G vd_0 = -d/dt(G) v - d^2 Phi/dt^2, and a_0 = vd_0. Arnold & Bruls shift a_0 to
vd(t_0 + Delta h), Delta = alpha_m - alpha_f, for O(h^2) errors in a_n; extrapolated over a step this
blows up for stiff components (omega h >> 1: a_0 wrong by a factor (omega h)^2), and for smooth
problems it changed nothing measurable, so it is not used. a and vd are carried in the stepper from
one step to the next; a step that does not start from the last step's end starts afresh.

Accuracy and stability (index 3; figures measured on pendulums, see tests/test_generalized_alpha.py):
q and v converge at second order for every rho_inf, and q stays on Phi = 0 to round-off. Normal to
the constraints (where q is fixed by Phi = 0) the scheme leaves a recursion in (v, a) with the
double root -rho_inf, and vd and lam follow with the root -alpha_f/(1 - alpha_f) = -rho_inf:
- rho_inf = 1 (trapezoidal rule): the roots sit at -1 with a Jordan block, the known weak
  instability of the trapezoidal rule on index-3 systems (Cardona & Geradin 1989): G v and lam
  grow with n; the energy of a swinging pendulum (dt = 0.01) is off by 2 % of its kinetic energy
  at t = 2 s, and the run breaks down by t = 4 s. Use rho_inf = 1 only for short runs or motion
  that does not bend the constraints (a linear oscillator keeps its energy to round-off).
- rho_inf < 1: lam has an O(h) start-up transient (G v = 0 holds only to O(h^2), and lam responds
  to velocity errors like 1/h) that decays like rho_inf^n; after it lam is second order. The
  triple root is sensitive to the O(h) coupling through the nonlinear terms, so rho_inf close to 1
  needs smaller steps: a swinging pendulum runs 10 s stably at dt = 0.04 with rho_inf = 0.8, while
  with 0.9 its multipliers grow until it breaks down (fine at dt = 0.02).

Work of loads and servo inputs in a step: the trapezoidal rule (F_n + F_n+1)/2 . (q_n+1 - q_n) plus
V_n+1 - V_n, so the energy balance holds to O(h^2), not to round-off as for the energy-momentum scheme.
As there, the conservative varying forces (the beams' elasticity) do no work: their potential is part
of the energy H, and the balance H - H_0 - W measures the scheme's own energy error (O(h^2), and the
numerical dissipation of rho_inf < 1) instead of comparing H with the trapezoidal rule's
approximation of V_n+1 - V_n; the end of a step then does not evaluate those forces again.

Newton starts from one of two candidates, whichever was the closer to the last step's solution (max
norm): the extrapolated a_n+1 = 2 a_n - a_n-1 -- on the FEM 3-PRR at h = 2 ms the first increment falls
from a median of 6e-6 (with a_n+1 = a_n) to 5e-7, and the steps that need a third iteration from 26 % to
11 % (with the increment test of that time) -- and the damped extrapolation a_n+1 = (1 - 2 rho_inf) a_n +
rho_inf (2 - rho_inf) a_n-1 + rho_inf^2 a_n-2 (``damped_extrapolation``; q_n + h v_n in the first two
steps, where a_n-2 is not known). Fine beams carry in a_n the stiff components of their mesh-scale modes, for which
omega h >> 1: the scheme's amplification matrix then has the triple root -rho_inf (``amplitude_per_step``),
so those components alternate in sign and shrink by about rho_inf per step, slower in the first steps
(the triple root's n (-rho_inf)^n and n^2 (-rho_inf)^n). The extrapolation triples them; the damped one is
exact for constant accelerations and for (B + C n) (-rho_inf)^n (its characteristic polynomial is
(z - 1) (z + rho_inf)^2; with the triple root its larger coefficients amplify the rest more). Rigid and
servo-driven models mostly keep the extrapolation (nm_logo and rpr_figure8 take the second start in about
15-25 % of their steps, stewart_gough and 3rrr_forward in none or one of 300). The first step after a start
takes q_n + h v_n (a_1 = -(1/2 - beta)/beta a_0: -0.805 a_0 at rho_inf = 0.9, -0.125 a_0 at 0.5): the
consistent a_0 holds the stiff modes' instantaneous accelerations, which the step does not resolve and the
extrapolation a_1 = a_0 would take whole. Full Newton, dt = 1e-3, the first 200 steps of the flexible
pendulum of benchmarks/README.md
("N = 4096 over 256, measured again" and the section after it): 2.21 / 3.31 iterations per step with the
extrapolation alone at N = 256 / 4096, 2.02 / 2.85 with q_n + h v_n as the second candidate, 2.01 / 2.605
with the damped extrapolation (the first step at 4096: 3 iterations instead of 5); simplified Newton 3.085
/ 3.865 iterations and 1.005 / 1.05 factorisations per step (4.57 and 1.615 at 4096 before). Newton
stops by ``newton_converged`` (Hairer & Wanner's error estimate from the last two increments), so
usually after the second iteration (what it leaves is of the order of the second increment squared).
With ``NewtonOptions.early_stop`` (``QuadraticStop``, case ``solver.early_stop``) it may stop after
the first: where the contraction measured in earlier steps says that the next increment would be far
below the tolerance. The solution is the same to within the tolerance, but it is no longer converged
to round-off (the constraint residual is then up to about the tolerance instead of 1e-15), so the
option is off by default. The energy-momentum stepper has no early stop: its conservation to
round-off needs the converged residual. ``NewtonOptions.modified`` (``newton.Newton``, both steppers)
keeps a step's first factorisation for its later iterations instead; the early stop is for full Newton
only.
"""
from dataclasses import dataclass

import numpy as np

from ..numerics.lazy import compiled
from .energy_momentum import StepResult
from .newton import Newton, NewtonFailure, NewtonOptions, QuadraticStop
from .saddle import NONE, SaddleSystem
from .stepping import STEP_ENDS


def chung_hulbert(rho_inf):
    """(alpha_m, alpha_f, gamma, beta) for the spectral radius rho_inf in [0, 1] (the range that
    ``settings.SolverSettings`` checks)."""
    r = float(rho_inf)
    alpha_m, alpha_f = (2.0 * r - 1.0) / (r + 1.0), r / (r + 1.0)
    gamma = 0.5 + alpha_f - alpha_m
    return alpha_m, alpha_f, gamma, 0.25 * (gamma + 0.5) ** 2


def amplitude_per_step(rho_inf, omega_dt):
    """The factor by which generalized-alpha with ``rho_inf`` shrinks the amplitude of an undamped
    oscillation of frequency omega in a step dt (the spectral radius of its amplification matrix,
    Chung & Hulbert 1993): 1 - O((omega dt)^4) for resolved motion, rho_inf for omega dt -> infinity."""
    alpha_m, alpha_f, gamma, beta = chung_hulbert(rho_inf)
    w2 = omega_dt**2
    # (q, v, a) of the step's end from its start: q1 = q + v + (1/2 - beta) a + beta a1, v1 = v + (1 - gamma) a
    # + gamma a1, (1 - alpha_m) a1 + alpha_m a = -w2 ((1 - alpha_f) q1 + alpha_f q)   (dt = 1)
    left = np.array([[1.0, 0.0, -beta], [0.0, 1.0, -gamma], [(1 - alpha_f) * w2, 0.0, 1 - alpha_m]])
    right = np.array([[1.0, 1.0, 0.5 - beta], [0.0, 1.0, 1 - gamma], [-alpha_f * w2, 0.0, -alpha_m]])
    return float(np.abs(np.linalg.eigvals(np.linalg.solve(left, right))).max())


def damped_extrapolation(rho_inf: float) -> tuple[float, float, float]:
    """(d0, d1, d2) of the predictor a_n+1 = d0 a_n + d1 a_n-1 + d2 a_n-2 that is exact for constant
    accelerations and for the sequences (B + C n) (-rho_inf)^n: the roots of z^3 - d0 z^2 - d1 z - d2 are
    1 and -rho_inf twice, (z - 1) (z + rho_inf)^2 (module docstring)."""
    r = float(rho_inf)
    return 1.0 - 2.0 * r, r * (2.0 - r), r * r


@dataclass
class AlphaStepResult(StepResult):
    a: np.ndarray = None  # acceleration-like variable a_n+1
    vd: np.ndarray = None  # accelerations dv/dt at t_n+1
    lam_start: np.ndarray = None  # multipliers at the step's start t_n (servo inputs are -lam)


@dataclass
class _Carry:
    """The end of the last step, from which the next one continues."""

    t: float
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    vd: np.ndarray
    lam: np.ndarray
    force: np.ndarray  # applied forces plus servo inputs, for the work
    a_previous: np.ndarray | None = None  # a of the step before, for the predictor
    potential: tuple | None = None  # (the forces' states at q, ``worked_potential`` there): the next V_n
    velocity_start: bool = False  # the next step's Newton starts from the second candidate (``predictor``)
    a_earlier: np.ndarray | None = None  # a of the step before a_previous's, for the predictor


class GeneralizedAlpha:
    """Stepper for one model and one dt (see the module docstring); ``active_rows`` selects the
    independent constraint rows, ``rho_inf`` the numerical dissipation."""

    def __init__(self, model, dt, active_rows=None, options=None, rho_inf=0.9):
        self.model, self.dt = model, dt
        self.options = options or NewtonOptions()
        self.rho_inf = float(rho_inf)
        self.alpha_m, self.alpha_f, self.gamma, self.beta = chung_hulbert(rho_inf)
        self.beta_p = (1.0 - self.alpha_m) / ((1.0 - self.alpha_f) * self.beta * dt**2)
        self.gamma_p = self.gamma / (self.beta * dt)
        self.system = system = SaddleSystem(model, active_rows)
        self.size = system.size
        self.scale = self.beta_p * system.mbar
        self._mass_values = system.newton_values(self.beta_p)  # the Newton matrix's mass entries
        self._varying = [system.forces[k] for k in system.varying]
        self.newton = Newton(self.options, system.lu, system.active, self.scale, system.servos)
        self.damped = damped_extrapolation(self.rho_inf)
        self._carry = None
        self._stop = QuadraticStop()
        self._consistent = None  # (t, q, v), states and the result of the last ``consistent``

    @property
    def factorisations(self):
        """Newton matrices factorised so far (``accelerations`` solves without them)."""
        return self.system.factorisations

    def state(self):
        """What the next steps depend on besides (q, v, lam) and the forces' states
        (``time_loop.Checkpoint``): Newton's state and its factorisation, the early stop's measured
        ratios, and the end of the last step (a, vd, multipliers, worked forces and the a of the step
        before, for the predictor); ``restore`` sets it, so the next step continues instead of
        starting afresh."""
        state = {**self.newton.state(), **self._stop.state()}
        c = self._carry
        if c is not None:
            state.update({"alpha.t": c.t, "alpha.q": c.q, "alpha.v": c.v, "alpha.a": c.a, "alpha.vd": c.vd,
                          "alpha.lam": c.lam, "alpha.force": c.force})
            if c.a_previous is not None:
                state["alpha.a_previous"] = c.a_previous
            if c.a_earlier is not None:
                state["alpha.a_earlier"] = c.a_earlier
            state["alpha.velocity_start"] = int(c.velocity_start)
        return state

    def restore(self, state):
        self.newton.restore(state)
        self._stop.restore(state)
        for name, value in state.items():  # read from a file: the compiled steps index them
            if name.startswith("alpha.") and name not in ("alpha.t", "alpha.velocity_start"):
                if np.shape(value) != ((self.model.m,) if name == "alpha.lam" else (self.model.n,)):
                    raise ValueError(f"{name} of shape {np.shape(value)} does not fit the model")
                if not np.isfinite(value).all():
                    raise ValueError(f"{name} is not finite")
        if "alpha.a_earlier" in state and "alpha.a_previous" not in state:  # a_n-2 is kept after a_n-1 only
            raise ValueError("alpha.a_earlier without alpha.a_previous")
        start = state.get("alpha.velocity_start", 0)  # absent in checkpoints of earlier versions: extrapolated
        if np.ndim(start) != 0 or start not in (0, 1):
            raise ValueError(f"alpha.velocity_start is {start!r}, not 0 or 1")
        if "alpha.t" in state:
            self._carry = _Carry(float(state["alpha.t"]), *(state[f"alpha.{k}"] for k in ("q", "v", "a", "vd", "lam", "force")),
                                 state.get("alpha.a_previous"), velocity_start=bool(start),
                                 a_earlier=state.get("alpha.a_earlier"))

    # --- forces ------------------------------------------------------------------------------
    def _forces(self, q, v, t, states, which, values=None):
        """The continuous forces F(q, v, t) (n,) of the forces ``which``; with ``values`` their Newton
        entries -(dF/dq + gamma' dF/dv) are added to that CSC data (``SaddleSystem.continuous_forces``)."""
        return self.system.continuous_forces(q, v, t, self.dt, states, which, values, self.gamma_p)

    def _constant_forces(self, q, t, states):
        system = self.system
        return system.applied(q, q, t, self.dt, states, system.constant)

    def _worked_forces(self, q, v, t, states, constant_forces, lam):
        """The forces whose work the trapezoidal rule takes, at (q, v, t): the constant ones, the
        non-conservative varying ones and the servo inputs (module docstring)."""
        system = self.system
        worked = system.varying_worked
        return system.worked_forces(constant_forces, lam, self._forces(q, v, t, states, worked) if worked else None)

    def _system(self, q, v, lam, t, inertia, constant_forces, servo_starts, states, tangents=True):
        """Residual and (with ``tangents``, else None) the Newton matrix's CSC data; ``lam`` holds all m
        multipliers."""
        system, dt = self.system, self.dt
        F, dF = [], []
        for f, k in zip(self._varying, system.varying):
            q_f, v_f = q[f.dofs], v[f.dofs]
            if tangents:
                F_f, dF_dq, dF_dv = f.continuous_tangents(q_f, v_f, t, dt, states[k])
                dF.append(dF_dq if dF_dv is None else dF_dq + self.gamma_p * dF_dv)
            else:
                F_f = f.continuous_force(q_f, v_f, t, dt, states[k])
            F.append(F_f)
        values = self._mass_values.copy() if tangents else None
        R = system.assemble(values, q, lam, servo_starts, self.beta_p, inertia, constant_forces, system.stacked(F),
                            system.stacked(dF), self.scale, 2.0, True)
        return R, values

    # --- start -------------------------------------------------------------------------------
    def consistent(self, t, q, v, states):
        """``SaddleSystem.consistent`` at (q, v, t) with the forces' ``states``, the last one kept: the
        time loop's first node and the first step's start ask for the same (``time_loop``); the first one
        gives the Newton matrices their first pivots (``KeptLU.start``)."""
        key = (t, q.tobytes(), v.tobytes())
        kept = self._consistent
        if kept is None or kept[0] != key or kept[1] is not states:
            kept = self._consistent = (key, states, self.system.consistent(t, q, v, states, self.dt, kept=True))
        return kept[2]

    def accelerations(self, t, q, v, states):
        """Consistent accelerations vd (n,) and multipliers lam (m,) at (q, v, t)
        (``consistent``); NewtonFailure where the system is singular."""
        system = self.system
        vd, lam = self.consistent(t, q, v, states)
        if not (np.all(np.isfinite(vd)) and np.all(np.isfinite(lam))):
            raise NewtonFailure(t, np.inf, 0, "no consistent initial accelerations (singular system)", system.servos)
        return vd, lam

    def start(self, t, q, v, states):
        """Starting values at (t, q, v): vd_0 = a_0 the consistent accelerations, lam_0 their
        multipliers (see the module docstring for why a_0 is not shifted to t + Delta h), and Newton's
        start q_n + h v_n for the first step (``predictor``)."""
        vd, lam = self.accelerations(t, q, v, states)
        force = self._worked_forces(q, v, t, states, self._constant_forces(q, t, states), lam)
        return _Carry(t, q.copy(), v.copy(), vd.copy(), vd, lam, force, velocity_start=True)

    def _continues(self, t, qa, va):
        c = self._carry
        # bytes compared: a third of np.array_equal's time, and (qa, va) are (q, v) of the last result
        return (c is not None and abs(c.t - t) <= 1e-9 * self.dt and qa.shape == c.q.shape
                and qa.tobytes() == c.q.tobytes() and va.tobytes() == c.v.tobytes())

    # --- step --------------------------------------------------------------------------------
    def _begin(self, t, qa, va, states):
        """What stays fixed over the Newton iteration of the step from t (see ``step``)."""
        if not self._continues(t, qa, va):
            self._carry = self.start(t, qa, va, states)
        start, h, t1 = self._carry, self.dt, t + self.dt
        q_known = qa + h * va + h * h * (0.5 - self.beta) * start.a  # qt: q_n+1 = qt + beta h^2 a_n+1
        c_n = (self.alpha_m * start.a - self.alpha_f * start.vd) / (1.0 - self.alpha_f)
        return dict(t1=t1, qa=qa, states=states, q_known=q_known,
                    v_known=va + h * (1.0 - self.gamma) * start.a,  # v_n+1 = this + gamma' (q_n+1 - qt)
                    inertia=self.system.mass_operator @ (self.beta_p * q_known - c_n),
                    constant_forces=self._constant_forces(qa, t1, states),
                    servo_starts=self.system.begin_step(qa, t1, midpoint=False))

    def _newton_system(self, step, qb, lam, tangents=True):
        """Residual and Newton matrix data (pattern order) at q_n+1 = qb with multipliers lam (m,)."""
        vb = step["v_known"] + self.gamma_p * (qb - step["q_known"])
        return self._system(qb, vb, lam, step["t1"], step["inertia"], step["constant_forces"],
                            step["servo_starts"], step["states"], tangents)

    def predictor(self, step):
        """Newton's start for the step ``step`` (``_begin``): of its two candidates -- q_n+1 with a_n+1
        extrapolated linearly from the last two steps' accelerations (a_n alone in the first step), and
        q_n+1 with a_n+1 from the last three by ``damped`` (q_n + h v_n where fewer are known) -- the one
        whose counterpart was the closer to the last step's solution (``_finish``; the second in the first
        step after a start, ``start``). Both are kept in ``step`` for that test (module docstring)."""
        c = self._carry
        a_guess = c.a if c.a_previous is None else 2.0 * c.a - c.a_previous
        if c.a_earlier is None:
            second = step["qa"] + self.dt * c.v
        else:
            d = self.damped
            second = step["q_known"] + self.beta * self.dt**2 * (d[0] * c.a + d[1] * c.a_previous + d[2] * c.a_earlier)
        step["candidates"] = candidates = (step["q_known"] + self.beta * self.dt**2 * a_guess, second)
        return candidates[1] if c.velocity_start else candidates[0]

    def step(self, t, qa, va, lam_guess, states):
        """One step from (t, qa, va) to t + dt; ``lam_guess`` (m,) starts Newton's iteration and
        ``states`` are the forces' internal states at t. Continues with a and vd of the last step if
        (t, qa, va) is its end, else starts afresh (``start``)."""
        step = self._begin(t, qa, va, states)
        lam = self.system.active_multipliers(lam_guess)
        stop = self._stop if self.options.early_stop else None
        if stop is not None:
            stop.begin_step()
        system, loop = self.system, None
        if system.compiled_residual:  # Gbar = G(q_n+1): no G(qa); the tangent of G^T lam twice the mid-point one
            loop = lambda: (self.beta_p, *system.mass_csr, self._mass_values, step["inertia"],  # noqa: E731
                            NONE, step["constant_forces"], NONE, self.scale, 2.0, *system.batch_arguments,
                            *system.loop_force(None, True, self.dt, (step["v_known"], step["q_known"], self.gamma_p),
                                              step["states"]),
                            system.loop_family(step["servo_starts"]),
                            system.loop_servo(step["servo_starts"]))
        qb, lam, iterations = self.newton.solve(lambda qb, lam, tangents: self._newton_system(step, qb, lam, tangents),
                                                self.predictor(step), lam, t + self.dt, stop, loop)
        return self._finish(step, qb, lam, iterations)

    def _finish(self, step, qb, lam, iterations):
        """a, v, vd at t + dt, the new force states, the step's work and dissipation."""
        system, dt, start = self.system, self.dt, self._carry
        qa, states, t1 = step["qa"], step["states"], step["t1"]
        a = (qb - step["q_known"]) / (self.beta * dt * dt)
        vb = step["v_known"] + self.gamma * dt * a
        vd = ((1.0 - self.alpha_m) * a + self.alpha_m * start.a - self.alpha_f * start.vd) / (1.0 - self.alpha_f)
        forces = system.forces
        new_states = system.advanced(None, qb, states)
        dissipation = 0.0
        for k in system.dissipative:
            f = forces[k]
            dissipation += float(np.sum(f.continuous_dissipation(qb[f.dofs], states[k], qa[f.dofs], start.v[f.dofs],
                                                                 vb[f.dofs], dt)))
        force = self._worked_forces(qb, vb, t1, states, step["constant_forces"], lam)
        known = start.potential is not None and start.potential[0] is states
        v_a = start.potential[1] if known else system.worked_potential(qa, states)
        v_b = system.worked_potential(qb, new_states)
        work = compiled(STEP_ENDS).step_work(start.force, force, qb, qa) + v_b - v_a  # in the compiled steps' order
        lam_start = start.lam
        extrapolated, second = step["candidates"]  # the next step's predictor: the closer one (``predictor``)
        closer = bool(np.abs(qb - second).max() < np.abs(qb - extrapolated).max())
        self._carry = _Carry(t1, qb.copy(), vb.copy(), a, vd, lam.copy(), force, start.a, (new_states, v_b), closer,
                             start.a_previous)
        return AlphaStepResult(qb, vb, lam, iterations, work, dissipation, new_states,
                               a=a, vd=vd, lam_start=lam_start)
