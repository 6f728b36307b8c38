"""Stop signals: Ctrl-C (SIGINT), SIGTERM (what batch schedulers and ``timeout`` send) and SIGHUP (a
closed terminal) are all handled like Ctrl-C. ``Signals`` turns each into ``Interrupted`` (a
KeyboardInterrupt that knows its signal), or, inside ``deferred()``, only notes it, so that a time
loop can stop between two steps and leave a result it can resume (``time_loop.simulate``'s
``output.stopping``); a step that has not ended ``GRACE`` seconds after that signal (a Newton iteration
that goes on and on) is then stopped where it is, as by a second signal, so that a stop takes bounded
time (the stepper's own compiled loop, one call of at most ``settings.MAX_ITERATIONS`` iterations, is not
interrupted: the signal takes effect when it returns). The exit code of a stopped command is 128 + the
signal's number, as a shell reports a process ended by it (130 for Ctrl-C, 143 for SIGTERM, 129 for
SIGHUP)."""
import _thread
import signal
import sys
import threading
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRACE = 3.0  # seconds a step may go on after a deferred stop signal


class Interrupted(KeyboardInterrupt):
    """A stop signal, raised where it arrived; ``signum`` is its number."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(err=None):
    """128 + the number of the signal that raised ``err`` (a KeyboardInterrupt; Ctrl-C by default)."""
    return 128 + getattr(err, "signum", signal.SIGINT)


class Signals:
    """While active, the stop signals raise ``Interrupted``; ``signum`` is the first one seen (None
    before). Inside ``deferred()`` the first is only noted (``pending``) and a second one raises. Only the
    main thread can handle signals; elsewhere nothing changes."""

    signum = None

    def __enter__(self):
        self.signum, self._deferred, self._previous, self._timer = None, False, {}, None
        self._hook = None
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                self._previous[number] = signal.signal(number, self._handle)
            self._hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def _unraisable(self, unraisable):
        """A signal raised where Python cannot pass it on (a weakref callback in importlib's module
        locks) is only noted (``seen``), not printed as a traceback; other unraisable errors as before."""
        if not isinstance(unraisable.exc_value, Interrupted):
            self._hook(unraisable)

    def _handle(self, signum, frame):
        first = self.signum is None
        if first:
            self.signum = signum
        if not (self._deferred and first):
            raise Interrupted(signum)
        self._timer = threading.Timer(GRACE, _thread.interrupt_main, (signum,))  # the step did not end: stop it
        self._timer.daemon = True
        self._timer.start()

    @property
    def seen(self):
        return self.signum is not None

    @property
    def pending(self):
        """A stop signal arrived inside ``deferred()``."""
        return self._deferred and self.signum is not None

    @contextmanager
    def deferred(self):
        self._deferred = True
        try:
            yield self
        finally:
            self._deferred = False
            self._cancel()

    def _cancel(self):
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    @property
    def exit_code(self):
        return 128 + (self.signum or signal.SIGINT)

    def __exit__(self, *exc):
        self._cancel()
        if self._hook is not None:
            sys.unraisablehook = self._hook
        for number, previous in self._previous.items():
            signal.signal(number, previous)
