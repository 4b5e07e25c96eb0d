import sys

from semisvm.cli import main

sys.exit(main())
