"""femdyn's own VTK XML writer (``io.vtkxml``) read back by meshio: the same points, cells and fields,
bit for bit, for a grid of every cell type the ParaView series uses and for the frames of planar and
spatial motions (``io.vtk``). VTK's own readers read the same files in ``test_io_vtk.py``."""
import meshio
import numpy as np
import pytest

from femdyn.io.vtk import Lines, write_vtk_series
from femdyn.io.vtkxml import write_unstructured_grid


def test_mixed_cells_and_fields_read_back_identically(tmp_path):
    """Lines, quads and hexahedra in one grid, vector and scalar point fields (NaN among them) and a
    whole-number cell field: meshio reads the same arrays, the cells in their blocks."""
    rng = np.random.default_rng(7)
    points = rng.normal(size=(14, 3))
    cells = [("line", np.array([[0, 1], [1, 2]])), ("quad", np.array([[2, 3, 4, 5]])),
             ("hexahedron", np.arange(6, 14)[None])]
    velocity = rng.normal(size=(14, 3))
    velocity[3, 1] = np.nan
    moment = rng.normal(size=14)
    body_id = np.array([4, 4, 0, 2])
    path = tmp_path / "grid.vtu"
    write_unstructured_grid(path, points, cells, {"velocity": velocity, "moment": moment}, {"body_id": body_id})

    mesh = meshio.read(path)
    np.testing.assert_array_equal(mesh.points, points)
    assert [(block.type, block.data.tolist()) for block in mesh.cells] == [(kind, ix.tolist()) for kind, ix in cells]
    np.testing.assert_array_equal(mesh.point_data["velocity"], velocity)  # NaN where NaN
    np.testing.assert_array_equal(mesh.point_data["moment"], moment)
    assert [ids.tolist() for ids in mesh.cell_data["body_id"]] == [[4, 4], [0], [2]]
    assert mesh.cell_data["body_id"][0].dtype.kind == "i"


def rotation_2d(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def rotation_3d(axis, angle):
    """Rodrigues' rotation about the unit ``axis``."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * k @ k


@pytest.mark.parametrize("dim", [2, 3])
def test_series_frames_read_back_by_meshio(tmp_path, dim):
    """A planar and a spatial motion of two boxes and a flexible body drawn as lines: meshio reads each
    frame's box corners c + R (s * unit corner) in VTK's node order, their velocities v + w x r, the body
    ids, and the lines' points and fields padded to three components, as written."""
    times = np.array([0.0, 0.5])
    positions = np.array([[[1.0, 2.0, 0.5][:dim], [-1.0, 0.5, 2.0][:dim], [0.0] * dim],
                          [[1.5, 2.0, 0.0][:dim], [-1.0, 1.5, 2.0][:dim], [0.0] * dim]])
    if dim == 2:
        rotations = np.array([[rotation_2d(a) for a in (0.3, -1.1, 0.0)], [rotation_2d(a) for a in (0.8, 2.0, 0.0)]])
        omegas = np.array([[1.0, -2.0, 0.0], [0.5, 3.0, 0.0]])
    else:
        axis = np.array([1.0, 2.0, 2.0]) / 3.0
        rotations = np.array([[rotation_3d(axis, a) for a in (0.3, -1.1, 0.0)],
                              [rotation_3d(axis, a) for a in (0.8, 2.0, 0.0)]])
        omegas = np.array([[[1.0, 0.0, -2.0], [0.0, 3.0, 1.0], [0.0] * 3], [[0.5, 0.5, 0.5], [2.0, 0.0, 0.0], [0.0] * 3]])
    velocities = np.arange(2 * 3 * dim, dtype=float).reshape(2, 3, dim) / 7.0
    sizes = np.array([[2.0, 1.0, 0.5][:dim], [1.0, 3.0, 2.0][:dim], [1.0] * dim])
    line_points = np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
                            [[0.0, 0.0, 0.0], [1.0, 0.5, 0.2], [2.0, 1.0, 0.1]]])[:, :, :dim]
    lines = Lines(line_points, np.array([[0, 1], [1, 2]]), np.array([2, 2]),
                  {"shift": line_points - line_points[:1], "moment": np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])})
    write_vtk_series(tmp_path, times, positions, rotations, sizes, ["a", "b", "beam"], velocities, omegas, lines)

    signs = ([(-1, -1), (1, -1), (1, 1), (-1, 1)] if dim == 2 else
             [(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1), (-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)])
    pad = [0.0] * (3 - dim)
    for k in range(2):
        boxes = meshio.read(tmp_path / "vtk" / f"frame_{k:05d}.vtu")
        assert [block.type for block in boxes.cells] == ["quad" if dim == 2 else "hexahedron"]
        corners, spins = [], []
        for body in range(2):
            arms = [rotations[k, body] @ (0.5 * np.array(s) * sizes[body]) for s in signs]
            corners += [[*(positions[k, body] + arm), *pad] for arm in arms]
            w = [0.0, 0.0, omegas[k, body]] if dim == 2 else omegas[k, body]
            spins += [np.array([*velocities[k, body], *pad]) + np.cross(w, [*arm, *pad]) for arm in arms]
        np.testing.assert_allclose(boxes.points, corners, rtol=0, atol=1e-15)
        np.testing.assert_array_equal(boxes.cells[0].data, np.arange(2 * len(signs)).reshape(2, -1))
        np.testing.assert_allclose(boxes.point_data["velocity"], spins, rtol=0, atol=1e-14)
        np.testing.assert_array_equal(boxes.cell_data["body_id"][0], [0, 1])

        beam = meshio.read(tmp_path / "vtk" / f"lines_{k:05d}.vtu")
        np.testing.assert_array_equal(beam.points, np.pad(line_points[k], [(0, 0), (0, 3 - dim)]))
        assert [(block.type, block.data.tolist()) for block in beam.cells] == [("line", [[0, 1], [1, 2]])]
        np.testing.assert_array_equal(beam.point_data["shift"], np.pad(line_points[k] - line_points[0],
                                                                       [(0, 0), (0, 3 - dim)]))
        np.testing.assert_array_equal(beam.point_data["moment"], lines.point_data["moment"][k])
        np.testing.assert_array_equal(beam.cell_data["body_id"][0], [2, 2])
