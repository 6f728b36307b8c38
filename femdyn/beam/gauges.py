"""Strain gauges on a beam body: the normal strain and stress at one material point of its centre line
and one fibre of the section there, over the frames of a run (Euler-Bernoulli: plane sections stay
plane and normal to the centre line, 003 eq. 38; [Gere2009] for the fibre strain of bending).

A gauge at arc length ``s`` from the body's first node, on the fibre at ``y`` (along the element's
x2 axis, the section's depth direction: d_2 of a straight link) and, in space, ``z`` (along x3, d_3)
from the centre line reads

    eps(s, y, z) = eps_0(s) - y v''(s) - z w''(s),        sigma = E eps,

eps_0 the axial strain of the element that holds s (``sections.axial_strains``: the element-averaged
strain whose axial force N = EA eps_0 the section carries, with geometric stiffening its Green
strain), v'' the curvature of bending in the x1-x2 plane and w'' in the x1-x3 plane. Tension is
positive. It is the section's stress sigma = N/A - M_z y/I_z + M_y z/I_y (``sections.SectionForces``,
``SpatialSectionForces``) divided by E: a cantilever of length L under a tip force F along -x2 has
v'' = -F (L - s)/(EI), so its top fibre y = c stretches by eps = F (L - s) c/(EI) (a cubic
deflection, which the cubic Hermite element holds exactly); a link under an axial force N stretches by
eps = N/(EA) at every fibre.

At a node between two elements the gauge reads the element that starts there (the last one at the
far end); where the element solution's curvature jumps between elements (any load but end forces),
that is the reading of one side.
"""
from dataclasses import dataclass

import numpy as np

from .sections import section_forces


@dataclass(frozen=True)
class Gauge:
    """A strain gauge (module docstring): its ``name``, the flexible ``body`` that holds it, the arc
    length ``s`` [m] of its point from the body's first node and its ``fibre`` (y,) in the plane or
    (y, z) in space [m] from the centre line along the section's axes x2 (, x3)."""

    name: str
    body: str
    s: float
    fibre: tuple


def arc_length(beam) -> float:
    """The length [m] of the centre line of ``beam`` (a ``BeamBody``), the sum of its elements'."""
    return float(np.sum(beam.elements.length))


def locate(beam, s: float) -> tuple:
    """The element k and the point xi in [0, 1] on it of the arc length ``s`` along ``beam``'s centre
    line (module docstring: at a node, the element that starts there); ValueError off the line."""
    length = np.asarray(beam.elements.length, dtype=float)
    total = float(length.sum())
    if not (np.isfinite(s) and -1e-12 * total <= s <= total * (1 + 1e-12)):
        raise ValueError(f"must lie on the centre line, 0 to {total:.6g} m from its first node, got {s!r}")
    start = np.concatenate([[0.0], np.cumsum(length)[:-1]])
    k = max(min(int(np.searchsorted(start, s, side="right")) - 1, len(length) - 1), 0)
    return k, float(np.clip((s - start[k]) / length[k], 0.0, 1.0))


def check_fibre(beam, fibre) -> tuple:
    """The fibre offsets (y,) or (y, z) [m] of a gauge on ``beam``, checked: dim - 1 finite numbers,
    inside the section's outer fibres where they are known (|y| <= c, |z| <= c_z); ValueError else."""
    dim = beam.dim
    values = np.atleast_1d(np.asarray(fibre, dtype=float))
    if values.shape != (dim - 1,) or not np.isfinite(values).all():
        raise ValueError(f"needs {'y' if dim == 2 else '[y, z]'}: {dim - 1} finite number{'s' * (dim == 3)} "
                         f"(m from the centre line), got {np.asarray(fibre).tolist()}")
    section = beam.section
    for value, bound, axis in zip(values, (section.fibre, section.fibre_z), "yz"):
        if bound is not None and abs(value) > float(np.max(bound)) * (1 + 1e-12):
            raise ValueError(f"{axis} = {value:g} m lies outside the section (its outer fibre is at "
                             f"{float(np.max(bound)):g} m)")
    return tuple(float(v) for v in values)


def fibre_strain(beam, elastic, s: float, fibre, stiffening: bool = False) -> np.ndarray:
    """The normal strain eps (module docstring; dimensionless, tension positive) at arc length ``s`` [m]
    and ``fibre`` (y,) or (y, z) [m] of ``beam`` for the elastic coordinates ``elastic`` (F, k), over
    the F frames: (F,). ``stiffening``: the body's axial force is EA times the Green strain."""
    k, xi = locate(beam, s)
    el = beam.elements
    forces = section_forces(beam, np.atleast_2d(elastic), [xi], stiffening)
    y = float(np.atleast_1d(fibre)[0])
    if beam.dim == 2:
        stress = forces.axial[:, k, 0] / el.area[k] - forces.moment[:, k, 0] * y / el.inertia[k]
    else:
        z = float(fibre[1])
        stress = (forces.axial[:, k, 0] / el.area[k] - forces.moment_z[:, k, 0] * y / el.iz[k]
                  + forces.moment_y[:, k, 0] * z / el.iy[k])
    return stress / el.young[k]


def gauge_values(beam, elastic, gauge: Gauge, stiffening: bool = False) -> tuple:
    """(strain [1], stress [Pa]) of ``gauge`` on ``beam`` over the frames of ``elastic`` (F, k): each
    (F,), sigma = E eps with E of the element that holds the gauge."""
    strain = fibre_strain(beam, elastic, gauge.s, gauge.fibre, stiffening)
    k, _ = locate(beam, gauge.s)
    return strain, beam.elements.young[k] * strain
