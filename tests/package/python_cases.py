"""Support of the tests that build shipped cases in Python (``test_python_problems``,
``test_python_cases_spatial``, ``test_python_servo_cases``): the 3-PRR of 003 section 8.1 that five
case files share, its initial pose, and the comparison of a Python-built problem's run with its case
file's, table by table and column by column."""
import numpy as np

import femdyn

pi = np.pi
LEGS = {"leg1": (0.486, 8.5), "leg2": (0.5, 9.847), "leg3": (0.507, 10.842), "platform": (0.315, 15.2425)}
ROUND_OFF = 1e-10  # the largest difference allowed, relative to a column's scale (at least 1)


def three_prr_mechanism(b=0.15, reference="fixed-free", dim=2, gravity=True, damping=None):
    """The 3-PRR of cases/3prr_sine.toml without its loads: sliders on the x axis, three legs and the
    platform FEM beams of 4 elements (``reference`` conditions, geometric stiffening), gravity (unless
    ``gravity`` is False: cases/3prr_plant.toml's table); ``b`` the links' width (their densities those
    of the file, made with b = 0.15 m); ``damping`` a ``femdyn.Damping`` of every link; ``dim = 3``:
    the same built in space (cases/3prr_3d.toml: revolute axes along z, Poisson's ratio 0.33)."""
    m = femdyn.ModelBuilder(dim)
    pad = [0.0] * (dim - 2)
    for k in (1, 2, 3):
        m.add_body(f"slider{k}", 7.0, [0.005833, 0.001458, 0.001458][:dim], size=[0.1, 0.05, 0.05][:dim])
    for name, (length, mass) in LEGS.items():
        beam = femdyn.BeamBody.straight(length, 4, femdyn.Section.rectangle(b, 0.05), 70e9,
                                        mass / (length * 0.15 * 0.05), dim=dim, reference=reference,
                                        damping=damping, **({"poisson": 0.33} if dim == 3 else {}))
        m.add_beam(name, beam, stiffening=True)
    for k in (1, 2, 3):
        m.add_joint(f"P{k}", "prismatic", "ground", f"slider{k}", slide=f"s{k}")
    axis = [0.0, 0.0, 1.0] if dim == 3 else None
    for joint, k in zip("ABC", (1, 2, 3)):
        m.add_joint(joint, "revolute", f"slider{k}", f"leg{k}", point1=[0.0, 0.0, *pad], point2=[0.0, 0.0, *pad],
                    axis=axis, angle=f"alpha{k}")
    m.add_joint("D", "revolute", "leg2", "platform", point1=[0.5, 0.0, *pad], point2=[0.0, 0.0, *pad], axis=axis)
    m.add_joint("E", "revolute", "leg1", "platform", point1=[0.486, 0.0, *pad], point2=[0.315, 0.0, *pad], axis=axis)
    m.add_joint("F", "revolute", "leg3", "platform", point1=[0.507, 0.0, *pad], point2=[0.315, 0.0, *pad], axis=axis)
    if gravity:
        m.set_gravity([0.0, -9.81, *pad])
    return m


X1, X3 = 0.615 - np.sqrt(0.486**2 - 0.16), 0.615 + np.sqrt(0.507**2 - 0.16)
THREE_PRR_POSE = {"slider1": {"position": [X1, 0.0], "angle": 0.0}, "slider2": {"position": [0.6, 0.0], "angle": 0.0},
                  "slider3": {"position": [X3, 0.0], "angle": 0.0},
                  "leg1": {"position": [X1, 0.0], "angle": np.arctan(0.4 / np.sqrt(0.486**2 - 0.16))},
                  "leg2": {"position": [0.6, 0.0], "angle": pi - np.arctan(0.4 / 0.3)},
                  "leg3": {"position": [X3, 0.0], "angle": pi - np.arctan(0.4 / np.sqrt(0.507**2 - 0.16))},
                  "platform": {"position": [0.3, 0.4], "angle": 0.0}}  # the case files' initial pose


def same_tables(ours, theirs, tolerance=ROUND_OFF):
    """Assert that two results hold the same tables ({name: {column: array}}), with the same columns in
    the same order, every column equal to ``tolerance`` of its scale max(1, max |value|) -- undefined
    (NaN: the deviation where the rigid mechanism is singular) at the same frames, the words of a
    status column the same; returns the largest difference so relative."""
    largest = 0.0
    for name, table in theirs.items():
        assert list(ours[name]) == list(table), name
        for column, values in table.items():
            mine = np.asarray(ours[name][column])
            if values.dtype.kind != "f":  # words: a frame's status
                assert np.array_equal(mine, values), (name, column)
                continue
            defined = ~np.isnan(values)
            assert np.array_equal(~np.isnan(mine), defined), (name, column)
            mine, values = mine[defined], values[defined]
            scale = max(1.0, np.abs(values).max(initial=0.0))
            difference = np.abs(mine - values).max(initial=0.0) / scale
            assert difference <= tolerance, (name, column, difference)
            largest = max(largest, difference)
    return largest
