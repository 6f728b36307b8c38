"""Flexible-link benchmarks: wall time of the FEM 3-PRR of 003 and the cost growth of a flexible
pendulum in N.

1. ``cases/3prr_sine.toml`` as FEM with 4 elements per body (and as rigid, for reference), with the
   energy-momentum scheme and with generalized-alpha (the case's rho_inf and Newton options): wall time for the whole
   run (4 s of simulated time; median and best of ``--repeat`` interleaved rounds -- each runs the four
   model/integrator pairs once, in alternating order --, a new stepper each: the shared
   machine's speed varies by up to 2x within minutes, and the best run is the one least slowed by
   others), Newton iterations per step, real-time factor (simulated / wall time; > 1 is faster than
   real time).
2. A pinned flexible pendulum (steel 10 x 10 mm, L = 1 m, gravity, released horizontal) with N
   Euler-Bernoulli elements, 1 s at dt = 1e-3: time per step for each N and the growth per doubling
   of N (2.0 is linear).

Usage: python benchmarks/3prr.py [--dt 2e-3] [--t-end 4] [--repeat 3] [--elements 16 64 256 1024]
                                 [--pendulum-steps 1000] [--json FILE]
"""
import argparse
import json
import pathlib

import numpy as np
from chain import run_steps

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from femdyn.integrators.setup import prepare
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

CASE = pathlib.Path(__file__).resolve().parent.parent / "cases" / "3prr_sine.toml"


def three_prr(model_kind, integrator, dt, t_end):
    """The 3-PRR as ``model_kind`` with ``integrator``: a function making one timed run (a new stepper)."""
    case = load_case(CASE, Options(model=model_kind, elements=4))
    setup = prepare(case.model, case.q0, case.v0)
    steps = int(round(t_end / dt))

    def run():
        if integrator == "generalized-alpha":
            stepper = GeneralizedAlpha(case.model, dt, setup.active_rows, case.settings.newton_options,
                                       rho_inf=case.settings.rho_inf)
        else:
            stepper = EnergyMomentum(case.model, dt, setup.active_rows)
        _, _, iterations, elapsed = run_steps(case.model, setup, stepper, steps)
        return dict(model=model_kind, integrator=integrator, unknowns=stepper.size, steps=steps, dt=dt,
                    seconds=elapsed, newton_per_step=iterations / steps)

    run_steps(case.model, setup, EnergyMomentum(case.model, dt, setup.active_rows), 3)  # warm-up: kernels loaded
    return run


def three_prr_interleaved(dt, t_end, rounds):
    """Every model and integrator once per round, the order reversed in every other round; median and
    best of the rounds."""
    runs = {(kind, integrator): three_prr(kind, integrator, dt, t_end) for kind in ("rigid", "fem")
            for integrator in ("energy-momentum", "generalized-alpha")}
    seconds, first = {key: [] for key in runs}, {}
    for k in range(rounds):
        for key in (list(runs) if k % 2 == 0 else list(runs)[::-1]):
            r = runs[key]()
            first.setdefault(key, r)
            seconds[key].append(r["seconds"])
    out = []
    for key, r in first.items():
        median, best = float(np.median(seconds[key])), min(seconds[key])
        out.append(dict(r, seconds=median, best_seconds=best, all_seconds=seconds[key],
                        ms_per_step=1e3 * median / r["steps"], real_time_factor=t_end / median,
                        best_real_time_factor=t_end / best))
    return out


def pendulum(n_elements, dt, steps):
    beam = BeamBody.straight(1.0, n_elements, Section.rectangle(0.01, 0.01), 2.1e11, 7850.0)
    b = ModelBuilder(2)
    b.add_beam("beam", beam, stiffening=True)
    b.add_joint("pin", "revolute", "ground", "beam")
    b.set_gravity([0.0, -9.81])
    model = b.build()
    q, v = place(model, {}, {"pin": {"angle": 0.0}})
    setup = prepare(model, q, v)
    stepper = EnergyMomentum(model, dt, setup.active_rows)
    _, _, iterations, seconds = run_steps(model, setup, stepper, steps)
    return dict(elements=n_elements, unknowns=stepper.size, steps=steps, seconds=seconds,
                ms_per_step=1e3 * seconds / steps, newton_per_step=iterations / steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dt", type=float, default=2e-3, help="3-PRR time step (default 2e-3)")
    parser.add_argument("--t-end", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3, help="3-PRR rounds (each runs every model and integrator once, the order "
                        "alternating; default 3)")
    parser.add_argument("--elements", type=int, nargs="+", default=[16, 64, 256, 1024])
    parser.add_argument("--pendulum-steps", type=int, default=1000)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()

    prr = three_prr_interleaved(args.dt, args.t_end, args.repeat)
    print(f"3-PRR, {args.t_end:g} s at dt = {args.dt:g}, median and best of {args.repeat} interleaved rounds "
          "(real-time x > 1: faster than real time)")
    print(f"{'model':>6} {'integrator':>18} {'unknowns':>9} {'wall [s]':>9} {'best [s]':>9} {'ms/step':>8} "
          f"{'Newton/step':>12} {'real-time x':>12} {'best x':>7}")
    for r in prr:
        print(f"{r['model']:>6} {r['integrator']:>18} {r['unknowns']:9d} {r['seconds']:9.2f} {r['best_seconds']:9.2f} "
              f"{r['ms_per_step']:8.2f} {r['newton_per_step']:12.2f} {r['real_time_factor']:12.2f} "
              f"{r['best_real_time_factor']:7.2f}")
    pend = [pendulum(n, 1e-3, args.pendulum_steps) for n in args.elements]
    print(f"\nflexible pendulum, {args.pendulum_steps} steps at dt = 1e-3")
    print(f"{'N':>6} {'unknowns':>9} {'ms/step':>8} {'Newton/step':>12} {'growth':>7}")
    for k, r in enumerate(pend):
        growth = r["ms_per_step"] / pend[k - 1]["ms_per_step"] if k else np.nan
        print(f"{r['elements']:6d} {r['unknowns']:9d} {r['ms_per_step']:8.2f} {r['newton_per_step']:12.2f} "
              f"{growth:7.2f}")
    if len(pend) > 1:
        span = pend[-1]["elements"] / pend[0]["elements"]
        print(f"time per step N = {pend[-1]['elements']} / N = {pend[0]['elements']}: "
              f"{pend[-1]['ms_per_step'] / pend[0]['ms_per_step']:.1f} (linear: {span:g})")
    if args.json:
        args.json.write_text(json.dumps(dict(three_prr=prr, pendulum=pend), indent=2))


if __name__ == "__main__":
    main()
