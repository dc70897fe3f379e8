"""Run the scenario suite against a fresh server and score it.

    .venv/bin/python -m bench.scenarios_run [--dir DIR] [--only ID,ID] [--out FILE] [--workers 2]

Starts `python -m config.runtime run` (gunicorn + one Celery worker on a fresh embedded
PostgreSQL and Redis in a temporary directory, like the other benchmarks), creates one agent per
conversation with its schema (extractor `rules`), ingests and extracts session by session
through the API, reads facts (current, `as_of`, `known_at`, `status=any`), the session-start
block and a `/v1/context` pack, scores them, prints the table and writes
bench/results/scenarios.json (figures, per phenomenon, per domain, and every failed check with
what was expected and what was found).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.latency import Client, start_server
from bench.scenarios_run import data, report, runner, scoring

RESULTS = Path(__file__).resolve().parent.parent / "results"


def evaluate(scenarios: list[data.Scenario], port: int, key: str) -> dict[str, Any]:
    """Run and score ``scenarios`` against the server on ``port``: the summary plus details."""
    started = time.perf_counter()
    outcome = runner.run(Client(port, key), scenarios)
    records = [r for s in scenarios for r in scoring.score(s, outcome["reads"][s.id])]
    summary = report.aggregate(records)
    summary.update({
        "extractor": "rules",
        "conversations": len(scenarios),
        "turns": sum(len(s.turns) for s in scenarios),
        "domains": len({s.domain for s in scenarios}),
        "extraction_seconds": outcome["extraction_seconds"],
        "wall_seconds": round(time.perf_counter() - started, 1),
        "run_failures": outcome["failures"],
        "machine": f"{os.cpu_count()} cores",
        "failed_checks": [r for r in records if not r["ok"]],
    })  # fmt: skip
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dir", type=Path, default=data.DIRECTORY,
                        help="the folder of scenario files (default: bench/scenarios)")  # fmt: skip
    parser.add_argument("--only", help="comma-separated conversation ids (default: all)")
    parser.add_argument("--out", type=Path, default=RESULTS / "scenarios.json")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = parser.parse_args(argv)
    scenarios = data.load(args.dir, only=set(args.only.split(",")) if args.only else None)
    if not scenarios:
        parser.error("no conversation matches --only")
    with tempfile.TemporaryDirectory(prefix="hv-scenarios-") as tmp:
        var = Path(tmp) / "var"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = start_server(var, port, args.workers, 1)
        try:
            key = json.loads((var / "demo-credentials.json").read_text())["api_key"]
            summary = evaluate(scenarios, port, key)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=1, ensure_ascii=False, default=str) + "\n")
    print(report.render(summary))
    print(f"\n{summary['conversations']} conversations, {summary['turns']} turns, "
          f"extraction {summary['extraction_seconds']} s; wrote {args.out}")  # fmt: skip
    return 0
