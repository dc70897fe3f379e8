"""What bench/scale.py measures at each size: call-path latency over HTTP (bench/latency.py's
client against the real gunicorn), on-disk bytes per row and per index, Redis memory per active
user, and the heavy users' semantic leg both ways (exact scan, per-user approximate index)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg

from bench.latency import Client, percentile, summary
from bench.scale_data import QUERIES

Sample = tuple[float, dict[str, float]]
TABLES = ["memory_turn", "memory_acu", "memory_entity", "memory_session", "memory_enduser",
          "memory_hotdocument"]  # fmt: skip


def timed(n: int, warmup: int, call: Callable[[int], tuple[int, Any, float, dict[str, float]]]) -> list[Sample]:  # fmt: skip
    samples = []
    for i in range(warmup + n):
        status, body, elapsed, timings = call(i)
        if status not in (200, 201):
            raise AssertionError(f"HTTP {status}: {str(body)[:300]}")
        if i >= warmup:
            samples.append((elapsed, timings))
    return samples


def call_path(client: Client, *, hot_user: str, cold_users: list[str], search_users: list[str],
              requests: int, warmup: int) -> dict[str, dict[str, float]]:  # fmt: skip
    """Session start (cache hit: the same user again; miss: users never read since the load,
    their hot document in PostgreSQL only), turn append, context, normal users' search."""
    status, opened, *_ = client.call("POST", "/v1/sessions", {"agent": "bench", "user": hot_user})
    assert status in (200, 201), opened
    session = opened["session_id"]
    cold = cold_users[: requests + warmup]
    samples = {
        "session_start_hot": timed(requests, warmup, lambda i: client.call(
            "POST", "/v1/sessions", {"agent": "bench", "user": hot_user})),
        "session_start_cold": timed(max(1, len(cold) - warmup), min(warmup, len(cold) - 1), lambda i: client.call(
            "POST", "/v1/sessions", {"agent": "bench", "user": cold[i]})),
        "turn_append": timed(requests, warmup, lambda i: client.call(
            "POST", f"/v1/sessions/{session}/turns",
            {"role": "user", "text": f"Measured turn {i}: a 3BHK near the metro under 90 lakhs."})),
        "context": timed(requests, warmup, lambda i: client.call(
            "POST", "/v1/context", {"session": session})),
        "search": timed(requests // 2, 4 * len(search_users), lambda i: client.call(
            "POST", "/v1/memory/search", {"agent": "bench", "user": search_users[i % len(search_users)],
                                          "query": QUERIES[i % len(QUERIES)]})),
    }  # fmt: skip
    return {name: summary(s) for name, s in samples.items()}


class PatientClient(Client):
    """A heavy user's first search in a process may take seconds: wait up to 10 minutes."""

    def _connect(self) -> socket.socket:
        sock = super()._connect()
        sock.settimeout(600)
        return sock


def search_user(client: Client, user: str, requests: int, warmup: int) -> dict[str, Any]:
    """The user's search over HTTP; besides the latencies, each part of the server's time
    (``timings``: start, legs, fuse…) at p50 / p95, and the parts of the slowest call."""
    parts: list[dict[str, float]] = []

    def call(i: int) -> tuple[int, Any, float, dict[str, float]]:
        answer = client.call("POST", "/v1/memory/search",
                             {"agent": "bench", "user": user, "query": QUERIES[i % len(QUERIES)]})  # fmt: skip
        body = answer[1] if isinstance(answer[1], dict) else {}
        parts.append({**body.get("timings", {}), "_ms": answer[2]})
        return answer

    first = call(0)  # the first in some process: loads the user, or finds them too large
    parts.clear()
    result: dict[str, Any] = dict(summary(timed(requests, warmup, call)))
    result["first_ms"] = round(first[2], 1)
    measured = parts[warmup:]
    names = sorted({k for p in measured for k in p if k != "_ms"})
    result["timings_ms"] = {n: {"p50": round(percentile([p.get(n, 0.0) for p in measured], 50), 2),
                                "p95": round(percentile([p.get(n, 0.0) for p in measured], 95), 2)}
                            for n in names}  # fmt: skip
    slowest = max(measured, key=lambda p: p["_ms"])
    result["slowest_timings_ms"] = {k: v for k, v in slowest.items() if k != "_ms"}
    _, body, *_ = call(0)
    result["results"] = len(body["results"])
    return result


def disk(conn: psycopg.Connection[Any]) -> dict[str, Any]:
    """Bytes per row (heap + TOAST + indexes, and heap alone) and every index's size."""
    conn.execute("CHECKPOINT")
    out: dict[str, Any] = {"tables": {}, "indexes": {}}
    for table in TABLES:
        rows = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # type: ignore[index]  # noqa: S608
        # A partitioned table (the turn log) holds nothing itself: its partitions are summed.
        # (pg_partition_tree is empty for a table that is not partitioned.)
        total, heap, indexes = conn.execute(
            "SELECT sum(pg_total_relation_size(r))::bigint, sum(pg_table_size(r))::bigint, "
            "sum(pg_indexes_size(r))::bigint "
            "FROM (SELECT relid AS r FROM pg_partition_tree(%s::regclass) "
            "UNION SELECT %s::regclass) AS parts",
            [table, table],
        ).fetchone()  # type: ignore[misc]
        out["tables"][table] = {
            "rows": rows, "total_bytes": total, "table_bytes": heap, "index_bytes": indexes,
            "bytes_per_row": round(total / rows, 1) if rows else None,
            "table_bytes_per_row": round(heap / rows, 1) if rows else None,
        }  # fmt: skip
        for name, size in conn.execute(
            "SELECT indexrelid::regclass::text, (SELECT sum(pg_relation_size(r))::bigint FROM "
            "(SELECT relid AS r FROM pg_partition_tree(indexrelid) UNION SELECT indexrelid) AS p) "
            "FROM pg_index "
            "WHERE indrelid = %s::regclass ORDER BY 2 DESC",
            [table],
        ):
            out["indexes"][name] = size
    out["database_bytes"] = conn.execute("SELECT pg_database_size(current_database())").fetchone()[
        0
    ]  # type: ignore[index]
    return out


def redis_per_user(redis: Any, keys: list[tuple[str, str]]) -> dict[str, Any]:
    """MEMORY USAGE of each cached document's keys (the document and its tail)."""
    sizes = []
    for pair in keys:
        used = [redis.memory_usage(k) or 0 for k in pair]
        if used[0]:
            sizes.append(sum(used))
    info = redis.info("memory")
    return {
        "users_measured": len(sizes),
        "bytes_per_user_mean": round(sum(sizes) / len(sizes), 1) if sizes else None,
        "bytes_per_user_p95": percentile(sizes, 95) if sizes else None,
        "used_memory": info.get("used_memory"),
        "keys": redis.dbsize(),
    }


SEMANTIC = (
    "SELECT id, 1 - (embedding <=> %s::vector) FROM memory_acu WHERE tenant_id = %s AND "
    "agent_id = %s AND end_user_id = {user} AND embedding IS NOT NULL "
    "ORDER BY embedding <=> %s::vector LIMIT 50"
)


def _run(conn: psycopg.Connection[Any], sql: str, vectors: list[str], scope: list[int], n: int) -> tuple[list[float], list[list[tuple[int, float]]]]:  # fmt: skip
    """Times (ms) and, per query, the (id, similarity) rows."""
    times, ids = [], []
    for i in range(n):
        vector = vectors[i % len(vectors)]
        started = time.perf_counter()
        # Never prepared: a plan cached while index scans were off would serve the HNSW side too.
        rows = conn.execute(sql, [vector, *scope, vector], prepare=False).fetchall()
        times.append((time.perf_counter() - started) * 1000)
        ids.append([(r[0], float(r[1])) for r in rows])
    return times, ids


def _recall(approx: list[tuple[int, float]], exact: list[tuple[int, float]]) -> tuple[float, float]:
    """Of the approximate top 10: the share that are the exact top 10's rows, and the share at
    least as similar as the exact 10th minus 0.01 (the heavy users' units repeat 2,000 texts with
    a little noise, so many rows are equally good answers and ids alone understate recall)."""
    top = {i for i, _ in exact[:10]}
    floor = exact[:10][-1][1] - 0.01 if exact else 0.0
    return (
        len({i for i, _ in approx[:10]} & top) / 10,
        sum(s >= floor for _, s in approx[:10]) / 10,
    )


def semantic_both_ways(conn: psycopg.Connection[Any], *, tenant: int, agent: int, user: int,
                       queries: np.ndarray, n: int = 60) -> dict[str, Any]:  # fmt: skip
    """The semantic leg's SQL for one user both ways: the exact scan (index scans off, so the
    user's HNSW index cannot answer), then through the user's partial HNSW index (the one the
    service builds, ``memory.search.vector_index``; built here and timed if the worker has not
    yet), at three ``ef_search``, with recall@10 of each against the exact top 10."""
    sql = SEMANTIC.format(user=int(user))
    vectors = ["[" + ",".join(f"{x:.6f}" for x in q) + "]" for q in queries]
    explain = "EXPLAIN (ANALYZE, BUFFERS) " + sql
    conn.execute("SET enable_indexscan = off")
    exact_ms, exact_ids = _run(conn, sql, vectors, [tenant, agent], n)
    plan_exact = "\n".join(r[0] for r in conn.execute(explain, [vectors[0], tenant, agent, vectors[0]]))  # fmt: skip
    conn.execute("RESET enable_indexscan")
    name = f"acu_hnsw_user_{int(user)}"
    build_s = None
    if not conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name]).fetchone():
        started = time.perf_counter()
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(
            f"CREATE INDEX {name} ON memory_acu USING hnsw (embedding vector_cosine_ops) "
            f"WHERE end_user_id = {int(user)}"
        )
        conn.commit()
        build_s = round(time.perf_counter() - started, 1)
    size = conn.execute("SELECT pg_relation_size(%s::regclass)", [name]).fetchone()[0]  # type: ignore[index]
    out: dict[str, Any] = {"units": None, "exact": None, "approximate": {}}
    for ef in (40, 100, 200):
        conn.execute(f"SET hnsw.ef_search = {ef}")
        approx_ms, approx_ids = _run(conn, sql, vectors, [tenant, agent], n)
        recalls = [_recall(a, e) for a, e in zip(approx_ids, exact_ids, strict=True)]
        out["approximate"][f"ef_search_{ef}"] = {
            "p50_ms": round(percentile(approx_ms, 50), 3), "p95_ms": round(percentile(approx_ms, 95), 3),
            "recall_at_10": round(float(np.mean([r[0] for r in recalls])), 3),
            "recall_at_10_by_similarity": round(float(np.mean([r[1] for r in recalls])), 3),
            "rows": round(float(np.mean([len(a) for a in approx_ids])), 1),
        }  # fmt: skip
    plan_approx = "\n".join(r[0] for r in conn.execute(explain, [vectors[0], tenant, agent, vectors[0]]))  # fmt: skip
    conn.execute("RESET hnsw.ef_search")
    conn.commit()
    out["units"] = conn.execute(
        "SELECT count(*) FROM memory_acu WHERE end_user_id = %s", [user]
    ).fetchone()[0]  # type: ignore[index]
    out["exact"] = {
        "p50_ms": round(percentile(exact_ms, 50), 3),
        "p95_ms": round(percentile(exact_ms, 95), 3),
    }
    out["index_build_s"] = build_s  # None: the worker had built it
    out["index_bytes"] = size
    out["plans"] = {"exact": plan_exact, "approximate_ef_200": plan_approx}
    return out
