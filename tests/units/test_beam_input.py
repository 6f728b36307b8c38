"""What a beam body accepts and refuses: reference conditions that make the body stiff against those
that leave it a rigid motion, stresses without the outer fibre, bad material, section and geometry."""
import numpy as np
import pytest

from femdyn.beam import BeamBody, Section, section_forces, static_deflection

E, RHO, LENGTH = 70e9, 2700.0, 0.5
SECTION = Section.rectangle(0.15, 0.05)  # b x h of 003 section 8.1


def test_stresses_need_the_outer_fibre():
    body = BeamBody.straight(LENGTH, 2, Section(SECTION.area, SECTION.inertia), E, RHO)
    forces = section_forces(body, static_deflection(body, {-1: (0.0, 1.0, 0.0)}))
    with pytest.raises(ValueError, match="outer-fibre"):
        _ = forces.sigma_max


@pytest.mark.parametrize("reference, motion", [
    ("free-free", "3 independent rigid motions"),
    ("pinned-free", r"rotation about the point \(0, 0\)"),
    ("rolled-rolled", r"translation along \(1, 0\)"),
    ("free-rolled", "2 independent rigid motions"),
])
def test_singular_reference_conditions_are_refused(reference, motion):
    with pytest.raises(ValueError, match=motion + ".*singular"):
        BeamBody.straight(LENGTH, 4, SECTION, E, RHO, reference=reference)


@pytest.mark.parametrize("reference", ["fixed-free", "fixed-pinned", "pinned-pinned", "fixed-rolled",
                                       "pinned-rolled"])
def test_regular_reference_conditions_give_a_stiff_body(reference):
    """Every accepted reference condition leaves a positive definite stiffness (Cholesky succeeds): it
    fixes exactly its coordinates (fixed: u, v, theta; pinned: u, v; rolled: v; a pinned end after a start
    that holds u already: v, so that the stretch between the ends stays) of the 5 nodes' 15, and
    no rigid motion is left, so even the softest deformation costs an energy far above round-off (the
    smallest eigenvalue measured 7e-6 to 5e-5 of the largest; a rigid motion's is about 1e-16 of it)."""
    body = BeamBody.straight(LENGTH, 4, SECTION, E, RHO, reference=reference)
    stiffness = body.stiffness.toarray()
    np.linalg.cholesky(stiffness)
    fixed = {"fixed": 3, "pinned": 2, "rolled": 1, "free": 0}
    start, end = reference.split("-")
    end = "rolled" if end == "pinned" else end
    assert body.n_coordinates == 3 * 5 - fixed[start] - fixed[end]
    eigenvalues = np.linalg.eigvalsh(stiffness)
    assert eigenvalues.min() > 1e-8 * eigenvalues.max(), eigenvalues.min() / eigenvalues.max()


@pytest.mark.parametrize("bad, match", [
    ({"reference": "fixed"}, "start-end"), ({"reference": "clamped-free"}, "start-end"),
    ({"young": 0.0}, "young"), ({"rho": -1.0}, "density"), ({"modes": 99}, "modes"),
])
def test_bad_body_input(bad, match):
    arguments = {"section": SECTION, "young": E, "rho": RHO} | bad
    with pytest.raises(ValueError, match=match):
        BeamBody.straight(LENGTH, 4, **arguments)


def test_bad_geometry():
    with pytest.raises(ValueError, match="at least one element"):
        BeamBody.straight(LENGTH, 0, SECTION, E, RHO)
    with pytest.raises(ValueError, match="zero length"):
        BeamBody([[0, 0], [0.1, 0], [0.1, 0], [0.2, 0]], SECTION, E, RHO)
    with pytest.raises(ValueError, match="positive"):
        Section(0.0, 1e-6)
    with pytest.raises(ValueError, match="straight"):
        BeamBody.rayleigh_ritz([[0, 0], [0.1, 0.01], [0.2, 0]], SECTION, E, RHO)
