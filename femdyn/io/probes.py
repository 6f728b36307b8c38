"""Material points of the bodies over a run, all frames at once: the probes of a case (003 Figs. 8-11)
and the deformed centre lines of the flexible bodies drawn in ParaView.

A material point with body-frame position ``X`` has the rigid reference position ``phi + X_a d_a``
(001 eq. 4, ``kinematics.point_matrix``). On a flexible body the elastic displacement ``u = S(X) q``
moves it further by ``u_a d_a`` (003 eq. 4), in director form ``sum_j (S_1j I + S_2j J) c_j`` with the
carriers ``c_j = q_j d_1`` (``flexible``): the deformed position is linear in the coordinates, so the
same map applied to the velocities gives the material velocity. The elastic displacement reported is
deformed minus rigid reference position, in the world frame. The section at ``X`` is turned by
``theta(X)``, the slope of the centre line (the third row of ``BeamBody.shape_at``); a probe's
orientation is the angle of ``d_1`` plus ``theta(X)`` (003 Figs. 10-11 plot this absolute value).
"""
import numpy as np

from ..beam.ffr import J
from ..beam.sections import section_forces
from ..integrators.time_loop import two_rows
from ..numerics import kinematics as kin
from .vtk import Lines

SUBDIVISIONS = 8  # segments per element of a drawn centre line (cubic Hermite shape, 003 eq. 46)
ELASTIC = ("elastic_x", "elastic_y", "elastic_angle")


def _rigid_points(body, X, q):
    """Rigid reference positions ``phi + X_a d_a`` (F, P, dim) of body-frame points X (P, dim) for the
    coordinates q (F, n) (001 eq. 4)."""
    dofs = body.offset + np.arange(kin.body_size(X.shape[1]))
    return np.einsum("pin,fn->fpi", kin.point_matrix(X), q[:, dofs])


def _angle(body, q):
    """Angle in (-pi, pi] of the director d_1 of a planar body over the frames (F,)."""
    d1 = q[:, body.offset + 2 : body.offset + 4]
    return np.arctan2(d1[:, 1], d1[:, 0])


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


def _probe_columns(body, name, point, q, dim):
    """Columns ``name.x``, ``name.y`` [, ``name.z``], in 2D ``name.angle`` and, on a flexible body, the
    elastic displacement ``name.elastic_x``, ``name.elastic_y`` and ``name.elastic_angle`` = theta(X);
    the angle as the body's angle in (-pi, pi] (``probe_table`` unwraps it and adds theta(X))."""
    X = np.asarray(point, dtype=float)[None]
    rigid = _rigid_points(body, X, q)[:, 0]
    f = body.flexible
    if f is None:
        columns = {f"{name}.{axis}": rigid[:, i] for i, axis in enumerate("xyz"[:dim])}
        if dim == 2:
            columns[f"{name}.angle"] = _angle(body, q)
        return columns
    position = f.positions(q, X)[:, 0]
    elastic = position - rigid
    theta = q[:, f.elastic] @ f.beam.shape_at(X)[0, 2]
    return {f"{name}.x": position[:, 0], f"{name}.y": position[:, 1], f"{name}.angle": _angle(body, q),
            f"{name}.elastic_x": elastic[:, 0], f"{name}.elastic_y": elastic[:, 1],
            f"{name}.elastic_angle": theta}


def probe_table(model, probes, q, unwraps=None):
    """The columns of ``probes.csv`` (without the time) for the coordinates q (F, n) of a run:
    position and orientation of every probe's deformed material point and, for probes on flexible
    bodies, its world-frame elastic displacement and section rotation (module docstring).
    ``probes``: (name, body name, body-frame point) as in ``Case.probes``. ``unwraps``: {probe name:
    ``Unwrap``} where q is a chunk of a run after others (filled in for the next chunk); the columns
    are then those of the whole run, bit for bit (``time_loop.two_rows``)."""
    index = {body.name: body for body in model.bodies}
    unwraps = {} if unwraps is None else unwraps
    columns = {}
    for name, body, point in probes:
        part = {key: values[: len(q)] for key, values in _probe_columns(index[body], name, point, two_rows(q),
                                                                         model.dim).items()}
        if f"{name}.angle" in part:  # continuous in time: unwrapped from its value at the first frame
            angle = unwraps.setdefault(name, Unwrap())(part[f"{name}.angle"])
            theta = part.get(f"{name}.elastic_angle")
            part[f"{name}.angle"] = angle if theta is None else angle + theta
        columns.update(part)
    return columns


def elastic_statistics(columns, probes):
    """Max |.| and RMS over the frames of the elastic components of every probe on a flexible body:
    {probe: {component: {"max_abs", "rms"}}}, for ``summary.json``."""
    stats = {}
    for name, _, _ in probes:
        values = {c: columns[f"{name}.{c}"] for c in ELASTIC if f"{name}.{c}" in columns}
        if values:
            stats[name] = {c: {"max_abs": float(np.abs(v).max()), "rms": float(np.sqrt(np.mean(v**2)))}
                           for c, v in values.items()}
    return stats


def _elastic_points(f, shape, q):
    """World elastic displacements (F, K P, 2) of the points whose body-frame shape matrices
    ``C S(xi) Cbar`` are ``shape`` (K, P, 2, 6) (003 eq. 110): ``sum_i (S_1i I + S_2i J) c_i`` over the
    nodal coordinates i, whose carriers are the body's carriers mapped by the basis (q_nodal = B q)."""
    frames = len(q)
    carriers = np.moveaxis(q[:, f.carriers], 0, 1).reshape(f.n_elastic, 2 * frames)
    nodal = np.asarray(f.beam.basis @ carriers).reshape(-1, frames, 2)[f.beam.elements.dofs]  # (K, 6, F, 2)
    u = (np.einsum("kpj,kjfa->fkpa", shape[:, :, 0], nodal)
         + np.einsum("kpj,ab,kjfb->fkpa", shape[:, :, 1], J, nodal))
    return u.reshape(frames, -1, 2)


def _section_fields(beam, q_elastic, xi):
    """Axial force N, bending moment M and largest normal stress |N|/A + |M| c/I at the points ``xi``
    of every element over the frames, each (F, K P), from ``analysis.section_forces`` (one state per
    call); the stress is NaN for a section without outer-fibre distance c."""
    forces = [section_forces(beam, q, xi) for q in q_elastic]
    axial = np.array([s.axial for s in forces]).reshape(len(forces), -1)
    moment = np.array([s.moment for s in forces]).reshape(len(forces), -1)
    if beam.section.fibre is None:
        return axial, moment, np.full_like(axial, np.nan)
    return axial, moment, np.array([s.sigma_max for s in forces]).reshape(len(forces), -1)


def _centre_line(body, q, v, xi, origin):
    """Points (F, K P, 2) and point fields of the centre line of one flexible body, sampled at ``xi``
    in every element (element ends repeated, so fields may jump between elements); the displacement
    from the coordinates ``origin`` (1, n)."""
    f = body.flexible
    elements = f.beam.elements
    X = elements.positions(xi).reshape(-1, 2)
    shape = elements.body_shape(xi)
    rigid = _rigid_points(body, X, q)
    elastic = _elastic_points(f, shape, q)
    points = rigid + elastic
    axial, moment, stress = _section_fields(f.beam, q[:, f.elastic], xi)
    fields = {
        "velocity": _rigid_points(body, X, v) + _elastic_points(f, shape, v),
        "displacement": points - (_rigid_points(body, X, origin) + _elastic_points(f, shape, origin)),
        "elastic_displacement": elastic,
        "axial_force": axial,
        "bending_moment": moment,
        "max_bending_stress": stress,
    }
    return points, fields


def centre_lines(model, q, v, subdivisions=SUBDIVISIONS, origin=None):
    """The deformed centre lines of the model's flexible bodies over the frames q, v (F, n) as
    ``vtk.Lines``: every element cut into ``subdivisions`` line cells along its cubic Hermite shape
    (003 eq. 46), with the point fields ``velocity``, ``displacement`` (from the coordinates ``origin``
    (n,), default the first frame: the run's initial state where q is a later chunk of it),
    ``elastic_displacement`` (world frame), ``axial_force``, ``bending_moment`` and
    ``max_bending_stress`` = |N|/A + |M| c/I (``analysis.SectionForces``)."""
    xi = np.linspace(0.0, 1.0, subdivisions + 1)
    flexible = [(i, body) for i, body in enumerate(model.bodies) if body.flexible is not None]
    origin = q[:1] if origin is None else np.asarray(origin)[None]
    points, fields, segments, body_id, start = [], [], [], [], 0
    for i, body in flexible:
        p, data = _centre_line(body, q, v, xi, origin)
        k = len(body.flexible.beam.elements.length)
        first = start + (len(xi) * np.arange(k)[:, None] + np.arange(subdivisions)).ravel()
        segments.append(np.column_stack([first, first + 1]))
        body_id.append(np.full(len(first), i))
        points.append(p)
        fields.append(data)
        start += p.shape[1]
    return Lines(np.concatenate(points, axis=1), np.concatenate(segments), np.concatenate(body_id),
                 {name: np.concatenate([d[name] for d in fields], axis=1) for name in fields[0]})
