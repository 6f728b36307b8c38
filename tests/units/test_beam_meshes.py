"""Beam centre-line meshes: write/read round trips, chain ordering, the body frame, the shipped 3-PRR
link meshes (003 section 8.1), and clear errors for meshes that are not one planar open chain."""

import meshio
import numpy as np
import pytest
from shared import MESHES

from femdyn.beam import BeamBody, Section, static_deflection
from femdyn.io.meshes import centreline_frame, read_centreline, write_straight_beam


@pytest.mark.parametrize("suffix", [".vtu", ".msh"])
def test_round_trip(tmp_path, suffix):
    """A straight beam written at an angle reads back as the same nodes, in order; its body frame
    has the origin at the first node and x1 along the beam."""
    start, angle, length = np.array([0.3, -0.2]), 0.7, 0.486
    path = write_straight_beam(tmp_path / f"leg{suffix}", length, 6, start=start, angle=angle)
    nodes = read_centreline(path)
    s = np.linspace(0, length, 7)
    assert np.allclose(nodes, start + np.outer(s, [np.cos(angle), np.sin(angle)]), rtol=0, atol=1e-15)
    local, origin, frame_angle = centreline_frame(nodes)
    assert np.allclose(local, np.column_stack([s, 0 * s]), rtol=0, atol=1e-15)
    assert np.allclose(origin, start) and abs(frame_angle - angle) < 1e-14


def test_chain_order_follows_the_cells(tmp_path):
    """Cells listed in any order (and points numbered backwards) still give the chain from the end
    the cells run away from; a body built on it is the cantilever P L^3/3EI."""
    points = np.zeros((5, 3))
    points[:, 0] = np.linspace(0.5, 0.0, 5)  # point 4 is the first node of the chain
    lines = np.array([[2, 1], [4, 3], [1, 0], [3, 2]])
    meshio.write(tmp_path / "shuffled.vtu", meshio.Mesh(points, [("vertex", [[0], [4]]), ("line", lines)]))
    nodes = read_centreline(tmp_path / "shuffled.vtu")
    assert np.allclose(nodes[:, 0], np.linspace(0.0, 0.5, 5))
    section = Section.rectangle(0.15, 0.05)
    body = BeamBody(centreline_frame(nodes)[0], section, 70e9, 2700.0)
    tip = body.nodal_displacements(static_deflection(body, {-1: (0.0, 1.0, 0.0)}))[-1, 1]
    assert abs(tip / (0.5**3 / (3 * 70e9 * section.inertia)) - 1) < 1e-9


@pytest.mark.parametrize("name, length", [("leg1", 0.486), ("leg2", 0.500), ("leg3", 0.507),
                                          ("platform", 0.315)])
def test_shipped_3prr_meshes(name, length):
    """meshes/3prr_*.vtu: straight links of 003 section 8.1 (L1/L2/L3 = 486/500/507 mm, platform
    xp = 315 mm), 4 equal elements each (003 section 7, eq. 136)."""
    nodes, _, _ = centreline_frame(read_centreline(MESHES / f"3prr_{name}.vtu"))
    assert np.allclose(nodes, np.column_stack([np.linspace(0, length, 5), np.zeros(5)]), rtol=0, atol=1e-15)


def _write(path, points, cells):
    points = np.asarray(points, dtype=float)
    points = np.column_stack([points, np.zeros(len(points))]) if points.shape[1] == 2 else points
    meshio.write(path, meshio.Mesh(points, cells))
    return path


@pytest.mark.parametrize("points, cells, match", [
    ([[0, 0], [1, 0], [0, 1]], [("triangle", [[0, 1, 2]])], "no line cells.*triangle"),
    ([[0, 0], [1, 0], [2, 0], [1, 1]], [("line", [[0, 1], [1, 2], [1, 3]])], "branches at point 1"),
    ([[0, 0], [1, 0], [2, 0], [3, 0]], [("line", [[0, 1], [2, 3]])], "2 disconnected pieces"),
    ([[0, 0], [1, 0], [1, 1]], [("line", [[0, 1], [1, 2], [2, 0]])], "closed"),
    ([[0, 0, 0], [1, 0, 0], [2, 0, 0.1]], [("line", [[0, 1], [1, 2]])], "not planar"),
    ([[0, 0], [1, 0]], [("line", [[0, 0], [0, 1]])], "to itself"),
])
def test_bad_meshes(tmp_path, points, cells, match):
    path = _write(tmp_path / "bad.vtu", points, cells)
    with pytest.raises(ValueError, match=match):
        read_centreline(path)


def test_unreadable_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="no such mesh file"):
        read_centreline(tmp_path / "missing.msh")
    garbage = tmp_path / "garbage.msh"
    garbage.write_text("this is not a mesh\n")
    with pytest.raises(ValueError, match="garbage.msh: not a mesh meshio can read"):
        read_centreline(garbage)
    unknown = tmp_path / "beam.txt"
    unknown.write_text("0 0\n1 0\n")
    with pytest.raises(ValueError, match="unknown mesh format '.txt'"):
        read_centreline(unknown)


def test_writer_refuses_bad_requests(tmp_path):
    with pytest.raises(ValueError, match="at least one element"):
        write_straight_beam(tmp_path / "a.vtu", 1.0, 0)
    with pytest.raises(ValueError, match="positive"):
        write_straight_beam(tmp_path / "a.vtu", -1.0, 4)
    with pytest.raises(ValueError, match=".vtu or .msh"):
        write_straight_beam(tmp_path / "a.stl", 1.0, 4)
