"""The energy balance's round-off floor of the energy-momentum scheme, measured on the free planar beam of
``tests/physics/test_point_torques.py::test_free_body_under_a_torque[2-beam]`` (6 world-vector elements,
stiffening, a point torque (0.5 + sin 3t) 0.7 N m at X = 0.4 m, 100 steps of 2e-3 s, Newton tolerance 1e-13).

``--split``: per step, H_n+1 - H_n - W_n of the run split into its terms with every quantity evaluated in
long double (numpy.longdouble, 64-bit mantissa) for the stored double states: the kinetic and strain energy
and the torque's work (Fbar . dq), their double evaluations' round-off, the velocity update's rounding
(T(v_n+1) - T(2/dt dq - v_n)), the constraints' work lam . (Phi_n+1 - Phi_n), and dq . R with R the step's
residual evaluated exactly at the stored q_n+1 -- in exact arithmetic the balance of a step is
dq . R - lam . (Phi_n+1 - Phi_n) + T(v_n+1) - T(2/dt dq - v_n). Then the solution of the discrete equations
in long double (Newton's corrections on the exact residual with the step's last matrix), its distance to the
stored q_n+1 in units in the last place, the balance of that solution rounded to double, and the standard
deviation that q_n+1's rounding alone predicts, sqrt(sum_i (K^T dq)_i^2 ulp_i^2 / 12) per step.

``--spread``: max |H - H_0 - W| / max H over nine initial spin rates 4.9 .. 5.1 rad/s and over 20 random
perturbations each of the summation (the Newton matrix's values times 1 + 1e-13 N(0, 1), as a different
assembly order would round them; M's row sums in a random order), for the library's residual and for the
residual before (``Legacy``: 2/dt^2 M q_n+1 - 2/dt^2 M (q_n + dt v_n)).

A measurement, not a test: nothing is asserted. Usage: python benchmarks/energy_floor.py [--split] [--spread]
[--spin 5.0]
"""
import argparse

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from femdyn.beam.body import BeamBody, Section
from femdyn.beam.world import kernels as world_kernels
from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.newton import NewtonOptions
from femdyn.integrators.setup import prepare
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

LD = np.longdouble
DT, STEPS, TORQUE = 2e-3, 100, 0.7


def torque_scale(t):
    return 0.5 + np.sin(3.0 * t)


def build(spin):
    """The test's model and its prepared initial state, spinning at ``spin`` rad/s."""
    b = ModelBuilder(2)
    b.add_beam("body", BeamBody.straight(1.0, 6, Section.rectangle(0.01, 0.02), 2.1e11, 7850.0, dim=2,
                                         axial="cubic", poisson=0.3), stiffening=True)
    b.add_point_torque("body", TORQUE, torque_scale, [0.4, 0.0])
    model = b.build()
    pose = {"position": [0.2, -0.1], "angle": 0.3, "velocity": [0.5, -0.2], "angular_velocity": spin}
    q, v = place(model, {"body": pose}, {})
    return model, prepare(model, q, v)


class Legacy(EnergyMomentum):
    """The residual's mass term as before: 2/dt^2 M q_n+1 - 2/dt^2 M (q_n + dt v_n), the interpreted
    iteration only (the test's model has a varying load: no compiled residual)."""

    class _Product:
        def __init__(self, operator):
            self.operator, self.qb = operator, None

        def __matmul__(self, x):  # ``SaddleSystem.assemble``'s M (qb - qa): M qb instead
            return self.operator @ (x if self.qb is None else self.qb)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._product = self._Product(self.system.mass_operator)

    def step(self, t, qa, va, lam_guess, states):
        self._qa = qa
        self.system.mass_operator = self._product
        try:
            return super().step(t, qa, va, lam_guess, states)
        finally:
            self.system.mass_operator = self._product.operator

    def inertia(self, va):
        return 2.0 / self.dt**2 * (self._product.operator @ (self._qa + self.dt * va))

    def _iterate(self, qa, qa_local, t_mid, inertia, constant_forces, starts, states, qb, lam, tangents):
        self._product.qb = qb
        try:
            return super()._iterate(qa, qa_local, t_mid, inertia, constant_forces, starts, states, qb, lam, tangents)
        finally:
            self._product.qb = None


class RowOrder:
    """M x with each row's products summed one after the other in a random order."""

    def __init__(self, M, rng):
        M = M.tocsr()
        self.rows = []
        for i in range(M.shape[0]):
            a, b = M.indptr[i], M.indptr[i + 1]
            p = rng.permutation(b - a)
            self.rows.append((M.indices[a:b][p], M.data[a:b][p]))

    def __matmul__(self, x):
        out = np.empty(len(self.rows))
        for i, (columns, data) in enumerate(self.rows):
            acc = 0.0
            for j, m in zip(columns, data):
                acc += m * x[j]
            out[i] = acc
        return out


def run(spin, scheme=EnergyMomentum, perturb=None, seed=0, record=None):
    """max |H - H_0 - W| / max H of the 100 steps; ``perturb``: "matrix" or "rows" (module docstring);
    ``record(stepper, k, qa, va, result)`` is called after every step."""
    model, setup = build(spin)
    stepper = scheme(model, DT, setup.active_rows, NewtonOptions(tolerance=1e-13))
    rng = np.random.default_rng(seed)
    if perturb == "matrix":
        inner = stepper._iterate

        def perturbed(*args):
            R, values = inner(*args)
            return R, None if values is None else values * (1.0 + 1e-13 * rng.standard_normal(values.size))
        stepper._iterate = perturbed
    elif perturb == "rows":
        rows = RowOrder(stepper.system.mass, rng)
        if isinstance(stepper, Legacy):
            stepper._product.operator = rows
        else:
            stepper.system.mass_operator = rows
    q, v, lam, states = setup.q0.copy(), setup.v0.copy(), np.zeros(model.m), model.initial_states(setup.q0)
    Q, V, W = [q], [v], [0.0]
    for k in range(STEPS):
        r = stepper.step(k * DT, q, v, lam, states)
        if record is not None:
            record(stepper, k, q, v, r)
        q, v, lam, states = r.q, r.v, r.lam, r.states
        Q.append(q)
        V.append(v)
        W.append(r.work)
    Q, V = np.array(Q), np.array(V)
    kinetic = model.kinetic_momenta(Q, V)[0]
    H = kinetic + model.potential_history(Q, [model.initial_states(Q[0])] * len(Q))
    return np.abs(H - H[0] - np.cumsum(W)).max() / H.max(), H


class Exact:
    """Long-double evaluations for stored double states: T, V (the world beams' strains, their kernel's
    own code run on long doubles), the torque's Fbar (load_kernels.torque in the plane), Phi (every
    constraint is quadratic) and the step's residual R_q."""

    def __init__(self, model):
        self.model = model
        self.M = LD(1) * model.mass_matrix.toarray()
        self.torque = next(f for f in model.forces if type(f).__name__ == "TimeTorque")
        self.elastic = next(f for f in model.forces if type(f).__name__ == "WorldElasticity")

    def T(self, v):
        v = LD(1) * v
        return v @ (self.M @ v) / 2

    def strains(self, q):
        f = self.elastic
        Q = LD(1) * q[f.dofs[0]]
        R, t, beta, lam, gam, C, _ = f.data
        ns, nz = t.shape[1], f.index.shape[1]
        es, Gs = [], []
        for el, index in enumerate(f.index):
            z = np.array([Q[i] if i >= 0 else LD(0) for i in index], dtype=LD)
            e, G = np.zeros(ns, LD), np.zeros((ns, nz), LD)
            work = (np.zeros((4, 2), LD), np.zeros((4, 2), LD), np.zeros(2, LD), np.zeros(2, LD), np.zeros(2, LD))
            world_kernels._strains.py_func(z, 2, R[el], t[el], beta[el], lam[el], gam[el], C[el], e, G, *work)
            es.append(e)
            Gs.append(G)
        return np.array(es), np.array(Gs)

    def V(self, q):
        e = self.strains(q)[0]
        return np.sum(self.elastic.data[-1] * e * e) / 2

    def H(self, q, v):
        return self.T(v) + self.V(q)

    def elastic_force(self, qa, qb):
        """-sum_i k_i ebar_i grad e_i(z_m): Gonzalez's discrete gradient (``beam.world.kernels``)."""
        (ea, Ga), (eb, Gb) = self.strains(qa), self.strains(qb)
        weight = self.elastic.data[-1] * (ea + eb) / 2
        F = np.zeros(self.model.n, LD)
        columns = self.elastic.dofs[0]
        for el, index in enumerate(self.elastic.index):
            for m, i in enumerate(index):
                if i >= 0:
                    F[columns[i]] -= np.sum(weight[el] * (Ga[el, :, m] + Gb[el, :, m]) / 2)
        return F

    def torque_force(self, qa, qb, t_mid):
        """sum_a A_a^T (M/2) J g_a with the dual basis g_a of e_a = A_a z_m (``forces.loads.TimeTorque``)."""
        f = self.torque
        dofs, A = f.dofs[0], LD(1) * f.axes[0]
        E = np.einsum("aij,j->ai", A, (LD(1) * qa[dofs] + LD(1) * qb[dofs]) / 2)
        det = E[0, 0] * E[1, 1] - E[0, 1] * E[1, 0]
        G = np.array([[E[1, 1], -E[1, 0]], [-E[0, 1], E[0, 0]]], dtype=LD) / det  # inv(E)^T
        M = LD(float(f.functions[0](t_mid))) * LD(float(f.torques.ravel()[0]))
        F = np.zeros(self.model.n, LD)
        for a in range(2):
            F[dofs] += np.einsum("ij,i->j", A[a], np.array([-M * G[a, 1], M * G[a, 0]], dtype=LD) / 2)
        return F

    def _forms(self, c):
        return LD(1) * c._hessian, LD(1) * c._constant_jacobian, LD(1) * c.phi(np.zeros(c.dofs.shape))

    def phi(self, q):
        out = np.zeros(self.model.m, LD)
        for c in self.model.constraints:
            H, g, c0 = self._forms(c)
            Q = LD(1) * q[c.dofs]
            out[np.asarray(c.rows).ravel()] = (np.einsum("ki,kmij,kj->km", Q, H, Q) / 2
                                               + np.einsum("kmi,ki->km", g, Q) + c0).ravel()
        return out

    def constraint_force(self, qa, qb, lam):
        """Gbar^T lam with Gbar = G(q_mid), the exact discrete gradient of quadratic rows."""
        out = np.zeros(self.model.n, LD)
        for c in self.model.constraints:
            H, g, _ = self._forms(c)
            G = np.einsum("kmij,kj->kmi", H, (LD(1) * qa[c.dofs] + LD(1) * qb[c.dofs]) / 2) + g
            L = (LD(1) * lam[np.asarray(c.rows).ravel()]).reshape(G.shape[:2])
            np.add.at(out, c.dofs, np.einsum("km,kmi->ki", L, G))
        return out

    def residual(self, qa, va, qb, lam, t_mid):
        dq = LD(1) * qb - LD(1) * qa
        inertial = LD(2) / (LD(DT) * LD(DT)) * (self.M @ (dq - LD(DT) * va))
        return (inertial - self.elastic_force(qa, qb) - self.torque_force(qa, qb, t_mid)
                + self.constraint_force(qa, qb, lam))


def split(spin, scheme):
    """The per-step terms of the module docstring; prints max and rms over the steps, over max H."""
    model, _ = build(spin)
    exact = Exact(model)
    n = model.n
    terms = {name: [] for name in ("balance (double)", "balance (long double)", "dq.R", "lam.dPhi",
                                   "T(v_n+1) - T(2/dt dq - v_n)", "H's evaluation", "W's evaluation",
                                   "solution rounded to double", "solution (long double)", "rounding floor (sd)")}
    ulps = []

    def record(stepper, k, qa, va, r):
        t_mid = k * DT + 0.5 * DT
        qb, vb, lam = r.q, r.v, r.lam
        dq = LD(1) * qb - LD(1) * qa
        H_a, H_b = exact.H(qa, va), exact.H(qb, vb)
        W = exact.torque_force(qa, qb, t_mid) @ dq
        terms["balance (double)"].append(model.kinetic(vb) + model.potential(qb) - model.kinetic(va)
                                         - model.potential(qa) - r.work)
        terms["balance (long double)"].append(H_b - H_a - W)
        terms["dq.R"].append(exact.residual(qa, va, qb, lam, t_mid) @ dq)
        terms["lam.dPhi"].append((LD(1) * lam) @ (exact.phi(qb) - exact.phi(qa)))
        terms["T(v_n+1) - T(2/dt dq - v_n)"].append(exact.T(vb) - exact.T(LD(2) / LD(DT) * dq - va))
        terms["H's evaluation"].append(model.kinetic(vb) + model.potential(qb) - H_b)
        terms["W's evaluation"].append(r.work - W)
        # the discrete equations solved in long double: Newton's corrections with the step's last matrix
        system, s = stepper.system, stepper.scale
        Ap, Ai = system.lu.pattern
        A = sp.csc_matrix((system.lu.current, Ai, Ap), shape=(system.size,) * 2)
        lu = spla.splu(A)
        q_star, lam_star = LD(1) * qb, LD(1) * lam
        for _ in range(4):
            R = np.concatenate([exact.residual(qa, va, q_star, lam_star, t_mid), s * exact.phi(q_star)])
            dx = -lu.solve(np.asarray(R, float))
            q_star, lam_star = q_star + dx[:n], lam_star + s * dx[n:]

        def balance(q_b, v_b):
            return exact.H(q_b, v_b) - H_a - exact.torque_force(qa, q_b, t_mid) @ (LD(1) * q_b - LD(1) * qa)
        rounded = np.asarray(q_star, float)
        terms["solution rounded to double"].append(balance(rounded, 2.0 / DT * (rounded - qa) - va))
        terms["solution (long double)"].append(balance(q_star, LD(2) / LD(DT) * (q_star - LD(1) * qa) - va))
        ulp = np.spacing(np.abs(qb))
        ulps.append(np.abs(np.asarray(LD(1) * qb - q_star, float)) / ulp)
        Ktdq = (A.T @ np.concatenate([np.asarray(dq, float), np.zeros(system.size - n)]))[:n]
        terms["rounding floor (sd)"].append(np.sqrt(np.sum(Ktdq**2 * ulp**2) / 12))

    worst, H = run(spin, scheme, record=record)
    print(f"{scheme.__name__} at {spin} rad/s: max |H - H_0 - W| = {worst:.2e} of max H = {H.max():.4f} J")
    print(f"  {'per step, over max H':34s} {'max':>9s} {'rms':>9s} {'cumulated max':>14s}")
    for name, values in terms.items():
        x = np.asarray(values, float) / H.max()
        # the floor's sd cumulates as a random walk's, sqrt(sum sd^2)
        cumulated = np.sqrt(np.sum(x**2)) if name.startswith("rounding") else np.abs(np.cumsum(x)).max()
        print(f"  {name:34s} {np.abs(x).max():9.2e} {np.sqrt(np.mean(x**2)):9.2e} {cumulated:14.2e}")
    U = np.array(ulps)
    print("  |q_n+1 - solution| in ulps of q_n+1, rms over the steps: phi, d_1, d_2",
          np.round(np.sqrt((U[:, :6] ** 2).mean(0)), 1))


def spread():
    spins = np.linspace(4.9, 5.1, 9)
    for scheme in (Legacy, EnergyMomentum):
        worst = [run(spin, scheme)[0] for spin in spins]
        print(f"{scheme.__name__:14s} spins 4.9 .. 5.1: " + " ".join(f"{w:.1e}" for w in worst)
              + f"  max {max(worst):.2e}", flush=True)
        for kind in ("matrix", "rows"):
            worst = np.array([run(5.0, scheme, kind, seed)[0] for seed in range(20)])
            print(f"{scheme.__name__:14s} 20 perturbations ({kind}) at 5 rad/s: min {worst.min():.1e} median "
                  f"{np.median(worst):.1e} max {worst.max():.2e}, above 1e-12: {(worst > 1e-12).sum()}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", action="store_true")
    parser.add_argument("--spread", action="store_true")
    parser.add_argument("--spin", type=float, default=5.0)
    args = parser.parse_args()
    if args.split or not args.spread:
        for scheme in (Legacy, EnergyMomentum):
            split(args.spin, scheme)
    if args.spread or not args.split:
        spread()


if __name__ == "__main__":
    main()
