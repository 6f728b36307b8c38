"""Compiled kernels of Newton's iteration (numba, cached on disk; imported where they run,
``numerics.lazy``)."""
import numpy as np

from ..beam.world import kernels as beams
from ..forces import friction_kernels as friction_
from ..forces import spring_kernels as springs_
from ..forces import viscous_kernels as viscous
from ..joints import angle_kernels as angles
from ..joints import kernels as batch
from ..joints import servo_kernels as servos
from ..numerics import klu
from ..numerics.compiled import kernel


@kernel
def update(qb, lam, dx, active, scale):
    """The Newton update of the unknowns (q_n+1, lam/s) by dx = (dq, dmu): returns q_n+1 + dq (a new
    array) and |dq|_inf, and adds ``scale`` dmu to lam at the ``active`` rows in place."""
    n = qb.size
    q = np.empty(n)
    increment = 0.0
    for i in range(n):
        q[i] = qb[i] + dx[i]
        size = abs(dx[i])
        if size > increment or size != size:  # a NaN increment stays NaN, as NumPy's max
            increment = size
    for k in range(active.size):
        lam[active[k]] += scale * dx[n + k]
    return q, increment


@kernel
def solve(handles, R):
    """The Newton increment dx = -A^-1 R (a new array) of the factorisation ``handles`` (the addresses
    of ``linalg.FixedPatternLU.handles``)."""
    return klu.solve(handles[0], handles[1], handles[2], R, -1.0)


@kernel
def solve_update(handles, R, qb, lam, active, scale):
    """``update`` by the Newton increment ``solve(handles, R)`` in one call."""
    return update(qb, lam, solve(handles, R), active, scale)


# where ``assemble`` adds the forces' tangents to the Newton matrix: before the batch's entries, after
# them, or not at all (the caller adds them after the families outside the batch)
TANGENTS_FIRST, TANGENTS_LAST, TANGENTS_LATER = 0, 1, 2


@kernel
def assemble(R, values, qb, lam, Mq, mass_factor, inertia, constant, F, F_at, F_bounds, dF, dF_at, tangents, G_a,
             scale, tangent, at, G, g, c, slot_row, slot_col, G_indptr, H_indptr, H_indices, H_data, T_indptr,
             T_indices, T_data, keep, phi_rows, phi_at):
    """The Newton iteration's residual and matrix data but for the constraint families outside the
    batch (``saddle.SaddleSystem.assemble``):

        R[:n] = mass_factor Mq - inertia - constant - F

    with F the varying forces' values summed at their coordinates ``F_at``, force by force (the entries
    from ``F_bounds[k]`` to ``F_bounds[k + 1]``), then the batch's part (``joints.kernels.residual``:
    scale phi, Gbar^T lam and, unless ``at`` is empty, its Newton entries) and, unless ``values`` is
    empty (the residual only), the forces' tangents -dF added to the CSC data ``values`` at ``dF_at``
    before or after the batch's entries (``tangents``). Every sum is formed in the order of the
    NumPy expressions it replaces (``SaddleSystem.applied``, ``constrain``, ``add_tangent``), so the
    numbers are theirs bit for bit."""
    n = Mq.size
    applied = np.zeros(n)
    part = np.empty(n)
    for k in range(F_bounds.size - 1):
        part[:] = 0.0
        for i in range(F_bounds[k], F_bounds[k + 1]):
            part[F_at[i]] += F[i]
        for j in range(n):
            applied[j] += part[j]
    for j in range(n):
        R[j] = mass_factor * Mq[j] - inertia[j] - constant[j] - applied[j]
    if values.size and tangents == TANGENTS_FIRST:
        for i in range(dF_at.size):
            values[dF_at[i]] += -1.0 * dF[i]
    batch.residual(qb, G_a, lam, scale, tangent, R, values, at, G, g, c, slot_row, slot_col, G_indptr, H_indptr,
                   H_indices, H_data, T_indptr, T_indices, T_data, keep, phi_rows, phi_at)
    if values.size and tangents == TANGENTS_LAST:
        for i in range(dF_at.size):
            values[dF_at[i]] += -1.0 * dF[i]


@kernel
def converged(increment, previous, bound):
    """``newton.newton_converged`` with ``previous`` < 0 for none (the first iteration)."""
    if increment <= bound:
        return True
    if previous < 0.0 or increment >= previous:
        return False
    theta = increment / previous
    return theta / (1.0 - theta) * increment <= bound


@kernel
def largest(x):
    """max |x_i|, NaN if any entry is NaN (as NumPy's max)."""
    size = 0.0
    for i in range(x.size):
        a = abs(x[i])
        if a > size or a != a:
            size = a
    return size


@kernel
def first_solve(handles, R, bound, refinement, steps, pause, Ap, Ai, values):
    """``newton.Newton._first_solve``: x = -A^-1 R with the factorisation ``handles`` of the CSC matrix
    A (``Ap``, ``Ai``, ``values``), improved by ``steps`` of fixed-precision iterative refinement
    x += A^-1 (b - A x), b = -R (``numerics.klu.refine``), unless the refinement is paused:
    ``refinement`` = (first solves left unrefined, relative error of the last refinement), updated in
    place -- unrefined while that error times max|x| stays below 1e-3 ``bound``; a refinement whose
    last correction is below that pauses it for ``pause`` first solves."""
    x = solve(handles, R)
    if refinement[0] > 0 and refinement[1] * largest(x) <= 1e-3 * bound:
        refinement[0] -= 1
        return x
    correction = klu.refine(handles[0], handles[1], handles[2], Ap, Ai, values, -R, x, steps)
    size = largest(x)
    refinement[1] = correction / size if size != 0.0 else 0.0
    refinement[0] = pause if correction <= 1e-3 * bound else 0
    return x


@kernel
def refactor_solve(Ap, Ai, values, handles, rcond, pivoting, R, qb, lam, active, scale, first, bound, refinement,
                   steps, pause):
    """KLU's factorisation of the CSC matrix (``Ap``, ``Ai``, ``values``): refactorised with the kept pivots
    where KLU accepts, else with pivots chosen anew (``numerics.klu.factor`` with ``handles``, ``rcond``,
    ``pivoting``: ``linalg.FixedPatternLU.factor``), then the Newton update by -A^-1 R: ``first_solve`` if
    ``first``, else the plain solve. Returns (factored, q_n+1, |dq|_inf); (False, qb, -1) where the matrix is
    singular."""
    if klu.factor(Ap, Ai, values, handles, rcond, pivoting) == klu.SINGULAR:
        return False, qb, -1.0
    if first:
        q, increment = update(qb, lam, first_solve(handles, R, bound, refinement, steps, pause, Ap, Ai, values),
                              active, scale)
    else:
        q, increment = solve_update(handles, R, qb, lam, active, scale)
    return True, q, increment


@kernel
def early_stop(increment, previous, bound, stop):
    """``newton.QuadraticStop.converged`` of the increment ``increment`` after ``previous`` (< 0: none)
    with ``stop`` = (whether it is on, whether the step is measuring, safety, window, the round-off
    floor, the ratios (the last ``count[0]`` measured, oldest first, room for the step's own),
    count): records the ratio increment / previous^2 and tests as there, max over the window in the
    order of Python's ``max``."""
    on, measuring, safety, window, floor, ratios, count = stop
    if not on:
        return False
    if not previous <= 0.0 and increment > floor:  # Python's truth of previous: not None, not 0
        ratios[count[0]] = increment / (previous * previous)
        count[0] += 1
    if increment <= bound:
        return True
    if measuring:
        return False
    k = max(0, count[0] - window)
    top = ratios[k]
    for i in range(k + 1, count[0]):
        if ratios[i] > top:
            top = ratios[i]
    return safety * top * (increment * increment) <= bound


# how ``newton_loop`` ends: converged, or back to the interpreter at the start of an iteration that it
# cannot do (a singular Newton matrix; a residual not finite) or without convergence within the iteration limit
CONVERGED, SINGULAR, NOT_FINITE, LIMIT = 0, 1, 2, 3


@kernel
def newton_loop(mass_factor, M_indptr, M_indices, M_data, mass_values, inertia, origin, constant, G_a, scale, tangent,
                at, G, g, c, slot_row, slot_col, G_indptr, H_indptr, H_indices, H_data, T_indptr, T_indices, T_data,
                keep, phi_rows, phi_at, tangents, F_at, dF_at, Qa, same, known, dim, index, R_e, t_e, beta, lam_e,
                gamma, C_e, k_e, start, start_grad, damper, friction, springs, family, servo, qb, lam, bound,
                max_iterations, Ap, Ai, handles, rcond, pivoting, active, newton_scale, refinement, steps, pause,
                modified, refresh, stop):
    """Newton's iteration, full or (``modified``) simplified, for a step of a model whose residual is all compiled --
    the mass, the constant forces, the quadratic batch and the varying forces below, the world beams'
    elasticity, damping, friction and springs (no others, no families but those below): per iteration the beams' force
    and tangent
    (``beam.world.kernels.step`` at the beams' coordinates ``F_at`` of qb, from their start ``Qa`` (1,
    F_at.size) or, with ``same``, the continuous forms at qb; ``known``: the strains at Qa are in
    ``start``/``start_grad`` already; the element data ``dim`` .. ``k_e`` as there; none where ``F_at`` is
    empty; ``dim`` None for a model without beams), the bodies' viscous damping after them (``damper``:
    ``forces.viscous_kernels.loop``, the last of ``F_at`` and ``dF_at`` its coordinates and places; None for
    none), joint friction after it
    (``friction``: ``forces.friction_kernels.loop``, one coordinate and one tangent entry per instance, the
    last of ``F_at``, ``dF_at``; None for none), spring-dampers after it (``springs``:
    ``forces.spring_kernels.loop``, likewise; the three None where a model has none of them, else each its
    force's or, for an absent one, one of no instances, which runs nothing (``SaddleSystem.loop_force``): a None
    force is typed ``none``, and numba prunes its branches before typing, so that a model without them compiles
    none of their code, and every model with any of them shares one machine code),
    ``assemble`` (M (qb - ``origin``) from M's CSR arrays, ``origin``
    the step's start for the energy-momentum scheme, empty for generalized-alpha: M qb, ``SaddleSystem.assemble``'s
    qa; the forces' tangents at ``dF_at``, before or after the batch's entries or after the family's
    (``tangents``); ``G_a``, ``scale`` and ``tangent`` as there), at most
    one family of joint angles (``family``: ``joints.angle.JointAngle.loop_arguments``, its ``contribute``; none
    where it has no instances), the servo rows as one family (``servo``: ``joints.servo.LoopServos.loop_arguments``
    of one or more servo families, their ``contribute``, before or after the joint angles as ``servo[0]``
    says; none where it has no instances), ``refactor_solve`` (KLU's refactorisation, or the factorisation with
    pivots chosen anew where KLU refuses it, ``pivoting`` as there; ``first_solve`` in the first iteration)
    and the stopping tests: ``early_stop`` with ``stop`` (``newton.QuadraticStop``), then
    ``converged`` -- the iteration of ``newton.Newton.solve`` over ``saddle.SaddleSystem.assemble`` without a
    return to the interpreter, the same numbers bit for bit. With ``modified`` the iterations after the first
    evaluate the residual alone (no tangents, no matrix entries) and solve with the step's factorisation while
    each increment is at most ``refresh`` times the one before; after one that is not the matrix is assembled
    and refactorised again at the next iterate, and an increment no smaller than the one before is dropped (q
    and lam as before it) and the matrix made anew at the iterate it started from. ``lam`` (m,) is updated in
    place, and so is ``stop``'s record of ratios. Returns (how it ended, the iteration it ended in, qb, the last
    increment or -1, factorisations done (either kind: ``pivoting``'s counts tell them apart), the last values
    factored, the last residual)."""
    n = qb.size
    size = n + active.size  # the unknowns: q_n+1, then the active rows' multipliers
    previous = -1.0
    count = 0
    last = mass_values
    R = np.zeros(0)
    Mq = np.empty(n)
    # no such forces: None, their branches pruned before typing; an absent one of a set: zero instances
    nd, nv, nk, ns, nsv = 0, 0, 0, 0, 0
    if damper is not None:
        nd, nv = viscous.sizes(damper)  # the damper's coordinates and tangent entries, after the beams'
    if friction is not None:
        nk = friction[2].size  # the friction instances, after them
    if springs is not None:
        ns = springs[6].shape[0] * springs[6].shape[2]  # the springs' coordinates, after them
        nsv = springs[6].shape[0] * springs[10].size  # and their tangent entries
    nf, nt = F_at.size - nd - nk - ns, dF_at.size - nv - nk - nsv  # the beams'
    Qb, F, dF = np.empty((1, nf)), np.zeros((1, nf)), np.zeros((1, nt))
    F_bounds = np.zeros(1 + (nf > 0) + (nd > 0) + (nk > 0) + (ns > 0), np.int64)  # where each force's values begin
    j = 0
    for entries in (nf, nd, nk, ns):
        if entries:
            j += 1
            F_bounds[j] = F_bounds[j - 1] + entries
    forces, tangents_all = F[0], dF[0]  # all varying forces' values and tangents, in ``F_at``, ``dF_at`` order
    if nd or nk or ns:
        forces, tangents_all = np.zeros(F_at.size), np.zeros(dF_at.size)
    slip = np.empty(nk)
    # the residual alone (a simplified iteration): no tangent, no values, no places
    no_dF, no_values, no_at = np.zeros((1, 0)), np.zeros(0), at[:0]
    no_T_at = np.empty((0, family[16].shape[1]), np.int64)
    no_servo_at = np.empty((0, 0), np.int64)
    servo_first, servo_last = servo[0] and servo[3].shape[0] > 0, not servo[0] and servo[3].shape[0] > 0
    fresh = True
    for it in range(1, max_iterations + 1):
        if dim is not None and nf:  # no beams: None (``beam.world.elasticity.NO_STEP``), pruned as the forces below
            for i in range(nf):
                Qb[0, i] = qb[F_at[i]]
            tangent_e = dF if fresh else no_dF
            beams.step(Qb if same else Qa, Qb, same, dim, index, R_e, t_e, beta, lam_e, gamma, C_e, k_e, F,
                       tangent_e, start, start_grad, known)
            known = True
        if nd or nk or ns:
            forces[:nf] = F[0]
            if fresh:
                tangents_all[:nt] = dF[0]
        if damper is not None and nd:
            viscous.loop(damper, qb, F_at[nf : nf + nd], forces[nf : nf + nd],
                         tangents_all[nt : nt + nv] if fresh else no_dF[0])
        if friction is not None and nk:  # its derivative: one value, written in every iteration (used where ``fresh``)
            friction_.loop(friction, qb, F_at[nf + nd : nf + nd + nk], forces[nf + nd : nf + nd + nk],
                           tangents_all[nt + nv : nt + nv + nk], slip)
        if springs is not None and ns:
            springs_.loop(springs, qb, F_at[nf + nd + nk :], forces[nf + nd + nk :],
                          tangents_all[nt + nv + nk :] if fresh else no_dF[0])
        for i in range(n):
            acc = 0.0
            if origin.size:
                for k in range(M_indptr[i], M_indptr[i + 1]):
                    acc += M_data[k] * (qb[M_indices[k]] - origin[M_indices[k]])
            else:
                for k in range(M_indptr[i], M_indptr[i + 1]):
                    acc += M_data[k] * qb[M_indices[k]]
            Mq[i] = acc
        values = mass_values.copy() if fresh else no_values
        places = at if fresh else no_at
        T_at = family[16] if fresh else no_T_at
        servo_F_at = servo[6] if fresh else no_servo_at
        servo_G_at = servo[7] if fresh else no_servo_at
        R = np.empty(size)
        assemble(R, values, qb, lam, Mq, mass_factor, inertia, constant, forces, F_at, F_bounds, tangents_all, dF_at,
                 tangents, G_a, scale, tangent, places, G, g, c, slot_row, slot_col, G_indptr, H_indptr, H_indices,
                 H_data, T_indptr, T_indices, T_data, keep, phi_rows, phi_at)
        if servo_first:
            servos.contribute(qb, servo[1], servo[2], lam, scale, R, values, servo[3], servo[4], servo[5], servo_F_at,
                              servo_G_at)
        if family[6].shape[0]:
            angles.contribute(qb if family[1] else family[0], qb, family[1], family[2], family[3], family[4],
                              family[5], lam, scale, tangent, R, values, family[6], family[7], family[8], family[9],
                              family[10], family[11], family[12], family[13], family[14], family[15], T_at,
                              family[17], family[18])
        if servo_last:
            servos.contribute(qb, servo[1], servo[2], lam, scale, R, values, servo[3], servo[4], servo[5], servo_F_at,
                              servo_G_at)
        if fresh and tangents == TANGENTS_LATER:
            for i in range(dF_at.size):
                values[dF_at[i]] += -1.0 * tangents_all[i]
        square = 0.0
        for i in range(size):
            square += R[i] * R[i]
        if not np.isfinite(square):
            return NOT_FINITE, it, qb, previous, count, last, R
        if fresh:
            ok, q, increment = refactor_solve(Ap, Ai, values, handles, rcond, pivoting, R, qb, lam, active,
                                              newton_scale, it == 1, bound, refinement, steps, pause)
            if not ok:
                return SINGULAR, it, qb, previous, count, last, R
            count += 1
            last = values
        else:
            kept = lam.copy()
            q, increment = solve_update(handles, R, qb, lam, active, newton_scale)
            if not increment < previous:  # no contraction: the iterate is dropped, the matrix made anew here
                lam[:] = kept
                fresh = True
                continue
        qb = q
        if early_stop(increment, previous, bound, stop) or increment <= bound or \
                (fresh and converged(increment, previous, bound)):
            return CONVERGED, it, qb, increment, count, last, R
        if modified:
            fresh = previous >= 0.0 and increment > refresh * previous
        previous = increment
    return LIMIT, max_iterations, qb, previous, count, last, R
