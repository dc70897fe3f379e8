"""redis: Redis is SIGKILLed while clients append and open sessions, then restarted from its
append-only file (with the copies it held); no session start may miss an acknowledged turn."""

from __future__ import annotations

import threading
import time
from collections import Counter

from bench.faults.common import (
    Row,
    call,
    count_turns,
    create_agent,
    latency,
    open_session,
    wait_for,
)
from bench.faults.scenarios.outage import load_with_outage
from bench.faults.stack import Stack
from bench.latency import Client


def _hot_versions(stack: Stack, agent: str) -> dict[str, tuple[int, int, str]]:
    with stack.db() as db:
        rows = db.execute(
            "SELECT u.external_id, h.version, h.stable_version, h.cache_key FROM memory_hotdocument h "
            "JOIN memory_enduser u ON u.id = h.end_user_id JOIN schemas_agent a ON a.id = h.agent_id "
            "WHERE a.slug = %s",
            [agent],
        ).fetchall()
    return {user: (version, stable, key) for user, version, stable, key in rows}


def _caches_current(stack: Stack, agent: str) -> tuple[int, int]:
    """(users whose Redis copy is PostgreSQL's current document, users)."""
    versions = _hot_versions(stack, agent)
    redis = stack.redis_client()
    current = 0
    for version, stable, key in versions.values():
        raw_stable, raw_tail = redis.mget([f"hv:1:{key}", f"hv:1:{key}:tail"])
        if raw_stable is None or raw_tail is None:
            continue
        held_stable = int(raw_stable.split(b":", 1)[0])
        held_tail = int(raw_tail.split(b":", 1)[0])
        current += held_tail == version and held_stable >= stable
    return current, len(versions)


class _QuietUsers:
    """The quiet users of ``scenario_redis``, each with one turn and a cached document;
    ``while_down`` and ``come_back`` are what they do during the outage and after it."""

    def __init__(self, stack: Stack, client: Client, quiet: int) -> None:
        self.stack = stack
        self.sessions = [
            open_session(client, "cache", f"quiet-{q}", f"quiet-{q}") for q in range(quiet)
        ]
        for q, session in enumerate(self.sessions):
            status, body, _ = call(client, "POST", f"/v1/sessions/{session}/turns",
                                   {"role": "user", "text": f"quiet {q}: hello", "seq": 1})  # fmt: skip
            assert status == 201, body
            open_session(client, "cache", f"quiet-{q}", f"quiet-{q}")  # cached now
        self.acked: dict[str, set[int]] = {s: {1} for s in self.sessions}
        self.stats = Counter[str]()
        self.served_stale = 0

    def while_down(self) -> None:
        own = self.stack.client()
        for q, session in enumerate(self.sessions):
            status, _, _ = call(own, "POST", f"/v1/sessions/{session}/turns",
                                {"role": "user", "text": f"quiet {q}: said while Redis was down", "seq": 2})  # fmt: skip
            self.stats["requests"] += 1
            if 200 <= status < 300:
                self.acked[session].add(2)
            status, _, _ = call(own, "POST", f"/v1/users/quiet-{q}/facts",
                                {"agent": "cache", "key": "city", "value": f"City{q}"})  # fmt: skip
            self.stats["requests"] += 1
            self.stats["fact_writes_ok" if status == 201 else "fact_writes_failed"] += 1
            self.stats["5xx"] += status >= 500

    def come_back(self) -> None:
        own = self.stack.client()
        for q, session in enumerate(self.sessions):
            expected = [f"quiet {q}: hello", f"quiet {q}: said while Redis was down"]
            if q % 2:
                status, _, _ = call(own, "POST", f"/v1/sessions/{session}/turns",
                                    {"role": "user", "text": f"quiet {q}: back", "seq": 3})  # fmt: skip
                self.stats["requests"] += 1
                if 200 <= status < 300:
                    self.acked[session].add(3)
                    expected.append(f"quiet {q}: back")
            status, body, _ = call(own, "POST", "/v1/sessions",
                                   {"agent": "cache", "user": f"quiet-{q}", "session": f"quiet-{q}"})  # fmt: skip
            self.stats["requests"] += 1
            texts = [t["text"] for t in body["recent_turns"]] if status in (200, 201) else []
            city = (body or {}).get("profile", {}).get("city", {}).get("value_text")
            self.served_stale += texts != expected or city != f"City{q}"


class _Restart:
    """Starts Redis again; once the server is ready, the quiet users come back straight away
    (while the busy clients go on), and a thread measures the recovery: until every user's
    copy in Redis is PostgreSQL's current document again (the clients' own appends and
    session starts rebuild them; nothing is flushed)."""

    def __init__(self, stack: Stack, quiet: _QuietUsers) -> None:
        self.stack, self.quiet = stack, quiet
        self.ready_s: float | None = None
        self.rebuilt_s: float | None = None
        self.measuring: threading.Thread | None = None

    def __call__(self) -> None:
        self.stack.start_redis()
        up = time.monotonic()
        wait_for(self.stack.ready, 30, step=0.02)
        self.ready_s = time.monotonic() - up
        self.quiet.come_back()
        self.measuring = threading.Thread(target=self._measure, args=(up,))
        self.measuring.start()

    def measured(self) -> tuple[float | None, float | None]:
        """Ready and rebuilt seconds, once the measuring thread has finished (it polls every
        50 ms: read before it ends, a recovery that happened would read as none)."""
        if self.measuring is not None:
            self.measuring.join(timeout=35)
        return self.ready_s, self.rebuilt_s

    def _rebuilt(self) -> bool:
        current, users = _caches_current(self.stack, "cache")
        return current == users

    def _measure(self, up: float) -> None:
        if wait_for(self._rebuilt, 30, step=0.05):
            self.rebuilt_s = time.monotonic() - up


def _stale_after(stack: Stack, client: Client, clients: int) -> int:
    """One more session start per busy user after the load: how many do not show their last
    turn (each leaves Redis holding PostgreSQL's current document)."""
    stale = 0
    with stack.db() as db:
        last = dict(
            db.execute(
                "SELECT u.external_id, max(t.text) FILTER (WHERE t.seq = s.next_seq - 1) "
                "FROM memory_turn t JOIN memory_session s ON s.id = t.session_id "
                "JOIN memory_enduser u ON u.id = t.end_user_id JOIN schemas_agent a ON a.id = t.agent_id "
                "WHERE a.slug = 'cache' GROUP BY u.external_id"
            ).fetchall()
        )
    for c in range(clients):
        status, body, _ = call(client, "POST", "/v1/sessions",
                               {"agent": "cache", "user": f"cache-{c}", "session": f"cache-{c}"})  # fmt: skip
        texts = [t["text"] for t in body["recent_turns"]] if status in (200, 201) else []
        stale += last.get(f"cache-{c}") not in texts
    return stale


def scenario_redis(stack: Stack, *, clients: int = 8, quiet: int = 8, before: float = 4,
                   down: float = 6, after: float = 6) -> Row:  # fmt: skip
    """Redis SIGKILLed while clients append and resume sessions; restarted from its file.

    Besides the busy clients, ``quiet`` users with a cached document get a turn and a new fact
    only while Redis is down; after it returns, half of them append once more (which rewrites
    the tail in Redis but not the stable part) and each opens a session: the copy Redis came
    back with must not be what they are served.
    """
    client = stack.client()
    create_agent(client, "cache", {"extraction_token_threshold": 200_000})
    quiet_users = _QuietUsers(stack, client, quiet)
    restart = _Restart(stack, quiet_users)
    result = load_with_outage(
        stack, agent="cache", clients=clients, before=before, down=down, after=after,
        stop=stack.stop_redis, start=restart, open_every=5, while_down=quiet_users.while_down,
    )  # fmt: skip
    stats, counts = result["stats"], result["counts"]
    quiet_stats, stale_quiet = quiet_users.stats, quiet_users.served_stale
    quiet_counts = count_turns(stack, quiet_users.acked)
    for name in ("acknowledged", "stored", "lost", "duplicates"):
        counts[name] += quiet_counts[name]
    stale_after = _stale_after(stack, client, clients)
    current, users = _caches_current(stack, "cache")
    ready_s, rebuilt_s = restart.measured()
    return Row(
        "redis", requests=stats["requests"] + clients + quiet_stats["requests"],
        server_errors=stats["5xx"] + quiet_stats["5xx"],
        unavailable=stats["503"], recovery_s=round(rebuilt_s, 2) if rebuilt_s is not None else None,
        seconds=round(result["seconds"], 1), **counts,
        extra={"clients": clients, "redis_down_s": down,
               "stale_session_starts": stats["stale"] + stale_after + stale_quiet,
               "quiet_users": quiet, "quiet_users_served_stale": stale_quiet,
               "fact_writes_while_down": quiet_stats["fact_writes_ok"],
               "fact_writes_failed": quiet_stats["fact_writes_failed"],
               "caches_current_after": f"{current}/{users}",
               "readyz_after_restart_s": round(ready_s, 2) if ready_s is not None else None,
               "append_latency_before": latency(result["phases"]["before"]),
               "append_latency_during": latency(result["phases"]["during"]),
               "append_latency_after": latency(result["phases"]["after"]),
               "refused_connections": stats["refused"], "other_errors": stats["other"]},
    )  # fmt: skip
