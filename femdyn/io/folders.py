"""Result folders: where a command writes (``default_folder``), the check of a folder before any run
(``output_folder``), atomic publishing (``publish``), and the files that say what state a run's folder
is in (the lock, the incomplete marker, the checkpoint).

**Publishing.** A result is written into a temporary sibling (``partial``) and moved into place when it
is complete, so that a failed or interrupted write leaves neither a half-written folder nor a stray
sibling, and an earlier result stays until the new one replaces it. A folder that a study writes in
place (a sweep that appends its rows, a convergence study) is checked the same way but written into
directly (``published=False``). A refused folder is a ``CaseError`` naming it and the option ``--out``.

**A run's folder while it is written** (``results.ResultWriter``): the process that writes it holds
``LOCK`` (``lock``; ``check_unlocked`` refuses a folder still being written); ``MARKER``
(``incomplete.json``, ``write_marker``) says that the run is not finished, up to which time the folder
is valid and how many rows of each table are (``valid_rows``); ``CHECKPOINT`` (``checkpoint.npz``,
``write_checkpoint``, ``read_checkpoint``) holds the ``time_loop.Checkpoint`` and the writer's record of
its files, from which ``femdyn run --resume`` goes on. Each is replaced whole (``replace``: written
beside, synced, moved into place), so that after a crash the folder holds the old file or the new one.
"""
import fcntl
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..integrators.time_loop import Checkpoint
from . import jsonfile
from .reader import CaseError

RESULTS = Path("results")  # the default parent of result folders
SUMMARY, MARKER, CHECKPOINT = "summary.json", "incomplete.json", "checkpoint.npz"
LOCK = ".lock"  # held (flock) by the process that writes a run's folder, released when it ends or dies
FORMAT = "femdyn run 1"  # of a run's checkpoint


def default_folder(case_path, kind=None):
    """``results/<case file stem>``, or ``results/<stem>_<kind>`` for a study (e.g. ``sensitivity``)."""
    stem = Path(case_path).stem
    return RESULTS / (f"{stem}_{kind}" if kind else stem)


def output_folder(out, marker=(SUMMARY, MARKER), what="a femdyn result folder", published=True):
    """``out``, checked before any run as the folder of a new result of the kind that ``marker`` (a file
    name, or a tuple of them: any one) identifies: CaseError (--out) if it holds something else (a file,
    or a non-empty folder without ``marker``) or cannot be written (``_try_folder``). A run's folder is
    one with ``summary.json``, or ``incomplete.json`` while it runs or after it was killed. ``published``: the result is written beside
    ``out`` and moved there (``publish``); else into ``out`` itself."""
    try:
        if out.exists() and not out.is_dir():
            raise CaseError(out, "--out", "exists and is not a folder; not replacing it")
        markers = (marker,) if isinstance(marker, str) else marker
        if out.is_dir() and any(out.iterdir()) and not any((out / name).is_file() for name in markers):
            raise CaseError(out, "--out", f"exists and is not {what} (no {' or '.join(markers)}); not replacing it")
        _try_folder(out, published)
    except OSError as err:
        raise CaseError(out, "--out", f"cannot be created ({err.strerror or err})") from None
    return out


def _try_folder(out, published):
    """Create the folders missing above ``out`` and a trial folder where the result will be written --
    beside ``out`` if ``published`` (as ``publish`` does) or ``out`` does not exist yet, else in it --
    then remove all of them; CaseError if the nearest existing folder above ``out`` is a file, OSError if
    creating fails."""
    path = out.resolve()  # without the '..' of a path through folders that do not exist yet
    made = [folder for folder in path.parents if not folder.exists()]  # the deepest first
    above = path.parents[len(made)]
    if not above.is_dir():
        raise CaseError(out, "--out", f"{above} is not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        trial = partial(path) if published or not path.is_dir() else Path(tempfile.mkdtemp(dir=path))
        trial.rmdir()
    finally:
        for folder in made:
            if folder.is_dir():
                folder.rmdir()


def partial(out):
    """A new empty folder beside ``out`` for its contents until they are complete."""
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))


def publish(out, write):
    """Call ``write(folder)`` on a temporary sibling of ``out``, then move it into place (an earlier
    folder is put back if the move fails); returns what ``write`` returns."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = partial(out)
    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)  # mkdtemp makes it private; a result folder is an ordinary one
    old = None
    try:
        value = write(folder)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            out.replace(old)  # onto the empty placeholder
        try:
            folder.rename(out)
        except OSError:
            if old is not None:
                old.rename(out)
                old = None
            raise
    finally:
        for leftover in (folder, old):
            if leftover is not None and leftover.exists():
                shutil.rmtree(leftover)
    return value


def replace(path, write):
    """Write ``path`` through ``write(file)`` beside it, sync it and move it into place: a reader, and the
    folder after a crash, has the old file or the new one."""
    partial = path.with_name(f".{path.name}.partial")
    with open(partial, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    partial.replace(path)


def sync_folder(folder):
    """Sync ``folder``'s entries (files made, moved or removed in it) to the disk."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def valid_rows(folder, table):
    """The rows of ``table`` that the marker of an incomplete result ``folder`` says are valid (the
    rows after them, if any, may be cut off), or None for a finished result; ``valid_until_t`` too."""
    try:
        marker = json.loads((Path(folder) / MARKER).read_text())
    except (OSError, ValueError):
        return None, None
    return marker.get("rows", {}).get(table, 0), marker.get("valid_until_t")


def lock(folder, option="--out"):
    """The open lock file of ``folder``, locked for this process; CaseError (naming ``option``) if
    another process holds it (a run still writing into the folder)."""
    handle = open(Path(folder) / LOCK, "a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise CaseError(folder, option, "a femdyn run is still writing into it") from None
    return handle


def check_unlocked(folder, option="--out"):
    """CaseError (naming ``option``) if a running femdyn process writes into ``folder`` (``lock``)."""
    if (Path(folder) / LOCK).is_file():
        lock(folder, option).close()


def read_checkpoint(folder):
    """The run state that ``write_checkpoint`` saved in ``folder``: (meta, ``Checkpoint``); CaseError
    (--resume) if the folder holds none or it cannot be read."""
    folder = Path(folder)
    path = folder / CHECKPOINT
    if not (folder / MARKER).is_file() or not path.is_file():
        what = "a finished run" if (folder / SUMMARY).is_file() else "no interrupted femdyn run"
        raise CaseError(folder, "--resume", f"holds {what} (no {MARKER} and {CHECKPOINT}): nothing to resume")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(str(arrays.pop("meta")))
        if meta.get("format") != FORMAT:
            raise ValueError(f"format {meta.get('format')!r}, not {FORMAT!r}")
        states = [arrays.get(f"state.{k}") for k in range(int(arrays["states"]))]
        solver = {name.removeprefix("solver."): value for name, value in arrays.items() if name.startswith("solver.")}
        checkpoint = Checkpoint(int(arrays["step"]), arrays["q"], arrays["v"], arrays["lam"], states,
                                float(arrays["work"]), float(arrays["dissipation"]), float(arrays["initial_total"]),
                                solver)
        meta["origin"] = arrays["origin"]
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as err:  # a damaged or foreign file
        raise CaseError(path, "file", f"cannot read the checkpoint ({err or type(err).__name__})") from None
    return meta, checkpoint


def write_checkpoint(folder, checkpoint, origin, meta):
    """Save ``checkpoint`` (a ``time_loop.Checkpoint``), ``origin`` (q at t = 0) and ``meta`` (the
    writer's record of the run and its files, JSON) as ``CHECKPOINT`` in ``folder``, for ``read_checkpoint``."""
    arrays = {"q": checkpoint.q, "v": checkpoint.v, "lam": checkpoint.lam, "step": checkpoint.step,
              "work": checkpoint.work, "dissipation": checkpoint.dissipation,
              "initial_total": checkpoint.initial_total, "states": len(checkpoint.states), "origin": origin,
              "meta": np.array(json.dumps(meta))}
    arrays.update({f"state.{k}": np.asarray(s) for k, s in enumerate(checkpoint.states) if s is not None})
    arrays.update({f"solver.{name}": np.asarray(value) for name, value in checkpoint.solver.items()})
    replace(Path(folder) / CHECKPOINT, lambda f: np.savez(f, **arrays))


def write_marker(folder, marker):
    """Replace ``MARKER`` in ``folder`` by ``marker``: {"complete": False, "state", "valid_until_t",
    "rows": {table: valid rows}, ...} (``valid_rows`` reads it)."""
    replace(Path(folder) / MARKER, lambda f: f.write(jsonfile.dumps(marker).encode()))
