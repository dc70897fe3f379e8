"""bench/scale.py's checks and output: that the service reads the loaded rows back, the
tables it prints and the plot of latency against size (log x)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg

from bench.latency import Client

ENDPOINTS = ["session_start_hot", "session_start_cold", "turn_append", "context", "search"]
PER_ROW = {"turn": "memory_turn", "unit": "memory_acu", "fact": "memory_entity",
           "session": "memory_session", "user": "memory_enduser", "hot document": "memory_hotdocument"}  # fmt: skip


def verify(client: Client, conn: psycopg.Connection[Any], users: dict[str, list[tuple[int, str]]]) -> dict[str, Any]:  # fmt: skip
    """Loaded rows come back through the API: a session start shows the user's active facts
    and last turns, the facts API their whole history, context the same memory, search the
    user's own units."""
    user_id, ext = users["demo"][1]
    active = {r[0]: r[1] for r in conn.execute(
        "SELECT key, value_text FROM memory_entity WHERE end_user_id = %s AND status = 'active'", [user_id])}  # fmt: skip
    versions = conn.execute(
        "SELECT count(*) FROM memory_entity WHERE end_user_id = %s", [user_id]
    ).fetchone()[0]  # type: ignore[index]
    last = [r[0] for r in conn.execute(
        "SELECT text FROM memory_turn WHERE end_user_id = %s AND archived_at IS NULL ORDER BY id DESC LIMIT 10",
        [user_id])][::-1]  # fmt: skip
    status, opened, *_ = client.call("POST", "/v1/sessions", {"agent": "bench", "user": ext})
    assert status == 201, opened
    shown = {
        f["key"]: f["value_text"]
        for part in ("facts", "possibilities", "pinned")
        for f in opened[part]
    }
    shown |= {k: f["value_text"] for k, f in opened["profile"].items()}
    assert shown == active, (shown, active)
    assert [t["text"] for t in opened["recent_turns"]] == last
    status, timeline, *_ = client.call("GET", f"/v1/users/{ext}/entities?agent=bench&status=any")
    assert (
        status == 200
        and len(timeline["results"] if isinstance(timeline, dict) else timeline) == versions
    ), timeline
    status, context, *_ = client.call("POST", "/v1/context", {"session": opened["session_id"]})
    assert status == 200 and all(v in str(context) for v in active.values()), context
    search_id, search_ext = users["search"][0]
    texts = {
        r[0]
        for r in conn.execute("SELECT text FROM memory_acu WHERE end_user_id = %s", [search_id])
    }
    status, found, *_ = client.call("POST", "/v1/memory/search",
                                    {"agent": "bench", "user": search_ext, "query": "what is her budget for the flat"})  # fmt: skip
    units = [r["text"] for r in found["results"] if r["source"] == "acu"]
    assert status == 200 and units and set(units) <= texts, found
    return {"facts_active": len(active), "fact_versions": versions, "recent_turns": len(last),
            "search_units_found": len(units), "ok": True}  # fmt: skip


def _row(name: str, r: dict[str, float]) -> str:
    return f"  {name:<20}{r['p50_ms']:>9.2f}{r['p95_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['db_p50_ms']:>9.2f}{r['requests']:>7}"


def print_size(entry: dict[str, Any]) -> None:
    print(f"\n{entry['turns']:,} turns (load {entry['load_s']} s, {entry['load_turns_per_s']:,} turns/s; "
          f"load average {entry['load_avg'][0]:.1f})")  # fmt: skip
    print(f"  {'endpoint':<20}{'p50':>9}{'p95':>9}{'p99':>9}{'db p50':>9}{'n':>7}   ms")
    for name in ENDPOINTS:
        print(_row(name, entry["latency"][name]))
    for units, r in entry.get("heavy_search", {}).items():
        print(_row(f"search {int(units):,} units", r))
    for units, r in entry.get("heavy_search_indexed", {}).items():
        print(_row(f"  {int(units):,}, indexed", r))  # their HNSW index built (ADR 0029)
        parts = r.get("timings_ms", {})
        print("      server parts p50/p95: " + ", ".join(
            f"{k.removesuffix('_ms')} {v['p50']}/{v['p95']}" for k, v in parts.items()
            if isinstance(v, dict) and v["p95"] >= 0.5))  # fmt: skip
    tables = entry["disk"]["tables"]
    print("  bytes per row (heap+TOAST+indexes / heap): " + ", ".join(
        f"{label} {tables[t]['bytes_per_row']:,.0f}/{tables[t]['table_bytes_per_row']:,.0f}"
        for label, t in PER_ROW.items() if tables[t]["rows"]))  # fmt: skip
    redis = entry["redis"]
    print(
        f"  Redis per active user: {redis['bytes_per_user_mean']} B (mean of {redis['users_measured']})"
    )


def print_all(results: dict[str, Any]) -> None:
    print("\nsession start (hot, cold), append, context, search: p99 ms by size")
    print(f"  {'turns':>12}" + "".join(f"{n:>20}" for n in ENDPOINTS))
    for entry in results["sizes"]:
        print(
            f"  {entry['turns']:>12,}"
            + "".join(f"{entry['latency'][n]['p99_ms']:>20.2f}" for n in ENDPOINTS)
        )
    for skipped in results["skipped"]:
        print(f"  {skipped['size']:>12,}  not reached: {skipped['reason']}")
    if results["heavy"]:
        print("\nheavy users' semantic leg (SQL, ms): exact scan vs per-user HNSW (recall@10)")
        for units, r in results["heavy"].items():
            approx = "  ".join(f"{k.split('_')[-1]}: p95 {v['p95_ms']:.2f} r {v['recall_at_10']:.2f}"
                               for k, v in r["approximate"].items())  # fmt: skip
            print(f"  {int(units):>8,} units  exact p50 {r['exact']['p50_ms']:.2f} p95 {r['exact']['p95_ms']:.2f}"
                  f"  | ef_search {approx}  | build {r['index_build_s']} s, {r['index_bytes']:,} B")  # fmt: skip


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [e["turns"] for e in results["sizes"]]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for name in ENDPOINTS:
        for q, style in (("p50_ms", "-"), ("p99_ms", "--")):
            left.plot(sizes, [e["latency"][name][q] for e in results["sizes"]], style, marker="o",
                      label=f"{name.replace('_', ' ')} {q[:3]}")  # fmt: skip
    left.set_xscale("log")
    left.set_xlabel("turns in the database")
    left.set_ylabel("ms (client, loopback HTTP)")
    left.set_title("call path vs size")
    left.legend(fontsize=6, ncol=2)
    heavy = sorted({int(u) for e in results["sizes"] for u in e.get("heavy_search", {})})
    for entry in results["sizes"]:
        if entry.get("heavy_search"):
            # Once a heavy user's HNSW index is built, that is the figure the service answers with.
            searched = entry["heavy_search"] | entry.get("heavy_search_indexed", {})
            right.plot(heavy, [searched[str(u)]["p95_ms"] for u in heavy], marker="o",
                       label=f"search p95, {entry['turns']:,} turns")  # fmt: skip
    right.axhline(50, color="#c0392b", linestyle=":", label="target p95 50 ms")
    right.set_xscale("log")
    right.set_xlabel("memory units of the user")
    right.set_ylabel("ms")
    right.set_title("search vs user size")
    right.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
