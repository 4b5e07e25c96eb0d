"""``python -m semisvm``: the command line (see :mod:`semisvm.cli`)."""
import sys

from semisvm.cli import main

if __name__ == "__main__":
    sys.exit(main())
