"""ParaView output read back through VTK's own XML readers (via pyvista)."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import pyvista

from femdyn.io.vtk import Lines, write_vtk_series


def read_frames(pvd):
    """Times and grids of all frames of a .pvd, read by VTK's PVD reader."""
    reader = pyvista.get_reader(str(pvd))
    assert isinstance(reader, pyvista.PVDReader)
    grids = []
    for t in reader.time_values:
        reader.set_active_time_value(t)
        grids.append(reader.read()[0])
    return np.array(reader.time_values), grids


def assert_same_points(actual, expected):
    """The same set of points, in any order, up to round-off."""
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    for p in expected:
        assert np.min(np.linalg.norm(actual - p, axis=1)) < 1e-12, p


def test_planar_box_quarter_turn(tmp_path):
    """A 2 x 1 rectangle centred at (1, 2), turned by 90 degrees, spinning at w = 3."""
    times = np.array([0.0, 0.5])
    quarter = np.array([[0.0, -1.0], [1.0, 0.0]])  # director e1 -> +y, e2 -> -x
    rotations = np.stack([np.eye(2), quarter])[:, None]
    positions = np.array([[[1.0, 2.0]], [[1.0, 2.0]]])
    velocities = np.array([[[0.0, 0.0]], [[0.5, -1.0]]])
    omegas = np.array([[0.0], [3.0]])

    pvd = write_vtk_series(
        tmp_path, times, positions, rotations, [[2.0, 1.0]], ["link"], velocities, omegas
    )
    assert pvd == tmp_path / "motion.pvd"

    unturned = np.array([[0.0, 1.5, 0], [2.0, 1.5, 0], [2.0, 2.5, 0], [0.0, 2.5, 0]])
    turned = np.array([[0.5, 1.0, 0], [1.5, 1.0, 0], [1.5, 3.0, 0], [0.5, 3.0, 0]])

    grid = pyvista.read(tmp_path / "vtk" / "frame_00001.vtu")
    assert grid.n_cells == 1
    assert grid.get_cell(0).type == pyvista.CellType.QUAD
    assert_same_points(grid.points, turned)
    assert grid.compute_cell_sizes()["Area"][0] == pytest.approx(2.0)
    r = grid.points - [1.0, 2.0, 0.0]
    expected_v = np.array([0.5, -1.0, 0.0]) + np.cross([0.0, 0.0, 3.0], r)
    np.testing.assert_allclose(grid.point_data["velocity"], expected_v, atol=1e-12)
    assert grid.cell_data["body_id"].dtype.kind == "i"

    t, grids = read_frames(pvd)
    np.testing.assert_array_equal(t, times)
    assert_same_points(grids[0].points, unturned)
    np.testing.assert_array_equal(grids[0].point_data["velocity"], 0.0)
    assert_same_points(grids[1].points, turned)
    np.testing.assert_allclose(grids[1].point_data["velocity"], expected_v, atol=1e-12)


def test_planar_boxes_at_thirty_degrees(tmp_path):
    """Corners c + exp(i theta) (+-L/2 +- i W/2) in complex arithmetic."""
    theta = np.deg2rad(30.0)
    c, s = np.cos(theta), np.sin(theta)
    rotations = np.array([[[[c, -s], [s, c]], [[c, s], [-s, c]]]])  # +30 and -30 degrees
    positions = np.array([[[0.0, 0.0], [3.0, -1.0]]])
    sizes = np.array([[4.0, 2.0], [1.0, 0.5]])
    write_vtk_series(tmp_path, [0.0], positions, rotations, sizes, ["a", "b"])

    grid = pyvista.read(tmp_path / "vtk" / "frame_00000.vtu")
    np.testing.assert_array_equal(grid.cell_data["body_id"], [0, 1])
    for body, angle in enumerate([theta, -theta]):
        length, width = sizes[body]
        centre = complex(*positions[0, body])
        z = [
            centre + np.exp(1j * angle) * complex(sx * length / 2, sy * width / 2)
            for sx in (-1, 1)
            for sy in (-1, 1)
        ]
        expected = np.array([[p.real, p.imag, 0.0] for p in z])
        assert_same_points(grid.get_cell(body).points, expected)
    np.testing.assert_allclose(grid.compute_cell_sizes()["Area"], [8.0, 0.5])


def test_axis_aligned_hexahedron_uses_vtk_node_order(tmp_path):
    """Bottom face counter-clockwise seen from +z, then the top face."""
    write_vtk_series(
        tmp_path, [0.0], np.zeros((1, 1, 3)), np.eye(3)[None, None], [[2.0, 4.0, 6.0]], ["box"]
    )
    grid = pyvista.read(tmp_path / "vtk" / "frame_00000.vtu")
    expected = np.array(
        [
            [-1, -2, -3], [1, -2, -3], [1, 2, -3], [-1, 2, -3],
            [-1, -2, 3], [1, -2, 3], [1, 2, 3], [-1, 2, 3],
        ],
        dtype=float,
    )
    assert grid.get_cell(0).type == pyvista.CellType.HEXAHEDRON
    np.testing.assert_array_equal(grid.get_cell(0).points, expected)
    np.testing.assert_array_equal(grid.point_data["velocity"], 0.0)


def test_spatial_boxes_rotated(tmp_path):
    """Two boxes: a quarter turn about z and a 30 degree turn about x."""
    theta = np.deg2rad(30.0)
    c, s = np.cos(theta), np.sin(theta)
    quarter_z = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    tilt_x = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    times = np.array([0.0, 0.25, 0.5])
    rotations = np.broadcast_to(np.stack([quarter_z, tilt_x]), (3, 2, 3, 3))
    centres = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]])
    positions = centres + times[:, None, None] * [1.0, 0.0, 0.0]
    sizes = np.array([[2.0, 1.0, 0.5], [1.0, 2.0, 4.0]])
    velocities = np.broadcast_to([1.0, 0.0, 0.0], (3, 2, 3))
    omegas = np.broadcast_to([[0.0, 0.0, 2.0], [1.0, -1.0, 0.5]], (3, 2, 3))

    pvd = write_vtk_series(
        tmp_path, times, positions, rotations, sizes, ["base", "arm"], velocities, omegas
    )
    t, grids = read_frames(pvd)
    np.testing.assert_array_equal(t, times)

    signs = [(a, b, d) for a in (-1, 1) for b in (-1, 1) for d in (-1, 1)]
    for k, grid in enumerate(grids):
        shift = np.array([times[k], 0.0, 0.0])
        # Quarter turn about z: the long edge (2) lies along y, the middle one (1) along x.
        box0 = centres[0] + shift + np.array([[-0.5 * b, 1.0 * a, 0.25 * d] for a, b, d in signs])
        # 30 degrees about x: directors e1, (0, c, s), (0, -s, c).
        box1 = np.array(
            [
                centres[1] + shift + [0.5 * a, 1.0 * b * c - 2.0 * d * s, 1.0 * b * s + 2.0 * d * c]
                for a, b, d in signs
            ]
        )
        assert grid.n_cells == 2
        np.testing.assert_array_equal(grid.cell_data["body_id"], [0, 1])
        assert_same_points(grid.get_cell(0).points, box0)
        assert_same_points(grid.get_cell(1).points, box1)
        # A well-ordered hexahedron has the positive volume of its box.
        np.testing.assert_allclose(grid.compute_cell_sizes()["Volume"], [1.0, 8.0])

        ids = grid.cells_dict[pyvista.CellType.HEXAHEDRON]
        for body in range(2):
            r = grid.points[ids[body]] - positions[k, body]
            expected_v = velocities[k, body] + np.cross(omegas[k, body], r)
            np.testing.assert_allclose(
                grid.point_data["velocity"][ids[body]], expected_v, atol=1e-12
            )


def test_pvd_and_body_names(tmp_path):
    """The collection lists every frame with its exact time; names go to bodies.txt."""
    times = [0.0, 0.1, 0.30000000000000004]
    pvd = write_vtk_series(
        tmp_path / "out",
        times,
        np.zeros((3, 2, 2)),
        np.broadcast_to(np.eye(2), (3, 2, 2, 2)),
        np.ones((2, 2)),
        ["crank", "rocker"],
    )
    root = ET.parse(pvd).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "Collection"
    entries = root.findall("./Collection/DataSet")
    assert [float(e.get("timestep")) for e in entries] == times
    assert [e.get("file") for e in entries] == [f"vtk/frame_{k:05d}.vtu" for k in range(3)]
    assert all((pvd.parent / e.get("file")).is_file() for e in entries)
    assert (tmp_path / "out" / "bodies.txt").read_text() == "0 crank\n1 rocker\n"


def test_rejects_bad_shapes(tmp_path):
    """Rotation matrices of the wrong dimension are refused."""
    with pytest.raises(ValueError):
        write_vtk_series(
            tmp_path, [0.0], np.zeros((1, 1, 3)), np.zeros((1, 1, 2, 2)), [[1, 1, 1]], ["x"]
        )


def test_lines_replace_boxes(tmp_path):
    """A body given as lines is drawn as line cells in a second part of each frame, with its point
    fields (vectors padded to 3 components); the other bodies keep their boxes in part 0."""
    points = np.array([[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], [[0.0, 0.0], [1.0, 0.5], [2.0, 1.0]]])
    lines = Lines(points, np.array([[0, 1], [1, 2]]), np.array([1, 1]),
                  {"moment": np.array([[0.0, 0.0, 0.0], [2.0, 1.0, 0.0]]), "shift": points - points[:1]})
    pvd = write_vtk_series(tmp_path, [0.0, 1.0], np.zeros((2, 2, 2)),
                           np.broadcast_to(np.eye(2), (2, 2, 2, 2)), np.ones((2, 2)), ["box", "beam"],
                           lines=lines)
    entries = ET.parse(pvd).getroot().findall("./Collection/DataSet")
    assert [(e.get("timestep"), e.get("part"), e.get("file")) for e in entries] == [
        ("0.0", "0", "vtk/frame_00000.vtu"), ("0.0", "1", "vtk/lines_00000.vtu"),
        ("1.0", "0", "vtk/frame_00001.vtu"), ("1.0", "1", "vtk/lines_00001.vtu")]
    boxes = pyvista.read(tmp_path / "vtk" / "frame_00001.vtu")
    np.testing.assert_array_equal(boxes.cell_data["body_id"], [0])
    line = pyvista.read(tmp_path / "vtk" / "lines_00001.vtu")
    assert [line.get_cell(k).type for k in range(2)] == [pyvista.CellType.LINE] * 2
    np.testing.assert_array_equal(line.cell_data["body_id"], [1, 1])
    np.testing.assert_array_equal(line.points, [[0, 0, 0], [1, 0.5, 0], [2, 1, 0]])
    np.testing.assert_array_equal(line.point_data["moment"], [2.0, 1.0, 0.0])
    np.testing.assert_array_equal(line.point_data["shift"], [[0, 0, 0], [0, 0.5, 0], [0, 1, 0]])


def test_only_lines(tmp_path):
    """Without rigid bodies no box files are written; the lines are part 0."""
    lines = Lines(np.zeros((1, 2, 2)), np.array([[0, 1]]), np.array([0]), {})
    pvd = write_vtk_series(tmp_path, [0.0], np.zeros((1, 1, 2)), np.eye(2)[None, None], np.ones((1, 2)),
                           ["beam"], lines=lines)
    entries = ET.parse(pvd).getroot().findall("./Collection/DataSet")
    assert [(e.get("part"), e.get("file")) for e in entries] == [("0", "vtk/lines_00000.vtu")]
    assert sorted(p.name for p in (tmp_path / "vtk").iterdir()) == ["lines_00000.vtu"]
