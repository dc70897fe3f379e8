"""``python -m bench.locomo --data FILE``: run everything, score, write and print the results."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import socket
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

from bench.latency import Client, percentile, start_server
from bench.locomo import RESULTS
from bench.locomo.baselines import SYSTEMS, rankings
from bench.locomo.data import answer_coverage, evidence, load, questions, tail_block
from bench.locomo.metrics import aggregate, question_scores
from bench.locomo.report import chart, report
from bench.locomo.service import ask, context_ratio, ingest, replay, session_blocks

SERVICE = ("handover", "handover_k50")


def main(argv: list[str] | None = None) -> int:
    import bench.locomo

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    parser = argparse.ArgumentParser(
        description=bench.locomo.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument(
        "--threads", type=int, default=1, help="gunicorn threads per worker (make run: 2)"
    )
    parser.add_argument(
        "--var",
        type=Path,
        help="keep the stack in this directory; a second run on it reuses what was ingested",
    )
    parser.add_argument(
        "--skip-replay", action="store_true", help="skip the turn-by-turn prefix replay"
    )
    parser.add_argument(
        "--no-baselines", action="store_true", help="the service only (for quick iterations)"
    )
    parser.add_argument(
        "--agent-settings",
        type=json.loads,
        default={},
        help="the agent's settings as JSON, e.g. '{\"summary_max_tokens\": 200}' (what the "
        "session-start block costs and tells at other settings; default: the defaults)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the results go")
    args = parser.parse_args(argv)
    conversations = load(args.data)

    with tempfile.TemporaryDirectory(prefix="hv-locomo-") as tmp:
        var = args.var.resolve() if args.var else Path(tmp) / "var"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = start_server(var, port, args.workers, args.threads)
        try:
            key = json.loads((var / "demo-credentials.json").read_text())["api_key"]
            client = Client(port, key)
            dia = ingest(client, conversations, args.agent_settings)
            asked = ask(client, questions(args.data), dia)
            blocks = session_blocks(client, conversations)
            reuse = None if args.skip_replay else replay(client, conversations)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
    baselines = {} if args.no_baselines else rankings(conversations, asked)

    gold = evidence(args.data)
    scored = [q for q in asked if gold[(q["conversation"], q["index"])]]  # LOCOMO.md: skip empty
    ranked = {s: {(q["conversation"], q["index"]): q[s] for q in scored} for s in SERVICE}
    ranked |= baselines
    results: dict[str, Any] = {
        "data": {"file": args.data.name, "sha256": hashlib.sha256(args.data.read_bytes()).hexdigest()},
        "questions": len(scored),
        "bm25": f"bm25s {version('bm25s')}",
        "agent_settings": args.agent_settings,
        "systems": {},
    }  # fmt: skip
    for system, by_question in ranked.items():
        results["systems"][system] = aggregate(
            (q["category"], question_scores(r["ids"], r["tokens"], gold[key]))
            for q in scored
            for key in [(q["conversation"], q["index"])]
            for r in [by_question[key]]
        )
    # Whether k = 50 changes the first ten (the turn-log fallback fills what k leaves).
    results["same_top10_at_k50"] = round(
        sum(q["handover"]["ids"] == q["handover_k50"]["ids"][:10] for q in scored) / len(scored), 4
    )
    results["search_ms"] = latency(scored, "handover")
    results["search_k50_ms"] = latency(scored, "handover_k50")
    results["context_tokens_ratio"] = context_ratio(blocks, conversations)
    from memory.tokens import count_tokens

    tails = {c["id"]: tail_block(c, count_tokens(blocks[c["id"]])) for c in conversations}
    results["block_answer_coverage"] = {
        "handover": answer_coverage(blocks, args.data),
        "last_turns_same_tokens": answer_coverage(tails, args.data),
    }
    results["prefix_reuse_ratio"] = reuse

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "locomo.json").write_text(json.dumps(results, indent=2) + "\n")
    with (args.out / "locomo.rankings.jsonl").open("w") as out:
        for q in scored:
            key = (q["conversation"], q["index"])
            line = {"conversation": q["conversation"], "index": q["index"], "category": q["category"],
                    "question": q["question"], "evidence": sorted(gold[key]),
                    "systems": {s: {"ids": ranked[s][key]["ids"], "tokens": ranked[s][key]["tokens"]}
                                for s in (*SERVICE, *SYSTEMS) if s in ranked}}  # fmt: skip
            out.write(json.dumps(line) + "\n")
    chart(results, args.out / "locomo.png")
    report(results, args.out)
    return 0


def latency(asked: list[dict[str, Any]], system: str) -> dict[str, Any]:
    def pcts(values: list[float]) -> dict[str, float]:
        return {f"p{q}": round(percentile(values, q), 2) for q in (50, 95, 99)}

    calls = [q[system] for q in asked]
    out: dict[str, Any] = pcts([c["ms"] for c in calls])
    for side in ("server", "db"):
        values = [c.get(f"{side}_ms", 0.0) for c in calls]
        out[f"{side}_p50"] = round(percentile(values, 50), 2)
        out[f"{side}_p95"] = round(percentile(values, 95), 2)
    # Where search time goes, per part (server side, ms): the query embedding, each leg, fusion,
    # stale marks and the turn-log fallback when it ran (a call without a part counts 0).
    for part in sorted({p for c in calls for p in c["parts"]}):
        values = [c["parts"].get(part, 0.0) for c in calls]
        out[part] = {
            "p50": round(percentile(values, 50), 2),
            "p95": round(percentile(values, 95), 2),
        }
    out["fallback_share"] = round(sum("fallback_ms" in c["parts"] for c in calls) / len(calls), 3)
    return out
