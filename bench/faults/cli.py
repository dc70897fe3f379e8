"""``python -m bench.faults``: runs the scenarios asked for on one stack, prints the table and
writes the rows as JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from bench.faults.common import Row, table
from bench.faults.scenarios import QUICK, SCENARIOS
from bench.faults.stack import ROOT, Stack

RESULTS = ROOT / "bench" / "results"


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.faults",
        # The package's docstring is the method; a submodule runs only once it is imported.
        description=sys.modules["bench.faults"].__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--quick", action="store_true", help="the test suite's smaller sizes")
    parser.add_argument(
        "--output",
        type=Path,
        help="default: bench/results/faults.json for a full run (the "
        "figures the docs quote), var/faults-partial.json for --quick or a subset",
    )
    args = parser.parse_args()
    names = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = set(names) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")
    if args.output is None:
        full = names == list(SCENARIOS) and not args.quick
        args.output = RESULTS / "faults.json" if full else ROOT / "var" / "faults-partial.json"

    rows: list[Row] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hv-faults-") as tmp, Stack(Path(tmp)) as stack:
        print(f"stack up in {time.monotonic() - started:.1f} s ({tmp})", flush=True)
        for name in names:
            print(f"running {name} ...", flush=True)
            row = SCENARIOS[name](stack, **(QUICK[name] if args.quick else {}))
            rows.append(row)
            print(table([row]).splitlines()[1], flush=True)
    total = time.monotonic() - started
    print("\n" + table(rows))
    for row in rows:
        print(f"{row.scenario}: {json.dumps(row.extra, default=str)}")
    print(f"total {total:.0f} s")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps(
            {"rows": [asdict(r) for r in rows], "quick": args.quick, "seconds": round(total, 1),
             "machine": f"{os.cpu_count()} cores"},
            indent=2, default=str,
        ) + "\n"
    )  # fmt: skip
    print(f"wrote {args.output}")
    return 0 if all(r.lost == 0 and r.duplicates == 0 and r.server_errors == 0 for r in rows) else 1
