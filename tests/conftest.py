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
