"""Beam centre-line meshes: read a line mesh with meshio (gmsh ``.msh``, VTK ``.vtu`` or legacy ``.vtk``),
write a straight beam of n elements, and move a centre line into its body frame.

A centre line is one unbranched open chain of ``line`` cells, in a plane (z constant) for a planar
beam, anywhere in space for a spatial one; other cells (vertices, points of the geometry) are ignored.
A mesh file is at most ``MAX_MESH_BYTES`` (64 MiB; refused before it is read) and a centre line at most
``MAX_LINES`` line cells (100 000, as a straight beam's elements: ``beams.MAX_ELEMENTS``); a model of
that many elements takes seconds to build, one of ten times as many minutes and gigabytes.
"""
import contextlib
import io
import pathlib
import struct
import zlib

import numpy as np
import scipy.sparse as sp  # its csgraph (and scipy.linalg with it) loads on first use: not for every case

from ..numerics import kinematics as kin

MAX_MESH_BYTES = 64 * 2**20  # the largest mesh file read
MAX_LINES = 100_000  # line cells of a centre line (and elements of a straight beam) at most
WRITERS = {".vtu": {}, ".msh": {"file_format": "gmsh22", "binary": False}}
READERS = (".msh", ".vtu", ".vtk")  # formats that hold line cells; meshio's other readers fail worse on bad files
# What meshio's readers of READERS raise on a broken file besides its own errors (meshio 5.3, found by
# truncating and corrupting files of each format): ValueError (also bad UTF-8 or base64), TypeError (a
# bad dtype), KeyError, IndexError, AssertionError, struct.error, zlib.error and MemoryError (sizes read
# from a corrupt header).
BROKEN = (ValueError, TypeError, KeyError, IndexError, AssertionError, struct.error, zlib.error, MemoryError)


def _meshio_error(err):
    """Whether meshio raised ``err`` as one of its own errors: the public ``meshio.ReadError``, or the
    error of a VTU array whose size does not fit its components, which meshio 5.3 neither exports nor
    derives from ReadError (told apart by the package that defines its class)."""
    return type(err).__module__.partition(".")[0] == "meshio"


def _read(path):
    """The mesh in ``path``, read by each of meshio's formats for its suffix in turn
    (``meshio.extension_to_filetypes``; the format's public module ``meshio.<format>``, whose ``read``
    raises on a file it cannot read, where ``meshio.read`` prints and calls ``sys.exit``, meshio 5.3),
    quietly (meshio prints warnings on stderr, numpy warns of overflows in sizes read from a broken
    header)."""
    import meshio  # here, not at the top: the command line starts without it

    suffix = path.suffix.lower()
    if suffix not in READERS:
        raise ValueError(f"{path}: unknown mesh format {path.suffix!r} (a centre line is read from "
                         f"{', '.join(READERS[:-1])} or {READERS[-1]}; other formats: meshio convert FILE "
                         f"{path.stem}.vtu)")
    errors = []
    for file_format in meshio.extension_to_filetypes[suffix]:
        try:
            with contextlib.redirect_stderr(io.StringIO()), np.errstate(all="ignore"):
                return getattr(meshio, file_format).read(str(path))
        except Exception as err:  # noqa: BLE001  (meshio's corruption error is not public: see _meshio_error)
            if not (isinstance(err, BROKEN) or _meshio_error(err)):
                raise  # not a broken file's error
            detail = " ".join(str(err).split())  # on one line
            errors.append(f"{file_format}: {detail}" if detail else file_format)
    raise ValueError(f"{path}: not a mesh meshio can read (tried {'; '.join(errors)})")


def read_centreline(path, dim=2):
    """Nodes (n_nodes, dim) of the centre line in ``path``, ordered from one end to the other.

    The chain starts at the end its line cells run away from (if the cells are oriented
    consistently), else at the end with the lower point index. A missing or unreadable file, a mesh
    without line cells, a branched, closed or disconnected centre line and, for ``dim`` = 2, a
    non-planar one raise ``ValueError`` naming the file.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: {'not a regular file' if path.exists() else 'no such mesh file'}")
    if path.stat().st_size > MAX_MESH_BYTES:
        raise ValueError(f"{path}: {path.stat().st_size} bytes, larger than {MAX_MESH_BYTES // 2**20} MiB, the limit "
                         f"of a mesh file (a centre line has at most {MAX_LINES} line cells)")
    mesh = _read(path)
    blocks = [block.data for block in mesh.cells if block.type == "line"]
    if not blocks:
        found = ", ".join(sorted({block.type for block in mesh.cells})) or "no cells"
        raise ValueError(f"{path}: no line cells (a beam centre line is a line mesh; found {found})")
    if sum(len(block) for block in blocks) > MAX_LINES:
        raise ValueError(f"{path}: {sum(len(block) for block in blocks)} line cells, more than {MAX_LINES}, the limit "
                         "of a centre line")
    lines = np.concatenate(blocks).astype(np.int64)
    points = np.asarray(mesh.points, dtype=float)
    if lines.ndim != 2 or lines.shape[1] != 2 or points.ndim != 2 or points.shape[1] not in (2, 3):
        raise ValueError(f"{path}: a broken mesh (line cells of shape {lines.shape}, points of shape "
                         f"{points.shape})")
    missing = lines[(lines < 0) | (lines >= len(points))]
    if len(missing):
        raise ValueError(f"{path}: a line cell refers to point {int(missing[0])}, but the mesh has points 0 "
                         f"to {len(points) - 1}")
    if np.any(lines[:, 0] == lines[:, 1]):
        raise ValueError(f"{path}: a line cell joins point {int(lines[lines[:, 0] == lines[:, 1]][0, 0])} "
                         f"to itself")
    used = np.unique(lines)
    if not np.isfinite(points[used]).all():
        bad = int(used[~np.isfinite(points[used]).all(axis=1)][0])
        raise ValueError(f"{path}: point {bad} of the centre line is not finite ({points[bad].tolist()})")
    size = np.ptp(points[used], axis=0).max()
    if dim == 2 and points.shape[1] > 2 and np.ptp(points[used, 2]) > 1e-12 * size:
        raise ValueError(f"{path}: the centre line is not planar (z varies by "
                         f"{np.ptp(points[used, 2]):.3g}); planar beams need a constant z")
    degree = np.bincount(lines.ravel(), minlength=len(points))
    if np.any(degree > 2):
        branch = int(np.argmax(degree))
        raise ValueError(f"{path}: the centre line branches at point {branch} "
                         f"({points[branch, :2].tolist()}, {degree[branch]} lines meet)")
    graph = sp.coo_matrix((np.ones(len(lines)), (lines[:, 0], lines[:, 1])),
                          shape=(len(points),) * 2).tocsr()
    _, part = sp.csgraph.connected_components(graph, directed=False)
    parts = np.unique(part[used])
    if len(parts) > 1:
        raise ValueError(f"{path}: the line cells form {len(parts)} disconnected pieces; a beam "
                         f"centre line is one chain")
    ends = used[degree[used] == 1]
    if len(ends) != 2:
        raise ValueError(f"{path}: the centre line is closed (a loop has no first and last node)")
    sources = ends[np.isin(ends, lines[:, 0])]
    start = sources[0] if len(sources) == 1 else ends.min()
    order = sp.csgraph.depth_first_order(graph, start, directed=False, return_predecessors=False)
    return np.pad(points[order], [(0, 0), (0, max(0, dim - points.shape[1]))])[:, :dim]


def centreline_frame(points):
    """Body frame of a centre line as used by ``body.BeamBody``: origin at the first node, x1 axis
    along the chord from the first to the last node. Returns the nodes in that frame (n, dim), the
    origin (dim,) and the frame: in the plane the angle of x1 to the mesh's x axis, so that
    ``points = origin + R(angle) @ nodes``; in space the rotation R (3, 3) whose columns are the body
    axes, ``points = origin + R @ nodes``, with x2 the direction across the chord in which the nodes lie
    farthest from it (the leading principal direction of their offsets from the chord, signed so that
    the farthest node has x2 > 0) and x3 = x1 x x2: a planar curve lies in the x1-x2 plane, the
    section's width b normal to it as in a planar model. A straight line has x2 and x3 of
    ``kinematics.perpendicular_frame``."""
    points = np.asarray(points, dtype=float)
    chord = points[-1] - points[0]
    if points.shape[1] == 2:
        angle = float(np.arctan2(chord[1], chord[0]))
        c, s = np.cos(angle), np.sin(angle)
        nodes = (points - points[0]) @ np.array([[c, -s], [s, c]])
        return nodes, points[0].copy(), angle
    x1 = chord / np.linalg.norm(chord)
    rel = points - points[0]
    across = rel - np.outer(rel @ x1, x1)
    far = np.linalg.norm(across, axis=1).max()
    if far <= 1e-12 * np.linalg.norm(chord):
        frame = kin.perpendicular_frame(x1)  # z = x1
        x2 = frame[:, 0]
    else:
        x2 = np.linalg.svd(across)[2][0]
        x2 -= (x2 @ x1) * x1
        x2 /= np.linalg.norm(x2)
        x2 *= np.sign(across[np.argmax(np.abs(across @ x2))] @ x2)
    R = np.column_stack([x1, x2, np.cross(x1, x2)])
    return rel @ R, points[0].copy(), R


def write_straight_beam(path, length, n_elements, start=(0.0, 0.0), angle=0.0):
    """Write a straight beam centre line of ``n_elements`` equal line cells, from ``start`` at
    ``angle`` [rad] to the x axis, to ``path`` (VTK ``.vtu``, or ASCII gmsh 2.2 ``.msh``, by suffix).
    Returns the path. This is the function behind ``femdyn mesh``."""
    if int(n_elements) != n_elements or n_elements < 1:
        raise ValueError(f"a beam mesh needs at least one element, got n_elements = {n_elements}")
    if not length > 0:
        raise ValueError(f"beam length must be positive, got {length}")
    s = np.linspace(0.0, length, int(n_elements) + 1)
    points = np.zeros((len(s), 3))
    with np.errstate(over="ignore", invalid="ignore"):  # refused below if not finite
        points[:, :2] = np.asarray(start, dtype=float) + np.outer(s, [np.cos(angle), np.sin(angle)])
    if not np.isfinite(points).all():
        raise ValueError(f"the nodes are not finite in floating point (start {list(start)}, length {length})")
    if np.any(np.all(points[1:] == points[:-1], axis=1)):
        raise ValueError(f"elements of length {length / n_elements:g} are below the resolution of floats at "
                         f"start {list(start)}: consecutive nodes coincide")
    lines = np.column_stack([np.arange(len(s) - 1), np.arange(1, len(s))])
    path = pathlib.Path(path)
    if path.suffix not in WRITERS:
        raise ValueError(f"{path}: beam meshes are written as {' or '.join(WRITERS)}")
    import meshio

    tags = np.ones(len(lines), dtype=int)  # gmsh wants physical and geometrical entity tags
    cell_data = {"gmsh:physical": [tags], "gmsh:geometrical": [tags]} if path.suffix == ".msh" else {}
    meshio.write(path, meshio.Mesh(points, [("line", lines)], cell_data=cell_data), **WRITERS[path.suffix])
    return path
