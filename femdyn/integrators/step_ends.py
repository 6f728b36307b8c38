"""What the interpreted and the compiled steps sum alike at a step's end (numba, cached on disk): NumPy's
pairwise summation (``pairwise_sum``), the work of the forces over a step (``step_work``), gravity's and the
loop forces' potential (``gravity_potential``, ``worked_potential``) and the end of a step of the forces that
the Newton loop evaluates itself (``forces_end``), so that both give the same numbers bit for bit
(``step_kernels``, ``stepping``)."""
import numpy as np

from ..forces import friction_kernels as friction_
from ..forces import spring_kernels as springs_
from ..forces import viscous_kernels as viscous
from ..forces.base import DISCRETE
from ..numerics.compiled import kernel

# NumPy's pairwise summation: blocks of at most this many entries are summed with 8 partial sums
PAIRWISE_BLOCK = 128


@kernel
def _block(x, first, count):
    """``pairwise_sum`` of at most ``PAIRWISE_BLOCK`` entries."""
    if count < 8:
        total = 0.0
        for i in range(first, first + count):
            total += x[i]
        return total
    r = x[first : first + 8].copy()
    i = 8
    while i < count - count % 8:
        for j in range(8):
            r[j] += x[first + i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < count:
        total += x[first + i]
        i += 1
    return total


@kernel
def pairwise_sum(x, first, count):
    """The sum of x[first : first + count] in the order of NumPy's ``np.add.reduce`` of a contiguous
    array (NumPy's pairwise summation, [Harris2020] in docs/references.md: ``pairwise_sum`` of
    numpy/_core/src/umath/loops_utils.h.src): fewer than 8 entries one by one,
    up to ``PAIRWISE_BLOCK`` in 8 interleaved partial sums combined as ((r0 + r1) + (r2 + r3)) +
    ((r4 + r5) + (r6 + r7)) and the rest added one by one, larger ranges split in two halves (the
    first a multiple of 8) summed so and added, left + right. The recursion is run on a stack
    (numba's cache does not load recursive kernels)."""
    if count <= PAIRWISE_BLOCK:
        return _block(x, first, count)
    # ranges still to sum (a negative size: add the two sums on top of ``sums``), and the sums made
    starts, sizes = np.empty(192, np.int64), np.empty(192, np.int64)
    sums = np.empty(64)
    starts[0], sizes[0] = first, count
    top, made = 1, 0
    while top:
        top -= 1
        begin, size = starts[top], sizes[top]
        if size < 0:
            made -= 1
            sums[made - 1] = sums[made - 1] + sums[made]
        elif size <= PAIRWISE_BLOCK:
            sums[made] = _block(x, begin, size)
            made += 1
        else:
            half = size // 2
            half -= half % 8
            starts[top], sizes[top] = 0, -1  # then left + right
            starts[top + 1], sizes[top + 1] = begin + half, size - half  # the right half second
            starts[top + 2], sizes[top + 2] = begin, half  # the left half first
            top += 3
    return sums[0]


@kernel
def step_work(force_a, force_b, qb, qa):
    """The trapezoidal work 1/2 (F_a + F_b) . (q_b - q_a) of a generalized-alpha step, the products
    summed pairwise (``pairwise_sum``): one order for the interpreted and the compiled steps."""
    terms = np.empty(qb.size)
    for i in range(qb.size):
        terms[i] = 0.5 * (force_a[i] + force_b[i]) * (qb[i] - qa[i])
    return 0.0 + pairwise_sum(terms, 0, terms.size)


@kernel
def gravity_potential(q, weights, dofs, bounds):
    """The potential sum_k -w_k . q[dofs_k] of gravity forces k (the entries ``bounds[k]`` to
    ``bounds[k + 1]`` of ``weights`` and ``dofs``; none: a load without potential, 0), as
    ``SaddleSystem.worked_potential`` sums ``forces.loads.Gravity.potential`` and ``Force.potential``:
    each force's products summed as NumPy's ``sum``."""
    total = 0.0
    for k in range(bounds.size - 1):
        count = bounds[k + 1] - bounds[k]
        if count == 0:
            total += 0.0
            continue
        products = np.empty(count)
        for i in range(count):
            products[i] = weights[bounds[k] + i] * q[dofs[bounds[k] + i]]
        total += -(0.0 + pairwise_sum(products, 0, count))
    return total


@kernel
def _scattered(applied, force, at):
    """applied += the values ``force`` summed at the coordinates ``at`` (``SaddleSystem.scatter``, NumPy's
    ``bincount``, then ``applied``'s ``+=``)."""
    scattered = np.zeros(applied.size)
    for i in range(at.size):
        scattered[at[i]] += force[i]
    for i in range(applied.size):
        applied[i] = applied[i] + scattered[i]


@kernel
def forces_end(damper, friction, springs, at, qa, va, qb, vb, constant, slip):
    """The end of a step from (qa, va) to (qb, vb) of the viscous damping, the joint friction and the
    spring-dampers of the Newton loop (``kernels.newton_loop``'s ``damper``, ``friction`` and ``springs``,
    None where the model has none, zero instances of an absent one of them; their forms the stepper's: their
    q_a and the friction's slip p_n those of the step's start) at their coordinates ``at``: the constant forces
    plus their forces, the friction's new slip into ``slip``, and the step's dissipation, each summed as the
    interpreted step sums it. The energy-momentum step
    (``EnergyMomentum._finish``): their forces Fbar(q_a, q_b) (``SaddleSystem.applied`` of the worked
    varying forces, ``worked_forces``), the damping's loss dt e'^T D e' (``ViscousDamping.dissipation``),
    the friction's return map's slip and loss F_max |p_b - p_n| (``Friction.advance``, ``dissipation``; a
    spring-damper's loss is inside its work, ``SpringDamper``); generalized-alpha's
    (``GeneralizedAlpha._finish``): their continuous forces at the step's end, the damping's trapezoidal
    loss (``continuous_dissipation``), the backward-Euler slip and its loss."""
    damper_at, friction_at, spring_at = at
    nd, nk, ns = damper_at.size, friction_at.size, spring_at.size
    applied = np.zeros(constant.size)
    lost = 0.0
    # no forces (None): pruned before typing; one of no instances (``SaddleSystem.loop_force``): nothing to add
    if damper is not None and nd:
        q_b, force = np.empty(nd), np.empty(nd)
        for i in range(nd):
            q_b[i] = qb[damper_at[i]]
        if damper[0] == DISCRETE:
            dt = damper[5]
            rates = np.empty(damper[6].size - 1)
            viscous.step(damper[1], q_b, dt, *damper[6:], force, np.empty(viscous.sizes(damper)[1]), rates)
            loss = viscous.dissipation(rates, damper[11], damper[12], damper[13], dt)
        else:
            q_a, v_a, v_b, force_a, none = np.empty(nd), np.empty(nd), np.empty(nd), np.empty(nd), np.empty(0)
            for i in range(nd):
                q_a[i], v_a[i], v_b[i] = qa[damper_at[i]], va[damper_at[i]], vb[damper_at[i]]
            viscous.continuous(q_a, v_a, *damper[6:], force_a, none, none)
            viscous.continuous(q_b, v_b, *damper[6:], force, none, none)
            loss = viscous.work_rate(force_a, force, q_a, q_b)
        _scattered(applied, force, damper_at)
        lost += loss
    if friction is not None and nk:
        force = np.empty(nk)
        friction_.loop(friction, qb, friction_at, force, np.empty(nk), slip)
        _scattered(applied, force, friction_at)
        lost += pairwise_sum(friction_.losses(friction[2], slip, friction[4]), 0, nk)
    if springs is not None and ns:
        D, stiffness, damping, free_length = springs[6], springs[7], springs[8], springs[9]
        K, n = D.shape[0], D.shape[2]
        Qb, F, none = np.empty((K, n)), np.empty((K, n)), np.empty((0, 0, 0))
        for i in range(ns):
            Qb[i // n, i % n] = qb[spring_at[i]]
        if springs[0] == DISCRETE:
            springs_.discrete(springs[1].reshape((K, n)), Qb, springs[5], D, stiffness, damping, free_length, F,
                              none)
        else:
            Vb = np.empty((K, n))
            for i in range(ns):
                Vb[i // n, i % n] = vb[spring_at[i]]
            springs_.continuous(Qb, Vb, D, stiffness, damping, free_length, F, none, none)
        _scattered(applied, F.ravel(), spring_at)
    total = np.empty(constant.size)
    for i in range(constant.size):
        total[i] = constant[i] + applied[i]
    return total, lost


@kernel
def worked_potential(q, gravity, at, slip, friction, springs, slots):
    """``SaddleSystem.worked_potential``: ``gravity_potential`` of ``gravity`` with, at their places
    ``slots`` among the worked forces (< 0: none), the friction's potential sum_k E_k/2 (q_k - p_k)^2
    (``Friction.potential``; the slip p ``slip``, ``friction``'s E) and the spring-dampers' sum k/2
    (l - l0)^2
    (``SpringDamper.potential``; ``springs``' D, k, l0) at their coordinates ``at`` (the damping's, the
    friction's, the springs'; None or zero instances where absent, ``kernels.newton_loop``)."""
    weights, dofs, bounds = gravity
    friction_slot, spring_slot = slots
    if friction_slot < 0 and spring_slot < 0:
        return gravity_potential(q, weights, dofs, bounds)
    total = 0.0
    for k in range(bounds.size - 1):
        if k == friction_slot:
            if friction is not None:
                total += pairwise_sum(friction_.potential_terms(q, at[1], slip, friction[3]), 0, at[1].size)
        elif k == spring_slot:
            if springs is not None:
                D = springs[6]
                K, n = D.shape[0], D.shape[2]
                local = np.empty((K, n))
                for i in range(K * n):
                    local[i // n, i % n] = q[at[2][i]]
                total += pairwise_sum(springs_.potential_terms(local, D, springs[7], springs[9]), 0, K)
        else:  # gravity's, or a load's without potential
            total += gravity_potential(q, weights, dofs, bounds[k : k + 2])
    return total
