"""How much of each natural mode the effector takes part in: the probes' amplitude in the mode and the
mode's effective mass along each world axis ([Chopra2012] on modal participation and effective modal
masses; [Ewins2000] on the effective mass at a point).

A mode shape phi (a motion of the coordinates, n) normalised in the mass metric, phi^T M phi = 1
(``integrators.modes.NaturalModes.shapes``), moves a probe's material point by

    a = J phi      [kg^-1/2],

J the (constant) linear map from the coordinates to the point's world position (both embeddings of
flexible bodies give positions as linear maps of the coordinates, ``deviation.point_poses``): the
probe's displacement per unit modal coordinate (in sqrt(kg) m). A force f at the probe drives the mode
with the generalised force a.f; the mode, seen at the probe along a unit direction e, is an oscillator
of mass 1/(a.e)^2 ([Ewins2000]); a probe with a = 0 does not feel the mode and cannot excite it.

The effective mass of mode k along the world axis e_a is

    m_eff,k,a = (phi_k^T M r_a)^2 / (phi_k^T M phi_k)      [kg],

r_a the rigid-body influence vector of a unit translation along e_a: every material point of the model
moved by e_a, the probes (the effector) by exactly one unit. phi^T M r_a is the linear momentum along e_a
of the model moving with the velocity phi (``Model.momenta``), so nothing but the mass matrix is needed.
It is the base-excitation participation of structural dynamics: a support (the ground) shaken by
x_g(t) along e_a drives mode k with -(phi_k^T M r_a) x_g''. Over all modes the effective masses add up to
r_a^T M Z (Z^T M Z)^-1 Z^T M r_a, Z a basis of the motions the constraints allow: the total mass
sum m where the translation r_a is itself such a motion (a mechanism on a linear guide along e_a), less
where the ground holds part of the mass (a pinned bar's pendulum mode has 3/4 of its mass).
"""
import numpy as np

from .deviation import point_poses
from .model import Model


def probe_amplitudes(model: Model, probes, shapes) -> np.ndarray:
    """The world displacement a = J phi [kg^-1/2] of every probe's material point in every mode shape
    ``shapes`` (k, n), mass-normalised (module docstring): (k, P, dim)."""
    shapes = np.atleast_2d(np.asarray(shapes, dtype=float))
    if not probes or not len(shapes):
        return np.zeros((len(shapes), len(probes), model.dim))
    return point_poses(model, probes, shapes)[0]


def effective_masses(model: Model, shapes) -> np.ndarray:
    """The effective mass m_eff = (phi^T M r_a)^2 / (phi^T M phi) [kg] of every mode shape ``shapes``
    (k, n) along every world axis a (module docstring): (k, dim)."""
    shapes = np.atleast_2d(np.asarray(shapes, dtype=float))
    if not len(shapes):
        return np.zeros((0, model.dim))
    momentum = model.momenta(np.zeros_like(shapes), shapes)[0]  # phi^T M r_a: linear in phi, free of q
    norms = np.einsum("ki,ki->k", shapes, (model.mass_matrix @ shapes.T).T)
    return momentum**2 / norms[:, None]


def total_mass(model: Model) -> float:
    """The mass [kg] of the model's bodies (a flexible body's rho A L): r_a^T M r_a for every axis a, what
    the effective masses along a add up to where the translation is free (module docstring)."""
    return float(sum(body.mass for body in model.bodies))
