"""Newton's stopping test (Hairer & Wanner's error estimate from the contraction), the iterative
refinement of the fixed-pattern KLU solves on an ill-scaled saddle-point matrix, and quadratic
convergence down to the round-off floor on a beam of 4096 elements."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from shared import flexible_pendulum

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.newton import newton_converged
from femdyn.integrators.saddle import KeptLU
from femdyn.numerics.lazy import compiled
from femdyn.numerics.linalg import FixedPatternLU


def test_stops_on_the_estimated_error_of_a_contraction():
    bound = 1e-10  # the tolerance times max(1, |q|)
    # quadratic convergence: Theta = 1e-4, error left <= 1e-4 / (1 - 1e-4) * 1e-9 ~ 1e-13
    assert newton_converged(1e-9, 1e-5, bound)
    # slow contraction: Theta = 0.9 leaves up to 9 |dq| = 8.1e-9 > 1e-10, although |dq| is 9e-10
    assert not newton_converged(9e-10, 1e-9, bound)
    # no contraction: nothing is estimated; the first iteration has no previous increment
    assert not newton_converged(2e-10, 1e-10, bound)
    assert not newton_converged(2e-10, None, bound)
    # the plain increment test
    assert newton_converged(5e-10, None, 10.0 * bound)


def beam_saddle_point(elements, length=1.0, young=2.1e11, width=0.01, dt=1e-3, density=7850.0):
    """[[K + 2/dt^2 M, G^T], [G, 0]] of a cantilever of Hermite beam elements (w, w' per node, first
    node clamped by two constraint rows): stiffness entries from 12 EI/h^3 down to the mass terms of
    the slopes, rho A h^3 / dt^2, more than 20 orders of magnitude apart."""
    h, area, inertia = length / elements, width * width, width**4 / 12.0
    ke = young * inertia / h**3 * np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                                            [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])
    me = density * area * h / 420.0 * np.array([[156, 22 * h, 54, -13 * h], [22 * h, 4 * h * h, 13 * h, -3 * h * h],
                                                [54, 13 * h, 156, -22 * h], [-13 * h, -3 * h * h, -22 * h, 4 * h * h]])
    n = 2 * (elements + 1)
    rows, cols, vals = [], [], []
    for e in range(elements):
        dofs = 2 * e + np.arange(4)
        rows.append(np.repeat(dofs, 4))
        cols.append(np.tile(dofs, 4))
        vals.append((ke + 2.0 / dt**2 * me).ravel())
    K = sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    G = sp.coo_matrix((np.ones(2), ([0, 1], [0, 1])), shape=(2, n))
    return sp.bmat([[K, G.T], [G, None]], format="csc")


def test_one_refinement_step_makes_the_solve_componentwise_backward_stable():
    """Skeel (Math. Comp. 35, 1980): one step of fixed-precision iterative refinement makes Gaussian
    elimination componentwise backward stable, max_i |b - A x|_i / (|A| |x| + |b|)_i = O(eps)."""
    A = beam_saddle_point(256)
    A.sort_indices()
    rng = np.random.default_rng(3)
    x_true = rng.normal(size=A.shape[0]) * np.where(np.arange(A.shape[0]) % 2, 1e-3, 1.0)
    b = A @ x_true
    lu = FixedPatternLU(A.indptr, A.indices)
    lu.factor(A.data)
    x = lu.solve(b, refine=1)
    berr = np.abs(b - A @ x) / (abs(A) @ np.abs(x) + np.abs(b))
    assert berr.max() <= 4 * np.finfo(float).eps  # without refinement: 7.3 eps
    lu.factor(2.0 * A.data)  # refinement uses the values of the current factorisation
    np.testing.assert_allclose(lu.solve(2.0 * b, refine=1), x, rtol=0, atol=1e-12 * np.abs(x).max())


def test_newton_converges_quadratically_to_the_round_off_floor_with_4096_elements():
    """The falling pendulum with 4096 beam elements (61463 unknowns), dt = 1 ms: every step converges
    in two iterations -- a first increment of about 3e-5 m, a second one at the round-off floor of the
    elastic forces (12 EI/h^3 = 1.4e14 N/m times q), and Hairer & Wanner's estimate accepts it. The
    floor depends on how K q is summed: with the assembled K (large terms of neighbouring elements
    added before they cancel) it rose to 1e-8 and steps took up to 19 iterations; summed element by
    element (``BeamElasticity``) it stays near 1e-9."""
    model, setup = flexible_pendulum(4096)
    dt = 1e-3
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
    iterations = []
    for k in range(6):
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
        iterations.append(r.iterations)
    assert iterations == [2] * 6, iterations


def swung(elements, dt, steps, axial="linear"):
    """The energy-momentum stepper of the pendulum (``flexible_pendulum``) after ``steps`` steps of
    ``dt`` from its release, and the last q."""
    model, setup = flexible_pendulum(elements, axial)
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    q, v, lam, states = setup.q0, setup.v0, np.zeros(model.m), model.initial_states(setup.q0)
    for k in range(steps):
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
    return stepper, q


def test_repivoting_keeps_the_fill_and_solves_exactly_on_the_swinging_pendulum():
    """The pendulum of 1024 beam elements at dt = 1e-2 after half a swing (50 steps, where KLU with
    row scaling re-pivoted into 1.2e7 entries of L + U, 120 times the first factorisation's): the
    Newton matrix factored with pivots chosen anew (made again without row scaling,
    ``FixedPatternLU.fill_growth``) keeps the fill of the first factorisation within 5 %, and its solve is backward stable, |A x - b| <= 1e-15 |A| |x| (4.5e-16 measured), and as
    accurate as SciPy's direct solve (SuperLU): both errors from an exact x are set by the condition
    (5.6e-4 and 4.8e-4 for x of unit normal entries; KLU's is asserted within twice SuperLU's)."""
    stepper, _ = swung(1024, 1e-2, 50, axial="cubic")  # benchmarks/exudyn_flexible.py
    kept, pattern = stepper.system.lu, stepper.system.pattern
    lu = FixedPatternLU(pattern.indptr, pattern.indices)
    lu.factor(kept.first)
    first = lu.fill
    lu.refactor_rcond_drop = np.inf  # every refactorisation refused: pivots chosen anew
    lu.factor(kept.current)
    assert lu.factorizations == 2 and lu.fill <= 1.05 * first, (first, lu.fill)
    A = pattern.csc(kept.current)
    exact = np.random.default_rng(3).normal(size=A.shape[0])
    b = A @ exact
    x = lu.solve(b)
    assert np.abs(A @ x - b).max() <= 1e-15 * abs(A).max() * np.abs(x).max()
    assert np.abs(x - exact).max() <= 2.0 * np.abs(spla.spsolve(A, b) - exact).max()
    # a resumed run rebuilds the unscaled factorisation and its refactorisations bit for bit
    kept_lu = KeptLU(pattern.indptr, pattern.indices)
    kept_lu.factor(kept.first)
    kept_lu.refactor_rcond_drop = np.inf
    kept_lu.factor(kept.current)
    del kept_lu.refactor_rcond_drop
    kept_lu.factor(1.001 * kept.current)
    resumed = KeptLU(pattern.indptr, pattern.indices)
    resumed.restore(kept_lu.state())
    assert (kept_lu.factorizations, kept_lu.refactorizations, resumed._common.scale) == (2, 1, 0)
    assert np.array_equal(resumed.solve(b), kept_lu.solve(b))


def test_compiled_refactorisation_solve_and_update_equal_scipy_on_the_newton_matrices():
    """The compiled KLU calls (``numerics.klu``) on the Newton matrices of the 16-element pendulum:
    the refactorisation of a later step's matrix with the first one's pivots and its solve equal
    SciPy's direct solve (SuperLU) to round-off, and Newton's fused solve and update
    (``integrators.kernels.solve_update``) equals q - A^-1 R and the multipliers' update of that
    solve bit for bit."""
    stepper, q = swung(16, 1e-3, 30)
    model = stepper.model
    kept, pattern = stepper.system.lu, stepper.system.pattern
    lu = FixedPatternLU(pattern.indptr, pattern.indices)
    lu.factor(kept.first)
    lu.factor(kept.current)
    assert (lu.factorizations, lu.refactorizations) == (1, 1)
    A = pattern.csc(kept.current)
    R = np.random.default_rng(4).normal(size=A.shape[0])
    reference = spla.spsolve(A, -R)
    # both solves are backward stable: they differ by at most about eps cond(A) |x| (6.6e-9 |x| here; 5e-12 seen)
    bound = np.finfo(float).eps * np.linalg.cond(A.toarray(), np.inf) * np.abs(reference).max()
    x = lu.solve(-R)
    assert np.abs(A @ x + R).max() <= 1e-15 * abs(A).max() * np.abs(x).max()
    assert np.abs(x - reference).max() <= bound
    active, n, s = stepper.system.active, model.n, stepper.scale
    lam0 = np.random.default_rng(5).normal(size=model.m)
    lam1 = lam0.copy()
    q1, increment = compiled("femdyn.integrators.kernels").solve_update(lu.handles, R, q, lam1, active, s)
    assert np.array_equal(q1, q + x[:n]) and increment == np.abs(x[:n]).max()  # the same solve, bit for bit
    expected = lam0.copy()
    expected[active] += s * x[n:]
    assert np.array_equal(lam1, expected)
