"""Case-file texts shared by the command-line tests."""


# The two letters of the NM logo (000 Table 1, eq. 40) as case-file text, for small test cases.
NM_BODIES_AND_JOINT = """\
[[bodies]]
name = "N"
mass = 1.1
euler = [0.004, 0.0917]
[[bodies]]
name = "M"
mass = 2.0
euler = [0.0073, 0.1667]
[[joints]]
name = "NM"
type = "revolute"
bodies = ["N", "M"]
points = [[0, -0.4], [0, 0.4]]
angle = "theta"
"""


# A flexible arm (aluminium, 0.5 m, 2 elements) pinned to the ground, under gravity, as case-file text.
PINNED_ARM = """\
dimension = 2
gravity = [0.0, -9.81]
[solver]
dt = 0.001
t_end = 0.002
[flexible]
elements = 2
[[bodies]]
name = "arm"
beam = {length = 0.5, young = 70e9, density = 2700, b = 0.02, h = 0.01}
[[joints]]
name = "pin"
type = "revolute"
bodies = ["ground", "arm"]
[initial.bodies.arm]
position = [0, 0]
angle = 0.0
"""
