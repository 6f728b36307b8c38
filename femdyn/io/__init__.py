"""File formats: CSV tables (``tables``), ParaView series (``vtk``) and structured grids (``vts``),
centre-line meshes (``meshes``), JSON
files (``jsonfile``) and the SI units of every table column (``units``). Nothing here knows the solver:
the modules import at most ``numerics``."""
