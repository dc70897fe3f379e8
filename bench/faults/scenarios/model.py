"""model: the openai extractor's model answers garbage, then hangs, then recovers; runs fail or
retry as designed and append latency stays within its budget."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import TYPE_CHECKING

from bench.faults.common import (
    Row,
    call,
    count_turns,
    create_agent,
    latency,
    open_session,
    run_threads,
    wait_for,
)
from bench.faults.stack import MODEL_CONNECTION, Stack

if TYPE_CHECKING:
    from tests.scripted_model import ScriptedModel

APPEND_BUDGET_MS = {"p50": 3.0, "p99": 10.0}  # DESIGN §4


def _open_runs(stack: Stack, agent: str) -> int:
    with stack.db() as db:
        row = db.execute(
            "SELECT count(*) FROM extraction_extractionrun r JOIN schemas_agent a ON a.id = r.agent_id "
            "WHERE a.slug = %s AND r.status IN ('pending', 'running')",
            [agent],
        ).fetchone()
    return int(row[0]) if row else 0


class _ModelIncident:
    """Clients appending at a steady pace through the incident's phases (healthy, garbage,
    hang, recovered), the thread that scripts the model through them, and a watcher that
    notes every error a run of the stack records until the runs settle."""

    def __init__(self, stack: Stack, model: ScriptedModel, sessions: list[str], *,
                 healthy: float, garbage: float, garbage_answers: int, hang: float,
                 recovered: float, settle: float) -> None:  # fmt: skip
        self.stack, self.model, self.sessions = stack, model, sessions
        self.healthy, self.garbage, self.garbage_answers = healthy, garbage, garbage_answers
        self.hang, self.settle = hang, settle
        self.acked: dict[str, set[int]] = {s: set() for s in sessions}
        self.phases: dict[str, list[float]] = {"healthy": [], "garbage": [], "hang": [], "recovered": []}  # fmt: skip
        self.current = "healthy"
        self.stats = Counter[str]()
        self.lock = threading.Lock()
        self.seen_errors: dict[int, set[str]] = {}
        self.begin = time.monotonic()
        self.end = self.begin + healthy + garbage + hang + recovered

    def client_loop(self, c: int) -> None:
        own, local = self.stack.client(), Counter[str]()
        samples: dict[str, list[float]] = {name: [] for name in self.phases}
        url, seq = f"/v1/sessions/{self.sessions[c]}/turns", 1
        while time.monotonic() < self.end:
            text = f"llm client {c} turn {seq}: my budget is {40 + seq % 50} lakhs, near the metro please"
            name = self.current
            status, _, elapsed = call(own, "POST", url, {"role": "user", "text": text, "seq": seq})
            local["requests"] += 1
            if 200 <= status < 300:
                self.acked[self.sessions[c]].add(seq)
                samples[name].append(elapsed)
                seq += 1
            else:
                local["5xx" if status >= 500 else "other"] += 1
            time.sleep(0.02)  # a steady pace, not a saturating load
        with self.lock:
            self.stats.update(local)
            for key, values in samples.items():
                self.phases[key] += values

    def watch(self) -> None:
        while time.monotonic() < self.end + self.settle:
            with self.stack.db() as db:
                for run_id, error in db.execute(
                    "SELECT id, error FROM extraction_extractionrun WHERE error <> ''"
                ).fetchall():
                    self.seen_errors.setdefault(run_id, set()).add(error[:80])
            if time.monotonic() > self.end and not _open_runs(self.stack, "llm"):
                return
            time.sleep(0.2)

    def incident(self) -> None:
        time.sleep(self.healthy)
        self.current = "garbage"
        self.model.script("facts", *[("invalid", "I am not JSON {")] * self.garbage_answers)
        time.sleep(self.garbage)
        self.current, self.model.mode = "hang", ("slow", 30.0)
        time.sleep(self.hang)
        self.current, self.model.mode = "recovered", None


def _run_outcomes(stack: Stack) -> tuple[Counter[str], list[str]]:
    """The llm agent's runs by status, and the distinct errors of failed runs."""
    with stack.db() as db:
        statuses = Counter(
            status
            for (status,) in db.execute(
                "SELECT r.status FROM extraction_extractionrun r JOIN schemas_agent a "
                "ON a.id = r.agent_id WHERE a.slug = 'llm'"
            ).fetchall()
        )
        failed = [error for (error,) in db.execute(
            "SELECT DISTINCT error FROM extraction_extractionrun WHERE status = 'failed'").fetchall()]  # fmt: skip
    return statuses, failed


def scenario_model(stack: Stack, *, clients: int = 4, healthy: float = 6, garbage: float = 4,
                   garbage_answers: int = 4, hang: float = 8, recovered: float = 6,
                   settle: float = 45) -> Row:  # fmt: skip
    """While clients append at a steady pace (crossing the extraction threshold again and
    again), the openai extractor's model answers garbage ``garbage_answers`` times, then hangs
    for ``hang`` seconds, then recovers. A garbage answer is sent back once for repair; garbage
    again is a recorded failure (two answers per failed run; that user's scheduling is held
    back, as designed); a hang is a timeout, retried with backoff until it succeeds."""
    from tests.scripted_model import ScriptedModel

    model = ScriptedModel(port=stack.model_port)
    try:
        client = stack.client()
        create_agent(client, "llm", {
            "extraction_token_threshold": 200, "extractor": "openai", "extractor_model": "scripted-1",
            "extractor_connection": MODEL_CONNECTION,
        })  # fmt: skip
        sessions = [open_session(client, "llm", f"llm-{c}", f"llm-{c}") for c in range(clients)]
        load = _ModelIncident(
            stack, model, sessions, healthy=healthy, garbage=garbage,
            garbage_answers=garbage_answers, hang=hang, recovered=recovered, settle=settle,
        )  # fmt: skip
        watcher, injector = threading.Thread(target=load.watch), threading.Thread(target=load.incident)  # fmt: skip
        watcher.start()
        injector.start()
        run_threads(clients, load.client_loop)
        injector.join()
        recovered_at = load.begin + healthy + garbage + hang
        settled = wait_for(lambda: not _open_runs(stack, "llm"), settle, step=0.2)
        recovery = time.monotonic() - recovered_at if settled else None
        watcher.join()
        counts = count_turns(stack, load.acked)
        statuses, failed = _run_outcomes(stack)
        retried = sum(
            1 for errors in load.seen_errors.values() if any("did not answer" in e for e in errors)
        )
        phases = load.phases
        budget = {name: latency(values) for name, values in phases.items()}
        during = latency(phases["garbage"] + phases["hang"])
        within = bool(during) and during["p50_ms"] <= APPEND_BUDGET_MS["p50"] and during["p99_ms"] <= APPEND_BUDGET_MS["p99"]  # fmt: skip
        return Row(
            "model", requests=load.stats["requests"], server_errors=load.stats["5xx"],
            recovery_s=round(recovery, 2) if recovery is not None else None,
            seconds=round(time.monotonic() - load.begin, 1), **counts,
            extra={"clients": clients, "runs": dict(statuses), "runs_retried_after_a_timeout": retried,
                   "failed_errors": failed, "append_latency": budget,
                   "append_latency_during_incident": during, "within_budget_during_incident": within,
                   "model_calls": len(model.requests)},
        )  # fmt: skip
    finally:
        model.close()
