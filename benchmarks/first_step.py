"""The first step of the flexible pendulum against its later ones (issue 37, Deliver 3): CPU time of a run's
first step, of its set-up and first step together, and of its later steps, and the run's peak memory; with
``--command``, the whole ``femdyn run`` of that pendulum (wall and CPU time, peak RSS).

The pendulum of ``exudyn_flexible.py`` (pinned steel beam, L = 1 m, 10 x 10 mm, gravity, released
horizontal from rest; ``--length 0.5``: the 0.5 m beam of the tests' ``pinned_beam``) with N elements,
``time_loop.simulate`` of ``--steps`` steps of dt = 1e-3 with each integrator (its default Newton method),
each in a fresh Python process (its peak RSS its own) after a run of 3 steps of a 16-element pendulum (the
kernels loaded: not counted). The time loop's compiled calls of steps (``stepping``) start with one step
instead of 8 here (``time_loop._Calls``; the numbers do not depend on it), so that a first step done by a
compiled call is timed alone. Times: the first step (``stepper.step`` or the first compiled call), set-up
and first step (from the start of ``simulate``: the stepper and its KLU analyses, the consistent start,
the first step), the consistent accelerations (``SaddleSystem.consistent``, the start's and the end's),
and the median CPU time per step of the later steps (per call over the steps it did); the Newton iterations
of the first step and per later step. A benchmark, not a test: nothing is asserted.

``--command``: ``python -m femdyn run CASE --no-plots --no-vtk`` of the same pendulum written as a case
file (FEM beam, ``--steps`` steps), one process per integrator and round: wall time, CPU time of the
process and its children, their peak RSS.

Usage: python benchmarks/first_step.py [--elements 4096] [--steps 20] [--length 1.0]
       [--integrators generalized-alpha energy-momentum] [--command]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASE = """title = "Flexible pendulum of {elements} elements (benchmarks/first_step.py)"
dimension = 2
gravity = [0.0, -9.81]

[solver]
dt = 0.001
t_end = {t_end}
integrator = "{integrator}"

[flexible]
model = "fem"
elements = {elements}

[[bodies]]
name = "beam"
beam = {{length = {length}, young = 2.1e11, density = 7850.0, b = 0.01, h = 0.01}}

[[joints]]
name = "pin"
type = "revolute"
bodies = ["ground", "beam"]

[initial.joints.pin]
angle = 0.0
"""


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
    spent = {"steps": [], "consistent": []}  # (CPU at the end, seconds, steps done, by what)

    def timed(owner, name, key, count):
        function = getattr(owner, name)

        def wrapper(*args, **keywords):
            start = time.process_time()
            result = function(*args, **keywords)
            end = time.process_time()
            spent[key].append((end, end - start, count(result), name))
            return result
        setattr(owner, name, wrapper)

    for owner in (GeneralizedAlpha, EnergyMomentum):
        timed(owner, "step", "steps", lambda result: 1)  # step by step
    for owner in (AlphaSteps, MidpointSteps):
        timed(owner, "run", "steps", lambda done: done)  # a compiled call of steps
    timed(SaddleSystem, "consistent", "consistent", lambda result: 0)
    calls = time_loop._Calls.__init__

    def one_first(self):
        calls(self)
        self.size = 1
    time_loop._Calls.__init__ = one_first
    exudyn_flexible.LENGTH = length  # read by FemdynPendulum
    pendulum = FemdynPendulum(n)
    start = time.process_time()
    results = time_loop.simulate(pendulum.setup, SolverSettings(1e-3, steps * 1e-3, integrator=integrator))
    total = time.process_time() - start
    done = [entry for entry in spent["steps"] if entry[2]]
    first = done[0]
    later = [seconds / count for _, seconds, count, _ in done[1:]]
    print(json.dumps(dict(elements=n, length=length, integrator=integrator, complete=bool(results.complete),
                          run_s=total,
                          first_step_ms=1e3 * first[1], first_by="compiled call" if first[3] == "run" else "step",
                          setup_first_ms=1e3 * (first[0] - start),
                          consistent_ms=[1e3 * seconds for _, seconds, _, _ in spent["consistent"]],
                          later_step_ms=1e3 * statistics.median(later) if later else None,
                          first_iterations=int(results.iterations[1]),
                          later_iterations=float(results.iterations[2:].mean()),
                          peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)))


def command(n, steps, integrator, length):
    """The whole ``femdyn run`` of the pendulum: (wall s, CPU s, peak RSS MiB) of the process and its children."""
    with tempfile.TemporaryDirectory() as folder:
        case = Path(folder) / "pendulum.toml"
        case.write_text(CASE.format(elements=n, t_end=steps * 1e-3, integrator=integrator, length=length))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "femdyn", "run", str(case), "--no-plots", "--no-vtk", "--out",
                        str(Path(folder) / "out")], check=True, capture_output=True, cwd=folder)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, after.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--integrators", nargs="+", default=["generalized-alpha", "energy-momentum"])
    parser.add_argument("--length", type=float, default=1.0, help="the beam's length, m")
    parser.add_argument("--command", action="store_true", help="the whole `femdyn run` instead")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(int(args.worker[0]), int(args.worker[1]), args.worker[2], float(args.worker[3]))
        return
    print(f"load average {os.getloadavg()[0]:.2f}")
    for integrator in args.integrators:
        if args.command:
            wall, cpu, peak = command(args.elements, args.steps, integrator, args.length)
            print(f"N = {args.elements}, L = {args.length} m, {integrator}: femdyn run of {args.steps} steps "
                  f"{wall:.2f} s wall, {cpu:.2f} s CPU, peak RSS {peak:.0f} MiB")
            continue
        out = subprocess.run([sys.executable, __file__, "--worker", str(args.elements), str(args.steps), integrator,
                              str(args.length)],
                             capture_output=True, text=True, check=True).stdout
        r = json.loads(out.splitlines()[-1])
        print(f"N = {r['elements']}, L = {r['length']} m, {integrator}: "
              f"first step {r['first_step_ms']:.1f} ms CPU ({r['first_by']}), "
              f"later steps {r['later_step_ms']:.1f} ms each, "
              f"first / later {r['first_step_ms'] / r['later_step_ms']:.2f}; Newton iterations: first step "
              f"{r['first_iterations']}, later {r['later_iterations']:.2f} per step; set-up + first step "
              f"{r['setup_first_ms']:.1f} ms (consistent start {r['consistent_ms'][0]:.1f} ms of it); "
              f"run {r['run_s']:.2f} s CPU, peak RSS {r['peak_rss_mib']:.0f} MiB")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
