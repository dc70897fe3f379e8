"""Write-lane throughput on LoCoMo-format conversations.

    .venv/bin/python bench/extraction.py --data ../shared/bench/locomo-dev.json

Starts a fresh embedded PostgreSQL and Redis in a temporary directory, imports each conversation
(one end user per conversation; each session's turns with their real date; speaker A as the user,
speaker B as the assistant, image captions as text) and runs extraction to completion with the
`rules` extractor and the bundled embedder, in process. Answers and evidence are never read.
Prints and writes bench/results/extraction.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"
DATE = re.compile(r"(\d{1,2}):(\d{2}) ([ap]m) on (\d{1,2}) ([A-Za-z]+), (\d{4})")
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]  # fmt: skip


def session_time(raw: str) -> datetime.datetime:
    match = DATE.fullmatch(raw.strip())
    if not match:
        raise ValueError(f"unexpected session date {raw!r}")
    hour, minute, half, day, month, year = match.groups()
    hour24 = int(hour) % 12 + (12 if half == "pm" else 0)
    return datetime.datetime(
        int(year),
        MONTHS.index(month.lower()) + 1,
        int(day),
        hour24,
        int(minute),
        tzinfo=datetime.UTC,
    )


def conversations(path: Path) -> list[dict[str, Any]]:
    """Only what ingestion may see: speakers, sessions, dates, turns. No qa, no evidence."""
    out = []
    for item in json.loads(path.read_text()):
        conversation = item["conversation"]
        sessions = []
        n = 1
        while f"session_{n}" in conversation or f"session_{n}_date_time" in conversation:
            turns = conversation.get(f"session_{n}") or []
            if turns:
                sessions.append({"n": n, "when": session_time(conversation[f"session_{n}_date_time"]),
                                 "turns": [{"speaker": t["speaker"], "dia_id": t["dia_id"], "text": t["text"] + (
                                     f" [shares an image: {t['blip_caption']}]" if t.get("blip_caption") else "")}
                                           for t in turns]})  # fmt: skip
            n += 1
        out.append(
            {
                "id": item["sample_id"],
                "a": conversation["speaker_a"],
                "b": conversation["speaker_b"],
                "sessions": sessions,
            }
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, type=Path)
    args = parser.parse_args()
    data = conversations(args.data)

    with tempfile.TemporaryDirectory(prefix="hv-bench-x-") as tmp:
        os.environ["HANDOVER_VAR_DIR"] = str(Path(tmp) / "var")
        for name in ("DATABASE_URL", "REDIS_URL"):
            os.environ.pop(name, None)
        from config import runtime

        with runtime.services() as child_env:
            os.environ.update(child_env)
            os.environ["CACHE_KEY_PREFIX"] = "hv-bench"
            import django

            django.setup()
            from django.core.management import call_command

            call_command("migrate", verbosity=0)
            results = run(data)

    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "extraction.json").write_text(json.dumps(results, indent=2) + "\n")
    t = results["totals"]
    print(
        f"\n{'conversation':<14}{'turns':>7}{'wall s':>9}{'turns/s':>9}{'facts':>7}{'units':>7}{'dups':>6}{'rejects':>8}"
    )
    for c in results["conversations"]:
        print(f"{c['id']:<14}{c['turns']:>7}{c['extract_s']:>9.2f}{c['turns'] / c['extract_s']:>9.1f}{c['facts']:>7}"
              f"{c['acus']:>7}{c['duplicates_dropped']:>6}{c['atomicity_rejects']:>8}")  # fmt: skip
    print(
        f"\ntotal: {t['turns']} turns in {t['extract_s']:.1f} s of extraction ({t['per_1000_turns_s']:.2f} s per 1,000 turns, "
        f"{t['turns_per_s']:.0f} turns/s; target ≤ 60 s for the five dev conversations); import {t['import_s']:.1f} s\n"
        f"memory units per turn {t['acus_per_turn']:.2f}, duplicates dropped {t['duplicates_dropped']}, atomicity "
        f"rejects {t['atomicity_rejects']}, facts {t['facts']}, peak memory {t['peak_rss_mb']:.0f} MB\n"
        f"assembled blocks stating a superseded value as current: {t['blocks_contradicted']} of {t['blocks']}"
        f" ({100 * t['blocks_contradicted'] / max(t['blocks'], 1):.1f} %; target < 0.5 %)\n"
        f"stage time (s): {', '.join(f'{k} {v:.1f}' for k, v in t['stage_s'].items())}"
    )
    print(f"wrote {RESULTS / 'extraction.json'}")
    return 0


# Queries a /v1/context pack is asked with: what an agent of a general assistant looks up. The
# LoCoMo questions are never read.
PROBES = ["what does she do for work", "where does he live", "what are they planning", "family",
          "recent news", "how are they feeling", "hobbies", "upcoming events"]  # fmt: skip


def consistency(
    tenant: Any, agent: Any, user: Any, conversation: dict[str, Any]
) -> tuple[int, int, list[str]]:
    """Blocks an agent gets (the session-start block, a /v1/context pack without a query and one
    per probe query) that state as current a value the user's facts no longer hold (a superseded
    version's), on a fact line or in the summary: the scenario suite's contradiction check,
    against Handover's own fact timeline (LoCoMo has no labels for it)."""
    from bench.scenarios_run.scoring import contradictions
    from memory.models import Entity
    from memory.services.context import context_pack_for_session
    from memory.services.sessions import session_start

    rows = list(Entity.objects.filter(agent=agent, end_user=user).exclude(status="retracted")
                .values_list("key", "field", "value", "status"))  # fmt: skip
    types = {f["key"]: f["type"] for f in agent.schemas.get(is_active=True).fields}
    current = {(k, str(v)) for k, _, v, status in rows if status == "active"}
    stale = [{"key": k, "value": v, "kind": "superseded"} for k, _, v, status in rows
             if status == "superseded" and (k, str(v)) not in current]  # fmt: skip
    keep = [(k, types[f], v) for k, f, v, status in rows if status == "active"]
    started = session_start(tenant_id=tenant.pk, agent_scope=None, agent_slug=agent.slug,
                            user_external_id=user.external_id, external_id=f"{conversation['id']}-check")  # fmt: skip
    texts = [started.body["context_block"]]
    session = started.body["session_id"]
    for query in [None, *PROBES]:
        packed = context_pack_for_session(tenant_id=tenant.pk, session_id=session, query=query)
        texts.append(packed.packed.text)
    found = [contradictions(text, stale, types, keep) for text in texts]
    return len(texts), sum(1 for f in found if f), [x["text"][:120] for f in found for x in f]


def run(data: list[dict[str, Any]]) -> dict[str, Any]:
    from extraction.models import ExtractionRun
    from extraction.services import extraction_run_execute
    from memory.models import EndUser
    from memory.services import TurnIn, hot_document_load, session_open, turn_append
    from schemas.defaults import GENERAL_ASSISTANT
    from schemas.services import agent_create
    from tenants.models import Tenant

    tenant = Tenant.objects.create(name="LoCoMo bench", slug=f"bench-{int(time.time())}")
    agent = agent_create(tenant_id=tenant.pk, slug="locomo", name="LoCoMo", schema_fields=GENERAL_ASSISTANT,
                         settings={"extraction_token_threshold": 200_000}, actor="bench")  # fmt: skip
    per: list[dict[str, Any]] = []
    stage_totals: dict[str, float] = {}
    for conversation in data:
        started = time.perf_counter()
        user = EndUser.objects.create(tenant=tenant, external_id=conversation["id"])
        hot_document_load(agent=agent, end_user=user)
        turns = 0
        for session in conversation["sessions"]:
            opened = session_open(tenant_id=tenant.pk, agent_id=agent.pk, end_user_id=user.pk,
                                  external_id=f"{conversation['id']}-s{session['n']}",
                                  metadata={"participants": {"user": conversation["a"], "assistant": conversation["b"]}})  # fmt: skip
            batch = [TurnIn("user" if t["speaker"] == conversation["a"] else "assistant", t["text"],
                            occurred_at=session["when"] + datetime.timedelta(seconds=30 * i))
                     for i, t in enumerate(session["turns"])]  # fmt: skip
            turn_append(tenant_id=tenant.pk, session_id=opened.id, turns=batch)
            turns += len(batch)
        imported = time.perf_counter() - started
        started = time.perf_counter()
        figures = {"facts": 0, "acus": 0, "duplicates_dropped": 0, "atomicity_rejects": 0}
        while True:
            pending = ExtractionRun.objects.create(
                tenant=tenant, agent=agent, end_user=user, trigger="bench"
            )
            done = extraction_run_execute(run_id=pending.pk)
            assert done is not None and done.status == "succeeded", done and done.error
            for name in figures:
                figures[name] += int(done.counts.get(name, 0))
            for stage, ms in done.timings.items():
                stage_totals[stage] = stage_totals.get(stage, 0.0) + ms / 1000
            if not done.counts.get("turns"):
                break
        extract_s = round(time.perf_counter() - started, 2)
        blocks, contradicted, findings = consistency(tenant, agent, user, conversation)
        per.append({"id": conversation["id"], "turns": turns, "import_s": round(imported, 2),
                    "extract_s": extract_s, **figures, "blocks": blocks,
                    "blocks_contradicted": contradicted, "findings": findings[:5]})  # fmt: skip
        print(
            f"{conversation['id']}: {turns} turns, extraction {per[-1]['extract_s']} s",
            file=sys.stderr,
        )
    total_turns = sum(c["turns"] for c in per)
    extract_s = sum(c["extract_s"] for c in per)
    totals = {
        "turns": total_turns,
        "extract_s": round(extract_s, 2),
        "import_s": round(sum(c["import_s"] for c in per), 2),
        "per_1000_turns_s": round(extract_s / total_turns * 1000, 2),
        "turns_per_s": round(total_turns / extract_s, 1),
        "acus_per_turn": round(sum(c["acus"] for c in per) / total_turns, 3),
        "duplicates_dropped": sum(c["duplicates_dropped"] for c in per),
        "atomicity_rejects": sum(c["atomicity_rejects"] for c in per),
        "facts": sum(c["facts"] for c in per),
        "blocks": sum(c["blocks"] for c in per),
        "blocks_contradicted": sum(c["blocks_contradicted"] for c in per),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "stage_s": {k: round(v, 2) for k, v in sorted(stage_totals.items()) if k != "total"},
        "extractor": "rules",
        "embedder": "all-MiniLM-L6-v2-onnx-int8",
        "machine": f"{os.cpu_count()} cores",
    }
    return {"conversations": per, "totals": totals}


if __name__ == "__main__":
    sys.exit(main())
