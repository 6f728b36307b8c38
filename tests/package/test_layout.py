"""The package's layers: every import inside femdyn, at module level or inside a function, points to a
lower layer or stays in its own package, and no modules import each other in a circle.

The layers, lowest first (README, "Architecture"): numerics; io (file formats), joints and forces
(siblings that do not import each other); beam; model; integrators and reference (siblings); casefile
(the case-file front end); post (post-processing and result writing); studies; api (``Problem``,
``load``, ``sweep`` and the result types); commands; cli and ``__main__``. The package's own ``__init__``
(the version) is the floor, with one exception: it exports the public API (``femdyn.__all__``), whose
names it imports from their modules (up to the api layer) on first use, by its module ``__getattr__``
(PEP 562, by module name) or for type checkers only (``if TYPE_CHECKING``), never when it is imported;
so ``femdyn`` imports nothing at import time and the command line's start stays as fast as before
(``test_cli_startup``). Imports under ``if TYPE_CHECKING`` are never executed and are not counted.
"""
import ast
import pathlib

import femdyn

PACKAGE = pathlib.Path(femdyn.__file__).parent
LAYERS = {
    "femdyn": 0, "numerics": 0, "io": 1, "joints": 1, "forces": 1, "beam": 2, "model": 3, "integrators": 4,
    "reference": 4, "casefile": 5, "post": 6, "studies": 7, "api": 8, "commands": 9, "cli": 10, "__main__": 11,
}
EXPORTS = LAYERS["api"]  # the highest layer whose names the package's ``__init__`` exports (lazily)


def _module(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(name):
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").is_file()


def _exists(name):
    return _is_package(name) or (PACKAGE.parent / (name.replace(".", "/") + ".py")).is_file()


def _runtime_nodes(tree):
    """The nodes of ``tree`` but those under ``if TYPE_CHECKING:``: imports for type checkers only are
    never executed (annotations that name a higher module's class, a module that names its user's)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _imports(path):
    """(line, imported femdyn module) of every import in the file, relative ones resolved; a name
    imported from a package counts as its submodule where it is one."""
    name = _module(path)
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in _runtime_nodes(ast.parse(path.read_text())):
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


def test_the_package_imports_its_exports_lazily():
    """``import femdyn`` loads none of the modules it exports: every import in its ``__init__`` is in a
    function (``__getattr__``) or under ``if TYPE_CHECKING``."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    eager = []
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        eager += [f"line {n.lineno}" for n in ast.walk(node) if isinstance(n, ast.ImportFrom) and n.level
                  and not isinstance(node, ast.FunctionDef)]
    assert not eager, f"femdyn/__init__.py imports femdyn modules at import time: {eager}"
    exported = {**femdyn._EXPORTS, **femdyn._MODULES}
    above = sorted(f"{name} ({module})" for name, module in exported.items() if _layer(module) > EXPORTS)
    assert not above, f"femdyn exports names from above the api layer: {above}"
    assert sorted(femdyn.__all__) == sorted([*exported, "__version__"])
    for name in femdyn.__all__:
        assert getattr(femdyn, name) is not None


def test_the_model_never_asks_which_flexible_body_it_holds():
    """No module of ``model/`` tests the class of a flexible body (``isinstance``, ``issubclass``,
    ``type(..) is``): it uses the one protocol of ``beam.flexible``."""
    from femdyn.beam.flexible import EMBEDDINGS

    kinds = {cls.__name__ for cls in EMBEDDINGS} | {"Flexible"}
    asked = []
    for path in sorted((PACKAGE / "model").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            named = set()
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                    "isinstance", "issubclass") and len(node.args) == 2:
                named = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node.args[1])
                         if isinstance(n, (ast.Name, ast.Attribute))}
            elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Call) and getattr(
                    node.left.func, "id", None) == "type":
                named = {n.id if isinstance(n, ast.Name) else n.attr for c in node.comparators for n in ast.walk(c)
                         if isinstance(n, (ast.Name, ast.Attribute))}
            if named & kinds:
                asked.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {sorted(named & kinds)}")
    assert not asked, "model/ asks which kind of flexible body it holds:\n" + "\n".join(asked)


LONG_MODULES = {  # modules over MAX_LINES, each one thing, named
    "reference/rrr.py": "the planar 3-RRR in its actuated coordinates by the DeNOC matrices (002 section 4): "
                        "the independent reference of the 3-RRR cases, kinematics and dynamics of one model",
}
MAX_LINES = 500


def test_no_module_is_long_unless_it_is_one_thing():
    """No module of the package is over ``MAX_LINES`` lines unless ``LONG_MODULES`` names the one thing
    it is (and then it is there: the list holds no stale names)."""
    lengths = {str(p.relative_to(PACKAGE)): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    long = sorted(f"{name} ({n} lines)" for name, n in lengths.items() if n > MAX_LINES and name not in LONG_MODULES)
    assert not long, f"modules over {MAX_LINES} lines that are several things: {long}"
    stale = sorted(name for name in LONG_MODULES if lengths.get(name, 0) <= MAX_LINES)
    assert not stale, f"LONG_MODULES names modules that are not long: {stale}"


def test_io_holds_file_formats_only():
    """``io/`` reads and writes file formats only: none of its modules imports the integrators, the
    model, the physics (joints, forces, beam) or the case-file front end and post-processing above
    it -- nothing of femdyn but ``numerics`` and ``io`` itself."""
    found = []
    for path in sorted((PACKAGE / "io").rglob("*.py")):
        for line, target in _imports(path):
            if target.split(".")[1] not in ("io", "numerics"):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not found, "io/ imports more than numerics:\n" + "\n".join(found)


POST_PHYSICS = ("beam.sections", "beam.deflection")  # what post/ may import of beam and numerics


def test_post_computes_no_mechanics():
    """``post/`` selects, names, assembles and writes what the physics layers compute: none of its
    modules imports numba, a joint or force module, or of ``beam/`` and ``numerics/`` more than the
    section forces and the deformed centre lines (``POST_PHYSICS``): no element, embedding, kinematics or
    kernel module (the mechanics of probes and centre lines is ``model.points`` and ``beam.deflection``)."""
    found = []
    for path in sorted((PACKAGE / "post").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in _runtime_nodes(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno} imports {n}" for n in names
                      if n.split(".")[0] == "numba"]
        for line, target in _imports(path):
            package = target.split(".")[1]
            inner = target.split(".", 1)[1]
            if package in ("joints", "forces") or (package in ("beam", "numerics") and inner not in POST_PHYSICS):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not found, "post/ reaches into the mechanics:\n" + "\n".join(found)
