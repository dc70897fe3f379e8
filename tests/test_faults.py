"""The fault suite (bench/faults/) at small sizes: one real stack of its own (PostgreSQL, Redis,
gunicorn, a Celery worker in a temporary directory), each scenario broken on purpose and counted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import faults

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[faults.Stack]:
    with faults.Stack(Path(tmp_path_factory.mktemp("faults")), web_workers=2) as running:
        yield running


def _clean(row: faults.Row) -> None:
    assert row.acknowledged > 0, row
    assert (row.lost, row.duplicates, row.server_errors) == (0, 0, 0), row
    assert row.stored == row.acknowledged, row


def test_concurrent_appends_with_duplicate_retries_store_each_turn_once(
    stack: faults.Stack,
) -> None:
    row = faults.scenario_appends(stack, **faults.QUICK["appends"])
    _clean(row)
    assert row.acknowledged == 800
    assert row.extra["deliberate_retries"] > 40  # ~10 % of 800, each answered 200, same id
    assert row.extra["retry_not_idempotent"] == 0
    assert row.requests == 800 + row.extra["deliberate_retries"]


def test_a_worker_killed_mid_run_leaves_the_same_facts_and_units_as_an_undisturbed_run(
    stack: faults.Stack,
) -> None:
    row = faults.scenario_worker_kill(stack, **faults.QUICK["worker_kill"])
    _clean(row)
    assert row.extra["kills"] == 1 and row.extra["runs_killed_mid_extraction"]
    assert row.extra["match_reference"] is True
    assert row.extra["acus"] == row.extra["acus_reference"] > 0
    assert row.extra["entities"] == row.extra["entities_reference"] > 0
    assert row.recovery_s is not None


def test_redis_down_appends_go_on_and_no_stale_hot_document_is_served_after(
    stack: faults.Stack,
) -> None:
    row = faults.scenario_redis(stack, **faults.QUICK["redis"])
    _clean(row)
    assert row.unavailable == 0  # appends and session starts degrade to PostgreSQL
    assert row.extra["append_latency_during"]["n"] > 0
    assert row.extra["fact_writes_while_down"] == faults.QUICK["redis"]["quiet"]
    assert row.extra["stale_session_starts"] == 0
    users = faults.QUICK["redis"]["clients"] + faults.QUICK["redis"]["quiet"]
    assert row.extra["caches_current_after"] == f"{users}/{users}"
    assert row.recovery_s is not None


def test_postgres_restart_is_clean_503s_and_recovers_without_a_server_restart(
    stack: faults.Stack,
) -> None:
    row = faults.scenario_postgres(stack, **faults.QUICK["postgres"])
    _clean(row)
    assert row.unavailable > 0  # the clients did hit the outage, as 503 database_unavailable
    assert row.extra["refused_connections"] == 0 and row.extra["other_errors"] == 0
    assert row.extra["server_processes_unchanged"] is True
    assert row.recovery_s is not None and row.recovery_s < 10


def test_a_hanging_then_garbage_model_fails_or_retries_runs_and_leaves_appends_alone(
    stack: faults.Stack,
) -> None:
    row = faults.scenario_model(stack, **faults.QUICK["model"])
    _clean(row)
    runs = row.extra["runs"]
    assert runs.get("failed") == 1  # garbage, and garbage again after the repair: recorded
    assert row.extra["failed_errors"] == [
        "the model's answer is not the JSON that was asked for "
        "(facts: it is not JSON; after one repair: it is not JSON)"
    ]
    assert row.extra["runs_retried_after_a_timeout"] >= 1
    assert set(runs) <= {"failed", "succeeded"} and runs["succeeded"] >= 1  # none left open
    healthy = row.extra["append_latency"]["healthy"]
    during = row.extra["append_latency_during_incident"]
    # Had the call path waited on the model, appends would take the 1 s timeout. They do not;
    # the bound is loose because the machine is shared.
    assert during["p95_ms"] <= 3 * healthy["p95_ms"] + 20, (healthy, during)
