"""What a benchmark measured: the femdyn commit and its local changes, recorded with the figures."""
from pathlib import Path


def git_state():
    """The femdyn commit measured and the files under femdyn/ that differ from it (others edit it)."""
    import subprocess
    root = Path(__file__).resolve().parent.parent

    def git(*cmd):
        done = subprocess.run(["git", *cmd], cwd=root, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else None
    changed = git("status", "--porcelain", "--", "femdyn")
    return dict(commit=git("rev-parse", "--short", "HEAD"), subject=git("log", "-1", "--format=%s"),
                femdyn_changes=[line.strip() for line in changed.splitlines()] if changed else [])
