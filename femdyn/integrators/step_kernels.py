"""Compiled time steps (numba, cached on disk; imported where they run, ``numerics.lazy``): many
generalized-alpha or energy-momentum steps of a model whose Newton iteration is compiled whole
(``kernels.newton_loop``) in one call, the step's begin, Newton's iteration, the step's end and the
history's rows (``stepping``); the sums at a step's end that the interpreted steps share with them are
in ``step_ends``."""
import numpy as np

from ..numerics import klu
from ..numerics.compiled import kernel
from ..joints import angle_kernels as angles
from ..joints import kernels as joints
from . import kernels as newton
from .step_ends import forces_end, step_work, worked_potential


@kernel
def record(rows, r, qb, vb, its, lam_a, lam_b, mean, work_step, lost):
    """Row r + 1 of the chunk's arrays ``rows`` (Q, V, Lam, inputs, iterations, work, dissipation, the input
    rows; ``time_loop._Chunk.add``) after a step to (qb, vb) in ``its`` iterations with the multipliers
    lam_b: the step's servo inputs u = -lam_b (``mean``: generalized-alpha's -(lam_a + lam_b)/2 over the
    step from lam_a), the work ``work_step`` and the dissipation ``lost`` added to the row before's."""
    Q, V, Lam, inputs, iterations, work, dissipation, input_rows = rows
    Q[r + 1], V[r + 1], iterations[r + 1] = qb, vb, its
    for j in range(input_rows.size):
        k = input_rows[j]
        inputs[r, j] = -(0.5 * (lam_a[k] + lam_b[k])) if mean else -lam_b[k]
    Lam[r] = lam_b
    work[r + 1] = work[r] + work_step
    dissipation[r + 1] = dissipation[r] + lost


@kernel
def step_row(rows, k):
    """Step k's row of ``rows`` (a row per step of a call), or its one row where every step shares it."""
    return rows[k if rows.shape[0] > 1 else 0]


@kernel
def servo_rows(servos, k):
    """``kernels.newton_loop``'s ``servo`` of step k from a call's ``servos``: its a(t) and gamma(t) rows
    (``step_row``), the instances' data shared."""
    return (servos[0], step_row(servos[1], k), step_row(servos[2], k)) + servos[3:]


@kernel
def worked_forces(constant, servo, lam):
    """The forces whose work a step takes (``SaddleSystem.worked_forces``): the constant forces plus the
    servo inputs' B^T u, u = -lam, of the servo rows ``servo`` (``kernels.newton_loop``'s), summed as
    there (the inputs' forces in the order of their instances, as NumPy's ``bincount``); the constant
    forces themselves without servo rows."""
    dofs, rows = servo[3], servo[4]
    K = dofs.shape[0]
    if K == 0:
        return constant
    n = constant.size
    inputs = np.zeros(n)
    for k in range(K):
        inputs[dofs[k, dofs.shape[1] - 1]] += 1.0 * lam[rows[k]]
    total = np.empty(n)
    for i in range(n):
        total[i] = constant[i] + (0.0 - inputs[i])
    return total


@kernel
def alpha_steps(count, coefficients, head, tail, damper, friction, springs, family, servos, solver, stop, gravity,
                constants, carry, rows, row, ends):
    """Up to ``count`` generalized-alpha steps (``generalized_alpha.GeneralizedAlpha.step``) in one call,
    each as the interpreted step computes it: its begin (``_begin``: q~ = q_n + h v_n + h^2 (1/2 - beta)
    a_n, v~ = v_n + h (1 - gamma) a_n, the inertia M (beta' q~ - c_n), c_n = (alpha_m a_n - alpha_f
    vd_n) / (1 - alpha_f), the predictor q~ + beta h^2 (2 a_n - a_n-1) or the second candidate, the closer
    one in the step before (``GeneralizedAlpha.predictor``)), Newton's iteration
    (``kernels.newton_loop`` with ``head``, ``tail``, ``damper``, ``friction``, ``springs`` (as there), ``family``
    and ``solver``, its arguments around the step's own, and the step's servo rows from ``servos``:
    ``newton_loop``'s ``servo`` with a row of a(t), gamma(t) for each step; ``stop``: (on, safety, window, ratios,
    count, refresh, steps) of ``newton.QuadraticStop``), the step's end (``_finish``: a_n+1 = (q_n+1 - q~) / (beta
    h^2), v_n+1 = v~ + gamma h a_n+1, vd_n+1, the work ``step_work`` of the ``worked_forces`` plus V(q_n+1) -
    V(q_n), ``worked_potential`` of ``gravity``) and the chunk's row ``row`` + k + 1 (``rows``: Q, V, Lam, inputs,
    iterations, work, dissipation, the input rows; ``time_loop._Chunk``). The viscous damping, the joint friction
    and the spring-dampers of the Newton loop (``kernels.newton_loop``'s ``damper``, ``friction``, ``springs``,
    their continuous forms) at their coordinates ``ends[0]``: the damping and the springs take each step's v~ and q~
    there, their forces and losses enter the step's work and dissipation (``forces_end``), the friction's and the
    springs' potentials V(q_n+1) at their places ``ends[1]`` among the worked forces (``worked_potential``), and the
    friction's slip at each step's end goes into the friction's arguments (the next step's p_n) and the row of
    ``ends[2]`` (steps, instances).

    ``coefficients``: (h, h^2 (1/2 - beta), h (1 - gamma), alpha_m, alpha_f, 1 - alpha_m, 1 - alpha_f,
    beta', beta h^2, beta h h, gamma h, the tolerance, the round-off floor's factor, ``damped``), formed as the
    interpreted step forms them. ``carry``: (q_n, v_n, a_n, vd_n, a_n-1, known, a_n-2, known, the second
    predictor or not, lam_n, F_n, V(q_n)) of the step before; ``constants``: each step's constant forces
    (one row: the same in every step).

    A step whose Newton iteration ends other than converged, or whose (q, v) is not finite, is undone
    (the multipliers, the refinement pause and the early stop's record as before it) and the call
    returns before it, for the interpreted step to do it again with its messages. Returns (steps done,
    factorisations done, the values last factored, a, vd, a_n-1, a_n-2, whether a_n-2 is known, the next predictor's
    choice, lam, F, V) of the
    last step done. KLU's factorisation of a step's start is kept until the step is done (``solver``'s
    ``pivoting`` keeps it), and an undone step puts it back (``numerics.klu.undo``)."""
    h, c_known, c_velocity, alpha_m, alpha_f, c_m, c_f, beta_p, c_guess, c_a, c_v, tolerance, round_off, damped = \
        coefficients
    q, v, a, vd, a_before, known_before, a_earlier, known_earlier, use_second, lam, force, potential = carry
    on, safety, window, ratios, recorded, refresh, stop_steps = stop
    M_indptr, M_indices, M_data = head[1], head[2], head[3]
    active, refinement = solver[6], solver[8]
    n, m = q.size, lam.size
    at, slots, slips = ends
    damper_at, friction_at, spring_at = at
    nk = friction_at.size
    refactored = 0
    last = head[4]
    inertia, x = np.empty(n), np.empty(n)
    origin = np.zeros(0)  # none: the mass term M q_n+1 (``kernels.newton_loop``)
    q_known, v_known, extrapolated, second = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    saved, factors = np.empty(2), np.empty(6)
    done = 0
    while done < count:
        constant = step_row(constants, done)
        saved[:] = refinement
        klu.save(solver[3], solver[5], factors)
        kept = recorded[0]
        for i in range(n):
            q_known[i] = q[i] + h * v[i] + c_known * a[i]
            v_known[i] = v[i] + c_velocity * a[i]
            x[i] = beta_p * q_known[i] - (alpha_m * a[i] - alpha_f * vd[i]) / c_f
            extrapolated[i] = q_known[i] + c_guess * ((2.0 * a[i] - a_before[i]) if known_before else a[i])
            second[i] = q_known[i] + c_guess * (damped[0] * a[i] + damped[1] * a_before[i] + damped[2] *
                                                 a_earlier[i]) if known_earlier else q[i] + h * v[i]
        guess = second if use_second else extrapolated
        if damper is not None:  # the damper's and the springs' v~, q~
            for i in range(damper_at.size):
                damper[2][i], damper[3][i] = v_known[damper_at[i]], q_known[damper_at[i]]
        if springs is not None:
            for i in range(spring_at.size):
                springs[2][i], springs[3][i] = v_known[spring_at[i]], q_known[spring_at[i]]
        for i in range(n):
            acc = 0.0
            for k in range(M_indptr[i], M_indptr[i + 1]):
                acc += M_data[k] * x[M_indices[k]]
            inertia[i] = acc
        lam_b = np.zeros(m)
        for k in range(active.size):
            lam_b[active[k]] = lam[active[k]]
        measuring = recorded[0] == 0 or (stop_steps[0] + 1) % refresh == 0
        size = newton.largest(guess)
        size = size if size > 1.0 else 1.0
        bound = tolerance * size
        early = (on, measuring, safety, window, round_off * size, ratios, recorded)
        step_servo = servo_rows(servos, done)
        how, its, qb, increment, factored, values, R = newton.newton_loop(
            *head, inertia, origin, constant, *tail, damper, friction, springs, family, step_servo, guess, lam_b,
            bound, *solver, early)
        if how != newton.CONVERGED:
            break
        a_b, vb, vd_b = np.empty(n), np.empty(n), np.empty(n)
        finite = True
        for i in range(n):
            a_b[i] = (qb[i] - q_known[i]) / c_a
            vb[i] = v_known[i] + c_v * a_b[i]
            vd_b[i] = (c_m * a_b[i] + alpha_m * a[i] - alpha_f * vd[i]) / c_f
            if not (np.isfinite(qb[i]) and np.isfinite(vb[i])):
                finite = False
        if not finite:
            break
        off_extrapolated, off_second = 0.0, 0.0  # the candidates' distances to the solution: the next predictor
        for i in range(n):
            off_extrapolated = max(off_extrapolated, abs(qb[i] - extrapolated[i]))
            off_second = max(off_second, abs(qb[i] - second[i]))
        use_second = off_second < off_extrapolated
        base, lost, slip = constant, 0.0, np.empty(nk)
        if damper_at.size or nk or spring_at.size:
            base, lost = forces_end(damper, friction, springs, at, q, v, qb, vb, constant, slip)
        potential_b = worked_potential(qb, gravity, at, slip, friction, springs, slots)
        force_b = worked_forces(base, step_servo, lam_b)
        record(rows, row + done, qb, vb, its, lam, lam_b, True,
               step_work(force, force_b, qb, q) + potential_b - potential, lost)
        stop_steps[0] += 1
        refactored += factored
        if factored:
            last = values
        klu.free(solver[3], klu.KEPT)  # the step's start's factorisation, kept for an undo
        a_earlier, known_earlier, a_before, known_before = a_before, known_before, a, True
        q, v, a, vd, lam, force, potential = qb, vb, a_b, vd_b, lam_b, force_b, potential_b
        if friction is not None:
            friction[2][:] = slip  # the next step's slip p_n
        slips[done] = slip
        done += 1
    if done < count:  # the step not done: as before it
        refinement[:] = saved
        recorded[0] = kept
        klu.undo(solver[3], solver[5], factors)
    return done, refactored, last, a, vd, a_before, a_earlier, known_earlier, use_second, lam, force, potential


@kernel
def midpoint_steps(count, coefficients, head, tail, batch, force, damper, friction, springs, family, servos, solver,
                   stop, gravity, constants, carry, rows, row, ends):
    """Up to ``count`` energy-momentum steps (``energy_momentum.EnergyMomentum.step``) in one call, each
    as the interpreted step computes it: its begin (the predictor q_n + h v_n, Newton's start, the
    inertia 2/h M v_n with q_n the origin of the mass term (``energy_momentum``), G(q_n) of the batch,
    ``joints.kernels.jacobian`` with ``batch``: (the slots' g, the Hessians)), Newton's iteration
    (``kernels.newton_loop`` with ``head``, ``tail``,
    the varying forces' ``force`` -- where their tangents go, their coordinates and places, then the
    beams' element data after the start and ``known`` --, the damping's, the friction's and the springs'
    arguments ``damper``, ``friction``, ``springs`` (as there), each step's start q_a written into
    them, ``family``, the step's servo rows from ``servos``
    (``alpha_steps``), ``stop`` (none) and ``solver``), the step's end (``_finish``: v_n+1 = 2/h (q_n+1 -
    q_n) - v_n, the work ``step_work`` of the ``constants`` forces (``alpha_steps``; with the damping's, the
    friction's and the springs', ``ends`` as there) plus V(q_n+1) - V(q_n)) and the chunk's row ``row`` +
    k + 1 (``rows`` as ``alpha_steps``'). ``coefficients``: (h, 2/h, the tolerance); ``carry``: (q_n, v_n, lam_n,
    V(q_n)). ``family`` (``joints.angle.JointAngle.loop_arguments``, its start at the call's first q_n):
    each step gives it its own start, c, s and their gradients at q_n (``JointAngle.begin_step``,
    ``joints.angle_kernels.cos_sin``). A step that does not converge, or whose state is not finite, is undone
    and left to the interpreted step (``alpha_steps``). Returns (steps done, factorisations done, the values last
    factored, lam, V) of the last step done."""
    h, c_velocity, tolerance = coefficients
    q, v, lam, potential = carry
    g, H_indptr, H_indices, H_data = batch
    tangents, F_at, dF_at = force[0], force[1], force[2]
    at, slots, slips = ends
    damper_at, friction_at, spring_at = at
    nd, nk, ns = damper_at.size, friction_at.size, spring_at.size
    M_indptr, M_indices, M_data = head[1], head[2], head[3]
    active, refinement = solver[6], solver[8]
    n, m = q.size, lam.size
    refactored = 0
    last = head[4]
    guess, inertia = np.empty(n), np.empty(n)
    Qa = np.empty((1, F_at.size))
    angle_dofs = family[6]
    K, J = angle_dofs.shape[0], family[9].size
    local = np.empty((K, angle_dofs.shape[1]))
    saved, factors = np.empty(2), np.empty(6)
    done = 0
    while done < count:
        constant = step_row(constants, done)
        saved[:] = refinement
        klu.save(solver[3], solver[5], factors)
        step_family = family
        if K:  # the joint angles' start at q_n
            for k in range(K):
                for i in range(angle_dofs.shape[1]):
                    local[k, i] = q[angle_dofs[k, i]]
            c, s, grad_c, grad_s = np.empty(K), np.empty(K), np.empty((K, J)), np.empty((K, J))
            angles.cos_sin(local, family[8], family[9], c, s, grad_c, grad_s)
            step_family = (q, family[1], c, s, grad_c, grad_s) + family[6:]
        for i in range(n):
            guess[i] = q[i] + h * v[i]
        for i in range(n):
            acc = 0.0
            for k in range(M_indptr[i], M_indptr[i + 1]):
                acc += M_data[k] * v[M_indices[k]]
            inertia[i] = c_velocity * acc
        G_a = np.empty(g.size)
        joints.jacobian(q, g, H_indptr, H_indices, H_data, G_a)
        lam_b = np.zeros(m)
        for k in range(active.size):
            lam_b[active[k]] = lam[active[k]]
        for i in range(F_at.size):
            Qa[0, i] = q[F_at[i]]
        if damper is not None:  # the damper's, the friction's and the springs' start
            for i in range(nd):
                damper[1][i] = q[damper_at[i]]
        if friction is not None:
            for i in range(nk):
                friction[1][i] = q[friction_at[i]]
        if springs is not None:
            for i in range(ns):
                springs[1][i] = q[spring_at[i]]
        size = newton.largest(guess)
        size = size if size > 1.0 else 1.0
        step_servo = servo_rows(servos, done)
        how, its, qb, increment, factored, values, R = newton.newton_loop(
            *head, inertia, q, constant, G_a, *tail, tangents, F_at, dF_at, Qa, False, False, *force[3:], damper,
            friction, springs, step_family, step_servo, guess, lam_b, tolerance * size, *solver, stop)
        if how != newton.CONVERGED:
            break
        vb = np.empty(n)
        finite = True
        for i in range(n):
            vb[i] = c_velocity * (qb[i] - q[i]) - v[i]
            if not (np.isfinite(qb[i]) and np.isfinite(vb[i])):
                finite = False
        if not finite:
            break
        base, lost, slip = constant, 0.0, np.empty(nk)
        if nd or nk or ns:
            base, lost = forces_end(damper, friction, springs, at, q, v, qb, vb, constant, slip)
        potential_b = worked_potential(qb, gravity, at, slip, friction, springs, slots)
        worked = worked_forces(base, step_servo, lam_b)
        record(rows, row + done, qb, vb, its, lam, lam_b, False,
               step_work(worked, worked, qb, q) + potential_b - potential, lost)  # F . dq
        refactored += factored
        if factored:
            last = values
        klu.free(solver[3], klu.KEPT)  # the step's start's factorisation, kept for an undo
        q, v, lam, potential = qb, vb, lam_b, potential_b
        if friction is not None:
            friction[2][:] = slip
        slips[done] = slip
        done += 1
    if done < count:
        refinement[:] = saved
        klu.undo(solver[3], solver[5], factors)
    return done, refactored, last, lam, potential
