"""The servo and plant cases of cases/ built from Python alone (``femdyn.ModelBuilder``,
``femdyn.Problem``, no TOML) give their case files' analyses to round-off:

- the flexible 3-PRR's figure-8 (cases/3prr_inverse.toml): non-minimum phase, so ``femdyn run``'s causal
  inversion fails and ``invert`` solves it: the same slider forces, the forward checks on the path;
- the 3-PRR held by slider servos (cases/3prr_map.toml): the same workspace map over a grid of tool
  points (sag, compliance, frequencies, slider forces);
- the plants of the damped 3-PRR on a table (cases/3prr_plant.toml) and of the flexible link with hub
  inertia (cases/flexible_link_plant.toml): the same ``linearize`` (A, B, C, D and the poles) and the
  same history of a short run along their coordinate servos.

The single flexible link's tip servo (cases/flexible_link.toml) is the gallery's example, inverted as
its case file in ``test_python_problems``."""
import numpy as np
import pytest
from python_cases import THREE_PRR_POSE, same_tables, three_prr_mechanism
from shared import CASES

import femdyn

pi = np.pi
paths = femdyn.trajectories


def three_prr_inverse():
    """cases/3prr_inverse.toml: the platform's middle point on a 2 cm figure-8 once, rest to rest in
    1 s (000 eqs. 78-81), its angle held at 0, by the slider forces."""
    m = three_prr_mechanism()
    m.add_servo_point("middle", "platform", [0.1575, 0.0],
                      paths.FigureEight(0.02, 0.02, paths.SmoothRampAngle(0.25, 0.75, 1.0, 2 * pi / 0.75)))
    m.add_servo_angle("level", "platform", paths.Constant([0.0]))
    m.set_inputs(["s1", "s2", "s3"])
    return femdyn.Problem(m, femdyn.SolverSettings(dt=0.002, t_end=1.0), bodies=THREE_PRR_POSE,
                          probes={"effector": ("platform", [0.315, 0.0])}, name="3prr_inverse")


def three_prr_held(motion=None, damping=None, gravity=True):
    """The 3-PRR (``three_prr_mechanism``) with coordinate servos on its three slides (``motion``, by
    default held where they start), the slider forces the inputs."""
    m = three_prr_mechanism(gravity=gravity, damping=damping)
    for k in (1, 2, 3):
        m.add_servo_coordinate(f"{'slide' if motion else 'drive'}{k}", f"s{k}", motion or paths.Constant([0.0]))
    m.set_inputs(["s1", "s2", "s3"])
    return m


def three_prr_map():
    """cases/3prr_map.toml: the 3-PRR held by its slider servos, a probe at the platform's middle."""
    return femdyn.Problem(three_prr_held(), femdyn.SolverSettings(dt=0.002, t_end=1.0), bodies=THREE_PRR_POSE,
                          probes={"tool": ("platform", [0.1575, 0.0])}, name="3prr_map")


def three_prr_plant():
    """cases/3prr_plant.toml: the 3-PRR on a horizontal table (no gravity), 1 % modal damping in every
    link, its sliders moved by 1 cm sine strokes at 1 Hz from rest."""
    stroke = paths.Harmonic([0.01], [0.0], 2 * pi, t_ramp=0.5)
    m = three_prr_held(stroke, femdyn.Damping(ratio=0.01), gravity=False)
    return femdyn.Problem(m, femdyn.SolverSettings(dt=0.002, t_end=1.5), bodies=THREE_PRR_POSE,
                          probes={"effector": ("platform", [0.315, 0.0])}, name="3prr_plant")


def flexible_link_plant():
    """cases/flexible_link_plant.toml: the aluminium link (1 m, 20 x 10 mm, 8 elements, 1 % modal
    damping) on a hub with a 2 kg drive disc, turned 0.5 rad rest to rest in 1 s by a collocated servo."""
    b = femdyn.ModelBuilder(2)
    link = femdyn.BeamBody.straight(1.0, 8, femdyn.Section.rectangle(0.02, 0.01), 70e9, 2700.0,
                                    damping=femdyn.Damping(ratio=0.01))
    b.add_beam("link", link, stiffening=True)
    b.add_attachment("drive", "link", [0.0, 0.0], 2.0, euler=[0.05, 0.05])
    b.add_joint("hub", "revolute", "ground", "link", angle="theta")
    b.add_servo_coordinate("turn", "theta", paths.SmoothRampAngle(0.5, 0.5, 1.0, 1.0))
    b.set_inputs(["theta"])
    return femdyn.Problem(b, femdyn.SolverSettings(dt=0.002, t_end=1.5), joints={"hub": {"angle": 0.0}},
                          probes={"tip": ("link", [1.0, 0.0])}, name="flexible_link_plant")


def test_the_3prr_figure8_is_inverted_as_its_case_file():
    """At dt = 20 ms: the same slider forces over [-0.02, 1.02] s to round-off, both forward checks on
    the path to 1e-9 m, the zero dynamics non-minimum phase (its causal run fails by design)."""
    ours = three_prr_inverse().with_settings(dt=0.02).invert(pre=0.02, post=0.02)
    theirs = femdyn.load(CASES / "3prr_inverse.toml", dt=0.02).invert()
    for name in ("t", "s1", "s2", "s3"):
        scale = np.abs(theirs.inputs[name]).max()
        assert np.abs(ours.inputs[name] - theirs.inputs[name]).max() <= 1e-10 * scale, name
    assert ours.path_error <= 1e-9 and theirs.path_error <= 1e-9
    assert not ours.minimum_phase and not theirs.minimum_phase


def test_the_3prr_workspace_map_is_its_case_files():
    """A 2 x 2 grid of tool points: every quantity of the map equal to round-off of its scale."""
    grid = {"tool.x": [0.55, 0.65], "tool.y": [0.35, 0.42]}
    ours = three_prr_map().map(grid, modes=2, workers=0)
    theirs = femdyn.load(CASES / "3prr_map.toml").map(grid, modes=2, workers=0)
    assert np.all(theirs.status == "ok")
    assert ours.quantities == theirs.quantities
    for quantity in theirs.quantities:
        values = np.asarray(theirs[quantity], dtype=float)
        scale = max(1.0, np.abs(values).max())
        assert np.abs(np.asarray(ours[quantity], dtype=float) - values).max() <= 1e-10 * scale, quantity


PLANTS = {"3prr_plant": (three_prr_plant, ["s1", "s2", "s3"], ["effector.deviation_x", "effector.deviation_y"]),
          "flexible_link_plant": (flexible_link_plant, ["theta"], ["tip.deviation_y", "tip.y"])}


@pytest.mark.parametrize("case", list(PLANTS))
def test_a_plant_built_in_python_is_its_case_files(case):
    """``linearize`` with the servos free (the command of the file's header): the same matrices and
    poles to round-off; and a 20 ms run along the servos the same history."""
    build, inputs, outputs = PLANTS[case]
    problem, loaded = build(), femdyn.load(CASES / f"{case}.toml")
    ours, theirs = (p.linearize(inputs=inputs, outputs=outputs, servos="free") for p in (problem, loaded))
    for matrix in ("A", "B", "C", "D"):
        expected = getattr(theirs, matrix)
        assert np.abs(getattr(ours, matrix) - expected).max() <= 1e-10 * max(1.0, np.abs(expected).max()), matrix
    assert np.abs(ours.poles - theirs.poles).max() <= 1e-10 * np.abs(theirs.poles).max()
    assert np.abs(ours.poles.real).max() > 0  # the links' modal damping
    same_tables(problem.run(t_end=0.02).tables, loaded.run(t_end=0.02).tables)
