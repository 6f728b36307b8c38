"""Command line: ``femdyn run CASE`` simulates a case file into a result folder, ``femdyn check CASE``
validates it and describes the model (both with ``--flexible``/``--elements`` overriding the case's
flexible bodies), ``femdyn sensitivity CASE`` differentiates a probe's motion with respect to the beam
parameters, ``femdyn sweep CASE`` runs parameter sweeps and that study on Dask (``sweep``),
``femdyn view RESULT`` shows a result's ParaView series. Each subcommand is a module of ``commands``;
this module assembles the parser and dispatches. Bad input is reported as one line
``error: <file>: <field>: <message>`` on stderr with exit code 2.

Exit codes: 0 done, 1 the run stopped early (Newton failure) or the results could not be written,
2 bad input or a refused output folder, 130 interrupted (Ctrl-C).
"""
import argparse
import sys

from . import __version__
from .commands import bench, check, compare, mesh, run, sensitivity, sweep, view
from .commands.output import INTERRUPTED
from .io.case import CaseError

COMMANDS = (run, compare, bench, mesh, check, sensitivity, sweep, view)  # in the order of --help


class _Parser(argparse.ArgumentParser):
    """Reports usage errors in one line."""

    def error(self, message):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def _parser():
    parser = _Parser(prog="femdyn", description="Energy-momentum dynamics of parallel manipulators "
                     "(rigid director bodies, flexible FFR beams). Cases are TOML files; see femdyn/io/case.py.",
                     epilog="exit codes: 0 done, 1 the run stopped early or its results could not be "
                     "written, 2 bad input or a refused output folder, 130 interrupted")
    parser.add_argument("--version", action="version", version=f"femdyn {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add(commands)
    return parser


def main(argv=None):
    """Run the command line ``argv`` (default: sys.argv[1:]); returns the exit code."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as done:  # --help, --version and usage errors
        return int(done.code or 0)
    try:
        return args.handler(args)
    except CaseError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; no results written", file=sys.stderr)
        return INTERRUPTED
