"""Command line: ``femdyn run CASE`` simulates a case into a result folder (``--resume DIR`` continues a
killed or interrupted run), ``femdyn invert CASE`` solves its servo problem by stable inversion,
``femdyn static CASE`` and ``femdyn modes CASE`` solve its static equilibrium and the natural modes
there, ``femdyn linearize CASE`` writes the linear plant there, ``femdyn compare`` overlays result
folders' columns in one figure, ``femdyn bench`` runs convergence studies, ``femdyn mesh`` writes a
straight beam's centre-line mesh, ``femdyn check CASE`` validates a case and describes the model (the
commands that read a case take ``--flexible``/``--elements``/``--segments`` overriding its flexible
bodies), ``femdyn sensitivity CASE`` differentiates a probe's motion with respect to the beam
parameters, ``femdyn sweep CASE`` runs parameter sweeps and that study on Dask (``sweep``), ``femdyn map
CASE`` maps sag, compliance, frequencies, efforts and conditioning over a grid of poses on Dask
(``map``), ``femdyn view RESULT`` shows a result's ParaView series, ``femdyn warm-up`` compiles the kernels into numba's
cache. Each subcommand is a module of ``commands``; this module assembles the parser and dispatches.
Bad input is reported as one line ``error: <file>: <field>: <message>`` on stderr with exit code 2.

The subcommands (and NumPy, SciPy with them) are imported inside ``main``, after the stop signals are
taken over (``post.interrupt.Signals``: Ctrl-C, SIGTERM and SIGHUP alike), so that a signal during the
start-up imports ends the command with one line instead of a traceback. NumPy's floating-point warnings
are silenced: what they would warn of -- a number that overflows or is not finite -- is checked where it
matters and reported in one line (a refused input, or a run stopped at the step that has it).

Exit codes: 0 done, 1 the run stopped early (Newton failure, a step that is no solution) or the results
could not be written, 2 bad input or a refused output folder, 3 a sweep whose samples failed (their
table on stderr) or a map whose points failed, 128 + the signal's number after Ctrl-C (130), SIGTERM
(143) or SIGHUP (129).
"""
import argparse
import gc
import importlib
import sys

from . import __version__
from .post.interrupt import Signals

EPILOG = ("exit codes: 0 done, 1 the run stopped early or its results could not be written, 2 bad input or "
          "a refused output folder, 3 a sweep with failed samples, 128 + signal number when interrupted "
          "(130 Ctrl-C, 143 SIGTERM, 129 SIGHUP)")


class _Parser(argparse.ArgumentParser):
    """Reports usage errors in one line."""

    def error(self, message):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


COMMANDS = ("run", "invert", "static", "modes", "linearize", "compare", "bench", "mesh", "check", "sensitivity", "sweep",
            "map", "view", "warm_up")  # the modules of ``commands``, in --help order (``warm-up``: warm_up)


def _parser(argv):
    """The parser of the command line ``argv``: of the subcommand it starts with alone (its module the only
    one imported: the others cost a run 0.04 s), else of all of them (--help, --version, usage errors)."""
    first = argv[0].replace("-", "_") if argv[:1] else None
    names = [first] if first in COMMANDS else COMMANDS
    parser = _Parser(prog="femdyn", description="Energy-momentum dynamics of parallel manipulators "
                     "(rigid director bodies, flexible FFR beams). Cases are TOML files; see femdyn/casefile/case.py.",
                     epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"femdyn {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in names:
        importlib.import_module(f"{__package__}.commands.{name}").add(commands)
    return parser


UNUSED_NUMPY = ("numpy.f2py", "numpy.testing", "numpy.ma", "numpy.random")  # see ``_defer_unused_numpy``


def _defer_unused_numpy():
    """Register NumPy's submodules ``UNUSED_NUMPY`` as loaded on first use (``numerics.lazy.deferred``)
    where they are not loaded yet: SciPy (1.17, ``scipy._lib.array_api_compat.numpy``) asks NumPy for every
    name it has as it is imported, and so imports each of NumPy's lazily loaded submodules, these four
    (f2py with its Fortran parser) 0.1-0.2 s of CPU of every command, though no command uses them. A
    module registered here is the same module: its code runs when a name of it is first looked up."""
    from .numerics.lazy import deferred

    for name in UNUSED_NUMPY:
        if name not in sys.modules:
            deferred(name)


def _run(argv, signals):
    _defer_unused_numpy()
    import numpy as np

    from .casefile.case import CaseError

    try:
        words = sys.argv[1:] if argv is None else argv
        args = _parser(words).parse_args(words)
    except SystemExit as done:  # --help, --version and usage errors
        return int(done.code or 0)
    args.signals = signals
    if argv is None:  # the modules imported so far live as long as the process: no collection need walk them
        gc.freeze()
        gc.enable()  # off while they were imported (``main``)
    try:
        with np.errstate(all="ignore"):
            return args.handler(args)
    except CaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def _interrupted(code):
    print("interrupted", file=sys.stderr)
    return code


def main(argv=None):
    """Run the command line ``argv`` (default: sys.argv[1:]); returns the exit code. Run as the command
    (``argv`` None: the process ends next), it moves the objects alive into the garbage collector's
    permanent generation (``gc.freeze``) once the command's modules are imported and again at the end:
    the collections during the run (0.05 s of a short one) and those of the interpreter's exit (0.18-0.3 s)
    then skip the heap of NumPy, SciPy and matplotlib; the atexit handlers and the flushing of the output
    streams stay. Its collector is off until the command's modules are imported and frozen: collections then
    would only walk objects that live as long as the process (0.03 s of CPU). Called with ``argv`` (in a
    process that goes on), it freezes nothing and leaves the collector as it is. A stop signal ends it with
    128 + the signal's number and the one line 'interrupted' also where the signal landed inside a library's
    import: NumPy turns it into an ImportError, importlib's module-lock callbacks swallow it (4 in 150
    signals sent at random times during the start-up imports)."""
    if argv is None:
        gc.disable()
    signals = Signals()
    try:  # also a signal that arrives as the handlers are being set
        with signals:
            code = _run(argv, signals)
    except KeyboardInterrupt as err:
        code = _interrupted(128 + getattr(err, "signum", 2))
    except Exception:  # only as the consequence of a stop signal; any other error goes on as it was
        if not signals.seen:
            raise
        code = _interrupted(signals.exit_code)  # an import the signal broke: NumPy's ImportError
    else:
        if signals.seen and code == 0:  # a signal that an import's callback swallowed
            code = _interrupted(signals.exit_code)
    if argv is None:
        gc.freeze()
    return code
