"""Instantaneous dynamics of a femdyn model in its redundant coordinates (000 eq. 1, 001 eq. 27):

    M a + G^T lam = F(q, t) + B^T u,      G a = -gamma,    gamma_r = v . H_r v,

for a state (q, v) on the constraint manifold and given inputs u on the input coordinates. gamma is
the second time derivative of Phi_r along the motion at fixed acceleration (Phi_r quadratic, constant
Hessian H_r); servo rows are left out (the inputs are given). This is the DAE's own forward dynamics,
independent of the recursive and Gauss/Appell formulations it is compared with, and of time stepping.
"""
import numpy as np
import scipy.sparse as sp  # its linalg loads on first use (SciPy's lazy submodules): not in every run

from ..joints.base import QuadraticConstraint
from ..joints.servo import Servo


def _forces(model, q, t):
    """Applied generalised forces at an instant: discrete forces with q_a = q_b are the continuous
    ones for potentials and time loads."""
    F = np.zeros(model.n)
    states = model.initial_states(q)
    for f, s in zip(model.forces, states):
        if f.dissipative:
            raise ValueError("instantaneous dynamics with dampers or friction is not supported")
        ql = q[f.dofs]
        np.add.at(F, f.dofs, f.discrete_force(ql, ql, t, 1.0, s))
    return F


def _regular_rows(model, v):
    """The non-servo rows and gamma_r = v . H_r v for them (quadratic constraints only)."""
    families = [c for c in model.constraints if not isinstance(c, Servo)]
    if any(not isinstance(c, QuadraticConstraint) for c in families):
        raise ValueError("instantaneous dynamics needs quadratic constraints (no augmented joint angles)")
    gamma = np.zeros(model.m)
    for c in families:
        vl = v[c.dofs]
        gamma[c.rows] = np.einsum("kmij,ki,kj->km", c._hessian, vl, vl)
    rows = np.concatenate([c.rows.ravel() for c in families])
    return rows, gamma[rows]


def _input_matrix(model):
    """B: the Boolean input matrix of 000 eq. 84, (inputs, n)."""
    coordinates = [model.joint_coordinates[name] for name in model.inputs]
    return sp.csr_matrix((np.ones(len(coordinates)), (np.arange(len(coordinates)), coordinates)),
                         shape=(len(coordinates), model.n))


def accelerations(model, q, v, inputs=(), t=0.0):
    """Accelerations a (n,) and the multipliers of the non-servo rows for given ``inputs`` (one per
    ``model.inputs`` coordinate)."""
    rows, gamma = _regular_rows(model, v)
    G = model.jacobian(q, rows, t)
    F = _forces(model, q, t) + _input_matrix(model).T @ np.asarray(inputs, dtype=float)
    K = sp.bmat([[model.mass_matrix, G.T], [G, None]], format="csc")
    x = sp.linalg.spsolve(K, np.concatenate([F, -gamma]))
    return x[: model.n], x[model.n :]


def inverse_dynamics(model, q, v, target, t=0.0):
    """Inputs u (one per ``model.inputs``) and accelerations a of a servo model at one instant:

        M a + G^T lam - B^T u = F,     G a = -gamma,     S a = S a_target,

    S the servo rows' Jacobian, ``target`` accelerations (n,) that are exact for the servoed
    coordinates (other entries are ignored). Valid when (q, v) lie on the servo trajectory at t: the
    servo rows vanish identically along it, so their second derivatives in the actual and the target
    motion differ only by S (a - a_target). The DAE's own one-solve inverse dynamics, without time
    stepping. Returns (u, a)."""
    if not len(model.inputs):
        raise ValueError("instantaneous inverse dynamics needs a model with servo constraints")
    rows, gamma = _regular_rows(model, v)
    G = model.jacobian(q, rows, t)
    S = model.jacobian(q, model.input_rows, t)
    B = _input_matrix(model)
    K = sp.bmat([[model.mass_matrix, G.T, -B.T], [G, None, None], [S, None, None]], format="csc")
    x = sp.linalg.spsolve(K, np.concatenate([_forces(model, q, t), -gamma, S @ target]))
    return x[model.n + rows.size:], x[: model.n]
