"""What the subcommands print: text on stdout that survives a closed pipe (``say``), and the lines on
dropped constraints and on flexible bodies (``api.check``)."""
import os
import sys

from ..api.check import dropped, flexible_line  # noqa: F401  (the commands' shared lines)


def say(text):
    """Print to stdout; a reader that closed the pipe (e.g. head) does not change the exit code."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
