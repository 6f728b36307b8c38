"""The probes of a case over a run, all frames at once (``probes.csv``, 003 Figs. 8-11), and the deformed
centre lines of the flexible bodies drawn in ParaView: this module selects, names and assembles the
columns and fields; the mechanics is the model's and the beam's.

A probe's columns are the motion of its material point (``model.points.point_motion``): its position
``x``, ``y`` (, ``z``), in the plane its ``angle`` (the angle of ``d_1`` plus the section rotation
``theta(X)``, which 003 Figs. 10-11 plot, unwrapped in time), and on a flexible body its elastic
displacement from the body frame in the world frame (``elastic_x``, ``elastic_y`` (, ``elastic_z``))
and along the body's directors d_1, d_2 (, d_3) (``elastic_1``, ``elastic_2`` (, ``elastic_3``): along
the link and across it, what a designer calls its deflection), and its section rotation: in the plane
``elastic_angle`` theta(X); in space about the directors (``elastic_r1``..``elastic_r3``: the twist and
the two bending rotations) and in the world frame (``elastic_rx``..``elastic_rz``). A centre line's
fields are those of ``beam.deflection`` and ``beam.sections``.

The deviation from the rigid mechanism (``model.deviation``: the probe's position and orientation minus
the same material point's in the rigid limit of the model assembled at the actuated coordinates, on
rigid and flexible bodies alike) adds ``deviation_x``, ``deviation_y`` (, ``deviation_z``) and
``deviation_angle`` (2D) or ``deviation_rx``..``deviation_rz`` (3D) to every probe, and the table the
conditioning of the rigid mechanism's actuated-to-effector Jacobian, the effector the probes' points:
``jacobian_condition`` (s_1/s_k) and ``jacobian_smallest`` (s_k) (``model.rigid_mechanism``), and the
status of each frame ``rigid_mechanism``: ``ok``, or ``singular`` where the rigid mechanism passes a
singular pose and cannot be assembled at the frame's actuated coordinates -- the deviation and
conditioning are undefined there (NaN; empty fields in probes.csv; ``model.deviation``), and the summary
says which frames (``singular_statistics``).
"""
import numpy as np

from ..beam.deflection import centre_line_points, joint_deflection
from ..beam.sections import section_forces
from ..integrators.time_loop import two_rows
from ..model.deviation import SINGULAR, SINGULAR_WORDS, STATUS
from ..model.points import link_chain, point_motion, point_positions
from ..model.rigid_mechanism import CONDITION_BOUND
from ..io.vtk import Lines

STRESS = "max_bending_stress"  # the centre lines' field of the largest normal stress (``_section_fields``)
SUBDIVISIONS = 8  # segments per element of a drawn centre line (cubic Hermite shape, 003 eq. 46)
ELASTIC = {  # the elastic columns of a probe on a flexible body, by dimension
    2: ("elastic_x", "elastic_y", "elastic_angle", "elastic_1", "elastic_2"),
    3: ("elastic_x", "elastic_y", "elastic_z", "elastic_rx", "elastic_ry", "elastic_rz",
        "elastic_1", "elastic_2", "elastic_3", "elastic_r1", "elastic_r2", "elastic_r3"),
}


class Unwrap:
    """``np.unwrap`` of a series given in chunks: the same numbers as for the whole series at once.
    Each chunk goes on from the last angle before it and the correction (a sum of multiples of 2 pi)
    reached there, which ``state`` holds (None before the first chunk)."""

    def __init__(self, state=None):
        self.state = state

    def __call__(self, raw):
        if not len(raw):
            return raw
        if self.state is None:
            self.state = (float(raw[0]), 0.0)
            return np.concatenate([raw[:1], self(raw[1:])])
        before, correction = self.state
        dd = np.diff(np.concatenate([[before], raw]))
        ddmod = np.mod(dd + np.pi, 2 * np.pi) - np.pi  # as np.unwrap, period 2 pi
        np.copyto(ddmod, np.pi, where=(ddmod == -np.pi) & (dd > 0))
        fix = ddmod - dd
        np.copyto(fix, 0, where=np.abs(dd) < np.pi)
        total = np.cumsum(np.concatenate([[correction], fix]))[1:]
        self.state = (float(raw[-1]), float(total[-1]))
        return raw + total


def _probe_columns(body, name, point, q, dim, chain=None):
    """Columns ``name.x``, ``name.y`` [, ``name.z``], in 2D ``name.angle`` and, on a flexible body, the
    elastic columns ``ELASTIC[dim]`` of the material point's motion (``model.points.point_motion``; on a
    later segment of a segmented link, ``chain``, the link's); the angle as the body's angle in (-pi, pi]
    (``probe_table`` unwraps it and adds theta(X))."""
    motion = point_motion(body, point, q, dim, chain)
    columns = {f"{name}.{axis}": motion.position[:, i] for i, axis in enumerate("xyz"[:dim])}
    if dim == 2:
        columns[f"{name}.angle"] = motion.angle
    e = motion.elastic
    if e is None:
        return columns
    if dim == 2:
        values = [e.displacement[:, 0], e.displacement[:, 1], e.rotation[:, 0], *e.along.T]
    else:
        values = [*e.displacement.T, *e.turned.T, *e.along.T, *e.rotation.T]
    columns.update({f"{name}.{column}": value for column, value in zip(ELASTIC[dim], values)})
    return columns


class Rates:
    """The acceleration of a probe over a run given in chunks, by the backward difference of its velocity
    over the time nodes, second order (the three-point formula on uneven steps h_1 = t_{n-1} - t_{n-2},
    h_2 = t_n - t_{n-1}: a_n = v_n (2 h_2 + h_1)/(h_2 (h_1 + h_2)) - v_{n-1} (h_1 + h_2)/(h_1 h_2) +
    v_{n-2} h_2/(h_1 (h_1 + h_2)), error O(h^2) [Fornberg1988]); at the first two nodes the first-order
    difference (v_1 - v_0)/h (rows 0 and 1 are always in the first chunk: ``time_loop.simulate`` gives
    out a chunk after a step), NaN only in a history of one row. ``state``: the last two (t, v) before
    the chunk (a list, JSON for the checkpoint)."""

    def __init__(self, state=None):
        self.state = [] if state is None else [list(row) for row in state]

    def __call__(self, t, v):
        """The accelerations (F, dim) at the times t (F,) of the velocities v (F, dim) of this chunk."""
        before = np.array(self.state, dtype=float).reshape(-1, 1 + v.shape[1])
        times, values = np.concatenate([before[:, 0], t]), np.concatenate([before[:, 1:], v])
        self.state = [[float(x) for x in row] for row in np.column_stack([times, values])[-2:]]
        a = np.full_like(values, np.nan)
        if len(times) > 1:
            a[:2] = (values[1] - values[0]) / (times[1] - times[0])
        h1, h2 = (np.diff(times[:-1]), np.diff(times[1:]))
        h1, h2 = h1[:, None], h2[:, None]
        a[2:] = (values[2:] * (2 * h2 + h1) / (h2 * (h1 + h2)) - values[1:-1] * (h1 + h2) / (h1 * h2)
                 + values[:-2] * h2 / (h1 * (h1 + h2)))
        return a[len(before):]


RATES = ".rates"  # the key suffix of a probe's ``Rates`` among the chunk states of ``probe_table``


def chunk_states(states):
    """The chunk states of ``probe_table`` (``unwraps``) from their ``state`` values (a checkpoint's)."""
    return {name: Rates(state) if name.endswith(RATES) else Unwrap(tuple(state)) for name, state in states.items()}


def probe_table(model, probes, q, unwraps=None, deviation=None, v=None, t=None):
    """The columns of ``probes.csv`` (without the time) for the coordinates q (F, n) of a run:
    position and orientation of every probe's deformed material point and, for probes on flexible
    bodies, its world-frame elastic displacement and section rotation (module docstring).
    ``probes``: (name, body name, body-frame point) as in ``Case.probes``. ``unwraps``: {probe name:
    ``Unwrap``} where q is a chunk of a run after others (filled in for the next chunk); the columns
    are then those of the whole run, bit for bit (``time_loop.two_rows``). ``deviation``: a
    ``model.deviation.Deviation`` of these probes, which adds the deviation and conditioning columns
    (module docstring; it goes on from the rigid solution of the chunk before). ``v`` (F, n) and ``t``
    (F,): the velocities and times of the frames, which add the probe's velocity ``vx``, ``vy``
    (, ``vz``) [m/s], the linear map of its position applied to v (exact), and acceleration ``ax``,
    ``ay`` (, ``az``) [m/s^2], the backward difference of that velocity (``Rates``: second order, first
    order at the first two nodes; its state among ``unwraps``)."""
    index = {body.name: body for body in model.bodies}
    unwraps = {} if unwraps is None else unwraps
    columns = {}
    for name, body, point in probes:
        columns_of = _probe_columns(index[body], name, point, two_rows(q), model.dim, link_chain(index, index[body]))
        part = {key: values[: len(q)] for key, values in columns_of.items()}
        if f"{name}.angle" in part:  # continuous in time: unwrapped from its value at the first frame
            angle = unwraps.setdefault(name, Unwrap())(part[f"{name}.angle"])
            theta = part.get(f"{name}.elastic_angle")
            part[f"{name}.angle"] = angle if theta is None else angle + theta
        columns.update(part)
        if v is not None:
            axes = "xyz"[: model.dim]
            velocity = point_positions(index[body], np.asarray(point, dtype=float)[None], two_rows(v), model.dim)[: len(v)]
            acceleration = unwraps.setdefault(name + RATES, Rates())(np.asarray(t, dtype=float), velocity)
            columns.update({f"{name}.v{a}": velocity[:, i] for i, a in enumerate(axes)})
            columns.update({f"{name}.a{a}": acceleration[:, i] for i, a in enumerate(axes)})
    if deviation is not None:
        columns.update(deviation(q, conditioning=True))
    return columns


UNITS = {**dict.fromkeys(("elastic_x", "elastic_y", "elastic_z", "elastic_1", "elastic_2", "elastic_3"), "m"),
         **dict.fromkeys(("elastic_angle", "elastic_rx", "elastic_ry", "elastic_rz", "elastic_r1", "elastic_r2",
                          "elastic_r3"), "rad")}  # SI unit of every elastic column


def _extremes(t, values, unit):
    """Max, RMS over the frames and time of the max of the non-negative ``values``, keys named with
    their units (``max_m``, ``rms_m``, ``t_max_s``)."""
    k = int(np.argmax(values))
    return {f"max_{unit}": float(values[k]), f"rms_{unit}": float(np.sqrt(np.mean(values**2))),
            "t_max_s": float(t[k])}


def _finite_extremes(t, values, unit):
    """``_extremes`` over the frames where ``values`` is finite (the rigid mechanism assembled); None
    where it is nowhere."""
    finite = np.isfinite(values)
    return _extremes(t[finite], values[finite], unit) if finite.any() else None


def deviation_statistics(columns, probes):
    """The deviation from the rigid mechanism of every probe over the frames of ``columns`` (those of
    ``probes.csv``, with ``t``): {probe: {"max_m", "rms_m", "t_max_s": of its length |dx| [m];
    "rotation": {"max_rad", "rms_rad", "t_max_s"} of its rotation's size}}; frames where the rigid
    mechanism is singular (the deviation undefined, NaN) are left out and counted (``singular_frames``)."""
    stats = {}
    t = np.asarray(columns["t"], dtype=float) if probes else None
    for name, _, _ in probes:
        if f"{name}.deviation_x" not in columns:
            continue
        dim = 3 if f"{name}.deviation_z" in columns else 2
        dx = np.linalg.norm([np.asarray(columns[f"{name}.deviation_{a}"]) for a in "xyz"[:dim]], axis=0)
        turn = (np.abs(np.asarray(columns[f"{name}.deviation_angle"])) if dim == 2 else
                np.linalg.norm([np.asarray(columns[f"{name}.deviation_r{a}"]) for a in "xyz"], axis=0))
        length, rotation = _finite_extremes(t, dx, "m"), _finite_extremes(t, turn, "rad")
        singular = int(len(dx)) if length is None else int(np.sum(~np.isfinite(dx)))
        # "unassembled": the count's name before 0.1.0's singular frames, kept for one release
        counts = {"singular_frames": singular, "unassembled": singular}
        stats[name] = counts if length is None else {**length, "rotation": rotation, **counts}
    return stats


def singular_statistics(columns):
    """The frames of ``columns`` (those of ``probes.csv``, with ``t``) whose status ``rigid_mechanism``
    is ``singular`` (``model.deviation``: no rigid pose at the frame's actuated coordinates, the deviation
    undefined there), for ``summary.json``: {"frames": how many, "t_first_s", "t_last_s", "intervals":
    runs of consecutive such frames, "reason", "warning": the one line of ``femdyn run``}; None where
    there is none (or no status column)."""
    if STATUS not in columns:
        return None
    singular = np.asarray(columns[STATUS]) == SINGULAR
    if not singular.any():
        return None
    t = np.asarray(columns["t"], dtype=float)[singular]
    count, intervals = int(singular.sum()), int(np.sum(np.diff(singular.astype(int), prepend=0) == 1))
    span = f"at t = {t[0]:.6g} s" if count == 1 else f"from t = {t[0]:.6g} s to t = {t[-1]:.6g} s"
    runs = f" in {intervals} intervals" if intervals > 1 else ""
    warning = (f"{count} frame{'s' * (count > 1)} {span}{runs} with no rigid pose at the actuated coordinates: "
               f"{SINGULAR_WORDS} (empty fields in probes.csv, {STATUS} = {SINGULAR}; the flexible run is "
               "complete and finite)")
    return {"frames": count, "t_first_s": float(t[0]), "t_last_s": float(t[-1]), "intervals": intervals,
            "reason": SINGULAR_WORDS, "warning": warning}


def deviation_about(columns, deviation):
    """``summary.json``'s ``deviation``: what the rigid mechanism of ``deviation`` (a
    ``model.deviation.Deviation``) is held at (``Deviation.describe``) and, where some frames of ``columns``
    (those of ``probes.csv``) have no rigid pose, ``singular`` (``singular_statistics``)."""
    about = deviation.describe()
    singular = singular_statistics(columns)
    if singular:  # a warning, not a failure: the run is complete
        about["singular"] = singular
    return about


def conditioning_statistics(columns, deviation):
    """The conditioning of the rigid mechanism's actuated-to-effector Jacobian over the frames of
    ``columns`` (``jacobian_condition``, ``jacobian_smallest``; ``model.rigid_mechanism``) for
    ``summary.json``: its value at the start, the largest condition number and smallest singular value
    with their times, the bound and, beyond it, a warning; None without the columns. ``deviation``: the
    ``model.deviation.Deviation`` that made them (its effector and actuated coordinates)."""
    if "jacobian_condition" not in columns:
        return None
    t = np.asarray(columns["t"], dtype=float)
    kappa = np.asarray(columns["jacobian_condition"], dtype=float)
    smallest = np.asarray(columns["jacobian_smallest"], dtype=float)
    known = ~np.isnan(kappa)
    if not known.any():
        return None
    k = int(np.flatnonzero(known)[np.argmax(kappa[known])])
    j = int(np.flatnonzero(known)[np.argmin(smallest[known])])
    about = deviation.describe()
    out = {"effector": about["effector"], "actuated": about["actuated"],
           "condition_start": float(kappa[0]), "smallest_singular_value_start": float(smallest[0]),
           "condition_max": float(kappa[k]), "t_condition_max_s": float(t[k]),
           "smallest_singular_value_min": float(smallest[j]), "t_smallest_singular_value_min_s": float(t[j]),
           "bound": CONDITION_BOUND}
    if kappa[k] > CONDITION_BOUND:
        out["warning"] = near_singular(kappa[k], t[k])
    return out


def near_singular(kappa, t=None):
    """The one-line warning of a pose near a singular one (condition number ``kappa`` at time t)."""
    when = "" if t is None else f" at t = {t:.6g} s"
    return (f"the mechanism is near a singular pose{when}: the condition number of its actuated-to-effector "
            f"Jacobian is {kappa:.4g} (above {CONDITION_BOUND:g}); the inputs and the effector's sensitivity to "
            "them grow without bound there")


def elastic_statistics(columns, probes):
    """The elastic deflection of every probe on a flexible body over the frames of ``columns`` (those
    of ``probes.csv``, the time ``t`` included), for ``summary.json`` and the end of ``femdyn run``:
    {probe: {"deflection": the length |u| of the world-frame elastic displacement [m], "rotation": the
    section rotation's size [rad] (in the plane |theta|, in space the length of (psi, theta_y,
    theta_z)), each with its max, RMS and the time of the max (``_extremes``); and per elastic
    column c {"max_abs", "rms", "unit"}}}."""
    stats = {}
    t = np.asarray(columns["t"], dtype=float) if probes else None
    for name, _, _ in probes:
        values = {c: np.asarray(columns[f"{name}.{c}"]) for c in dict.fromkeys(ELASTIC[2] + ELASTIC[3])
                  if f"{name}.{c}" in columns}
        if not values:
            continue
        dim = 2 if "elastic_angle" in values else 3
        deflection = np.linalg.norm([values[f"elastic_{a}"] for a in "xyz"[:dim]], axis=0)
        turned = np.abs(values["elastic_angle"]) if dim == 2 else \
            np.linalg.norm([values[f"elastic_r{a}"] for a in "xyz"], axis=0)
        stats[name] = {"deflection": _extremes(t, deflection, "m"), "rotation": _extremes(t, turned, "rad"),
                       **{c: {"max_abs": float(np.abs(v).max()), "rms": float(np.sqrt(np.mean(v**2))),
                              "unit": UNITS[c]} for c, v in values.items()}}
    return stats


def deviation_lines(summary):
    """The lines on the deviation from the rigid mechanism at the end of a run, from its ``summary``:
    one per probe (``deviation_statistics``: max, when, RMS, and its rotation's), what the rigid
    mechanism is held at, and the conditioning warning if any."""
    stats = {name: s["deviation"] for name, s in summary.get("probes", {}).items() if "deviation" in s}
    if not stats:
        return []
    lines = [f"rigid mechanism {summary['deviation']['against']}"] if "deviation" in summary else []
    for name, s in stats.items():
        if "max_m" not in s:
            lines.append(f"probe {name}: deviation from the rigid mechanism undefined: the rigid mechanism cannot "
                         f"be assembled at the actuated coordinates of any frame")
            continue
        count = s["singular_frames"]
        unassembled = f" ({count} frame{'s' * (count > 1)} where the rigid mechanism is singular left out)" \
            if count else ""
        lines.append(f"probe {name}: deviation from the rigid mechanism max {s['max_m']:.4g} m at t = "
                     f"{s['t_max_s']:.6g} s, RMS {s['rms_m']:.4g} m; rotation max {s['rotation']['max_rad']:.4g} rad "
                     f"at t = {s['rotation']['t_max_s']:.6g} s{unassembled}")
    conditioning = summary.get("conditioning")
    if conditioning:
        lines.append(f"conditioning of the rigid mechanism (actuated coordinates to {conditioning['effector']}): "
                     f"condition number {conditioning['condition_start']:.4g} at the start, max "
                     f"{conditioning['condition_max']:.4g} at t = {conditioning['t_condition_max_s']:.6g} s")
    return lines


def deflection_lines(stats):
    """One line per probe of ``elastic_statistics``: its elastic deflection from its body's floating
    frame and section rotation, max (and when) and RMS, with units."""
    return [f"probe {name}: elastic deflection from its body frame max {s['deflection']['max_m']:.4g} m at t = "
            f"{s['deflection']['t_max_s']:.6g} s, RMS {s['deflection']['rms_m']:.4g} m; section rotation max "
            f"{s['rotation']['max_rad']:.4g} rad at t = {s['rotation']['t_max_s']:.6g} s, RMS "
            f"{s['rotation']['rms_rad']:.4g} rad" for name, s in stats.items() if "deflection" in s]


def _section_fields(beam, elastic, xi, stiffening):
    """The section forces at the points ``xi`` of every element over the frames, each (F, K P), from
    ``sections.section_forces`` of the elastic coordinates (F, k) (with the Green strain of the axial
    force where the body has geometric ``stiffening``): the axial force N, in the plane the
    bending moment M, in space the torque T and both bending moments M_y, M_z, and the largest normal
    stress |N|/A + |M| c/I (space: + |M_y| c_z/I_y), ``STRESS``: undefined (NaN, VTK's missing value, drawn
    in ParaView's NaN colour) for a section without outer-fibre distances."""
    forces = section_forces(beam, elastic, xi, stiffening)
    names = ({"axial_force": "axial", "bending_moment": "moment"} if beam.dim == 2 else
             {"axial_force": "axial", "torque": "torque", "bending_moment_y": "moment_y",
              "bending_moment_z": "moment_z"})
    fields = {name: getattr(forces, key).reshape(len(elastic), -1) for name, key in names.items()}
    stress = forces.sigma_max if beam.section.has_fibres(beam.dim) else np.full_like(forces.axial, np.nan)
    fields[STRESS] = stress.reshape(len(elastic), -1)
    return fields


def _centre_line(body, q, v, xi, origin, joined=()):
    """Points (F, K P, dim) and point fields of the centre line of one flexible body, sampled at ``xi``
    in every element (element ends repeated, so fields may jump between elements); the displacement
    from the coordinates ``origin`` (1, n); ``joined``: the body-frame points where joints hold it
    (``beam.deflection.joint_deflection``)."""
    f = body.flexible
    dim = f.beam.dim
    X, points, elastic = centre_line_points(f, q, xi)
    fields = {
        "velocity": f.element_points(v, xi).reshape(len(v), -1, dim),
        "displacement": points - f.element_points(origin, xi).reshape(1, -1, dim),
        "elastic_displacement": elastic,
        "deflection": joint_deflection(f, q, X, points, joined),
        **_section_fields(f.beam, f.elastic_coordinates(q), xi, f.stiffening),
    }
    area, section = f.beam.elements.area, f.beam.section
    sizes = {"section_radius": np.sqrt(area / np.pi)}
    if section.has_fibres(dim):  # depth 2c along x2, width 2 c_z along x3 (in the plane: of area A)
        c = np.broadcast_to(np.asarray(section.fibre, dtype=float), area.shape)
        sizes["section_depth"] = 2 * c
        sizes["section_width"] = area / (2 * c) if section.fibre_z is None else \
            2 * np.broadcast_to(np.asarray(section.fibre_z, dtype=float), area.shape)
        if dim == 3:  # the frame's d2 at every point
            fields["section_axis_2"] = np.repeat(q[:, f.rigid[6:9]][:, None], points.shape[1], axis=1)
    fields.update({name: np.broadcast_to(np.repeat(size, len(xi)), (len(q), points.shape[1]))
                   for name, size in sizes.items()})
    return points, fields


def centre_lines(model, q, v, subdivisions=SUBDIVISIONS, origin=None):
    """The deformed centre lines of the model's flexible bodies over the frames q, v (F, n) as
    ``vtk.Lines``: every element cut into ``subdivisions`` line cells along its cubic Hermite shape
    (003 eq. 46), with the point fields ``velocity``, ``displacement`` (from the coordinates ``origin``
    (n,), default the first frame: the run's initial state where q is a later chunk of it),
    ``elastic_displacement`` (world frame: the deformed point minus the point the body's floating frame
    carries), ``deflection`` (from the reference that the body's joint points move with, zero at them:
    ``points + (K - 1) deflection`` draws the deformation magnified K times with the links still joined,
    ``femdyn view --scale K``; ``beam.deflection.joint_deflection``), the section forces (``axial_force``, in the plane
    ``bending_moment``, in space ``torque``, ``bending_moment_y``, ``bending_moment_z``),
    ``max_bending_stress`` (``_section_fields``; not written where no section has outer-fibre distances),
    ``section_radius``, the radius sqrt(A / pi) of a
    round section of the element's area A, and where the outer-fibre distances are known
    ``section_depth`` 2c along x2 and ``section_width`` along x3 (2 c_z; in the plane, without c_z, A /
    (2c)), in space with ``section_axis_2``, the body frame's d2: the solids ``femdyn view`` draws, the
    rectangle b x h of a rectangular section swept along the line, else a tube. A frame's values do not depend on the other frames
    given with it (``time_loop.two_rows``)."""
    frames = len(q)
    q, v = two_rows(q), two_rows(v)
    xi = np.linspace(0.0, 1.0, subdivisions + 1)
    flexible = [(i, body) for i, body in enumerate(model.bodies) if body.flexible is not None]
    origin = q[:1] if origin is None else np.asarray(origin)[None]
    points, fields, segments, body_id, start = [], [], [], [], 0
    for i, body in flexible:
        joined = [j.point1 for j in model.joints if j.body1 == i] + [j.point2 for j in model.joints if j.body2 == i]
        p, data = _centre_line(body, q, v, xi, origin, joined)
        k = len(body.flexible.beam.elements.length)
        first = start + (len(xi) * np.arange(k)[:, None] + np.arange(subdivisions)).ravel()
        segments.append(np.column_stack([first, first + 1]))
        body_id.append(np.full(len(first), i))
        points.append(p[:frames])
        fields.append({name: values[:frames] for name, values in data.items()})
        start += p.shape[1]
    names = [name for name in fields[0] if name != STRESS or any(
        body.flexible.beam.section.has_fibres(model.dim) for _, body in flexible)]  # no stress known: none written
    return Lines(np.concatenate(points, axis=1), np.concatenate(segments), np.concatenate(body_id),
                 {name: np.concatenate([d[name] for d in fields], axis=1) for name in names})
