"""``model.motion``: the coordinates of given frames and joint coordinates are the inverse of
``Model.frames`` (a rigid model's state rebuilt exactly from its bodies' frames and joint coordinates:
what ``post.equilibrium.pose_at`` reads from ``bodies.csv``), and the angular velocities of
``body_motion`` are those of the directors' rates, omega x d_a = d_a'."""
import numpy as np
import pytest
from shared import CASES

from femdyn.casefile.case import load_case
from femdyn.model.motion import body_motion, rigid_coordinates


@pytest.mark.parametrize("case", ["rpr_figure8", "four_bar_spatial"])
def test_frames_and_joint_coordinates_give_back_the_state(case):
    c = load_case(CASES / f"{case}.toml")
    model, q = c.model, c.q0
    centres, rotations = model.frames(q)
    joints = {name: q[i] for name, i in model.joint_coordinates.items()}
    assert np.array_equal(rigid_coordinates(model, centres, rotations, joints), q)


def test_angular_velocity_turns_the_directors():
    c = load_case(CASES / "four_bar_spatial.toml")
    model = c.model
    rng = np.random.default_rng(1)
    omega = rng.standard_normal((len(model.bodies), 3))
    _, rotations = model.frames(c.q0)
    rates = np.cross(omega[:, None, :], np.swapaxes(rotations, -1, -2))  # rows d_a' = omega x d_a
    v = np.zeros(model.n)
    for i, body in enumerate(model.bodies):
        v[body.offset + 3:body.offset + 12] = rates[i].ravel()
    _, _, _, spin = body_motion(model, c.q0[None], v[None])
    assert np.abs(spin[0] - omega).max() < 1e-12


@pytest.mark.parametrize("case", ["double_pendulum", "four_bar_spatial"])
def test_the_pose_of_a_result_folder_is_the_runs_state(case, tmp_path):
    """``pose_at`` rebuilds a rigid model's state at a row of a written run from its tables
    (``bodies.csv``, ``history.csv``): the run's q there to round-off of the tables' 17 digits."""
    import femdyn
    from femdyn.post.equilibrium import pose_at

    problem = femdyn.load(CASES / f"{case}.toml", t_end=0.1, vtk=False, plots=False)
    run = problem.run()
    run.write(tmp_path)
    k = 7
    q = pose_at(tmp_path, problem.model, run.results.t[k])
    assert np.abs(q - run.results.q[k]).max() <= 4e-16 * max(1.0, np.abs(run.results.q[k]).max())
