"""Applied forces behind one interface (``base.Force``): gravity and time loads, spring-dampers,
joint friction, and the scalar functions of time that scale loads."""
