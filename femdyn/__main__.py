"""``python -m femdyn``: the command-line interface (``cli.main``)."""
import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while Python imports the package: one line, not a traceback
    sys.stderr.write("interrupted\n")
    sys.exit(130)

sys.exit(main())
