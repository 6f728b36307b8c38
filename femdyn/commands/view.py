"""``femdyn view RESULT``: a result folder's ParaView series in pyvista, or one frame to a PNG."""
import argparse
from pathlib import Path

from ..post import viewer
from .arguments import finite_float, nonnegative_int
from .extras import require
from .output import say


def _scale(text):
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def add(commands):
    """Add the ``view`` subcommand (its arguments and handler) to ``commands``."""
    view = commands.add_parser(
        "view", help="show a result folder's ParaView series (motion.pvd) in pyvista",
        description="Open RESULT/motion.pvd in an interactive pyvista window with a time slider, or with "
        "--screenshot render one frame off-screen to a PNG and exit.")
    view.add_argument("result", metavar="RESULT", type=Path, help="result folder of femdyn run (or its motion.pvd)")
    view.add_argument("--screenshot", type=Path, metavar="PNG", help="render off-screen into this PNG file")
    view.add_argument("--frame", type=nonnegative_int, metavar="K", help="frame to show (default: the last)")
    view.add_argument("--scalars", metavar="NAME", help="colour by this point or cell array (default: by body)")
    view.add_argument("--scale", type=_scale, default=1.0, metavar="K",
                      help="magnify the elastic deformation of flexible bodies K times about their floating "
                      "frames (default 1; 0 draws the frames' undeformed bodies)")
    view.set_defaults(handler=handle)


def handle(args):
    if require("view"):
        return 2
    pvd, times = viewer.series_times(args.result)
    frame = viewer.check_frame(pvd, times, args.frame)
    if args.screenshot is None:
        viewer.show(pvd, times, frame, args.scalars, args.scale)
        return 0
    viewer.render_png(pvd, times, frame, args.screenshot, args.scalars, args.scale)
    magnified = f", deformation magnified {args.scale:g} times" if args.scale != 1 else ""
    say(f"wrote {args.screenshot}: frame {frame} of {len(times) - 1}, t = {times[frame]:g}{magnified}")
    return 0
