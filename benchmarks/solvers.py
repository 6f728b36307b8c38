"""Sparse direct solvers on femdyn's own Newton matrices: which one to use, by the time of a
refactorisation + solve and its backward error.

Matrices: the energy-momentum Newton matrix of the rigid pendulum chain (``chain.py``, N links) and
the generalized-alpha and energy-momentum Newton matrices of the flexible pendulum
(``exudyn_flexible.py``, N beam elements), each after a few steps of its own run. Candidates:

* KLU (femdyn's choice, ``femdyn.numerics.linalg``): analysis and pivot order once per pattern, numeric
  refactorisation per matrix;
* SciPy SuperLU (``splu``): ordering, symbolic analysis and factorisation on every call;
* UMFPACK 5 (SuiteSparse, through ctypes): symbolic analysis once per pattern, ``umfpack_di_numeric``
  per matrix (multifrontal, BLAS), with its automatic strategy (up to ``UMFPACK_AUTO_MAX`` unknowns)
  and with the symmetric strategy on METIS; no iterative refinement;
* CHOLMOD (the kvxopt wheel's, ``femdyn.numerics.cholesky``), CHOLMOD's choice of simplicial or supernodal: the only CHOLMOD-based scheme that applies to the
  whole matrix. It needs a symmetric positive definite matrix; the generalized-alpha Newton matrices
  are symmetric (to round-off) but indefinite (saddle point: zero block for the multipliers), the
  energy-momentum ones are not symmetric. The script reports whether CHOLMOD accepts them.

Prints the median time of one factorisation + one solve (per matrix, after the pattern's one-off
analysis), the ratio to KLU and the backward error ``|A x - b| / (|A| |x|)``; ``--json FILE`` writes
the rows. Usage: python benchmarks/solvers.py [--links 10 100 1000] [--elements 16 64 256 1024]
"""
import argparse
import ctypes
import ctypes.util
import json
import statistics
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from chain import chain, run_steps
from exudyn_flexible import FemdynPendulum

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from femdyn.numerics.cholesky import NotPositiveDefiniteError, cholesky
from femdyn.numerics.linalg import FixedPatternLU

UMFPACK_AUTO_MAX = 5000  # unknowns: UMFPACK's automatic strategy is left out above (too slow to wait for)


def captured_matrix(model, stepper, setup, steps=3):
    """The Newton matrix (CSC) of the stepper's last iteration after ``steps`` steps."""
    run_steps(model, setup, stepper, steps)
    lu = stepper.system.lu
    A = sp.csc_matrix((lu._Ax.copy(), lu._Ai.copy(), lu._Ap.copy()), shape=(lu.n, lu.n))
    A.sort_indices()
    return A


def matrices(links, elements, dt=1e-3):
    for n in links:
        model, setup = chain(n)
        yield f"chain N={n} (EM)", captured_matrix(model, EnergyMomentum(model, dt, setup.active_rows), setup)
    for n in elements:
        fp = FemdynPendulum(n)
        for name, cls in (("GA", GeneralizedAlpha), ("EM", EnergyMomentum)):
            stepper = cls(fp.model, dt, fp.setup.active_rows)
            yield f"pendulum N={n} ({name})", captured_matrix(fp.model, stepper, fp.setup)


def median_time(fn, repeat, budget=5.0):
    """Median over ``repeat`` calls, fewer when one call takes more than budget / repeat."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        if sum(times) > budget:
            break
    return statistics.median(times)


def backward_error(A, x, b):
    return float(np.abs(A @ x - b).max() / (abs(A).max() * np.abs(x).max()))


class Umfpack:
    """UMFPACK's symbolic analysis of A's pattern once, numeric factorisation and solve per call."""

    STRATEGY, ORDERING, IRSTEP = 5, 10, 7  # indices into UMFPACK's Control array (umfpack.h)

    def __init__(self, lib, A, strategy, ordering):
        self.lib, self.A = lib, A
        self.Ap, self.Ai = (np.ascontiguousarray(a, dtype=np.int32) for a in (A.indptr, A.indices))
        self.control, self.info = np.zeros(20), np.zeros(90)
        lib.umfpack_di_defaults(self.control.ctypes.data)
        self.control[[self.STRATEGY, self.ORDERING, self.IRSTEP]] = strategy, ordering, 0
        self.symbolic, self.numeric = ctypes.c_void_p(), ctypes.c_void_p()
        status = lib.umfpack_di_symbolic(A.shape[0], A.shape[1], self.Ap.ctypes.data, self.Ai.ctypes.data,
                                         self._data(A.data), ctypes.byref(self.symbolic),
                                         self.control.ctypes.data, self.info.ctypes.data)
        if status != 0:
            raise RuntimeError(f"umfpack_di_symbolic status {status}")

    def _data(self, values):
        self.Ax = np.ascontiguousarray(values, dtype=np.float64)
        return self.Ax.ctypes.data

    def factor_solve(self, values, b):
        if self.numeric:
            self.lib.umfpack_di_free_numeric(ctypes.byref(self.numeric))
        status = self.lib.umfpack_di_numeric(self.Ap.ctypes.data, self.Ai.ctypes.data, self._data(values),
                                             self.symbolic, ctypes.byref(self.numeric),
                                             self.control.ctypes.data, self.info.ctypes.data)
        if status != 0:
            raise RuntimeError(f"umfpack_di_numeric status {status}")
        x, b = np.zeros_like(b), np.ascontiguousarray(b, dtype=np.float64)
        self.lib.umfpack_di_solve(0, self.Ap.ctypes.data, self.Ai.ctypes.data, self.Ax.ctypes.data,
                                  x.ctypes.data, b.ctypes.data, self.numeric, self.control.ctypes.data,
                                  self.info.ctypes.data)
        return x


def load_umfpack():
    name = ctypes.util.find_library("umfpack")
    if name is None:
        return None
    lib = ctypes.CDLL(name)
    p = ctypes.c_void_p
    lib.umfpack_di_defaults.argtypes = [p]
    lib.umfpack_di_symbolic.argtypes = [ctypes.c_int, ctypes.c_int, p, p, p, ctypes.POINTER(p), p, p]
    lib.umfpack_di_numeric.argtypes = [p, p, p, p, ctypes.POINTER(p), p, p]
    lib.umfpack_di_solve.argtypes = [ctypes.c_int, p, p, p, p, p, p, p, p]
    lib.umfpack_di_free_numeric.argtypes = [ctypes.POINTER(p)]
    return lib


def cholmod_outcome(A, b, repeat):
    """(seconds, backward error) of CHOLMOD's factorisation + solve, or the reason it refuses A."""
    if abs(A - A.T).max() > 1e-12 * abs(A).max():
        return None, "not symmetric"
    try:
        seconds = median_time(lambda: cholesky(A), repeat)
        return seconds, backward_error(A, cholesky(A)(b), b)
    except NotPositiveDefiniteError:
        return None, "refused: not positive definite"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, nargs="*", default=[10, 100, 1000])
    parser.add_argument("--elements", type=int, nargs="*", default=[16, 64, 256, 1024])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    umfpack = load_umfpack()
    rows = []
    for name, A in matrices(args.links, args.elements):
        b = np.random.default_rng(0).standard_normal(A.shape[0])
        klu = FixedPatternLU(A.indptr, A.indices)
        klu.factor(A.data)
        row = dict(matrix=name, unknowns=A.shape[0], nnz=A.nnz, klu_ordering=klu.ordering)
        row["klu_ms"] = 1e3 * median_time(lambda: (klu.factor(A.data), klu.solve(b)), args.repeat)
        row["klu_error"] = backward_error(A, klu.solve(b), b)
        row["superlu_ms"] = 1e3 * median_time(lambda: spla.splu(A, permc_spec="COLAMD").solve(b), args.repeat)
        row["superlu_error"] = backward_error(A, spla.splu(A, permc_spec="COLAMD").solve(b), b)
        if umfpack is not None:
            for label, strategy, ordering in (("umfpack_auto", 0, 1), ("umfpack_symmetric_metis", 3, 3)):
                if label == "umfpack_auto" and A.shape[0] > UMFPACK_AUTO_MAX:
                    continue  # 9 s per factorisation at 3863 unknowns, growing faster than n^2
                u = Umfpack(umfpack, A, strategy, ordering)
                row[f"{label}_ms"] = 1e3 * median_time(lambda: u.factor_solve(A.data, b), args.repeat)
                row[f"{label}_error"] = backward_error(A, u.factor_solve(A.data, b), b)
        seconds, outcome = cholmod_outcome(A, b, args.repeat)
        row["cholmod"] = f"{1e3 * seconds:.3f} ms, error {outcome:.1e}" if seconds is not None else outcome
        rows.append(row)
        print(f"{name:24s} n={row['unknowns']:6d} nnz={row['nnz']:7d}  KLU ({row['klu_ordering']}) {row['klu_ms']:8.3f} ms"
              f" [{row['klu_error']:.0e}]" + "".join(
                  f"  {key[:-3]} {row[key]:9.2f} ms (x{row[key] / row['klu_ms']:.1f}) [{row[key[:-3] + '_error']:.0e}]"
                  for key in row if key.endswith("_ms") and key != "klu_ms") + f"  CHOLMOD: {row['cholmod']}",
              flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
