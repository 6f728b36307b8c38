"""World-vector beams: FEM beam bodies, planar and spatial, whose nodal unknowns are world vectors
(``embedding``), with a constant mass matrix (``inertia``), bilinear constraints (``constraints``)
and elastic forces from quadratic strains (``kernels``, ``elasticity``)."""
from .elasticity import WorldElasticity
from .embedding import WorldBeam, uses_world_embedding, world_unknowns

__all__ = ["WorldBeam", "WorldElasticity", "uses_world_embedding", "world_unknowns"]
