"""Segmented links in case files: ``segments`` in [flexible] (every beam), in a beam table (that beam, over
[flexible]) and ``--segments`` (every beam, over both) make the same bodies; the link's name places it
and a probe goes to the segment holding its point; ``--segments`` on a case without fem beams is refused;
the convergence study in the segments."""
import json

import numpy as np
import pytest
from case_texts import PINNED_ARM
from shared import CASES

from femdyn.cli import main
from femdyn.casefile.beams import Options
from femdyn.casefile.case import load_case

PROBE = '[[probes]]\nname = "tip"\nbody = "arm"\npoint = [0.5, 0.0]\n[initial.bodies.arm]'
TEXT = PINNED_ARM.replace("elements = 2", "elements = 4").replace("[initial.bodies.arm]", PROBE)


def test_segments_in_case_files(tmp_path):
    variants = {
        "flexible": (TEXT.replace("elements = 4", "elements = 4\nsegments = 2"), None),
        "table": (TEXT.replace("elements = 4", "elements = 4\nsegments = 4")
                  .replace("h = 0.01}", "h = 0.01, segments = 2}"), None),
        "option": (TEXT.replace("h = 0.01}", "h = 0.01, segments = 4}"), 2),
    }
    cases = {}
    for name, (text, segments) in variants.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        cases[name] = load_case(path, Options(segments=segments))
    for case in cases.values():
        assert [b.name for b in case.model.bodies] == ["arm", "arm#2"]
        assert case.probes[0][:2] == ("tip", "arm#2")
        np.testing.assert_allclose(case.probes[0][2], [0.25, 0.0])
        assert (case.model.mass_matrix != cases["flexible"].model.mass_matrix).nnz == 0


@pytest.mark.parametrize("command", ["check", "run"])
def test_segments_option_without_fem_beams_is_refused(tmp_path, capsys, command):
    """One line naming --segments, exit code 2, nothing written."""
    path = tmp_path / "case.toml"
    path.write_text(TEXT.replace("elements = 4", "elements = 4\nmodel = 'rigid'"))
    before = set(tmp_path.iterdir())
    assert main([command, str(path), "--segments", "2", *(["--out", str(tmp_path / "out")] * (command == "run"))]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: --segments: "), lines
    assert set(tmp_path.iterdir()) == before


def test_convergence_in_segments(tmp_path, capsys):
    """``femdyn bench convergence --refine segments``: runs with k, 2k segments per link (k from
    flexible.segments), each segment keeping its 2 elements, against Richardson's extrapolation at order
    2 of 4k and 8k segments; the study names its counts as segments."""
    out = tmp_path / "study"
    code = main(["bench", "convergence", str(CASES / "slender_cantilever.toml"), "--refine", "segments",
                 "--quantity", "tip.y", "--levels", "2", "--t-end", "0.1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    study = json.loads((out / "convergence.json").read_text())
    assert study["segments"] == [8, 16] and study["h"] == [0.125, 0.0625]
    assert "32 segments and 64 segments" in study["reference"]
