"""The plots of a run drawn by a child process forked when the run starts (``start``), with helpers forked
from it.

Why: a small case's whole run is shorter than matplotlib's import (about 0.25 s) plus its drawing of
the plots (0.15-0.3 s a figure); a command that does them one after the other makes the user wait for
their sum (benchmarks/README.md, "Start-up"). The child, forked before the parent imports numba and
loads its kernels, imports matplotlib while the parent simulates, and then waits. When the tables are
written, the parent sends it the job -- the arguments of ``draw``, pickled, no model in them
(``run_plots.PlotSpec``) -- goes on with the summary, and waits for it before it lists the folder's files.
With ``count`` processes drawing (``drawers``: two where a core is idle, else one), the child forks the
other ``count - 1`` from itself as the job comes (``_draw_shared``): they start with matplotlib imported
and its fonts loaded, so a second process costs its fork and the pages it copies (about 0.1 s of CPU),
not a second import as well (0.25 s more), and each draws its share of the figures (``run_plots.share``)
at once. The plots are the same images as drawn in the parent (``tests/cli/test_plot_child.py``).

The child never outlives the parent's interest in it: it reads its job from a pipe (its length first),
and a parent that dies (or ``close``s without a job) leaves it the end of that pipe, on which it exits
without drawing. Each child closes every file it inherited but the standard streams and its two pipes
(``_close_inherited``): the parent's sockets and other children's pipes are not held open by it.
The child's garbage collector walks neither the parent's objects nor those of the modules ``prepare``
imports: it is off while they are imported, and they are frozen (``gc.freeze``) before it draws (0.1 s of
CPU of a small run's child, the collections of matplotlib's import); the figures' garbage is collected.
It ignores SIGINT, SIGTERM and SIGHUP, which the parent answers by writing what it computed -- plots
included -- and it exits by ``os._exit``, so that nothing of the parent's (buffers, atexit handlers)
runs twice. An exception in ``draw`` is sent back pickled and raised by ``wait`` in the parent, as if
the parent had drawn (a helper's through the child). Where ``os.fork`` does not exist, ``start`` gives
None and the caller draws itself; where a helper cannot be forked, the child draws its share too.
"""
import functools
import gc
import os
import pickle
import signal
import struct

from ..casefile.reader import CaseError

IGNORED = ("SIGINT", "SIGTERM", "SIGHUP")
HEADER = struct.Struct("<Q")  # a job's length in bytes, ahead of it


def _read_all(fd, size=None):
    """``size`` bytes from ``fd`` (fewer where it ends first), or everything up to its end."""
    chunks, got = [], 0
    while size is None or got < size:
        chunk = os.read(fd, 1 << 16 if size is None else min(1 << 16, size - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _close_inherited(*keep):
    """Close every file descriptor of this (forked) process from 3 on but ``keep``: the parent's files,
    sockets, event-loop selectors and other children's pipes stay the parent's alone (a copy held here
    would keep a socket open, or an epoll registration alive, after the parent closed it)."""
    start = 3
    for fd in sorted(keep):
        os.closerange(start, fd)
        start = fd + 1
    os.closerange(start, os.sysconf("SC_OPEN_MAX"))


class PlotChild:
    """A forked child that runs ``prepare()`` at once and ``draw(*job)`` for the one job ``submit``
    gives it (module docstring)."""

    def __init__(self, pid, jobs, answers):
        self.pid, self._jobs, self._answers = pid, jobs, answers

    @classmethod
    def start(cls, prepare, draw):
        """The child, forked now; None where no process can be forked."""
        if not hasattr(os, "fork"):
            return None
        job_r, job_w = os.pipe()
        answer_r, answer_w = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to be had (a limit): the caller draws itself
            for fd in (job_r, job_w, answer_r, answer_w):
                os.close(fd)
            return None
        if pid == 0:  # the child: nothing here returns
            code = 0
            try:
                gc.freeze()  # the parent's objects: never collected here, so never traversed (nor their pages copied)
                gc.disable()  # nor those of what ``prepare`` imports, frozen after it
                _close_inherited(job_r, answer_w)
                for name in IGNORED:
                    signal.signal(getattr(signal, name), signal.SIG_IGN)
                prepare()
                gc.freeze()
                gc.enable()  # the figures' garbage is collected
                header = _read_all(job_r, HEADER.size)  # the job's length: a later child holds this pipe too
                if len(header) == HEADER.size:
                    draw(*pickle.loads(_read_all(job_r, *HEADER.unpack(header))))
            except BaseException as err:  # sent to the parent, which raises it (``wait``)
                code = 1
                try:
                    _write_all(answer_w, pickle.dumps(err))
                except (pickle.PicklingError, TypeError, AttributeError):  # an exception that does not pickle
                    _write_all(answer_w, pickle.dumps(RuntimeError(f"drawing the plots failed: {err!r}")))
            finally:
                os._exit(code)
        os.close(job_r)
        os.close(answer_w)
        return cls(pid, job_w, answer_r)

    def submit(self, *job):
        """Give the child its job: ``draw(*job)``."""
        data = pickle.dumps(job)
        try:
            _write_all(self._jobs, HEADER.pack(len(data)) + data)
        except BrokenPipeError:  # the child has died: ``wait`` says how
            pass
        self._close_jobs()

    def wait(self):
        """Wait for the child to end; raises the exception that ended its ``draw``."""
        answer, status = self._reap()
        if answer:
            raise pickle.loads(answer)
        if status:
            raise RuntimeError(f"the plotting process ended with exit code {status}")

    def close(self):
        """End the child without a job (it exits on the closed pipe) and reap it; what its ``prepare``
        did no longer matters."""
        self._reap()

    def _reap(self):
        """(the pickled exception it sent or b"", its exit code) once the child has ended."""
        self._close_jobs()
        answer = status = None
        if self._answers is not None:
            answer = _read_all(self._answers)
            os.close(self._answers)
            self._answers = None
        if self.pid is not None:
            status = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            self.pid = None
        return answer, status

    def _close_jobs(self):
        if self._jobs is not None:
            os.close(self._jobs)
            self._jobs = None


def start(prepare, draw, count):
    """The ``PlotChild`` that runs ``prepare()`` at once and, for its job, ``draw(*job, part, count)`` for every
    ``part`` from 0 to ``count - 1`` in ``count`` processes (``_draw_shared``); None where there is none (``count``
    0, or no process to fork)."""
    return PlotChild.start(prepare, functools.partial(_draw_shared, draw, count)) if count else None


def _draw_shared(draw, parts, *job):
    """``draw(*job, part, parts)`` for every ``part``: part 0 in this process, each other in a ``PlotChild``
    forked from this one now (where none can be forked, here after part 0), all at once; raises the first
    exception of a part once every helper has ended."""
    helpers = {part: PlotChild.start(_nothing, functools.partial(draw, *job, part, parts))
               for part in range(1, parts)}
    for helper in helpers.values():
        if helper is not None:
            helper.submit()
    failures = []
    try:
        for part in [0] + [part for part, helper in helpers.items() if helper is None]:
            draw(*job, part, parts)
    except Exception as err:  # raised below, once every helper is reaped
        failures.append(err)
    for helper in helpers.values():
        if helper is not None:
            try:
                helper.wait()
            except Exception as err:
                failures.append(err)
    if failures:
        raise failures[0]


def _nothing():
    """A helper's ``prepare``: the child it is forked from has imported everything."""


PROCESSES = "FEMDYN_PLOT_PROCESSES"  # environment variable: how many processes draw (0: the run's own)


def drawers():
    """How many processes draw a run's plots: ``FEMDYN_PLOT_PROCESSES`` where it is set (0: none, the
    run's own process draws them), else two where a core is idle (``idle_core``), else one. Two, not one
    per core: the second, forked from the first with matplotlib imported (``_draw_shared``), shortens the
    drawing, the part of a small run that the run's process waits for, to its larger share where it has a
    core of its own (nm_logo's three figures: 0.37-0.54 s of CPU against 0.63-0.69 s at load 3), for about
    0.1 s of CPU more (0-0.2 s measured on a shared machine: its fork, the pages both processes then copy,
    the first use of matplotlib's objects in each); where every core is busy it would gain nothing for that
    CPU time. CaseError naming the variable where it is not a whole number from 0 to 8."""
    given = os.environ.get(PROCESSES)
    if given is not None:
        if not (given.strip().isdigit() and int(given) <= 8):
            raise CaseError("environment", PROCESSES, f"must be a whole number from 0 to 8, got {given!r}")
        return int(given)
    return 2 if idle_core() else 1


def idle_core() -> bool:
    """Whether this process may run on two cores or more and the load average of the last minute leaves one
    of them idle at least half of the time (below the number of those cores less a half): the run's process
    waits while its plots are drawn, so a second drawer has that core then."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores >= 2 and os.getloadavg()[0] < cores - 0.5
