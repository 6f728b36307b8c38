"""The natural frequencies of the Hermite Euler-Bernoulli cantilever under element refinement
(``beam_frequency_study``): the observed order in the element length of its lowest bending
frequencies against the exact ones of the continuous clamped-free beam, whose roots beta L of
``1 + cos x cosh x = 0`` are ``cantilever_roots`` (``CANTILEVER_BETA_L``, the first three).
"""
import math
import time

import numpy as np

from .orders import EPS, ROUNDOFF, ConvergenceError, element_counts, finish_study

CANTILEVER_BETA_L = (1.875104068711961, 4.694091132974175, 7.854757438237613)


def cantilever_roots(count):
    """The first ``count`` roots beta L of ``1 + cos x cosh x = 0`` (clamped-free Euler-Bernoulli
    beam), each in ((k - 1) pi, k pi); written as ``cos x + 1/cosh x = 0`` to stay finite."""
    from scipy.optimize import brentq

    f = lambda x: math.cos(x) + 1.0 / math.cosh(x)
    return np.array([brentq(f, (k - 1) * math.pi + (k == 1) * 1.0, k * math.pi, xtol=1e-15, rtol=4 * EPS)
                     for k in range(1, count + 1)])


def _bending_frequencies(body, modes):
    """The ``modes`` lowest bending (transverse) natural frequencies of a straight beam body: modes
    whose nodal motion is mostly axial are left out."""
    from ..beam.modes import natural_frequencies

    n = body.n_coordinates
    k = min(modes, n)
    while True:
        found = natural_frequencies(body, k)
        axial = np.linalg.norm(found.nodal[:, :, 0], axis=1)
        transverse = np.linalg.norm(found.nodal[:, :, 1:], axis=(1, 2))
        omega = found.omega[transverse > axial]
        if omega.size >= modes:
            return omega[:modes]
        if k >= n:
            raise ValueError(f"a beam of {len(body.nodes) - 1} elements has only {omega.size} bending "
                             f"modes, fewer than the {modes} asked for")
        k = min(2 * k + 1, n)


def beam_frequency_study(length, section, young, rho, elements=(2, 4, 8, 16), modes=3, strict=True):
    """Observed orders in the element length h = length / elements of the ``modes`` lowest bending
    frequencies of a uniform cantilever (``BeamBody.straight``, reference conditions fixed-free,
    Hermite cubic Euler-Bernoulli elements, consistent mass): relative errors against the exact
    ``omega_i = (beta_i L)^2 sqrt(E I / (rho A L^4))`` with ``cos(beta L) cosh(beta L) = -1``
    (beta L = 1.875104068711961, 4.694091132974175, 7.854757438237613, ...). The expected order is
    4 (eigenvalues of a conforming cubic element converge as h^(2(p + 1 - m)) with p = 3, m = 2).

    section: a ``beam.body.Section`` or ``(area, inertia)``; young, rho scalars; elements: strictly
    increasing element counts; ``strict`` as in ``refinement_study``.
    """
    from ..beam.body import BeamBody, Section

    if not isinstance(section, Section):
        section = Section(*section)
    counts = element_counts(elements)
    if int(modes) != modes or modes < 1:
        raise ValueError(f"modes must be a positive integer, got {modes}")
    h = length / counts.astype(float)
    if len(counts) < 2:
        raise ConvergenceError(f"too few levels: {len(counts)} mesh gives no observed order (need at least 2)")
    exact = cantilever_roots(int(modes))**2 * math.sqrt(young * section.inertia / (rho * section.area)) / length**2
    values, wall = [], []
    for n in counts:
        start = time.perf_counter()
        values.append(_bending_frequencies(BeamBody.straight(length, int(n), section, young, rho), int(modes)))
        wall.append(time.perf_counter() - start)
    values = np.array(values)
    errors = np.abs(values - exact) / exact
    names = [f"omega{i + 1}" for i in range(int(modes))]
    study = finish_study({
        "title": (f"cantilever bending frequencies, L = {length:g}, A = {float(section.area):.4g}, "
                  f"I = {float(section.inertia):.4g}, E = {young:.4g}, rho = {rho:.4g}"),
        "parameter": "h", "count_label": "elements", "h": h, "counts": counts, "quantities": names,
        "descriptions": [f"bending mode {i + 1} [rad/s], beta L = {b:.15g}"
                         for i, b in enumerate(cantilever_roots(int(modes)))],
        "reference": "exact cantilever frequencies (Euler-Bernoulli)", "reference_values": exact,
        "wall_time": np.array(wall), "error_label": "relative error"},
        values, h, errors, np.full(errors.shape, ROUNDOFF * EPS))
    if strict:
        study.check()
    return study
