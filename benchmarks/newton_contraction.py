"""How simplified Newton contracts on the flexible pendulums of ``exudyn_compare.py`` (issue 37): its stopping
rules, and a Newton matrix kept across steps, as it is or co-rotated.

Along the stepper's own run (generalized-alpha, rho_inf = 0.9, simplified Newton, tolerance 1e-10), every
step after the first is iterated again here from its predictor, in Python, with

* the step's own matrix (factorised at the predictor, then residual-only iterations, as
  ``integrators.newton.Newton``): the increments |dq_k| and the errors |q_k - q*| against the step's
  solution q* (full Newton to round-off), and where three stopping rules would end the step -- the
  increment test |dq_k| <= bound alone (``Newton``'s for an increment of the kept matrix), the estimate
  Theta / (1 - Theta) |dq_k| <= bound (Hairer & Wanner IV.8, ``newton.newton_converged``) with Theta
  from the first residual-only increment over the factorising one ("textbook"), and the same with Theta
  from two residual-only increments only ("two residual-only");
* with ``--kept`` (the spatial pendulum; the 3-PRR below), the matrix of the step ``age`` = 1 .. 8 steps before, at its own
  predictor q0: as it is, and co-rotated, dx = -T S0^-1 T^T R with T = block-diag(R on every world
  3-vector of the unknowns -- phi, the directors, w_k, s_k of the beam, the ground's vectors and the
  vector rows' multipliers (anchor, spherical joint) --, 1 on the rest: the twists psi_k, the scalar rows'
  multipliers) and R = D D0^T from the frame's directors D = [d_1 d_2 d_3]. The Newton matrix is
  rotation-covariant, S(T q) = T S(q) T^T (strain energy invariant, mass blocks m_ij I, orthonormality and
  slope rows scalar, the joint rows world vectors), checked here at one state for a turn of 0.5 rad:
  its contraction, the iterations it needs under the increment test and the two-residual-only estimate,
  and the time per step projected with per-part costs (``--costs``: a factorising iteration, a
  residual-only one and the rest of a step, us; default the N = 64 figures of benchmarks/README.md,
  "Where a step of N = 64 at dt = 6.25e-4 goes") for a matrix refactorised every m steps.

``--kind 3prr --kept``: the FEM 3-PRR of ``cases/3prr_sine.toml`` (``--elements`` per link, the case's dt and
rho_inf), its kept matrices co-rotated body by body (``BodyRotations``): R_b = D_b D_b0^T on each body's
vectors, the ground's fixed, a revolute joint's two rows turned with its second body (``--rows-with body1``:
its first) -- exact for one body turning alone, approximate where joints couple bodies that turn apart.

A measurement, not a test: nothing is asserted. Slow (Python iterations; N = 64, 1600 steps with
``--kept``: 20 s to 7 minutes, with the machine's load).

Usage: python benchmarks/newton_contraction.py [--kind spatial|planar|3prr] [--elements 16] [--dt 6.25e-4]
                                               [--t-end 1.0] [--kept] [--costs 320 46 139]
                                               [--rows-with body1|body2]
"""
import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from exudyn_flexible import FemdynPendulum
from spatial_pendulum import SpatialPendulum

from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from femdyn.integrators.setup import prepare
from femdyn.integrators.newton import NewtonOptions
from femdyn.model.reactions import vector_starts
from femdyn.numerics.linalg import FixedPatternLU

ITERATIONS = 7  # residual-only increments followed per matrix
CASE = Path(__file__).resolve().parent.parent / "cases" / "3prr_sine.toml"
AGES = tuple(range(1, 9))  # steps a kept matrix is old
PERIODS = (2, 3, 4, 6, 8)  # refactorisation every m steps (projection)
RULES = {"increment": None, "textbook": 1, "two residual-only": 2}  # the estimate from iteration index
# with a kept matrix also |dq_k| <= bound / 10, whose errors are those of the step's own matrix's increment test
KEPT_RULES = ("increment", "increment / 10", "two residual-only")


class Pendulum:
    """The stepper of a pendulum and the Newton iteration of a step done by hand."""

    def __init__(self, kind, elements, dt):
        rho_inf = 0.9
        if kind == "3prr":
            case = load_case(CASE, Options(model="fem", elements=elements))
            self.model, dt, rho_inf = case.model, case.settings.dt, case.settings.rho_inf
            self.setup = prepare(case.model, case.q0, case.v0, tolerance=case.settings.initial_tolerance)
        else:
            problem = SpatialPendulum(elements) if kind == "spatial" else FemdynPendulum(elements)
            self.model, self.setup = problem.model, problem.setup
        self.stepper = GeneralizedAlpha(self.model, dt, self.setup.active_rows,
                                        NewtonOptions(tolerance=1e-10, modified=True), rho_inf=rho_inf)
        system = self.system = self.stepper.system
        self.n, self.size = self.model.n, self.model.n + len(system.active)
        self.lu = FixedPatternLU(system.pattern.indptr, system.pattern.indices)

    def matrix(self, values):
        pattern = self.system.pattern
        return sp.csc_matrix((values, pattern.indices, pattern.indptr), shape=(self.size, self.size))

    def iterate(self, step, start, lam, solve, solution, count=ITERATIONS):
        """|dq_k| and |q_k - solution| of ``count`` residual-only iterations x += solve(-R)."""
        q, lam, sizes, errors = start.copy(), lam.copy(), [], []
        for _ in range(count):
            R, _ = self.stepper._newton_system(step, q, lam, False)
            dx = solve(-R)
            q += dx[: self.n]
            lam[self.system.active] += self.stepper.scale * dx[self.n :]
            sizes.append(np.abs(dx[: self.n]).max())
            errors.append(np.abs(q - solution).max())
        return np.array(sizes), np.array(errors)

    def solution(self, step, start, lam):
        """The step's solution: full Newton to round-off."""
        q, lam = start.copy(), lam.copy()
        for _ in range(8):
            R, values = self.stepper._newton_system(step, q, lam, True)
            self.lu.factor(values.copy())
            dx = self.lu.solve(-R)
            q += dx[: self.n]
            lam[self.system.active] += self.stepper.scale * dx[self.n :]
        return q


class Rotation:
    """T of the spatial pendulum (module docstring): the world 3-vectors of its unknowns."""

    def __init__(self, pendulum):
        model, n = pendulum.model, pendulum.n
        labels = model.constraint_labels()[pendulum.system.active]
        vector_rows = [i for i, label in enumerate(labels) if label.startswith(("anchor", "spherical"))]
        starts = [s for body in range(len(model.bodies) + 1) for s in vector_starts(model, body)]
        self.starts = np.array(starts + [n + r for r in vector_rows[::3]])
        self.size, self.directors = pendulum.size, model.flexible[0].d

    def frame(self, q):
        return q[self.directors].reshape(3, 3).T  # D = [d_1 d_2 d_3]

    def between(self, q, q0):
        """T of the frame's turn from q0 to q."""
        return self.T(self.frame(q) @ self.frame(q0).T)

    def T(self, R):
        return block_rotation(self.size, [(s, R) for s in self.starts])


class BodyRotations:
    """T of a model's bodies turned each by its own R_b = D_b D_b0^T (module docstring)."""

    def __init__(self, pendulum, rows_with):
        model = pendulum.model
        self.dim, self.size, self.bodies = model.dim, pendulum.size, len(model.bodies)
        self.starts = [vector_starts(model, b) for b in range(self.bodies)]
        self.directors = [model.body_dofs(b)[self.dim : self.dim * (self.dim + 1)] for b in range(self.bodies)]
        joints = {j.name: j for j in model.joints}
        labels = model.constraint_labels()[pendulum.system.active]
        firsts = {}  # a revolute joint's first row -> the body whose R turns its rows
        for i, label in enumerate(labels):
            if label.startswith("revolute") and label.split("'")[1] not in firsts.values():
                joint = joints[label.split("'")[1]]
                firsts[pendulum.n + i] = joint.name
        self.rows = [(row, getattr(joints[name], rows_with)) for row, name in firsts.items()]

    def frame(self, q, body):
        return q[self.directors[body]].reshape(self.dim, self.dim).T

    def between(self, q, q0):
        R = [self.frame(q, b) @ self.frame(q0, b).T for b in range(self.bodies)]
        blocks = [(s, R[b]) for b in range(self.bodies) for s in self.starts[b]]
        blocks += [(row, R[b]) for row, b in self.rows if b < self.bodies]  # the ground's rows stay
        return block_rotation(self.size, blocks)


def block_rotation(size, blocks):
    """The sparse T (size x size) with the rotation R on the diagonal block of each (start, R) of ``blocks``
    (a vector's coordinates start .. start + dim - 1) and 1 on every other diagonal entry."""
    rows, cols, vals = [], [], []
    turned = np.zeros(size, dtype=bool)
    for s, R in blocks:
        dim = R.shape[0]
        i, j = np.meshgrid(s + np.arange(dim), s + np.arange(dim), indexing="ij")
        rows += i.ravel().tolist(); cols += j.ravel().tolist(); vals += R.ravel().tolist()
        turned[s : s + dim] = True
    rest = np.nonzero(~turned)[0]
    rows += rest.tolist(); cols += rest.tolist(); vals += [1.0] * rest.size
    return sp.csr_matrix((vals, (rows, cols)), shape=(size, size))


def stops(sizes, errors, bounds, estimate_from, strict=1.0):
    """Iterations per step and the errors at the stop (over the bound) of the increment test |dq_k| <=
    ``strict`` bound, or also the estimate Theta / (1 - Theta) |dq_k| <= bound from the increment index
    ``estimate_from`` on."""
    iterations, at_stop = [], []
    for d, e, bound in zip(sizes, errors, bounds):
        for k in range(len(d)):
            stop = d[k] <= strict * bound
            if estimate_from is not None and k >= estimate_from:
                theta = d[k] / d[k - 1]
                stop |= theta < 1.0 and theta / (1.0 - theta) * d[k] <= bound
            if stop:
                break
        iterations.append(k + 1)
        at_stop.append(e[k] / bound)
    return np.array(iterations), np.array(at_stop)


def run(pendulum, t_end, kept, rotation):
    """The records of every step after the first: bounds, own (sizes, errors), and with ``kept``
    {(age, "plain" | "co-rotated"): (sizes, errors)}."""
    stepper, system, model = pendulum.stepper, pendulum.system, pendulum.model
    dt = stepper.dt
    q, v, lam, states = pendulum.setup.q0, pendulum.setup.v0, np.zeros(model.m), model.initial_states(pendulum.setup.q0)
    bounds, own, old, matrices = [], [], {}, {}
    for k in range(int(round(t_end / dt))):
        if k:
            step = stepper._begin(k * dt, q, v, states)
            start = stepper.predictor(step)
            lam0 = system.active_multipliers(lam)
            solution = pendulum.solution(step, start, lam0)
            values = stepper._newton_system(step, start, lam0, True)[1].copy()
            bounds.append(1e-10 * max(1.0, np.abs(start).max()))
            pendulum.lu.factor(values)
            own.append(pendulum.iterate(step, start, lam0, pendulum.lu.solve, solution))
            if kept:
                if len(own) == 2 and isinstance(rotation, Rotation):  # the covariance, once
                    check_covariance(pendulum, rotation, step, start, lam0, values)
                for age in AGES:
                    if k - age not in matrices:
                        continue
                    values0, q0 = matrices[k - age]
                    pendulum.lu.factor(values0)
                    T = rotation.between(start, q0)
                    old.setdefault((age, "co-rotated"), []).append(pendulum.iterate(
                        step, start, lam0, lambda r: T @ pendulum.lu.solve(T.T @ r), solution))
                    old.setdefault((age, "plain"), []).append(
                        pendulum.iterate(step, start, lam0, pendulum.lu.solve, solution, 3))
                matrices[k] = (values, start)
                matrices.pop(k - AGES[-1], None)
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states = r.q, r.v, r.lam, r.states
    return np.array(bounds), own, old


def check_covariance(pendulum, rotation, step, start, lam, values):
    """Prints max |S(T q) - T S(q) T^T| / max |S| for a turn of 0.5 rad about a fixed axis (Rodrigues)."""
    axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    R = np.eye(3) + np.sin(0.5) * K + (1.0 - np.cos(0.5)) * K @ K
    T = rotation.T(R)
    turned = pendulum.stepper._newton_system(step, T[: pendulum.n, : pendulum.n] @ start, lam, True)[1].copy()
    A, B = pendulum.matrix(turned), T @ pendulum.matrix(values) @ T.T
    print(f"covariance: max |S(T q) - T S(q) T^T| / max |S| = {abs(A - B).max() / abs(A).max():.2e}")


def ratios(sizes, k):
    return np.array([d[k + 1] / d[k] for d in sizes])


def report(bounds, own, old, costs):
    sizes, errors = [o[0] for o in own], [o[1] for o in own]
    skip = AGES[-1] if old else 0  # compare the same steps: those with every age
    bounds, sizes, errors = bounds[skip:], sizes[skip:], errors[skip:]
    first = np.median([d[0] for d in sizes]) / np.median(bounds)
    print(f"{len(bounds)} steps; own matrix: |dq_1| / bound median {first:.3g}, "
          f"d2/d1 median {np.median(ratios(sizes, 0)):.2g}, d3/d2 median {np.median(ratios(sizes, 1)):.2g}, "
          f"(d3/d2) / (d2/d1) median {np.median(ratios(sizes, 1) / ratios(sizes, 0)):.3g}, "
          f"max {np.max(ratios(sizes, 1) / ratios(sizes, 0)):.3g}")
    counts = {}
    for rule, start in RULES.items():
        iterations, at_stop = stops(sizes, errors, bounds, start)
        counts[rule] = iterations
        print(f"  stop by {rule:18s}: {iterations.mean():.3f} iterations per step, "
              f"error / bound max {at_stop.max():.2g}, "
              f"steps above 1: {np.sum(at_stop > 1)}")
    if not old:
        return
    factorising, residual, rest = costs
    base = rest + factorising + (counts["increment"] - 1) * residual  # ``Newton`` as it stops
    print(f"kept matrices (the same steps); time per step projected with {factorising:g} / {residual:g} / {rest:g} us, "
          f"own matrix {base.mean():.0f} us:")
    kept = {}
    for age in AGES:
        plain = [o[0] for o in old[(age, "plain")]][-len(bounds):]
        turned = old[(age, "co-rotated")][-len(bounds):]
        d, e = [o[0] for o in turned], [o[1] for o in turned]
        line = (f"  age {age}: plain d2/d1 median {np.median(ratios(plain, 0)):.2g} (below 0.1: "
                f"{100 * np.mean(ratios(plain, 0) < 0.1):.0f} %); co-rotated d2/d1 {np.median(ratios(d, 0)):.2g}, "
                f"d3/d2 {np.median(ratios(d, 1)):.2g}, d4/d3 {np.median(ratios(d, 2)):.2g} (medians)")
        for rule in KEPT_RULES:
            iterations, at_stop = stops(d, e, bounds, RULES.get(rule), 0.1 if rule == "increment / 10" else 1.0)
            kept[age, rule] = iterations
            line += f"; {rule}: {iterations.mean():.2f} iterations, error / bound max {at_stop.max():.2g}"
        print(line)
    for rule in KEPT_RULES:
        for m in PERIODS:
            cost = [base[s] if s % m == 0 else rest + kept[s % m, rule][s] * residual for s in range(len(bounds))]
            print(f"  co-rotated, refactorised every {m} steps, stop by {rule}: {np.mean(cost):.0f} us per step, "
                  f"{np.mean(cost) / base.mean():.2f} of the own matrix's")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("spatial", "planar", "3prr"), default="spatial")
    parser.add_argument("--elements", type=int, default=16, help="elements (per link of the 3-PRR)")
    parser.add_argument("--rows-with", choices=("body1", "body2"), default="body2",
                        help="3prr: the body whose turn turns a revolute joint's rows")
    parser.add_argument("--dt", type=float, default=6.25e-4)
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--kept", action="store_true",
                        help="matrices kept across steps, plain and co-rotated (spatial, 3prr)")
    parser.add_argument("--costs", type=float, nargs=3, default=(320.0, 46.0, 139.0),
                        metavar=("FACTORISING", "RESIDUAL", "REST"), help="us per part (projection)")
    args = parser.parse_args()
    if args.kept and args.kind == "planar":
        parser.error("--kept: the spatial pendulum or the 3-PRR")
    pendulum = Pendulum(args.kind, args.elements, args.dt)
    rotation = None
    if args.kept:
        rotation = Rotation(pendulum) if args.kind == "spatial" else BodyRotations(pendulum, args.rows_with)
    print(f"{args.kind}, N = {args.elements}, dt = {pendulum.stepper.dt:g}, {args.t_end:g} s")
    report(*run(pendulum, args.t_end, args.kept, rotation), args.costs)


if __name__ == "__main__":
    main()
