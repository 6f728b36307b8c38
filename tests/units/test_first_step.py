"""A run's first step as its later ones (issue 37, Deliver 3): the run's Newton matrices take their first
pivots from the acceleration matrix [[M, s G^T], [s G, 0]] that the consistent start factors anyway
(``KeptLU.start``), so KLU chooses its ordering once, before the first step, and the first step's Newton
iteration runs compiled (``kernels.newton_loop``; the energy-momentum run's first step inside the compiled
steps, ``stepping``) without an iteration in the interpreter; those pivots solve the Newton matrices
backward stably, or are replaced inside the compiled iteration where KLU's condition estimate refuses
them. A choice of ordering that fails on a singular matrix leaves the next matrix to choose."""
import numpy as np
import pytest
import scipy.sparse as sp
from shared import CASES, pinned_beam

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators import time_loop
from femdyn.integrators.kept_lu import KeptLU
from femdyn.integrators.saddle import SaddleSystem
from femdyn.integrators.settings import INTEGRATORS, SolverSettings
from femdyn.integrators.setup import prepare
from femdyn.numerics.linalg import FixedPatternLU, SingularMatrixError


def counted(monkeypatch, owner, name, calls):
    """``owner.name`` counting its calls into the list ``calls`` (the instance first)."""
    function = getattr(owner, name)
    monkeypatch.setattr(owner, name, lambda self, *args, **keywords: calls.append(self) or function(self, *args,
                                                                                                      **keywords))


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_a_runs_ordering_is_chosen_once_before_the_first_step_which_runs_compiled(integrator, monkeypatch):
    """The pendulum of 16 beam elements, 10 steps: KLU's ordering chosen twice in the run -- by the run's
    Newton LU at the consistent start, and at the end's consistent multipliers --, no Newton matrix
    assembled in the interpreter (``SaddleSystem.assemble``, the interpreted iteration's), none factored
    with pivots chosen anew, every Newton matrix refactorised with the start's pivots."""
    systems, choices, assembled = [], [], []
    counted(monkeypatch, SaddleSystem, "__init__", systems)
    counted(monkeypatch, FixedPatternLU, "_choose_ordering", choices)
    counted(monkeypatch, SaddleSystem, "assemble", assembled)
    settings = SolverSettings(1e-3, 1e-2, integrator=integrator)
    results = time_loop.simulate(pinned_beam(2, 16)[1], settings)
    lu = systems[0].lu
    assert results.complete and not assembled
    assert len(choices) == 2 and choices[0] is lu and lu.started
    assert lu.factorizations == 0 and lu.refactorizations == results.factorisations >= settings.steps


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("build", [lambda: pinned_beam(2, 256)[1], lambda: pinned_beam(3, 16)[1],
                                   lambda: (lambda c: prepare(c.model, c.q0, c.v0))(
                                       load_case(CASES / "3prr_sine.toml", Options(elements=4)))],
                         ids=["planar-pendulum-256", "spatial-pendulum", "3prr"])
def test_the_starts_pivots_solve_the_first_newton_matrix_backward_stably(build, integrator, monkeypatch):
    """The first step's last Newton matrix A, refactorised with the pivots of the acceleration matrix:
    a solve with one step of refinement (as the first solve of a step) is componentwise backward stable,
    |A x - b| <= 1e-14 (|A| |x| + |b|), as with pivots chosen for A itself (KLU's own choice)."""
    setup = build()
    settings = SolverSettings(1e-3, 1e-3, integrator=integrator)
    systems = []
    counted(monkeypatch, SaddleSystem, "__init__", systems)
    assert time_loop.simulate(setup, settings).complete
    kept = systems[0].lu
    assert kept.started
    pattern = systems[0].pattern
    A = pattern.csc(kept.current)
    b = np.random.default_rng(7).normal(size=A.shape[0]) * abs(A).max(axis=1).toarray().ravel()
    own = FixedPatternLU(pattern.indptr, pattern.indices)
    own.factor(kept.current)
    for lu in (kept, own):
        x = lu.solve(b, refine=1)
        error = np.abs(A @ x - b) / (abs(A) @ np.abs(x) + np.abs(b))
        assert error.max() <= 1e-14, (lu is kept, error.max())


def test_a_choice_that_fails_on_a_singular_matrix_leaves_the_next_to_choose():
    """A singular matrix on the pattern (a zero column) raises SingularMatrixError and chooses nothing:
    the next matrix chooses the ordering and solves exactly."""
    A = sp.random(60, 60, density=0.05, random_state=np.random.default_rng(2), format="csc") + sp.eye(60, format="csc")
    A.sort_indices()
    lu = FixedPatternLU(A.indptr, A.indices)
    singular = A.data.copy()
    singular[A.indptr[5] : A.indptr[6]] = 0.0
    with pytest.raises(SingularMatrixError):
        lu.factor(singular)
    assert not lu.refactorable and not hasattr(lu, "ordering")
    b = np.arange(60.0)
    lu.factor(A.data)
    assert lu.factorizations == 1 and lu.ordering in ("amd", "colamd")
    assert np.allclose(A @ lu.solve(b), b, rtol=0, atol=1e-12 * np.abs(b).max())


def test_a_started_lu_counts_only_the_newton_matrices_and_resumes_bit_for_bit():
    """``KeptLU.start`` on one matrix, then another on the pattern: the start is not counted as a Newton
    matrix's factorisation, the other is refactorised with its pivots, and a resumed LU (``restore``)
    solves as this one bit for bit."""
    A = sp.random(80, 80, density=0.05, random_state=np.random.default_rng(3), format="csc") + sp.eye(80, format="csc")
    A.sort_indices()
    lu = KeptLU(A.indptr, A.indices)
    lu.start(A.data.copy())
    assert (lu.factorizations, lu.refactorizations, lu.started) == (0, 0, True)
    lu.factor(A.data * np.random.default_rng(4).uniform(0.9, 1.1, size=A.nnz))
    assert (lu.factorizations, lu.refactorizations) == (0, 1)
    resumed = KeptLU(A.indptr, A.indices)
    resumed.restore(lu.state())
    assert (resumed.factorizations, resumed.refactorizations, resumed.started) == (0, 1, True)
    b = np.random.default_rng(5).normal(size=80)
    assert np.array_equal(resumed.solve(b), lu.solve(b))
