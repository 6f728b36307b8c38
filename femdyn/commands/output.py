"""What the subcommands print: text on stdout that survives a closed pipe (``say``), and the lines on
dropped constraints and on flexible bodies."""
import os
import sys


def say(text):
    """Print to stdout; a reader that closed the pipe (e.g. head) does not change the exit code."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def dropped(pairs):
    """One line on the dropped redundant constraint rows: (row, [joints it depends on]) pairs."""
    return "; ".join(f"{row} (depends on {', '.join(on) or 'the bodies alone'})" for row, on in pairs) or "none"


def flexible_line(case):
    """One line on the model of the flexible bodies, or None if there are none."""
    from ..model.segments import SEPARATOR  # loaded with the case already: not at start-up

    bodies = case.model.flexible
    if not bodies:
        return None
    s = case.flexible
    counts = sorted({len(b.beam.nodes) - 1 for b in bodies})
    per_body = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    parts = ["rigid limit"] if s.model == "rigid" else [
        f"{s.model}, {per_body} element{'s' if counts[-1] > 1 else ''} per body"]
    parts += [f"{s.modes} modes per body"] if s.modes and s.model != "rigid" else []
    parts += ["geometric stiffening"] if s.stiffening else []
    links = sum(SEPARATOR not in b.name for b in bodies)  # a segmented link's first segment has its name
    parts += [f"{len(bodies)} floating-frame segments in {links} link{'s' * (links > 1)}"] * (links < len(bodies))
    return (f"flexible bodies ({len(bodies)}): {', '.join(parts)}; "
            f"{sum(b.beam.n_coordinates for b in bodies)} elastic coordinates")
