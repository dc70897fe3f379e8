"""Search on service dialogue: does what ranks LoCoMo's chats well carry to an agent and a user?

    .venv/bin/python -m bench.scenarios_search --dir bench/scenarios_holdout --var /tmp/ss/var

The scenario suites (bench/scenarios*) are agent-user conversations with the current value of
each field they expect. This ingests a suite through the real server and worker (extraction
included; skipped when ``--var`` already holds it), then asks, in process, for every expected
current value that some turn states word for word (strings and numbers of 3 or more
characters): "What is <the field's description>?" — the evidence being the turns that state it.
Recall@8 and hit@8 of the turns the top 8 results cite (memory units, facts by their source
turns, turn-log fallbacks), for the ranker and for the legs fused by rank
(``index_legs.RANKER``), side by side on the same stack. The probes are made by rule from the
suites' expectations, not written for search: a description makes an awkward question, and a
value said in other words than the expectation's is not counted.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from bench.scenarios_run import data


def ingest(scenarios: list[data.Scenario], var: Path) -> None:
    from bench.latency import Client, start_server
    from bench.scenarios_run.runner import run

    var.parent.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = start_server(var, port, 2, 1)
    try:
        key = json.loads((var / "demo-credentials.json").read_text())["api_key"]
        run(Client(port, key), scenarios)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)
    (var / "scenarios-search.done").write_text("ingested\n")


def probes(scenarios: list[data.Scenario]) -> list[dict[str, Any]]:
    from memory.models import EndUser, Session
    from schemas.models import Agent

    out = []
    for s in scenarios:
        agent = Agent.objects.get(slug=s.id)
        user = EndUser.objects.get(tenant_id=agent.tenant_id, external_id=s.id)
        numbers = {str(Session.objects.get(tenant_id=agent.tenant_id, agent=agent, external_id=f"{s.id}-s{n}").id): n
                   for n in range(1, len(s.sessions) + 1)}  # fmt: skip
        for expected in s.expect.get("current", []):
            value = expected["value"]
            if not isinstance(value, str | int | float) or len(str(value)) < 3:
                continue
            evidence = {(t.session, t.seq) for t in s.turns if str(value).lower() in t.text.lower()}
            if evidence:
                description = s.field(expected["key"])["description"].rstrip(".")
                question = f"What is {description[0].lower()}{description[1:]}?"
                out.append({"agent": agent, "user": user, "sessions": numbers, "question": question,
                            "evidence": evidence})  # fmt: skip
    return out


def measure(items: list[dict[str, Any]], ranker: bool) -> dict[str, float]:
    import memory.search.index_legs
    from memory.search import memory_search

    memory.search.index_legs.RANKER = ranker
    recall = hit = 0.0
    for item in items:
        result = memory_search(
            agent=item["agent"], end_user=item["user"], query=item["question"], k=8
        )
        cited = {
            (item["sessions"].get(t["session"]), t["seq"]) for h in result.hits for t in h.turns
        }
        found = item["evidence"] & cited
        recall += len(found) / len(item["evidence"])
        hit += bool(found)
    return {"recall@8": round(recall / len(items), 3), "hit@8": round(hit / len(items), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dir", type=Path, default=data.DIRECTORY, help="a scenario suite")
    parser.add_argument("--var", type=Path, required=True, help="the stack (kept; ingested once)")
    args = parser.parse_args(argv)
    scenarios = data.load(args.dir)
    var = args.var.resolve()
    if not (var / "scenarios-search.done").exists():
        ingest(scenarios, var)
    from bench.latency import in_process

    with in_process(var):
        items = probes(scenarios)
        figures = {"ranker": measure(items, True), "fused legs": measure(items, False)}
    print(
        f"{args.dir.name}: {len(items)} probes over {len(scenarios)} conversations", file=sys.stderr
    )
    for name, f in figures.items():
        print(f"  {name:<11} recall@8 {f['recall@8']:.3f}  hit@8 {f['hit@8']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
