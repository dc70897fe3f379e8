"""Evidence recall of memory search on LoCoMo-format data, against baselines, in one run.

    .venv/bin/python bench/locomo.py --data ../shared/bench/locomo-dev.json

1. Starts the real server and worker (`python -m config.runtime run`) on a fresh embedded stack
   and ingests each conversation through the public API: one end user per conversation, one
   session per LoCoMo session with its real date, both speakers (image captions as text); then
   runs extraction to completion through the API.
2. Asks every category 1-4 question through /v1/memory/search (k = 10), after the last session.
3. Scores evidence recall@k (k = 1, 5, 8, 10): the share of a question's evidence turns covered by
   the top-k results' turn references. Answers and evidence are read only here, for scoring.
4. Baselines in the same run on the same data: dense top-k over raw turns (same embedder),
   PostgreSQL full-text top-k over raw turns, the last k turns. Also: session-start block tokens
   vs full-history tokens; prefix reuse of /v1/context when a conversation is replayed turn by
   turn; search latency.
Writes bench/results/locomo.json and locomo.png.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.extraction import conversations  # noqa: E402
from bench.latency import Client, percentile, start_server  # noqa: E402

RESULTS = ROOT / "bench" / "results"
KS = (1, 5, 8, 10)
CATEGORIES = ("1", "2", "3", "4")


def load(path: Path) -> list[dict[str, Any]]:
    """Conversations for ingestion: speakers, sessions, dates, turns (no qa)."""
    return conversations(path)


def questions(path: Path) -> list[dict[str, Any]]:
    """Question text and category only; the rest stays in the file until scoring."""
    return [{"conversation": item["sample_id"], "index": i, "question": q["question"], "category": str(q["category"])}
            for item in json.loads(path.read_text()) for i, q in enumerate(item["qa"]) if str(q["category"]) in CATEGORIES]  # fmt: skip


def evidence(path: Path) -> dict[tuple[str, int], set[str]]:
    """Scoring only: normalised evidence ids per question (LOCOMO.md: split on ';' or spaces,
    strip leading zeros; malformed ids kept as they are, so they simply cannot be covered)."""
    out = {}
    for item in json.loads(path.read_text()):
        for i, q in enumerate(item["qa"]):
            ids = set()
            for raw in q.get("evidence") or []:
                for part in re.split(r"[;\s]+", raw):
                    match = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
                    if match:
                        ids.add(f"D{int(match.group(1))}:{int(match.group(2))}")
            out[(item["sample_id"], i)] = ids
    return out


def recall(found: list[set[str]], gold: set[str]) -> dict[int, float]:
    out = {}
    for k in KS:
        covered: set[str] = set().union(*found[:k]) if found[:k] else set()
        out[k] = len(gold & covered) / len(gold)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument(
        "--skip-replay", action="store_true", help="skip the turn-by-turn prefix replay"
    )
    args = parser.parse_args()
    conversations = load(args.data)

    with tempfile.TemporaryDirectory(prefix="hv-locomo-") as tmp:
        var = Path(tmp) / "var"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = start_server(var, port, args.workers, 1)
        try:
            key = json.loads((var / "demo-credentials.json").read_text())["api_key"]
            client = Client(port, key)
            dia = ingest(client, conversations)
            asked = ask(client, questions(args.data), dia)
            baselines = baseline(var, conversations, asked)
            block_ratio = context_ratio(client, conversations)
            reuse = None if args.skip_replay else replay(client, conversations)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)

    gold = evidence(args.data)
    results = score(asked, baselines, gold)
    latencies = [q["ms"] for q in asked]
    results["search_ms"] = {"p50": round(percentile(latencies, 50), 2), "p95": round(percentile(latencies, 95), 2),
                            "p99": round(percentile(latencies, 99), 2),
                            "server_p50": round(percentile([q["server_ms"] for q in asked], 50), 2)}  # fmt: skip
    # Where search time goes, per part (server side, ms): the query embedding, the legs, and
    # the turn-log fallback when it ran.
    for part in ("embed_ms", "legs_ms", "fallback_ms"):
        values = [q["parts"].get(part, 0.0) for q in asked]
        results["search_ms"][part] = {
            "p50": round(percentile(values, 50), 2),
            "p95": round(percentile(values, 95), 2),
        }
    results["search_ms"]["fallback_share"] = round(
        sum("fallback_ms" in q["parts"] for q in asked) / len(asked), 3
    )
    results["context_tokens_ratio"] = block_ratio
    results["prefix_reuse_ratio"] = reuse
    results["questions"] = len([q for q in asked if gold[(q["conversation"], q["index"])]])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "locomo.json").write_text(json.dumps(results, indent=2) + "\n")
    chart(results, RESULTS / "locomo.png")
    report(results)
    return 0


def ingest(client: Client, conversations: list[dict[str, Any]]) -> dict[tuple[str, int], str]:
    """Returns (session uuid, seq) → dia_id."""
    status, body, *_ = client.call("POST", "/v1/agents", {"slug": "locomo", "name": "LoCoMo",
                                   "settings": {"extraction_token_threshold": 200_000}})  # fmt: skip
    assert status == 201, body
    # The replay user lives with the default extraction threshold, as a live agent would.
    status, body, *_ = client.call(
        "POST", "/v1/agents", {"slug": "locomo-replay", "name": "LoCoMo replay"}
    )
    assert status == 201, body
    dia: dict[tuple[str, int], str] = {}
    started = time.perf_counter()
    for conversation in conversations:
        for session in conversation["sessions"]:
            status, opened, *_ = client.call("POST", "/v1/sessions", {
                "agent": "locomo", "user": conversation["id"], "session": f"{conversation['id']}-s{session['n']}",
                "metadata": {"participants": {"user": conversation["a"], "assistant": conversation["b"]}}})  # fmt: skip
            assert status in (200, 201), opened
            turns = [{"role": "user" if t["speaker"] == conversation["a"] else "assistant", "text": t["text"],
                      "seq": i + 1, "occurred_at": (session["when"] + datetime.timedelta(seconds=30 * i)).isoformat()}
                     for i, t in enumerate(session["turns"])]  # fmt: skip
            status, body, *_ = client.call(
                "POST", f"/v1/sessions/{opened['session_id']}/turns:batch", {"turns": turns}
            )
            assert status in (200, 201), body
            for i, t in enumerate(session["turns"]):
                dia[(opened["session_id"], i + 1)] = t["dia_id"]
        status, body, *_ = client.call(
            "POST", f"/v1/users/{conversation['id']}/runs", {"agent": "locomo"}
        )
        assert status == 202, body
    for conversation in conversations:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            _, runs, *_ = client.call("GET", f"/v1/users/{conversation['id']}/runs?agent=locomo")
            if runs and all(r["status"] in ("succeeded", "failed") for r in runs):
                assert all(r["status"] == "succeeded" for r in runs), runs
                break
            time.sleep(0.5)
    print(f"ingested and extracted in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return dia


def ask(
    client: Client, items: list[dict[str, Any]], dia: dict[tuple[str, int], str]
) -> list[dict[str, Any]]:
    for item in items:
        status, body, elapsed, timings = client.call("POST", "/v1/memory/search", {
            "agent": "locomo", "user": item["conversation"], "query": item["question"], "k": 10})  # fmt: skip
        assert status == 200, body
        item["found"] = [{dia[(t["session"], t["seq"])] for t in hit["turns"] if (t["session"], t["seq"]) in dia}
                         for hit in body["results"]]  # fmt: skip
        item["ms"] = elapsed
        item["server_ms"] = timings.get("app", 0.0)
        item["parts"] = body["timings"]
    return items


def baseline(
    var: Path, conversations: list[dict[str, Any]], asked: list[dict[str, Any]]
) -> dict[str, dict[tuple[str, int], list[set[str]]]]:
    import numpy as np
    import pgserver
    import psycopg

    from memory.embedding import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    turns = {
        c["id"]: [(t["dia_id"], t["text"]) for s in c["sessions"] for t in s["turns"]]
        for c in conversations
    }
    vectors = {cid: np.vstack([embedder.embed([text for _, text in rows[i:i + 64]]) for i in range(0, len(rows), 64)])
               for cid, rows in turns.items()}  # fmt: skip
    uri = pgserver.get_server(var / "pgdata", cleanup_mode=None).get_uri()
    out: dict[str, dict[tuple[str, int], list[set[str]]]] = {
        "dense_turns": {},
        "fts_turns": {},
        "recent": {},
    }
    with psycopg.connect(uri) as connection:
        for item in asked:
            rows = turns[item["conversation"]]
            q = embedder.embed([item["question"]])[0]
            order = np.argsort(-(vectors[item["conversation"]] @ q))[:10]
            key = (item["conversation"], item["index"])
            out["dense_turns"][key] = [{rows[i][0]} for i in order]
            found = connection.execute(
                "SELECT s.external_id, t.seq FROM memory_turn t JOIN memory_session s ON s.id = t.session_id "
                "JOIN memory_enduser u ON u.id = t.end_user_id, "
                "(SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) AS q "
                " FROM unnest(to_tsvector('english', %s))) q "
                "WHERE u.external_id = %s AND q.q IS NOT NULL AND to_tsvector('english', t.text) @@ q.q "
                "ORDER BY ts_rank_cd(to_tsvector('english', t.text), q.q) DESC, t.id LIMIT 10",
                [item["question"], item["conversation"]],
            ).fetchall()
            out["fts_turns"][key] = [
                {f"D{external.rsplit('-s', 1)[1]}:{seq}"} for external, seq in found
            ]
            out["recent"][key] = [{dia_id} for dia_id, _ in reversed(rows[-10:])]
    return out


def score(
    asked: list[dict[str, Any]], baselines: dict[str, Any], gold: dict[tuple[str, int], set[str]]
) -> dict[str, Any]:
    def aggregate(found_for: Any) -> dict[str, Any]:
        sums: dict[str, dict[int, float]] = {
            c: dict.fromkeys(KS, 0.0) for c in (*CATEGORIES, "all")
        }
        counts = dict.fromkeys((*CATEGORIES, "all"), 0)
        for item in asked:
            ids = gold[(item["conversation"], item["index"])]
            if not ids:
                continue  # empty evidence: skipped, as LOCOMO.md says
            r = recall(found_for(item), ids)
            for bucket in (item["category"], "all"):
                counts[bucket] += 1
                for k in KS:
                    sums[bucket][k] += r[k]
        result: dict[str, Any] = {
            f"recall@{k}": round(sums["all"][k] / counts["all"], 4) for k in KS
        }
        result["by_category"] = {c: {f"recall@{k}": round(sums[c][k] / counts[c], 4) for k in KS} | {"questions": counts[c]}
                                 for c in CATEGORIES if counts[c]}  # fmt: skip
        return result

    return {
        "system": aggregate(lambda item: item["found"]),
        "baselines": {
            name: aggregate(
                lambda item, name=name: baselines[name][(item["conversation"], item["index"])]
            )
            for name in ("dense_turns", "fts_turns", "recent")
        },
    }


def context_ratio(client: Client, conversations: list[dict[str, Any]]) -> float:
    from memory.tokens import count_tokens

    ratios = []
    for conversation in conversations:
        _, body, *_ = client.call(
            "POST", "/v1/sessions", {"agent": "locomo", "user": conversation["id"]}
        )
        history = sum(count_tokens(t["text"]) for s in conversation["sessions"] for t in s["turns"])
        ratios.append(count_tokens(body["context_block"]) / history)
    return round(sum(ratios) / len(ratios), 4)


def replay(client: Client, conversations: list[dict[str, Any]]) -> float:
    """Append each conversation turn by turn (as a live agent would, extraction triggered by the
    default threshold) and call /v1/context after each; count calls whose stable prefix equals
    the previous call's."""
    same = total = 0
    for conversation in conversations:
        user = f"{conversation['id']}-replay"
        previous = None
        for session in conversation["sessions"]:
            participants = {"user": conversation["a"], "assistant": conversation["b"]}
            _, opened, *_ = client.call("POST", "/v1/sessions", {"agent": "locomo-replay", "user": user,
                                                                 "metadata": {"participants": participants}})  # fmt: skip
            for i, t in enumerate(session["turns"]):
                role = "user" if t["speaker"] == conversation["a"] else "assistant"
                when = (session["when"] + datetime.timedelta(seconds=30 * i)).isoformat()
                client.call(
                    "POST",
                    f"/v1/sessions/{opened['session_id']}/turns",
                    {"role": role, "text": t["text"], "occurred_at": when},
                )
                _, packed, *_ = client.call(
                    "POST", "/v1/context", {"session": opened["session_id"]}
                )
                prefix = packed["context"].split("\n\n## Recent conversation")[0]
                if previous is not None:
                    total += 1
                    same += prefix == previous
                previous = prefix
    return round(same / total, 4) if total else 0.0


def report(results: dict[str, Any]) -> None:
    rows = [("Handover search", results["system"])] + [
        (f"baseline: {n}", b) for n, b in results["baselines"].items()
    ]
    print(
        f"\n{'':<24}"
        + "".join(f"{'R@' + str(k):>8}" for k in KS)
        + "".join(f"{'cat' + c + ' R@8':>11}" for c in CATEGORIES)
    )
    for name, r in rows:
        print(f"{name:<24}" + "".join(f"{r[f'recall@{k}']:>8.3f}" for k in KS)
              + "".join(f"{r['by_category'][c]['recall@8']:>11.3f}" for c in CATEGORIES if c in r["by_category"]))  # fmt: skip
    s = results["search_ms"]
    print(f"\nquestions {results['questions']} · search p50 {s['p50']} ms, p95 {s['p95']} ms, p99 {s['p99']} ms "
          f"(target p95 ≤ 20 ms) · session-start block / full history {results['context_tokens_ratio']:.2%} (target ≤ 2 %) "
          f"· prefix reuse {results['prefix_reuse_ratio']} (target ≥ 70 %) · recall@8 target ≥ 0.92")  # fmt: skip
    print(f"wrote {RESULTS / 'locomo.json'} and {RESULTS / 'locomo.png'}")


def chart(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6.5, 4))
    series = [("Handover search", results["system"]), *results["baselines"].items()]
    for name, r in series:
        axis.plot(KS, [r[f"recall@{k}"] for k in KS], marker="o", label=name)
    axis.set_xlabel("k")
    axis.set_ylabel("evidence recall@k (cat 1-4)")
    axis.set_ylim(0, 1)
    axis.set_xticks(KS)
    axis.grid(alpha=0.3)
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.exit(main())
