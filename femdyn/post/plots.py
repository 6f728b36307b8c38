"""Diagnostic plots saved as PNG files (matplotlib's Agg canvas, non-interactive).

Every axis is labelled ``quantity [SI unit]`` and holds one kind of quantity (``label``): a figure of
quantities of several kinds gets one axis per kind. Legends stand to the right of the axes, outside
the data.

matplotlib is imported on first use (``subplots``), not with this module: importing it takes most of a
second, which a run without plots should not spend; pyplot is not imported at all (its figure manager
and backend selection are no use to files, 0.1-0.2 s more). A figure is drawn once (``_save``): its
margins are fixed in inches, its legends' widths measured, and the image cropped to what was drawn."""

import sys
import warnings

import numpy as np

from ..io.units import PROBES

DPI = 120
TIME = "time t [s]"
TITLE, LEGEND_SIZE, SMALL_LEGEND_SIZE = 10, 8, 7  # font sizes [pt] of the titles, legends and the reactions' legend
LEGEND = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=LEGEND_SIZE, borderaxespad=0.0)
# the margins of ``_save`` in inches: left of the first column (tick labels and the axis label), below the
# last row, above the first (a title), right of the last column (a tick label's overhang), between rows
# (which share their x axis: no tick labels between them) and between columns; PAD around the drawing
LEFT, BOTTOM, TOP, RIGHT, ROW_GAP, COLUMN_GAP, PAD = 1.0, 0.6, 0.45, 0.3, 0.35, 1.2, 0.08
# matplotlib's unit converters of strings and dates, which ``Axes`` imports only to register them; the plots' data
# are floats (the plot child leaves them unrun: ``commands.run.prepare_plots``)
CONVERTERS = ("matplotlib.category", "matplotlib.dates")
COMPRESSION = 3  # zlib level of the PNG files: half the time of PIL's default 6 for files about 12 % larger


def _matplotlib():
    """Import what drawing and saving a figure needs: matplotlib's ``Figure``, its Agg canvas and PIL's PNG
    writer."""
    from matplotlib.backends import backend_agg
    from matplotlib import figure
    from PIL import PngImagePlugin  # noqa: F401 (the PNG writer)

    return figure.Figure, backend_agg.FigureCanvasAgg


def subplots(*args, figsize, **kwargs):
    """A figure of ``figsize`` inches on matplotlib's Agg canvas (no pyplot) and its axes:
    ``Figure.subplots(*args, **kwargs)``."""
    figure, canvas = _matplotlib()
    fig = figure(figsize=figsize, dpi=DPI)
    canvas(fig)
    return fig, fig.subplots(*args, **kwargs)


def prepare():
    """Import what drawing and saving a figure needs, look up the font of its texts in each size the plots use
    (matplotlib's font search, cached per size) and register PIL's image formats (as its first ``save`` does):
    what the first plot pays once is then paid ahead of it (``plot_child``) -- and once, not in every process
    forked to draw (``plot_child._draw_shared``) --, with nothing drawn in vain.

    Called by the plot child alone, a process that draws the run's plots and ends, which imports
    matplotlib without what only other uses need: the docstrings and signatures of its artists' ``set``
    methods, which it builds as it defines each of its ~100 artist classes from all their setters
    (``Artist._update_set_signature_and_docstring``, through ``artist.kwdoc`` and ``inspect``: 0.1-0.2 s of
    CPU; only ``help`` and ``inspect`` read them, drawing never: the flag by which a subclass knows that its
    parent's ``set`` was generated is kept, ``_flag_set``), and its 3-D toolkit (``mpl_toolkits.mplot3d``,
    another tenth), which it imports only to register the 3-D projection, none of the plots' (it warns that
    the projection is missing: not shown)."""
    import matplotlib.artist

    base = matplotlib.artist.Artist
    kwdoc, matplotlib.artist.kwdoc = matplotlib.artist.kwdoc, lambda artist: ""
    signature = base.__dict__["_update_set_signature_and_docstring"]
    base._update_set_signature_and_docstring = classmethod(_flag_set)
    hidden = "mpl_toolkits.mplot3d" not in sys.modules
    if hidden:
        sys.modules["mpl_toolkits.mplot3d"] = None  # an ImportError, which matplotlib catches
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _matplotlib()
    finally:
        matplotlib.artist.kwdoc = kwdoc
        base._update_set_signature_and_docstring = signature
        if hidden:
            del sys.modules["mpl_toolkits.mplot3d"]
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties
    from PIL import Image

    renderer = RendererAgg(1, 1, DPI)
    for size in (None, TITLE, LEGEND_SIZE, SMALL_LEGEND_SIZE):  # found as a text's font is (``_prepare_font``)
        renderer.get_text_width_height_descent("0", FontProperties(size=size), ismath=False)
    Image.preinit()


def _flag_set(cls):
    """What ``prepare`` leaves of ``Artist._update_set_signature_and_docstring``: the flag on the class's ``set``
    by which its subclasses know that it was generated (and so generate their own), without its signature
    and docstring."""
    cls.set._autogenerated_signature = True


def label(quantity, unit):
    """The axis label of ``quantity`` in ``unit``: ``quantity [unit]``."""
    return f"{quantity} [{unit}]"


def legend(ax):
    """The legend of ``ax`` to the right of its data, if it has labelled lines."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**LEGEND)


def _save(fig, path):
    """Save ``fig`` to ``path`` as PNG, drawn once: its axes (of one grid) placed with the margins in
    inches of this module, the widest legend's measured width added to the right one; once drawn, the
    image is cropped to its pixels that are not background, plus ``PAD``. Where they reach the edge,
    something stands out of the figure (a long axis label): the figure grows by as much
    (``Figure.get_tightbbox``), its axes keeping their size in inches (so their ticks), and is drawn
    again. This is what tight_layout and a tight bounding box at saving gave, without their two extra
    passes over every text of the figure."""
    from PIL import Image

    width, height = fig.get_size_inches()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_visible() and ax.get_legend() is not None]
    right = max([RIGHT] + [RIGHT + legend.get_window_extent(renderer).width / DPI for legend in legends])
    margins = [LEFT, BOTTOM, right, TOP]
    area = (max(width - LEFT - right, 0.4 * width), height - BOTTOM - TOP)  # a wider legend grows the figure
    _place(fig, margins, area)
    pixels, ink = _draw(fig)
    if ink[0].any() or ink[-1].any() or ink[:, 0].any() or ink[:, -1].any():
        box = fig.get_tightbbox(renderer)
        out = [max(0.0, PAD - box.x0), max(0.0, PAD - box.y0), max(0.0, box.x1 + PAD - width),
               max(0.0, box.y1 + PAD - height)]  # inches beyond the figure: left, bottom, right, top
        margins = [m + o for m, o in zip(margins, out)]
        fig.set_size_inches(area[0] + margins[0] + margins[2], area[1] + margins[1] + margins[3])
        _place(fig, margins, area)
        pixels, ink = _draw(fig)
    pad = int(PAD * DPI)
    rows, columns = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    pixels = pixels[max(0, rows[0] - pad): rows[-1] + pad + 1, max(0, columns[0] - pad): columns[-1] + pad + 1]
    Image.fromarray(pixels, "RGBA").convert("RGB").save(path, format="png", dpi=(DPI, DPI), compress_level=COMPRESSION)


def _draw(fig):
    """Draw ``fig``: its pixels (RGBA, opaque) and where their colour is not the background's, each pixel
    compared as one 32-bit word (alpha masked out)."""
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())
    background = np.zeros(4, np.uint8)
    background[:3] = np.round(255 * np.asarray(fig.get_facecolor()[:3]))
    colour = np.frombuffer(np.array([255, 255, 255, 0], np.uint8).tobytes(), np.uint32)[0]  # RGB bytes of a word
    words = pixels.view(np.uint32)[:, :, 0]
    return pixels, (words & colour) != background.view(np.uint32)[0]


def _place(fig, margins, area):
    """Place the grid of ``fig``'s axes in an ``area`` (width, height, inches) with ``margins`` (left,
    bottom, right, top, inches) around it, ``ROW_GAP`` and ``COLUMN_GAP`` between its axes."""
    width, height = fig.get_size_inches()
    rows, columns = fig.axes[0].get_subplotspec().get_gridspec().get_geometry()
    left, bottom, _, _ = margins
    axes_w = (area[0] - (columns - 1) * COLUMN_GAP) / columns
    axes_h = (area[1] - (rows - 1) * ROW_GAP) / rows
    fig.subplots_adjust(left=left / width, right=(left + area[0]) / width, bottom=bottom / height,
                        top=(bottom + area[1]) / height, wspace=COLUMN_GAP / axes_w, hspace=ROW_GAP / axes_h)


def plot_energy_momentum(path, t, kinetic, potential, total, angular_momentum, momentum, title):
    """Energies T, V, H, then angular and linear momentum over time (000 Figs. 5, 10, 14).

    ``angular_momentum`` is (N,) for planar systems or (N, 3) in space; ``momentum`` is (N, dim).
    """
    fig, (ax_e, ax_l, ax_p) = subplots(3, 1, sharex=True, figsize=(8, 8))
    ax_e.plot(t, kinetic, label="T")
    ax_e.plot(t, potential, label="V")
    ax_e.plot(t, total, label="H")
    ax_e.set_ylabel(label("energy", "J"))
    ax_e.set_title(title, fontsize=TITLE)
    for ax, values, name, quantity in ((ax_l, angular_momentum, "L", label("angular momentum", "kg m^2/s")),
                                       (ax_p, momentum, "p", label("linear momentum", "kg m/s"))):
        values = np.asarray(values, dtype=float)
        values = values[:, None] if values.ndim == 1 else values
        axes = ["z"] if values.shape[1] == 1 and name == "L" else "xyz"[: values.shape[1]]
        for i, axis in enumerate(axes):
            ax.plot(t, values[:, i], label=f"{name}{axis}")
        ax.set_ylabel(quantity)
    ax_p.set_xlabel(TIME)
    for ax in (ax_e, ax_l, ax_p):
        legend(ax)
        ax.grid(True, alpha=0.3)
    _save(fig, path)


def plot_lines(path, lines, title, xlabel=TIME):
    """Lines given as (legend label, x, y, axis label): one axis per axis label (each a quantity with
    its unit), stacked in the order they first appear, sharing x."""
    kinds = list(dict.fromkeys(axis for *_, axis in lines))
    fig, axes = subplots(len(kinds), 1, sharex=True, squeeze=False, figsize=(8, 1.2 + 2.8 * len(kinds)))
    axes = dict(zip(kinds, axes[:, 0]))
    for name, x, y, axis in lines:
        axes[axis].plot(x, y, label=name)
    for axis, ax in axes.items():
        ax.set_ylabel(axis)
        ax.grid(True, alpha=0.3)
        legend(ax)
    axes[kinds[-1]].set_xlabel(xlabel)
    axes[kinds[0]].set_title(title, fontsize=TITLE)
    _save(fig, path)


def plot_series(path, t, series, labels, title):
    """One line per named entry of ``series`` (name -> (N,) array) over ``t``, on the axis of its
    label ``labels[name]`` (``plot_lines``)."""
    plot_lines(path, [(name, t, y, labels[name]) for name, y in series.items()], title)


PROBE_LABELS = {quantity: label(*about) for quantity, about in PROBES.items()}  # axis label of every probes.csv column


def plot_probes(path, t, columns, names, title):
    """Probe motion over time as in 003 Figs. 8-11: position components and orientation (left
    column), and for probes on flexible bodies the elastic displacement and section rotation (world
    frame; right columns). ``columns`` holds ``NAME.QUANTITY`` series as in ``probes.csv``, one line
    per probe."""
    panels = [[q for q in quantities if any(f"{n}.{q}" in columns for n in names)]
              for quantities in (("x", "y", "z", "angle"), ("elastic_x", "elastic_y", "elastic_z", "elastic_angle"),
                                 ("elastic_rx", "elastic_ry", "elastic_rz"))]
    panels = [p for p in panels if p]  # three rows each: x, y, angle (2D) or x, y, z (3D)
    rows = max(len(p) for p in panels)
    fig, axes = subplots(rows, len(panels), sharex=True, squeeze=False,
                                  figsize=(6.5 * len(panels) + 1, 2.4 * rows + 0.6))
    for col, quantities in enumerate(panels):
        for row, quantity in enumerate(quantities):
            ax = axes[row, col]
            for name in names:
                if f"{name}.{quantity}" in columns:
                    ax.plot(t, columns[f"{name}.{quantity}"], label=name)
            ax.set_ylabel(PROBE_LABELS[quantity])
            ax.grid(True, alpha=0.3)
            if col == len(panels) - 1:
                legend(ax)
        for row in range(len(quantities), rows):
            axes[row, col].set_visible(False)
        axes[len(quantities) - 1, col].set_xlabel(TIME)
    fig.suptitle(title, fontsize=TITLE)
    _save(fig, path)


def magnification(deviation, extent):
    """The factor K by which ``plot_paths`` draws a probe's deviation from the rigid mechanism: the
    largest deviation (max over the frames of |dx|, ``deviation`` (F, dim)) drawn as a twentieth of the
    path's ``extent``, K rounded down to 1, 2 or 5 times a power of ten; None where the deviation is
    nowhere known and above zero, and K = 1 where it needs none."""
    size = np.nanmax(np.linalg.norm(deviation, axis=1), initial=0.0) if np.isfinite(deviation).any() else 0.0
    if not size > 0.0:
        return None
    wanted = max(extent / 20.0 / size, 1.0)
    power = 10.0 ** np.floor(np.log10(wanted))
    return float(max(m for m in (1.0, 2.0, 5.0) if m * power <= wanted) * power)


def plot_paths(path, columns, names, dim, title):
    """The path of every probe in space: the deformed material point and, on a flexible body, the
    point carried by the body's floating frame alone (position minus elastic displacement: the rigid
    path, dashed, in the same colour); where the probe has its deviation from the rigid mechanism dx
    (``probes.csv``), the rigid mechanism's path x - dx plus the deviation magnified K times, x - dx +
    K dx (dotted, K in the legend; ``magnification``), so that a deviation of micrometres shows on a
    path of decimetres. A planar model in its x-y plane; in space the two world axes along which the
    paths extend most."""
    axes = "xyz"[:dim]
    paths = {name: np.column_stack([columns[f"{name}.{a}"] for a in axes]) for name in names}
    rigid = {name: paths[name] - np.column_stack([columns[f"{name}.elastic_{a}"] for a in axes])
             for name in names if f"{name}.elastic_x" in columns}
    deviations = {name: np.column_stack([columns[f"{name}.deviation_{a}"] for a in axes])
                  for name in names if f"{name}.deviation_x" in columns}
    every = np.concatenate(list(paths.values()) + list(rigid.values()))
    shown = [0, 1] if dim == 2 else sorted(np.argsort(np.ptp(every, axis=0))[-2:])
    extent = float(np.ptp(every[:, shown], axis=0).max())
    fig, ax = subplots(figsize=(8, 6.5))
    for name, points in paths.items():
        line, = ax.plot(*points[:, shown].T, label=f"{name} (flexible)" if name in rigid else name)
        if name in rigid:
            ax.plot(*rigid[name][:, shown].T, "--", color=line.get_color(), label=f"{name} (rigid: floating frame)")
        k = magnification(deviations[name], extent) if name in deviations else None
        if k is not None and k > 1.0:
            magnified = points + (k - 1.0) * deviations[name]
            ax.plot(*magnified[:, shown].T, ":", color=line.get_color(),
                    label=f"{name} (rigid mechanism + deviation x {k:g})")
    ax.set_xlabel(label(f"position {axes[shown[0]]}", "m"))
    ax.set_ylabel(label(f"position {axes[shown[1]]}", "m"))
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title(title, fontsize=TITLE)
    ax.grid(True, alpha=0.3)
    legend(ax)
    _save(fig, path)


def plot_reactions(path, columns, sides, dim, title):
    """``reactions.png``: the magnitudes of the force [N] and of the moment about the joint's point
    [N m] of every joint on its second body (on the first they are opposite), over time; the legend
    outside the axes."""
    fig, (top, bottom) = subplots(2, 1, sharex=True, figsize=(9, 7.4))
    t = columns["t"]
    axes = "xyz"[:dim]
    moments = ["z"] if dim == 2 else axes
    for k, (joint, body) in enumerate(sides[1::2]):
        prefix, style = f"{joint}.{body}.", {"color": f"C{k % 10}", "linestyle": ("-", "--", ":", "-.")[k // 10 % 4]}
        top.plot(t, np.linalg.norm([columns[f"{prefix}force_{a}"] for a in axes], axis=0), label=f"{joint} on {body}",
                 **style)
        bottom.plot(t, np.linalg.norm([columns[f"{prefix}moment_{a}"] for a in moments], axis=0), **style)
    top.set_ylabel(label("force |F|", "N"))
    bottom.set_ylabel(label("moment |M| about the joint point", "N m"))
    bottom.set_xlabel(label("time t", "s"))
    top.set_title(f"{title}: joint reactions", fontsize=TITLE)
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    top.legend(fontsize=SMALL_LEGEND_SIZE, loc="upper left", bbox_to_anchor=(1.01, 1.0),
               ncol=-(-len(sides) // 2 // 10))
    _save(fig, path)
