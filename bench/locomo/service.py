"""The service's side of the benchmark, over its public API: ingest, search, the session-start
block, and the turn-by-turn replay."""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any

from bench.latency import Client

MAX_K = 50  # the most /v1/memory/search returns (api/v1/search.py)


def ingest(
    client: Client, conversations: list[dict[str, Any]], settings: dict[str, Any] | None = None
) -> dict[tuple[str, int], str]:
    """Returns (session uuid, seq) → dia_id. On a stack that already holds the agent (a kept
    ``--var``), the sessions are resumed, their turns found stored, and nothing is re-extracted.
    ``settings``: the agent's settings besides the defaults (``--agent-settings``)."""
    status, body, *_ = client.call("POST", "/v1/agents", {"slug": "locomo", "name": "LoCoMo",
                                   "settings": {"extraction_token_threshold": 200_000, **(settings or {})}})  # fmt: skip
    assert status in (201, 409), body
    fresh = status == 201
    # The replay user lives with the default extraction threshold, as a live agent would.
    status, body, *_ = client.call(
        "POST", "/v1/agents", {"slug": "locomo-replay", "name": "LoCoMo replay"}
    )
    assert status in (201, 409), body
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
        if fresh:
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
    """Each question twice: at the API's default k = 10 (the top-k figures and the latency, as an
    agent calls it) and at its maximum, k = 50 (enough results to fill the token budgets)."""
    from memory.tokens import count_tokens

    for item in items:
        for system, k in (("handover", 10), ("handover_k50", MAX_K)):
            status, body, elapsed, timings = client.call("POST", "/v1/memory/search", {
                "agent": "locomo", "user": item["conversation"], "query": item["question"], "k": k})  # fmt: skip
            assert status == 200, body
            item[system] = {
                "ids": [sorted({dia[(t["session"], t["seq"])] for t in hit["turns"] if (t["session"], t["seq"]) in dia})
                        for hit in body["results"]],
                "tokens": [count_tokens(hit["text"]) for hit in body["results"]],
                "ms": elapsed, "server_ms": timings.get("app", 0.0), "db_ms": timings.get("db", 0.0),
                "parts": body["timings"],
            }  # fmt: skip
    return items


def session_blocks(client: Client, conversations: list[dict[str, Any]]) -> dict[str, str]:
    """Each conversation's session-start block (what an agent starting a new session gets)."""
    blocks = {}
    for conversation in conversations:
        _, body, *_ = client.call(
            "POST", "/v1/sessions", {"agent": "locomo", "user": conversation["id"]}
        )
        blocks[conversation["id"]] = body["context_block"]
    return blocks


def context_ratio(blocks: dict[str, str], conversations: list[dict[str, Any]]) -> float:
    """The block's tokens over the full history's, averaged over the conversations."""
    from memory.tokens import count_tokens

    ratios = []
    for conversation in conversations:
        history = sum(count_tokens(t["text"]) for s in conversation["sessions"] for t in s["turns"])
        ratios.append(count_tokens(blocks[conversation["id"]]) / history)
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
