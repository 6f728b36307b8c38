"""VTK XML files written directly: the ``DataArray`` element and the ``UnstructuredGrid`` file (``.vtu``).

Arrays are stored as "binary" inline data of the VTK XML format (VTK User's Guide, "VTK File Formats";
[VTK-formats] in docs/references.md): base64 of a UInt32 byte count followed by the values,
little-endian, uncompressed -- NaN survives as NaN, and no compressor is imported or run. An
unstructured grid holds its points (always three coordinates), its cells of one or more VTK cell types
(connectivity, offsets, types) and named point and cell fields: scalars (one value per point or cell) or
vectors (a row per point or cell). VTK's own readers (ParaView, pyvista) and meshio read these files
(``tests/units/test_io_vtkxml.py``).
"""
import base64
from pathlib import Path

import numpy as np

TYPES = {"Float64": "<f8", "Int64": "<i8", "UInt8": "u1"}  # VTK's name of an array type -> its bytes
CELL_TYPES = {"line": 3, "quad": 9, "hexahedron": 12}  # VTK's cell type numbers (vtkCellType.h)


def data_array(values: np.ndarray, name: str | None = None, kind: str = "Float64") -> str:
    """The ``DataArray`` element of ``values`` stored as ``kind`` (a key of ``TYPES``): one value per
    tuple of a 1-D array (VTK's default of one component, which readers give as scalars), a row's values
    as the components of a 2-D one."""
    values = np.asarray(values)
    data = np.ascontiguousarray(values, dtype=TYPES[kind]).ravel()
    encoded = base64.b64encode(np.uint32(data.nbytes).tobytes() + data.tobytes()).decode()
    named = f' Name="{name}"' if name is not None else ""
    components = f' NumberOfComponents="{values.shape[1]}"' if values.ndim == 2 else ""
    return f'<DataArray type="{kind}"{named}{components} format="binary">{encoded}</DataArray>'


def _field(name, values):
    """A point or cell field: floating-point values as Float64, whole numbers as Int64."""
    return data_array(values, name, "Float64" if np.asarray(values).dtype.kind == "f" else "Int64")


def write_unstructured_grid(path: str | Path, points: np.ndarray, cells: list[tuple[str, np.ndarray]],
                            point_data: dict | None = None, cell_data: dict | None = None) -> None:
    """Write ``path`` (.vtu): ``points`` (P, 3), ``cells`` [(cell type, a key of ``CELL_TYPES``,
    (C, k) point indices of its C cells of k points each)], at least one, ``point_data`` {name: (P,) or (P, m)},
    ``cell_data`` {name: (C_total,) or (C_total, m)} in the order of the cells."""
    points = np.asarray(points, dtype=float)
    blocks = [(CELL_TYPES[kind], np.asarray(indices).reshape(len(indices), -1)) for kind, indices in cells]
    connectivity = np.concatenate([block.ravel() for _, block in blocks])
    offsets = np.cumsum(np.concatenate([np.full(len(block), block.shape[1]) for _, block in blocks]))
    types = np.concatenate([np.full(len(block), number) for number, block in blocks])
    point_fields = "".join(_field(name, values) for name, values in (point_data or {}).items())
    cell_fields = "".join(_field(name, values) for name, values in (cell_data or {}).items())
    text = ('<?xml version="1.0"?>\n'
            '<VTKFile type="UnstructuredGrid" version="0.1" byte_order="LittleEndian" header_type="UInt32">\n'
            f'<UnstructuredGrid>\n<Piece NumberOfPoints="{len(points)}" NumberOfCells="{len(types)}">\n'
            f"<Points>{data_array(points, 'Points')}</Points>\n"
            f"<Cells>{data_array(connectivity, 'connectivity', 'Int64')}{data_array(offsets, 'offsets', 'Int64')}"
            f"{data_array(types, 'types', 'UInt8')}</Cells>\n"
            f"<PointData>{point_fields}</PointData>\n<CellData>{cell_fields}</CellData>\n"
            "</Piece>\n</UnstructuredGrid>\n</VTKFile>\n")
    Path(path).write_text(text)
