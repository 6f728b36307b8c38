"""The start of a run of a fine mesh costs no more memory than its stepper: the consistent
accelerations and multipliers (generalized-alpha's start, the multipliers of a run's first and last
time node; ``SaddleSystem.accelerations``) are one KLU solve on the Newton matrix's fixed pattern.
(SciPy's SuperLU, which solved them before, filled the 4096-element pendulum's saddle matrix to 2.8 GB
against 270 MB for the whole process before it, and took 75 s against the stepper's 0.03 s per step.)
The consistent start factors its matrix with each of KLU's candidate orderings (the run's Newton matrices
keep the pivots chosen there, ``KeptLU.start``; without it, the first step its first Newton matrix): none may
fill in like a dense matrix (``linalg.FixedPatternLU._choose_ordering``; on the 0.5 m pendulum's
energy-momentum matrix the scaled COLAMD candidate filled 1.2e8 entries in 63 s and 1.65 GB)."""
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


FIRST_STEP = """
import sys
sys.path.insert(0, {tests!r})
import numpy as np
from femdyn.integrators.energy_momentum import EnergyMomentum
from shared import pinned_beam

def peak():  # KiB, as above
    with open("/proc/self/status") as status:
        return int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
imported = peak()
model, setup = pinned_beam(2, {elements})
stepper = EnergyMomentum(model, 1e-3)
states = model.initial_states(setup.q0)
built = peak()
vd, lam = stepper.consistent(0.0, setup.q0, setup.v0, states)
step = stepper.step(0.0, setup.q0, setup.v0, lam, states)
assert np.all(np.isfinite(step.q)) and np.all(np.isfinite(lam))
lu = stepper.system.lu
print(imported, built, peak(), lu.fill, lu.pattern[1].size)
"""


def test_the_first_energy_momentum_step_of_the_4096_element_pendulum_factors_sparsely():
    """The 0.5 m pendulum of 4096 beam elements, energy-momentum: its start and first step (the choice of
    KLU's ordering on the first Newton matrix) add at most what building the model and its stepper took,
    and L + U of the first Newton matrix hold at most twice its entries, as a banded chain with the frame's
    few dense rows factors (measured: +63 MiB against 141 MiB; 4.1e5 entries in L + U against 3.9e5 in
    the matrix; before the candidates were bounded, 9.6e5 and 1.65 GB)."""
    child = subprocess.run([sys.executable, "-c", FIRST_STEP.format(tests=str(TESTS), elements=4096)],
                           capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr
    imported, built, stepped, fill, entries = map(int, child.stdout.split())
    assert stepped - built <= built - imported, (imported, built, stepped)
    assert fill <= 2 * entries, (fill, entries)


def test_the_start_of_the_4096_element_pendulum_needs_no_more_memory_than_its_stepper():
    """Peak resident memory of a fresh process: the generalized-alpha start of the 4096-element
    pendulum adds at most half of what building the model and its stepper took (measured: +5 MiB
    against 181 MiB)."""
    child = subprocess.run([sys.executable, "-c", CHILD.format(tests=str(TESTS), elements=4096)],
                           capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, child.stderr
    imported, built, started = map(int, child.stdout.split())
    assert started - built <= 0.5 * (built - imported), (imported, built, started)
