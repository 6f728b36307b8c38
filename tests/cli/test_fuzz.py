"""Mutation fuzzing of every shipped case: seeded mutations (deleted keys, wrong types, zero, negative,
NaN, infinite and 1e+-300 numbers, unknown names and keys, duplicated bodies, disconnected and redundant
joints, truncated and binary files), each run through ``femdyn check`` and a short ``femdyn run`` in this
process. Whatever the input: the exit code is 0, 1 or 2, no traceback and no warning reaches the user, a
refusal is one line, an exit-0 result holds only finite numbers and strict JSON, and exit 2 leaves
nothing behind.

The hostile classes of issue 33 (``hostile``, ``tamper``): control characters and newlines in names, keys
and values, deep nesting, integers beyond every range, Newton settings that cannot be met, hostile mesh
paths and sizes (devices, a FIFO, a sparse file over the limit, paths out of the case's folder), hostile
``--out`` targets (a folder of the user's, a link to it, a file), sweep folders that are not a sweep's or
hold an empty plan, and tampered result folders given to ``--resume``: each refusal one line that leaves
the files it was given as they were (bytes and times), or a clean run. The full mutation run of every
case is ``slow``; ``python tests/cli/fuzz_many.py`` runs any number of seeded variants of all classes
in processes of their own, counting tracebacks, hangs, multi-line refusals and non-finite results."""
import contextlib
import io
import json
import os
import random
import re
import shutil
import warnings

import numpy as np
import pytest
from shared import CASES

from test_untrusted_folders import made  # noqa: F401  (the stopped run's folder, a fixture)

from femdyn.cli import main
from femdyn.io.tables import STATUS, read_csv
from femdyn.casefile.case import load_case

VARIANTS = 40  # per shipped case: 440 in all
NUMBER = re.compile(r"(?<![\w.\"])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])")
STRING = re.compile(r'"[^"\n]*"')
KEY_LINE = re.compile(r"^\s*[A-Za-z_][\w-]*\s*=")
HEADER = re.compile(r"^\[\[?([\w.]+)\]\]?\s*$")
NUMBERS = ["0", "-1", "-0.5", "nan", "inf", "-inf", "1e300", "-1e300", "1e-300", "-1e-300", "1e+308"]
WRONG = ['"text"', "true", "[1, 2]", "{ a = 1 }", "[]", '"1/0"']
NAMES = ['"unknown_thing"', '""', '"ground"', '"x y"']


def blocks(lines):
    """(start, end, table name) of every table of the file's lines (the text before the first header
    is not one)."""
    starts = [(i, HEADER.match(line)[1]) for i, line in enumerate(lines) if HEADER.match(line)]
    return [(i, end, name) for (i, name), end in zip(starts, [s for s, _ in starts[1:]] + [len(lines)])]


def mutate(text, rng):
    """One seeded mutation of the case ``text``: (its kind, the mutated bytes)."""
    lines = text.splitlines(keepends=True)
    keyed = [i for i, line in enumerate(lines) if KEY_LINE.match(line)]
    tables = blocks(lines)
    kind = rng.choice(["delete key", "number", "wrong type", "name", "duplicate body", "drop joint",
                       "redundant joint", "unknown key", "truncate", "binary"])
    if kind == "delete key":
        del lines[rng.choice(keyed)]
    elif kind in ("number", "wrong type", "name"):
        pattern = STRING if kind == "name" else NUMBER
        candidates = [i for i in keyed if pattern.search(lines[i].split("=", 1)[1])] or keyed
        i = rng.choice(candidates)
        key, value = lines[i].split("=", 1)
        if kind == "wrong type":
            value = f" {rng.choice(WRONG)}\n"
        else:
            spans = [m.span() for m in pattern.finditer(value)] or [(1, len(value.rstrip()))]
            a, b = rng.choice(spans)
            value = value[:a] + rng.choice(NAMES if kind == "name" else NUMBERS) + value[b:]
        lines[i] = key + "=" + value
    elif kind in ("duplicate body", "drop joint", "redundant joint"):
        table = "bodies" if kind == "duplicate body" else "joints"
        chosen = [t for t in tables if t[2] == table]
        if not chosen:
            return kind, text.encode()
        start, end, _ = rng.choice(chosen)
        block = lines[start:end]
        if kind == "drop joint":
            del lines[start:end]
        else:
            if kind == "redundant joint" or rng.random() < 0.5:  # a new name, and new coordinate names
                block = [re.sub(r'^(\s*(name|angle|slide)\s*=\s*")([^"]*)"', r'\1\3_again"', line) for line in block]
            lines[end:end] = block
    elif kind == "unknown key":
        start = rng.choice([0] + [t[0] + 1 for t in tables])
        lines.insert(start, "bogus_key = 1\n")
    data = "".join(lines).encode()
    if kind == "truncate":
        data = data[: rng.randrange(len(data))]
    elif kind == "binary":
        at = rng.randrange(len(data))
        data = data[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + data[at:]
    return kind, data


def run(argv):
    """``main(argv)`` in this process: (exit code, stdout, stderr, warnings); an exception that escapes
    is a failure of the test (a traceback for the user)."""
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        code = main(argv)
    return code, out.getvalue(), err.getvalue(), [str(w.message) for w in caught]


def strict(text):
    def refuse(constant):
        raise ValueError(f"{constant} in JSON")
    return json.loads(text, parse_constant=refuse)


def finite_csv(path):
    """Whether every value of the table ``path`` is a finite number, but the deviation and conditioning
    where the frame's status (``tables.STATUS``: ok or singular) says that the rigid mechanism is
    singular: undefined there, an empty field (read as NaN)."""
    columns = read_csv(path)
    status = columns.pop(STATUS, None)
    if status is not None and not set(status) <= {"ok", "singular"}:
        return False
    singular = False if status is None else status == "singular"
    return all(np.isfinite(values[~(singular & (".deviation_" in name or name.startswith("jacobian_")))]).all()
               for name, values in columns.items())


@pytest.mark.slow
def test_mutated_cases_are_refused_or_run_cleanly(tmp_path):
    cases = sorted(CASES.glob("*.toml"))
    assert len(cases) >= 11
    tally, problems = {}, []
    for number, original in enumerate(cases):
        text = original.read_text()
        dt = load_case(original).settings.dt
        rng = random.Random(f"femdyn fuzz {original.name}")
        for variant in range(VARIANTS):
            kind, data = mutate(text, rng)
            folder = tmp_path / f"{original.stem}-{variant}"
            folder.mkdir()
            case = folder / original.name
            case.write_bytes(data)
            out = folder / "out"
            for argv in (["check", str(case)],
                         ["run", str(case), "--t-end", repr(2 * dt), "--out", str(out), "--quiet", "--no-plots"]):
                label = f"{original.name} #{variant} ({kind}): {argv[0]}"
                code, stdout, stderr, caught = run(argv)
                tally[code] = tally.get(code, 0) + 1
                if code not in (0, 1, 2) or "Traceback" in stderr or caught:
                    problems.append(f"{label}: exit {code}, {stderr.strip()[:300]!r}, warnings {caught}")
                elif code == 2 and not (stderr.startswith("error: ") and stderr.count("\n") == 1):
                    problems.append(f"{label}: a refusal of more than one line: {stderr!r}")
                elif code == 2 and sorted(p.name for p in folder.iterdir()) != [original.name]:
                    problems.append(f"{label}: exit 2 left {sorted(p.name for p in folder.iterdir())}")
                elif argv[0] == "run" and code == 0:
                    summary = strict((out / "summary.json").read_text())
                    tables = [p for p in out.glob("*.csv") if not finite_csv(p)]
                    if not summary["complete"] or tables:
                        problems.append(f"{label}: exit 0 with complete {summary['complete']}, non-finite {tables}")
                elif argv[0] == "run" and code == 1:
                    summary = strict((out / "summary.json").read_text())
                    if summary["complete"] or not summary["message"]:
                        problems.append(f"{label}: exit 1 with complete {summary['complete']}")
    assert not problems, "\n".join(problems)
    assert sum(tally.values()) == 2 * VARIANTS * len(cases) >= 400 and tally.get(2, 0) > 100 and tally.get(0, 0) > 50


@pytest.mark.parametrize("seed", range(3))
def test_mutations_are_seeded(seed):
    text = (CASES / "3prr_sine.toml").read_text()
    assert mutate(text, random.Random(seed)) == mutate(text, random.Random(seed))


# --- the hostile classes of issue 33 ---------------------------------------------------------------

ESCAPES = ["\\n", "\\r\\n", "\\t", "\\u0000", "\\u001b[31m", "\\u2028", "\\u007f"]  # in TOML strings
HUGE = [str(2**63), str(2**64 + 1), str(10**30), str(-(2**63)), "0"]
MESHES = ["/dev/zero", "/dev/null", "/dev/urandom", "../../../../../../../../etc/passwd", ".", "huge.vtu", "empty.msh",
          "fifo.msh", "garbage.vtu", "line\\nbreak.msh"]
BEAM_LENGTH = re.compile(r"(beam = \{)length = [^,]+,")


def users_folder(path):
    """A folder of the user's that happens to hold what a femdyn folder holds (a summary, a plan)."""
    path.mkdir()
    for name, text in (("summary.json", "{}"), ("sweep.json", "{}"), ("thesis.tex", "chapter 1\n")):
        (path / name).write_text(text)
    (path / "data").mkdir()
    (path / "data" / "measured.csv").write_text("1,2\n")
    return path


def hostile(text, rng, folder, dt):
    """One seeded hostile variant of the case ``text`` in ``folder`` (issue 33): (its kind, the case's
    bytes, the command lines to run (CASE and OUT stand for the case and result paths), the paths that must
    not change)."""
    run = ["run", "CASE", "--t-end", repr(2 * dt), "--out", "OUT", "--quiet", "--no-plots"]
    kind = rng.choice(["control characters", "deep nesting", "integer overflow", "newton settings", "mesh",
                       "out folder", "sweep folder"])
    if kind == "mesh" and not BEAM_LENGTH.search(text):
        kind = "out folder"
    argvs, guarded = [["check", "CASE"], run], []
    if kind == "control characters":
        strings = [m.span() for m in STRING.finditer(text)]
        if strings and rng.random() < 0.8:
            a, b = rng.choice(strings)
            at = rng.randrange(a + 1, b)
            text = text[:at] + rng.choice(ESCAPES) + text[at:]
        else:
            text = f'"bad{rng.choice(ESCAPES)}key" = 1\n' + text
    elif kind == "deep nesting":
        depth = rng.choice([30, 300, 3000, 30000])
        nested = rng.choice(["[" * depth + "1" + "]" * depth, "{a = " * depth + "1" + "}" * depth])
        lines = text.splitlines(keepends=True)
        keyed = [i for i, line in enumerate(lines) if KEY_LINE.match(line)]
        i = rng.choice(keyed)
        lines[i] = lines[i].split("=", 1)[0] + "= " + nested + "\n"
        text = "".join(lines)
    elif kind == "integer overflow":
        number = rng.choice(HUGE)
        where = rng.choice(["output.every", "solver.max_iterations", "--every", "--elements", "--segments"])
        if where == "output.every":
            text = text.replace("[output]\n", f"[output]\nevery = {number}\n") if "[output]" in text else \
                text + f"\n[output]\nevery = {number}\n"
        elif where == "solver.max_iterations":
            text = re.sub(r"max_iterations = \d+\n", "", text).replace("[solver]\n", f"[solver]\nmax_iterations = {number}\n")
        else:
            argvs = [[*argv, where, number] for argv in argvs]
    elif kind == "newton settings":
        text = re.sub(r"(tolerance|max_iterations) = \S+\n", "", text)
        tolerance = rng.choice(["1e-300", "5e-324", "1e-17", "0.0", "-1.0", "nan", "1e300", "1e-12"])
        iterations = rng.choice(["0", "1", "1000000000", str(2**63), "25"])
        text = text.replace("[solver]\n", f"[solver]\ntolerance = {tolerance}\nmax_iterations = {iterations}\n")
    elif kind == "mesh":
        target = rng.choice(MESHES)
        if target == "huge.vtu":
            with open(folder / target, "wb") as f:
                f.truncate(65 * 2**20)
        elif target == "empty.msh":
            (folder / target).write_bytes(b"")
        elif target == "fifo.msh":
            os.mkfifo(folder / target)
        elif target == "garbage.vtu":
            (folder / target).write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(4096))))
        spans = [m.span() for m in BEAM_LENGTH.finditer(text)]
        a, b = rng.choice(spans)
        text = text[:a] + f'beam = {{mesh = "{target}",' + text[b:]
    elif kind == "out folder":
        target = rng.choice(["users", "link", "file", "devnull"])
        out = {"users": folder / "users", "link": folder / "link", "file": folder / "file.txt",
               "devnull": "/dev/null"}[target]
        if target in ("users", "link"):
            guarded.append(users_folder(folder / "users"))
        if target == "link":
            out.symlink_to(folder / "users")
            guarded.append(out)
        if target == "file":
            out.write_text("keep me\n")
            guarded.append(out)
        argvs = [[str(out) if word == "OUT" else word for word in run]]
    elif kind == "sweep folder":
        out = folder / "sweep"
        what = rng.choice(["users", "empty plan", "garbage plan"])
        if what == "users":
            users_folder(out)
        else:
            out.mkdir()
            (out / ".femdyn").write_text("made by femdyn\n")
            (out / "sweep.json").write_bytes(b"" if what == "empty plan" else bytes(rng.randrange(256) for _ in range(64)))
        guarded.append(out)
        argvs = [["sweep", "CASE", "--param", f"solver.dt={dt!r},{dt / 2!r}", "--t-end", repr(2 * dt), "--out",
                  str(out), "--quiet", "--no-plots"]]
    return kind, text.encode(), argvs, guarded


def snapshot(paths):
    """The bytes (or link target) and modification time of everything at and under ``paths``."""
    state = {}
    for root in paths:
        for path in [root, *(root.rglob("*") if root.is_dir() and not root.is_symlink() else ())]:
            info = os.lstat(path)
            content = (os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None)
            state[str(path)] = (content, info.st_mtime_ns)
    return state


def judge(label, argv, code, stderr, caught, out, before, after):
    """The problem with the outcome of one command (None: clean), and its outcome's name."""
    if code not in (0, 1, 2) or "Traceback" in stderr or caught:
        return f"{label}: exit {code}, {stderr.strip()[-300:]!r}, warnings {caught}", "traceback"
    if code == 2 and not (stderr.startswith("error: ") and stderr.count("\n") == 1):
        return f"{label}: a refusal of more than one line: {stderr!r}", "multi-line refusal"
    if before != after:
        changed = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
        return f"{label}: exit {code} changed {changed[:5]}", "changed files"
    if code == 0 and argv[0] == "run":
        summary = strict((out / "summary.json").read_text())
        tables = [p.name for p in out.glob("*.csv") if not finite_csv(p)]
        if not summary["complete"] or tables:
            return f"{label}: exit 0 with complete {summary['complete']}, non-finite {tables}", "exit 0 non-finite"
    return None, {0: "ran", 1: "stopped early", 2: "refused"}[code]


HOSTILE = 10  # variants per shipped case (CI: 200, about 10 s); tests/cli/fuzz_many.py runs any number


def test_hostile_inputs_are_refused_in_one_line_or_run_cleanly(tmp_path):
    cases = sorted(CASES.glob("*.toml"))
    tally, problems = {}, []
    for original in cases:
        text = original.read_text()
        dt = load_case(original).settings.dt
        rng = random.Random(f"femdyn hostile {original.name}")
        for variant in range(HOSTILE):
            folder = tmp_path / f"{original.stem}-{variant}"
            folder.mkdir()
            kind, data, argvs, guarded = hostile(text, rng, folder, dt)
            case = folder / original.name
            case.write_bytes(data)
            for argv in argvs:
                out = folder / "out"
                argv = [str(case) if w == "CASE" else str(out) if w == "OUT" else w for w in argv]
                before = snapshot([case, *guarded])
                code, _, stderr, caught = run(argv)
                problem, outcome = judge(f"{original.name} #{variant} ({kind}): {argv[0]}", argv, code, stderr, caught,
                                         out, before, snapshot([case, *guarded]))
                tally[kind, outcome] = tally.get((kind, outcome), 0) + 1
                if problem:
                    problems.append(problem)
                shutil.rmtree(out, ignore_errors=True)
    assert not problems, "\n".join(problems)
    assert sum(tally.values()) >= 60 and any(o == "refused" for _, o in tally)


# --- tampered result folders given to --resume ---------------------------------------------------------

JUNK = [None, -1, 2**70, "x\ny", [], {}, 1e308, 0.5, True, "../../etc/passwd", "history.csv", "/tmp/victim"]


def tamper(folder, rng, victim):
    """One seeded damage to the stopped run's folder ``folder``: its kind."""
    kind = rng.choice(["meta", "meta", "table", "delete", "link", "arrays", "bytes"])
    tables = sorted(p.name for p in folder.glob("*.csv"))
    if kind in ("meta", "arrays"):
        with np.load(folder / "checkpoint.npz") as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(str(arrays["meta"]))
        if kind == "meta":
            key = rng.choice(sorted(meta))
            junk = rng.choice(JUNK)
            if isinstance(meta[key], dict) and meta[key] and rng.random() < 0.6:
                inner = rng.choice(sorted(meta[key]) + [str(victim), "../victim.txt"])
                meta[key][inner] = junk if rng.random() < 0.5 else rng.choice([0, 3, 10**6])
            elif isinstance(meta[key], list) and meta[key] and rng.random() < 0.6:
                entry = rng.randrange(len(meta[key]))
                meta[key][entry] = junk if rng.random() < 0.5 else [0.0, 0, rng.choice(["../x.vtu", "vtk/frame_99999.vtu"])]
            else:
                meta[key] = junk
            arrays["meta"] = np.array(json.dumps(meta))
        else:
            name = rng.choice(sorted(arrays))
            arrays[name] = rng.choice([np.zeros(0), np.full(3, np.nan), np.array("text"), np.zeros((2, 2)),
                                       np.resize(arrays[name], max(arrays[name].size - 1, 0)), np.array(2**62)])
        np.savez(folder / "checkpoint.npz", **arrays)
    elif kind == "table":
        path = folder / rng.choice(tables)
        data = bytearray(path.read_bytes())
        at = rng.randrange(len(data))
        if rng.random() < 0.5:
            del data[at:]
        else:
            data[at:at + 4] = bytes(rng.randrange(256) for _ in range(4))
        path.write_bytes(bytes(data))
    elif kind == "delete":
        path = rng.choice([p for p in folder.rglob("*") if p.is_file()])
        path.unlink()
    elif kind == "link":
        name = rng.choice([*tables, ".incomplete.json.partial", ".lock", "motion.pvd", "vtk/frame_00000.vtu",
                           ".summary.json.partial"])
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to(victim)
    else:
        path = folder / "checkpoint.npz"
        data = bytearray(path.read_bytes())
        for _ in range(rng.randrange(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data))
    return kind


TAMPERED = 40  # variants in CI (about 10 s)


def test_tampered_folders_are_refused_untouched_or_resumed_cleanly(made, tmp_path):
    stopped, _ = made
    rng = random.Random("femdyn tampered")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    problems, tally = [], {}
    for variant in range(TAMPERED):
        folder = tmp_path / f"stopped-{variant}"
        shutil.copytree(stopped, folder)
        kind = tamper(folder, rng, victim)
        argv = ["run", str(CASES / "double_pendulum.toml"), "--resume", str(folder), "--quiet", "--no-plots"]
        before = snapshot([folder, victim])
        code, _, stderr, caught = run(argv)
        after = snapshot([folder, victim]) if code == 2 else before
        problem, outcome = judge(f"tampered #{variant} ({kind})", ["resume"], code, stderr, caught, folder, before, after)
        if code == 0:
            problem = problem or (None if all(finite_csv(p) for p in folder.glob("*.csv")) else f"#{variant}: non-finite")
        assert victim.read_text() == "precious\n", f"#{variant} ({kind}) wrote the file outside the folder"
        tally[kind, outcome] = tally.get((kind, outcome), 0) + 1
        if problem:
            problems.append(problem)
    assert not problems, "\n".join(problems)
    assert any(o == "refused" for _, o in tally)
