"""The turn log three ways — one table, hash-partitioned by tenant, range-partitioned by month —
at the same size: bulk load, single-row appends, the call path's reads, one month's retention.

    .venv/bin/python bench/partitioning.py [--rows 1000000] [--reads 400] [--appends 2000]
        [--out bench/results/partitioning.json]

Runs its own PostgreSQL (the pgserver wheel, the service's) in a temporary directory, so it
measures nothing else. The table has the turn log's columns and keys as migrated (ADR 0028):
primary key (id, tenant_id), unique (tenant_id, session_id, seq), the write lane's index; by
month, both keys must also hold recorded_at (PostgreSQL requires the partition key in every
unique key), so (session, seq) is unique only within a month there. Reads are timed from the
client (psycopg, prepared after five runs), p50 / p95 over random sessions. Prints a table;
writes bench/results/partitioning.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TENANTS = 50
USERS_PER_TENANT = 200
SESSIONS_PER_USER = 5
MONTHS = 12
START = "2025-01-01"

COLUMNS = """
  id bigint NOT NULL DEFAULT nextval('turn_id'), tenant_id bigint NOT NULL,
  session_id uuid NOT NULL, agent_id bigint NOT NULL, end_user_id bigint NOT NULL,
  seq bigint NOT NULL, role varchar(16) NOT NULL, text text NOT NULL, tokens integer NOT NULL,
  occurred_at timestamptz NOT NULL, recorded_at timestamptz NOT NULL, archived_at timestamptz
"""
LAYOUTS: dict[str, dict[str, Any]] = {
    "one table": {"partition": "", "key": ""},
    "hash by tenant (8)": {"partition": "PARTITION BY HASH (tenant_id)", "key": ""},
    "range by month (12)": {
        "partition": "PARTITION BY RANGE (recorded_at)",
        "key": ", recorded_at",
    },
}


def _create(cursor: Any, name: str) -> None:
    layout = LAYOUTS[name]
    key = layout["key"]
    cursor.execute(
        "DROP TABLE IF EXISTS turn; DROP SEQUENCE IF EXISTS turn_id; CREATE SEQUENCE turn_id"
    )
    cursor.execute(f"CREATE TABLE turn ({COLUMNS}) {layout['partition']}")
    if name.startswith("hash"):
        for r in range(8):
            cursor.execute(
                f"CREATE TABLE turn_p{r} PARTITION OF turn FOR VALUES WITH (MODULUS 8, REMAINDER {r})"
            )
    elif name.startswith("range"):
        for m in range(MONTHS + 1):  # + the current month, where appends land
            cursor.execute(
                f"CREATE TABLE turn_m{m} PARTITION OF turn FOR VALUES FROM "
                f"(timestamptz '{START}' + interval '{m} month') "
                f"TO (timestamptz '{START}' + interval '{m + 1} month')"
            )
    cursor.execute(f"ALTER TABLE turn ADD PRIMARY KEY (id, tenant_id{key})")
    cursor.execute(f"ALTER TABLE turn ADD UNIQUE (tenant_id, session_id, seq{key})")
    cursor.execute("CREATE INDEX turn_user_log ON turn (tenant_id, agent_id, end_user_id, id)")


def _load(cursor: Any, rows: int) -> float:
    """Rows in bulk, in the order a service writes them (ids and times rising together)."""
    users = TENANTS * USERS_PER_TENANT
    per_session = max(1, rows // (users * SESSIONS_PER_USER))
    started = time.perf_counter()
    cursor.execute(
        """
        INSERT INTO turn (tenant_id, session_id, agent_id, end_user_id, seq, role, text, tokens,
                          occurred_at, recorded_at)
        SELECT 1 + (u %% %(tenants)s), md5('s' || s)::uuid, 1 + (u %% %(tenants)s), u, q,
               CASE WHEN q %% 2 = 0 THEN 'assistant' ELSE 'user' END,
               repeat(md5(s::text || ':' || q), 4), 40, t, t
        FROM generate_series(0, %(rows)s - 1) g,
             LATERAL (SELECT g / %(per)s AS s, g / %(per)s / %(sessions)s AS u,
                      1 + g %% %(per)s AS q,
                      %(start)s::timestamptz + (g::float8 / %(rows)s) * interval '365 days' AS t) x
        """,
        {"tenants": TENANTS, "sessions": SESSIONS_PER_USER, "rows": rows, "per": per_session,
         "start": START},
    )  # fmt: skip
    cursor.execute("ANALYZE turn")
    return time.perf_counter() - started


def _timed(cursor: Any, sql: str, params: list[tuple[Any, ...]]) -> dict[str, float]:
    times = []
    for args in params:
        started = time.perf_counter()
        cursor.execute(sql, args)
        cursor.fetchall() if cursor.description else None
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
    }


def _measure(connection: Any, name: str, rows: int, reads: int, appends: int) -> dict[str, Any]:
    cursor = connection.cursor()
    _create(cursor, name)
    load_s = _load(cursor, rows)
    cursor.execute(
        "SELECT tenant_id, session_id, agent_id, end_user_id, max(seq), min(id) FROM turn "
        "GROUP BY 1, 2, 3, 4 ORDER BY random() LIMIT %s",
        [reads],
    )
    sessions = cursor.fetchall()
    result: dict[str, Any] = {"rows": rows, "load_s": round(load_s, 1),
                              "load_rows_per_s": round(rows / load_s)}  # fmt: skip
    # The call path's reads, as the service issues them (tenant first, always).
    result["session_page"] = _timed(
        cursor,
        "SELECT seq, role, text FROM turn WHERE tenant_id = %s AND session_id = %s "
        "ORDER BY seq DESC LIMIT 50",
        [(t, s) for t, s, *_ in sessions],
    )
    result["user_after_watermark"] = _timed(
        cursor,
        "SELECT id, text FROM turn WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s "
        "AND id > %s ORDER BY id LIMIT 200",
        [(t, a, u, first) for t, _, a, u, _, first in sessions],
    )
    result["turn_by_id"] = _timed(
        cursor,
        "SELECT text FROM turn WHERE tenant_id = %s AND id = %s",
        [(t, first) for t, _, _, _, _, first in sessions],
    )
    # Appends: one statement each, committed each (as the call path does), now-dated; without
    # waiting for the WAL flush, which costs every layout the same and is noise on shared disks.
    picks = [random.choice(sessions) for _ in range(appends)]
    connection.autocommit = True
    cursor.execute("SET synchronous_commit = off")
    now = f"timestamptz '{START}' + interval '{MONTHS} month'"
    append = (
        "INSERT INTO turn (tenant_id, session_id, agent_id, end_user_id, seq, role, text, tokens, "  # noqa: S608
        "occurred_at, recorded_at) VALUES (%s, %s, %s, %s, %s, 'user', %s, 40, "
        f"{now}, {now}) ON CONFLICT DO NOTHING"
    )
    result["append"] = _timed(
        cursor,
        append,
        [(t, s, a, u, top + 1 + n, uuid.uuid4().hex * 4) for n, (t, s, a, u, top, _) in
         enumerate(picks)],
    )  # fmt: skip
    cursor.execute("SELECT pg_total_relation_size('turn'), "
                   "(SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits "
                   "WHERE inhparent = 'turn'::regclass)")  # fmt: skip
    own, parts = cursor.fetchone()
    result["bytes_per_row"] = round(((parts or 0) + own) / rows)
    # Retention: the oldest month out, the way each layout can do it.
    started = time.perf_counter()
    if name.startswith("range"):
        cursor.execute("DROP TABLE turn_m0")
    else:
        cursor.execute(
            f"DELETE FROM turn WHERE recorded_at < timestamptz '{START}' + interval '1 month'"  # noqa: S608
        )
    result["drop_oldest_month_s"] = round(time.perf_counter() - started, 2)
    connection.autocommit = False
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=400)
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--out", type=Path, default=RESULTS / "partitioning.json")
    args = parser.parse_args()
    import pgserver

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="hv-partitioning-") as directory:
        server = pgserver.get_server(directory, cleanup_mode="stop")
        with psycopg.connect(server.get_uri()) as connection:
            connection.autocommit = True
            for name in LAYOUTS:
                print(f"{name}: loading {args.rows:,} rows…", flush=True)
                connection.autocommit = True
                results[name] = _measure(connection, name, args.rows, args.reads, args.appends)
                print(json.dumps(results[name]), flush=True)
    header = f"{'layout':22} {'load rows/s':>11} {'append p50/p95':>15} {'page p50/p95':>14} "
    header += f"{'lane p50/p95':>14} {'by id p50/p95':>14} {'B/row':>6} {'drop month':>10}"
    print(header)
    for name, r in results.items():

        def pair(measure: str, r: dict[str, Any] = r) -> str:
            return f"{r[measure]['p50_ms']:.2f}/{r[measure]['p95_ms']:.2f}"

        print(f"{name:22} {r['load_rows_per_s']:>11,} {pair('append'):>15} "
              f"{pair('session_page'):>14} {pair('user_after_watermark'):>14} "
              f"{pair('turn_by_id'):>14} {r['bytes_per_row']:>6} {r['drop_oldest_month_s']:>9}s")  # fmt: skip
    if not args.no_write:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
