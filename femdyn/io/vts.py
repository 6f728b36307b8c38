"""ParaView structured grids: the VTK XML ``StructuredGrid`` file format (``.vts``), written directly.

A structured grid of nx x ny x nz points (a map over one to three grid axes, the missing ones of
extent 1) with its point coordinates and named scalar point fields; the arrays are stored as
base64-encoded little-endian float64 with a UInt32 byte count ("binary" inline data of the VTK XML
format, VTK User's Guide, "VTK File Formats"), so NaN (a masked point) survives as NaN.
"""
from pathlib import Path

import numpy as np

from .vtkxml import data_array


def write_structured_grid(path, points, fields) -> None:
    """Write ``path`` (.vts): ``points`` (nx, ny, nz, 3) the coordinates of a structured grid, the first
    index varying fastest in the file (VTK's order), ``fields`` {name: (nx, ny, nz)} scalars per point."""
    points = np.asarray(points, dtype=float)
    nx, ny, nz = points.shape[:3]
    extent = f"0 {nx - 1} 0 {ny - 1} 0 {nz - 1}"
    order = (2, 1, 0)  # x fastest: C order of the (z, y, x) transpose
    data = "".join(data_array(np.transpose(np.asarray(v, dtype=float), order).ravel(), name)
                   for name, v in fields.items())
    xyz = np.transpose(points, (2, 1, 0, 3))
    text = ('<?xml version="1.0"?>\n'
            '<VTKFile type="StructuredGrid" version="0.1" byte_order="LittleEndian" header_type="UInt32">\n'
            f'<StructuredGrid WholeExtent="{extent}">\n<Piece Extent="{extent}">\n'
            f"<PointData>{data}</PointData>\n<Points>{data_array(xyz.reshape(-1, 3))}</Points>\n"
            "</Piece>\n</StructuredGrid>\n</VTKFile>\n")
    Path(path).write_text(text)
