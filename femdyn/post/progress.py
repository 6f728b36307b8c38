"""A small dependency-free progress bar for time-stepping loops."""

import sys
import time

_REFRESH = 0.1  # seconds between redraws on a terminal
_WIDTH = 24  # characters in the bar


def _clock(seconds):
    """Format a duration as m:ss or h:mm:ss."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Progress of ``total`` time steps, drawn on stderr.

    Use as ``with Progress(n, "label") as bar: bar.update(step, t)``.  On a
    terminal the line is redrawn in place at most about ten times a second;
    otherwise only the final line is printed when the block ends.  With
    ``enabled=False`` nothing is printed.
    """

    def __init__(self, total, label="", enabled=True):
        self.total = max(int(total), 1)
        self.label = label
        self.enabled = enabled
        self.stream = sys.stderr
        self.step = 0
        self.t = 0.0
        self._start = self._last_draw = time.monotonic()
        self._line_len = 0

    def __enter__(self):
        self._start = self._last_draw = time.monotonic()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self._draw(end="\n")
        return False

    def update(self, step, t):
        """Record that ``step`` of ``total`` steps are done at simulated time ``t``."""
        self.step, self.t = step, t
        if not (self.enabled and self.stream.isatty()):
            return
        now = time.monotonic()
        if now - self._last_draw >= _REFRESH:
            self._last_draw = now
            self._draw(end="")

    def _line(self):
        """The status line for the current state."""
        frac = min(max(self.step / self.total, 0.0), 1.0)
        filled = int(round(frac * _WIDTH))
        elapsed = time.monotonic() - self._start
        eta = elapsed * (1 - frac) / frac if frac > 0 else 0.0
        prefix = f"{self.label} " if self.label else ""
        return (
            f"{prefix}[{'#' * filled}{'.' * (_WIDTH - filled)}] {100 * frac:5.1f}% "
            f"{self.step}/{self.total} t={self.t:.4g} "
            f"elapsed {_clock(elapsed)} ETA {_clock(eta)}"
        )

    def _draw(self, end):
        """Write the status line, overwriting the previous one on a terminal."""
        line = self._line()
        if self.stream.isatty():
            padded = line.ljust(self._line_len)
            self._line_len = len(line)
            line = "\r" + padded
        self.stream.write(line + end)
        self.stream.flush()

