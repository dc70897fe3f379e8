"""worker_kill: the Celery worker is SIGKILLed in the middle of extraction runs and restarted;
the facts and memory units must equal those of an undisturbed run on the same turns."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from bench.faults.common import Row, call, create_agent, open_session, wait_for
from bench.faults.stack import Stack
from bench.latency import Client

WORKER_LINES = [
    "Hi, I'm {name} and I live in {city}.",
    "My budget is {budget} lakhs for a {bhk}BHK apartment.",
    "We want to move in by {day} June, before school starts.",
    "On second thought, make the budget {budget2} lakhs.",
    "The flat near the metro station had good light and two balconies.",
    "Please remember that parking, lifts and power backup matter to us.",
]
CITIES = ["Pune", "Mumbai", "Bengaluru", "Chennai", "Delhi", "Hyderabad", "Kolkata", "Jaipur"]


def _worker_turns(user: int, turns: int) -> list[dict[str, Any]]:
    out = []
    for i in range(turns):
        line = WORKER_LINES[i % len(WORKER_LINES)].format(
            name=f"Person{user}", city=CITIES[user % len(CITIES)], budget=40 + i % 50,
            bhk=2 + i % 3, day=1 + i % 28, budget2=60 + i % 40,
        )  # fmt: skip
        role = "user" if i % 3 else "assistant"
        day = 1 + (i // 40)
        out.append({"role": role, "text": f"{line} (note {i})", "seq": i + 1,
                    "occurred_at": f"2026-03-{day:02d}T10:{i % 60:02d}:00Z"})  # fmt: skip
    return out


def _derived(stack: Stack, agent: str) -> tuple[Counter[tuple[Any, ...]], Counter[tuple[Any, ...]]]:
    with stack.db() as db:
        entities = db.execute(
            "SELECT u.external_id, e.key, e.value_text, e.status, e.source, e.valid_from, "
            "e.valid_until FROM memory_entity e JOIN memory_enduser u ON u.id = e.end_user_id "
            "JOIN schemas_agent a ON a.id = e.agent_id WHERE a.slug = %s",
            [agent],
        ).fetchall()
        units = db.execute(
            "SELECT u.external_id, c.content_hash, c.first_seq, c.last_seq FROM memory_acu c "
            "JOIN memory_enduser u ON u.id = c.end_user_id JOIN schemas_agent a ON a.id = c.agent_id "
            "WHERE a.slug = %s",
            [agent],
        ).fetchall()
    return Counter(entities), Counter(units)


def _runs(stack: Stack, agent: str) -> list[tuple[int, str, Any]]:
    with stack.db() as db:
        return list(
            db.execute(
                "SELECT r.id, r.status, r.started_at FROM extraction_extractionrun r "
                "JOIN schemas_agent a ON a.id = r.agent_id WHERE a.slug = %s ORDER BY r.id",
                [agent],
            ).fetchall()
        )


def _store_turns(client: Client, agent: str, users: int, turns: int) -> None:
    """``users`` users of ``agent``, each with one session of ``turns`` turns, in batches."""
    for u in range(users):
        session = open_session(client, agent, f"wk-{u}", f"wk-{u}")
        batch = _worker_turns(u, turns)
        for start in range(0, len(batch), 500):
            status, body, _ = call(
                client, "POST", f"/v1/sessions/{session}/turns:batch",
                {"turns": batch[start : start + 500]},
            )  # fmt: skip
            assert status == 201, body


def _request_runs(client: Client, agent: str, users: int) -> int:
    accepted = 0
    for u in range(users):
        status, body, _ = call(client, "POST", f"/v1/users/wk-{u}/runs", {"agent": agent})
        assert status == 202, body
        accepted += 1
    return accepted


def _all_done(stack: Stack, agent: str, users: int) -> bool:
    runs = _runs(stack, agent)
    return len(runs) == users and all(status == "succeeded" for _, status, _ in runs)


def _mid_run(stack: Stack, users: int, killed_runs: list[int]) -> bool:
    """A "kill" run is computing that was not killed yet (noted in ``killed_runs``), or all
    are done."""
    for run_id, status, begun in _runs(stack, "kill"):
        if status == "running" and begun is not None and run_id not in killed_runs:
            killed_runs.append(run_id)
            return True
    return _all_done(stack, "kill", users)


def scenario_worker_kill(stack: Stack, *, users: int = 6, turns: int = 240, kills: int = 3,
                         timeout: float = 180) -> Row:  # fmt: skip
    """Extraction runs for the same turns under two agents: one undisturbed, one whose worker
    is SIGKILLed mid-run (``kills`` times) and restarted. Their facts and units must match."""
    from schemas.defaults import PROPERTY_ADVISOR

    client = stack.client()
    settings = {"extraction_token_threshold": 200_000}
    for agent in ("ref", "kill"):
        create_agent(client, agent, settings, schema_fields=PROPERTY_ADVISOR)
        _store_turns(client, agent, users, turns)

    started = time.monotonic()
    _request_runs(client, "ref", users)
    assert wait_for(lambda: _all_done(stack, "ref", users), timeout), _runs(stack, "ref")
    reference_s = time.monotonic() - started

    started = time.monotonic()
    accepted = _request_runs(client, "kill", users)
    killed_runs: list[int] = []
    restarted_at = time.monotonic()
    for _ in range(kills):
        # Kill once a run has been computing for a while: mid-extraction, before its commit.
        caught = wait_for(lambda: _mid_run(stack, users, killed_runs), timeout)
        if not caught or _all_done(stack, "kill", users):
            break
        time.sleep(0.4)
        stack.kill_worker()
        stack.start_worker()
        restarted_at = time.monotonic()
    done = wait_for(lambda: _all_done(stack, "kill", users), timeout, step=0.2)
    recovery = time.monotonic() - restarted_at
    elapsed = time.monotonic() - started

    ref_entities, ref_units = _derived(stack, "ref")
    got_entities, got_units = _derived(stack, "kill")
    missing = (ref_entities - got_entities) + (ref_units - got_units)
    extra = (got_entities - ref_entities) + (got_units - ref_units)
    succeeded = sum(1 for _, status, _ in _runs(stack, "kill") if status == "succeeded")
    return Row(
        "worker_kill", requests=users, acknowledged=accepted, stored=succeeded,
        lost=(accepted - succeeded) + sum(missing.values()), duplicates=sum(extra.values()),
        recovery_s=round(recovery, 2) if done else None, seconds=round(elapsed, 1),
        extra={"kills": len(killed_runs), "runs_killed_mid_extraction": killed_runs,
               "turns": users * turns, "entities": sum(got_entities.values()),
               "entities_reference": sum(ref_entities.values()), "acus": sum(got_units.values()),
               "acus_reference": sum(ref_units.values()),
               "match_reference": not missing and not extra,
               "reference_seconds": round(reference_s, 1)},
    )  # fmt: skip
