"""`python -m retrologic` runs the command line."""

import sys

from retrologic.cli import main

sys.exit(main())
