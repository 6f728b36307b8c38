"""The package's layers: every import inside femdyn, at module level or inside a function, points to a
lower layer or stays in its own package, and no modules import each other in a circle.

The layers, lowest first (README, "Architecture"): numerics; joints and forces (siblings that do not
import each other); beam; model; integrators and reference (siblings); io; studies; commands; cli and
``__main__``. The package's own ``__init__`` (the version) is the floor.
"""
import ast
import pathlib

import femdyn

PACKAGE = pathlib.Path(femdyn.__file__).parent
LAYERS = {
    "femdyn": 0, "numerics": 0, "joints": 1, "forces": 1, "beam": 2, "model": 3, "integrators": 4,
    "reference": 4, "io": 5, "studies": 6, "commands": 7, "cli": 8, "__main__": 9,
}


def _module(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(name):
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").is_file()


def _exists(name):
    return _is_package(name) or (PACKAGE.parent / (name.replace(".", "/") + ".py")).is_file()


def _imports(path):
    """(line, imported femdyn module) of every import in the file, relative ones resolved; a name
    imported from a package counts as its submodule where it is one."""
    name = _module(path)
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parent = base[: len(base) - node.level + 1] if node.level else []
            module = ".".join(parent + ([node.module] if node.module else []))
            targets = [f"{module}.{a.name}" if _exists(f"{module}.{a.name}") else module for a in node.names]
        else:
            continue
        for target in targets:
            if target == "femdyn" or target.startswith("femdyn."):
                yield node.lineno, target


def _layer(module):
    parts = module.split(".")
    return LAYERS[parts[1]] if len(parts) > 1 else LAYERS["femdyn"]


def _graph():
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    return modules, {name: sorted({t for _, t in _imports(path)} - {name}) for name, path in modules.items()}


def test_every_module_belongs_to_a_layer():
    modules, _ = _graph()
    unplaced = sorted(m for m in modules if m != "femdyn" and m.split(".")[1] not in LAYERS)
    assert not unplaced, f"modules outside the layers of LAYERS: {unplaced}"


def test_imports_point_down():
    modules, _ = _graph()
    upward = []
    for name, path in modules.items():
        top = name.split(".")[1] if "." in name else "femdyn"
        for line, target in _imports(path):
            other = target.split(".")[1] if "." in target else "femdyn"
            if other == top:
                continue
            if not _layer(target) < _layer(name):
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not upward, "imports that do not point to a lower layer:\n" + "\n".join(upward)


def test_no_import_circles():
    _, graph = _graph()
    state, circles = {}, []

    def visit(node, trail):
        state[node] = "open"
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                circles.append(trail[trail.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [node])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)
