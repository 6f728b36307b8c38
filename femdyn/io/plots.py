"""Diagnostic plots saved as PNG files (matplotlib, non-interactive)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
import numpy as np  # noqa: E402

DPI = 120


def _save(fig, path):
    """Save ``fig`` to ``path`` as PNG and release it."""
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_energy_momentum(path, t, kinetic, potential, total, angular_momentum, title):
    """Energies T, V, H (top) and angular momentum (bottom) over time.

    ``angular_momentum`` is (N,) for planar systems or (N, 3) in space.
    """
    fig, (ax_e, ax_l) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    ax_e.plot(t, kinetic, label="T")
    ax_e.plot(t, potential, label="V")
    ax_e.plot(t, total, label="H")
    ax_e.set_ylabel("energy")
    ax_e.legend()
    ax_e.set_title(title)

    ang = np.asarray(angular_momentum, dtype=float)
    if ang.ndim == 1:
        ax_l.plot(t, ang, label="L")
    else:
        for i, axis in enumerate("xyz"[: ang.shape[1]]):
            ax_l.plot(t, ang[:, i], label=f"L{axis}")
    ax_l.set_ylabel("angular momentum")
    ax_l.set_xlabel("t")
    ax_l.legend()
    for ax in (ax_e, ax_l):
        ax.grid(True, alpha=0.3)
    _save(fig, path)


def plot_series(path, t, series, ylabel, title):
    """One line per named entry of ``series`` (name -> (N,) array) over ``t``."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, y in series.items():
        ax.plot(t, y, label=name)
    ax.set_xlabel("t")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    _save(fig, path)


def plot_overlay(path, runs, ylabel, title):
    """Overlay one quantity from several runs, given as (label, t, y) tuples."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, t, y in runs:
        ax.plot(t, y, label=label)
    ax.set_xlabel("t")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    _save(fig, path)
