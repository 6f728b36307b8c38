"""What one Newton iteration of the flexible pendulums costs in its two largest compiled parts, each timed
in isolation on the matrices and states of a real run: the world-beam kernel (``femdyn.beam.world.kernels.step``:
forces and tangent of all elements) and KLU (``femdyn.numerics.klu``: refactorisation, klu_rcond, solve, the
first solve's refinement step), the latter for every analysis and row scaling that ``FixedPatternLU`` could
use (AMD or COLAMD, with or without the block triangular form, klu_common.scale = 0, 1, 2).

The problems: the pendulums of ``exudyn_compare.py`` -- planar (``exudyn_flexible.FemdynPendulum``) and
spatial (``spatial_pendulum.SpatialPendulum``) --, N elements, 40 steps of generalized-alpha (rho_inf 0.9,
full Newton, tolerance 1e-10, dt = 1.25e-3) from the release; then, on the last step's start and end and
on the last Newton matrix factored:

* kernel: ``step`` with the continuous forms (``same``, what generalized-alpha calls), with the discrete
  gradient over the step (energy-momentum, the start's strains held: ``known``), and the forces alone;
* KLU: the matrix factored as the run did (first, last pivoting, current), then refactored with the kept
  pivots; the fill of L + U, the backward error max|A x - b| / (max|A| max|x|) of a solve, klu_rcond.

Each figure is the least CPU time per call over ``--batches`` batches (``time.process_time``: the machine
is shared; the least is the one least disturbed). A benchmark: nothing is asserted.

Usage: python benchmarks/kernel_costs.py [--elements 16 64 256] [--kinds planar spatial] [--batches 40]
                                        [--kernel-only]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):  # one thread
    os.environ.setdefault(_var, "1")

import argparse
import time

import numpy as np
import scipy.sparse as sp
from exudyn_flexible import FemdynPendulum
from numba import njit
from spatial_pendulum import SpatialPendulum

from femdyn.beam.world.elasticity import WorldElasticity
from femdyn.integrators.saddle import KeptLU
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.time_loop import simulate
from femdyn.numerics import klu, linalg
from femdyn.numerics.lazy import compiled

ANALYSES = {"AMD": (0, 0), "COLAMD + BTF": (1, 1), "AMD + BTF": (0, 1), "COLAMD": (1, 0)}
DT, STEPS = 1.25e-3, 40


@njit
def _refactors(Ap, Ai, Ax, symbolic, numeric, common, reps):
    for _ in range(reps):
        klu.klu_refactor(Ap.ctypes.data, Ai.ctypes.data, Ax.ctypes.data, symbolic, numeric, common)


@njit
def _rconds(symbolic, numeric, common, reps):
    for _ in range(reps):
        klu.klu_rcond(symbolic, numeric, common)


@njit
def _solves(symbolic, numeric, common, b, reps):
    x = b.copy()
    for _ in range(reps):
        x[:] = b
        klu.klu_solve(symbolic, numeric, x.size, 1, x.ctypes.data, common)
    return x


def least(call, reps, batches):
    """The least CPU seconds per call of ``call(reps)`` (``reps`` calls) over ``batches`` batches, in us."""
    times = []
    for _ in range(batches):
        start = time.process_time()
        call(reps)
        times.append((time.process_time() - start) / reps)
    return 1e6 * min(times)


def captured_run(kind, n):
    """Run the pendulum STEPS steps; returns the beams' force, the run's LU (``saddle.KeptLU``) and the
    last two states (q of the force's coordinates, (1, n) each)."""
    made, originals = {}, {cls: cls.__init__ for cls in (WorldElasticity, KeptLU)}
    for cls, init in originals.items():
        def capture(self, *args, _cls=cls, _init=init):
            _init(self, *args)
            made[_cls] = self
        cls.__init__ = capture
    try:
        problem = FemdynPendulum(n) if kind == "planar" else SpatialPendulum(n)
        settings = SolverSettings(dt=DT, t_end=STEPS * DT, integrator="generalized-alpha", rho_inf=0.9,
                                  tolerance=1e-10, newton="full")
        results = simulate(problem.setup, settings)
    finally:
        for cls, init in originals.items():
            cls.__init__ = init
    force, lu = made[WorldElasticity], made[KeptLU]
    dofs = force.dofs[0]
    qa, qb = (np.ascontiguousarray(results.q[k][dofs][None]) for k in (-2, -1))
    return force, lu, qa, qb


def kernel_times(force, qa, qb, batches):
    step = compiled("femdyn.beam.world.kernels").step
    F, values = np.empty_like(qa), np.empty((1, force.tangent_pattern()[0].size))
    start, grad = (np.zeros_like(a) for a in force._at_start)
    step(qa, qb, False, *force._arguments, F, values, start, grad, False)
    reps = max(5, 8000 // qa.size)

    def timed(*call):
        return least(lambda r: [step(*call) for _ in range(r)], reps, batches)
    return dict(same=timed(qb, qb, True, *force._arguments, F, values, start, grad, True),
                known=timed(qa, qb, False, *force._arguments, F, values, start, grad, True),
                forces=timed(qb, qb, True, *force._arguments, F, np.zeros((1, 0)), start, grad, True))


def analysed(lu, ordering, btf, scale):
    """A ``FixedPatternLU`` of ``lu``'s pattern with one analysis and row scaling, the run's matrices factored."""
    other = linalg.FixedPatternLU(lu._Ap, lu._Ai, linalg.Analyses(lu._Ap, lu._Ai, {"one": (ordering, btf)}))
    other._common.scale = scale
    other.factor(lu.first)
    if lu.pivoted is not lu.first:
        other.factor(lu.pivoted, pivot=True)
    other.factor(lu.current)
    return other


def klu_times(lu, batches):
    A = lu.current
    n = lu.n
    matrix = sp.csc_matrix((A, lu._Ai, lu._Ap), shape=(n, n))
    b = matrix @ np.random.default_rng(1).standard_normal(n)
    reps = max(3, 200_000 // A.size)
    rows = []
    for name, (ordering, btf) in ANALYSES.items():
        for scale in (2, 1, 0):
            other = analysed(lu, ordering, btf, scale)
            handles = other.handles[:3]  # symbolic, numeric, common
            refactor = least(lambda r: _refactors(other._Ap, other._Ai, A, *handles, r), reps, batches)
            rcond = least(lambda r: _rconds(*handles, r), 5 * reps, batches)
            solve = least(lambda r: _solves(*handles, b, r), 2 * reps, batches)
            x = _solves(*handles, b, 1)
            refine = least(lambda r: [compiled(linalg.KERNELS).refine(*handles, other._Ap, other._Ai, A, b, x.copy(), 1)
                                      for _ in range(r)], reps, batches)
            error = np.abs(matrix @ x - b).max() / (abs(matrix).max() * np.abs(x).max())
            rows.append((name, scale, other.fill, refactor, rcond, solve, refine, other._common.rcond, error,
                         name == {"amd": "AMD", "colamd": "COLAMD + BTF"}[lu.ordering] and scale == 2))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--kinds", nargs="+", default=["planar", "spatial"], choices=["planar", "spatial"])
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--kernel-only", action="store_true", help="time the beam kernel alone, not KLU's options")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    for kind in args.kinds:
        for n in args.elements:
            force, lu, qa, qb = captured_run(kind, n)
            k = kernel_times(force, qa, qb, args.batches)
            print(f"\n{kind} N = {n}: {lu.n} unknowns, {lu.current.size} matrix entries, {len(force.index)} elements")
            print(f"  beam kernel (us per call): continuous forms {k['same']:.1f}, discrete gradient {k['known']:.1f}, "
                  f"forces alone {k['forces']:.1f}; per element {k['same'] / len(force.index):.2f}")
            if args.kernel_only:
                continue
            print("  KLU (us per call)       scale   fill  refactor  rcond   solve  refine   klu_rcond  backward error")
            for name, scale, fill, refactor, rcond, solve, refine, estimate, error, default in klu_times(lu, args.batches):
                mark = "*" if default else " "
                print(f"  {mark}{name:22s} {scale:5d} {fill:6d} {refactor:9.1f} {rcond:6.2f} {solve:7.1f} {refine:7.1f}"
                      f"   {estimate:9.2e}  {error:9.1e}")
    print("\n* the analysis and scaling the run used (FixedPatternLU's choice)")


if __name__ == "__main__":
    main()
