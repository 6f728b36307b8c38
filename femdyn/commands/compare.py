"""``femdyn compare DIR DIR ..``: overlay the same columns of a CSV of several result folders in one PNG
(e.g. the servo inputs of a case with and without joint friction, 001 Fig. 5a). A folder whose run is
still going, or was killed or interrupted (``incomplete.json``), is read up to its last valid row."""
import sys
from pathlib import Path

import json

from ..casefile.case import CaseError, load_case
from ..post.folders import valid_rows
from ..post.plots import PROBE_LABELS, label, plot_lines
from ..io.tables import STATUS, read_csv
from ..io.units import COORDINATES, INPUTS, coordinate_kind
from .output import say

HISTORY = {**dict.fromkeys(("kinetic", "potential", "total", "work", "dissipation", "energy_balance"),
                           label("energy", "J")),
           **{f"momentum_{a}": label("linear momentum", "kg m/s") for a in "xyz"},
           **{f"angular_momentum_{a}": label("angular momentum", "kg m^2/s") for a in "xyz"},
           "newton_iterations": label("Newton iterations", "1")}
BODIES = {**{a: label("position", "m") for a in "xyz"}, "angle": label("angle", "rad"),
          **{f"d{k}{a}": label("director component", "1") for k in "123" for a in "xyz"}}


def _kinds(folder):
    """{joint coordinate: "angle" or "slide"} of the case the run in ``folder`` was made from (named in
    its summary.json or incomplete.json); {} if that case cannot be read now."""
    for name in ("summary.json", "incomplete.json"):
        try:
            model = load_case(json.loads((folder / name).read_text())["case"]).model
            return {c: coordinate_kind(model, c) for c in model.joint_coordinates}
        except (OSError, ValueError, KeyError, TypeError, CaseError):
            continue
    return {}


def column_label(table, column, kinds):
    """The axis label (quantity [unit]) of ``column`` of ``table``; the joint coordinates and inputs by
    their ``kinds``, "[rad or m]" / "[N m or N]" where the case is not known."""
    if table in ("probes", "bodies"):
        return (PROBE_LABELS if table == "probes" else BODIES)[column.split(".", 1)[-1]]
    if table == "inputs":
        return label(*INPUTS[kinds[column]]) if column in kinds else label("servo input", "N m or N")
    if column in HISTORY:
        return HISTORY[column]
    if column == "constraint_residual":
        return label("constraint residual", "m or 1")
    rate = column.endswith("_rate") and column not in kinds
    name = column.removesuffix("_rate") if rate else column
    quantity, unit = COORDINATES[kinds[name]] if name in kinds else ("joint coordinate", "rad or m")
    return label(f"{quantity} rate", f"{unit}/s") if rate else label(quantity, unit)


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
        columns = args.columns or [c for c in table if c not in ("t", STATUS)]
        if not columns:
            raise CaseError(path, "columns", "nothing to plot (the table has only t)")
        missing = [c for c in columns if c not in table]
        if missing or "t" not in table:
            raise CaseError(path, "columns", f"no column {', '.join(missing or ['t'])} "
                            f"(has: {', '.join(table)})")
        kinds = _kinds(folder) if args.table in ("inputs", "history") else {}
        runs += [(f"{c}, {folder.name}", table["t"], table[c], column_label(args.table, c, kinds)) for c in columns]
    if args.out.suffix.lower() != ".png":
        raise CaseError(args.out, "--out", "the plot is written as PNG: give a file name ending in .png")
    try:
        plot_lines(args.out, runs, " vs ".join(f.name for f in args.folders))
    except OSError as err:
        raise CaseError(args.out, "--out", f"cannot write ({err.strerror or err})") from None
    say(f"wrote {args.out}")
    return 0
