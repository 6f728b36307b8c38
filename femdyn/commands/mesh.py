"""``femdyn mesh FILE``: write the centre line of a straight beam of N equal elements (``io.meshes``)."""
from pathlib import Path

from ..casefile.case import CaseError
from ..io.meshes import write_straight_beam
from .arguments import elements, finite_float, positive_float
from .output import say


def add(commands):
    """Add the ``mesh`` subcommand (its arguments and handler) to ``commands``."""
    mesh = commands.add_parser(
        "mesh", help="write a straight-beam centre-line mesh",
        description="Write the centre line of a straight beam of N equal elements (line cells) as VTK "
        ".vtu or gmsh .msh, for flexible links.")
    mesh.add_argument("out", metavar="FILE", type=Path, help="mesh file to write (.vtu or .msh)")
    mesh.add_argument("--length", type=positive_float, required=True, help="beam length")
    mesh.add_argument("--elements", type=elements, required=True, metavar="N", help="number of elements")
    mesh.add_argument("--start", type=finite_float, nargs=2, default=(0.0, 0.0), metavar=("X", "Y"),
                      help="first node (default 0 0)")
    mesh.add_argument("--angle", type=finite_float, default=0.0,
                      help="direction from the x axis in radians (default 0)")
    mesh.set_defaults(handler=handle)


def handle(args):
    try:
        path = write_straight_beam(args.out, args.length, args.elements, args.start, args.angle)
    except ValueError as err:
        raise CaseError(args.out, "file", str(err).removeprefix(f"{args.out}: ")) from None
    except OSError as err:
        raise CaseError(args.out, "file", f"cannot write ({err.strerror or err})") from None
    say(f"wrote {path}: {args.elements} elements, length {args.length:g}")
    return 0
