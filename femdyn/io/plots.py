"""Diagnostic plots saved as PNG files (matplotlib, non-interactive).

matplotlib is imported on first use (``pyplot``), not with this module: importing it takes most of a
second, which a run without plots should not spend."""

import functools

import numpy as np

DPI = 120


@functools.cache
def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path):
    """Save ``fig`` to ``path`` as PNG and release it."""
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    pyplot().close(fig)


def plot_energy_momentum(path, t, kinetic, potential, total, angular_momentum, momentum, title):
    """Energies T, V, H, then angular and linear momentum over time (000 Figs. 5, 10, 14).

    ``angular_momentum`` is (N,) for planar systems or (N, 3) in space; ``momentum`` is (N, dim).
    """
    fig, (ax_e, ax_l, ax_p) = pyplot().subplots(3, 1, sharex=True, figsize=(7, 8))
    ax_e.plot(t, kinetic, label="T")
    ax_e.plot(t, potential, label="V")
    ax_e.plot(t, total, label="H")
    ax_e.set_ylabel("energy")
    ax_e.set_title(title, fontsize=10)
    for ax, values, name, label in ((ax_l, angular_momentum, "L", "angular momentum"),
                                    (ax_p, momentum, "p", "linear momentum")):
        values = np.asarray(values, dtype=float)
        values = values[:, None] if values.ndim == 1 else values
        axes = ["z"] if values.shape[1] == 1 and name == "L" else "xyz"[: values.shape[1]]
        for i, axis in enumerate(axes):
            ax.plot(t, values[:, i], label=f"{name}{axis}")
        ax.set_ylabel(label)
    ax_p.set_xlabel("t")
    for ax in (ax_e, ax_l, ax_p):
        ax.legend()
        ax.grid(True, alpha=0.3)
    _save(fig, path)


def plot_series(path, t, series, ylabel, title):
    """One line per named entry of ``series`` (name -> (N,) array) over ``t``."""
    plot_overlay(path, [(name, t, y) for name, y in series.items()], ylabel, title)


def plot_overlay(path, runs, ylabel, title):
    """Overlay one quantity from several runs, given as (label, t, y) tuples."""
    fig, ax = pyplot().subplots(figsize=(7, 4))
    for label, t, y in runs:
        ax.plot(t, y, label=label)
    ax.set_xlabel("t")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend()
    _save(fig, path)


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
    fig, axes = pyplot().subplots(rows, len(panels), sharex=True, squeeze=False,
                                  figsize=(6 * len(panels), 2.4 * rows + 0.6))
    for col, quantities in enumerate(panels):
        for row, quantity in enumerate(quantities):
            ax = axes[row, col]
            for name in names:
                if f"{name}.{quantity}" in columns:
                    ax.plot(t, columns[f"{name}.{quantity}"], label=name)
            ax.set_ylabel(quantity.replace("_", " "))
            ax.grid(True, alpha=0.3)
            ax.legend()
        axes[-1, col].set_xlabel("t")
    fig.suptitle(title, fontsize=10)
    _save(fig, path)
