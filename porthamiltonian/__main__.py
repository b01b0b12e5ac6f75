"""``python -m porthamiltonian``: the command line (`porthamiltonian._launcher.main`)."""

import sys

from porthamiltonian._launcher import main

if __name__ == "__main__":
    sys.exit(main())
