"""Applied forces behind one interface (``base.Force``): gravity and time loads, spring-dampers,
joint friction, the material damping of flexible bodies (``viscous``), and the scalar functions of time
that scale loads."""
