"""Linear analyses of one flexible beam body in its body frame: static deflection, natural frequencies
and mode shapes, and section forces and stresses recovered from the element solution.

Functions take a ``body.BeamBody`` (any discretisation, reference conditions and modal basis) and
its elastic coordinates ``q``; nothing here imports the body module, which uses ``lowest_modes``.
"""
from dataclasses import dataclass

import numpy as np
import scipy  # scipy.linalg and scipy.sparse.linalg load on first use (SciPy's lazy submodules): a rigid run needs neither

from ..numerics.cholesky import cholesky

DENSE_LIMIT = 200  # below this many coordinates a dense eigen-solve is faster than any sparse one


def lowest_modes(stiffness, mass, k, solver="cholmod"):
    """The ``k`` lowest eigenpairs of ``K phi = omega^2 M phi`` (K, M sparse, symmetric positive
    definite): ``omega^2`` (k,) ascending and mass-normalised ``Phi`` (n, k), each column signed so
    that its largest entry is positive.

    Both paths work with ``K^{-1} M``, whose largest eigenvalues are the wanted ones: the stiffness
    of a fourth-order operator has a condition number growing like n^4, and methods that reduce
    with ``M^{-1}`` (LAPACK's ``eigh(K, M)``) lose the relative accuracy of the lowest frequencies
    first (3e-6 at 160 elements of a 3-PRR link, against 2e-8 here). Up to ``DENSE_LIMIT``
    coordinates (or when ``k`` is nearly ``n``): LAPACK's ``eigh(M, K)``, ``omega^2 = 1/mu``.
    Otherwise ARPACK in shift-invert mode about 0 (``eigsh(K, k, M, sigma=0)``), with ``K^{-1}``
    applied by a CHOLMOD Cholesky factor (``solver="cholmod"``) or by SciPy's SuperLU
    (``solver="superlu"``). CHOLMOD is the default: it factors 2-3 times and solves 6-15 times
    faster than SuperLU on beam stiffness matrices of 100-100000 elements.
    """
    n = stiffness.shape[0]
    if k == 0:
        return np.zeros(0), np.zeros((n, 0))
    if n <= DENSE_LIMIT or k >= n - 1:
        inverse, shapes = scipy.linalg.eigh(mass.toarray(), stiffness.toarray(),
                                            subset_by_index=[n - k, n - 1])
        omega2 = 1.0 / inverse
    elif solver == "cholmod":
        factor = cholesky(stiffness)
        inverse = scipy.sparse.linalg.LinearOperator((n, n), matvec=factor, dtype=float)
        omega2, shapes = scipy.sparse.linalg.eigsh(stiffness, k, mass, sigma=0.0, OPinv=inverse)
    elif solver == "superlu":
        omega2, shapes = scipy.sparse.linalg.eigsh(stiffness.tocsc(), k, mass.tocsc(), sigma=0.0)
    else:
        raise ValueError(f"eigensolver must be 'cholmod' or 'superlu', got {solver!r}")
    order = np.argsort(omega2)
    omega2, shapes = omega2[order], shapes[:, order]
    shapes = shapes / np.sqrt(np.einsum("ik,ik->k", shapes, mass @ shapes))
    largest = shapes[np.argmax(np.abs(shapes), axis=0), np.arange(k)]
    return omega2, shapes * np.sign(largest)


@dataclass(frozen=True)
class Modes:
    """Natural angular frequencies ``omega`` (k,) [rad/s], the modes in the body's elastic
    coordinates ``q`` (k, n) (mass-normalised) and as body-frame nodal coordinates (k, n_nodes,
    node_size): ``[ux, uy, theta]`` in the plane, ``[ux, uy, uz, psi, theta_y, theta_z]`` in space."""

    omega: np.ndarray
    q: np.ndarray
    nodal: np.ndarray


def natural_frequencies(body, k, solver="cholmod"):
    """The ``k`` lowest free vibrations of the body about its undeformed state with the reference
    frame held fixed: ``K_ff q = omega^2 m_ff q`` (003 eqs. 41, 131-133 with q_r fixed)."""
    omega2, shapes = lowest_modes(body.stiffness, body.mass, k, solver)
    nodal = np.asarray(body.basis @ shapes).T.reshape(k, len(body.nodes), body.elements.node_size)
    return Modes(np.sqrt(omega2), shapes.T, nodal)


def static_deflection(body, nodal_loads=None, body_force=None):
    """Elastic coordinates ``q`` of the static equilibrium ``K q = f`` under loads fixed in the body
    frame (reference frame held fixed).

    ``nodal_loads``: ``{node: load}`` (negative node indices count from the end) or an (n_nodes,
    node_size) array, body frame, a load per nodal coordinate: ``(Fx, Fy, Mz)`` in the plane,
    ``(Fx, Fy, Fz, Mx, My, Mz)`` in space; load components on suppressed coordinates are carried by
    the reference conditions. ``body_force``: a force per unit mass (dim,) in the body frame, e.g.
    gravity turned into the body frame, with the consistent generalised force ``Sbar^T b`` (003 eq.
    19; 003 eq. 33 evaluates S at the centre of mass instead).
    """
    nodal = np.zeros((len(body.nodes), body.elements.node_size))
    if isinstance(nodal_loads, dict):
        for node, load in nodal_loads.items():
            nodal[node] += load
    elif nodal_loads is not None:
        nodal += np.asarray(nodal_loads, dtype=float)
    force = np.asarray(body.basis.T @ nodal.ravel())
    if body_force is not None:
        force = force + body.load_rows.T @ np.asarray(body_force, dtype=float)
    return np.atleast_1d(scipy.sparse.linalg.spsolve(body.stiffness, force))
