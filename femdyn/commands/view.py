"""``femdyn view RESULT``: a result folder's ParaView series in pyvista, or one frame to a PNG."""
from pathlib import Path

from ..io import viewer
from .arguments import nonnegative_int
from .output import say


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
    view.set_defaults(handler=handle)


def handle(args):
    pvd, times = viewer.series_times(args.result)
    frame = viewer.check_frame(pvd, times, args.frame)
    if args.screenshot is None:
        viewer.show(pvd, times, frame, args.scalars)
        return 0
    viewer.render_png(pvd, times, frame, args.screenshot, args.scalars)
    say(f"wrote {args.screenshot}: frame {frame} of {len(times) - 1}, t = {times[frame]:g}")
    return 0
