"""Modules registered as loaded on first use (``numerics.lazy.deferred``): an ``import`` statement of one
does not run its code, the first name looked up in it does, once, and a deferred package's submodules
import as ever."""
import importlib
import sys
import textwrap

from femdyn.numerics.lazy import Deferred, deferred, load

PACKAGE = textwrap.dedent("""\
    import sys
    sys.lazy_probe_runs = getattr(sys, "lazy_probe_runs", 0) + 1
    VALUE = 42
    """)


def test_a_deferred_module_runs_at_its_first_name_not_at_its_import(tmp_path, monkeypatch):
    (tmp_path / "lazy_probe").mkdir()
    (tmp_path / "lazy_probe" / "__init__.py").write_text(PACKAGE)
    (tmp_path / "lazy_probe" / "part.py").write_text("WHOLE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr(sys, "lazy_probe_runs", raising=False)
    try:
        module = deferred("lazy_probe")
        import lazy_probe  # noqa: F401 (the statement under test)

        assert lazy_probe is module and type(module) is Deferred and not hasattr(sys, "lazy_probe_runs")
        assert lazy_probe.VALUE == 42 and sys.lazy_probe_runs == 1 and type(module) is not Deferred
        load(module)  # a plain module now: not run again
        assert importlib.import_module("lazy_probe.part").WHOLE == 7 and sys.lazy_probe_runs == 1
    finally:
        for name in ("lazy_probe.part", "lazy_probe"):
            sys.modules.pop(name, None)


def test_a_deferred_submodule_is_its_packages_attribute_and_loads_on_use(tmp_path, monkeypatch):
    (tmp_path / "lazy_parent").mkdir()
    (tmp_path / "lazy_parent" / "__init__.py").write_text("")
    (tmp_path / "lazy_parent" / "child.py").write_text(PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delattr(sys, "lazy_probe_runs", raising=False)
    try:
        import lazy_parent

        child = deferred("lazy_parent.child")
        from lazy_parent import child as imported  # the package's attribute: no name of the child looked up

        assert imported is child is lazy_parent.child and not hasattr(sys, "lazy_probe_runs")
        load(child)
        assert sys.lazy_probe_runs == 1 and child.VALUE == 42
    finally:
        for name in ("lazy_parent.child", "lazy_parent"):
            sys.modules.pop(name, None)
