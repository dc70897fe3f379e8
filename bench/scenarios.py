"""Write-lane correctness on the development scenario suite (issue 15).

    .venv/bin/python bench/scenarios.py [--only ID,ID] [--out FILE]

The same as ``python -m bench.scenarios_run``; see bench/scenarios_run/cli.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scenarios_run.cli import main

if __name__ == "__main__":
    sys.exit(main())
