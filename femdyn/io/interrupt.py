"""Ctrl-C during a run: ``CtrlC`` notes whether SIGINT arrived while it was active."""
import signal
import threading


class CtrlC:
    """Notes whether Ctrl-C arrived while active; KeyboardInterrupt is raised as usual. A run that
    ``simulate`` ends early on Ctrl-C (returning the steps so far) is told apart from a Newton failure
    by this flag (``seen``). Only the main thread can handle signals; elsewhere it notes nothing."""

    def __enter__(self):
        self.seen = False
        self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        self.seen = True
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
