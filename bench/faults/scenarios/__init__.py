"""The scenarios, one module each, by the name ``--scenarios`` takes, with the sizes the test
suite runs them at."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.faults.common import Row
from bench.faults.scenarios.appends import scenario_appends
from bench.faults.scenarios.model import scenario_model
from bench.faults.scenarios.postgres import scenario_postgres
from bench.faults.scenarios.redis import scenario_redis
from bench.faults.scenarios.worker_kill import scenario_worker_kill

SCENARIOS: dict[str, Callable[..., Row]] = {
    "appends": scenario_appends,
    "worker_kill": scenario_worker_kill,
    "redis": scenario_redis,
    "postgres": scenario_postgres,
    "model": scenario_model,
}
QUICK: dict[str, dict[str, Any]] = {  # the sizes the test suite uses (tests/test_faults.py)
    "appends": {"clients": 8, "turns": 800},
    "worker_kill": {"users": 2, "turns": 120, "kills": 1},
    "redis": {"clients": 4, "quiet": 4, "before": 1.5, "down": 2.5, "after": 2},
    "postgres": {"clients": 4, "before": 1.5, "down": 2, "after": 2.5},
    "model": {
        "clients": 2,
        "healthy": 2,
        "garbage": 2,
        "garbage_answers": 2,  # one failed run: an answer and its repair
        "hang": 3,
        "recovered": 2,
        "settle": 30,
    },
}

__all__ = [
    "QUICK",
    "SCENARIOS",
    "scenario_appends",
    "scenario_model",
    "scenario_postgres",
    "scenario_redis",
    "scenario_worker_kill",
]
