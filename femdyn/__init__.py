"""femdyn: energy-momentum dynamics of parallel manipulators with flexible links."""

__version__ = "0.1.0"
