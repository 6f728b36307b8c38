"""What the subcommands print: text on stdout that survives a closed pipe (``say``); the lines on dropped
constraints and on flexible bodies are ``api.check``'s."""
import os
import sys


def say(text):
    """Print to stdout; a reader that closed the pipe (e.g. head) does not change the exit code."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
