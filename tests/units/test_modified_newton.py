"""Simplified (modified) Newton (``NewtonOptions.modified``, ``integrators.newton.Newton``): the Newton
matrix factorised in a step's first iteration serves the step's other iterations. A step lands where
full Newton's step from the same state lands, to within the Newton tolerance, with about half full
Newton's factorisations; and where the iteration contracts too slowly with that matrix it is
factorised again within the step, which still lands where full Newton lands. A matrix one step old
contracts the next step's iteration far more slowly than that step's own, which is why the factorisation
is not kept across steps."""
import dataclasses

import numpy as np
import pytest
from shared import flexible_pendulum, free_beam, pinned_beam

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from femdyn.integrators.newton import Newton, NewtonOptions
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.time_loop import simulate
from femdyn.numerics.linalg import FixedPatternLU

FULL, MODIFIED = NewtonOptions(), NewtonOptions(modified=True)


STEPPERS = {
    "energy-momentum": lambda model, dt, rows, options: EnergyMomentum(model, dt, rows, options),
    "generalized-alpha": lambda model, dt, rows, options: GeneralizedAlpha(model, dt, rows, options, rho_inf=0.9),
}


def limit(q):
    return FULL.tolerance * max(1.0, np.abs(q).max())


@pytest.mark.parametrize("integrator", STEPPERS)
def test_every_step_lands_where_full_newton_lands(integrator):
    """100 steps of 1 ms of the falling pendulum: the simplified stepper takes each step from full
    Newton's state (and, for generalized-alpha, its carried accelerations); q_n+1 and v_n+1 agree to the
    Newton tolerance, with at least one factorisation per step and fewer than 0.6 times full Newton's
    (two per step at least): the second and later iterations reuse the step's first matrix."""
    model, setup = flexible_pendulum()
    dt, steps = 1e-3, 100
    make = STEPPERS[integrator]
    full, modified = make(model, dt, setup.active_rows, FULL), make(model, dt, setup.active_rows, MODIFIED)
    q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
    worst = 0.0
    for k in range(steps):
        if integrator == "generalized-alpha" and full._carry is not None:
            modified._carry = dataclasses.replace(full._carry)  # the same a_n, vd_n: the same step map
        a = modified.step(k * dt, q, v, lam, states)
        b = full.step(k * dt, q, v, lam, states)
        worst = max(worst, np.abs(a.q - b.q).max() / limit(b.q))
        assert np.abs(a.v - b.v).max() <= 2.0 / dt * limit(b.q)  # v_n+1 is q_n+1 / dt, times a constant
        q, v, lam, states = b.q, b.v, b.lam, b.states
    assert worst <= 1.0, worst
    assert full.factorisations >= 2 * steps
    assert steps <= modified.factorisations < 0.6 * full.factorisations


@pytest.mark.parametrize("integrator", STEPPERS)
def test_a_slowly_contracting_step_factorises_again_and_still_converges(integrator):
    """The fallback: a step of 10 ms from the swinging pendulum (swung down by about 70 degrees) is far
    from linear over its predictor's error, so the matrix of its first iteration contracts the later
    increments by less than ``Newton.REFRESH_CONTRACTION``; the stepper factorises anew within the
    step and lands where full Newton lands."""
    model, setup = flexible_pendulum()
    later = simulate(setup, SolverSettings(1e-3, 0.4))
    assert later.complete, later.message
    d1 = later.q[-1, model.flexible[0].rigid[2:4]]
    assert abs(np.degrees(np.arctan2(-d1[1], d1[0]))) > 60.0  # far from the horizontal start
    dt = 1e-2
    stepper = STEPPERS[integrator](model, dt, setup.active_rows, MODIFIED)
    states = model.initial_states(setup.q0)
    stepper.step(0.0, setup.q0, setup.v0, np.zeros(model.m), states)  # a first matrix, from the start
    before = stepper.factorisations
    q, v = later.q[-1], later.v[-1]
    a = stepper.step(0.4, q, v, np.zeros(model.m), states)
    b = STEPPERS[integrator](model, dt, setup.active_rows, FULL).step(0.4, q, v, np.zeros(model.m), states)
    assert stepper.factorisations - before >= 2  # the step's first matrix, and one within the step
    assert np.abs(a.q - b.q).max() <= limit(b.q)


def test_energy_and_momenta_of_a_free_spinning_beam_hold_to_the_newton_tolerance():
    """The free beam spinning at 15 rad/s (``shared.free_beam``, conserved with full Newton in
    physics/test_flexible.py) with the energy-momentum scheme and simplified Newton at a tolerance of
    1e-13: energy and angular momentum are conserved as with full Newton, to 1e-11 of their size.
    Turning by 0.03 rad per step, the beam is far from linear over a step (full Newton needs 5.8
    iterations per step here): this run goes through the fallback -- increments that do not contract
    dropped, matrices made anew within steps -- factorising more matrices than it takes steps, and
    still fewer than it iterates (measured: 398 matrices in 907 iterations over 100 steps; full
    Newton 583 in 583)."""
    model, setup = free_beam(True)
    tight = dict(tolerance=1e-13, newton="modified")
    r = simulate(setup, SolverSettings(2e-3, 0.2, **tight))
    assert r.complete, r.message
    steps = len(r.t) - 1
    assert steps < r.factorisations < r.iterations.sum(), (steps, r.factorisations, r.iterations.sum())
    assert np.ptp(r.total) <= 1e-11 * r.total.max()
    assert np.abs(r.angular_momentum - r.angular_momentum[0]).max() <= 1e-11 * np.abs(r.angular_momentum[0]).max()


def _contraction(stepper, step, start, lam, values):
    """d2/d1 of the first two increments of the simplified iteration of ``step`` from ``start`` with the
    Newton matrix ``values`` (CSC data on the stepper's pattern) kept."""
    system, n = stepper.system, stepper.model.n
    lu = FixedPatternLU(system.pattern.indptr, system.pattern.indices)
    lu.factor(values)
    q, lam, sizes = start.copy(), lam.copy(), []
    for _ in range(2):
        R, _ = stepper._newton_system(step, q, lam, False)
        dx = lu.solve(-R)
        q += dx[:n]
        lam[system.active] += stepper.scale * dx[n:]
        sizes.append(np.abs(dx[:n]).max())
    return sizes[1] / sizes[0]


def test_a_newton_matrix_one_step_old_contracts_far_more_slowly_than_the_steps_own():
    """Why simplified Newton factorises once in every step instead of keeping the factorisation across
    steps (``Newton``'s docstring, benchmarks/README.md "Keeping the factorisation across steps"): on the
    spatial pinned beam falling and swinging (``shared.pinned_beam``), the stiff axial terms of the Newton
    matrix (EA/l) turn with the beam, about 5 mrad per step here, so the matrix of the step before, at its
    predictor, contracts the iteration of the next step from its predictor by far less than that step's
    own matrix does: d2/d1 on average more than 50 times larger, and above the 0.1 that
    ``Newton.REFRESH_CONTRACTION`` allows, where the step's own matrix stays below it in every step."""
    model, setup = pinned_beam(3, 4)
    dt = 1.25e-3
    stepper = GeneralizedAlpha(model, dt, setup.active_rows, MODIFIED, rho_inf=0.9)
    q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
    own, old, before = [], [], None
    for k in range(120):
        step = stepper._begin(k * dt, q, v, states)
        start = stepper.predictor(step)
        lam_start = stepper.system.active_multipliers(lam)
        values = stepper._newton_system(step, start, lam_start, True)[1].copy()
        if k >= 100:  # swinging at about 4 rad/s
            own.append(_contraction(stepper, step, start, lam_start, values))
            old.append(_contraction(stepper, step, start, lam_start, before))
        before = values
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
    own, old = np.array(own), np.array(old)
    assert own.max() < Newton.REFRESH_CONTRACTION, own.max()
    assert old.mean() > max(Newton.REFRESH_CONTRACTION, 50.0 * own.mean()), (old.mean(), own.mean())
