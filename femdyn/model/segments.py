"""A beam body split into k floating-frame segments along its length: large deflections as a chain of
small ones.

A floating frame of reference is exact for small elastic displacements relative to the frame only:
the world-vector beams (``beam.world``) measure the Green axial strain and the curvatures d_a.u'' in the
body's directors, which are the true strain and curvature while the section rotations relative to the
frame stay small, with relative errors of the order of their square. A link of length L whose sections
turn by Theta overall is therefore split into k segments of about L/k (``SegmentedLink``), each a
``BeamBody`` with its own director frame, so that each segment's sections turn by about Theta/k
relative to its frame; consecutive segments are welded (a fixed joint) at their shared material point,
the end node of segment i and the start node (the frame origin) of segment i + 1: position, section
orientation -- slope, and in space twist -- are continuous, as two welded cantilevers are one
(``tests/physics/test_spatial_beams.py``). As k grows the chain tends to the geometrically exact
(Kirchhoff) rod, the elastica in the plane; the error falls like (Theta/k)^2. This is the co-rotational
idea of splitting a beam into elements of their own frames (Crisfield 1991, ch. 7; Shabana 2013, ch. 5
on the FFR's small-deformation assumption), with segments of several elements each.

Every segment has the reference conditions ``fixed-free`` (its frame is its clamped start section): the
reference conditions of an FFR body are a choice of its frame, not a support (supports are joints), and
the clamped start section is the one the weld turns. The segments are named ``NAME`` (the first, whose
frame is the link's frame: its pose is the link's), ``NAME#2`` .. ``NAME#k``; the weld at the start of
segment i is the fixed joint ``NAME#i``. A point X of the link (its body frame, the first node at the
origin) belongs to the segment whose elements hold it, a point at a boundary between two segments to
the later one (where the frame origin of that segment sits), and is given to it as X minus the
segment's start node: ``SegmentedLink.locate``. With k = 1 the link is the beam body itself.

Inertia. A beam body's rigid block holds the rotary inertia of its sections (``rigid_inertia``: int rho
y^2 dA = rho I per length) turning with its frame, while the rotary inertia of the bending motion is
neglected (003 eq. 125; ``beam.world.inertia``). A segmented link keeps that model for bending: the
first segment, whose frame is the link's, carries the rotary inertia of all the link's sections about
the axes across the link (``Segment``), the others none, so that the link has the kinetic energy of
the unsplit body -- the centre line's, exact, plus the sections' turning with the link frame -- and a
planar segmented link and a single one move alike under small deflections. In space each segment
keeps its sections' polar inertia rho I_p about its own d_1: the twist psi of a spatial beam is
measured from its frame, and the sections spin with the frame's spin plus psi' (``beam.world.inertia``
drops the cross term), so each segment's sections spin with their own frame. The rotary part of a
second moment S (the Euler tensor's) is the inertia tensor J = tr(S) I - S; the segments' parts are
J_0 = P J_link P' + P1 J_0,own P1 and J_i = P1 J_i,own P1 (P1 = e_1 e_1^T, P = I - P1), as second
moments S = tr(J)/2 I - J. Where a single link's frame spin leaves its sections' twist without the
frame's angular acceleration (the missing cross term), the segments restore it step by step: a link
free to twist (a ball joint) has the free-free torsion frequencies n pi/L (G J/rho I_p)^(1/2) in the
limit of many segments, not the fixed-free ones of a single body.
"""
from dataclasses import dataclass, fields, replace
from functools import cached_property

import numpy as np

from ..beam.body import BeamBody
from .errors import ModelError

SEPARATOR = "#"  # segment and weld names: NAME#2 .. NAME#k


def segment_name(link, i):
    """The name of segment ``i`` (from 0) of ``link``: the link's own name for the first."""
    return link if i == 0 else f"{link}{SEPARATOR}{i + 1}"


def _part(value, elements):
    """A per-element parameter (scalar or (K,) array) restricted to ``elements`` (a slice)."""
    if value is None or np.ndim(value) == 0:
        return value
    return np.asarray(value, dtype=float)[elements]


def _split_elements(n_elements, k):
    """The element ranges of k segments of as equal a count as possible (the longer ones first)."""
    counts = np.full(k, n_elements // k)
    counts[: n_elements % k] += 1
    bounds = np.concatenate([[0], np.cumsum(counts)])
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


class Segment(BeamBody):
    """A segment of a link: a ``BeamBody`` whose rigid second moment holds, in place of its own sections'
    part, the rotary inertia of the link's sections across it (``link``: their second moment, for the
    first segment; None for the others) and in space its own sections' spin (module docstring)."""

    def __init__(self, link, *args, **options):
        self.link = link
        super().__init__(*args, **options)

    @cached_property
    def rigid_inertia(self):
        mass, first, second = self.elements.rigid_inertia()
        own = self.elements.section_moment()
        return mass, first, second - own + _rotary(own, self.link)


def _rotary(own, link=None):
    """The sections' second moment of a segment whose own sections' is ``own``: the link's ``link``
    (the first segment) or nothing across the link, its own sections' spin about d_1 in space (module
    docstring)."""
    if len(own) == 2:
        return np.zeros((2, 2)) if link is None else link

    def inertia(S):  # the inertia tensor of a second moment
        return np.trace(S) * np.eye(3) - S

    spin = np.diag([1.0, 0.0, 0.0])
    J = spin @ inertia(own) @ spin
    if link is not None:
        across = np.eye(3) - spin
        J = J + across @ inertia(link) @ across
    return 0.5 * np.trace(J) * np.eye(3) - J


@dataclass(frozen=True)
class SegmentedLink:
    """A link ``name`` split into the beam bodies ``beams`` (k of them), segment i over the link's
    elements ``elements[i]`` and starting at ``starts[i]`` (the link frame's coordinates of its first
    node, the origin of its own frame, whose axes are the link frame's); ``beam`` the unsplit body
    (``locate`` finds points on its centre line)."""

    name: str
    beam: object
    beams: tuple
    elements: tuple
    starts: np.ndarray

    @classmethod
    def split(cls, name, beam, k):
        """Split the FEM ``BeamBody`` ``beam`` (nodal coordinates: no modal reduction, at least k
        elements) into k segments (module docstring)."""
        field = f"body '{name}'.beam.segments"
        if int(k) != k or k < 1:
            raise ModelError(field, f"must be a whole number >= 1, got {k}")
        k = int(k)
        if beam.modal_frequencies is not None:
            raise ModelError(field, "a segmented link has nodal elastic coordinates: modal reduction (modes) "
                             "and the rigid limit are not split")
        if beam.damping is not None and k > 1:
            raise ModelError(field, "damping acts on a body's elastic coordinates in its own frame; the damping "
                             "of segmented links is not implemented (give the link one segment)")
        if beam.axial != "cubic":
            raise ModelError(field, "segments are world-vector beams (the cubic axial shape); Rayleigh-Ritz "
                             "bodies and the linear axial shape are not split")
        n_elements = len(beam.elements.connectivity)
        if k > n_elements:
            raise ModelError(field, f"{k} segments need at least {k} elements, the beam has {n_elements}")
        section = beam.section
        elements = _split_elements(n_elements, k)
        beams, starts = [], []
        for part in elements:
            nodes = beam.nodes[part.start: part.stop + 1]
            cut = replace(section, **{f.name: _part(getattr(section, f.name), part) for f in fields(section)})
            options = {} if beam.dim == 2 else {"shear": _part(beam.shear, part)}
            beams.append(Segment(beam.elements.section_moment() if part.start == 0 else None, nodes - nodes[0], cut,
                                 _part(beam.young, part), _part(beam.rho, part), reference="fixed-free",
                                 axial="cubic", **options))
            starts.append(nodes[0])
        return cls(name, beam, tuple(beams), tuple(elements), np.array(starts))

    @property
    def names(self):
        return tuple(segment_name(self.name, i) for i in range(len(self.beams)))

    def welds(self):
        """(weld name, segment before, its end point in its frame, segment after): the fixed joints."""
        names = self.names
        return [(names[i], names[i - 1], self.beams[i - 1].nodes[-1], names[i]) for i in range(1, len(names))]

    def locate(self, point):
        """The segment name and the segment-frame point of the link-frame material point ``point``
        (``BeamBody.locate`` on the whole centre line; ValueError off it)."""
        element, xi = self.beam.locate(point)
        node = int(element[0]) + int(xi[0] >= 1.0 - 1e-12)  # the element, or the node that ends it
        first = [part.start for part in self.elements]
        i = min(int(np.searchsorted(first, node, side="right")) - 1, len(self.beams) - 1)
        return self.names[i], np.asarray(point, dtype=float) - self.starts[i]
