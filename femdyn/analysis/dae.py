"""Instantaneous dynamics of a femdyn model in its redundant coordinates (000 eq. 1, 001 eq. 27):

    M a + G^T lam = F(q, t) + B^T u,      G a = -gamma,    gamma_r = v . H_r v,

for a state (q, v) on the constraint manifold and given inputs u on the input coordinates. gamma is
the second time derivative of Phi_r along the motion at fixed acceleration (Phi_r quadratic, constant
Hessian H_r); servo rows are left out (the inputs are given). This is the DAE's own forward dynamics,
independent of the recursive and Gauss/Appell formulations it is compared with, and of time stepping.
"""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..joints.base import QuadraticConstraint
from ..joints.servo import Servo


def _forces(model, q, t):
    """Applied generalised forces at an instant: discrete forces with q_a = q_b are the continuous
    ones for potentials and time loads."""
    F = np.zeros(model.n)
    states = model.initial_states(q)
    for f, s in zip(model.forces, states):
        if getattr(f, "c", None) is not None and np.any(f.c):
            raise ValueError("instantaneous dynamics with dampers is not supported")
        ql = q[f.dofs]
        np.add.at(F, f.dofs, f.discrete_force(ql, ql, t, 1.0, s))
    return F


def accelerations(model, q, v, inputs=(), t=0.0, rows=None):
    """Accelerations a (n,) and multipliers (of ``rows``, default all non-servo rows) for inputs
    ``inputs`` (one per ``model.inputs`` coordinate)."""
    families = [c for c in model.constraints if not isinstance(c, Servo)]
    if any(not isinstance(c, QuadraticConstraint) for c in families):
        raise ValueError("instantaneous dynamics needs quadratic constraints (no augmented joint angles)")
    gamma = np.zeros(model.m)
    for c in families:
        vl = v[c.dofs]
        gamma[c.rows] = np.einsum("kmij,ki,kj->km", c._hessian, vl, vl)
    if rows is None:
        servo = np.concatenate([c.rows.ravel() for c in model.constraints if isinstance(c, Servo)] or [[]])
        rows = np.setdiff1d(np.arange(model.m), servo.astype(int))
    G = model.jacobian(q, rows, t)
    F = _forces(model, q, t)
    coordinates = [model.joint_coordinates[name] for name in model.inputs]
    np.add.at(F, coordinates, np.asarray(inputs, dtype=float))
    K = sp.bmat([[sp.diags(model.mass), G.T], [G, None]], format="csc")
    x = spla.spsolve(K, np.concatenate([F, -gamma[rows]]))
    return x[: model.n], x[model.n :]
