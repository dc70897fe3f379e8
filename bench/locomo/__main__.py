"""``python -m bench.locomo`` from the project root (see the package's docstring)."""

from __future__ import annotations

import sys

from bench.locomo.cli import main

if __name__ == "__main__":
    sys.exit(main())
