"""What every scenario shares: the row it reports, requests that never raise, the count in
PostgreSQL, latency summaries, threads and waits, and the table."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.faults.stack import Stack
from bench.latency import Client, percentile


@dataclass
class Row:
    scenario: str
    requests: int = 0
    acknowledged: int = 0
    stored: int = 0
    lost: int = 0
    duplicates: int = 0
    server_errors: int = 0  # 5xx other than the 503s a fault is expected to cause
    unavailable: int = 0  # 503 database_unavailable / cache_unavailable
    recovery_s: float | None = None
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def create_agent(client: Client, slug: str, settings: dict[str, Any], **extra: Any) -> None:
    status, body, *_ = client.call(
        "POST", "/v1/agents", {"slug": slug, "name": slug, "settings": settings, **extra}
    )
    assert status == 201, body


def open_session(client: Client, agent: str, user: str, session: str) -> str:
    status, body, *_ = client.call(
        "POST", "/v1/sessions", {"agent": agent, "user": user, "session": session}
    )
    assert status in (200, 201), body
    return str(body["session_id"])


def call(client: Client, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
    """A request that reports a dropped connection as status 0 instead of raising."""
    try:
        status, answer, elapsed, _ = client.call(method, path, body)
    except OSError:
        return 0, None, 0.0
    return status, answer, elapsed


def count_turns(stack: Stack, acked: dict[str, set[int]]) -> dict[str, int]:
    """Stored, lost and duplicates of the acknowledged (session, seq)s, read in PostgreSQL."""
    sessions = list(acked)
    with stack.db() as db:
        rows = db.execute(
            "SELECT session_id::text, seq, text FROM memory_turn WHERE session_id::text = ANY(%s)",
            [sessions],
        ).fetchall()
    stored_keys = Counter((session, seq) for session, seq, _ in rows)
    texts = Counter((session, text) for session, _, text in rows)
    wanted = {(session, seq) for session, seqs in acked.items() for seq in seqs}
    return {
        "acknowledged": len(wanted),
        "stored": len(wanted & set(stored_keys)),
        "lost": len(wanted - set(stored_keys)),
        "duplicates": sum(n - 1 for n in stored_keys.values()) + sum(n - 1 for n in texts.values()),
    }


def latency(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {f"p{q}_ms": round(percentile(values, q), 2) for q in (50, 95, 99)} | {"n": len(values)}


def run_threads(n: int, target: Callable[[int], None]) -> None:
    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def table(rows: list[Row]) -> str:
    head = f"{'scenario':<12}{'requests':>10}{'acked':>9}{'stored':>9}{'lost':>6}{'dups':>6}{'5xx':>6}{'503':>6}{'recovery':>10}"
    lines = [head]
    for r in rows:
        recovery = f"{r.recovery_s:.2f} s" if r.recovery_s is not None else "—"
        lines.append(f"{r.scenario:<12}{r.requests:>10,}{r.acknowledged:>9,}{r.stored:>9,}{r.lost:>6}"
                     f"{r.duplicates:>6}{r.server_errors:>6}{r.unavailable:>6}{recovery:>10}")  # fmt: skip
    return "\n".join(lines)
