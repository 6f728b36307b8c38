"""Stable (non-causal) inversion of non-minimum-phase servo problems: the inputs over the whole horizon,
with pre- and post-actuation, that make the outputs of a flexible model follow their trajectories.

A servo problem whose zero dynamics are unstable (``zero_dynamics``: right-half-plane zeros +-sigma)
has a bounded inverse only if it is not solved forward in time: its bounded solution starts on the
unstable manifold of the initial equilibrium before the motion (pre-actuation) and ends on the stable
manifold of the final one after it (post-actuation). S. Devasia, D. Chen, B. Paden, Nonlinear
inversion-based output tracking, IEEE Trans. Automatic Control 41 (1996) 930-942, and D. Chen,
B. Paden, Stable inversion of nonlinear non-minimum phase systems, Int. J. Control 64 (1996) 81-97,
pose it as a two-point boundary-value problem of the internal dynamics; K. Seifried, Dynamics of
Underactuated Multibody Systems, Springer 2014, ch. 5, and G. Bastos, R. Seifried, O. Bruls, Inverse
dynamics of serial and parallel underactuated multibody systems using a DAE optimal control
approach, Multibody System Dynamics 30 (2013) 359-376, apply it to multibody servo constraints as a
boundary-value problem in time. This module does the latter with femdyn's own discretisation:

Unknowns: q_k, v_k at the nodes t_k = -pre + k dt, k = 0..N (t_N = T + post), and the scaled
multipliers mu_k = lam_k / s of each step (the servo rows' are the inputs u = -lam, 000 eq. 84).
Equations: for every step the energy-momentum step of ``energy_momentum`` (000 eqs. 5-7),

    s (q_k+1 - q_k - dt/2 (v_k + v_k+1)) = 0,
    2/dt^2 M (q_k+1 - q_k - dt v_k) - Fbar(q_k, q_k+1) + Gbar^T lam_k = 0,   s Phi(q_k+1, t_k+1) = 0,

the servo targets taken at min(max(t, 0), T): the outputs rest at their initial values before t = 0 and
at their final ones after T. Instead of an initial state, boundary conditions: Phi(q_0) = 0 and
G(q_0) v_0 = 0 at the start, and for the modes of the zero dynamics linearised at the start pose q_a
(modal amplitudes eta = P (q - q_a), ``ZeroDynamics.projection``): a real pair +-sigma has no stable
component at the start, sigma eta(q_0) - eta(v_0) = 0, and (linearised at the final pose q_b) no
unstable one at the end, sigma eta(q_N) + eta(v_N) = 0; an oscillatory (centre) mode starts at rest,
eta(q_0) = eta(v_0) = 0. So 2n conditions close the N (2n + m_a) step equations in the
(N + 1) 2n + N m_a unknowns.

All steps at once: one sparse nonlinear system, solved by Newton's method with a sparse direct solver
(SuperLU through ``scipy.sparse.linalg.splu``). The Jacobian is block-bidiagonal in time; each step's
blocks are the stepper's Newton matrix (``SaddleSystem``) for (q_k+1, mu_k) and, for (q_k, v_k),
-2/dt^2 M - 2/dt M and the stiffness part of the Newton matrix of the step with its ends swapped:
the discrete gradients Fbar(q_k, q_k+1), Gbar(q_k, q_k+1) are symmetric in their two arguments
(O. Gonzalez, J. Nonlinear Sci. 6 (1996) 449-467; 000 eqs. 5-7), so d/dq_k at (q_k, q_k+1) is d/dq_k+1
at (q_k+1, q_k). Only the velocity condition's d(G v_0)/dq_0 is left out (v_0 is small at rest).
Newton converges in 2-3 iterations from the sequence of static equilibria along the path (on the FEM
3-PRR at dt = 4 ms it diverged when d/dq_k was taken equal to d/dq_k+1, exact only for quadratic
constraints and linear forces).

The servo targets are clipped to rest before 0 and after T, so they must start and end at rest: a
target still moving at T (a path that ends at full speed) jumps in velocity there, an impulse that no
bounded input gives; the discrete inversion spreads it over the whole horizon as step-to-step
alternating inputs (the trapezoidal rule maps the stiff zeros, sigma dt >> 2, to amplification
factors near -1), growing like 1/dt^3 -- such targets are refused (``MovingTarget``).
"""
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..forces.time_functions import table
from .energy_momentum import EnergyMomentum
from .settings import SolverSettings
from .setup import prepare
from .statics import static_equilibrium
from .time_loop import simulate
from .zero_dynamics import servo_rows, zero_dynamics


class InversionError(RuntimeError):
    """A servo problem that the stable inversion cannot solve (the reason)."""


@dataclass
class Inversion:
    """A stable inversion: node times ``t`` (N + 1,) from -pre to T + post, states ``q``, ``v``
    (N + 1, n), the inputs ``inputs`` (N, inputs) of each step (at the mid-times ``t_mid``), all
    multipliers ``lam`` (N, m), Newton's ``iterations`` and the largest residual left ``residual``
    (of the scaled equations)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    inputs: np.ndarray
    lam: np.ndarray
    iterations: int
    residual: float

    @property
    def t_mid(self):
        return 0.5 * (self.t[1:] + self.t[:-1])

    def loads(self):
        """The inputs as load functions of a forward run's time t' = t - t_0 (it starts at t' = 0 from
        (q_0, v_0)): piecewise linear through the steps' mid-times, one per input coordinate."""
        return [table(self.t_mid - self.t[0], u) for u in self.inputs.T]


@dataclass
class ForwardCheck:
    """A closed-loop check of an inversion: the forward run's node times ``t`` (the inversion's time
    axis), the servo rows' residual ``error`` (nodes, inputs; metres for points, the polar servo's
    |x| sin of the angle error) and its largest value ``max_error``."""

    t: np.ndarray
    error: np.ndarray
    max_error: float
    results: object


def forward_check(setup, forward_model, inversion, t_end, dt=None):
    """Feed the inputs of ``inversion`` (of the servo problem of ``setup`` over [0, t_end]) to a forward
    run of ``forward_model`` -- the same model without servo rows, whose input coordinates carry the
    joint loads ``inversion.loads()`` -- from the inversion's first state with the energy-momentum
    scheme at ``dt`` (default the inversion's), and measure the servo rows' residual Phi_C(q(t), t)
    along it (the targets at min(max(t, 0), t_end), as in the inversion)."""
    dt = dt or float(inversion.t[1] - inversion.t[0])
    span = float(inversion.t[-1] - inversion.t[0])
    results = simulate(prepare(forward_model, inversion.q[0], inversion.v[0]), SolverSettings(dt, span))
    if not results.complete:
        raise InversionError(f"the forward run stopped: {results.message}")
    t = results.t + inversion.t[0]
    rows = setup.model.input_rows
    error = np.array([setup.model.phi(q, ts)[rows] for q, ts in zip(results.q, np.clip(t, 0.0, t_end))])
    return ForwardCheck(t, error, float(np.abs(error).max()), results)


def _boundary_rows(z, sign):
    """Modal boundary rows (rows for q and for v) of the zero dynamics ``z``: with s = sqrt(-omega^2),
    Re s > 0, a mode with a right-half-plane zero gives s P_i q + sign P_i v = 0 (sign -1: no stable
    component, +1: no unstable one), its real and imaginary parts for a complex pair of eigenvalues
    (one of each conjugate pair taken); with sign -1 a centre mode (omega^2 > 0) gives P_i q and P_i v."""
    omega2 = np.asarray(z.omega2, dtype=complex)
    P = np.asarray(z.projection, dtype=complex)
    s = np.sqrt(-omega2)
    Q, V = [], []
    for i in range(omega2.size):
        if z.unstable[i]:
            if omega2[i].imag < 0:
                continue  # its conjugate gives the same rows
            q_row, v_row = s[i] * P[i], sign * P[i]
            parts = (np.real,) if omega2[i].imag == 0 else (np.real, np.imag)
            Q += [part(q_row) for part in parts]
            V += [part(v_row) for part in parts]
        elif sign < 0:
            Q += [np.real(P[i]), np.zeros(P.shape[1])]
            V += [np.zeros(P.shape[1]), np.real(P[i])]
    return np.array(Q).reshape(-1, P.shape[1]), np.array(V).reshape(-1, P.shape[1])


def _solve(A, b):
    """A x = b by SuperLU in the natural (time) order of the block-bidiagonal A, its rows and columns
    equilibrated first (the rows of a step mix stiffness entries of 1e13 with unit ones), with one
    step of iterative refinement."""
    rows = 1.0 / np.maximum(abs(A).max(axis=1).toarray().ravel(), np.finfo(float).tiny)
    A = sp.diags(rows) @ A
    cols = 1.0 / np.maximum(abs(A).max(axis=0).toarray().ravel(), np.finfo(float).tiny)
    A = (A @ sp.diags(cols)).tocsc()
    b = rows * b
    try:
        lu = spla.splu(A, permc_spec="NATURAL")
    except RuntimeError as err:
        raise InversionError(f"singular space-time system ({err})") from None
    y = lu.solve(b)
    y += lu.solve(b - A @ y)
    return cols * y


REST = 1e-9  # largest target speed at t = 0 and T, relative to the largest along the path


class MovingTarget(InversionError):
    """Servo targets that do not rest at the start or the end of the path: ``servo`` (its name) moves
    at time ``t``."""

    def __init__(self, servo, t, rate):
        self.servo, self.t = servo, t
        super().__init__(
            f"the target of servo {servo} moves at t = {t:g} s (rate {rate:.3g}): the inversion holds it at rest "
            "before 0 and after t_end, so it would jump in velocity there, an impulse that no bounded input gives; "
            "let the path start and end at rest (e.g. a figure8 on a smooth_ramp angle with t2 and t3, t3 = t_end)")


def _require_rest(model, q, t_end, samples=200):
    """``MovingTarget`` unless the servo targets rest at t = 0 and at T = ``t_end``: each servo's rates
    |dPhi/dt| there at most ``REST`` times the largest of all at ``samples`` times along [0, T]."""
    rows = servo_rows(model)
    rates = np.abs([model.phi_time_derivative(q, t)[[r for _, r, _ in rows]] for t in np.linspace(0.0, t_end, samples)])
    for name in dict.fromkeys(label for label, _, _ in rows):
        mine = rates[:, [label == name for label, _, _ in rows]].max(axis=1)
        for t, rate in ((0.0, mine[0]), (t_end, mine[-1])):
            if rate > REST * rates.max():
                raise MovingTarget(name, t, rate)


def stable_inversion(setup, dt, t_end, pre, post, tolerance=1e-10, max_iterations=40):
    """The ``Inversion`` of the servo problem of ``setup`` (``setup.prepare``, at rest) over
    [-pre, t_end + post] in steps of dt (module docstring). Raises ``InversionError`` where the servo
    targets do not rest at 0 and t_end, the zero dynamics have massless directions, or Newton does not
    converge."""
    model = setup.model
    pre_steps, steps = int(round(pre / dt)), int(round((pre + t_end + post) / dt))
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    system = stepper.system
    n, active = model.n, system.active
    na = active.size
    s = stepper.scale
    mass = 2.0 / dt**2 * system.mass.tocsr()
    t = dt * (np.arange(steps + 1) - pre_steps)
    servo_time = np.clip(t, 0.0, t_end)

    _require_rest(model, setup.q0, t_end)
    # boundary rows from the zero dynamics at the start and end poses (static equilibria)
    start = static_equilibrium(setup, 0.0)
    end = static_equilibrium(setup, t_end)
    z_a = zero_dynamics(setup, start.q, 0.0, start.lam)
    z_b = zero_dynamics(setup, end.q, t_end, end.lam)
    if len(z_a.omega2) != n - na:
        raise InversionError(f"the zero dynamics have {n - na - len(z_a.omega2)} massless directions: not supported")
    Qa, Va = _boundary_rows(z_a, -1.0)
    Qb, Vb = _boundary_rows(z_b, +1.0)

    # initial guess: static equilibria along the path (the outputs at the servo times), v by differences
    q = np.empty((steps + 1, n))
    lam = np.zeros((steps, model.m))
    previous = start
    for k in range(steps + 1):
        if k and servo_time[k] == servo_time[k - 1]:
            q[k] = previous.q
        else:
            previous = static_equilibrium(replace(setup, q0=previous.q), servo_time[k])
            q[k] = previous.q
        if k:
            lam[k - 1] = previous.lam
    v = np.gradient(q, dt, axis=0)
    mu = lam[:, active] / s

    width = 2 * n + na
    size = steps * width + 2 * n
    base = np.arange(steps + 1) * width  # q_k at base, v_k at base + n, mu_k at base + 2n
    eye = sp.identity(n, format="csr")
    states = model.initial_states(q[0])
    iterations, residual = 0, np.inf
    for iterations in range(1, max_iterations + 1):
        blocks, R = [], []
        # start: s Phi(q_0), s dt G(q_0) v_0, modal rows
        G0 = model.jacobian(q[0], active, servo_time[0])
        R += [s * model.phi(q[0], servo_time[0])[active], s * dt * (G0 @ v[0]),
              s * (Qa @ (q[0] - start.q) + Va @ v[0])]
        row = 0
        blocks += [(row, 0, s * G0), (row + na, n, s * dt * G0),
                   (row + 2 * na, 0, s * sp.csr_matrix(Qa)), (row + 2 * na, n, s * sp.csr_matrix(Va))]
        row += 2 * na + Qa.shape[0]
        for k in range(steps):
            qa, qb, va, vb = q[k], q[k + 1], v[k], v[k + 1]
            t_mid = t[k] + 0.5 * dt
            full = np.zeros(model.m)
            full[active] = s * mu[k]
            inertia = stepper.inertia(va)
            constant = system.applied(qa, qa, t_mid, dt, states, system.constant)
            starts = system.begin_step(qa, servo_time[k + 1])
            Rk, data = stepper._system(qa, qb, full, t_mid, inertia, constant, starts, states)
            J = system.pattern.csc(data).tocsr()
            # d/dq_k of the symmetric discrete gradients: d/dq_k+1 with the step's ends swapped
            swapped = stepper._system(qb, qa, full, t_mid, inertia, constant, system.begin_step(qb, servo_time[k + 1]),
                                      states)[1]
            stiffness = system.pattern.csc(swapped).tocsr()[:n, :n] - mass
            R += [s * (qb - qa - 0.5 * dt * (va + vb)), Rk]
            blocks += [(row, base[k + 1], s * eye), (row, base[k], -s * eye),
                       (row, base[k] + n, -0.5 * dt * s * eye), (row, base[k + 1] + n, -0.5 * dt * s * eye)]
            row += n
            blocks += [(row, base[k + 1], J[:, :n]), (row, base[k] + 2 * n, J[:, n:]),
                       (row, base[k], -mass + stiffness), (row, base[k] + n, -dt * mass)]
            row += n + na
        R.append(s * (Qb @ (q[-1] - end.q) + Vb @ v[-1]))
        blocks += [(row, base[-1], s * sp.csr_matrix(Qb)), (row, base[-1] + n, s * sp.csr_matrix(Vb))]
        R = np.concatenate(R)
        if R.size != size:
            raise InversionError(f"{R.size} equations for {size} unknowns: the zero dynamics' modes do not "
                                 "match the degrees of freedom")
        residual = float(np.abs(R).max())
        if not np.isfinite(residual):
            raise InversionError(f"Newton diverged in iteration {iterations} (the residual is not finite)")
        rows, cols, vals = [], [], []
        for r0, c0, block in blocks:
            block = block.tocoo()
            rows.append(block.row + r0)
            cols.append(block.col + c0)
            vals.append(block.data)
        A = sp.csc_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(size, size))
        dx = _solve(A, -R)
        nodes = np.concatenate([dx[: steps * width].reshape(steps, width), np.pad(dx[steps * width:], (0, na))[None]])
        q += nodes[:, :n]
        v += nodes[:, n : 2 * n]
        mu += nodes[:-1, 2 * n :]
        increment = np.abs(nodes[:, :n]).max()
        if increment <= tolerance * max(1.0, np.abs(q).max()):
            break
    else:
        raise InversionError(f"Newton did not converge in {max_iterations} iterations (last increment "
                             f"{increment:.3g}, residual {residual:.3g})")
    lam = np.zeros((steps, model.m))
    lam[:, active] = s * mu
    return Inversion(t, q, v, -lam[:, model.input_rows], lam, iterations, residual)
