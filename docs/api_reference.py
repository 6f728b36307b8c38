"""The API reference of femdyn, rendered from the docstrings of its public names (``femdyn.__all__``):
each name's signature and docstring, and of a class its public methods and properties, as Markdown.

Rendering checks the references: every citation by key (``[Arnold2007]``) must have its entry in
``docs/references.md``, every source paper cited by number (``000 eq. 13``) must be one of the papers
listed there, and every dotted path ``femdyn.<module>.<name>`` named in a docstring must import.
A broken reference is an error (exit code 1), so the build fails on it (``tests/package/test_api_reference.py``
runs it).

Run: ``python docs/api_reference.py [OUT.md]`` (default: print to standard output).
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

import femdyn

REFERENCES = Path(__file__).with_name("references.md")
CITATION = re.compile(r"\[([A-Z][A-Za-z]*\d{4}[a-z]*)\]")  # [Arnold2007], [Davis2004colamd]
PAPER = re.compile(r"(?<![\d.\w])(0\d\d) (?:eqs?\.|sections?|Figs?\.|Tables?|ref\.)")  # 000 eq. 13
DOTTED = re.compile(r"``(femdyn(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")  # ``femdyn.casefile.case.load_case``


def known_keys(text: str) -> tuple[set[str], set[str]]:
    """The citation keys (**[Key]**) and the source papers' numbers (**000**) that ``references.md`` lists."""
    return set(re.findall(r"\*\*\[([A-Za-z]+\d{4}[a-z]*)\]\*\*", text)), set(re.findall(r"^\*\*(\d{3})\*\*", text, re.M))


def resolves(path: str) -> bool:
    """Whether ``femdyn.a.b.c`` names a module or an attribute reached from the longest module prefix."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""


def _members(cls: type) -> list[tuple[str, object]]:
    """The public methods and properties that ``cls`` defines or inherits from femdyn, in source order."""
    out: list[tuple[str, object]] = []
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(member, property):
            out.append((name, member))
    return out


def render() -> tuple[str, list[str]]:
    """The reference as Markdown, and the docstrings without text (public names, not their members)."""
    lines = ["# femdyn API reference", "", f"femdyn {femdyn.__version__}: the names of `femdyn.__all__`.", ""]
    missing = []
    for name in sorted(n for n in femdyn.__all__ if n != "__version__"):
        obj = getattr(femdyn, name)
        doc = inspect.getdoc(obj)
        if not doc:
            missing.append(name)
        kind = "module" if inspect.ismodule(obj) else "class" if inspect.isclass(obj) else "function"
        lines += [f"## `femdyn.{name}` ({kind})", ""]
        if kind != "module":
            lines += [f"```python\n{name}{_signature(obj)}\n```", ""]
        lines += [doc or "", ""]
        if kind == "class":
            for member_name, member in _members(obj):
                member_doc = inspect.getdoc(member) or ""
                target = member.fget if isinstance(member, property) else member
                signature = "" if isinstance(member, property) else _signature(target)
                lines += [f"### `{name}.{member_name}{signature}`", "", member_doc, ""]
        elif kind == "module":
            for member_name, member in inspect.getmembers(obj, inspect.isfunction):
                if not member_name.startswith("_") and member.__module__ == obj.__name__:
                    lines += [f"### `{name}.{member_name}{_signature(member)}`", "",
                              inspect.getdoc(member) or "", ""]
    return "\n".join(lines), missing


def broken_references(text: str) -> list[str]:
    """The references in ``text`` that do not resolve (module docstring)."""
    keys, papers = known_keys(REFERENCES.read_text(encoding="utf-8"))
    broken = [f"[{key}]: no entry in docs/references.md" for key in sorted(set(CITATION.findall(text)) - keys)]
    broken += [f"paper {number}: not among the source papers of docs/references.md"
               for number in sorted(set(PAPER.findall(text)) - papers)]
    broken += [f"{path}: does not import" for path in sorted(set(DOTTED.findall(text))) if not resolves(path)]
    return broken


def main(argv: list[str]) -> int:
    text, missing = render()
    broken = broken_references(text) + [f"femdyn.{name}: no docstring" for name in missing]
    for line in broken:
        print(f"error: {line}", file=sys.stderr)
    if broken:
        return 1
    if argv:
        Path(argv[0]).write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
