"""The deviation from the rigid mechanism (``femdyn.model.deviation``) on the flexible five-bar of
``cases/five_bar_flexible.toml``: two servo-held rigid cranks, two flexible distal links joined at the
tool point P, a 0.5 kg tool on link1's end.

- The deviation is a property of the deformation, not of the floating frames: fixed-free, pinned-pinned,
  pinned-rolled and segmented links give the same static deviation of P to 1e-6 relative (its
  rotation to the floating frame's small-rotation error, the square of the section rotation), and the
  same dynamic one to the differences of the bodies' models.
- It converges under mesh refinement (order 4 in the dynamic maximum: cubic Hermite elements).
- It is elastic: E x 10, 100, 1000 divide the static deviation by 10 per decade, and the rigid
  model's deviation vanishes to round-off.
- Under a point force at P (no gravity) the distal links are two-force members: P moves by the truss
  solution of the links' stretches, e_i . dP = N_i L / (E A) with sum_i N_i e_i = F, and the tool's
  section turns with link1's chord, e_1^perp . dP / L -- to 1e-6 relative.
"""
import numpy as np
import pytest
from shared import CASES

from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case, read_case_data
from femdyn.model.deviation import deviation_table
from femdyn.studies.run import run_case

FIVE_BAR = CASES / "five_bar_flexible.toml"
L, EA = 0.2, 70e9 * 0.02 * 0.005  # the distal links: length, axial stiffness
ANGLES = (np.pi / 3, 2 * np.pi / 3)  # the distal links' directions at the start (from their elbows to P)


def five_bar(reference="fixed-free", options=Options(), edit=None):
    data = read_case_data(FIVE_BAR)
    for body in data["bodies"]:
        if "beam" in body:
            body["beam"]["reference"] = reference
    if edit:
        edit(data)
    return load_case(FIVE_BAR, options, data=data)


def static_deviation(case):
    """[dx, dy, dangle] of P at the static equilibrium of ``case`` (the cranks held by their servos)."""
    setup = prepare(case.model, case.q0, case.v0)
    q = static_equilibrium(setup).q
    columns = deviation_table(setup.model, case.probes, q)
    return np.array([columns[f"P.deviation_{a}"][0] for a in ("x", "y", "angle")])


def test_static_deviation_does_not_depend_on_the_frames():
    """The tool's static deviation under gravity with every choice of floating frames."""
    base = static_deviation(five_bar())
    assert 5e-8 < np.hypot(*base[:2]) < 5e-7  # F L/(E A): the order of the links' stretch
    for reference, segments in [("pinned-pinned", None), ("pinned-rolled", None), ("fixed-free", 2),
                                ("fixed-free", 3)]:
        other = static_deviation(five_bar(reference, Options(segments=segments)))
        assert np.linalg.norm(other[:2] - base[:2]) <= 1e-6 * np.linalg.norm(base[:2]), (reference, segments)
        # the section's rotation: a floating frame's linear rotation is exact to first order
        assert abs(other[2] - base[2]) <= base[2] ** 2, (reference, segments, other[2], base[2])


def dynamic_deviation(case, t_end=0.3):
    results = run_case(case, t_end=t_end).results
    columns = deviation_table(case.model, case.probes, results.q)
    return np.hypot(columns["P.deviation_x"], columns["P.deviation_y"])


def test_dynamic_deviation_frames_and_mesh():
    """Along the swing (from the static equilibrium), the frames' choice changes the deviation by the
    floating frames' small-deformation error only (measured 2.5e-7 relative, falling 10x with E x 10;
    the same with 12 elements or dt / 2), and the deviation converges under element refinement at
    order 4 (3, 6, 12, 24 elements: 16.5, 17.4 measured)."""
    base = dynamic_deviation(five_bar())
    for other in (five_bar("pinned-pinned"), five_bar("pinned-rolled"), five_bar(options=Options(segments=3))):
        assert np.abs(dynamic_deviation(other) - base).max() <= 1e-6 * base.max()
    maxima = [dynamic_deviation(five_bar(options=Options(elements=k))).max() for k in (3, 6, 12, 24)]
    changes = np.abs(np.diff(maxima))
    orders = np.log2(changes[:-1] / changes[1:])
    assert np.all(orders > 3.5), orders


def test_deviation_falls_like_1_over_E_and_vanishes_for_the_rigid_model():
    """E x 10, 100, 1000: the static deviation falls 10x per decade -- to the links' foreshortening
    under their own sag, quadratic in 1/E (2e-3 of the deviation at E x 1, 2e-4 at E x 10); the rigid
    model (``--flexible rigid``) deviates by round-off, statically and along the swing."""
    values = [np.hypot(*static_deviation(five_bar(options=Options().with_scale("young", s)))[:2])
              for s in (1.0, 10.0, 100.0, 1000.0)]
    ratios = np.array(values[:-1]) / np.array(values[1:])
    assert np.all(np.abs(ratios / 10 - 1) < 5e-3), ratios
    assert abs(ratios[-1] / 10 - 1) < 1e-4, ratios
    rigid = five_bar(options=Options(model="rigid"))
    assert np.abs(static_deviation(rigid)).max() < 1e-15
    assert dynamic_deviation(rigid, t_end=0.1).max() < 1e-14


def test_linear_strain_frame_difference_is_the_foreshortening():
    """Without geometric stiffening the axial strain is linear in the frame, t.u', and neglects the
    chord's foreshortening 1/2 int w'^2 dx by the bending w measured from that frame: large from the
    first section's tangent (fixed-free), small from the chord (pinned-rolled). The frames then differ
    by a part of the deviation proportional to the deflection (quadratic in the load: 1.0e-3 of it
    under gravity, 2.0e-3 under twice gravity); with the Green strain (stiffening) by round-off."""
    def gravity(factor):
        return lambda data: data.update(gravity=[0.0, -9.81 * factor])

    def difference(stiffening, factor):
        a, b = (np.hypot(*static_deviation(five_bar(ref, Options(stiffening=stiffening), gravity(factor)))[:2])
                for ref in ("fixed-free", "pinned-rolled"))
        return abs(a - b) / a

    linear = [difference(False, factor) for factor in (1.0, 2.0)]
    assert 5e-4 < linear[0] < 2e-3 and abs(linear[1] / linear[0] - 2) < 0.05, linear
    assert difference(True, 1.0) < 1e-7


@pytest.mark.parametrize("reference", ["fixed-free", "pinned-pinned"])
def test_point_load_deviation_is_the_truss_solution(reference):
    """Gravity off, a force F = (0.3, -1) N on P: the links carry N_i along e_i only (two-force members)
    and P's deviation is the truss displacement of their stretches N_i L / (E A) (module docstring).
    The truss solution is linear: the links' turn dP/L changes the equilibrium at the relative order of
    dP/L (4e-6 of the deviation with 10 times the force, 4e-7 with this one)."""
    force = np.array([0.3, -1.0])

    def edit(data):
        data.pop("gravity")
        data["loads"] = [{"type": "point_force", "body": "link1", "point": [0.2, 0.0], "force": force.tolist()}]

    deviation = static_deviation(five_bar(reference, edit=edit))
    e = np.array([[np.cos(a), np.sin(a)] for a in ANGLES])  # rows e_i
    tension = np.linalg.solve(e.T, force)  # sum_i N_i e_i = F
    displacement = np.linalg.solve(e, tension * L / EA)  # e_i . dP = N_i L / (E A)
    turn = np.array([-e[0, 1], e[0, 0]]) @ displacement / L
    assert np.allclose(deviation[:2], displacement, rtol=1e-6, atol=0), (deviation, displacement)
    assert abs(deviation[2] - turn) <= 1e-6 * abs(turn), (deviation[2], turn)


def test_static_command_reports_the_deviation(tmp_path, capsys):
    """``femdyn static``: the tool's deviation in static.json and printed first, equal to the equilibrium's
    from Python; ``femdyn modes``: the tool's deviation per metre of each mode's largest motion, as
    ``deviation_shapes`` of the mode shapes gives it."""
    import json

    from femdyn.cli import main

    assert main(["static", str(FIVE_BAR), "--out", str(tmp_path / "static"), "--no-vtk"]) == 0
    printed = capsys.readouterr().out
    entry = json.loads((tmp_path / "static" / "static.json").read_text())["probes"]["P"]
    expected = static_deviation(five_bar())
    # to 1e-9 of the vector: its x component is zero by the five-bar's symmetry, round-off on both sides (~1e-16 m)
    np.testing.assert_allclose(entry["deviation"] + entry["deviation_rotation"], expected, rtol=1e-9,
                               atol=1e-9 * np.abs(expected[:2]).max())
    assert printed.index("probe P: deviation from the rigid mechanism") < printed.index("probe P: displacement")
    # modes with the cranks held: the rigid five-bar stays, so a mode's deviation shape at P is P's motion
    from femdyn.integrators.modes import natural_modes
    from femdyn.model.deviation import deviation_shapes

    case = five_bar()
    setup = prepare(case.model, case.q0, case.v0)
    eq = static_equilibrium(setup)
    modes = natural_modes(setup, eq.q, eq.lam, k=3)
    shapes = deviation_shapes(setup.model, case.probes, eq.q, modes.shapes)[:, 0, :2]
    link = next(b for b in setup.model.bodies if b.name == "link1").flexible
    motion = link.positions(modes.shapes, np.array([[0.2, 0.0]]))[:, 0]  # linear in q: applied to the shapes
    np.testing.assert_allclose(shapes, motion, rtol=0, atol=1e-6 * np.abs(motion).max())
    assert main(["modes", str(FIVE_BAR), "--count", "3", "--out", str(tmp_path / "modes"), "--no-vtk"]) == 0
    rows = json.loads((tmp_path / "modes" / "modes.json").read_text())["modes"]
    assert all(len(m["deviation"]["P"]["position"]) == 2 for m in rows)
