"""Drive the scenarios through the public API of a running server, and read back what memory
holds. Only HTTP: the same calls an agent and an operator make.

Session by session, in lock-step across conversations: open session n of every conversation
that has one (participants named in the metadata), import its turns with their ``occurred_at``,
ask for a run (``POST /v1/users/{user}/runs``; a 409 means one is already open, e.g. scheduled
by the token threshold), then wait until no run of that user is pending or running and the
last run covers the last turn appended (asking again if it does not). The moment all of them
are done is that session's ``known_at`` mark: everything learnt from sessions ≤ n was recorded
before it, nothing from later sessions was. Then the final reads.
"""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any
from urllib.parse import quote

from bench.latency import Client
from bench.scenarios_run.data import Scenario, parse_time
from bench.scenarios_run.scoring import Reads

MAX_BATCH = 500  # the API's turns:batch limit
OPEN = ("pending", "running")


class Api:
    def __init__(self, client: Client) -> None:
        self.client = client

    def call(
        self, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200, 201)
    ) -> Any:
        status, payload, *_ = self.client.call(method, path, body)
        if status not in ok:
            raise RuntimeError(f"{method} {path} → {status}: {payload}")
        return payload

    def status(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, payload, *_ = self.client.call(method, path, body)
        return status, payload


def _utc(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def _entities(api: Api, scenario: Scenario, **query: str) -> list[dict[str, Any]]:
    params = "".join(f"&{name}={quote(value)}" for name, value in query.items())
    return api.call("GET", f"/v1/users/{quote(scenario.id)}/entities?agent={scenario.id}{params}")


def agents_create(api: Api, scenarios: list[Scenario]) -> None:
    for scenario in scenarios:
        api.call("POST", "/v1/agents", {"slug": scenario.id, "name": scenario.title[:200],
                 "schema_fields": scenario.fields, "settings": {"extractor": "rules"}})  # fmt: skip


def session_ingest(api: Api, scenario: Scenario, n: int) -> tuple[str, tuple[str, int]]:
    """Open session ``n`` and append its turns; (session uuid, (session uuid, last seq))."""
    opened = api.call("POST", "/v1/sessions", {
        "agent": scenario.id, "user": scenario.id, "session": f"{scenario.id}-s{n}",
        "metadata": {"participants": scenario.participants}})  # fmt: skip
    # each turn's time as the user's clock gave it (its offset kept: the user's own day)
    turns = [{"role": t.role, "text": t.text, "seq": t.seq, "occurred_at": t.occurred_at.isoformat()}
             for t in scenario.sessions[n - 1]]  # fmt: skip
    for i in range(0, len(turns), MAX_BATCH):
        api.call("POST", f"/v1/sessions/{opened['session_id']}/turns:batch",
                 {"turns": turns[i : i + MAX_BATCH]})  # fmt: skip
    return opened["session_id"], (
        opened["session_id"],
        max(t.seq for t in scenario.sessions[n - 1]),
    )


def run_request(api: Api, scenario: Scenario) -> None:
    status, body = api.status(
        "POST", f"/v1/users/{quote(scenario.id)}/runs", {"agent": scenario.id}
    )
    if status not in (202, 409):
        raise RuntimeError(f"run request for {scenario.id} → {status}: {body}")


def runs_wait(
    api: Api,
    scenarios: list[Scenario],
    last_turn: dict[str, tuple[str, int]],
    timeout: float,
    failures: list[str],
) -> None:
    """Until every user's runs are finished and cover its last turn (or failed for good)."""
    waiting = {s.id: s for s in scenarios}
    asked = dict.fromkeys(waiting, 1)
    deadline = time.monotonic() + timeout
    while waiting:
        if time.monotonic() > deadline:
            raise RuntimeError(f"runs not finished in {timeout:.0f} s: {sorted(waiting)}")
        for sid, scenario in list(waiting.items()):
            runs = api.call("GET", f"/v1/users/{quote(sid)}/runs?agent={sid}")
            if any(r["status"] in OPEN for r in runs):
                continue
            session, seq = last_turn[sid]
            covered = any(
                r["status"] == "succeeded" and r["last_turn"]
                and r["last_turn"]["session"] == session and r["last_turn"]["seq"] >= seq
                for r in runs
            )  # fmt: skip
            if covered:
                del waiting[sid]
            elif asked[sid] >= 3 or (runs and runs[0]["status"] == "failed"):
                failures.append(f"{sid}: runs {[(r['status'], r['error'][:80]) for r in runs[:3]]}")
                del waiting[sid]
            else:
                asked[sid] += 1
                run_request(api, scenario)
        if waiting:
            time.sleep(0.3)


def reads_collect(
    api: Api, scenario: Scenario, sessions: dict[int, str], marks: dict[int, str]
) -> Reads:
    start = api.call("POST", "/v1/sessions", {
        "agent": scenario.id, "user": scenario.id, "session": f"{scenario.id}-final",
        "metadata": {"participants": scenario.participants}})  # fmt: skip
    packed = api.call("POST", "/v1/context", {"session": start["session_id"]})
    as_of = {item["at"] for item in scenario.expect["as_of"]}
    known = {item["after_session"] for item in scenario.expect["known_at"]}
    return Reads(
        sessions=sessions,
        current=_entities(api, scenario),
        timeline=_entities(api, scenario, status="any"),
        as_of={at: _entities(api, scenario, as_of=_utc(parse_time(at))) for at in as_of},
        known_at={n: _entities(api, scenario, known_at=marks[n]) for n in known},
        start=start,
        blocks={"session_start": start["context_block"], "context": packed["context"]},
    )


def run(client: Client, scenarios: list[Scenario], timeout: float = 900) -> dict[str, Any]:
    """Ingest, extract and read every scenario; {"reads": id → Reads, "failures", timings}."""
    api = Api(client)
    agents_create(api, scenarios)
    sessions: dict[str, dict[int, str]] = {s.id: {} for s in scenarios}
    marks: dict[str, dict[int, str]] = {s.id: {} for s in scenarios}
    failures: list[str] = []
    started = time.perf_counter()
    for n in range(1, max(len(s.sessions) for s in scenarios) + 1):
        active = [s for s in scenarios if len(s.sessions) >= n]
        last_turn: dict[str, tuple[str, int]] = {}
        for scenario in active:
            sessions[scenario.id][n], last_turn[scenario.id] = session_ingest(api, scenario, n)
            run_request(api, scenario)
        runs_wait(api, active, last_turn, timeout, failures)
        time.sleep(0.05)  # the mark lies strictly after every recorded_at of this round
        mark = _utc(datetime.datetime.now(datetime.UTC))
        for scenario in active:
            marks[scenario.id][n] = mark
        print(f"session {n}: {len(active)} conversations extracted "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)  # fmt: skip
    extracted = time.perf_counter() - started
    reads = {s.id: reads_collect(api, s, sessions[s.id], marks[s.id]) for s in scenarios}
    return {"reads": reads, "failures": failures, "extraction_seconds": round(extracted, 1)}
