"""``femdyn compare DIR DIR ..``: overlay the same columns of a CSV of several result folders in one PNG
(e.g. the servo inputs of a case with and without joint friction, 001 Fig. 5a). A folder whose run is
still going, or was killed or interrupted (``incomplete.json``), is read up to its last valid row."""
import sys
from pathlib import Path

from ..io.case import CaseError
from ..io.plots import plot_overlay
from ..io.results import valid_rows
from ..io.tables import read_csv
from .output import say


def add(commands):
    """Add the ``compare`` subcommand (its arguments and handler) to ``commands``."""
    compare = commands.add_parser(
        "compare", help="overlay a quantity from several result folders in one plot",
        description="Read the same CSV from several result folders (e.g. a case with and without joint "
        "friction, 001 Fig. 5a) and overlay its columns in one PNG.")
    compare.add_argument("folders", metavar="DIR", type=Path, nargs="+", help="result folders of femdyn run")
    compare.add_argument("--table", default="inputs", choices=("inputs", "reactions", "history", "bodies", "probes"),
                         help="which CSV to read (default: inputs, the servo inputs; probes: e.g. the end effector of a rigid and a flexible run)")
    compare.add_argument("--columns", nargs="+", metavar="NAME",
                         help="columns to plot (default: all but t; for history: the joint coordinates)")
    compare.add_argument("--out", type=Path, default=Path("comparison.png"), metavar="PNG",
                         help="plot file (default: comparison.png)")
    compare.set_defaults(handler=handle)


def handle(args):
    runs = []
    for folder in args.folders:
        path = folder / f"{args.table}.csv"
        rows, until = valid_rows(folder, path.name)
        if rows is not None:
            print(f"note: {folder} is incomplete (a run going on, killed or interrupted): valid up to t = {until}",
                  file=sys.stderr)
        try:
            table = read_csv(path, rows)
        except OSError as err:
            raise CaseError(path, "file", f"cannot read ({err.strerror or err})") from None
        except ValueError as err:
            raise CaseError(path, "file", f"not a femdyn table ({err})") from None
        columns = args.columns or [c for c in table if c != "t"]
        if not columns:
            raise CaseError(path, "columns", "nothing to plot (the table has only t)")
        missing = [c for c in columns if c not in table]
        if missing or "t" not in table:
            raise CaseError(path, "columns", f"no column {', '.join(missing or ['t'])} "
                            f"(has: {', '.join(table)})")
        runs += [(f"{c}, {folder.name}", table["t"], table[c]) for c in columns]
    if args.out.suffix.lower() != ".png":
        raise CaseError(args.out, "--out", "the plot is written as PNG: give a file name ending in .png")
    try:
        plot_overlay(args.out, runs, args.table, " vs ".join(f.name for f in args.folders))
    except OSError as err:
        raise CaseError(args.out, "--out", f"cannot write ({err.strerror or err})") from None
    say(f"wrote {args.out}")
    return 0
