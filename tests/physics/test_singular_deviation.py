"""The deviation from the rigid mechanism where the rigid mechanism is singular (``model.deviation``):
undefined, not a number.

The 3-PRR of ``cases/3prr_sine.toml`` has legs 1 and 3 (lengths L1, L3) hinged on sliders 1 and 3 of the
X axis and joined at the platform's far end E, the effector. With d = s3 - s1 the distance of their
hinges, E = (s1 + a, h) with a = (d^2 + L1^2 - L3^2) / (2 d) and h^2 = L1^2 - a^2 =
(d*^2 - d^2)(d^2 - (L1 - L3)^2) / (4 d^2), d* = L1 + L3: the rigid mechanism folds at d = d* (the legs
aligned, E on the axis) and has no pose at all for d > d* -- a type-2 (parallel) singularity. Its
actuated-to-effector Jacobian is, exactly (E does not depend on s2),

    J = [[1 - a', 0, a'], [-h', 0, h']],   a' = 1/2 - (L1^2 - L3^2) / (2 d^2),   h' = -a a' / h,

so its largest singular value grows like (d* - d)^(-1/2) while the smallest stays finite: the
effector keeps both directions, the actuated coordinates stop fixing it. The flexible machine goes
through the fold, its legs stretched (the sine run passes it near t = 2.228 s; here a short run whose
sliders pull legs 1 and 3 taut across the axis): there the deviation is undefined, an empty field of
probes.csv beside the status ``singular``, and the run, complete and finite, ends with exit code 0 and
one warning line naming the frames.
"""
import json
import math
import re

import numpy as np
import pytest

import femdyn
from shared import CASES

from femdyn.casefile.case import load_case
from femdyn.cli import main
from femdyn.io.tables import STATUS, read_csv, write_csv
from femdyn.model.deviation import OK, SINGULAR, Deviation
from femdyn.model.rigid_mechanism import CONDITION_BOUND

SINE = CASES / "3prr_sine.toml"
L1, L2, L3, LP = 0.486, 0.5, 0.507, 0.315  # legs 1, 2, 3 and the platform from D to E (the case's data)
FOLD = L1 + L3  # d*: legs 1 and 3 aligned


def closed_form(eps):
    """a, h, h' and J (2 x 3) of the rigid 3-PRR with d = d* - eps (module docstring; E above the axis)."""
    d = FOLD - eps
    a = (d**2 + L1**2 - L3**2) / (2 * d)
    h = math.sqrt(eps * (2 * FOLD - eps) * (d**2 - (L1 - L3) ** 2)) / (2 * d)  # no cancellation near the fold
    da = 0.5 - (L1**2 - L3**2) / (2 * d**2)
    dh = -a * da / h
    return a, h, dh, np.array([[1 - da, 0.0, da], [-dh, 0.0, dh]])


@pytest.fixture(scope="module")
def near_fold():
    """The 3-PRR's Deviation and a flexible state (its elastic coordinates zero) whose rigid part is the
    rigid mechanism assembled at d = d* - 1e-3, reached from the case's start by opening slider 3 in
    30 steps (each assembled from the one before: the branch with E above the axis)."""
    case = load_case(SINE)
    deviation = Deviation(case.model, case.probes, case.q0)
    mechanism = deviation.mechanism
    assert mechanism.names == ["s1", "s2", "s3"]
    q = case.q0.copy()
    s1, s3 = mechanism.act[0], mechanism.act[2]
    for value in np.linspace(q[s3], q[s1] + FOLD - 1e-3, 30)[1:]:
        q[s3] = value
        q[: mechanism.n] = mechanism.solve(q[None])[0]
        assert np.isfinite(q).all()
    return deviation, q


def at(q, index, eps):
    """q with slider 3 at d = d* - eps."""
    q = q.copy()
    q[index[2]] = q[index[0]] + FOLD - eps
    return q


def test_the_rigid_3prr_folds_where_legs_1_and_3_align(near_fold):
    """The rigid mechanism's pose and J equal the closed form up to the fold; its largest singular value
    grows like (d* - d)^(-1/2) (the observed exponent over six decades) while its smallest tends to the
    closed form's limit 1/sqrt(2): a parallel singularity, the condition number without bound."""
    deviation, q = near_fold
    mechanism = deviation.mechanism
    s1 = mechanism.act[0]
    eps = 10.0 ** -np.arange(3, 10)  # d* - d from 1 mm to 1 nm
    largest, smallest = [], []
    for e in eps:
        pose, J = mechanism.solve(at(q, mechanism.act, e)[None], jacobians=True)
        a, h, dh, exact = closed_form(e)
        assert np.allclose(mechanism.E @ pose[0], [pose[0, s1] + a, h], rtol=0, atol=1e-12), e  # E = (s1 + a, h)
        assert np.linalg.norm(J[0] - exact) <= 1e-6 * np.linalg.norm(exact), e  # a solve of condition ~ s_1
        s = np.linalg.svd(J[0], compute_uv=False)
        largest.append(s[0])
        smallest.append(s[-1])
        kappa, low = deviation.conditioning(at(q, mechanism.act, e))
        assert kappa == pytest.approx(s[0] / s[-1], rel=1e-9) and low == pytest.approx(s[-1], rel=1e-9)
        # J (-1, 0, 1)/sqrt(2) = (2 a' - 1, 2 h')/sqrt(2): s_1 >= sqrt(2) |h'|, which grows without bound
        assert s[0] >= math.sqrt(2) * abs(dh) * (1 - 1e-6), e
    exponent = np.diff(np.log(largest)) / np.diff(np.log(eps))
    assert np.all(np.abs(exponent + 0.5) < 0.01), exponent  # the fold's square-root law
    # the direction orthogonal to (-1, 0, 1) in (s1, s3) sees only E_x = s1 + a: (1 - a', a') . (1, 1)/sqrt(2)
    assert smallest[-1] == pytest.approx(1 / math.sqrt(2), rel=1e-4)
    assert largest[-1] / smallest[-1] > 100 * CONDITION_BOUND  # 2 |h'| at 1 nm: 100 times the warning bound


def test_the_deviation_is_undefined_exactly_beyond_the_fold(near_fold):
    """Deviation columns, conditioning and status over states on both sides of d*: NaN and ``singular``
    exactly where d > d* (no real h), numbers and ``ok`` where d < d* down to 1e-10 m from it."""
    deviation, q = near_fold
    eps = np.array([1e-3, 1e-6, 1e-8, 1e-10, -1e-10, -1e-8, -1e-6, 1e-9])
    Q = np.stack([at(q, deviation.mechanism.act, e) for e in eps])
    columns = deviation(Q, conditioning=True)
    beyond = eps < 0
    assert list(columns[STATUS]) == [SINGULAR if b else OK for b in beyond]
    for name in ("effector.deviation_x", "effector.deviation_y", "effector.deviation_angle", "jacobian_condition",
                 "jacobian_smallest"):
        assert np.isnan(columns[name][beyond]).all() and np.isfinite(columns[name][~beyond]).all(), name


def test_missing_values_are_empty_fields_and_read_back_as_nan(tmp_path):
    """io.tables: a value that is not finite is an empty field (never nan or inf), the status words
    stay words, every number reads back bit for bit."""
    values = np.array([0.1, np.nan, 1 / 3, np.inf, -np.inf, -0.0, 5e-324])
    path = tmp_path / "table.csv"
    write_csv(path, {"t": np.arange(7.0), "x": values, STATUS: np.array([OK, SINGULAR] * 3 + [OK])})
    text = path.read_text()
    assert not re.search(r"nan|inf", text, re.IGNORECASE)
    assert text.splitlines()[2] == f"1,,{SINGULAR}"
    table = read_csv(path)
    finite = np.isfinite(values)
    assert np.isnan(table["x"][~finite]).all() and (table["x"][finite].tobytes() == values[finite].tobytes())
    assert list(table[STATUS]) == [OK, SINGULAR] * 3 + [OK]
    path.write_text(text.replace(f"1,,{SINGULAR}", "1,oops,x"))
    with pytest.raises(ValueError):  # a word where a number belongs: not a femdyn table
        read_csv(path)


def fold_case(path, t_end=0.3):
    """The 3-PRR of the sine case (one element per link, no gravity) started at rest with E 2 mm above
    the axis, legs 1 and 3 almost aligned, and sliders 1 and 3 pulled apart by forces ramped to 500 N
    in 0.05 s: the legs, taut, stretch by F L/(E A) ~ 5e-7 m each and pull E across the axis, so that
    d passes d* while |h| < ~7e-4 m."""
    h0, force, xe, turn = 2e-3, 500.0, 0.825, -math.pi / 3
    text = SINE.read_text()
    text = text[: text.index("[[loads]]")].replace("t_end = 4.0", f"t_end = {t_end}")
    text = text.replace("elements = 4", "elements = 1").replace("gravity = [0.0, -9.81]", "gravity = [0.0, 0.0]")
    x1, x3 = xe - math.sqrt(L1**2 - h0**2), xe + math.sqrt(L3**2 - h0**2)
    xd, yd = xe - LP * math.cos(turn), h0 - LP * math.sin(turn)
    x2 = xd - math.sqrt(L2**2 - yd**2)
    poses = {"slider1": (x1, 0, 0), "slider2": (x2, 0, 0), "slider3": (x3, 0, 0),
             "leg1": (x1, 0, math.atan2(h0, xe - x1)), "leg2": (x2, 0, math.atan2(yd, xd - x2)),
             "leg3": (x3, 0, math.atan2(h0, xe - x3)), "platform": (xd, yd, turn)}
    text += "".join(f'[[loads]]\ntype = "joint"\ncoordinate = "{s}"\nfunction = {{type = "table", times = [0.0, 0.05], '
                    f"values = [0.0, {f!r}]}}\n\n" for s, f in (("s1", -force), ("s2", 0.0), ("s3", force)))
    text += '[[probes]]\nname = "effector"\nbody = "platform"\npoint = [0.315, 0.0]\n\n'
    text += "".join(f"[initial.bodies.{body}]\nposition = [{x!r}, {y!r}]\nangle = {a!r}\n\n"
                    for body, (x, y, a) in poses.items())
    path.write_text(text)
    return path


def test_a_run_through_the_fold_leaves_the_deviation_empty_and_ends_with_exit_0(tmp_path, capsys):
    """probes.csv: the deviation and conditioning fields empty exactly in the rows whose status is
    ``singular``, which are exactly the frames with d > d* (from history.csv's s1, s3), numbers in all
    the others; no nan or inf in any table; summary.json and the warning line name those frames; the
    Python API's tables hold NaN there and the same statuses."""
    case, out = fold_case(tmp_path / "fold.toml"), tmp_path / "out"
    assert main(["run", str(case), "--out", str(out), "--no-vtk", "--quiet"]) == 0
    err = capsys.readouterr().err
    history, probes = read_csv(out / "history.csv"), read_csv(out / "probes.csv")
    d = history["s3"] - history["s1"]
    assert np.abs(d - FOLD).min() > 1e-12  # no frame so close to d* that round-off could decide it
    singular = probes[STATUS] == SINGULAR
    assert set(probes[STATUS]) == {OK, SINGULAR} and np.array_equal(singular, d > FOLD)
    assert 10 <= singular.sum() and singular[0] == singular[-1] == False  # noqa: E712  (a pass through)
    undefined = ["effector.deviation_x", "effector.deviation_y", "effector.deviation_angle", "jacobian_condition",
                 "jacobian_smallest"]
    lines = (out / "probes.csv").read_text().splitlines()
    header = lines[0].split(",")
    for row, line in zip(singular, lines[1:]):
        fields = dict(zip(header, line.split(",")))
        assert all((fields[c] == "") == row for c in undefined), line
        assert all(fields[c] != "" for c in header if c not in undefined), line  # the dynamics: all there
    for table in out.glob("*.csv"):
        assert not re.search(r"(^|,)\s*[+-]?(nan|inf)", table.read_text(), re.IGNORECASE | re.MULTILINE), table
    summary = json.loads((out / "summary.json").read_text(), parse_constant=lambda c: pytest.fail(c))
    t = probes["t"][singular]
    about = summary["deviation"]["singular"]
    assert about["frames"] == singular.sum() and about["intervals"] == 1
    assert (about["t_first_s"], about["t_last_s"]) == (t[0], t[-1]) and summary["complete"]
    assert "type-2 singularity" in about["reason"]
    assert summary["probes"]["effector"]["deviation"]["singular_frames"] == singular.sum()
    warning = [line for line in err.splitlines() if "no rigid pose" in line]
    assert len(warning) == 1 and warning[0].startswith(f"warning: {singular.sum()} frames from t = {t[0]:.6g} s "
                                                        f"to t = {t[-1]:.6g} s")
    assert "error" not in err
    result = femdyn.load(str(case)).run()  # the Python API: NaN (undefined) where the status is singular
    assert list(result.probes[STATUS]) == list(probes[STATUS])
    assert np.array_equal(result.deviation("effector").singular, singular)
    assert np.isnan(result.probes["effector.deviation_x"][singular]).all()
    assert result.deviation_summary["deviation"] == summary["deviation"]  # the singular frames as in summary.json


@pytest.mark.parametrize("fibre", [None, 0.005])
def test_the_centre_lines_write_a_stress_only_where_it_is_defined(fibre):
    """The ParaView fields of a flexible pendulum's centre line: every one finite; the largest normal
    stress |N|/A + |M| c/I needs the outer-fibre distance c, so a section given without it has none
    (not a field of NaN)."""
    from femdyn.beam.body import BeamBody, Section
    from femdyn.model.builder import ModelBuilder
    from femdyn.model.initial import place
    from femdyn.post.probes import STRESS, centre_lines

    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(1.0, 2, Section(1e-4, 1e-4**2 / 12, fibre), 2.1e11, 7850.0), stiffening=True)
    b.add_joint("pin", "revolute", "ground", "beam")
    model = b.build()
    q, v = place(model, {}, {"pin": {"angle": 0.3}})
    lines = centre_lines(model, q[None], v[None])
    assert (STRESS in lines.point_data) == (fibre is not None)
    assert all(np.isfinite(values).all() for values in lines.point_data.values())


def test_the_spatial_deviation_is_undefined_where_the_rigid_mechanism_has_no_pose():
    """The spatial 3-PRR of cases/3prr_3d.toml: a frame whose slider 3 is 1 m beyond the others (legs
    of about 0.5 m: no rigid pose) has NaN deviation -- positions and the rotation vector -- and the
    status ``singular``, beside a frame at the start with numbers and ``ok`` (the rotation of the
    missing rigid pose is not computed from the zeros standing in for it: SciPy refuses that matrix,
    and the run of the case ended in a traceback where its rigid mechanism passed the fold)."""
    case = load_case(CASES / "3prr_3d.toml")
    deviation = Deviation(case.model, case.probes, case.q0)
    far = case.q0.copy()
    far[deviation.mechanism.act[2]] += 1.0
    columns = deviation(np.stack([case.q0, far]), conditioning=True)
    assert list(columns[STATUS]) == [OK, SINGULAR]
    names = [c for c in columns if ".deviation_" in c]
    assert {c.rsplit("_", 1)[1] for c in names} >= {"x", "y", "z", "rx", "ry", "rz"}
    for name in names + ["jacobian_condition", "jacobian_smallest"]:
        assert np.isfinite(columns[name][0]) and np.isnan(columns[name][1]), name
    alone = deviation(far[None])  # every frame singular
    assert list(alone[STATUS]) == [SINGULAR] and all(np.isnan(alone[c]).all() for c in names)
