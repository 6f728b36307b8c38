"""Modes about a motion and their tracking over a parameter (a Campbell diagram).

The modes about a ``motion.Motion`` are the eigenvalues s of the first-order form of the linearisation
there reduced to the tangent space (``linearize.linearize`` with the motion: the quadratic eigenproblem
(Mr s^2 + Dr s + Kr) y = 0 with the gyroscopic Dr, as A = [[0, I], [-Mr^-1 Kr, -Mr^-1 Dr]]), one per
conjugate pair (Im s >= 0) by |s|: frequency |s| / (2 pi) [Hz] and damping ratio -Re s / |s|, and the
complex mode shapes x = Z y (n,) of their eigenvectors.

Over a parameter (a servo's speed, a held coordinate) the modes are followed by their shapes: the
modal assurance criterion MAC(a, b) = |a^H b|^2 / (|a|^2 |b|^2) ([Allemang2003]) between the modes
kept at one value and those found at the next, and the assignment of most total MAC (the Hungarian
method, ``scipy.optimize.linear_sum_assignment``) among a few more modes than kept, so that a mode
keeps its line through a crossing of frequencies where sorting by frequency would swap them.
"""
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.optimize

from .linearize import linearize

EXTRA = 2  # modes found beyond those kept, that a kept mode may continue into (``track``)


@dataclass(frozen=True)
class MotionModes:
    """The modes of a model about a ``motion.Motion`` (module docstring): eigenvalues ``s`` [1/s], one
    per conjugate pair, by |s|; the complex mode shapes (k, n) in q, unit 2-norm, the largest entry
    real and positive; the motion and how the servos were taken."""

    s: np.ndarray
    shapes: np.ndarray
    motion: object
    servos: str

    @property
    def frequency(self):
        """|s| / (2 pi) [Hz]."""
        return np.abs(self.s) / (2.0 * np.pi)

    @property
    def damping_ratio(self):
        """-Re s / |s| (NaN at s = 0)."""
        magnitude = np.abs(self.s)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(magnitude > 0, -self.s.real / magnitude, np.nan)


def motion_modes(setup, motion, k=6, servos="held"):
    """The k lowest modes (``MotionModes``, by |s|) of the model of ``setup`` about ``motion``
    (module docstring); all of them where the mechanism has fewer degrees of freedom."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    plant = linearize(setup, motion.q, servos=servos, motion=motion)
    half = plant.Z.shape[1]
    s, vectors = scipy.linalg.eig(plant.A)
    keep = s.imag >= 0
    s, vectors = s[keep], vectors[:half, keep]
    order = np.lexsort((s.imag, np.abs(s)))[:k]
    shapes = (plant.Z @ vectors[:, order]).T
    shapes /= np.linalg.norm(shapes, axis=1, keepdims=True)
    largest = shapes[np.arange(len(order)), np.argmax(np.abs(shapes), axis=1)]
    return MotionModes(s[order], shapes * (np.abs(largest) / largest)[:, None], motion, servos)


def mac(a, b):
    """The modal assurance criterion of every pair of rows of the complex shapes a (k, n) and b (l, n):
    (k, l), 1 for parallel shapes, 0 for orthogonal ones."""
    product = np.abs(np.conj(a) @ b.T) ** 2
    return product / np.outer(np.sum(np.abs(a) ** 2, axis=1), np.sum(np.abs(b) ** 2, axis=1))


def track(previous, found):
    """For each of the shapes ``previous`` (k, n), the index of its continuation among the shapes
    ``found`` (l >= k, n) and their MAC: the assignment of most total MAC (module docstring)."""
    criterion = mac(previous, found)
    rows, columns = scipy.optimize.linear_sum_assignment(criterion, maximize=True)
    order = columns[np.argsort(rows)]
    return order, criterion[np.arange(len(order)), order]
