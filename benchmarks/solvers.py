"""Sparse LU on femdyn's own Newton matrices: SciPy SuperLU (ordering and symbolic analysis on every
call) against KLU (analysis and pivoting once, then numeric refactorisation), for the pendulum chain.

Prints the median time of factor + solve over repeated calls, the ratio, and the solution agreement;
``--json FILE`` writes the figures. Usage: python benchmarks/solvers.py [--links 10 100 1000]
"""
import argparse
import json
import statistics
import time

import numpy as np
import scipy.sparse.linalg as spla
from chain import chain

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.linalg import FixedPatternLU


def newton_matrix(n_links, dt=1e-3):
    model, setup = chain(n_links)
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    qa, va = setup.q0, setup.v0
    inertia = 2.0 / dt**2 * (model.mass_matrix @ (qa + dt * va))
    starts = stepper.begin_step(qa, dt)
    R, data = stepper._system(qa, qa + dt * va, np.zeros(model.m), 0.5 * dt, inertia,
                              np.zeros(model.n), starts, model.initial_states(qa))
    return stepper.pattern, data, R


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    rows = []
    for n in args.links:
        pattern, data, R = newton_matrix(n)
        A, values = pattern.matrix(data), pattern.values(data)
        klu = FixedPatternLU(pattern.indptr, pattern.indices)
        klu.factor(values)
        superlu = median_time(lambda: spla.splu(A, permc_spec="COLAMD").solve(R), args.repeat)
        refactor = median_time(lambda: (klu.factor(values), klu.solve(R)), args.repeat)
        x_ref = spla.splu(A).solve(R)
        agreement = np.abs(klu.solve(R) - x_ref).max() / np.abs(x_ref).max()
        rows.append(dict(links=n, unknowns=A.shape[0], nnz=A.nnz, superlu_ms=1e3 * superlu,
                         klu_refactor_ms=1e3 * refactor, ratio=superlu / refactor, agreement=agreement))
    print(f"{'links':>6} {'unknowns':>9} {'nnz':>8} {'SuperLU ms':>11} {'KLU refactor ms':>16} {'ratio':>7} {'rel. diff':>10}")
    for r in rows:
        print(f"{r['links']:6d} {r['unknowns']:9d} {r['nnz']:8d} {r['superlu_ms']:11.3f} "
              f"{r['klu_refactor_ms']:16.3f} {r['ratio']:7.1f} {r['agreement']:10.1e}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
