"""Bad input for flexible bodies gets the one-line treatment of the core (``test_case_errors``):
``error: <file>: <field>: <message>``, exit code 2, no result folder."""
import meshio
import numpy as np
import pytest
from case_texts import PINNED_ARM
from test_case_errors import run_and_check

from femdyn.casefile.case import load_case

BEAM_CASE = PINNED_ARM

# (test id, text to replace, replacement, field named in the error)
CASES = [
    ("missing-section-depth", ", h = 0.01}", "}", "bodies[0].beam.h"),
    ("negative-young", "young = 70e9", "young = -1", "bodies[0].beam.young"),
    ("zero-elements", "elements = 2", "elements = 0", "flexible.elements"),
    ("unknown-model", "elements = 2", "elements = 2\nmodel = 'shell'", "flexible.model"),
    ("length-and-mesh", "length = 0.5,", "length = 0.5, mesh = 'a.vtu',", "bodies[0].beam"),
    ("missing-mesh", "length = 0.5,", "mesh = 'nowhere.vtu',", "bodies[0].beam.mesh"),
    ("singular-reference", "h = 0.01}", "h = 0.01, reference = 'pinned-free'}", "bodies[0].beam.reference"),
    ("unknown-reference", "h = 0.01}", "h = 0.01, reference = 'glued'}", "bodies[0].beam.reference"),
    ("stiffening-with-modes", "elements = 2", "elements = 2\nmodes = 2\ngeometric_stiffening = true",
     "flexible.geometric_stiffening"),
    ("probe-off-the-beam", "[initial.bodies.arm]", "[[probes]]\nname = 'tip'\nbody = 'arm'\npoint = [0.5, 0.1]\n"
     "[initial.bodies.arm]", "probes.tip.point"),
    ("more-segments-than-elements", "h = 0.01}", "h = 0.01, segments = 3}", "bodies[0].beam.segments"),
    ("zero-segments", "elements = 2", "elements = 2\nsegments = 0", "flexible.segments"),
    ("fractional-segments", "h = 0.01}", "h = 0.01, segments = 1.5}", "bodies[0].beam.segments"),
    ("segments-of-modes", "elements = 2", "elements = 2\nmodes = 2\ngeometric_stiffening = false\nsegments = 2",
     "bodies[0].beam.segments"),
    ("segments-of-rayleigh-ritz", "elements = 2", "elements = 2\nmodel = 'rayleigh-ritz'\nsegments = 2",
     "bodies[0].beam.segments"),
]


@pytest.mark.parametrize("old, new, field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_flexible_case(tmp_path, capsys, old, new, field):
    assert old in BEAM_CASE
    case = tmp_path / "case.toml"
    case.write_text(BEAM_CASE.replace(old, new, 1))
    run_and_check(tmp_path, capsys, case, field)


def test_mesh_without_line_cells(tmp_path, capsys):
    """A surface mesh is not a beam centre line."""
    meshio.write(tmp_path / "plate.vtu", meshio.Mesh(np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]),
                                                     [("triangle", np.array([[0, 1, 2]]))]))
    case = tmp_path / "case.toml"
    case.write_text(BEAM_CASE.replace("length = 0.5,", "mesh = 'plate.vtu',"))
    run_and_check(tmp_path, capsys, case, "bodies[0].beam.mesh")


def test_good_mesh_and_length_give_the_same_body(tmp_path):
    """A straight centre-line mesh is re-meshed with the requested elements: same model as by length."""
    from femdyn.io.meshes import write_straight_beam
    write_straight_beam(tmp_path / "arm.vtu", 0.5, 7)
    by_mesh = tmp_path / "mesh.toml"
    by_mesh.write_text(BEAM_CASE.replace("length = 0.5,", "mesh = 'arm.vtu',"))
    by_length = tmp_path / "length.toml"
    by_length.write_text(BEAM_CASE)
    a, b = load_case(by_mesh).model, load_case(by_length).model
    assert a.n == b.n
    np.testing.assert_allclose(a.mass_matrix.toarray(), b.mass_matrix.toarray(), rtol=1e-14, atol=1e-14)
