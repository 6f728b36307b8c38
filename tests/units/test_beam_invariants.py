"""Beam ingredients against their definitions: the sparse eigen-solvers against LAPACK, the
Rayleigh-Ritz shape functions (003 eq. 51), the FFR inertia invariants (003 eqs. 16-32, 118-127)
and the inertia left in the rigid limit."""
import numpy as np
import pytest
import scipy.linalg

from femdyn.beam import BeamBody, BeamElements, Section, lowest_modes

E, RHO, LENGTH = 70e9, 2700.0, 0.5
SECTION = Section.rectangle(0.15, 0.05)


def test_sparse_eigensolvers_agree_with_lapack():
    """240 coordinates (above the dense limit): ARPACK shift-invert with CHOLMOD or SuperLU gives
    LAPACK's lowest eigenvalues (1 / the largest of M phi = mu K phi) and mass-normalised vectors.
    The lowest eigenvalue carries a round-off of about eps cond(K) ~ 1e-8 at this mesh size."""
    body = BeamBody.straight(LENGTH, 80, SECTION, E, RHO)
    n = body.n_coordinates
    dense = 1 / scipy.linalg.eigh(body.mass.toarray(), body.stiffness.toarray(), eigvals_only=True,
                                  subset_by_index=[n - 6, n - 1])[::-1]
    for solver in ("cholmod", "superlu"):
        omega2, shapes = lowest_modes(body.stiffness, body.mass, 6, solver)
        assert np.max(np.abs(omega2 / dense - 1)) < 1e-7
        assert np.allclose(shapes.T @ body.mass @ shapes, np.eye(6), atol=1e-10)
    with pytest.raises(ValueError, match="eigensolver"):
        lowest_modes(body.stiffness, body.mass, 6, "arpack")


def test_rayleigh_ritz_shape_functions_are_003_eq_51():
    """Fixed-free Rayleigh-Ritz body: displacement rows [xi, 0, 0; 0, 3xi^2 - 2xi^3, L (xi^3 - xi^2)]
    (003 eq. 51) and the section rotation their x-derivative."""
    body = BeamBody.rayleigh_ritz([[0.0, 0.0], [LENGTH, 0.0]], SECTION, E, RHO)
    xi = np.linspace(0, 1, 7)
    rows = body.shape_at(np.column_stack([xi * LENGTH, 0 * xi]))
    zero = 0 * xi
    expected = np.array([[xi, zero, zero], [zero, 3 * xi**2 - 2 * xi**3, LENGTH * (xi**3 - xi**2)],
                         [zero, (6 * xi - 6 * xi**2) / LENGTH, 3 * xi**2 - 2 * xi]]).transpose(2, 0, 1)
    assert np.allclose(rows, expected, rtol=0, atol=1e-14)
    with pytest.raises(ValueError, match="off the beam centre line"):
        body.shape_at([[0.2, 0.01]])


def test_invariants_give_the_kinetic_energy_in_director_form():
    """For x = phi + sum_a (X_a + u_a) d_a (any phi', directors d_a and their rates, elastic q, q'),
    2T = int rho |x'|^2 dV equals the quadratic form of the invariants (003 eqs. 16-32 in director
    form). The integral is taken independently: Simpson's rule on the deflected centre line through
    ``shape_at``, plus the section's rotary term rho I |sum_a n_a d_a'|^2 per length."""
    rng = np.random.default_rng(3)
    nodes = np.array([[0.0, 0.0], [0.2, 0.0], [0.35, 0.1], [0.5, 0.05]])
    body = BeamBody(nodes, SECTION, E, RHO, reference="fixed-pinned")
    n = body.n_coordinates
    q, qdot = rng.normal(size=n) * 1e-3, rng.normal(size=n)
    phidot, d, ddot = rng.normal(size=2), rng.normal(size=(2, 2)), rng.normal(size=(2, 2))  # columns d_a

    inv = body.invariants
    w = (inv.second_moment + np.einsum("abj,j->ab", inv.i_bar, q) + np.einsum("baj,j->ab", inv.i_bar, q)
         + np.array([[q @ inv.s_kl[a][b] @ q for b in range(2)] for a in range(2)]))
    cross = (np.einsum("abj,j->ab", inv.i_bar, qdot)
             + np.array([[q @ inv.s_kl[a][b] @ qdot for b in range(2)] for a in range(2)]))
    elastic = np.array([[qdot @ inv.s_kl[a][b] @ qdot for b in range(2)] for a in range(2)])
    twice_t = (inv.mass * phidot @ phidot + 2 * phidot @ ddot @ (inv.first_moment + inv.s_bar @ q)
               + 2 * phidot @ d @ (inv.s_bar @ qdot) + np.sum((ddot.T @ ddot) * w)
               + 2 * np.sum((ddot.T @ d) * cross) + np.sum((d.T @ d) * elastic))

    direct = 0.0
    xi = np.linspace(0, 1, 401)
    simpson = np.ones_like(xi)
    simpson[1:-1:2], simpson[2:-1:2] = 4, 2
    simpson /= 3 * (len(xi) - 1)
    for start, end in zip(nodes[:-1], nodes[1:], strict=True):
        x = start + xi[:, None] * (end - start)
        rows = body.shape_at(x)[:, :2]
        position, rate = x + rows @ q, rows @ qdot
        velocity = phidot + position @ ddot.T + rate @ d.T
        length = np.linalg.norm(end - start)
        normal = np.array([-(end - start)[1], (end - start)[0]]) / length
        direct += RHO * SECTION.area * length * simpson @ np.sum(velocity**2, axis=1)
        direct += RHO * SECTION.inertia * length * np.sum((ddot @ normal) ** 2)
    assert abs(twice_t / direct - 1) < 1e-9


def test_invariants_match_the_closed_forms_of_003():
    """One straight element along x1 with all 6 nodal coordinates: Sbar (003 eq. 126), S~ (eq. 127);
    and for a polyline body, the mass matrix m_ff = S_11 + S_22 (eq. 28) from the quadrature equals
    the assembled consistent mass matrix of eq. 125 turned by eq. 122."""
    le, area = 0.3, SECTION.area
    element = BeamElements([[0.0, 0.0], [le, 0.0]], [[0, 1]], E, RHO, area, SECTION.inertia)
    inv, m = element.invariants(), RHO * area * le
    s_bar = m / 12 * np.array([[6, 0, 0, 6, 0, 0], [0, 6, le, 0, 6, -le]])
    s_tilde = m / 60 * np.array([[0, 21, 3 * le, 0, 9, -2 * le], [-21, 0, 0, -9, 0, 0],
                                 [-3 * le, 0, 0, -2 * le, 0, 0], [0, 9, 2 * le, 0, 21, -3 * le],
                                 [-9, 0, 0, -21, 0, 0], [2 * le, 0, 0, 3 * le, 0, 0]])
    assert np.allclose(inv.s_bar, s_bar, rtol=0, atol=1e-13 * m)
    assert np.allclose(inv.s_tilde.toarray(), s_tilde, rtol=0, atol=1e-13 * m)
    polyline = BeamElements([[0, 0], [0.2, 0.1], [0.3, -0.05], [0.5, 0.0]], [[0, 1], [1, 2], [2, 3]],
                            E, RHO, area, SECTION.inertia)
    difference = polyline.invariants().mass_matrix - polyline.mass()
    assert abs(difference).max() < 1e-13 * abs(polyline.mass()).max()


def test_rigid_limit_keeps_the_rigid_inertia():
    """modes=0 removes every elastic coordinate: what is left is the rigid rod, mass rho A L, centre
    of mass at L/2, second moments m L^2/3 along the rod (about the origin) and rho I L across it
    (the rectangle's m h^2/12), which a rigid director body of the core takes as its Euler tensor."""
    body = BeamBody.straight(LENGTH, 4, SECTION, E, RHO, modes=0)
    inv, m = body.invariants, RHO * SECTION.area * LENGTH
    assert body.n_coordinates == 0 and inv.s_bar.shape == (2, 0)
    assert abs(inv.mass / m - 1) < 1e-14
    assert np.allclose(inv.first_moment, [m * LENGTH / 2, 0.0], rtol=1e-14, atol=0)
    assert np.allclose(inv.second_moment, np.diag([m * LENGTH**2 / 3, m * 0.05**2 / 12]), rtol=1e-14, atol=0)
