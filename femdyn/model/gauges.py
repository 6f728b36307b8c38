"""Strain gauges of a model: where each sits (``make_gauge``: a flexible body or segmented link, an arc
length or a fraction of it, a fibre) and what each reads over the frames of a run (``gauge_table``: the
normal strain and stress of ``beam.gauges``, columns ``G.strain`` [1] and ``G.stress`` [Pa]).

On a segmented link (``segments``: bodies NAME, NAME#2 .. NAME#k) the arc length is the link's, from
its first node; the gauge goes to the segment whose elements hold it (at a boundary the later one) at
the arc length from that segment's first node. Each segment's strain is measured in its own frame,
as the strain of any floating-frame body (frame-independent while the deflection relative to it is
small).
"""
from collections.abc import Sequence

import numpy as np

from ..beam.gauges import Gauge, arc_length, check_fibre, gauge_values, locate
from .errors import ModelError
from .segments import segment_name


def _segments(model, body: str) -> list:
    """The bodies of the link ``body``: itself, and its later segments NAME#2 .. if it is split."""
    index = {b.name: b for b in model.bodies}
    chain, i = [index[body]], 1
    while segment_name(body, i) in index:
        chain.append(index[segment_name(body, i)])
        i += 1
    return chain


def make_gauge(model, name: str, body: str, fibre, s: float | None = None, fraction: float | None = None,
               where: str = "gauges") -> Gauge:
    """The ``Gauge`` ``name`` on the flexible body (or segmented link) ``body`` of ``model`` at the arc
    length ``s`` [m] from its first node or at ``fraction`` (0 to 1) of its length -- exactly one of
    them -- on the ``fibre`` (y,) or (y, z) [m] (``beam.gauges``); a ``ModelError`` on the field
    ``where.name.<field>`` that cannot be used."""
    field = f"{where}.{name}"
    names = [b.name for b in model.bodies]
    if body not in names:
        raise ModelError(f"{field}.body", f"unknown body '{body}'")
    chain = _segments(model, body)
    if chain[0].flexible is None:
        raise ModelError(f"{field}.body", f"'{body}' is a rigid body: a gauge measures the strain of a flexible one")
    if (s is None) == (fraction is None):
        raise ModelError(field, "give exactly one of s (the arc length in m) or fraction (of the link's length)")
    lengths = [arc_length(b.flexible.beam) for b in chain]
    total = float(sum(lengths))
    if fraction is not None:
        if not (np.isfinite(fraction) and 0.0 <= fraction <= 1.0):
            raise ModelError(f"{field}.fraction", f"must lie in [0, 1], got {fraction!r}")
        s = fraction * total
    if not (np.isfinite(s) and 0.0 <= s <= total * (1 + 1e-12)):
        raise ModelError(f"{field}.s", f"must lie on the centre line, 0 to {total:.6g} m from its first node, "
                         f"got {s!r}")
    starts = np.concatenate([[0.0], np.cumsum(lengths)[:-1]])
    i = max(min(int(np.searchsorted(starts, s, side="right")) - 1, len(chain) - 1), 0)
    beam = chain[i].flexible.beam
    local = min(max(s - starts[i], 0.0), lengths[i])
    try:
        fibre = check_fibre(beam, fibre)
    except ValueError as err:
        raise ModelError(f"{field}.fibre", str(err)) from None
    return Gauge(name, chain[i].name, float(local), fibre)


def gauge_table(model, gauges: Sequence[Gauge], q) -> dict:
    """{``G.strain``: the normal strain [1], ``G.stress``: the normal stress [Pa]} of every gauge G over
    the frames q (F, n) (``beam.gauges.gauge_values``; tension positive)."""
    index = {b.name: b for b in model.bodies}
    q = np.atleast_2d(q)
    columns = {}
    for gauge in gauges:
        f = index[gauge.body].flexible
        strain, stress = gauge_values(f.beam, f.elastic_coordinates(q), gauge, f.stiffening)
        columns[f"{gauge.name}.strain"], columns[f"{gauge.name}.stress"] = strain, stress
    return columns


def gauge_statistics(columns: dict, gauges: Sequence[Gauge]) -> dict:
    """For ``summary.json``: {G: {"strain": {"max", "t_max_s", "min", "t_min_s"}, "stress": {"max_pa",
    "t_max_s", "min_pa", "t_min_s"}}} over the frames of ``columns`` (with the time ``t``)."""
    t = np.asarray(columns["t"], dtype=float)
    out = {}
    for gauge in gauges:
        entry = {}
        for quantity, suffix in (("strain", ""), ("stress", "_pa")):
            values = np.asarray(columns[f"{gauge.name}.{quantity}"], dtype=float)
            k, j = int(np.argmax(values)), int(np.argmin(values))
            entry[quantity] = {f"max{suffix}": float(values[k]), "t_max_s": float(t[k]),
                               f"min{suffix}": float(values[j]), "t_min_s": float(t[j])}
        out[gauge.name] = {"body": gauge.body, "s_m": gauge.s, "fibre_m": list(gauge.fibre), **entry}
    return out


def gauge_lines(statistics: dict) -> list:
    """One printed line per gauge of ``gauge_statistics``: its strain and stress extremes with times."""
    lines = []
    for name, s in statistics.items():
        e, p = s["strain"], s["stress"]
        fibre = ", ".join(f"{v:g}" for v in s["fibre_m"])
        head = f"gauge {name} ({s['body']}, s = {s['s_m']:.6g} m, fibre {fibre} m)"
        if e["t_max_s"] == e["t_min_s"]:  # one frame (a static equilibrium)
            lines.append(f"{head}: strain {e['max']:.4g}, stress {p['max_pa']:.4g} Pa (tension positive)")
            continue
        lines.append(f"{head}: strain max {e['max']:.4g} at t = {e['t_max_s']:.6g} s, min {e['min']:.4g} at t = "
                     f"{e['t_min_s']:.6g} s; stress max {p['max_pa']:.4g} Pa, min {p['min_pa']:.4g} Pa "
                     "(tension positive)")
    return lines
