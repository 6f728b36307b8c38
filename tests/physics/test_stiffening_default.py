"""``ModelBuilder.add_beam``'s default geometric stiffening is a case file's (``geometric_stiffening``
defaults to true for FEM bodies): a cantilever under an axial tension P and a transverse tip force F,
built from Python with the default and read from a case file that leaves the key out, has the static tip
deflection of the tension-stiffened Euler-Bernoulli cantilever,
v(L) = F (k L - tanh(k L)) / (P k), k = sqrt(P / (E I)) (the beam-column E I v'''' - P v'' = 0 with
v(0) = v'(0) = 0, v''(L) = 0, E I v'''(L) - P v'(L) = -F), both the same to round-off; without stiffening it is linear theory's
F L^3 / (3 E I).

Python and case-file defaults agree (issue 36): a Rayleigh-Ritz body and a modal body get no geometric
stiffening by default from ``ModelBuilder.add_beam`` as from a case file that leaves
``geometric_stiffening`` out -- a cantilever under an axial tension P and a tip force F then bends by
linear theory's F L^3/(3 E I) (exact for the cubic Rayleigh-Ritz shape), while ``stiffening=True``, the
earlier Python default kept reachable, gives the tension-stiffened (smaller) deflection; an orientation
servo is relative by default in both. Where a Python user's numbers change, a ``DeprecationWarning``
says so."""
from pathlib import Path

import numpy as np
import pytest

from femdyn.beam.body import BeamBody, Section
from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.casefile.case import load_case
from femdyn.joints.trajectories import AxisAngle, Constant
from femdyn.model.builder import ModelBuilder
from femdyn.model.initial import place

L, E, RHO, B, H, ELEMENTS = 1.0, 2.1e11, 7850.0, 0.02, 0.01, 16
I = B * H**3 / 12
F = 5.0
P = 40 * E * I / L**2  # k L = sqrt(40): the tension halves the deflection and more
CASE = f"""\
dimension = 2
[solver]
dt = 0.01
t_end = 0.02
[flexible]
elements = {ELEMENTS}
[[bodies]]
name = "beam"
beam = {{length = {L}, young = {E}, density = {RHO}, b = {B}, h = {H}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "beam"]
[[loads]]
type = "point_force"
body = "beam"
point = [{L}, 0.0]
force = [{P}, {F}]
[initial.bodies.beam]
position = [0.0, 0.0]
"""


def tip_deflection(model, q0, v0):
    eq = static_equilibrium(prepare(model, q0, v0))
    dofs, C, _ = model.material_point(0, np.array([L, 0.0]))
    return (C @ eq.q[dofs])[1]


def python_model(**stiffening):
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(L, ELEMENTS, Section.rectangle(B, H), E, RHO), **stiffening)
    b.add_joint("clamp", "fixed", "ground", "beam")
    b.add_point_force("beam", [L, 0.0], [P, F], lambda t: 1.0)
    model = b.build()
    return model, *place(model, {"beam": {"position": [0.0, 0.0], "angle": 0.0}}, {})


def test_python_default_is_the_case_files(tmp_path):
    path = tmp_path / "cantilever.toml"
    path.write_text(CASE)
    case = load_case(path)
    from_case = tip_deflection(case.model, case.q0, case.v0)
    default = tip_deflection(*python_model())
    linear = tip_deflection(*python_model(stiffening=False))
    k = np.sqrt(P / (E * I))
    stiffened = F * (k * L - np.tanh(k * L)) / (P * k)
    assert abs(default - from_case) < 1e-12 * abs(stiffened)
    assert abs(linear - F * L**3 / (3 * E * I)) < 1e-9 * abs(linear)
    assert abs(default - stiffened) < 1e-3 * stiffened  # 16 elements; the stretch P/(EA) = 3e-4 aside


LINEAR = F * L**3 / (3 * E * I)


def ritz_model(**stiffening):
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.rayleigh_ritz([[0.0, 0.0], [L, 0.0]], Section.rectangle(B, H), E, RHO), **stiffening)
    b.add_joint("clamp", "fixed", "ground", "beam")
    b.add_point_force("beam", [L, 0.0], [P, F], lambda t: 1.0)
    model = b.build()
    return model, *place(model, {"beam": {"position": [0.0, 0.0], "angle": 0.0}}, {})


def test_rayleigh_ritz_default_is_the_case_files(tmp_path):
    path = tmp_path / "ritz.toml"
    path.write_text(CASE.replace("[flexible]", '[flexible]\nmodel = "rayleigh-ritz"'))
    case = load_case(path)
    assert not case.model.bodies[0].flexible.stiffening
    from_case = tip_deflection(case.model, case.q0, case.v0)
    with pytest.warns(DeprecationWarning, match="stiffening=True"):
        default = tip_deflection(*ritz_model())
    assert default == pytest.approx(from_case, rel=1e-12) == pytest.approx(LINEAR, rel=1e-9)
    assert tip_deflection(*ritz_model(stiffening=True)) < 0.9 * LINEAR  # the earlier default, still reachable


def test_modal_body_default_is_the_case_files(tmp_path):
    """A case with modes and no geometric_stiffening loads (it was refused) without stiffening, as Python's
    default for a modal body."""
    path = tmp_path / "modal.toml"
    path.write_text(CASE.replace(f"elements = {ELEMENTS}", f"elements = {ELEMENTS}\nmodes = 4"))
    case = load_case(path)
    assert not case.model.bodies[0].flexible.stiffening
    b = ModelBuilder(2)
    b.add_beam("beam", BeamBody.straight(L, ELEMENTS, Section.rectangle(B, H), E, RHO, modes=4, axial="linear"))
    assert not b.build().bodies[0].flexible.stiffening



def test_orientation_servo_is_relative_by_default_in_both():
    """The shipped Stewart-Gough case's orientation servo leaves ``relative`` out: relative, as the
    Python default (which warns: it was absolute)."""
    servos = load_case(Path(__file__).resolve().parents[2] / "cases" / "stewart_gough.toml").model.spec.servos
    from_case = next(s for s in servos if s.kind == "orientation")
    b = ModelBuilder(3)
    b.add_body("disc", 1.0, [0.1, 0.1, 0.1])
    with pytest.warns(DeprecationWarning, match="relative=False"):
        b.add_servo_orientation("turn", "disc", AxisAngle([0.0, 0.0, 1.0], Constant([0.3])))
    assert from_case.relative is True and b.spec().servos[0].relative is True
