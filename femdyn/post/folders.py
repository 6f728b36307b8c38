"""Result folders: where a command writes (``default_folder``), the check of a folder before any run
(``output_folder``), atomic publishing (``publish``), and the files that say what state a run's folder
is in (the lock, the incomplete marker, the checkpoint).

**Publishing.** A result is written into a temporary sibling (``partial``) and moved into place when it
is complete, so that a failed or interrupted write leaves neither a half-written folder nor a stray
sibling, and an earlier result stays until the new one replaces it. A folder that a study writes in
place (a sweep that appends its rows, a convergence study) is checked the same way but written into
directly (``published=False``). A refused folder is a ``CaseError`` naming it and the option ``--out``.

**Only femdyn's own folders are replaced.** Every folder femdyn makes holds ``OWNER`` (``.femdyn``,
written by ``publish`` and ``mark``); ``output_folder`` refuses an existing folder that is not empty and
lacks it -- a folder of the user's that merely holds a ``summary.json``, also behind a symbolic link --
unless the command is given ``--force``.

**A run's folder while it is written** (``results.ResultWriter``): the process that writes it holds
``LOCK`` (``lock``; ``check_unlocked`` refuses a folder still being written); ``MARKER``
(``incomplete.json``, ``write_marker``) says that the run is not finished, up to which time the folder
is valid and how many rows of each table are (``valid_rows``); ``CHECKPOINT`` (``checkpoint.npz``,
``write_checkpoint``, ``read_checkpoint``) holds the ``time_loop.Checkpoint`` and the writer's record of
its files, from which ``femdyn run --resume`` goes on. Each is replaced whole (``replace``: written
beside, synced, moved into place), so that after a crash the folder holds the old file or the new one.

**A folder to resume is untrusted input** (it may have been handed over, or damaged): ``read_checkpoint``
checks the checkpoint's record of the files against the folder before anything is written
(``check_resumable``): its tables are femdyn's own names (``history.csv``, ..., no path), each a regular
file holding at least the bytes and exactly the rows (lines of the header's number of fields) that the
checkpoint says, every frame it lists is there, and nothing in the folder or its ``vtk/`` is a symbolic
link (femdyn writes no file through one). A folder that does not match is refused in one line naming what
does not match, and stays as it was: resumable again once it is put right.
"""
import fcntl
import json
import math
import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..integrators.time_loop import Checkpoint
from ..io import jsonfile
from ..io.tables import STATUS, parse_rows
from .probes import RATES
from ..casefile.reader import CaseError

RESULTS = Path("results")  # the default parent of result folders
SUMMARY, MARKER, CHECKPOINT = "summary.json", "incomplete.json", "checkpoint.npz"
LOCK = ".lock"  # held (flock) by the process that writes a run's folder, released when it ends or dies
FORMAT = "femdyn run 1"  # of a run's checkpoint
OWNER = ".femdyn"  # in every folder femdyn makes (``mark``): what --out replaces without --force
FRAME = re.compile(r"vtk/(frame|lines)_(\d{5,})\.vtu")  # a ParaView frame (``vtk.write_vtk_frames``)


def default_folder(case_path, kind=None):
    """``results/<case file stem>``, or ``results/<stem>_<kind>`` for a study (e.g. ``sensitivity``)."""
    stem = Path(case_path).stem
    return RESULTS / (f"{stem}_{kind}" if kind else stem)


def output_folder(out, marker=(SUMMARY, MARKER), what="a femdyn result folder", published=True, force=False):
    """``out``, checked before any run as the folder of a new result of the kind that ``marker`` (a file
    name, or a tuple of them: any one) identifies: CaseError (--out) if it holds something else (a file,
    or a non-empty folder without ``OWNER`` or without ``marker``: one femdyn did not make, or of another
    kind; also where ``out`` is a symbolic link to it) or cannot be written (``_try_folder``). A run's
    folder is one with ``summary.json``, or ``incomplete.json`` while it runs or after it was killed.
    ``published``: the result is written beside ``out`` and moved there (``publish``); else into ``out``
    itself. ``force`` (the commands' ``--force``): a non-empty folder is taken whatever it holds."""
    try:
        if out.exists() and not out.is_dir():
            raise CaseError(out, "--out", "exists and is not a folder; not replacing it")
        markers = (marker,) if isinstance(marker, str) else marker
        if out.is_dir() and any(out.iterdir()) and not force:
            link = f" (where the link {str(out)!r} leads)" if out.is_symlink() else ""
            if not any((out / name).is_file() for name in markers):
                raise CaseError(out, "--out", f"exists and is not {what} (no {' or '.join(markers)}){link}; not "
                                "replacing it: give another --out, or --force to replace it and all it holds")
            if not _regular(out / OWNER):
                raise CaseError(out, "--out", f"exists, is not empty and was not made by femdyn (no {OWNER}){link}; "
                                "not replacing it: give another --out, or --force to replace it and all it holds")
        _try_folder(out, published)
    except OSError as err:
        raise CaseError(out, "--out", f"cannot be created ({err.strerror or err})") from None
    return out


def _try_folder(out, published):
    """Create the folders missing above ``out`` and a trial folder where the result will be written --
    beside ``out`` if ``published`` (as ``publish`` does) or ``out`` does not exist yet -- then remove all
    of them; an existing ``out`` written in place is only asked whether it may be written (nothing is made
    in a folder that may yet be refused). CaseError if the nearest existing folder above ``out`` is a file,
    OSError if creating fails or the folder may not be written."""
    path = out.resolve()  # without the '..' of a path through folders that do not exist yet
    made = [folder for folder in path.parents if not folder.exists()]  # the deepest first
    above = path.parents[len(made)]
    if not above.is_dir():
        raise CaseError(out, "--out", f"{above} is not a folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not published and path.is_dir():  # written in place: asked, not tried (nothing made in it yet)
            if not os.access(path, os.W_OK | os.X_OK):
                raise PermissionError(13, os.strerror(13))
            return
        partial(path).rmdir()
    finally:
        for folder in made:
            if folder.is_dir():
                folder.rmdir()


def _regular(path):
    """Whether ``path`` is a regular file itself (not a symbolic link to one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def mark(folder):
    """Write ``OWNER`` into ``folder``: femdyn made it, and may replace it (``output_folder``)."""
    Path(folder, OWNER).write_text("made by femdyn: femdyn --out may replace this folder\n")


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
        mark(folder)
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
    partial.unlink(missing_ok=True)  # a file left by a crash, or a link planted there: never written through
    with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666), "wb") as f:
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
    try:  # not through a symbolic link planted at its name
        handle = os.fdopen(os.open(Path(folder) / LOCK, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW,
                                   0o666), "a")
    except OSError as err:
        raise CaseError(Path(folder) / LOCK, option, f"cannot be opened ({err.strerror or err})") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise CaseError(folder, option, "a femdyn run is still writing into it") from None
    return handle


def check_unlocked(folder, option="--out"):
    """CaseError (naming ``option``) if a running femdyn process writes into ``folder`` (``lock``)."""
    if os.path.lexists(Path(folder) / LOCK):
        lock(folder, option).close()


def read_checkpoint(folder, tables):
    """The run state that ``write_checkpoint`` saved in ``folder``: (meta, ``Checkpoint``); CaseError
    (--resume) if the folder holds none, it cannot be read or the folder does not match it
    (``check_resumable``, with ``tables`` the names of a run's tables)."""
    folder = Path(folder)
    path = folder / CHECKPOINT
    if not (folder / MARKER).is_file() or not path.is_file():
        what = "a finished run" if (folder / SUMMARY).is_file() else "no interrupted femdyn run"
        raise CaseError(folder, "--resume", f"holds {what} (no {MARKER} and {CHECKPOINT}): nothing to resume")
    try:
        with open(path, "rb") as file, np.load(file, allow_pickle=False) as data:  # closed if np.load fails too
            arrays = {name: data[name] for name in data.files}
        meta = json.loads(str(arrays.pop("meta")), parse_constant=_no_constant)
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"format {meta.get('format') if isinstance(meta, dict) else None!r}, not {FORMAT!r}")
        for name, value in arrays.items():
            if value.dtype.kind not in "biuf" or not np.isfinite(value).all():
                raise ValueError(f"{name} is not an array of finite numbers")
        if any(arrays[name].ndim != 1 for name in ("q", "v", "lam", "origin")):
            raise ValueError("q, v, lam and origin must be 1-D arrays")
        states = [arrays.get(f"state.{k}") for k in range(_count(arrays["states"], "states", 10**6))]
        solver = {name.removeprefix("solver."): value for name, value in arrays.items() if name.startswith("solver.")}
        checkpoint = Checkpoint(_count(arrays["step"], "step", 2**62), arrays["q"], arrays["v"], arrays["lam"],
                                states, float(arrays["work"]), float(arrays["dissipation"]),
                                float(arrays["initial_total"]), solver)
        meta["origin"] = arrays["origin"]
    except (OSError, EOFError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as err:  # damaged or foreign
        # not NumPy's advice to allow pickles: an object array in a folder handed over is code it would run
        reason = "it holds Python objects, which femdyn never loads" if "allow_pickle" in str(err) else err
        raise CaseError(path, "file", f"cannot read the checkpoint ({' '.join(str(reason).split()) or type(err).__name__})") from None
    check_resumable(folder, meta, tables, checkpoint.step)
    return meta, checkpoint


def _no_constant(name):
    raise ValueError(f"{name} in its record")


def _count(value, what, limit):
    """An integer 0..``limit`` saved as a 0-d array; ValueError else."""
    if value.ndim or value.dtype.kind not in "iu" or not 0 <= int(value) <= limit:
        raise ValueError(f"{what} is not an integer from 0 to {limit}")
    return int(value)


def _integer(value, low=0):
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < 2**62


def _finite(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_resumable(folder, meta, tables, step):
    """CaseError (--resume) unless the record ``meta`` of the checkpoint of ``step`` steps matches the
    result folder ``folder`` (module docstring): its tables among ``tables`` (names), each a regular file
    not linked elsewhere, at least as long as recorded and holding the recorded rows in its first bytes,
    the history's rows the steps + 1; its frames there; no symbolic link in the folder or its vtk/.
    Reads only; nothing is written before it passes."""
    folder = Path(folder)

    def refuse(message):
        raise CaseError(folder, "--resume", f"{message}; not resuming (the folder is left as it is)")

    sizes, rows = meta.get("bytes"), meta.get("rows")
    if not (isinstance(sizes, dict) and isinstance(rows, dict)) or sizes.keys() != rows.keys():
        refuse(f"{CHECKPOINT} records no table sizes and rows of the same tables")
    for name in sizes:
        if name not in tables:
            refuse(f"{CHECKPOINT} records the table {name!r}, which is not one of femdyn's ({', '.join(tables)})")
        if not (_integer(sizes[name]) and _integer(rows[name])):
            refuse(f"{CHECKPOINT} records {sizes[name]!r} bytes and {rows[name]!r} rows of {name}, not counts")
    frames, count = meta.get("frames"), meta.get("frame_count")
    if not (isinstance(frames, list) and _integer(count) and _integer(meta.get("next_step"), 1)
            and _finite(meta.get("wall_time")) and isinstance(meta.get("unwraps"), dict)
            and isinstance(meta.get("options"), dict) and isinstance(meta.get("case"), str)
            and _finite(meta.get("t_written", 0.0))):
        refuse(f"{CHECKPOINT} does not record the frames, the steps, the probes and the options of a run")
    if meta["next_step"] != step + 1 or rows.get(tables[0]) != step + 1:
        refuse(f"{CHECKPOINT} is of step {step}, but records {rows.get(tables[0])!r} rows of {tables[0]} and "
               f"{meta['next_step']!r} steps written")
    for name, state in meta["unwraps"].items():
        if str(name).endswith(RATES):  # a probe's last two (t, v) rows (``probes.Rates``)
            if not (isinstance(state, list) and len(state) <= 2 and all(
                    isinstance(row, list) and 3 <= len(row) <= 4 and all(map(_finite, row)) for row in state)):
                refuse(f"{CHECKPOINT} records the velocities {state!r} of {name!r}, not two rows (t, v)")
        elif not (isinstance(state, list) and len(state) == 2 and all(map(_finite, state))):
            refuse(f"{CHECKPOINT} records an unwrapped angle {state!r}, not two numbers")
    numbers = set()
    for entry in frames:
        match = FRAME.fullmatch(entry[2]) if isinstance(entry, list) and len(entry) == 3 and \
            isinstance(entry[2], str) else None
        if not (match and _finite(entry[0]) and _integer(entry[1]) and entry[1] <= 1):
            refuse(f"{CHECKPOINT} records a frame {entry!r}, not one of femdyn's")
        numbers.add(int(match[2]))
    if numbers != set(range(count)):
        refuse(f"{CHECKPOINT} records frames numbered other than 0 to {count - 1}")
    try:
        for inside in (folder, folder / "vtk"):
            links = [p for p in inside.iterdir() if p.is_symlink()] if inside.is_dir() else []
            if links or inside.is_symlink():
                refuse(f"{(links or [inside])[0]} is a symbolic link (femdyn writes no file through one)")
        for name in sizes:
            _check_table(folder / name, sizes[name], rows[name], refuse)
    except OSError as err:
        refuse(f"cannot be read ({err.strerror or err})")
    for _, _, name in frames:
        if not _regular(folder / name):
            refuse(f"the frame {name} that {CHECKPOINT} records is missing")


def _check_table(path, size, rows, refuse):
    """``refuse`` unless ``path`` is a regular file with one name, of at least ``size`` bytes whose first
    ``size`` hold a header and ``rows`` lines of as many numbers as it names (``tables.append_csv``: a
    missing one empty; the words of the column ``STATUS``)."""
    name = path.name
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        refuse(f"{name} is missing (the checkpoint records {rows} rows of it)")
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        refuse(f"{name} is not a regular file with one name (femdyn appends to its own tables only)")
    if info.st_size < size:
        refuse(f"{name} holds {info.st_size} bytes, fewer than the {size} its checkpoint records (cut short)")
    with open(path, "rb") as f:
        data = f.read(size)
    header, _, body = data.partition(b"\n")
    complete = body.count(b"\n")
    if complete != rows or not data.endswith(b"\n"):
        refuse(f"{name} holds {complete} complete rows in its first {size} bytes, not the {rows} its checkpoint "
               "records")
    names = header.decode("latin-1").split(",")
    try:
        values = parse_rows(body.decode("latin-1").splitlines(keepends=True), names)
    except ValueError:
        values = None
    if values is None or len(values[names[0]]) != rows:
        refuse(f"{name}: its first {size} bytes hold a row that is not {len(names)} numbers, as its header names")


def check_state(folder, checkpoint, origin, model, steps):
    """CaseError (--resume) unless the checkpoint's state fits ``model`` and a run of ``steps`` steps:
    q, v and the q at t = 0 ``origin`` of n coordinates, m multipliers, the forces' states as the model's,
    a step not past the end."""
    shapes = {"q": checkpoint.q.shape, "v": checkpoint.v.shape, "origin": origin.shape, "lam": checkpoint.lam.shape,
              "the forces' states": [None if s is None else np.shape(s) for s in checkpoint.states]}
    want = {"q": (model.n,), "v": (model.n,), "origin": (model.n,), "lam": (model.m,),
            "the forces' states": [None if s is None else np.shape(s) for s in model.initial_states(origin)]}
    wrong = [name for name in shapes if shapes[name] != want[name]]
    if wrong or checkpoint.step > steps:
        what = (f"{wrong[0]} of shape {shapes[wrong[0]]!r}, not {want[wrong[0]]!r}" if wrong
                else f"step {checkpoint.step} of a run of {steps}")
        raise CaseError(folder, "--resume", f"{CHECKPOINT} holds {what}; not resuming (the folder is left as it is)")


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
