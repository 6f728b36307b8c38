"""Models: ``ModelBuilder`` collects bodies, joints, loads, servos and inputs and builds an immutable
``Model``; ``place`` gives it consistent initial coordinates and velocities (``initial``)."""
from .builder import ModelBuilder
from .initial import place
from .model import Model

__all__ = ["Model", "ModelBuilder", "place"]
