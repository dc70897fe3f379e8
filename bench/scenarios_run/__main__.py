import sys

from bench.scenarios_run.cli import main

sys.exit(main())
