"""appends: clients append turns with client seqs; a share of them is deliberately sent twice,
and each must be stored once, the retry answered with the first attempt's turn."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

from bench.faults.common import Row, call, count_turns, create_agent, open_session, run_threads
from bench.faults.stack import Stack


def _client_appends(stack: Stack, c: int, session: str, *, turns: int, retry_share: float,
                    seed: int, acked: set[int]) -> Counter[str]:  # fmt: skip
    """Client ``c`` appends seqs 1..``turns`` to ``session``, some twice; a retry must answer
    the first attempt's turn, not a new one. Adds each acknowledged seq to ``acked``."""
    client, rng, local = stack.client(), random.Random(seed + c), Counter[str]()
    url = f"/v1/sessions/{session}/turns"
    for seq in range(1, turns + 1):
        turn = {"role": "user", "text": f"client {c} turn {seq}: about flats", "seq": seq}
        sends = 2 if rng.random() < retry_share else 1
        first_id = None
        for attempt in range(sends):
            status, body, _ = call(client, "POST", url, turn)
            local["requests"] += 1
            local["retries"] += attempt
            if 200 <= status < 300:
                acked.add(seq)
                if attempt == 0:
                    first_id = body["id"]
                elif body["created"] or body["id"] != first_id:
                    local["retry_not_idempotent"] += 1
            elif status >= 500:
                local["5xx"] += 1
            else:
                local["other"] += 1
    return local


def scenario_appends(stack: Stack, *, clients: int = 16, turns: int = 20_000,
                     retry_share: float = 0.10, seed: int = 8) -> Row:  # fmt: skip
    """Concurrent appends with client seqs; a share of them deliberately sent a second time."""
    setup = stack.client()
    create_agent(setup, "dup", {"extraction_token_threshold": 200_000})
    sessions = [open_session(setup, "dup", f"dup-{c}", f"dup-{c}") for c in range(clients)]
    per_client = turns // clients
    acked: dict[str, set[int]] = {s: set() for s in sessions}
    stats = Counter[str]()
    lock = threading.Lock()
    started = time.monotonic()

    def client_loop(c: int) -> None:
        local = _client_appends(stack, c, sessions[c], turns=per_client, retry_share=retry_share,
                                seed=seed, acked=acked[sessions[c]])  # fmt: skip
        with lock:
            stats.update(local)

    run_threads(clients, client_loop)
    elapsed = time.monotonic() - started
    counts = count_turns(stack, acked)
    return Row(
        "appends", requests=stats["requests"], server_errors=stats["5xx"],
        duplicates=counts["duplicates"] + stats["retry_not_idempotent"],
        acknowledged=counts["acknowledged"], stored=counts["stored"], lost=counts["lost"],
        seconds=round(elapsed, 1),
        extra={"clients": clients, "deliberate_retries": stats["retries"],
               "retry_not_idempotent": stats["retry_not_idempotent"],
               "other_errors": stats["other"], "per_s": round(stats["requests"] / elapsed, 1)},
    )  # fmt: skip
