"""The Stewart-Gough platform with a flexible platform frame (cases/stewart_gough_flexible.toml) tends to
its rigid limit as the frame's Young's modulus grows: the platform's motion as 1/E (its elastic
deflection, the compliance), the leg forces with it.

Each run starts from the static equilibrium of the case at t = 0 (``integrators.statics``, the frame
sagged under gravity), so that no vibration is started by releasing an undeformed frame, and steps
with the case's generalized-alpha over 0.6 s (the smooth start and the first half cycle). The rigid
limit is the case with ``--flexible rigid`` (every beam one rigid body of the same mass distribution)."""
import numpy as np
from shared import CASES

from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case
from femdyn.post.probes import probe_table
from femdyn.studies.run import run_case

PATH = CASES / "stewart_gough_flexible.toml"


def run(options):
    """Leg forces (steps, 6), the platform point B3 ("edge") (frames, 3) and the probes' columns."""
    case = load_case(PATH, options)
    setup = prepare(case.model, case.q0, case.v0)
    rest = prepare(case.model, static_equilibrium(setup).q, np.zeros(case.model.n))
    results = run_case(case, setup=rest, t_end=0.6).results
    assert results.complete, results.message
    columns = probe_table(case.model, case.probes, results.q)
    return results.inputs, np.column_stack([columns[f"edge.{a}"] for a in "xyz"]), columns


def test_stiffer_platform_converges_to_the_rigid_one():
    """E x 1, 10, 100, 1000: the platform point's distance to its rigid-limit path falls 10x per decade
    (ratios 9.5 to 10.5, from 5e-5 m), and so does the centre's elastic deflection; the largest leg force
    difference, relative to the largest leg force, falls each decade and ends below 1e-4 (4e-3 at the
    aluminium frame's E)."""
    forces, edge, _ = run(Options(model="rigid"))
    motion, deflection, load = [], [], []
    for factor in (1.0, 10.0, 100.0, 1000.0):
        u, e, columns = run(Options(scale={"young": factor}))
        motion.append(np.abs(e - edge).max())
        deflection.append(np.abs(columns["centre.elastic_3"]).max())
        load.append(np.abs(u - forces).max() / np.abs(forces).max())
    for values in (motion, deflection):
        ratios = np.array(values[:-1]) / values[1:]
        assert np.all((ratios > 9.5) & (ratios < 10.5)), values
    assert 1e-5 < motion[0] < 1e-4
    assert np.all(np.diff(load) < 0) and load[-1] < 1e-4 and load[0] > 1e-3, load
