"""Result folders: where a command writes (``default_folder``), the check of a folder before any run
(``output_folder``), and atomic publishing (``publish``): a result is written into a temporary sibling
(``partial``) and moved into place when it is complete, so that a failed or interrupted write leaves
neither a half-written folder nor a stray sibling, and an earlier result stays until the new one
replaces it.

A folder that a study writes in place (a sweep that appends its rows, a convergence study) is checked
the same way but written into directly (``published=False``). A refused folder is a ``CaseError``
naming it and the option ``--out``.
"""
import os
import shutil
import tempfile
from pathlib import Path

from .reader import CaseError

RESULTS = Path("results")  # the default parent of result folders


def default_folder(case_path, kind=None):
    """``results/<case file stem>``, or ``results/<stem>_<kind>`` for a study (e.g. ``sensitivity``)."""
    stem = Path(case_path).stem
    return RESULTS / (f"{stem}_{kind}" if kind else stem)


def output_folder(out, marker=("summary.json", "incomplete.json"), what="a femdyn result folder", published=True):
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
