"""``Problem.check`` (``femdyn.CheckResult``) is what ``femdyn check`` prints: the same lines on stdout and
warnings on stderr for a case file, and for the spatial four-bar built in Python the degrees of freedom
and redundant rows that the mobility counts give."""
from shared import CASES
from test_python_problems import four_bar_spatial  # the case file built in Python

import femdyn
from femdyn.cli import main


def cli_check(path, capsys):
    """The stdout lines and stderr warnings of ``femdyn check path`` (exit code 0)."""
    assert main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    return out.splitlines(), [line.removeprefix("warning: ") for line in err.splitlines()]


def test_check_of_a_servo_case_with_probes_gives_the_lines_of_femdyn_check(capsys):
    """The RPR figure-8 (000 section 5: servos, a probe on the floating-base mechanism): every section of
    the check -- the servos' zero dynamics, the rigid mechanism's conditioning -- as the command prints it."""
    path = CASES / "rpr_figure8.toml"
    result = femdyn.load(path).check()
    lines, warnings = cli_check(path, capsys)
    assert isinstance(result, femdyn.CheckResult) and "CheckResult" in repr(result)
    assert result.lines() == lines and result.summary() == "\n".join(lines) and result.warnings == warnings
    assert result.servos and result.zero_dynamics is not None and result.condition_number is not None
    assert result.near_singular == (result.condition_number > result.condition_bound)


def test_the_spatial_four_bar_built_in_python_has_the_mobility_of_its_geometry(capsys):
    """Three moving links and four revolute joints: Kutzbach's count in space, 6 x 3 - 5 x 4 = -2, says
    the linkage is rigid, but its axes are parallel and it moves as the planar four-bar of Gruebler's
    count 3 x 3 - 2 x 4 = 1 degree of freedom: 1 - (-2) = 3 of its rows are redundant and dropped. The
    check of the model built in Python is that of its case file (``femdyn check``), but for the first
    line (the file's path and title)."""
    result = four_bar_spatial().check()
    links, joints = 3, 4
    kutzbach, gruebler = 6 * links - 5 * joints, 3 * links - 2 * joints
    assert result.degrees_of_freedom == gruebler == 1 and kutzbach == -2
    assert len(result.dropped) == gruebler - kutzbach == result.m - result.active
    assert result.coordinate_kinds["joint coordinates"] == 1 and result.coordinate_kinds["flexible bodies"] == 0
    assert result.constraint_kinds["revolute"] == 5 * joints and result.dimension == 3
    lines, warnings = cli_check(CASES / "four_bar_spatial.toml", capsys)
    assert result.lines()[1:] == lines[1:] and result.warnings == warnings == []
