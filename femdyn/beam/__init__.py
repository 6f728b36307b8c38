"""Flexible planar beams under the floating frame of reference (003): Euler-Bernoulli elements
batched over a body (``elements``), a beam body with reference conditions and Rayleigh-Ritz, FEM or
modal coordinates (``body``), static, modal and section-force analyses (``analysis``) and centre-line
meshes (``meshes``)."""
from .analysis import (Modes, SectionForces, lowest_modes, natural_frequencies, section_forces,
                       static_deflection)
from .body import BeamBody, Section
from .elements import BeamElements, Invariants
from .meshes import centreline_frame, read_centreline, write_straight_beam

__all__ = ["BeamBody", "BeamElements", "Invariants", "Modes", "Section", "SectionForces",
           "centreline_frame", "lowest_modes", "natural_frequencies", "read_centreline",
           "section_forces", "static_deflection", "write_straight_beam"]
