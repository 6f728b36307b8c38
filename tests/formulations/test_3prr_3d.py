"""The 3-PRR built as a 3D model (cases/3prr_3d.toml: spatial prismatic and revolute joints, 3D
world-vector beams) against the planar model (cases/3prr_sine.toml): the motion stays in the plane and
the end effector's history -- position and elastic displacement -- is the planar one's."""
import numpy as np
from shared import CASES

from femdyn.casefile.case import load_case
from femdyn.post.probes import probe_table
from femdyn.studies.run import run_case


def effector(name):
    case = load_case(CASES / name)
    results = run_case(case, t_end=0.5).results
    assert results.complete, results.message
    return probe_table(case.model, case.probes, results.q)


def test_3d_model_reproduces_the_planar_end_effector():
    """Over 0.5 s (250 steps of the case's generalized-alpha): x, y and the elastic displacement of the
    end effector agree to 1e-8 m, its section rotation to 1e-8 rad; z, the out-of-plane elastic
    displacement and the rotations about the plane's axes stay zero."""
    planar, spatial = effector("3prr_sine.toml"), effector("3prr_3d.toml")
    for column in ("x", "y", "elastic_x", "elastic_y"):
        assert np.abs(spatial[f"effector.{column}"] - planar[f"effector.{column}"]).max() <= 1e-8, column
    assert np.abs(spatial["effector.elastic_r3"] - planar["effector.elastic_angle"]).max() <= 1e-8
    assert np.abs(planar["effector.elastic_y"]).max() > 1e-6  # the links do bend
    for column in ("z", "elastic_z", "elastic_r1", "elastic_r2"):
        assert np.abs(spatial[f"effector.{column}"]).max() <= 1e-12, column
