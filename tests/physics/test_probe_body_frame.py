"""A probe on a flexible body reports its elastic displacement along the body's directors too (along
the link and across it): a cantilever clamped at an angle under a tip force across it deflects across
by P L^3 / (3 E I) and not along, whatever the angle (planar probes; spatial ones give elastic_1..3)."""
import numpy as np

from femdyn.integrators.setup import prepare
from femdyn.integrators.statics import static_equilibrium
from femdyn.casefile.case import load_case
from femdyn.post.probes import probe_table

L, E, B, H, P = 0.9, 70e9, 0.02, 0.01, 3.0  # m, Pa, m, m, N
TILT = 0.6  # rad: the clamp's angle in the plane

CASE = """\
dimension = 2
[solver]
dt = 0.001
t_end = 0.01
[flexible]
elements = 4
geometric_stiffening = false
[[bodies]]
name = "arm"
beam = {{length = {L}, young = {E}, density = 2700.0, b = {B}, h = {H}}}
[[joints]]
name = "clamp"
type = "fixed"
bodies = ["ground", "arm"]
relative_rotation = {tilt}
[[loads]]
type = "point_force"
body = "arm"
point = [{L}, 0.0]
force = {force}
[[probes]]
name = "tip"
body = "arm"
point = [{L}, 0.0]
[initial.bodies.arm]
position = [0.0, 0.0]
angle = {tilt}
"""


def test_tip_deflection_along_and_across_a_tilted_cantilever(tmp_path):
    normal = [-float(np.sin(TILT)), float(np.cos(TILT))]  # d_2 of the tilted arm
    path = tmp_path / "tilted.toml"
    path.write_text(CASE.format(L=L, E=E, B=B, H=H, tilt=TILT, force=f"[{P * normal[0]!r}, {P * normal[1]!r}]"))
    case = load_case(path)
    setup = prepare(case.model, case.q0, case.v0)
    eq = static_equilibrium(setup)
    columns = probe_table(case.model, case.probes, eq.q[None])
    across = P * L**3 / (3 * E * B * H**3 / 12)
    assert abs(columns["tip.elastic_2"][0] / across - 1) < 1e-9
    assert abs(columns["tip.elastic_1"][0]) < 1e-9 * across
    world = np.array([columns["tip.elastic_x"][0], columns["tip.elastic_y"][0]])
    assert np.allclose(world, across * np.array(normal), rtol=0, atol=1e-9 * across)
