"""Splitting a beam body into segments (``femdyn.model.segments``): the element ranges, which segment a
point of the link goes to, one segment being the body itself, and a kinked (polyline) link whose
segments keep the link's axes."""
import numpy as np
import pytest
from shared import static_equilibrium

from femdyn.beam.body import BeamBody, Section
from femdyn.model.builder import ModelBuilder
from femdyn.model.errors import ModelError
from femdyn.model.initial import place
from femdyn.model.segments import SegmentedLink

SECTION = Section.rectangle(0.02, 0.01)


def straight(n, dim=2):
    return BeamBody.straight(1.0, n, SECTION, 70e9, 2700.0, dim=dim, axial="cubic", poisson=0.3)


def test_elements_are_shared_out_evenly_and_points_go_to_the_segment_holding_them():
    """5 elements in 2 segments: 3 + 2; a point inside a segment goes to it, a point at the boundary to
    the later segment (its frame origin), the link's ends to the first and the last."""
    link = SegmentedLink.split("link", straight(5), 2)
    assert [len(b.nodes) - 1 for b in link.beams] == [3, 2]
    assert link.names == ("link", "link#2")
    np.testing.assert_allclose(link.starts, [[0.0, 0.0], [0.6, 0.0]])
    for point, (name, local) in [([0.0, 0.0], ("link", [0.0, 0.0])), ([0.3, 0.0], ("link", [0.3, 0.0])),
                                 ([0.6, 0.0], ("link#2", [0.0, 0.0])), ([0.7, 0.0], ("link#2", [0.1, 0.0])),
                                 ([1.0, 0.0], ("link#2", [0.4, 0.0]))]:
        found, at = link.locate(point)
        assert found == name
        np.testing.assert_allclose(at, local, atol=1e-15)
    b = ModelBuilder(2)
    b.add_beam("link", straight(5), segments=2, stiffening=False)
    with pytest.raises(ModelError, match="off the beam centre line") as err:
        b.add_point_force("link", [0.5, 0.1], [0.0, 1.0], lambda t: 1.0)
    assert err.value.field == "point force on 'link'.point"
    with pytest.raises(ModelError, match="used twice"):
        b.add_beam("link", straight(5), stiffening=False)


def test_one_segment_is_the_body_itself():
    """segments = 1 adds the beam body unchanged: the same model, bit for bit."""
    models = []
    for segments in (None, 1):
        b = ModelBuilder(2)
        b.add_beam("link", straight(4), stiffening=True, **({} if segments is None else {"segments": segments}))
        b.add_joint("pin", "revolute", "ground", "link", point2=[0.5, 0.0])
        models.append(b.build())
    assert models[0].n == models[1].n and models[0].m == models[1].m
    assert (models[0].mass_matrix != models[1].mass_matrix).nnz == 0


def test_a_kinked_link_in_segments_bends_as_one_body():
    """A polyline centre line (an L of two 0.5 m arms, 2 elements each) keeps its shape in segments, each
    with the link's axes: clamped at its start and loaded at its tip by a force small enough for linear
    theory (rotations of 1e-6), the tip deflects as the single body's to 1e-9 (FFR exact to
    O(theta^2) in both)."""
    nodes = np.array([[0.0, 0.0], [0.25, 0.0], [0.5, 0.0], [0.5, 0.25], [0.5, 0.5]])
    tips = []
    for segments in (1, 2, 4):
        b = ModelBuilder(2)
        b.add_beam("L", BeamBody(nodes, SECTION, 70e9, 2700.0), stiffening=True, segments=segments)
        b.add_joint("clamp", "fixed", "ground", "L")
        P = 1e-6 * 70e9 * SECTION.inertia
        b.add_point_force("L", [0.5, 0.5], [P, -P], lambda t: 1.0)
        model = b.build()
        q, _ = place(model, {}, {})
        model, q = static_equilibrium(model, q)
        world = model.worlds[-1]
        tips.append(world.positions(q[None], [world.beam.nodes[-1]])[0, 0] - [0.5, 0.5])
    assert np.abs(tips[0]).max() > 1e-7
    for tip in tips[1:]:
        assert np.abs(tip - tips[0]).max() <= 1e-9 * np.abs(tips[0]).max()


def test_a_tapered_link_keeps_each_elements_section_and_material():
    """Per-element sections and moduli (a link tapering in h and stiffening in E along 6 elements) are
    cut with the elements: in 3 segments under a small tip load (rotations of 1e-6) the tip deflects as
    the single body's to 1e-9, in the plane and in space (bending about both section axes)."""
    h = np.linspace(0.02, 0.01, 6)
    young = np.linspace(70e9, 140e9, 6)
    for dim in (2, 3):
        section = Section.rectangle(0.02 * np.ones(6), h)
        tips = []
        for segments in (1, 3):
            link = BeamBody.straight(1.0, 6, section, young, 2700.0, dim=dim, axial="cubic", poisson=0.3)
            b = ModelBuilder(dim)
            b.add_beam("link", link, stiffening=True, segments=segments)
            b.add_joint("clamp", "fixed", "ground", "link")
            P = 1e-6 * 70e9 * section.inertia[-1]
            b.add_point_force("link", np.eye(dim)[0], P * np.ones(dim), lambda t: 1.0)
            model = b.build()
            q, _ = place(model, {}, {})
            model, q = static_equilibrium(model, q)
            world = model.worlds[-1]
            tips.append(world.positions(q[None], [world.beam.nodes[-1]])[0, 0] - np.eye(dim)[0])
        assert np.abs(tips[0][1:]).min() > 1e-8
        assert np.abs(tips[1] - tips[0]).max() <= 1e-9 * np.abs(tips[0]).max(), (dim, tips)


def test_points_at_and_between_segment_boundaries_load_the_link_where_given():
    """A cantilever of 4 elements in 2 segments, loaded across at X = 0.5 (the boundary: the second
    segment's origin) and at X = 0.3 (inside the first segment, inside an element), propped by a pin at
    X = 0.8 (inside the second): small loads, so its deflection equals the single body's to 1e-9 at
    every node."""
    deflections = []
    for segments in (1, 2):
        b = ModelBuilder(2)
        b.add_beam("link", straight(4), stiffening=True, segments=segments)
        b.add_joint("clamp", "fixed", "ground", "link")
        P = 1e-4 * 70e9 * SECTION.inertia  # rotations of about 1e-6 with the prop
        b.add_point_force("link", [0.5, 0.0], [0.0, P], lambda t: 1.0)
        b.add_point_force("link", [0.3, 0.0], [0.0, -0.7 * P], lambda t: 1.0)
        b.add_joint("prop", "revolute", "ground", "link", point1=[0.8, 0.0], point2=[0.8, 0.0])
        model = b.build()
        q, _ = place(model, {}, {})
        model, q = static_equilibrium(model, q)
        deflections.append(np.concatenate([w.positions(q[None], w.beam.nodes)[0, :, 1] for w in model.worlds]))
    single, split = deflections
    split = np.delete(split, 3)  # the boundary node, in both segments
    assert np.abs(single).max() > 1e-8
    assert np.abs(split - single).max() <= 1e-9 * np.abs(single).max()
