"""The compiled kernels of the Newton iteration against their defining identities: the quadratic
constraint batch (``joints.kernels``) gives phi of every family (the families' own dense forms, and 0
on an assembled configuration), its tangent and G are central differences of its own residual, Gbar^T
is linear in the multipliers, and Gbar is the exact discrete gradient phi(qb) - phi(qa) = Gbar (qb - qa)
(000 eq. 7)."""
import numpy as np
import pytest
from test_components import all_joints_model

from femdyn.joints.batch import AffineConstraints
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place
from femdyn.numerics.pattern import SparsePattern


@pytest.fixture(params=[2, 3], ids=["planar", "spatial"])
def model(request):
    return all_joints_model(request.param)


class Batch:
    """The batch of ``model``'s quadratic families with every row active, its residual and Newton matrix
    [[tangent, scale Gbar^T], [scale G, 0]] as functions of (qb, lam)."""

    def __init__(self, model, scale=3.0):
        self.families = AffineConstraints.split(model.constraints)[0]
        self.affine = AffineConstraints(self.families, model.n, model.m)
        self.n, self.m, self.scale = model.n, model.m, scale
        rows, cols = [], []
        self.affine.place(np.arange(model.m), model.n, rows, cols)
        size = self.n + self.m
        self.pattern = SparsePattern((size, size), np.concatenate(rows), np.concatenate(cols))

    def residual(self, G_a, qb, lam, tangent=None):
        R, values = np.zeros(self.n + self.m), np.zeros(self.pattern.nnz)
        self.affine.contribute(G_a, qb, lam, R, self.scale, tangent, values, self.pattern.positions)
        return R, values

    def matrix(self, G_a, qb, lam):
        """With G_a None, Gbar = G(qb): the tangent of the continuous G(qb)^T lam is twice the
        mid-point one (the callers' ``tangent`` = 2)."""
        _, values = self.residual(G_a, qb, lam, tangent=1.0 if G_a is not None else 2.0)
        return self.pattern.csc(values).toarray()


def central_difference(f, x, h=1e-6):
    return np.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(x.size)], axis=-1)


def test_batch_holds_every_quadratic_family(model):
    batch = Batch(model)
    assert len(batch.families) >= 5 and np.array_equal(np.sort(batch.affine.rows),
                                                       np.sort(np.concatenate([f.rows.ravel() for f in batch.families])))


def test_batch_phi_is_each_familys_phi(model):
    """phi of the batch (the compiled rows) against the families' own dense quadratic forms at random
    coordinates, and 0 on the assembled initial configuration."""
    batch = Batch(model)
    rng = np.random.default_rng(4)
    for q in rng.normal(size=(3, model.n)):
        R, _ = batch.residual(None, q, np.zeros(model.m))
        for f in batch.families:
            np.testing.assert_allclose(R[model.n + f.rows], batch.scale * f.phi(q[f.dofs]), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(batch.affine.phi(q), _phi_at_rows(batch, q), rtol=1e-13, atol=1e-13)
    serial = serial_chain(model.dim)
    q0, _ = place(serial, {}, {"g": {"angle": 0.4}, "r": {"angle": -1.1}, "p": {"slide": 0.3}})
    batch = Batch(serial)
    assert np.abs(batch.affine.phi(q0)).max() < 1e-14
    history = batch.affine.phi_history(np.stack([q0, 2.0 * q0]))
    np.testing.assert_array_equal(history[0], batch.affine.phi(q0))
    np.testing.assert_array_equal(history[1], batch.affine.phi(2.0 * q0))


def serial_chain(dim):
    """ground -revolute- b0 -revolute- b1 -prismatic- b2 -fixed- b3: placed exactly by its joint
    coordinates, where every constraint holds."""
    b = ModelBuilder(dim)
    rng = np.random.default_rng(7)
    for i in range(4):
        b.add_body(f"b{i}", 1.0 + i, 0.1 + rng.random(dim))
    p = lambda: rng.normal(size=dim)  # noqa: E731
    axis = (lambda: rng.normal(size=dim)) if dim == 3 else (lambda: None)  # noqa: E731
    b.add_joint("g", "revolute", "ground", "b0", point1=p(), point2=p(), axis=axis(), angle="theta")
    b.add_joint("r", "revolute", "b0", "b1", point1=p(), point2=p(), axis=axis(), angle="phi")
    b.add_joint("p", "prismatic", "b1", "b2", point1=p(), point2=p(), axis=p(), slide="u")
    b.add_joint("f", "fixed", "b2", "b3", point1=p(), point2=p(), axis=p())
    return b.build()


def _phi_at_rows(batch, q):
    phi = np.empty(batch.m)
    for f in batch.families:
        phi[f.rows] = f.phi(q[f.dofs])
    return phi[batch.affine.rows]


@pytest.mark.parametrize("midpoint", [False, True], ids=["continuous", "midpoint"])
def test_batch_tangent_and_jacobian_are_derivatives_of_its_residual(model, midpoint):
    """d(Gbar^T lam)/dqb (tangent block) and scale G (lower block) against central differences of the
    kernel's own residual in qb, with G(qa) held (the energy-momentum step) or Gbar = G(qb)."""
    batch, n = Batch(model), model.n
    rng = np.random.default_rng(5)
    qa, qb, lam = rng.normal(size=model.n), rng.normal(size=model.n), rng.normal(size=model.m)
    G_a = batch.affine.jacobian(qa) if midpoint else None
    K = batch.matrix(G_a, qb, lam)
    numeric = central_difference(lambda x: batch.residual(G_a, x, lam)[0], qb)
    np.testing.assert_allclose(K[:n, :n], numeric[:n], atol=1e-7 * np.abs(K[:n, :n]).max())
    np.testing.assert_allclose(K[n:, :n], numeric[n:], atol=1e-7 * np.abs(K[n:, :n]).max())
    # Gbar^T lam is linear in lam: the upper right block times lam / scale is the force itself
    R, _ = batch.residual(G_a, qb, lam)
    np.testing.assert_allclose(K[:n, n:] @ lam / batch.scale, R[:n], rtol=1e-13, atol=1e-13 * np.abs(R[:n]).max())


def test_batch_gbar_is_the_exact_discrete_gradient(model):
    """phi(qb) - phi(qa) = Gbar(qa, qb) (qb - qa) row by row, to round-off (000 eq. 7)."""
    batch, n = Batch(model, scale=1.0), model.n
    rng = np.random.default_rng(6)
    qa, qb = rng.normal(size=n), rng.normal(size=n)
    Gbar = batch.matrix(batch.affine.jacobian(qa), qb, np.zeros(model.m))[:n, n:].T
    phi_a, phi_b = batch.residual(None, qa, np.zeros(model.m))[0][n:], batch.residual(None, qb, np.zeros(model.m))[0][n:]
    np.testing.assert_allclose(phi_b - phi_a, Gbar @ (qb - qa), atol=1e-12 * np.abs(phi_b - phi_a).max())


def test_refill_sums_each_entry_at_its_place():
    """The compiled refill (``scatter.add``) of a pattern with duplicate entries: the CSC data of the
    dense matrix that sums the entries, exactly (integer-valued entries: no round-off)."""
    from femdyn.numerics import scatter

    rng = np.random.default_rng(8)
    rows, cols = rng.integers(0, 7, size=60), rng.integers(0, 5, size=60)
    data = rng.integers(-9, 10, size=60).astype(float)
    pattern = SparsePattern((7, 5), rows, cols)
    values = np.zeros(pattern.nnz)
    scatter.add(values, pattern.positions, data, -2.0)
    dense = np.zeros((7, 5))
    np.add.at(dense, (rows, cols), -2.0 * data)
    np.testing.assert_array_equal(pattern.csc(values).toarray(), dense)


def test_newton_update_moves_q_and_the_active_multipliers():
    """The compiled Newton update: q + dq as a new array, |dq|_inf (NaN where an increment is NaN),
    s dmu added to the active multipliers only."""
    from femdyn.integrators import kernels

    q, lam = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25, -1.0, 2.0])
    dx = np.array([0.25, -0.75, 0.5, 2.0, -4.0])
    q1, size = kernels.update(q, lam, dx, np.array([3, 1]), 0.5)
    np.testing.assert_array_equal(q1, [1.25, -2.75, 3.5])
    np.testing.assert_array_equal(q, [1.0, -2.0, 3.0])
    assert size == 0.75
    np.testing.assert_array_equal(lam, [0.5, 0.25 - 2.0, -1.0, 2.0 + 1.0])
    assert np.isnan(kernels.update(q, lam, np.array([np.nan, 1.0, 0.0]), np.zeros(0, dtype=np.int64), 1.0)[1])
