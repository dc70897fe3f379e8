"""``python -m bench.faults`` from the project root (see the package's docstring)."""

from __future__ import annotations

import sys

from bench.faults.cli import main

if __name__ == "__main__":
    sys.exit(main())
