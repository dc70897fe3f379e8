"""Append throughput under concurrent clients, checked for exactly-once, and what it costs in CPU.

Each client appends to its own session as the Python client does: numbered turns (``seq``), and
every ``retry_every``-th call it sends the turn it just stored again, as a client does when an
acknowledgement is lost; that repeat must answer 200 with the stored turn's id. Afterwards the
rows are counted in PostgreSQL: every acknowledged turn stored (0 lost), no turn stored twice
(0 duplicates), nothing stored that was not acknowledged.

CPU time is read from /proc for the server's processes (gunicorn's, PostgreSQL's backends,
Redis, the Celery worker) and for the load generator itself, before and after the load: the
machine's two cores are shared, so CPU per append is the figure that says where the time goes.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol


class Caller(Protocol):
    def call(
        self, method: str, path: str, body: Any = None
    ) -> tuple[int, Any, float, dict[str, float]]: ...


def throughput(
    connect: Callable[[], Caller], clients: int, seconds: float, retry_every: int = 50
) -> dict[str, Any]:
    setup = connect()
    sessions = []
    for c in range(clients):
        status, body, *_ = setup.call(
            "POST", "/v1/sessions", {"agent": "bench", "user": f"load-{c}"}
        )
        assert status == 201, body
        sessions.append(body["session_id"])
    acked: list[list[int]] = [[] for _ in range(clients)]
    errors = [0] * clients
    server_errors = [0] * clients
    repeats = [0] * clients
    bad_repeats = [0] * clients
    stop = time.monotonic() + seconds
    barrier = threading.Barrier(clients)

    def run(c: int) -> None:
        client = connect()
        path = f"/v1/sessions/{sessions[c]}/turns"
        barrier.wait()
        seq = 0
        while time.monotonic() < stop:
            turn = {"role": "user", "text": f"load client {c} turn {seq + 1}", "seq": seq + 1}
            try:
                status, body, *_ = client.call("POST", path, turn)
            except OSError:
                errors[c] += 1
                continue  # the same seq again: a retry of an unknown outcome
            if status in (200, 201):  # 200: an earlier try of this seq was stored after all
                acked[c].append(body["id"])
                seq += 1
            else:
                errors[c] += 1
                server_errors[c] += status >= 500
                continue
            if retry_every and seq % retry_every == 0:  # the ack "lost": send it again
                status, again, *_ = client.call("POST", path, turn)
                repeats[c] += 1
                bad_repeats[c] += not (status == 200 and again["id"] == body["id"])

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    total = sum(len(a) for a in acked)
    return {"sessions": sessions, "acked_ids": acked, "acked": total, "errors": sum(errors),
            "server_errors": sum(server_errors), "repeats": sum(repeats),
            "bad_repeats": sum(bad_repeats), "seconds": elapsed,
            "per_s": total / elapsed, "calls_per_s": (total + sum(repeats)) / elapsed}  # fmt: skip


def verify(var: Path, load: dict[str, Any]) -> dict[str, int]:
    import pgserver
    import psycopg

    server = pgserver.get_server(var / "pgdata", cleanup_mode=None)
    acked = {turn_id for ids in load["acked_ids"] for turn_id in ids}
    with psycopg.connect(server.get_uri()) as connection:
        rows = connection.execute(
            "SELECT id, session_id::text, text FROM memory_turn WHERE session_id::text = ANY(%s)",
            [load["sessions"]],
        ).fetchall()
    stored_ids = {row[0] for row in rows}
    texts = [(row[1], row[2]) for row in rows]
    return {
        "acked": len(acked),
        "stored": len(acked & stored_ids),
        "lost": len(acked - stored_ids),
        "duplicates": len(texts) - len(set(texts)),
        "unacknowledged_rows": len(stored_ids - acked),
        "repeats": load["repeats"],
        "bad_repeats": load["bad_repeats"],
    }


def cpu_seconds(var: Path, port: int) -> dict[str, float]:
    """CPU seconds (user + system) so far of each part of the stack serving on ``port``."""
    tick = os.sysconf("SC_CLK_TCK")
    postmaster = int((var / "pgdata" / "postmaster.pid").read_text().split()[0])
    totals: dict[str, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # gone meanwhile
        fields = stat.rpartition(")")[2].split()
        pid, parent = int(entry), int(fields[1])
        if pid == postmaster or parent == postmaster:
            part = "postgres"
        elif "gunicorn" in command and f":{port} " in command:
            part = "gunicorn"
        elif "celery" in command and f"-{port}" in command:
            part = "celery"
        elif "redis" in command and str(var) in command:
            part = "redis"
        elif pid == os.getpid():
            part = "load generator"
        else:
            continue
        totals[part] = totals.get(part, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return totals


def cpu_per_call(before: dict[str, float], after: dict[str, float], calls: int) -> dict[str, float]:
    """Milliseconds of CPU per call, per part of the stack and in all."""
    spent = {part: after[part] - before.get(part, 0.0) for part in after}
    per = {part: round(1000 * value / max(calls, 1), 3) for part, value in sorted(spent.items())}
    per["total"] = round(sum(per.values()), 3)
    return per
