"""The public API type-checks: mypy on ``femdyn/__init__.py`` (the names of ``femdyn.__all__``), the api
package (every function annotated: ``disallow_untyped_defs``), the gallery scripts that use it
(docs/examples) and the API reference's builder (docs/api_reference.py), with no error. The modules below the api layer carry no annotations yet; mypy does
not follow them (``follow_imports = skip``: their names are Any), which keeps its run to a few seconds,
while NumPy's own annotations are followed (``silent``). No cache: every run checks from scratch."""
import subprocess
import sys

from shared import ROOT

CONFIG = """\
[mypy]
follow_imports = silent
ignore_missing_imports = True
incremental = False
[mypy-femdyn.*]
follow_imports = skip
[mypy-femdyn]
follow_imports = silent
disallow_untyped_defs = True
[mypy-femdyn.api.*]
follow_imports = silent
disallow_untyped_defs = True
disallow_incomplete_defs = True
"""


def test_mypy_passes_on_the_public_api_and_the_gallery(tmp_path):
    import mypy  # noqa: F401  (in the test extra: pip install -e .[test])

    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG)
    targets = ["femdyn/__init__.py", "femdyn/api", "docs/api_reference.py",
               *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "examples").glob("*.py"))]
    child = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), *targets], cwd=ROOT,
                           capture_output=True, text=True)
    assert child.returncode == 0, child.stdout + child.stderr
    assert "Success: no issues found" in child.stdout
