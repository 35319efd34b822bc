"""``python -m cardzoo``: the same as the ``cardzoo`` command."""

import sys

from cardzoo.cli import main

if __name__ == "__main__":
    sys.exit(main())
