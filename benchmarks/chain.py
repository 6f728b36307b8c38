"""Planar pendulum chain of N rigid links under gravity, energy-momentum scheme, fixed number of steps.

Prints time per step, Newton iterations per step and time per body per Newton iteration for each N,
the ratio of the per-step times (linear growth means about 10 per decade of N), and writes JSON.
Usage: python benchmarks/chain.py [--links 10 100 1000] [--steps 1000] [--json FILE]
"""
import argparse
import json
import time

import numpy as np

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.setup import prepare
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place


def chain(n_links, length=0.1, mass=0.1):
    b = ModelBuilder(2)
    for i in range(n_links):
        b.add_body(f"link{i}", mass, [mass * length**2 / 12, mass * 0.01**2 / 12])
    b.add_joint("j0", "revolute", "ground", "link0", point2=[-length / 2, 0.0])
    for i in range(1, n_links):
        b.add_joint(f"j{i}", "revolute", f"link{i - 1}", f"link{i}", point1=[length / 2, 0.0], point2=[-length / 2, 0.0])
    b.set_gravity([0.0, -9.81])
    model = b.build()
    q, v = place(model, {}, {f"j{i}": {"angle": 0.0 if i else -0.3} for i in range(n_links)})
    return model, prepare(model, q, v)


def run_steps(model, setup, stepper, steps):
    """Step from the prepared state; returns the final q, v, the Newton iterations and the seconds."""
    dt = stepper.dt
    q, v, lam = setup.q0, setup.v0, np.zeros(model.m)
    states = model.initial_states(q)
    iterations = 0
    start = time.perf_counter()
    for k in range(steps):
        r = stepper.step(k * dt, q, v, lam, states)
        q, v, lam, states, iterations = r.q, r.v, r.lam, r.states, iterations + r.iterations
    return q, v, iterations, time.perf_counter() - start


def measure(n_links, steps, dt):
    model, setup = chain(n_links)
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    h0 = model.kinetic(setup.v0) + model.potential(setup.q0)
    q, v, iterations, elapsed = run_steps(model, setup, stepper, steps)
    drift = abs(model.kinetic(v) + model.potential(q) - h0) / abs(h0)
    return dict(links=n_links, unknowns=stepper.size, steps=steps, seconds=elapsed,
                ms_per_step=1e3 * elapsed / steps, newton_per_step=iterations / steps,
                us_per_body_iteration=1e6 * elapsed / iterations / n_links, energy_drift=drift)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    rows = [measure(n, args.steps, args.dt) for n in args.links]
    print(f"{'links':>6} {'unknowns':>9} {'ms/step':>9} {'Newton/step':>12} {'us/body/iter':>13} {'energy drift':>13}")
    for r in rows:
        print(f"{r['links']:6d} {r['unknowns']:9d} {r['ms_per_step']:9.3f} {r['newton_per_step']:12.2f} "
              f"{r['us_per_body_iteration']:13.2f} {r['energy_drift']:13.2e}")
    for a, b in zip(rows, rows[1:]):
        print(f"time per step N={b['links']} / N={a['links']}: {b['ms_per_step'] / a['ms_per_step']:.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
