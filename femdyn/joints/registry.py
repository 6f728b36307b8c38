"""The kinematic pairs by the name a case file gives them."""
from .cylindrical import Cylindrical
from .fixed import Fixed
from .prismatic import Prismatic
from .revolute import Revolute
from .spherical import Spherical
from .universal import Universal

JOINT_TYPES = {
    "revolute": Revolute,
    "prismatic": Prismatic,
    "spherical": Spherical,
    "universal": Universal,
    "cylindrical": Cylindrical,
    "fixed": Fixed,
}
