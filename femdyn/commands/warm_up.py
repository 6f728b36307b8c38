"""``femdyn warm-up``: compile femdyn's kernels into numba's on-disk cache ahead of the first run
(``api.warm_up``, which says which shipped cases it runs and why)."""
import sys

from ..api.warm_up import CASES, warm_up
from .output import say


def add(commands):
    """Add the ``warm-up`` subcommand (its arguments and handler) to ``commands``."""
    parser = commands.add_parser(
        "warm-up", help="compile the kernels into numba's cache (once after installing, a few minutes)",
        description="Run two steps of shipped cases, so that numba compiles femdyn's kernels and keeps the "
        "machine code on disk: a later run starts without compiling. Exit code 1 if a case fails "
        "(its kernels then compile on first use).")
    parser.set_defaults(handler=handle)


def handle(args):
    say("compiling femdyn's kernels into numba's cache: two steps of shipped cases with each integrator "
        "(a few minutes the first time, seconds when they are cached)")
    result = warm_up(lambda name: say(f"  {name}"))
    for name, message in result.failed.items():
        print(f"warning: warm-up run of {CASES / name}.toml failed: {message}", file=sys.stderr)
    say(f"kernels ready in {result.seconds:.1f} s ({len(result.cases) - len(result.failed)} of {len(result.cases)} "
        "cases ran)")
    return 0 if result.ok else 1
