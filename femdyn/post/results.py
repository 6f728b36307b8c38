"""The result folder of a run: CSV histories, ParaView series, plots and ``summary.json``, written as
the run goes (``ResultWriter``).

``history.csv``  time, energies, momenta, constraint residual, Newton iterations, joint coordinates
``inputs.csv``   servo inputs (actuator torques/forces) at the time nodes, with ``inputs.png`` (``nodes``)
``reactions.csv`` force and moment of every joint on each of its bodies, with ``reactions.png`` (``nodes``)
``bodies.csv``   body centres and orientations (2D: angle of d1; 3D: the directors)
``probes.csv``   the case's probes: position and orientation of the deformed material point and, on
                 flexible bodies, its elastic displacement (``probes``), with ``probes.png``
``gauges.csv``   the case's strain gauges: ``G.strain`` [1] and ``G.stress`` [Pa] (``model.gauges``), with
                 ``gauges.png``
``energy.png``, ``joint_coordinates.png`` [, ``joint_coordinates_dt.png`` with other time steps]
``motion.pvd`` + ``vtk/`` + ``bodies.txt``  every ``every``-th frame and the last: rigid bodies as
                 boxes with velocities, flexible bodies as their deformed centre lines with velocity,
                 displacement, elastic displacement, section forces and stress (``probes.centre_lines``)
``states.csv``   the full state of every frame (the ParaView frames' steps, also without the series):
                 ``t``, ``q.<coordinate>`` and ``v.<coordinate>`` over all the model's coordinates, 17
                 digits (float64 exactly), from which ``femdyn linearize``/``modes --result DIR --frame K``
                 linearise at frame K (``equilibrium.state_at``)
``units.json``    the SI unit of every column of every table ({table: {column: unit}})
``summary.json`` run statistics, max |.| and RMS of the probes' elastic displacements and deviations from the
                 rigid mechanism (``deviation.singular``: the frames where it is singular), the list of files

**Written as the run goes.** The time loop gives its history out in chunks (``time_loop.simulate``'s
``output``), at least every ``SAVE_SECONDS`` of wall time and at most ``CHUNK_BYTES`` of q and v in
memory; each chunk's rows are appended to the tables and its frames written, and then, in this order,
``checkpoint.npz`` (the ``time_loop.Checkpoint`` and where each file ends) and ``incomplete.json`` (the
marker: up to which time the folder is valid, how many rows each table holds, and the command that
resumes the run) are replaced, each file synced to the disk first. Until the run ends the folder holds
``incomplete.json``; after ``kill -9``, a crash or a power cut it holds every row of the chunks saved
(a table can end in rows after them, or in a line cut off: read ``rows`` lines of it, as femdyn's
readers do). ``femdyn run CASE --resume DIR`` (``ResultWriter.resume``) cuts the tables back to the
checkpoint and goes on from it; the folder it ends with is the one of a run that did not stop, file
for file (but the wall time). When the run ends -- complete, or stopped by a failure -- the plots and
``summary.json`` are written (from the tables) and the marker and checkpoint removed; a run stopped by
a signal keeps them, so that it can be resumed. The last chunk saves its checkpoint like the others, so
that a run killed while it writes its plots and summary is resumed too: with no step left to compute,
``--resume`` writes them.

The energy drift is the energy balance at the end, H_end - H_0 - W_end (so the work of the loads does
not count as drift), relative to max(|H|, T) over the run. The summary flags a balance error large
against the run's energy where the scheme keeps the energy (energy-momentum), and states the numerical
damping that explains it where it does not (generalized-alpha), flagging energy gained there
(``integrators.diagnostics.energy_check``).
"""
import hashlib
import time
from pathlib import Path

import numpy as np

from ..integrators.diagnostics import elastic_extent, energy_check, step_check, validity_check, widest
from ..io import jsonfile
from .folders import (
    CHECKPOINT,
    FORMAT,
    FRAME,
    LOCK,
    MARKER,
    SUMMARY,
    lock,
    publish,
    replace,
    sync_folder,
    write_checkpoint,
    write_marker,
)
from .nodes import INPUTS, REACTIONS, NodeTables
from ..model.deviation import Deviation
from ..model.motion import body_motion
from ..model.gauges import gauge_statistics, gauge_table
from .probes import (centre_lines, chunk_states, conditioning_statistics, deviation_about, deviation_statistics,
                     elastic_statistics, probe_table)
from ..casefile.reader import CaseError
from .run_plots import PlotSpec, write_plots
from ..io.tables import append_csv, read_csv
from ..io.units import write_units
from ..io.vtk import write_bodies, write_pvd, write_vtk_frames

HISTORY, BODIES, PROBES, GAUGES, STATES = "history.csv", "bodies.csv", "probes.csv", "gauges.csv", "states.csv"
TABLES = (HISTORY, BODIES, PROBES, INPUTS, REACTIONS, GAUGES, STATES)  # a run's tables, the history first
# (``folders.read_checkpoint``)
PLOTS = ("energy.png", "joint_coordinates.png", "joint_coordinates_dt.png", "inputs.png", "probes.png", "path.png",
         "reactions.png", "gauges.png")  # every plot of ``run_plots.write_plots``
SERIES = "motion.pvd"
SAVE_SECONDS = 2.0  # wall time between the chunks written (femdyn run --save-every)
CHUNK_BYTES = 64 * 2**20  # q and v of a chunk held in memory at most


def history_columns(model, results):
    """The columns of ``history.csv`` for ``results`` (``time_loop.Results``, a run or a chunk of it)."""
    axes = "xyz"
    columns = {"t": results.t, "kinetic": results.kinetic, "potential": results.potential,
               "total": results.total, "work": results.work, "dissipation": results.dissipation,
               "energy_balance": results.energy_balance}
    columns.update({f"momentum_{axes[i]}": results.momentum[:, i] for i in range(model.dim)})
    angular = results.angular_momentum
    names = ["z"] if angular.shape[1] == 1 else axes
    columns.update({f"angular_momentum_{a}": angular[:, i] for i, a in enumerate(names)})
    columns["constraint_residual"] = results.residual
    columns["newton_iterations"] = results.iterations
    for name, index in model.joint_coordinates.items():
        columns[name] = results.q[:, index]
        columns[f"{name}_rate"] = results.v[:, index]
    return columns


def bodies_columns(model, results, centres, rotations):
    """The columns of ``bodies.csv``: every body's centre and angle (2D) or directors (3D) at ``results.t``."""
    columns = {"t": results.t}
    for b, body in enumerate(model.bodies):
        for i, axis in enumerate("xyz"[: model.dim]):
            columns[f"{body.name}.{axis}"] = centres[:, b, i]
        if model.dim == 2:
            columns[f"{body.name}.angle"] = np.arctan2(rotations[:, b, 1, 0], rotations[:, b, 0, 0])
        else:
            for a in range(3):
                for i, axis in enumerate("xyz"):
                    columns[f"{body.name}.d{a + 1}{axis}"] = rotations[:, b, i, a]
    return columns


def states_columns(model, t, q, v):
    """The columns of ``states.csv``: t and every coordinate's value and rate at the frames (t, q, v)."""
    columns = {"t": t}
    columns.update({f"q.{name}": q[:, i] for i, name in enumerate(model.coordinate_names)})
    columns.update({f"v.{name}": v[:, i] for i, name in enumerate(model.coordinate_names)})
    return columns


def _summary(case, history, last, wall_time):
    """The run figures of ``summary.json`` from the columns of ``history.csv`` and the last chunk
    ``last`` (whether complete, its message, dropped constraints, factorisations)."""
    model, settings = case.model, case.settings
    steps = len(history["t"]) - 1
    active = model.m - len(last.dropped)
    total, kinetic, balance = history["total"], history["kinetic"], history["energy_balance"]
    scale = max(np.abs(total).max(initial=0.0), kinetic.max(initial=0.0)) or 1.0
    newton = history["newton_iterations"][1:]
    summary = {
        "case": str(case.path),
        "title": case.title,
        "dt": settings.step,
        "t_end": settings.t_end,
        "t_reached": float(history["t"][-1]) if steps >= 0 else 0.0,
        "steps": max(steps, 0),
        "steps_planned": settings.steps,
        "complete": bool(last.complete),
        "message": last.message,
        "n": model.n,
        "m": model.m,
        "active_constraints": active,
        "degrees_of_freedom": model.n - active,
        "dropped_constraints": [{"constraint": row, "depends_on": list(on)} for row, on in last.dropped],
        "integrator": settings.integrator,
        "max_abs_energy_balance": float(np.abs(balance).max(initial=0.0)),
        "energy_drift": float(balance[-1] / scale) if steps >= 0 else 0.0,
        "max_constraint_residual": float(history["constraint_residual"].max(initial=0.0)),
        "newton_iterations_mean": float(newton.mean()) if steps > 0 else 0.0,
        "newton_iterations_max": int(newton.max(initial=0)),
        "newton": settings.newton,
        "newton_factorisations": last.factorisations,
        "wall_time_s": wall_time,
        "ms_per_step": 1e3 * wall_time / steps if steps > 0 else 0.0,
        "output_every": case.output_every,
    }
    summary.update(step_check(settings, model))
    summary.update(energy_check(settings, history))
    return summary


def fingerprint(case, setup):
    """A digest of what a run computes: the case file, the model's mass matrix and its prepared initial
    state (a mesh file the case reads changes these); a resumed run must have the same."""
    digest = hashlib.sha256(Path(case.path).read_bytes())
    for array in (setup.q0, setup.v0, case.model.mass_matrix.tocsr().data):
        digest.update(np.ascontiguousarray(array, dtype=float).tobytes())
    return digest.hexdigest()


class ResultWriter:
    """``time_loop.simulate``'s ``output`` for a run of ``case`` into ``folder`` (module docstring):
    ``create`` starts a new folder, ``resume`` an interrupted one, ``finish`` ends it. ``meta`` is what
    the folder records about the run and its files (``FORMAT``, the ``fingerprint``, the options, where
    each table ends, the frames, the probes' unwrapping, the wall time so far); ``signals``: an
    ``interrupt.Signals`` whose pending signal stops the run; ``save_every``: seconds between chunks;
    ``plotter``: the ``plot_child.PlotChild`` (``plot_child.start``) that draws the plots (``draw_plots``)
    instead of this process."""

    def __init__(self, folder, case, meta, signals=None, save_every=SAVE_SECONDS, plotter=None):
        self.folder, self.case, self.meta, self.signals = Path(folder), case, meta, signals
        self.plotter = plotter  # the ``plot_child.PlotChild`` that draws the plots, or None: drawn here
        self.save_every = save_every
        self.unwraps = chunk_states(meta["unwraps"])  # the probes' ``Unwrap`` and ``Rates``
        self.origin = meta.pop("origin", None)  # q at t = 0, for the centre lines' displacement
        self.deviation = None  # the probes' ``Deviation`` from the rigid mechanism, made at the first chunk
        self.last = self.final = None  # the last chunk written; (step, t, q, v) of its last row
        self.lock = None  # the folder's lock (``folders.lock``) while the run writes it
        self._resumed = self._made_lock = False  # a resumed folder not yet taken up (``_take_up``); its lock file new
        self.nodes = NodeTables(case.model)  # inputs.csv and reactions.csv
        self._started = time.monotonic()
        self._next = self._started + save_every

    @classmethod
    def create(cls, out, case, run, signals=None, save_every=SAVE_SECONDS, plotter=None):
        """Publish a new result folder at ``out`` (``folders.publish``: an earlier one there is replaced
        now, so that nothing shows an older result while the new run goes or after it died) holding the
        marker; ``run``: {"fingerprint", "options", "command"} of the run."""
        writer = cls(out, case, {"format": FORMAT, "case": str(case.path), **run, "bytes": {}, "rows": {},
                                 "frames": [], "frame_count": 0, "next_step": 0, "unwraps": {}, "wall_time": 0.0},
                     signals, save_every, plotter)

        def start(folder):
            writer.folder = Path(folder)
            writer.lock = lock(folder)  # moved into place with the folder
            if case.vtk:
                write_bodies(folder, [b.name for b in case.model.bodies])
            writer._marker()

        publish(out, start)
        writer.folder = Path(out).resolve()
        return writer

    @classmethod
    def resume(cls, out, case, meta, signals=None, save_every=SAVE_SECONDS, plotter=None):
        """Take up the interrupted run in ``out`` whose ``meta`` ``read_checkpoint`` has read and checked
        against the folder (``folders.check_resumable``): the tables cut back to where they ended at its
        checkpoint, later frames removed, the plots and summary of the interruption removed (written anew
        at the end). Only femdyn's own files are removed or written: what else the folder holds stays."""
        out = Path(out)
        if case.vtk and not (out / "bodies.txt").is_file():
            raise CaseError(out, "--resume", "bodies.txt of its ParaView series is missing; not resuming (the "
                            "folder is left as it is)")
        writer = cls(out, case, meta, signals, save_every, plotter)
        writer._made_lock = not (out / LOCK).exists()
        writer.lock = lock(out, "--resume")
        writer._resumed = True  # the folder is taken up (``_take_up``) once the run goes on from the checkpoint
        return writer

    def _take_up(self):
        """Cut the tables of a resumed folder back to its checkpoint and remove what came after it: the
        later frames, and the plots and summary of the interruption (``resume``). Done when the time loop
        gives its first chunk, after it has taken the checkpoint's state: a checkpoint it refuses
        (``time_loop.CheckpointError``) leaves the folder as it was."""
        out, meta, self._resumed = self.folder, self.meta, False
        for table, size in meta["bytes"].items():  # femdyn's names, at least as long (``check_resumable``)
            with open(out / table, "r+b") as f:
                f.truncate(size)
        frames = {entry[2] for entry in meta["frames"]}
        for name in {SUMMARY, *TABLES, *PLOTS} - set(meta["bytes"]):
            (out / name).unlink(missing_ok=True)
        for name in (SUMMARY, SERIES):  # a file cut off by the interruption
            (out / f".{name}.partial").unlink(missing_ok=True)
        if (out / "vtk").is_dir():
            for path in (out / "vtk").iterdir():
                if FRAME.fullmatch(f"vtk/{path.name}") and f"vtk/{path.name}" not in frames:
                    path.unlink()
        if self.case.vtk:
            write_pvd(out / SERIES, meta["frames"])
        self._marker()

    # --- simulate's output -------------------------------------------------------------------------
    def capacity(self, n):
        return max(1, CHUNK_BYTES // (16 * n))

    def due(self):
        return self.stopping or time.monotonic() >= self._next

    @property
    def stopping(self):
        return self.signals is not None and self.signals.pending

    def write(self, chunk, checkpoint):
        """Append the rows of ``chunk`` and its frames, then save ``checkpoint`` (unless None) and the
        marker (module docstring). The last chunk's checkpoint is saved too: a run killed while it writes
        its plots and summary is resumed with no step left, and ``finish`` then takes its last state from
        the checkpoint (an empty ``chunk``)."""
        model, case, meta = self.case.model, self.case, self.meta
        if self._resumed:
            self._take_up()
        self.last = chunk
        if len(chunk.t):
            first = meta["next_step"]
            if first == 0:
                self.origin = chunk.q[0].copy()
            centres, rotations = model.frames(chunk.q)
            self._append(HISTORY, history_columns(model, chunk))
            self._append(BODIES, bodies_columns(model, chunk, centres, rotations))
            for table, columns in self.nodes.rows(chunk).items():
                self._append(table, columns)
            if case.probes:
                deviation = self._deviation()
                self._append(PROBES, {"t": chunk.t, **probe_table(model, case.probes, chunk.q, self.unwraps,
                                                                  deviation, chunk.v, chunk.t)})
            if case.gauges:
                self._append(GAUGES, {"t": chunk.t, **gauge_table(model, case.gauges, chunk.q)})
            steps = first + np.arange(len(chunk.t))
            frames = np.flatnonzero(steps % case.output_every == 0)
            if frames.size and (STATES in meta["rows"] or (first == 0 and case.states)):  # asked for at the start
                self._append(STATES, states_columns(model, chunk.t[frames], chunk.q[frames], chunk.v[frames]))
            if case.vtk and frames.size:
                meta["frames"] += self._frames(meta["frame_count"], chunk.t[frames], chunk.q[frames], chunk.v[frames])
                meta["frame_count"] += frames.size
            meta["next_step"] = first + len(chunk.t)
            self.final = (int(steps[-1]), chunk.t[-1], chunk.q[-1:], chunk.v[-1:])
            meta["t_written"] = float(chunk.t[-1])
            meta["unwraps"] = {name: u.state for name, u in self.unwraps.items()}
            if model.flexible:  # how far the sections turned in their frames (``diagnostics.validity_check``)
                meta["elastic_extent"] = widest(meta.get("elastic_extent"), elastic_extent(model, chunk.q))
        elif checkpoint is not None:  # resumed after its last step: the checkpoint holds that state
            self.final = (checkpoint.step, checkpoint.step * case.settings.step, checkpoint.q[None],
                          checkpoint.v[None])
        if checkpoint is not None:
            meta["resumes_from_t"] = checkpoint.step * case.settings.step
            self._checkpoint(checkpoint)
        if case.vtk:
            write_pvd(self.folder / SERIES, meta["frames"])
        self._marker()
        sync_folder(self.folder)
        self._next = time.monotonic() + self.save_every

    # --- the end -----------------------------------------------------------------------------------
    @property
    def wall_time(self):
        """Seconds of the run so far, the runs before a resume included."""
        return self.meta["wall_time"] + time.monotonic() - self._started

    def finish(self, compare=None, wall_time=None):
        """The plots and ``summary.json`` from the tables, the last step as a frame (if it is not one),
        and -- unless a signal stopped the run, which may then be resumed -- the marker and checkpoint
        removed; returns the summary. ``compare``: (label, t, {coordinate: values}) of runs with other
        time steps, for ``joint_coordinates_dt.png``; ``wall_time``: of the run, if not ``self.wall_time``."""
        case, model, folder, last = self.case, self.case.model, self.folder, self.last
        if self._resumed:
            self._take_up()
        wall_time = self.wall_time if wall_time is None else wall_time
        rows = self.meta["rows"]
        plots = case.plots and HISTORY in rows
        if plots:  # first: a plot child draws while the last frame and the summary are written
            job = (folder, PlotSpec.of(case, self.nodes.reactions.sides if self.nodes.reactions else ()), rows,
                   compare)
            if self.plotter is not None:
                self.plotter.submit(*job)
            else:
                draw_plots(*job)
        if self.final is not None:
            step, t, q, v = self.final
            unsaved = step % case.output_every != 0  # the last step, a frame too
            if unsaved and STATES in rows:
                self._append(STATES, states_columns(model, np.array([t]), q, v))
            if case.vtk:
                extra = self._frames(self.meta["frame_count"], [t], q, v) if unsaved else []
                write_pvd(folder / SERIES, self.meta["frames"] + extra)
        history = read_csv(folder / HISTORY, rows.get(HISTORY)) if HISTORY in rows else history_columns(model, last)
        probes = read_csv(folder / PROBES, rows[PROBES]) if PROBES in rows else {}
        summary = _summary(case, history, last, wall_time)
        summary.update(validity_check(self.meta.get("elastic_extent")))
        if probes:
            summary["probes"] = elastic_statistics(probes, case.probes)
            deviation = self._deviation()
            for name, stats in deviation_statistics(probes, case.probes).items():
                summary["probes"].setdefault(name, {})["deviation"] = stats
            summary["deviation"] = deviation_about(probes, deviation)
            conditioning = conditioning_statistics(probes, deviation)
            if conditioning:
                summary["conditioning"] = conditioning
        if GAUGES in rows:
            summary["gauges"] = gauge_statistics(read_csv(folder / GAUGES, rows[GAUGES]), case.gauges)
        stopped = last.message.startswith("interrupted")
        write_units(model, folder, TABLES)
        if stopped:
            summary["resume"] = self.meta["command"]
        if self.plotter is not None:  # the child's plots are in the folder before its files are listed
            if plots:
                self.plotter.wait()
            else:
                self.plotter.close()
        summary["files"] = sorted({p.name + "/" if p.is_dir() else p.name for p in folder.iterdir()
                                   if not p.name.startswith(".")} - ({MARKER, CHECKPOINT} if not stopped else set())
                                  | {SUMMARY})
        replace(folder / SUMMARY, lambda f: f.write(jsonfile.dumps(summary).encode()))
        if stopped:
            self._marker("interrupted")
        else:
            for name in (MARKER, CHECKPOINT):
                (folder / name).unlink(missing_ok=True)
        sync_folder(folder)
        if self.lock is not None:
            (folder / LOCK).unlink(missing_ok=True)
            self.lock.close()
        return summary

    def _deviation(self):
        """The probes' ``Deviation`` from the rigid mechanism (its independent rows chosen at t = 0)."""
        if self.deviation is None:
            self.deviation = Deviation(self.case.model, self.case.probes, self.origin)
        return self.deviation

    # --- files -------------------------------------------------------------------------------------
    def _append(self, table, columns):
        meta = self.meta
        meta["bytes"][table] = append_csv(self.folder / table, columns)
        meta["rows"][table] = meta["rows"].get(table, 0) + len(next(iter(columns.values())))

    def _frames(self, number, t, q, v):
        """Write the frames (t, q, v) from frame ``number`` on; returns their entries of ``motion.pvd``."""
        model = self.case.model
        centres, rotations, velocities, omega = body_motion(model, q, v)
        lines = centre_lines(model, q, v, origin=self.origin) if model.flexible else None
        entries = write_vtk_frames(self.folder, number, np.asarray(t), centres, rotations,
                                   [b.size for b in model.bodies], [b.name for b in model.bodies], velocities,
                                   omega, lines)
        return [[float(time_), part, name] for time_, part, name in entries]

    def release(self):
        """Let go of the folder without writing into it (a resume refused by the time loop)."""
        if self.lock is not None:
            if self._made_lock:
                (self.folder / LOCK).unlink(missing_ok=True)
            self.lock.close()
            self.lock = None

    def _checkpoint(self, checkpoint):
        write_checkpoint(self.folder, checkpoint, self.origin, {**self.meta, "wall_time": self.wall_time})

    def _marker(self, state="running"):
        """``incomplete.json``: the run is not finished; the folder is valid up to the last row written."""
        meta, settings = self.meta, self.case.settings
        marker = {"complete": False, "state": state, "case": meta["case"], "valid_until_t": meta.get("t_written"),
                  "steps_written": max(meta["next_step"] - 1, 0), "steps_planned": settings.steps,
                  "rows": meta["rows"], "resume": meta["command"],
                  "note": "every table holds valid rows up to valid_until_t (read the first 'rows' lines after "
                          "the header: a line after them may be cut off); femdyn run CASE --resume DIR "
                          "continues the run"}
        if "resumes_from_t" in meta:
            marker["resumes_from_t"] = meta["resumes_from_t"]
        write_marker(self.folder, marker)


def draw_plots(folder, spec, rows, compare, part=0, parts=1):
    """The plots of the result folder ``folder`` of a run (``spec``: ``run_plots.PlotSpec``) from its
    tables, each read up to its ``rows``; ``compare`` as for ``ResultWriter.finish``; with ``parts`` > 1
    drawer ``part``'s share of them (``run_plots.write_plots``)."""
    folder = Path(folder)
    tables = {name: read_csv(folder / name, rows[name]) if name in rows else None
              for name in (HISTORY, PROBES, INPUTS, REACTIONS, GAUGES)}
    write_plots(folder, spec, tables[HISTORY], tables[PROBES] or {}, tables[INPUTS], tables[REACTIONS], compare,
                part, parts, tables[GAUGES])


def write_results(folder, case, results, wall_time=0.0, compare=None):
    """Write the result files of ``results`` (a whole run of ``case``, from t = 0) into
    ``folder`` (made if missing) at once; returns the summary. ``compare`` as for ``ResultWriter.finish``."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    if case.vtk:
        write_bodies(folder, [b.name for b in case.model.bodies])
    writer = ResultWriter(folder, case, {"format": FORMAT, "case": str(case.path), "command": None, "bytes": {},
                                         "rows": {}, "frames": [], "frame_count": 0, "next_step": 0, "unwraps": {},
                                         "wall_time": wall_time})
    writer.write(results, None)
    return writer.finish(compare, wall_time)
