"""One line on stderr for work that turns out long (a large model's build), instead of silence."""

import sys
import threading


class Notice:
    """One line ``message`` on stderr if the block it guards is still running ``after`` seconds on (a timer
    thread says it; a quick block prints nothing, and so does any block with ``after=None``): what a
    long model build shows instead of silence. Use as ``with Notice(text, 1.0): ...``."""

    def __init__(self, message: str, after: float | None) -> None:
        self.message, self.after = message, after
        self.stream = sys.stderr
        self.said = threading.Event()
        self._timer: threading.Timer | None = None

    def _say(self) -> None:
        self.stream.write(self.message + "\n")
        self.stream.flush()
        self.said.set()

    def __enter__(self) -> "Notice":
        if self.after is not None:
            self._timer = threading.Timer(self.after, self._say)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:  # no line from now on (one being written is finished first)
            self._timer.cancel()
            self._timer.join()
