"""Any number of seeded fuzz variants over the shipped cases, of every class of ``test_fuzz`` -- its
mutations, the hostile inputs of issue 33 and tampered result folders given to ``--resume`` --, each run
in this process with watchdogs that count a command as a hang after ``--timeout`` seconds of CPU time
(SIGPROF: on a loaded machine wall time says little) or ten times that of wall time (SIGALRM: a command
that waits without computing).
Prints the count of every outcome (ran, stopped early, refused in one line; and the problems: traceback,
multi-line refusal, changed files, exit 0 with a non-finite number, hang) by class, and the problems.
Not part of the test suite (its CI share is ``test_fuzz``); run it from the repository:

    python tests/cli/fuzz_many.py --variants 500 --seed 33
"""
import argparse
import random
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from shared import CASES  # noqa: E402
from test_fuzz import hostile, judge, mutate, run, snapshot, tamper  # noqa: E402
from test_untrusted_folders import stop_run  # noqa: E402

from femdyn.casefile.case import load_case  # noqa: E402


class Hang(BaseException):
    """A command that ran past the watchdog's time."""


def _alarm(signum, frame):
    raise Hang(signal.Signals(signum).name)


def variant(number, seed, cases, work, stopped, victim):
    """Run fuzz variant ``number``: (class, [(label, problem, outcome)])."""
    rng = random.Random(f"femdyn fuzz many {seed} {number}")
    original = cases[number % len(cases)]
    text, dt = original.read_text(), load_case(original).settings.dt
    folder = work / f"{number:04d}"
    folder.mkdir()
    kind = rng.choices(["mutation", "hostile", "tampered"], [0.4, 0.45, 0.15])[0]
    guarded = []
    resumed = folder / "stopped"
    if kind == "tampered":
        shutil.copytree(stopped, resumed)
        what = tamper(resumed, rng, victim)
        data, guarded = None, [resumed, victim]
        argvs = [["run", str(CASES / "double_pendulum.toml"), "--resume", str(resumed), "--quiet", "--no-plots"]]
    elif kind == "mutation":
        what, data = mutate(text, rng)
        argvs = [["check", "CASE"], ["run", "CASE", "--t-end", repr(2 * dt), "--out", "OUT", "--quiet", "--no-plots"]]
    else:
        what, data, argvs, guarded = hostile(text, rng, folder, dt)
    case = folder / original.name
    if data is not None:
        case.write_bytes(data)
        guarded = [case, *guarded]
    results = []
    for argv in argvs:
        out = folder / "out"
        argv = [str(case) if w == "CASE" else str(out) if w == "OUT" else w for w in argv]
        label = f"#{number} {original.name} ({kind}: {what}): {' '.join(argv)[:200]}"
        before = snapshot(guarded)
        start, cpu = time.monotonic(), time.process_time()
        signal.setitimer(signal.ITIMER_PROF, TIMEOUT)
        signal.alarm(10 * TIMEOUT)
        try:
            code, _, stderr, caught = run(argv)
        except Hang as which:
            what = f"{TIMEOUT} s of CPU time" if str(which) == "SIGPROF" else f"{10 * TIMEOUT} s of wall time"
            results.append((label, f"{label}: ran past {what}", "hang"))
            continue
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.alarm(0)
        SLOWEST[0] = max(SLOWEST[0], (time.process_time() - cpu, label))
        after = snapshot(guarded) if code == 2 or kind != "tampered" else before
        target = resumed if kind == "tampered" else out
        problem, outcome = judge(label, argv if kind != "tampered" else ["resume"], code, stderr, caught, target,
                                 before, after)
        if kind == "tampered" and code == 0 and problem is None:
            problem, outcome = judge(label, ["run"], code, stderr, caught, target, before, after)
        results.append((label, problem, outcome))
        if time.monotonic() - start > 60:
            print(f"slow: {label}: {time.monotonic() - start:.0f} s", flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    return kind, results


TIMEOUT = 60
SLOWEST = [(0.0, "")]  # the most CPU time a command took, and the command


def main():
    global TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", type=int, default=500)
    parser.add_argument("--seed", default="33")
    parser.add_argument("--timeout", type=int, default=60, help="seconds of CPU time a command may take (default 60)")
    parser.add_argument("--only", type=int, nargs="+", help="run only these variants (their numbers)")
    args = parser.parse_args()
    TIMEOUT = args.timeout
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGPROF, _alarm)
    cases = sorted(CASES.glob("*.toml"))
    tally, problems, started = {}, [], time.monotonic()
    with tempfile.TemporaryDirectory(prefix="femdyn-fuzz-") as work:
        work = Path(work)
        stopped = stop_run(work)[0]
        victim = work / "victim.txt"
        victim.write_text("precious\n")
        for number in args.only or range(args.variants):
            kind, results = variant(number, args.seed, cases, work, stopped, victim)
            for label, problem, outcome in results:
                tally.setdefault(kind, {}).setdefault(outcome, 0)
                tally[kind][outcome] += 1
                if problem:
                    problems.append(problem)
                    print(f"PROBLEM {problem}", flush=True)
            if victim.read_text() != "precious\n":
                problems.append(f"#{number}: the file outside the folders was changed")
                victim.write_text("precious\n")
            if number % 25 == 24:
                print(f"{number + 1} variants, {time.monotonic() - started:.0f} s, {len(problems)} problems", flush=True)
    commands = sum(sum(t.values()) for t in tally.values())
    print(f"\n{args.variants} variants (seed {args.seed!r}), {commands} commands in {time.monotonic() - started:.0f} s")
    for kind, outcomes in sorted(tally.items()):
        print(f"  {kind:9s} " + ", ".join(f"{name} {count}" for name, count in sorted(outcomes.items())))
    totals = {}
    for outcomes in tally.values():
        for name, count in outcomes.items():
            totals[name] = totals.get(name, 0) + count
    print("  all       " + ", ".join(f"{name} {count}" for name, count in sorted(totals.items())))
    for name in ("traceback", "hang", "multi-line refusal", "exit 0 non-finite", "changed files"):
        print(f"  {name}: {totals.get(name, 0)}")
    print(f"  the most CPU time of a command: {SLOWEST[0][0]:.1f} s ({SLOWEST[0][1][:160]})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
