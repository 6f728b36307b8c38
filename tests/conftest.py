import pathlib

import numpy as np
import pytest

CASES = pathlib.Path(__file__).resolve().parent.parent / "cases"

# The two letters of the NM logo (000 Table 1, eq. 40) as case-file text, for small test cases.
NM_BODIES_AND_JOINT = """\
[[bodies]]
name = "N"
mass = 1.1
euler = [0.004, 0.0917]
[[bodies]]
name = "M"
mass = 2.0
euler = [0.0073, 0.1667]
[[joints]]
name = "NM"
type = "revolute"
bodies = ["N", "M"]
points = [[0, -0.4], [0, 0.4]]
angle = "theta"
"""


# A flexible arm (aluminium, 0.5 m, 2 elements) pinned to the ground, under gravity, as case-file text.
PINNED_ARM = """\
dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = 0.001
t_end = 0.002
[flexible]
elements = 2
[[bodies]]
name = "arm"
beam = {length = 0.5, young = 70e9, density = 2700, b = 0.02, h = 0.01}
[[joints]]
name = "pin"
type = "revolute"
bodies = ["ground", "arm"]
[initial.bodies.arm]
position = [0, 0]
angle = 0.0
"""

def flexible_pendulum(elements=8):
    """A 1 m steel beam (10 x 10 mm, FFR Euler-Bernoulli with stiffening) pinned at one end and
    released horizontally under gravity: the model of benchmarks/exudyn_flexible.py, and its
    projected initial state."""
    from femdyn.beam.body import BeamBody, Section
    from femdyn.integrators.setup import prepare
    from femdyn.model.builder import ModelBuilder
    from femdyn.model.initial import place

    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(1.0, elements, Section.rectangle(0.01, 0.01), 2.1e11, 7850.0),
               stiffening=True)
    b.add_joint("pin", "revolute", "ground", "beam")
    b.set_gravity([0.0, -9.81])
    model = b.build()
    q, v = place(model, {}, {"pin": {"angle": 0.0}})
    return model, prepare(model, q, v)


@pytest.fixture
def case_path():
    return lambda name: CASES / name


def angular_momentum_scale(model, results):
    """Sum of the magnitudes of the bodies' angular-momentum contributions, max over time: the scale
    against which a total angular momentum that happens to be zero is compared."""
    dim = model.dim
    nb = dim * (dim + 1)
    k = len(model.bodies)
    Q = results.q[:, : k * nb].reshape(len(results.t), k, dim + 1, dim)
    V = results.v[:, : k * nb].reshape(len(results.t), k, dim + 1, dim)
    W = model.mass_matrix.diagonal()[: k * nb].reshape(k, dim + 1, dim)[:, :, 0]
    cross = np.cross(Q, V) if dim == 3 else Q[..., 0] * V[..., 1] - Q[..., 1] * V[..., 0]
    magnitude = np.linalg.norm(cross, axis=-1) if dim == 3 else np.abs(cross)
    return float(np.max(np.sum(W * magnitude, axis=(1, 2))))
