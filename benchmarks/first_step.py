"""The first step of the flexible pendulum against its later ones (issue 37, Deliver 3): CPU time of a run's
first step (the consistent start accelerations, KLU's analyses and choice of ordering, the first
factorisation, the step's Newton iteration) and of its later steps, and the run's peak memory.

The pendulum of ``exudyn_flexible.py`` (pinned steel beam, L = 1 m, 10 x 10 mm, gravity, released
horizontal from rest; ``--length 0.5``: the 0.5 m beam of the tests' ``pinned_beam``) with N elements,
``time_loop.simulate`` of ``--steps`` steps of dt = 1e-3 with each integrator (its default Newton method),
each in a fresh Python process (its peak RSS its own) after a run of 3 steps of a 16-element pendulum (the
kernels loaded: not counted). Times: the first step's
``stepper.step`` and the consistent accelerations (``SaddleSystem.consistent``, the start's and the end's),
and the median CPU time per step of the later steps (the compiled steps, ``stepping``: per call over the
steps it did). A benchmark, not a test: nothing is asserted.

Usage: python benchmarks/first_step.py [--elements 4096] [--steps 20] [--length 1.0]
       [--integrators generalized-alpha energy-momentum]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def worker(n, steps, integrator, length):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import exudyn_flexible
    from exudyn_flexible import FemdynPendulum

    from femdyn.integrators import time_loop
    from femdyn.integrators.energy_momentum import EnergyMomentum
    from femdyn.integrators.generalized_alpha import GeneralizedAlpha
    from femdyn.integrators.saddle import SaddleSystem
    from femdyn.integrators.settings import SolverSettings
    from femdyn.integrators.stepping import AlphaSteps, MidpointSteps

    time_loop.simulate(FemdynPendulum(16).setup, SolverSettings(1e-3, 3e-3, integrator=integrator))
    spent = {"step": [], "consistent": [], "calls": []}

    def timed(owner, name, key):
        function = getattr(owner, name)

        def wrapper(*args):
            start = time.process_time()
            result = function(*args)
            spent[key].append((time.process_time() - start, result))
            return result
        setattr(owner, name, wrapper)

    for owner in (GeneralizedAlpha, EnergyMomentum):
        timed(owner, "step", "step")
    for owner in (AlphaSteps, MidpointSteps):
        timed(owner, "run", "calls")
    timed(SaddleSystem, "consistent", "consistent")
    exudyn_flexible.LENGTH = length  # read by FemdynPendulum
    pendulum = FemdynPendulum(n)
    start = time.process_time()
    results = time_loop.simulate(pendulum.setup, SolverSettings(1e-3, steps * 1e-3, integrator=integrator))
    total = time.process_time() - start
    later = [seconds / done for seconds, done in spent["calls"] if done]
    print(json.dumps(dict(elements=n, length=length, integrator=integrator, complete=bool(results.complete),
                          run_s=total,
                          first_step_ms=1e3 * spent["step"][0][0],
                          consistent_ms=[1e3 * seconds for seconds, _ in spent["consistent"]],
                          later_step_ms=1e3 * statistics.median(later) if later else None,
                          steps_stepwise=len(spent["step"]),
                          peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--integrators", nargs="+", default=["generalized-alpha", "energy-momentum"])
    parser.add_argument("--length", type=float, default=1.0, help="the beam's length, m")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(int(args.worker[0]), int(args.worker[1]), args.worker[2], float(args.worker[3]))
        return
    print(f"load average {os.getloadavg()[0]:.2f}")
    for integrator in args.integrators:
        out = subprocess.run([sys.executable, __file__, "--worker", str(args.elements), str(args.steps), integrator,
                              str(args.length)],
                             capture_output=True, text=True, check=True).stdout
        r = json.loads(out.splitlines()[-1])
        print(f"N = {r['elements']}, L = {r['length']} m, {integrator}: "
              f"first step {r['first_step_ms']:.1f} ms CPU "
              f"(consistent start {r['consistent_ms'][0]:.1f} ms before it), "
              f"later steps {r['later_step_ms']:.1f} ms each, "
              f"first / later {r['first_step_ms'] / r['later_step_ms']:.1f}; steps step by step "
              f"{r['steps_stepwise']}; run {r['run_s']:.2f} s CPU, peak RSS {r['peak_rss_mib']:.0f} MiB")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
