"""postgres: PostgreSQL is stopped and started while clients append (retrying 503s with the same
seq); the server recovers without a restart."""

from __future__ import annotations

from bench.faults.common import Row, create_agent, latency
from bench.faults.scenarios.outage import load_with_outage
from bench.faults.stack import Stack


def scenario_postgres(stack: Stack, *, clients: int = 8, before: float = 3, down: float = 3,
                      after: float = 5) -> Row:  # fmt: skip
    """PostgreSQL stopped (fast) and started again while clients append, retrying 503s."""
    create_agent(stack.client(), "pg", {"extraction_token_threshold": 200_000})
    pids = stack.web_pids()
    result = load_with_outage(
        stack, agent="pg", clients=clients, before=before, down=down, after=after,
        stop=stack.stop_postgres, start=stack.start_postgres,
    )  # fmt: skip
    stats, counts, timeline = result["stats"], result["counts"], result["timeline"]
    recovered = result["first_ok_after"]
    recovery = max(recovered) - timeline["up"] if len(recovered) == clients else None
    return Row(
        "postgres", requests=stats["requests"], server_errors=stats["5xx"],
        unavailable=stats["503"], recovery_s=round(recovery, 2) if recovery is not None else None,
        seconds=round(result["seconds"], 1), **counts,
        extra={"clients": clients, "postgres_down_s": round(timeline["up"] - timeline["down"], 2),
               "server_processes_unchanged": stack.web_pids() == pids,
               "refused_connections": stats["refused"], "other_errors": stats["other"],
               "append_latency_after": latency(result["phases"]["after"])},
    )  # fmt: skip
