"""The start of a run of a fine mesh costs no more memory than its stepper: the consistent
accelerations and multipliers (generalized-alpha's start, the multipliers of a run's first and last
time node; ``SaddleSystem.accelerations``) are one KLU solve on the Newton matrix's fixed pattern.
(SciPy's SuperLU, which solved them before, filled the 4096-element pendulum's saddle matrix to 2.8 GB
against 270 MB for the whole process before it, and took 75 s against the stepper's 0.03 s per step.)"""
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CHILD = """
import sys
sys.path.insert(0, {tests!r})
import numpy as np
from femdyn.integrators.generalized_alpha import GeneralizedAlpha
from shared import flexible_pendulum

def peak():  # KiB: this process's own high-water mark (getrusage's ru_maxrss keeps the parent's across exec)
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
imported = peak()
model, setup = flexible_pendulum({elements}, axial="cubic")
stepper = GeneralizedAlpha(model, 1e-3, rho_inf=0.9)
states = model.initial_states(setup.q0)
built = peak()
carry = stepper.start(0.0, setup.q0, setup.v0, states)
assert np.all(np.isfinite(carry.vd)) and np.all(np.isfinite(carry.lam))
print(imported, built, peak())
"""


def test_the_start_of_the_4096_element_pendulum_needs_no_more_memory_than_its_stepper():
    """Peak resident memory of a fresh process: the generalized-alpha start of the 4096-element
    pendulum adds at most half of what building the model and its stepper took (measured: +5 MiB
    against 181 MiB)."""
    child = subprocess.run([sys.executable, "-c", CHILD.format(tests=str(TESTS), elements=4096)],
                           capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr
    imported, built, started = map(int, child.stdout.split())
    assert started - built <= 0.5 * (built - imported), (imported, built, started)
