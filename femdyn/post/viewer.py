"""``femdyn view``: the ParaView series of a result folder (``motion.pvd``) in pyvista.

Interactively, one frame is shown with a time slider; with a screenshot file one frame is rendered
off-screen to a PNG. What is drawn (``geometry``): rigid bodies as their boxes; flexible bodies as
solids about their deformed centre lines (``solid``: the rectangle ``section_depth`` x
``section_width``, b x h for a rectangular section, swept along the line; for a section without
outer-fibre distances a tube of radius ``section_radius``, sqrt(A / pi), of the element's area A), the
deformation magnified K times (``--scale K``): every centre-line point moved by (K - 1) ``deflection``,
its displacement from the reference that the body's joint points move with (``beam.deflection.joint_deflection``:
the rigid motion, stretched along the chord, carrying its two joint points farthest apart), which
vanishes at the joint points, so the links stay joined there (a third joint point of one body may
open by K times its deflection; series without that field are magnified about the floating frames
by ``elastic_displacement``). Rigid bodies do not move with K (``magnified``). Off-screen rendering goes through VTK's EGL (or OSMesa) window, which needs the
system's OpenGL libraries (on Debian: libegl1, libegl-mesa0, libgl1-mesa-dri; ``setup.sh`` installs
them). Where they are missing VTK crashes the process rather than raising, so the frame is rendered in
a child process (``python -m femdyn.post.viewer``) and a crash becomes a one-line error.
"""
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..casefile.case import CaseError

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


def magnified(blocks, scale):
    """Copies of the frame's ``blocks`` with the deformation magnified ``scale`` times (module
    docstring): the points of a block with ``deflection`` u (else ``elastic_displacement``) moved by
    (scale - 1) u; the other blocks (rigid bodies) as they are."""
    out = []
    for block in blocks:
        block = block.copy()
        field = next((k for k in ("deflection", "elastic_displacement") if k in block.point_data), None)
        if scale != 1 and field is not None:  # series written before ``deflection`` existed: about the frames
            block.points = np.asarray(block.points, dtype=float) + (scale - 1) * np.asarray(
                block.point_data[field], dtype=float)
        out.append(block)
    return out


def _polylines(lines):
    """The point indices of every polyline of the PolyData ``lines``, in order."""
    cells, k, out = np.asarray(lines.lines), 0, []
    while k < len(cells):
        out.append(cells[k + 1 : k + 1 + cells[k]])
        k += 1 + cells[k]
    return out


def _slab(lines, path):
    """The centre line ``path`` (point indices of ``lines``) as a solid rectangle swept along it:
    depth ``section_depth`` along the section's x2 axis -- in the plane the normal to the line, in
    space ``section_axis_2`` (the frame's d2) made normal to the line -- and width ``section_width``
    along x3 = tangent x x2: a hexahedral grid with the line's point data."""
    import pyvista as pv

    p = np.asarray(lines.points)[path]
    tangent = np.gradient(p, axis=0)
    tangent /= np.linalg.norm(tangent, axis=1)[:, None]
    if "section_axis_2" in lines.point_data:
        axis = np.asarray(lines.point_data["section_axis_2"])[path]
    else:
        axis = np.column_stack([-tangent[:, 1], tangent[:, 0], np.zeros(len(p))])
    axis = axis - np.sum(axis * tangent, axis=1)[:, None] * tangent
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    across = np.cross(tangent, axis)
    depth = np.asarray(lines.point_data["section_depth"])[path][:, None] / 2
    width = np.asarray(lines.point_data["section_width"])[path][:, None] / 2
    corners = [p + a * depth * axis + c * width * across
               for c in (-1, 1) for a in (-1, 1)]  # VTK order: along the line fastest, then x2, then x3
    grid = pv.StructuredGrid()
    grid.points = np.concatenate(corners)
    grid.dimensions = (len(p), 2, 2)
    for name in lines.point_data:
        grid.point_data[name] = np.concatenate([np.asarray(lines.point_data[name])[path]] * 4)
    return grid


def solid(block, sides=16):
    """The centre lines of a block with ``section_radius`` as solids, one per body about its line cells
    joined into polylines (element ends merged), with the point data and the body id (given to the
    points): with ``section_depth`` swept rectangles (``_slab``), otherwise tubes of radius
    ``section_radius``; other blocks as they are."""
    import pyvista as pv

    if "section_radius" not in block.point_data:
        return block
    segments = block.cells_dict[pv.CellType.LINE]
    bodies = np.asarray(block.cell_data["body_id"])
    points = np.asarray(block.points)
    slabs = "section_depth" in block.point_data and ("section_axis_2" in block.point_data or np.all(points[:, 2] == 0))
    solids = []
    for body in np.unique(bodies):
        used, local = np.unique(segments[bodies == body], return_inverse=True)
        local = local.reshape(-1, 2)
        lines = pv.PolyData(np.asarray(block.points, dtype=float)[used],
                            lines=np.column_stack([np.full(len(local), 2), local]).ravel())
        for name in block.point_data:
            lines.point_data[name] = np.asarray(block.point_data[name])[used]
        lines.point_data["body_id"] = np.full(len(used), body)
        lines = lines.clean(tolerance=1e-9).strip(join=True)
        if slabs:
            solids += [_slab(lines, path) for path in _polylines(lines)]
        else:
            solids.append(lines.tube(scalars="section_radius", absolute=True, n_sides=sides, capping=True))
    return pv.merge(solids) if len(solids) > 1 else solids[0]


def geometry(blocks, scale=1.0):
    """What ``femdyn view`` draws of a frame's ``blocks``: the deformation magnified ``scale`` times
    (``magnified``), flexible bodies as solids (``solid``)."""
    return [solid(block) for block in magnified(blocks, scale)]


UNITS = {"velocity": "m/s", "displacement": "m", "elastic_displacement": "m", "deflection": "m", "axial_force": "N",
         "bending_moment": "N m", "bending_moment_y": "N m", "bending_moment_z": "N m", "torque": "N m",
         "max_bending_stress": "Pa", "section_radius": "m"}  # SI units of the series' arrays


def bar_title(name, vector):
    """The scalar bar's title for the array ``name``: the quantity (a vector's length) and its unit."""
    quantity = f"|{name}|" if vector else name
    return f"{quantity} [{UNITS[name]}]" if name in UNITS else quantity


def _draw(plotter, blocks, scalars, title, scale=1.0):
    """Add the frame's blocks to ``plotter`` (replacing an earlier frame's) as ``geometry`` draws them,
    coloured by ``scalars`` on a common range (its scalar bar titled with quantity and unit), or by
    body id."""
    name = scalars or "body_id"
    values = [np.asarray(b[name]) for b in blocks if name in b.array_names]
    clim = [min(_magnitude(v).min() for v in values), max(_magnitude(v).max() for v in values)] if values else None
    bar = dict(title=bar_title(name, values[0].ndim > 1)) if values and scalars else None
    for k, (block, drawn) in enumerate(zip(blocks, geometry(blocks, scale))):
        if name in block.array_names:
            colour = dict(scalars=name, clim=clim, cmap="viridis" if scalars else "tab10",
                          show_scalar_bar=bool(scalars), scalar_bar_args=bar)
        else:
            colour = dict(color="lightgrey")
        plotter.add_mesh(drawn, name=f"part{k}", line_width=LINE_WIDTH, reset_camera=False,
                         show_edges=drawn is block and block.GetMaxSpatialDimension() > 1, **colour)
    plotter.add_text(title + (f", deformation x {scale:g}" if scale != 1 else ""), name="title", font_size=10)


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


def render_png(pvd, times, frame, png, scalars=None, scale=1.0):
    """Render frame ``frame`` of the series off-screen into ``png``, the deformation magnified ``scale``
    times; CaseError if that fails, a crash of VTK in the rendering child process included."""
    png = Path(png)
    if png.suffix.lower() != ".png":
        raise CaseError(png, "--screenshot", "the screenshot is written as PNG: give a file name ending in .png")
    check_scalars(pvd, read_frame(pvd, times[frame]), scalars)
    package = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")])))
    child = subprocess.run([sys.executable, "-m", "femdyn.post.viewer", str(pvd), repr(times[frame]), str(png),
                            scalars or "", _title(pvd, times, frame), repr(float(scale))],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if child.returncode < 0:
        raise CaseError(png, "--screenshot", f"off-screen rendering crashed (signal {-child.returncode}): "
                        f"VTK needs the OpenGL libraries (Debian: {GL_PACKAGES}; see setup.sh)")
    if child.returncode:
        lines = child.stderr.strip().splitlines() or ["off-screen rendering failed"]
        raise CaseError(png, "--screenshot", lines[-1])


def _render_child(pvd, time, png, scalars, title, scale):
    """In the child process: render the frame at ``time`` into ``png``; an error is one line on
    stderr and exit code 1."""
    import pyvista as pv
    from vtkmodules.vtkCommonCore import vtkLogger

    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)  # not the warning of the X-server probe
    try:
        blocks = read_frame(Path(pvd), float(time))
        plotter = pv.Plotter(off_screen=True, window_size=WINDOW)
        _draw(plotter, blocks, scalars or None, title, float(scale))
        _camera(plotter, blocks)
        plotter.screenshot(png)
        plotter.close()
    except Exception as err:  # noqa: BLE001  (VTK, the file system: reported in one line)
        print(f"cannot render: {err}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


def show(pvd, times, frame, scalars=None, scale=1.0):
    """Open the series in an interactive window at ``frame``, with a time slider, the deformation
    magnified ``scale`` times."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise CaseError(pvd, "display", "no display to open a window on (DISPLAY is not set); "
                        "use --screenshot FILE.png to render a frame off-screen")
    import pyvista as pv

    blocks = read_frame(pvd, times[frame])
    check_scalars(pvd, blocks, scalars)
    plotter = pv.Plotter(window_size=WINDOW, title=f"femdyn view {pvd.parent.name}")
    _draw(plotter, blocks, scalars, _title(pvd, times, frame), scale)
    _camera(plotter, blocks)

    def to_time(value):
        """Slider callback: show the frame nearest to time ``value``."""
        k = int(np.argmin(np.abs(np.asarray(times) - value)))
        _draw(plotter, read_frame(pvd, times[k]), scalars, _title(pvd, times, k), scale)

    if len(times) > 1:
        plotter.add_slider_widget(to_time, [times[0], times[-1]], value=times[frame], title="t",
                                  pointa=(0.25, 0.08), pointb=(0.75, 0.08), fmt="%.4g")
    plotter.show()


if __name__ == "__main__":  # the rendering child process of ``render_png``
    sys.exit(_render_child(*sys.argv[1:]))
