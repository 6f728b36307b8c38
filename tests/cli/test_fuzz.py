"""Mutation fuzzing of every shipped case: seeded mutations (deleted keys, wrong types, zero, negative,
NaN, infinite and 1e+-300 numbers, unknown names and keys, duplicated bodies, disconnected and redundant
joints, truncated and binary files), each run through ``femdyn check`` and a short ``femdyn run`` in this
process. Whatever the input: the exit code is 0, 1 or 2, no traceback and no warning reaches the user, a
refusal is one line, an exit-0 result holds only finite numbers and strict JSON, and exit 2 leaves
nothing behind."""
import contextlib
import io
import json
import random
import re
import warnings

import numpy as np
import pytest
from shared import CASES

from femdyn.cli import main
from femdyn.io.case import load_case

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
    lines = path.read_text().splitlines()
    values = np.array([line.split(",") for line in lines[1:]], dtype=float)
    return np.isfinite(values).all()


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
