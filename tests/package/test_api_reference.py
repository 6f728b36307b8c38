"""The API reference builds from the docstrings (``docs/api_reference.py``) and fails on a broken
reference: every public name of ``femdyn.__all__`` has a docstring and a section, every citation key
``[Key]`` of the reference and of every module of the package has its entry in ``docs/references.md``,
every source paper cited by number is one listed there, and every ``femdyn.<module>.<name>`` named in
a docstring imports."""
import runpy

import femdyn
from shared import ROOT

BUILD = runpy.run_path(str(ROOT / "docs" / "api_reference.py"), run_name="api_reference")


def test_the_reference_builds_with_every_public_name(tmp_path):
    out = tmp_path / "api.md"
    assert BUILD["main"]([str(out)]) == 0
    text = out.read_text()
    for name in femdyn.__all__:
        if name != "__version__":
            assert f"## `femdyn.{name}`" in text, name


def test_every_reference_in_the_package_resolves():
    sources = "\n".join(path.read_text() for path in sorted((ROOT / "femdyn").rglob("*.py")))
    assert BUILD["CITATION"].findall(sources) and BUILD["PAPER"].findall(sources)  # the package cites both ways
    assert BUILD["broken_references"](sources) == []


def test_a_broken_reference_fails_the_build():
    text = "after [Nobody1900] and 009 eq. 3, see ``femdyn.io.nowhere.load_case`` (no such module) and [Arnold2007], 000 eq. 13"
    broken = BUILD["broken_references"](text)
    assert len(broken) == 3 and all(key in " ".join(broken) for key in ("Nobody1900", "009", "femdyn.io.nowhere"))
