"""The conditioning of the rigid mechanism's actuated-to-effector Jacobian (``femdyn.model.rigid_mechanism``)
on the five-bar of ``cases/five_bar_flexible.toml``.

Closed form: the tool point P closes both legs, |P - C_i| = L with the crank tips C_i = A_i + a (cos
theta_i, sin theta_i), so u_i . dP = u_i . dC_i = a (u_i . n_i) dtheta_i (u_i the unit vector from C_i to
P, n_i = (-sin theta_i, cos theta_i)): J = U^-1 diag(a u_i . n_i), U the rows u_i. Along the swing the
condition number and the smallest singular value of femdyn's J (KKT solve of the rigid limit) equal those
of this J. A run driven near the pose where the distal links align (|C_1 C_2| = 2 L: J unbounded) warns
in one line; the case as shipped does not.
"""
import numpy as np
from shared import CASES

from femdyn.cli import main
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.model.deviation import deviation_table
from femdyn.studies.run import run_case

FIVE_BAR = CASES / "five_bar_flexible.toml"
CRANK = 0.15


def closed_form(model, q):
    """Condition number and smallest singular value of J = U^-1 diag(a u_i . n_i) at the states q (F, n)."""
    centres, rotations = model.frames(q)
    index = {b.name: i for i, b in enumerate(model.bodies)}
    theta = [np.arctan2(rotations[:, index[c], 1, 0], rotations[:, index[c], 0, 0]) for c in ("crank1", "crank2")]
    u = [rotations[:, index[link], :, 0] for link in ("link1", "link2")]  # d_1 of the links: from C_i to P
    n = [np.stack([-np.sin(t), np.cos(t)], axis=1) for t in theta]
    U = np.stack(u, axis=1)
    D = np.zeros((len(q), 2, 2))
    for i in range(2):
        D[:, i, i] = CRANK * np.sum(u[i] * n[i], axis=1)
    s = np.linalg.svd(np.linalg.solve(U, D), compute_uv=False)
    return s[:, 0] / s[:, 1], s[:, 1]


def test_condition_number_equals_the_closed_form_along_the_swing():
    """The rigid five-bar along its swing (the links' d_1 are the chords there): femdyn's condition number
    and smallest singular value against the closed form, to 1e-9 relative."""
    case = load_case(FIVE_BAR, Options(model="rigid"))
    q = run_case(case, t_end=0.5).results.q
    columns = deviation_table(case.model, case.probes, q, conditioning=True)
    kappa, smallest = closed_form(case.model, q)
    assert np.ptp(kappa) > 0.5  # the path changes the conditioning
    assert np.allclose(columns["jacobian_condition"], kappa, rtol=1e-9, atol=0)
    assert np.allclose(columns["jacobian_smallest"], smallest, rtol=1e-9, atol=0)


def test_a_run_near_a_singular_pose_warns(tmp_path, capsys):
    """Cranks swung by 0.72 rad spread the elbows to |C_1 C_2| = 0.2 + 0.3 sin 0.72 = 0.398 m, nearly 2 L:
    the run warns once, naming the pose's time and the bound; the shipped swing (0.2 rad) does not."""
    text = FIVE_BAR.read_text().replace("amplitude = 0.2,", "amplitude = 0.72,").replace(
        "amplitude = -0.2,", "amplitude = -0.72,")
    near = tmp_path / "near.toml"
    near.write_text(text)
    for path, warns in ((FIVE_BAR, False), (near, True)):
        out = tmp_path / path.stem
        assert main(["run", str(path), "--flexible", "rigid", "--t-end", "0.5", "--out", str(out), "--quiet",
                     "--no-plots", "--no-vtk"]) == 0
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if "near a singular pose" in line]
        assert len(lines) == (1 if warns else 0), err
        summary = (out / "summary.json").read_text()
        assert ('"warning"' in summary) == warns
