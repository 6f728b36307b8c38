import pathlib

import numpy as np
import pytest
import scipy.sparse.linalg as spla

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


def static_equilibrium(model, q, loads=None, tolerance=1e-13):
    """Static equilibrium F(q) + loads = G^T lam, Phi(q) = 0 from the placed state q: Newton's method on
    the model's saddle system with zero mass factor (the continuous forms of forces and constraints,
    as generalized-alpha evaluates them); returns the model of the run and q. ``loads`` (n,):
    generalised forces added to the model's."""
    from femdyn.integrators.saddle import SaddleSystem
    from femdyn.integrators.setup import prepare

    setup = prepare(model, q, np.zeros(model.n))
    model, q = setup.model, setup.q0.copy()
    system = SaddleSystem(model, setup.active_rows)
    n, lam, states = model.n, np.zeros(model.m), model.initial_states(q)
    loads = np.zeros(n) if loads is None else loads
    for _ in range(30):
        R = np.empty(system.size)
        F, data = system.applied(q, q, 0.0, 1.0, states, system.constant) + loads, []
        for k in system.varying:
            f = system.forces[k]
            force, dF_dq, _ = f.continuous_tangents(q[f.dofs], 0 * q[f.dofs], 0.0, 1.0, states[k])
            F += system.scatter(f.dofs, force)
            data.append(-dF_dq.ravel())
        R[:n] = -F
        starts = system.begin_step(q, 0.0, midpoint=False)
        constraints = system.constrain(R, starts, q, q, lam, 1.0, tangent=2.0)
        matrix = system.pattern.matrix(np.concatenate([0.0 * system.mass.data] + constraints + data))
        dx = spla.spsolve(matrix.tocsc(), -R)
        q += dx[:n]
        lam[system.active] += dx[n:]
        if np.abs(dx[:n]).max() <= tolerance * max(1.0, np.abs(q).max()):
            return model, q
    raise AssertionError("the static Newton iteration did not converge")


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
