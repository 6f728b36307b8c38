"""Models: ``ModelBuilder`` collects bodies, joints, loads, servos and inputs into a frozen ``ModelSpec``
(``spec``) and builds an immutable ``Model`` (``model``: coordinates, constraint families, forces; its
mass, ``inertia``); ``place`` gives it consistent initial coordinates and velocities (``initial``),
``assembly`` closes its loops; the bodies' motion (``motion``) and their material points' (``points``),
joint reactions (``reactions``), the instantaneous dynamics (``instantaneous``), the rigid mechanism and
the deviation from it (``rigid_mechanism``, ``deviation``), the effector's part in the modes
(``participation``), strain gauges placed on its links (``gauges``), links in floating-frame segments
(``segments``) and the error of a definition that cannot be built (``errors``)."""
from .builder import ModelBuilder
from .initial import place
from .model import Model

__all__ = ["Model", "ModelBuilder", "place"]
