"""Flexible beams under the floating frame of reference (003): Euler-Bernoulli elements batched over a
body, planar (``elements``) and spatial (``spatial``), a beam body with reference conditions
(``reference``) and Rayleigh-Ritz, FEM or modal coordinates (``body``), static and modal analyses
(``modes``), section forces (``sections``), the deformed centre line (``deflection``), strain gauges
(``gauges``) and material damping (``damping``); their embedding into the
director bodies of a model by carrier vectors (``ffr``, ``spatial_ffr``, ``elasticity``) or world vectors
(``world``), behind one protocol (``flexible``); centre-line meshes are read by ``femdyn.io.meshes``."""
from .body import BeamBody, Section
from .damping import Damping
from .elements import BeamElements, Invariants
from .modes import Modes, lowest_modes, natural_frequencies, static_deflection
from .sections import SectionForces, SpatialSectionForces, section_forces

__all__ = ["BeamBody", "BeamElements", "Damping", "Invariants", "Modes", "Section", "SectionForces",
           "SpatialSectionForces", "lowest_modes", "natural_frequencies", "section_forces",
           "static_deflection"]
