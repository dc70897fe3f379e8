"""The load the redis and postgres scenarios share: clients appending (and resuming their
sessions) across an outage that one thread brings about and ends."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.faults.common import call, count_turns, open_session, run_threads
from bench.faults.stack import Stack


class _OutageLoad:
    """Clients append with client seqs (a failed append is retried with the same seq) and,
    every ``open_every`` appends, resume their session and check it shows their last
    acknowledged turn. The fault runs from ``before`` for ``down`` seconds."""

    def __init__(self, stack: Stack, *, agent: str, clients: int, before: float, down: float,
                 after: float, stop: Callable[[], None], start: Callable[[], None],
                 open_every: int = 0, while_down: Callable[[], None] | None = None) -> None:  # fmt: skip
        self.stack, self.agent, self.clients = stack, agent, clients
        self.before, self.down, self.after = before, down, after
        self.stop, self.start = stop, start
        self.open_every, self.while_down = open_every, while_down
        setup = stack.client()
        self.sessions = [
            open_session(setup, agent, f"{agent}-{c}", f"{agent}-{c}") for c in range(clients)
        ]
        self.acked: dict[str, set[int]] = {s: set() for s in self.sessions}
        self.stats = Counter[str]()
        self.phases: dict[str, list[float]] = {"before": [], "during": [], "after": []}
        self.first_ok_after: list[float] = []
        self.timeline: dict[str, float] = {}
        self.lock = threading.Lock()
        self.begin = self.end = 0.0

    def run(self) -> dict[str, Any]:
        self.begin = time.monotonic()
        self.end = self.begin + self.before + self.down + self.after
        injector = threading.Thread(target=self.fault)
        injector.start()
        run_threads(self.clients, self.client_loop)
        injector.join()
        counts = count_turns(self.stack, self.acked)
        return {
            "stats": self.stats, "counts": counts, "timeline": self.timeline,
            "phases": self.phases, "first_ok_after": self.first_ok_after,
            "seconds": time.monotonic() - self.begin, "clients": self.clients,
        }  # fmt: skip

    def phase(self) -> str:
        if "down" not in self.timeline:
            return "before"
        return "during" if "up" not in self.timeline else "after"

    def client_loop(self, c: int) -> None:
        agent, timeline = self.agent, self.timeline
        client, local = self.stack.client(), Counter[str]()
        samples: dict[str, list[float]] = {"before": [], "during": [], "after": []}
        url = f"/v1/sessions/{self.sessions[c]}/turns"
        seq, last_text, ok_after = 1, "", None
        while time.monotonic() < self.end:
            text = f"{agent} client {c} turn {seq}"
            now_phase = self.phase()
            status, body, elapsed = call(
                client, "POST", url, {"role": "user", "text": text, "seq": seq}
            )
            local["requests"] += 1
            if 200 <= status < 300:
                self.acked[self.sessions[c]].add(seq)
                samples[now_phase].append(elapsed)
                if ok_after is None and "up" in timeline:
                    ok_after = time.monotonic()
                seq, last_text = seq + 1, text
            else:
                local["503" if status == 503 else "5xx" if status >= 500 else "refused" if status == 0 else "other"] += 1  # fmt: skip
                time.sleep(0.05)  # then the same seq again
                continue
            if self.open_every and seq % self.open_every == 0:
                status, body, _ = call(client, "POST", "/v1/sessions",
                                       {"agent": agent, "user": f"{agent}-{c}", "session": f"{agent}-{c}"})  # fmt: skip
                local["requests"] += 1
                if status in (200, 201):
                    if last_text not in [t["text"] for t in body["recent_turns"]]:
                        local["stale"] += 1
                elif status == 503:
                    local["503"] += 1
                elif status >= 500:
                    local["5xx"] += 1
        with self.lock:
            self.stats.update(local)
            for name, values in samples.items():
                self.phases[name] += values
            if ok_after is not None:
                self.first_ok_after.append(ok_after)

    def fault(self) -> None:
        time.sleep(self.before)
        self.timeline["down"] = time.monotonic()
        self.stop()
        if self.while_down is not None:
            self.while_down()
        time.sleep(max(0.0, self.timeline["down"] + self.down - time.monotonic()))
        self.start()
        self.timeline["up"] = time.monotonic()


def load_with_outage(stack: Stack, *, agent: str, clients: int, before: float, down: float,
                     after: float, stop: Callable[[], None], start: Callable[[], None],
                     open_every: int = 0, while_down: Callable[[], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Runs the load of ``_OutageLoad``: stats, counts, timeline, phases, first_ok_after,
    seconds and clients."""
    return _OutageLoad(
        stack, agent=agent, clients=clients, before=before, down=down, after=after,
        stop=stop, start=start, open_every=open_every, while_down=while_down,
    ).run()  # fmt: skip
