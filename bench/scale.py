"""How every call-path cost grows with the data (issue 18, point 1).

    .venv/bin/python -m bench.scale [--sizes 100000,1000000,10000000] [--heavy 1000,10000,100000]
                                    [--out bench/results/scale.json] [--load-budget 1800]

Starts the real server on a fresh embedded stack in a temporary directory (gunicorn and a worker,
as `make run` does; bench/latency.py's way), creates tenants and the bench agent, then grows one
database size by size: it fills it in bulk with COPY (bench/scale_load.py; rows as
bench/scale_data.py describes) up to the size in turns, checks that the service reads the loaded
rows back (session start, facts, context, search), and measures over HTTP session start (Redis
hit and miss), turn append, /v1/context and search (bench/scale_measure.py). After the first
size it adds the heavy users (10^3, 10^4, 10^5 memory units each) and measures their search at
every size; after the last, their semantic leg both ways (exact scan, per-user HNSW index).

Memory units of the users it searches carry the bundled embedder's vectors of their texts;
everyone else's are random unit vectors (search is scoped to one user, so other users' vectors
only take space). A size whose load would take longer than --load-budget seconds (projected from
the rate so far) is skipped, and the report says so. Writes --out, a PNG beside it, and prints
the table (bench/scale_report.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.latency import Client, start_server  # noqa: E402
from bench.scale_data import QUERIES, TURNS_PER_UNIT, TextPool, schema_fields  # noqa: E402

TURNS_PER_USER = 100  # 5 sessions of 20
TENANTS = 5  # the demo tenant (the API key's) holds half the users, four others the rest
SEARCH_USERS = 10  # users of ~50 units, searched as "normal users"


def django_setup(var: Path) -> str:
    """Django in this process, on the bench's stack: the loader renders hot documents with the
    service's own code. Returns the database URI."""
    import pgserver

    uri = pgserver.get_server(var / "pgdata", cleanup_mode=None).get_uri()
    os.environ.update(DATABASE_URL=uri, REDIS_URL=f"unix://{var / 'redis' / 'redis.sock'}",
                      HANDOVER_VAR_DIR=str(var), DJANGO_SETTINGS_MODULE="config.settings")  # fmt: skip
    # The server's key: one given in the environment (the server keeps it), else its file.
    if not os.environ.get("SECRET_KEY"):
        os.environ["SECRET_KEY_FILE"] = str(var / "secret_key")
    import django

    django.setup()
    return str(uri)


def scope_create(client: Client) -> Any:
    from bench.scale_load import Scope
    from schemas.models import Agent
    from schemas.services import agent_create
    from tenants.models import Tenant

    status, body, *_ = client.call("POST", "/v1/agents", {
        "slug": "bench", "name": "Bench", "schema_fields": schema_fields(),
        "settings": {"extraction_token_threshold": 200_000, "context_window_turns": 10}})  # fmt: skip
    assert status == 201, body
    demo = Agent.objects.get(slug="bench")
    agents = [(demo.tenant_id, demo.pk, "bench")]
    for i in range(1, TENANTS):
        tenant = Tenant.objects.create(name=f"Scale {i}", slug=f"scale-{i}")
        agent = agent_create(tenant_id=tenant.pk, slug="bench", name="Bench",
                             schema_fields=schema_fields(), actor="bench-scale")  # fmt: skip
        agents.append((tenant.pk, agent.pk, "bench"))
    return Scope(agents=agents)


def bulk_plan(start: int, turns: int) -> list[tuple[str, str, int, bool, int]]:
    """Users of 100 turns from number ``start`` on; the first SEARCH_USERS carry real vectors."""
    plan = []
    for n in range(start, start + max(1, turns // TURNS_PER_USER)):
        tenant = 0 if n % 2 == 0 else 1 + (n // 2) % (TENANTS - 1)
        # The first two of the demo tenant are the hot user and the verified one, then the
        # searched users, then users read cold.
        label = (
            "search"
            if 4 <= n < 4 + SEARCH_USERS * 2 and tenant == 0
            else ("demo" if tenant == 0 else "other")
        )
        plan.append((label, f"u{n}", TURNS_PER_USER, label == "search", tenant))
    return plan


def pool_embeddings(texts: list[str], embed: Any) -> Any:
    """The bundled embedder's vectors of ``texts``, kept under var/ between runs (2,000 texts
    take about a minute of two shared cores)."""
    import hashlib

    import numpy as np

    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = ROOT / "var" / f"scale-pool-{digest}.npy"
    if path.exists():
        return np.load(path)
    vectors = embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def vacuum(uri: str) -> None:
    """What autovacuum and the checkpointer would have done by the time anyone reads: hint bits
    set, visibility map and statistics current (a first read of COPYed pages otherwise writes
    them back), dirty pages on disk."""
    import psycopg

    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")
        # And the load's dirty pages written out now, not by a checkpoint in the middle of the
        # measurement (it stalled the commits of appends and session opens: p99 up ten times at 10^6).
        conn.execute("CHECKPOINT")


def indexes_wait(conn: Any, user_ids: list[int], timeout: float) -> float:
    """Wait until the users' partial HNSW indexes are valid, then for the API processes to see
    them (they cache the list for a minute); returns the seconds the builds took."""
    started = time.monotonic()
    names = [f"acu_hnsw_user_{u}" for u in user_ids]
    while time.monotonic() - started < timeout:
        valid = conn.execute(
            "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
            "WHERE c.relname = ANY(%s) AND i.indisvalid", [names]).fetchone()[0]  # fmt: skip
        conn.commit()
        if valid == len(names):
            break
        time.sleep(2)
    waited = time.monotonic() - started
    time.sleep(61)
    return round(waited, 1)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100000,1000000,10000000", help="turns, comma-separated")
    parser.add_argument("--heavy", default="1000,10000,100000", help="memory units per heavy user")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "scale.json")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--heavy-requests", type=int, default=100)
    parser.add_argument(
        "--load-budget", type=float, default=1800, help="seconds one size's load may take"
    )
    parser.add_argument(
        "--pool", type=int, default=2000, help="distinct unit texts, embedded for real"
    )
    parser.add_argument(
        "--index-wait",
        type=float,
        default=1200,
        help="seconds to wait for the worker's HNSW builds",
    )
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument(
        "--no-both-ways", action="store_true", help="skip the per-user HNSW comparison"
    )
    args = parser.parse_args()  # fmt: skip
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    heavy = [int(float(h)) for h in args.heavy.split(",") if h]

    import psycopg

    from bench import scale_measure as measure
    from bench import scale_report as report

    results: dict[str, Any] = {"sizes": [], "heavy": {}, "skipped": [], "machine": f"{os.cpu_count()} cores",
                               "load_avg_start": os.getloadavg(), "args": vars(args) | {"out": str(args.out)}}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="hv-scale-") as tmp:
        var = Path(tmp) / "var"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = start_server(var, port, args.workers, 1)
        try:
            key = json.loads((var / "demo-credentials.json").read_text())["api_key"]
            client = Client(port, key)
            uri = django_setup(var)
            scope = scope_create(client)
            from bench.scale_load import Loader
            from memory.embedding import embed
            from memory.search.index import MAX_USER_ROWS

            pool = TextPool(units=args.pool)
            started = time.monotonic()
            pool_vectors = pool_embeddings(pool.units, embed)
            results["pool_embedding_s"] = round(time.monotonic() - started, 1)
            print(
                f"{len(pool.units):,} unit texts embedded in {results['pool_embedding_s']} s",
                file=sys.stderr,
            )
            conn = psycopg.connect(uri)
            loader = Loader(conn, scope, pool, pool_vectors)
            users: dict[str, list[tuple[int, str]]] = {}
            loaded_turns, next_user, rate = 0, 0, None
            heavy_users: dict[int, tuple[int, str]] = {}
            for size in sizes:
                need = size - loaded_turns
                if rate and need / rate > args.load_budget:
                    results["skipped"].append({"size": size, "reason": (
                        f"loading {need:,} more turns at the measured {rate:,.0f} turns/s (units, facts, "
                        f"indexes included) would take {need / rate / 60:,.0f} min, over the "
                        f"{args.load_budget / 60:.0f} min budget")})  # fmt: skip
                    print(f"skipping {size:,}: {results['skipped'][-1]['reason']}", file=sys.stderr)
                    break
                plan = bulk_plan(next_user, need)
                next_user += len(plan)
                got = loader.load(plan, f"size {size:,}")
                rate = got.turns / got.seconds
                loaded_turns += got.turns
                for label, ids in got.users.items():
                    users.setdefault(label, []).extend(ids)
                vacuum(uri)
                if not results["sizes"]:
                    results["verified"] = report.verify(client, conn, users)
                touched = {ext for _, ext in users["demo"][:2]}  # the hot user, the verified one
                fresh = [ext for _, ext in got.users.get("demo", []) if ext not in touched]
                random.Random(size).shuffle(fresh)
                entry: dict[str, Any] = {"turns": loaded_turns, "load_s": round(got.seconds, 1),
                                         "load_turns_per_s": round(rate), "load_avg": os.getloadavg()}  # fmt: skip
                entry["latency"] = measure.call_path(
                    client,
                    hot_user=users["demo"][0][1],
                    cold_users=fresh,
                    search_users=[ext for _, ext in users["search"]],
                    requests=args.requests,
                    warmup=args.warmup,
                )
                if not heavy_users and heavy:
                    hplan = [("heavy", f"heavy-{h}", h * TURNS_PER_UNIT, True, 0) for h in heavy]
                    got = loader.load(hplan, "heavy users")
                    loaded_turns += got.turns
                    vacuum(uri)
                    heavy_users = dict(zip(heavy, got.users["heavy"], strict=True))
                    entry["heavy_load_s"] = round(got.seconds, 1)
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(
                    json.dumps(results | {"partial": entry}, indent=2, default=str) + "\n"
                )
                patient = measure.PatientClient(port, key)
                entry["heavy_search"] = {
                    str(h): measure.search_user(patient, ext, args.heavy_requests, 10)
                    for h, (_, ext) in heavy_users.items()}  # fmt: skip
                slow = [h for h in heavy_users if h * (1 + TURNS_PER_UNIT) > MAX_USER_ROWS]
                if slow and "heavy_search_indexed" not in str(results["sizes"]):
                    # Those searches asked the worker for the users' HNSW indexes: again with them.
                    entry["index_wait_s"] = indexes_wait(
                        conn, [heavy_users[h][0] for h in slow], args.index_wait
                    )
                    entry["heavy_search_indexed"] = {
                        str(h): measure.search_user(patient, heavy_users[h][1], args.heavy_requests, 10)
                        for h in slow}  # fmt: skip
                entry["disk"] = measure.disk(conn)
                from django_redis import get_redis_connection

                from memory.hot.cache import hot_cache_key

                tenant, _, slug = scope.agents[0]
                from django.core.cache import cache

                names = [
                    hot_cache_key(tenant_id=tenant, agent_slug=slug, user_external_id=u)
                    for u in fresh[: args.requests]
                ]
                keys = [(cache.make_key(n), cache.make_key(f"{n}:tail")) for n in names]
                entry["redis"] = measure.redis_per_user(get_redis_connection("default"), keys)
                entry["turns_after"] = loaded_turns
                results["sizes"].append(entry)
                report.print_size(entry)
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(results, indent=2, default=str) + "\n")
            if heavy_users and not args.no_both_ways:
                from memory.embedding import embed as embed_queries

                queries = embed_queries(QUERIES)
                tenant, agent, _ = scope.agents[0]
                results["heavy"] = {
                    str(h): measure.semantic_both_ways(conn, tenant=tenant, agent=agent, user=uid, queries=queries)
                    for h, (uid, _) in heavy_users.items()}  # fmt: skip
            conn.close()
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
    results["load_avg_end"] = os.getloadavg()
    args.out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    report.print_all(results)
    report.plot(results, args.out.with_suffix(".png"))
    print(f"wrote {args.out} and {args.out.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
