"""ParaView time series of body outlines and centre lines (VTK XML files, ``vtkxml``).

Each rigid body is drawn as the box spanned by its directors: a ``quad`` in 2-D
(lying in the plane z = 0) and a ``hexahedron`` in 3-D.  Bodies given as
``Lines`` (the deformed centre lines of flexible bodies) are drawn as ``line``
cells instead, with their own point fields.  Every frame becomes one ``.vtu``
file of boxes, ``folder/vtk/frame_NNNNN.vtu`` (part 0), and one of lines,
``folder/vtk/lines_NNNNN.vtu`` (the next part); ``folder/motion.pvd`` collects
them with their simulation times, so ParaView plays the motion and shows the
parts of a frame together as the blocks of one multiblock data set.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .vtkxml import write_unstructured_grid

# Corner coordinates of the unit box [-1/2, 1/2]^dim in VTK node order.
_UNIT_CORNERS = {
    2: 0.5 * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float),
    3: 0.5 * np.array(
        [
            [-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
            [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1],
        ],
        dtype=float,
    ),
}
_CELL_TYPE = {2: "quad", 3: "hexahedron"}


@dataclass(frozen=True)
class Lines:
    """Polylines drawn for some bodies instead of their boxes, over the frames.

    ``points`` (F, P, dim): world positions; ``segments`` (L, 2): the point
    indices of each ``line`` cell; ``body_id`` (L,): the body of each cell (an
    index into the body names); ``point_data``: name -> (F, P) scalars or
    (F, P, dim) vectors.
    """

    points: np.ndarray
    segments: np.ndarray
    body_id: np.ndarray
    point_data: dict


def _to_3d(a):
    """Pad the last axis of ``a`` with zeros to three components (a new array)."""
    out = np.zeros((*a.shape[:-1], 3), dtype=a.dtype)
    out[..., : a.shape[-1]] = a
    return out


def _corner_velocities(v, omega, arms):
    """Rigid body velocity v + omega x r of every corner, as (B, C, 3).

    ``v`` is (B, dim), ``arms`` (B, C, dim) the corner offsets r from the
    centre; ``omega`` is (B,) about z in 2-D and (B, 3) in 3-D.
    """
    if arms.shape[-1] == 2:
        spin = omega[:, None, None] * np.stack([-arms[..., 1], arms[..., 0]], axis=-1)
    else:
        spin = np.cross(omega[:, None, :], arms)
    return _to_3d(v[:, None, :] + spin)


def write_pvd(path, entries):
    """Write a ParaView collection file of (time, part, file) ``entries``; a reader sees the old file or
    the new one, never a part (written beside it and moved into place)."""
    entries = "\n".join(
        f'    <DataSet timestep="{float(t)!r}" group="" part="{part}" file="{f}"/>'
        for t, part, f in entries
    )
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(
        '<?xml version="1.0"?>\n'
        '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
        "  <Collection>\n"
        f"{entries}\n"
        "  </Collection>\n"
        "</VTKFile>\n"
    )
    partial.replace(path)


def _write_boxes(path, position, rotation, local, velocity, omega, body_ids):
    """Write the boxes of one frame to ``path``: corners ``position + rotation @ local`` with the
    rigid body velocities of the corners."""
    n_boxes, n_corners = local.shape[:2]
    arms = np.einsum("bij,bcj->bci", rotation, local)  # (B, C, dim)
    corners = _to_3d(position[:, None, :] + arms)
    write_unstructured_grid(path, corners.reshape(-1, 3),
                            [(_CELL_TYPE[local.shape[-1]], np.arange(n_boxes * n_corners).reshape(n_boxes, n_corners))],
                            {"velocity": _corner_velocities(velocity, omega, arms).reshape(-1, 3)},
                            {"body_id": body_ids})


def _write_lines(path, lines, k):
    """Write frame ``k`` of ``lines`` to ``path``; vector fields padded to three components."""
    data = {
        name: _to_3d(values[k]) if values.ndim == 3 else values[k]
        for name, values in lines.point_data.items()
    }
    write_unstructured_grid(path, _to_3d(lines.points[k]), [("line", lines.segments)], data,
                            {"body_id": lines.body_id})


def _check_lines(lines, n_frames, n_bodies, dim):
    """Refuse ``Lines`` whose shapes do not fit the frames and bodies."""
    n_points = lines.points.shape[1] if lines.points.ndim == 3 else -1
    if lines.points.shape != (n_frames, n_points, dim):
        raise ValueError("line points must have shape (F, P, dim)")
    if lines.segments.ndim != 2 or lines.segments.shape[1] != 2:
        raise ValueError("line segments must have shape (L, 2)")
    if lines.body_id.shape != (len(lines.segments),):
        raise ValueError("need one body id per line segment")
    if np.any((lines.body_id < 0) | (lines.body_id >= n_bodies)):
        raise ValueError("line body ids must index the bodies")
    for name, values in lines.point_data.items():
        if np.shape(values) not in ((n_frames, n_points), (n_frames, n_points, dim)):
            raise ValueError(f"line point field {name!r} must have shape (F, P[, dim])")


def write_vtk_series(folder, times, positions, rotations, sizes, body_names, velocities=None,
                     angular_velocities=None, lines=None):
    """Write the body outlines of a motion as a ParaView time series: its frames
    (``write_vtk_frames``), ``bodies.txt`` and ``motion.pvd``; returns the path of ``motion.pvd``."""
    folder = Path(folder)
    entries = write_vtk_frames(folder, 0, times, positions, rotations, sizes, body_names, velocities,
                               angular_velocities, lines)
    write_bodies(folder, body_names)
    pvd = folder / "motion.pvd"
    write_pvd(pvd, entries)
    return pvd


def write_bodies(folder, body_names):
    """``bodies.txt``: one ``body_id name`` line per body."""
    (Path(folder) / "bodies.txt").write_text("".join(f"{i} {name}\n" for i, name in enumerate(body_names)))


def write_vtk_frames(folder, first, times, positions, rotations, sizes, body_names, velocities=None,
                     angular_velocities=None, lines=None):
    """Write the body outlines of frames ``first``, ``first`` + 1, .. of a motion; returns their
    (time, part, file) entries of ``motion.pvd`` (``write_pvd``).

    Parameters
    ----------
    folder : pathlib.Path
        Output folder; receives ``vtk/frame_NNNNN.vtu`` (boxes) and
        ``vtk/lines_NNNNN.vtu`` (with ``lines``), NNNNN from ``first`` on.
    times : (F,) array
        Simulation time of each frame.
    positions : (F, B, dim) array
        Body centre positions, dim = 2 or 3.
    rotations : (F, B, dim, dim) array
        Rotation matrices whose columns are the body directors in world
        coordinates.
    sizes : (B, dim) array
        Edge lengths of each body's box along its own directors.
    body_names : sequence of str
        One name per body.
    velocities : (F, B, dim) array, optional
        Centre velocities; the ``velocity`` point field is zero if omitted.
    angular_velocities : (F, B) array in 2-D or (F, B, 3) in 3-D, optional
        Angular velocities in world coordinates; zero if omitted.
    lines : Lines, optional
        Polylines drawn for the bodies in ``lines.body_id`` instead of their
        boxes.

    Returns
    -------
    list
        The (time, part, file) entries of the frames.
    """
    folder = Path(folder)
    times = np.asarray(times, dtype=float)
    positions = np.asarray(positions, dtype=float)
    rotations = np.asarray(rotations, dtype=float)
    sizes = np.asarray(sizes, dtype=float)
    n_frames, n_bodies, dim = positions.shape
    if dim not in _CELL_TYPE:
        raise ValueError(f"dimension must be 2 or 3, got {dim}")
    if times.shape != (n_frames,):
        raise ValueError("times must have one entry per frame")
    if rotations.shape != (n_frames, n_bodies, dim, dim):
        raise ValueError("rotations must have shape (F, B, dim, dim)")
    if sizes.shape != (n_bodies, dim):
        raise ValueError("sizes must have shape (B, dim)")
    if len(body_names) != n_bodies:
        raise ValueError("need one name per body")
    if lines is not None:
        _check_lines(lines, n_frames, n_bodies, dim)

    if velocities is None:
        velocities = np.zeros_like(positions)
    if angular_velocities is None:
        omega_shape = (n_frames, n_bodies) if dim == 2 else (n_frames, n_bodies, 3)
        angular_velocities = np.zeros(omega_shape)
    velocities = np.asarray(velocities, dtype=float)
    angular_velocities = np.asarray(angular_velocities, dtype=float)

    boxed = np.arange(n_bodies)
    if lines is not None:
        boxed = np.setdiff1d(boxed, lines.body_id)
    local = _UNIT_CORNERS[dim][None, :, :] * sizes[boxed, None, :]  # (B, C, dim)

    vtk_dir = folder / "vtk"
    vtk_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for k in range(n_frames):
        part, number = 0, first + k
        if len(boxed):
            name = f"vtk/frame_{number:05d}.vtu"
            _write_boxes(folder / name, positions[k, boxed], rotations[k, boxed], local, velocities[k, boxed],
                         angular_velocities[k, boxed], boxed)
            entries.append((times[k], part, name))
            part += 1
        if lines is not None:
            name = f"vtk/lines_{number:05d}.vtu"
            _write_lines(folder / name, lines, k)
            entries.append((times[k], part, name))
    return entries
