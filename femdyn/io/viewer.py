"""``femdyn view``: the ParaView series of a result folder (``motion.pvd``) in pyvista.

Interactively, one frame is shown with a time slider; with a screenshot file one frame is rendered
off-screen to a PNG. Off-screen rendering goes through VTK's EGL (or OSMesa) window, which needs the
system's OpenGL libraries (on Debian: libegl1, libegl-mesa0, libgl1-mesa-dri; ``setup.sh`` installs
them). Where they are missing VTK crashes the process rather than raising, so the frame is rendered in
a child process (``python -m femdyn.io.viewer``) and a crash becomes a one-line error.
"""
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from .case import CaseError

SERIES = "motion.pvd"
WINDOW = (1024, 768)  # pixels of the window and of screenshots
LINE_WIDTH = 5  # pixels, for the centre lines of flexible bodies
GL_PACKAGES = "libegl1 libegl-mesa0 libgl1-mesa-dri"  # Debian packages for off-screen rendering


def series_times(result):
    """The ``motion.pvd`` of a result folder (or the file itself) and its sorted frame times;
    CaseError if it is missing, unreadable or empty, or a file it lists is missing (``frame_files``)."""
    result = Path(result)
    if not result.exists():
        raise CaseError(result, "folder", "not found")
    pvd = result / SERIES if result.is_dir() else result
    if not pvd.is_file():
        raise CaseError(result, SERIES, "not found: the run wrote no ParaView series (run without --no-vtk)")
    return pvd, sorted(frame_files(pvd))


def frame_files(pvd):
    """{time: [paths of the frame's data sets]} of the collection ``pvd``; CaseError if it cannot be
    read, has no frames, a time that is not finite or lists a file that is missing."""
    try:
        datasets = [(float(d.attrib["timestep"]), d.attrib["file"]) for d in ET.parse(pvd).getroot().iter("DataSet")]
    except (ET.ParseError, KeyError, ValueError, OSError) as err:
        raise CaseError(pvd, "file", f"not a ParaView collection ({err})") from None
    if not datasets:
        raise CaseError(pvd, "file", "the collection has no frames")
    frames = {}
    for time, name in datasets:
        if not math.isfinite(time):
            raise CaseError(pvd, "timestep", f"the data set {name} has the time {time}, not a finite number")
        if not os.path.isfile(pvd.parent / name):
            raise CaseError(pvd.parent / name, "file", f"not found (a data set of {pvd} at t = {time:g})")
        frames.setdefault(time, []).append(pvd.parent / name)
    return frames


def check_frame(pvd, times, frame):
    """The frame index (default: the last frame); CaseError if out of range."""
    if frame is None:
        return len(times) - 1
    if not 0 <= frame < len(times):
        raise CaseError(pvd, "--frame", f"must be between 0 and {len(times) - 1} (the series has "
                        f"{len(times)} frames), got {frame}")
    return frame


def read_frame(pvd, time):
    """The data sets (parts) of the frame at ``time``; CaseError naming a file that cannot be read or
    holds no points."""
    import pyvista as pv
    from vtkmodules.vtkCommonCore import vtkObject

    blocks = []
    shown = vtkObject.GetGlobalWarningDisplay()
    vtkObject.GlobalWarningDisplayOff()  # VTK's many-line log of a bad file: reported here in one line
    try:
        for path in frame_files(pvd)[time]:
            try:
                blocks.append(pv.get_reader(path).read())
            except (OSError, ValueError, RuntimeError) as err:
                raise CaseError(path, "file", f"cannot be read ({' '.join(str(err).split())})") from None
            if not blocks[-1].n_points:
                raise CaseError(path, "file", "holds no points: not a VTK file, or an empty one")
    finally:
        vtkObject.SetGlobalWarningDisplay(shown)
    return blocks


def check_scalars(pvd, blocks, scalars):
    """CaseError if ``scalars`` (None: colour by body) is no point or cell array of the frame."""
    known = sorted({name for b in blocks for name in b.array_names})
    if scalars is not None and scalars not in known:
        raise CaseError(pvd, "--scalars", f"no array '{scalars}' (known: {', '.join(known) or 'none'})")


def _magnitude(values):
    """Scalars as they are, vectors by their length."""
    return values if values.ndim == 1 else np.linalg.norm(values, axis=1)


def _draw(plotter, blocks, scalars, title):
    """Add the frame's blocks to ``plotter`` (replacing an earlier frame's), coloured by ``scalars``
    on a common range, or by body id."""
    name = scalars or "body_id"
    values = [_magnitude(np.asarray(b[name])) for b in blocks if name in b.array_names]
    clim = [min(v.min() for v in values), max(v.max() for v in values)] if values else None
    for k, block in enumerate(blocks):
        if name in block.array_names:
            colour = dict(scalars=name, clim=clim, cmap="viridis" if scalars else "tab10",
                          show_scalar_bar=bool(scalars))
        else:
            colour = dict(color="lightgrey")
        plotter.add_mesh(block, name=f"part{k}", line_width=LINE_WIDTH, reset_camera=False,
                         show_edges=block.GetMaxSpatialDimension() > 1, **colour)
    plotter.add_text(title, name="title", font_size=10)


def _camera(plotter, blocks):
    """Look at the x-y plane for planar results, from an oblique direction otherwise."""
    if all(b.bounds[5] - b.bounds[4] <= 1e-12 for b in blocks):
        plotter.view_xy()
        plotter.enable_parallel_projection()
    else:
        plotter.view_isometric()
    plotter.reset_camera()


def _title(pvd, times, frame):
    return f"{pvd.parent.name}: t = {times[frame]:.6g} (frame {frame} of {len(times) - 1})"


def render_png(pvd, times, frame, png, scalars=None):
    """Render frame ``frame`` of the series off-screen into ``png``; CaseError if that fails, a crash
    of VTK in the rendering child process included."""
    png = Path(png)
    if png.suffix.lower() != ".png":
        raise CaseError(png, "--screenshot", "the screenshot is written as PNG: give a file name ending in .png")
    check_scalars(pvd, read_frame(pvd, times[frame]), scalars)
    package = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    child = subprocess.run([sys.executable, "-m", "femdyn.io.viewer", str(pvd), repr(times[frame]), str(png),
                            scalars or "", _title(pvd, times, frame)],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if child.returncode < 0:
        raise CaseError(png, "--screenshot", f"off-screen rendering crashed (signal {-child.returncode}): "
                        f"VTK needs the OpenGL libraries (Debian: {GL_PACKAGES}; see setup.sh)")
    if child.returncode:
        lines = child.stderr.strip().splitlines() or ["off-screen rendering failed"]
        raise CaseError(png, "--screenshot", lines[-1])


def _render_child(pvd, time, png, scalars, title):
    """In the child process: render the frame at ``time`` into ``png``; an error is one line on
    stderr and exit code 1."""
    import pyvista as pv
    from vtkmodules.vtkCommonCore import vtkLogger

    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)  # not the warning of the X-server probe
    try:
        blocks = read_frame(Path(pvd), float(time))
        plotter = pv.Plotter(off_screen=True, window_size=WINDOW)
        _draw(plotter, blocks, scalars or None, title)
        _camera(plotter, blocks)
        plotter.screenshot(png)
        plotter.close()
    except Exception as err:  # noqa: BLE001  (VTK, the file system: reported in one line)
        print(f"cannot render: {err}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


def show(pvd, times, frame, scalars=None):
    """Open the series in an interactive window at ``frame``, with a time slider."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise CaseError(pvd, "display", "no display to open a window on (DISPLAY is not set); "
                        "use --screenshot FILE.png to render a frame off-screen")
    import pyvista as pv

    blocks = read_frame(pvd, times[frame])
    check_scalars(pvd, blocks, scalars)
    plotter = pv.Plotter(window_size=WINDOW, title=f"femdyn view {pvd.parent.name}")
    _draw(plotter, blocks, scalars, _title(pvd, times, frame))
    _camera(plotter, blocks)

    def to_time(value):
        """Slider callback: show the frame nearest to time ``value``."""
        k = int(np.argmin(np.abs(np.asarray(times) - value)))
        _draw(plotter, read_frame(pvd, times[k]), scalars, _title(pvd, times, k))

    if len(times) > 1:
        plotter.add_slider_widget(to_time, [times[0], times[-1]], value=times[frame], title="t",
                                  pointa=(0.25, 0.08), pointb=(0.75, 0.08), fmt="%.4g")
    plotter.show()


if __name__ == "__main__":  # the rendering child process of ``render_png``
    sys.exit(_render_child(*sys.argv[1:]))
