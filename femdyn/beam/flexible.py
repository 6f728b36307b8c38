"""The one protocol of the flexible bodies of a model, and the choice of embedding.

A ``beam.BeamBody`` enters a model of director bodies (000 eq. 8) by one of three embeddings, all with
a constant mass matrix and constraints that are at most quadratic (003 eqs. 1-32 in director form):
carrier vectors in the plane (``ffr.FlexibleBody``) and in space (``spatial_ffr.SpatialFlexibleBody``)
for the few coordinates of Rayleigh-Ritz and modal bodies, world vectors (``world.WorldBeam``) for the
nodal coordinates of FEM bodies. ``Flexible`` is what the model and its outputs ask of any of them:
the coordinates it numbers, the mass coefficients over its slots (``model.inertia``), its weight, the
material points of joints and loads, the vectors that turn with it (joint reactions), its
constraint families and elastic forces. ``embed`` picks the embedding of a body
(``world.uses_world_embedding``); ``constraint_families`` and ``elastic_forces`` batch those of a
model's flexible bodies kind by kind, in the order of ``EMBEDDINGS``, so that the model never asks
which kind of flexible body it holds.
"""
from __future__ import annotations

from typing import Any, Protocol, Sequence

import numpy as np

from .ffr import FlexibleBody
from .spatial_ffr import SpatialFlexibleBody
from .world import WorldBeam, uses_world_embedding


class Flexible(Protocol):
    """The interface of a flexible body's coordinates in a model (module docstring)."""

    name: str
    beam: Any  # the ``BeamBody``
    stiffening: bool
    dim: int
    rigid: np.ndarray  # the frame's [phi, d_1, .., d_dim] in the global vector
    slots: np.ndarray  # first coordinates of the massive dim-vectors (``model.inertia``)
    twists: np.ndarray  # the scalar massive coordinates (the sections' twists in space)

    @property
    def n_coordinates(self) -> int:
        """The model coordinates of the body's elastic part."""

    def coordinate_names(self) -> list[str]:
        """Names of the body's coordinates after its frame's, in their order."""

    def slot_blocks(self) -> tuple[Any, Any, Any]:
        """Mass coefficients (A, B) over ``slots`` and the scalar mass matrix S over ``twists``
        (``model.inertia``), all sparse."""

    def gravity_weights(self, g: np.ndarray) -> np.ndarray:
        """The generalised gravity force int rho N^T g over ``slots``, (len(slots), dim)."""

    def turning_vectors(self) -> np.ndarray:
        """First coordinates of the dim-vectors that turn with the body: phi, the directors and its
        world-vector unknowns (``model.reactions``)."""

    def side(self, X: np.ndarray, frame: np.ndarray,
             oriented: bool = False) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """Local dofs, point matrix (dim, n_local) and joint-frame axes at the material point X."""

    def positions(self, q: np.ndarray, X: np.ndarray) -> np.ndarray:
        """World positions (..., P, dim) of body-frame points X (P, dim)."""

    def element_points(self, q: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """World positions (..., K, P, dim) of the points ``xi`` of every element."""

    def elastic_coordinates(self, q: np.ndarray) -> np.ndarray:
        """The body's elastic coordinates (..., n_coordinates of the ``BeamBody``)."""

    def with_elastic(self, q: np.ndarray, v: np.ndarray, elastic: np.ndarray,
                     rate: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Copies of q and v whose body has the elastic coordinates ``elastic`` and their ``rate``."""


EMBEDDINGS = (FlexibleBody, SpatialFlexibleBody, WorldBeam)  # the order of their rows and forces


def embed(name: str, beam: Any, stiffening: bool, dim: int, offset: int, start: int,
          points: Sequence[np.ndarray] = ()) -> Flexible:
    """The coordinates of the beam body ``name`` whose frame starts at ``offset`` and whose elastic
    part at ``start``: world vectors for FEM bodies (with the section carriers of its material
    ``points``), three carriers per elastic coordinate in space, one in the plane."""
    if uses_world_embedding(beam):
        return WorldBeam(name, beam, stiffening, offset, start, points)
    k = beam.n_coordinates
    if dim == 3:
        return SpatialFlexibleBody(name, beam, stiffening, offset, start + np.arange(k), start + k + np.arange(9 * k))
    return FlexibleBody(name, beam, stiffening, offset, start + np.arange(k), start + k + np.arange(2 * k))


def world_beams(bodies: Sequence[Flexible]) -> list[Flexible]:
    """The bodies embedded by world vectors (``world.WorldBeam``: the FEM bodies), in their order: what
    outputs and tests read nodal quantities of (``psi``, ``w``, ``points``)."""
    return [b for b in bodies if type(b) is WorldBeam]


def _kinds(bodies: Sequence[Flexible]) -> list[tuple[Any, list[Flexible]]]:
    """The bodies grouped by embedding, in the order of ``EMBEDDINGS``."""
    return [(kind, group) for kind in EMBEDDINGS if (group := [b for b in bodies if type(b) is kind])]


def constraint_families(bodies: Sequence[Flexible]) -> list[Any]:
    """The constraint families of the flexible bodies, batched kind by kind (``families`` of each)."""
    return [family for kind, group in _kinds(bodies) for family in kind.families(group)]


def elastic_forces(bodies: Sequence[Flexible]) -> list[Any]:
    """The elastic forces of the flexible bodies, one per kind that has elastic unknowns."""
    return [force for kind, group in _kinds(bodies) for force in kind.elastic_forces(group)]
