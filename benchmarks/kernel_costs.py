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

``--step DT`` times instead the parts of a simplified generalized-alpha step of the spatial pendulum
(``exudyn_compare.py``'s: rho_inf 0.9, tolerance 1e-10, 1 s) at that dt: the whole ``simulate`` (us per step,
least of three), then each part of ``integrators.kernels.newton_loop`` alone on its arguments at step
``PARTS_STEP`` (taken from a run of the steps one by one): the beam kernel with and without its tangent, M q,
the copy of the mass entries, ``assemble`` with the matrix and for the residual alone, KLU's refactorisation
with klu_rcond, a solve, a step of refinement -- each in a compiled loop, so without the interpreter's call.
``--perf-map`` (with ``--step``) writes ``/tmp/perf-PID.map`` at the end, naming numba's kernels (their
object files' symbols, at the addresses the execution engine gave them) for ``perf report``:

    perf record -o /tmp/k.data python benchmarks/kernel_costs.py --elements 64 --step 6.25e-4 --perf-map
    perf report -i /tmp/k.data --no-children --sort dso,sym -g none

Usage: python benchmarks/kernel_costs.py [--elements 16 64 256] [--kinds planar spatial] [--batches 40]
                                        [--kernel-only] [--step DT [--perf-map]]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):  # one thread
    os.environ.setdefault(_var, "1")

import argparse
import copy
import gc
import inspect
import struct
import time

import numpy as np
import scipy.sparse as sp
from exudyn_flexible import FemdynPendulum
from numba import njit
from spatial_pendulum import SpatialPendulum

from femdyn.beam.world.elasticity import WorldElasticity
from femdyn.integrators import stepping
from femdyn.integrators.saddle import KeptLU
from femdyn.integrators.settings import SolverSettings
from femdyn.integrators.time_loop import simulate
from femdyn.numerics import compiled as compiled_kernels
from femdyn.numerics import elf, klu, linalg
from femdyn.numerics.lazy import compiled

ANALYSES = {"AMD": (0, 0), "COLAMD + BTF": (1, 1), "AMD + BTF": (0, 1), "COLAMD": (1, 0)}
DT, STEPS = 1.25e-3, 40
PARTS_STEP = 400  # the step of ``--step`` whose ``newton_loop`` arguments the parts are timed on


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


def _settings(dt, t_end):
    return SolverSettings(dt=dt, t_end=t_end, integrator="generalized-alpha", rho_inf=0.9, tolerance=1e-10,
                          newton="modified")


def loop_arguments(problem, dt):
    """The arguments of ``newton_loop`` at step ``PARTS_STEP`` (by name), from a run of the steps one by one."""
    kernels = compiled("femdyn.integrators.kernels")
    loop, taken = kernels.newton_loop, []
    names = list(inspect.signature(loop.py_func).parameters)

    def capture(*args):
        taken.append(copy.deepcopy(args) if len(taken) == PARTS_STEP else None)
        return loop(*args)
    of, kernels.newton_loop = stepping.AlphaSteps.of, capture
    stepping.AlphaSteps.of = classmethod(lambda cls, stepper: None)
    try:
        simulate(problem.setup, _settings(dt, (PARTS_STEP + 2) * dt))
    finally:
        kernels.newton_loop, stepping.AlphaSteps.of = loop, of
    return dict(zip(names, taken[PARTS_STEP]))


@njit
def _beam_calls(reps, Qb, data, F, dF, start, grad):
    for _ in range(reps):
        _BEAMS.step(Qb, Qb, True, *data, F, dF, start, grad, True)


@njit
def _mass_products(reps, indptr, indices, values, q, out):  # newton_loop's M qb
    for _ in range(reps):
        for i in range(q.size):
            acc = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                acc += values[k] * q[indices[k]]
            out[i] = acc


@njit
def _copies(reps, values):
    for _ in range(reps):
        copied = values.copy()
    return copied


@njit
def _assembles(reps, mass_values, fresh, head, tail):
    for _ in range(reps):
        values = mass_values.copy() if fresh else mass_values[:0]
        _LOOP.assemble(head[0], values, *head[1:], *tail)


@njit
def _refines(reps, handles, Ap, Ai, values, b, x):
    for _ in range(reps):
        y = x.copy()
        klu.refine(handles[0], handles[1], handles[2], Ap, Ai, values, b, y, 1)


_BEAMS = compiled("femdyn.beam.world.kernels")
_LOOP = compiled("femdyn.integrators.kernels")


def step_parts(n, dt, batches):
    """us per step of ``simulate`` and us per call of each part of its Newton iteration (module docstring)."""
    problem = SpatialPendulum(n)
    simulate(problem.setup, _settings(dt, 5 * dt))
    settings = _settings(dt, 1.0)
    runs = []
    for _ in range(3):
        start = time.process_time()
        results = simulate(problem.setup, settings)
        runs.append(time.process_time() - start)
    a = loop_arguments(problem, dt)
    qb, nf = a["qb"], a["F_at"].size
    Qb, F, dF = np.ascontiguousarray(qb[a["F_at"]][None]), np.zeros((1, nf)), np.zeros((1, a["dF_at"].size))
    data = tuple(a[k] for k in ("dim", "index", "R_e", "t_e", "beta", "lam_e", "gamma", "C_e", "k_e"))
    Mq, R = np.empty(qb.size), np.empty(qb.size + a["active"].size)
    _mass_products(1, a["M_indptr"], a["M_indices"], a["M_data"], qb, Mq)
    _beam_calls(1, Qb, data, F, dF, a["start"], a["start_grad"])
    names = list(a)
    batch = tuple(a[k] for k in names[names.index("at"):names.index("phi_at") + 1])
    head = (R, qb, a["lam"].copy(), Mq, a["mass_factor"], a["inertia"], a["constant"], F[0], a["F_at"],
            np.array([0, nf]), dF[0], a["dF_at"], a["tangents"], a["G_a"], a["scale"], a["tangent"])
    values = a["mass_values"].copy()
    _LOOP.assemble(R, values, *head[1:], *batch)  # the step's first matrix and residual
    lu = linalg.FixedPatternLU(a["Ap"], a["Ai"])  # KLU's own, for the times: the run's is gone
    lu.factor(values)
    h = lu.handles
    x = klu.solve(h[0], h[1], h[2], R, -1.0)
    reps = max(3, 200_000 // a["Ai"].size)
    parts = {
        "beam kernel, forces and tangent": least(lambda r: _beam_calls(r, Qb, data, F, dF, a["start"], a["start_grad"]),
                                                 reps, batches),
        "beam kernel, forces alone": least(lambda r: _beam_calls(r, Qb, data, F, np.zeros((1, 0)), a["start"],
                                                                  a["start_grad"]), reps, batches),
        "M q": least(lambda r: _mass_products(r, a["M_indptr"], a["M_indices"], a["M_data"], qb, Mq), reps, batches),
        "copy of the mass entries": least(lambda r: _copies(r, a["mass_values"]), reps, batches),
        "assemble with the matrix (the copy included)": least(lambda r: _assembles(r, a["mass_values"], True, head,
                                                                                   batch), reps, batches),
        "assemble, residual alone": least(lambda r: _assembles(r, a["mass_values"], False, head,
                                                               (batch[0][:0], *batch[1:])), reps, batches),
        "KLU refactorisation with klu_rcond": least(lambda r: _refactors(lu._Ap, lu._Ai, values, *h[:3], r), reps,
                                                    batches),
        "KLU solve": least(lambda r: _solves(*h[:3], R, r), reps, batches),
        "refinement step": least(lambda r: _refines(r, h, lu._Ap, lu._Ai, values, -R, x), reps, batches)}
    steps = settings.steps
    return dict(us_per_step=1e6 * min(runs) / steps, iterations=float(np.sum(results.iterations)) / steps,
                factorisations=results.factorisations / steps, parts=parts)


def stash_objects():
    """Keep each cached kernel's object file as numba loads it (``compiled.CachedLibrary``), for ``perf_map``."""
    load = compiled_kernels.CachedLibrary._set_compiled_object

    def stash(self, value):
        self.stashed = value
        return load(self, value)
    compiled_kernels.CachedLibrary._set_compiled_object = stash


def perf_map():
    """/tmp/perf-PID.map of the functions of every kernel loaded from the cache since ``stash_objects``: each
    symbol of its object file (ELF-64: ``elf``'s layout) with its size, at the address numba's execution engine
    gave it. Returns the number of functions named."""
    from numba.core.registry import CPUDispatcher
    named = set()
    for dispatcher in (o for o in gc.get_objects() if isinstance(o, CPUDispatcher)):
        for result in dispatcher.overloads.values():
            library, data = result.library, getattr(result.library, "stashed", None)
            if data is None or data[:6] != b"\x7fELF\x02\x01":
                continue
            offset = struct.unpack_from("<Q", data, 0x28)[0]
            size, count = struct.unpack_from("<HH", data, 0x3A)
            sections = [elf.SECTION.unpack_from(data, offset + k * size) for k in range(count)]
            table = next(s for s in sections if s[1] == elf.SYMTAB)
            strings = sections[table[6]][4]
            for name, info, _, index, _, length in elf.SYMBOL.iter_unpack(data[table[4]: table[4] + table[5]]):
                if index and name and info & 0xF == 2 and length:  # a defined function (STT_FUNC)
                    begin = strings + name
                    symbol = data[begin: data.index(b"\0", begin)].decode()
                    address = library._codegen._engine.get_function_address(symbol)
                    if address:
                        named.add((address, length, symbol))
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        out.writelines(f"{address:x} {length:x} {symbol}\n" for address, length, symbol in sorted(named))
    return len(named)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--kinds", nargs="+", default=["planar", "spatial"], choices=["planar", "spatial"])
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--kernel-only", action="store_true", help="time the beam kernel alone, not KLU's options")
    parser.add_argument("--step", type=float, default=None, metavar="DT",
                        help="the parts of a simplified step of the spatial pendulum at this dt instead")
    parser.add_argument("--perf-map", action="store_true", help="with --step: write /tmp/perf-PID.map for perf")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.step is not None:
        if args.perf_map:
            stash_objects()
        for n in args.elements:
            res = step_parts(n, args.step, args.batches)
            print(f"\nspatial N = {n}, dt = {args.step:g}: {res['us_per_step']:.1f} us per step (simulate), "
                  f"{res['iterations']:.3f} iterations, {res['factorisations']:.3f} factorisations per step; "
                  f"alone, us per call:")
            for label, value in res["parts"].items():
                print(f"  {label:45s} {value:8.1f}")
        if args.perf_map:
            print(f"perf map: {perf_map()} functions in /tmp/perf-{os.getpid()}.map")
        return
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
