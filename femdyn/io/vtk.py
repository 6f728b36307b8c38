"""ParaView time series of rigid body outlines, written through meshio.

Each body is drawn as the box spanned by its directors: a ``quad`` in 2-D
(lying in the plane z = 0) and a ``hexahedron`` in 3-D.  Every frame becomes
one ``.vtu`` file in ``folder/vtk``; ``folder/motion.pvd`` collects them with
their simulation times so ParaView can play the motion.
"""

from pathlib import Path

import meshio
import numpy as np

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


def _to_3d(a):
    """Pad the last axis of ``a`` with zeros to three components."""
    pad = [(0, 0)] * (a.ndim - 1) + [(0, 3 - a.shape[-1])]
    return np.pad(a, pad)


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


def _write_pvd(path, times, files):
    """Write a ParaView collection file referencing ``files`` at ``times``."""
    entries = "\n".join(
        f'    <DataSet timestep="{float(t)!r}" group="" part="0" file="{f}"/>'
        for t, f in zip(times, files)
    )
    path.write_text(
        '<?xml version="1.0"?>\n'
        '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">\n'
        "  <Collection>\n"
        f"{entries}\n"
        "  </Collection>\n"
        "</VTKFile>\n"
    )


def write_vtk_series(
    folder,
    times,
    positions,
    rotations,
    sizes,
    body_names,
    velocities=None,
    angular_velocities=None,
):
    """Write the body outlines of a motion as a ParaView time series.

    Parameters
    ----------
    folder : pathlib.Path
        Output folder; receives ``vtk/frame_NNNNN.vtu``, ``motion.pvd`` and
        ``bodies.txt`` (one ``body_id name`` line per body).
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

    Returns
    -------
    pathlib.Path
        Path of the written ``motion.pvd``.
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

    if velocities is None:
        velocities = np.zeros_like(positions)
    if angular_velocities is None:
        omega_shape = (n_frames, n_bodies) if dim == 2 else (n_frames, n_bodies, 3)
        angular_velocities = np.zeros(omega_shape)
    velocities = np.asarray(velocities, dtype=float)
    angular_velocities = np.asarray(angular_velocities, dtype=float)

    n_corners = len(_UNIT_CORNERS[dim])
    local = _UNIT_CORNERS[dim][None, :, :] * sizes[:, None, :]  # (B, C, dim)
    cells = [(_CELL_TYPE[dim], np.arange(n_bodies * n_corners).reshape(n_bodies, n_corners))]
    cell_data = {"body_id": [np.arange(n_bodies)]}

    vtk_dir = folder / "vtk"
    vtk_dir.mkdir(parents=True, exist_ok=True)
    files = []
    for k in range(n_frames):
        arms = np.einsum("bij,bcj->bci", rotations[k], local)  # (B, C, dim)
        corners = _to_3d(positions[k][:, None, :] + arms)
        corner_vel = _corner_velocities(velocities[k], angular_velocities[k], arms)
        mesh = meshio.Mesh(
            corners.reshape(-1, 3),
            cells,
            point_data={"velocity": corner_vel.reshape(-1, 3)},
            cell_data=cell_data,
        )
        name = f"vtk/frame_{k:05d}.vtu"
        meshio.write(folder / name, mesh)
        files.append(name)

    (folder / "bodies.txt").write_text(
        "".join(f"{i} {name}\n" for i, name in enumerate(body_names))
    )
    pvd = folder / "motion.pvd"
    _write_pvd(pvd, times, files)
    return pvd
