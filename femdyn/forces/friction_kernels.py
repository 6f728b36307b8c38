"""Compiled return maps of joint friction (``friction.Friction``; numba, cached on disk), all K
instances in one call. The module imports numba: it is imported where the kernels run
(``friction``), so that the command line starts without it.
"""
import numpy as np

from ..numerics.compiled import kernel
from .friction import DISCRETE


@kernel
def discrete(qa, qb, p, E, F_max, force, tangent, slip_end):
    """The energy-consistent return map over a step (001 eqs. 25-26; ``Friction``): per instance the
    discrete force -F (K,), its qb-derivative (K,) and the slip p_b at the step's end (K,), for the
    coordinates qa, qb (K, 1) and the slip p = p_n (K,). Trial e = q_b - p_n; stick (p_b = p_n,
    F = E (q_mid - p_n)) if E |e| <= F_max or the step does not move, else slip to e_b = sign(e) F_max/E,
    F = E e_b - E/2 (e_b - e_a)^2/(q_b - q_a)."""
    for k in range(p.size):
        a, b = qa[k, 0], qb[k, 0]
        e_a, e_trial = a - p[k], b - p[k]
        if E[k] * abs(e_trial) > F_max[k] and b != a:  # a step without motion sticks (round-off after a slip)
            e_b = np.sign(e_trial) * F_max[k] / E[k]
            dq = b - a
            force[k] = -(E[k] * e_b - 0.5 * E[k] * (e_b - e_a) ** 2 / dq)
            tangent[k] = -(0.5 * E[k] * (e_b - e_a) ** 2 / dq**2)
        else:
            e_b = e_trial
            force[k] = -(E[k] * (0.5 * (a + b) - p[k]))
            tangent[k] = -(0.5 * E[k])
        slip_end[k] = b - e_b


@kernel
def backward_euler(q, p, E, F_max, force, tangent, slip_end):
    """The backward-Euler return map at the step's end q (K, 1) from the slip p = p_n (K,): trial
    e = q - p_n, slip if E |e| > F_max to e = sign(e) F_max/E; the force -E e (K,), its derivative
    (0 while slipping, else -E) and the new slip (q - e where it slips, else p_n)."""
    for k in range(p.size):
        trial = q[k, 0] - p[k]
        if E[k] * abs(trial) > F_max[k]:
            e = np.sign(trial) * F_max[k] / E[k]
            tangent[k], slip_end[k] = 0.0, q[k, 0] - e
        else:
            e = trial
            tangent[k], slip_end[k] = -E[k], p[k]
        force[k] = -E[k] * e


@kernel
def loop(friction, qb, at, force, tangent, slip_end):
    """A Newton iterate's friction force (K,) and derivative (K,) in ``integrators.kernels.newton_loop``
    and the slip at the step's end (K,): ``friction`` = (form, q_a (K,), the slip p_n (K,), E, F_max) of
    ``Friction.friction_arguments``, ``at`` its coordinates in qb; the return map over the step from q_a
    (``discrete``) or the backward-Euler one at qb (``backward_euler``), each as the interpreted steps
    call it."""
    form, qa, p, E, F_max = friction
    K = p.size
    Qb = np.empty((K, 1))
    for k in range(K):
        Qb[k, 0] = qb[at[k]]
    if form == DISCRETE:
        Qa = np.empty((K, 1))
        for k in range(K):
            Qa[k, 0] = qa[k]
        discrete(Qa, Qb, p, E, F_max, force, tangent, slip_end)
    else:
        backward_euler(Qb, p, E, F_max, force, tangent, slip_end)


@kernel
def potential_terms(q, at, p, E):
    """The terms E_k/2 (q_k - p_k)^2 of ``Friction.potential`` at the coordinates ``at`` of q, each formed
    as there (``integrators.step_ends.pairwise_sum`` sums them as NumPy)."""
    terms = np.empty(p.size)
    for k in range(p.size):
        d = q[at[k]] - p[k]
        terms[k] = 0.5 * E[k] * (d * d)
    return terms


@kernel
def losses(p_a, p_b, F_max):
    """F_max |p_b - p_a| per instance (``Friction.dissipation``)."""
    out = np.empty(p_a.size)
    for k in range(p_a.size):
        out[k] = F_max[k] * abs(p_b[k] - p_a[k])
    return out
