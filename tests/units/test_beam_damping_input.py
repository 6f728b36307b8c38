"""The damping of a beam body (``beam.damping``) against its definitions, and the beam table's
``damping`` key: modal damping gives each mode its ratio exactly, Rayleigh damping is alpha M + beta K,
bad values are refused in one line naming the field."""
import numpy as np
import pytest
from shared import STEEL, clamped_cantilever_text

from femdyn.beam.body import BeamBody, Section
from femdyn.beam.damping import Damping, damping_matrix
from femdyn.beam.modes import lowest_modes
from femdyn.forces.viscous import ViscousDamping
from femdyn.casefile.case import load_case
from femdyn.casefile.reader import CaseError
from femdyn.model.errors import ModelError

BEAM = 'length = 1.0, young = 2.1e11, density = 7850.0, b = 0.01, h = 0.01'


def body(damping, elements=6):
    return BeamBody.straight(1.0, elements, Section.rectangle(0.01, 0.01), STEEL["young"], STEEL["rho"],
                             damping=damping)


@pytest.mark.parametrize("ratio", [0.02, (0.05, 0.01, 0.03)])
def test_modal_damping_gives_each_mode_its_ratio(ratio):
    """Phi^T D Phi = diag(2 zeta_i omega_i) over all modes (mass-normalised Phi), the modes beyond a
    list undamped, to 1e-9 of the largest 2 zeta omega: the computed modes are M-orthonormal to 2e-10
    (``lowest_modes`` by eigh(M, K), exact for the lowest, less so for the stiffest), and
    Phi^T D Phi = (Phi^T M Phi) diag (Phi^T M Phi) carries that error twice."""
    beam = body(Damping(ratio=ratio))
    D = damping_matrix(beam.damping, beam.mass, beam.stiffness).toarray()
    omega2, Phi = lowest_modes(beam.stiffness, beam.mass, beam.n_coordinates)
    zeta = np.full(len(omega2), ratio) if np.ndim(ratio) == 0 else np.zeros(len(omega2))
    if np.ndim(ratio):
        zeta[: len(ratio)] = ratio
    expected = np.diag(2 * zeta * np.sqrt(omega2))
    assert np.abs(Phi.T @ D @ Phi - expected).max() <= 1e-9 * expected.max()
    assert np.abs(D - D.T).max() <= 1e-12 * np.abs(D).max()


def test_rayleigh_damping_is_alpha_m_plus_beta_k():
    beam = body(Damping(alpha=0.7, beta=3e-5))
    D = damping_matrix(beam.damping, beam.mass, beam.stiffness)
    assert abs(D - (0.7 * beam.mass + 3e-5 * beam.stiffness)).max() == 0.0


def test_damped_case_file_builds_the_damping_force(tmp_path):
    path = tmp_path / "damped.toml"
    path.write_text(clamped_cantilever_text(2, BEAM + ", damping = {ratio = [0.02, 0.01]}", False, []))
    case = load_case(path)
    damping = [f for f in case.model.forces if isinstance(f, ViscousDamping)]
    assert len(damping) == 1 and damping[0].labels == ["beam"]
    assert case.model.bodies[0].flexible.beam.damping == Damping(ratio=(0.02, 0.01))


@pytest.mark.parametrize("damping, field, message", [
    ("{ratio = -0.1}", "bodies[0].beam.damping.ratio", "must be >= 0"),
    ("{ratio = 0.01, alpha = 1.0}", "bodies[0].beam.damping", "not both"),
    ("{gamma = 1.0}", "bodies[0].beam.damping.gamma", "unknown key"),
    ("{}", "bodies[0].beam.damping", "give ratio"),
    ("{alpha = 'x'}", "bodies[0].beam.damping.alpha", "expected a number"),
    ("0.01", "bodies[0].beam.damping", "expected a table"),
])
def test_bad_damping_is_refused_naming_the_field(tmp_path, damping, field, message):
    path = tmp_path / "bad.toml"
    path.write_text(clamped_cantilever_text(2, BEAM + f", damping = {damping}", False, []))
    with pytest.raises(CaseError) as err:
        load_case(path)
    assert err.value.field == field and message in err.value.message


def test_damped_segmented_link_is_refused():
    from femdyn.model.builder import ModelBuilder

    b = ModelBuilder(2)
    with pytest.raises(ModelError, match="segmented links"):
        b.add_beam("link", body(Damping(ratio=0.01)), segments=2, stiffening=False)
