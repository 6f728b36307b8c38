"""The Dask side of ``femdyn sweep``: a dask.distributed client to a running scheduler or to a new
LocalCluster (``connect``), the samples of a sweep submitted to its workers (``run_on_cluster``, each
``sweep.run_sample``) and the sensitivity study of ``femdyn sensitivity`` with one task per parameter
(``sensitivity_study``).

A worker lost mid-sweep (killed, crashed, its machine gone) has its samples re-run elsewhere by the
scheduler (Dask's retries of lost tasks); a sample whose workers die more than ``ALLOWED_FAILURES``
times (KilledWorker) is submitted once more when all others are done -- the deaths may have been the
workers' fault, not the sample's -- and is an error row if its workers die again. For a LocalCluster
that count is set here; an external scheduler uses its own ``distributed.scheduler.allowed-failures``.
Dask's own log (a scheduler's or client's errors about dead workers, with their tracebacks) is
silenced in this process while connected: what it reports becomes the sample's row.

A scheduler given by its address is first asked for its handshake (``_probe``): a TCP server that does
not send one within ``CONNECT_SECONDS`` of the connection (a silent one), or sends something else (a
banner whose first bytes would be read as the size of an absurd message), is refused in one line before
dask.distributed talks to it, whose own waits are not bounded there.

Workers on this machine (a LocalCluster's, or ``dask worker`` processes started here) load the compiled
kernels from numba's on-disk cache that any earlier femdyn process wrote (``numerics.compiled``), so only
the first process after an install compiles; workers on another machine use that machine's cache. Each
worker of a LocalCluster records its start-up -- the import of femdyn's sweep code and the time under
numba's compiler lock (loading the kernels from the cache, or compiling them) -- and the kernels it compiled
(numba's "numba:compile" events); ``worker_startup`` collects them for the sweep's summary.
"""
import dataclasses
import gc
import logging
import os
import re
import signal
import socket
import struct
import threading
import time
import uuid
from contextlib import contextmanager

from ..casefile.case import CaseError
from ..post.progress import Progress
from ..model.errors import ModelError
from . import sensitivity
from .sweep import error_message, error_row, run_sample

ALLOWED_FAILURES = 3  # deaths of a sample's workers that are retried (LocalCluster); then an error row
CONNECT_SECONDS = 10.0  # to connect to a scheduler and receive its handshake
HANDSHAKE_BYTES = 2**20  # the most a scheduler's handshake may hold (it is a few hundred bytes)


class SweepError(RuntimeError):
    """The sweep cannot go on: the cluster failed in a way that is no sample's fault."""


class ConnectError(RuntimeError):
    """The dask scheduler cannot be reached."""


class SampleProgress(Progress):
    """The progress bar over samples: the bar of ``Progress`` with the count of failed samples where
    it shows the simulated time."""

    errors = 0

    def _line(self):
        return re.sub(r" t=\S+", f" failed {self.errors}" if self.errors else "", super()._line())


@contextmanager
def connect(scheduler=None, workers=None):
    """A dask.distributed Client to the scheduler at ``scheduler``, or to a new LocalCluster of
    ``workers`` processes (default: one per core), one thread each, with a dashboard on a free port.
    ConnectError if the scheduler cannot be reached."""
    import dask
    from distributed import Client, LocalCluster

    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        if scheduler is not None:
            try:
                _probe(scheduler)
                client = Client(scheduler, timeout=f"{CONNECT_SECONDS}s")
            except (OSError, ValueError, TypeError) as err:
                failure = f"cannot reach the dask scheduler at '{scheduler}': {err}"
            else:
                failure = None
            if failure is not None:
                # The half-made Client lives on in the error's frames until a garbage collection; its
                # __del__ stops distributed's shared event-loop runner under that runner's lock, which
                # is not re-entrant: collected during the next Client's start (which holds the lock),
                # it would wait for itself forever. Collected now, it closes here.
                gc.collect()
                raise ConnectError(failure)
            with client:
                yield client
            return
        count = workers or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())
        with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_FAILURES}):
            cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.CRITICAL + 1)
        try:
            with Client(cluster) as client:
                client.register_plugin(_ignore_ctrl_c(), name="femdyn-ignore-ctrl-c")
                client.register_plugin(_startup_recorder(), name="femdyn-startup")
                yield client
        finally:
            cluster.close()
    finally:
        log.setLevel(level)


def _probe(scheduler):
    """ConnectError unless the scheduler at the address ``scheduler`` (tcp; other protocols are left to
    dask) sends, within ``CONNECT_SECONDS`` of the connection, a first message the way dask.distributed
    frames it -- 8 bytes of its size, at most ``HANDSHAKE_BYTES``, and that many bytes -- as a scheduler's
    handshake is (``distributed.comm.tcp.TCP.read``). OSError or ValueError if it cannot be reached or the
    address is malformed."""
    from distributed.comm.addressing import parse_address, parse_host_port

    scheme, location = parse_address(scheduler)
    if scheme != "tcp":
        return
    host, port = parse_host_port(location, 8786)
    deadline = time.monotonic() + CONNECT_SECONDS
    with socket.create_connection((host, port), timeout=CONNECT_SECONDS) as connection:
        (size,) = struct.unpack("<Q", _receive(connection, 8, deadline, scheduler))
        if not 0 < size <= HANDSHAKE_BYTES:
            raise ConnectError(f"{scheduler!r} is not a dask scheduler: its first message would be {size} bytes "
                               f"long (a handshake is at most {HANDSHAKE_BYTES})")
        _receive(connection, size, deadline, scheduler)


def _receive(connection, size, deadline, scheduler):
    """``size`` bytes from the socket ``connection`` by the ``time.monotonic`` ``deadline``; ConnectError
    if they do not come (``_probe``)."""
    data = b""
    while len(data) < size:
        connection.settimeout(max(deadline - time.monotonic(), 1e-3))
        try:
            more = connection.recv(size - len(data))
        except TimeoutError:
            more = None
        if not more:
            what = "closed the connection" if more == b"" else f"did not answer within {CONNECT_SECONDS:g} s"
            raise ConnectError(f"{scheduler!r} {what} with the handshake of a dask scheduler ({len(data)} of "
                               f"{size} bytes came)")
        data += more
    return data


def _ignore_ctrl_c():
    """A worker plugin: the LocalCluster's worker processes ignore Ctrl-C, which a terminal sends to
    them too; this process stops the sweep and closes them (without their tracebacks)."""
    from distributed import WorkerPlugin

    class IgnoreCtrlC(WorkerPlugin):
        def setup(self, worker):
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGINT, signal.SIG_IGN)

    return IgnoreCtrlC()


def _startup_recorder():
    """A worker plugin that times the import of femdyn's sweep code on the worker and, from then on,
    records numba's events: the time under its compiler lock (the outermost hold: a kernel's first call
    loads it from the cache or compiles it) and each compilation ("numba:compile", by kernel name)."""
    from distributed import WorkerPlugin

    class StartupRecorder(WorkerPlugin):
        def setup(self, worker):
            start = time.perf_counter()
            from numba.core import event

            from . import sweep  # noqa: F401  (what a sample imports first)
            record = dict(import_s=time.perf_counter() - start, kernel_load_s=0.0, compiled=[], **_cache_key())
            worker.femdyn_startup = record

            class Lock(event.Listener):
                depth, since = 0, 0.0

                def on_start(self, ev):
                    self.depth += 1
                    if self.depth == 1:
                        self.since = time.perf_counter()

                def on_end(self, ev):
                    self.depth -= 1
                    if self.depth == 0:
                        record["kernel_load_s"] += time.perf_counter() - self.since

            class Compile(event.Listener):
                def on_start(self, ev):
                    pass

                def on_end(self, ev):
                    function = ev.data["dispatcher"].py_func
                    record["compiled"].append(f"{function.__module__}.{function.__qualname__}{ev.data['args']}")

            event.register("numba:compiler_lock", Lock())
            event.register("numba:compile", Compile())

    return StartupRecorder()


def _cache_key():
    """What decides whether this process finds a kernel in numba's cache, besides the kernel itself:
    ``cache`` (the folder numba chose for the beam kernels: NUMBA_CACHE_DIR, the package's
    ``__pycache__`` or the user cache), ``source_stamp`` (of their source file, which the index must match:
    numba 0.68 hashes its contents, earlier versions took its modification time and size) and ``cpu`` (numba's codegen key: the CPU name and a hash of the CPU
    features LLVM reports). A worker that differs from the others in any of them misses the cache the
    others wrote."""
    import hashlib

    from numba.core.registry import cpu_target

    from ..beam.world import kernels
    triple, name, features = cpu_target.target_context.codegen().magic_tuple()
    cache = getattr(kernels.step, "_cache", None)
    path = cache.cache_path if hasattr(cache, "cache_path") else None
    stamp = cache._impl.locator.get_source_stamp() if hasattr(cache, "_impl") else None
    stamp = stamp.hex()[:12] if isinstance(stamp, bytes) else repr(stamp)
    return dict(cache=path, source_stamp=stamp, cpu=f"{triple} {name} {hashlib.sha256(features.encode()).hexdigest()[:12]}")


def worker_startup(client):
    """Each worker's start-up as recorded by its plugin (LocalCluster workers; workers of an external
    scheduler have none, and workers that cannot be reached are left out): a list of dicts ``worker`` (address), ``import_s`` (s), ``kernel_load_s``
    (s, so far), ``compiled`` (the kernels it compiled, with their argument types; empty when every
    kernel came from the cache) and the worker's cache key (``cache``, ``source_stamp``, ``cpu``:
    ``_cache_key``)."""
    def report(dask_worker):
        return getattr(dask_worker, "femdyn_startup", None)

    records = client.run(report, on_error="return")  # a worker gone since (killed, lost) is left out
    return [dict(worker=address, **record) for address, record in sorted(records.items())
            if isinstance(record, dict)]


def dashboard(client):
    """The address of the scheduler's dashboard and whether it is served: a scheduler serves HTTP
    (and reports the link) also without the dashboard (``--no-dashboard``), so the link is checked
    by the redirect of its root to it (cheap, unlike rendering the page)."""
    import urllib.error
    import urllib.request

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    link = client.dashboard_link
    try:
        urllib.request.build_opener(Stay).open(link.rsplit("/", 1)[0] + "/", timeout=2).close()
    except urllib.error.HTTPError as answer:
        return link, answer.code in (301, 302, 303, 307, 308)
    except (OSError, ValueError):
        return link, False
    return link, True


def run_on_cluster(client, tasks, on_row, run=run_sample):
    """Submit ``tasks`` and call ``on_row(row)`` in this thread as each completes (``run(task)`` on a
    worker makes the row: ``sweep.run_sample``, or ``api.sweep``'s for a model built in Python). A sample whose
    workers died ``allowed-failures`` times is submitted once more at the end, and is an error row if
    they die again; SweepError if a sample cannot be run at all (the cluster's fault: cancelled futures,
    a worker without femdyn). Unfinished samples are cancelled when this returns or raises (Ctrl-C)."""
    token = uuid.uuid4().hex[:12]  # keys unique on a long-lived scheduler
    lost = _run_tasks(client, tasks, on_row, token, run)
    if lost:
        for task in _run_tasks(client, lost, on_row, f"{token}-retry", run):
            on_row(error_row(task, "KilledWorker: every worker that ran this sample died, as many times as the "
                             "scheduler allows, and again when it was run once more at the end"))


def _run_tasks(client, tasks, on_row, token, run):
    """Run ``tasks`` (``run_on_cluster``); returns those whose workers died (KilledWorker)."""
    from distributed import KilledWorker, as_completed

    futures = {client.submit(run, task, key=f"femdyn-sample-{task.sample}-{token}", pure=False): task
               for task in tasks}
    lost = []
    try:
        for future in as_completed(list(futures)):
            task = futures.pop(future)
            try:
                row = future.result()
            except KilledWorker:
                lost.append(task)
                continue
            except Exception as err:  # noqa: BLE001  (anything else is the cluster's fault: one line, then stop)
                reason = " ".join(error_message(err).split())
                raise SweepError(f"sample {task.sample} could not be run on the cluster: {reason}") from err
            on_row(row)
    finally:
        if futures:
            client.cancel(list(futures))
    return lost


def _parameter_study(plan):
    """``sensitivity.run_study`` of a one-parameter plan (a task): (t, nominal motion, Parameter),
    or the message of the run that stopped early."""
    try:
        study = sensitivity.run_study(plan)
    except (sensitivity.SensitivityError, CaseError, ModelError) as err:
        return str(err) if isinstance(err, sensitivity.SensitivityError) else error_message(err)
    return study.t, study.nominal, study.parameters[0]


def sensitivity_study(client, plan, progress=None):
    """The study of ``plan`` (``sensitivity.plan_study``) with one task per parameter, each running
    ``sensitivity.run_study`` for its parameter (its own nominal run and the runs at 1 +- h, 1 +- 2h):
    the same numbers as ``femdyn sensitivity``. The tasks read the case file: the workers must see it
    at its (absolute) path. ``progress``: a ``SampleProgress`` over the parameters. SensitivityError
    if a run stops early."""
    from distributed import as_completed

    shipped = dataclasses.replace(plan, case=dataclasses.replace(plan.case, path=plan.case.path.resolve()))
    token = uuid.uuid4().hex[:12]
    futures = {client.submit(_parameter_study, dataclasses.replace(shipped, params=(name,)), pure=False,
                             key=f"femdyn-sensitivity-{name}-{token}"): name for name in plan.params}
    done = {}
    try:
        for future in as_completed(list(futures)):
            name = futures.pop(future)
            try:
                result = future.result()
            except Exception as err:  # noqa: BLE001  (anything is the cluster's fault here: one line, then stop)
                reason = " ".join(error_message(err).split())
                raise SweepError(f"the study of {name} could not be run on the cluster: {reason}") from err
            if isinstance(result, str):
                raise sensitivity.SensitivityError(result)
            done[name] = result
            if progress is not None:
                progress.update(len(done), 0.0)
    finally:
        if futures:
            client.cancel(list(futures))
    t, nominal, _ = done[plan.params[0]]
    return sensitivity.Study(plan, t, nominal, [done[name][2] for name in plan.params])
