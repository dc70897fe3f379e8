"""Referent recall of /v1/context on the anaphora probes (README.md beside this file).

    .venv/bin/python -m bench.anaphora [--probes bench/anaphora/probes.json]

Starts the real server and worker on a fresh embedded stack. Each probe gets a user of its own:
its earlier session (extracted through the API, as a live user's would be), its facts, the
current session's turns and then the probe, the user's turn that refers back. Then, for every
probe, in one run:

- **Handover**: `/v1/context` with the session and the probe as `query`; what it retrieved
  (`retrieved`, as packed, in order) is scored: recall@8 of the referent (its turns, or its
  fact). Also whether the referent is anywhere in the packed context (recent turns included).
- **search**: `/v1/memory/search` with the probe as query, k = 8, no session (no resolution):
  what plain retrieval finds for the same words.
- **recent**: the 8 turns before the probe.

Writes bench/results/anaphora.json (for another probe file, anaphora-<its name>.json); prints
recall per split and per kind. ``--var DIR`` keeps the stack for a quicker second run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.latency import Client, percentile, start_server

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results"
K = 8
START = datetime.datetime(2026, 3, 2, 10, 0, tzinfo=datetime.UTC)


MAX_FIELDS = 200  # an agent's schema holds at most this many fields (the API's limit)


def _agents(data: dict[str, Any]) -> dict[str, str]:
    """Conversation id → agent slug: one agent, "anaphora", while the file's fact keys fit in
    one schema; else as many agents as it takes, conversations kept whole, in order."""
    if len(data["fact_fields"]) <= MAX_FIELDS:
        return {c["id"]: "anaphora" for c in data["conversations"]}
    out: dict[str, str] = {}
    keys: set[str] = set()
    group = 1
    for conversation in data["conversations"]:
        mine = {f["key"] for f in conversation["facts"]}
        if len(keys | mine) > MAX_FIELDS:
            keys, group = set(), group + 1
        keys |= mine
        out[conversation["id"]] = f"anaphora-{group}"
    return out


def _open(client: Client, conversation: dict[str, Any], name: str, agent: str) -> str:
    status, body, *_ = client.call("POST", "/v1/sessions", {
        "agent": agent, "user": conversation["id"], "session": f"{conversation['id']}-{name}",
        "metadata": {"participants": conversation["participants"]}})  # fmt: skip
    assert status in (200, 201), body
    return str(body["session_id"])


def _append(
    client: Client, session: str, turns: list[dict[str, str]], start: datetime.datetime
) -> None:
    batch = [{"role": t["role"], "text": t["text"], "seq": i + 1,
              "occurred_at": (start + datetime.timedelta(seconds=40 * i)).isoformat()}
             for i, t in enumerate(turns)]  # fmt: skip
    status, body, *_ = client.call("POST", f"/v1/sessions/{session}/turns:batch", {"turns": batch})
    assert status in (200, 201), body


def ingest(client: Client, data: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Every probe's sessions; returns id → {"agent": slug, "prior": uuid, "current": uuid}. On
    a stack that already holds the agents (a kept ``--var``), the sessions are resumed and
    nothing is appended, extracted or stored again."""
    agents = _agents(data)
    fresh = True
    for slug in dict.fromkeys(agents.values()):
        keys = sorted({f["key"] for c in data["conversations"] if agents[c["id"]] == slug
                       for f in c["facts"]} if slug != "anaphora" else data["fact_fields"])  # fmt: skip
        fields = [{"key": key, "description": key.replace("_", " "), "category": "profile", "type": "string"}
                  for key in keys]  # fmt: skip
        status, body, *_ = client.call("POST", "/v1/agents", {"slug": slug, "name": slug.title(), "schema_fields": fields,
                                       "settings": {"extraction_token_threshold": 200_000}})  # fmt: skip
        assert status in (201, 409), body
        fresh = fresh and status == 201
    sessions: dict[str, dict[str, str]] = {}
    for conversation in data["conversations"]:
        ids = sessions.setdefault(conversation["id"], {"agent": agents[conversation["id"]]})
        if conversation["prior"]:
            ids["prior"] = _open(client, conversation, "prior", ids["agent"])
        if not fresh:
            ids["current"] = _open(client, conversation, "now", ids["agent"])
            continue
        if conversation["prior"]:
            _append(client, ids["prior"], conversation["prior"], START - datetime.timedelta(days=9))
            status, body, *_ = client.call(
                "POST", f"/v1/users/{conversation['id']}/runs", {"agent": ids["agent"]}
            )
            assert status == 202, body
        for fact in conversation["facts"]:
            status, body, *_ = client.call("POST", f"/v1/users/{conversation['id']}/facts",
                                           {"agent": ids["agent"], "key": fact["key"], "value": fact["value"]})  # fmt: skip
            assert status in (200, 201), body
        ids["current"] = _open(client, conversation, "now", ids["agent"])
        turns = [*conversation["turns"], {"role": "user", "text": conversation["probe"]}]
        _append(client, ids["current"], turns, START)
    for conversation in data["conversations"]:
        deadline = time.monotonic() + 300
        while conversation["prior"] and time.monotonic() < deadline:
            agent = sessions[conversation["id"]]["agent"]
            _, runs, *_ = client.call("GET", f"/v1/users/{conversation['id']}/runs?agent={agent}")
            if runs and all(r["status"] in ("succeeded", "failed") for r in runs):
                break
            time.sleep(0.3)
    return sessions


def _gold(conversation: dict[str, Any], ids: dict[str, str]) -> set[str]:
    return {f"{ids[g['session']]}:{g['index'] + 1}" for g in conversation["gold_turns"]} | {
        f"fact:{key}" for key in conversation["gold_facts"]
    }


def _covered(items: list[dict[str, Any]]) -> set[str]:
    out = set()
    for item in items[:K]:
        out |= {f"{t['session']}:{t['seq']}" for t in item.get("turns") or []}
        if item.get("source") == "entity":
            out.add("fact:" + item["text"].split(":", 1)[0].strip().replace(" ", "_"))
    return out


def ask(
    client: Client, data: dict[str, Any], sessions: dict[str, dict[str, str]]
) -> list[dict[str, Any]]:
    rows = []
    for conversation in data["conversations"]:
        ids = sessions[conversation["id"]]
        gold = _gold(conversation, ids)
        status, packed, elapsed, _ = client.call(
            "POST", "/v1/context", {"session": ids["current"], "query": conversation["probe"]}
        )
        assert status == 200, packed
        status, found, *_ = client.call("POST", "/v1/memory/search", {
            "agent": ids["agent"], "user": conversation["id"], "query": conversation["probe"], "k": K})  # fmt: skip
        assert status == 200, found
        n = len(conversation["turns"])
        recent = {f"{ids['current']}:{seq}" for seq in range(max(1, n - K + 1), n + 1)}
        texts = {f"{ids[g['session']]}:{g['index'] + 1}": (conversation["turns"] if g["session"] == "current" else conversation["prior"])[g["index"]]["text"]
                 for g in conversation["gold_turns"]}  # fmt: skip
        anywhere = {key for key, text in texts.items() if text.splitlines()[0] in packed["context"]}
        anywhere |= {
            g for g in gold if g.startswith("fact:") and g in _covered(packed["retrieved"])
        }
        # a fact in the document reads "- payment_card: …" (the key as stored)
        anywhere |= {
            g
            for g in gold
            if g.startswith("fact:")
            and any(f"- {key}:" in packed["context"] for key in (g[5:], g[5:].replace("_", " ")))
        }
        rows.append({
            "id": conversation["id"], "split": conversation["split"], "kind": conversation["kind"],
            "ms": elapsed,
            "recall": {
                "handover": len(gold & _covered(packed["retrieved"])) / len(gold),
                "handover_in_context": len(gold & anywhere) / len(gold),
                "search": len(gold & _covered(found["results"])) / len(gold),
                "recent": len(gold & recent) / len(gold),
            },
        })  # fmt: skip
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    splits = sorted({r["split"] for r in rows}, key=lambda s: (s != "tune", s != "held_out", s))
    for bucket in ("all", *splits, *sorted({r["kind"] for r in rows})):
        chosen = [r for r in rows if bucket in ("all", r["split"], r["kind"])]
        out[bucket] = {"probes": len(chosen)} | {
            system: round(sum(r["recall"][system] for r in chosen) / len(chosen), 3)
            for system in chosen[0]["recall"]
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--probes", type=Path, default=HERE / "probes.json")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--var",
        type=Path,
        help="keep the stack in this directory; a second run of the same probes reuses it",
    )
    args = parser.parse_args(argv)
    data = json.loads(args.probes.read_text())
    with tempfile.TemporaryDirectory(prefix="hv-anaphora-") as tmp:
        var = args.var.resolve() if args.var else Path(tmp) / "var"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = start_server(var, port, 2, 1)
        try:
            client = Client(
                port, json.loads((var / "demo-credentials.json").read_text())["api_key"]
            )
            sessions = ingest(client, data)
            rows = ask(client, data, sessions)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(60)
    results: dict[str, Any] = {"probes": len(rows), "k": K, "recall": summarise(rows),
               "context_ms": {f"p{q}": round(percentile([r["ms"] for r in rows], q), 2) for q in (50, 95, 99)},
               "misses": [r["id"] for r in rows if r["recall"]["handover"] < 1]}  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    name = (
        "anaphora.json"
        if args.probes.name == "probes.json"
        else f"anaphora-{args.probes.stem}.json"
    )
    results["probe_file"] = args.probes.name
    (args.out / name).write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nreferent recall@{K} ({results['probes']} probes)")
    print(f"{'':<14}{'probes':>7}{'Handover':>10}{'in context':>12}{'search':>8}{'recent':>8}")
    for bucket, row in results["recall"].items():
        print(f"{bucket:<14}{row['probes']:>7}{row['handover']:>10.3f}{row['handover_in_context']:>12.3f}"
              f"{row['search']:>8.3f}{row['recent']:>8.3f}")  # fmt: skip
    print(
        f"/v1/context with a query: p50 {results['context_ms']['p50']} ms, p95 {results['context_ms']['p95']} ms"
    )
    print(f"wrote {args.out / name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
