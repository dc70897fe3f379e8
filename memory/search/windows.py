"""Multi-turn windows: a hit made from one turn comes with the turns around it (the line it
answers, the line that answers it), so a result is the exchange, not half of it. The window is
ranked by the turn that matched (its best-matching turn); a neighbouring turn that a better hit
already holds, as its own turn or in its window, is not repeated. One indexed read for all the
windows of a result list."""

from __future__ import annotations

from typing import Any

from django.db import connection

from memory.search.hits import Hit, turn_ref_keys
from memory.validation import participants_of

BEFORE, AFTER = 1, 1  # turns on each side (ADR 0010: each ±1 measured on LoCoMo dev)
MAX_NEIGHBOUR_CHARS = 400  # a long neighbour is cut: the window is context, not the answer


def _neighbours(hits: list[Hit]) -> dict[int, list[tuple[str, int]]]:
    """For each single-turn hit, the (session, seq) around it that no better hit holds."""
    held = {ref for hit in hits for ref in turn_ref_keys(hit)}
    out: dict[int, list[tuple[str, int]]] = {}
    for index, hit in enumerate(hits):
        if hit.source not in ("acu", "turn") or len(hit.turns) != 1:
            continue
        session, seq = hit.turns[0]["session"], int(hit.turns[0]["seq"])
        wanted = [(session, n) for n in range(seq - BEFORE, seq + AFTER + 1) if n != seq and n > 0]
        wanted = [w for w in wanted if f"{w[0]}:{w[1]}" not in held]
        held |= {f"{w[0]}:{w[1]}" for w in wanted}
        if wanted:
            out[index] = wanted
    return out


def windows_add(hits: list[Hit], *, tenant_id: int) -> None:
    """Widen each single-turn hit in place: its text gains the neighbouring lines (speaker by
    name), its ``turns`` the neighbours' references."""
    wanted = _neighbours(hits)
    if not wanted:
        return
    pairs = [pair for pairs in wanted.values() for pair in pairs]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.session_id, t.seq, t.role, t.text, s.metadata FROM memory_turn t "
            "JOIN unnest(%s::uuid[], %s::bigint[]) AS w(session_id, seq) "
            "ON t.session_id = w.session_id AND t.seq = w.seq "
            "JOIN memory_session s ON s.id = t.session_id AND s.tenant_id = t.tenant_id "
            "WHERE t.tenant_id = %s",
            [[p[0] for p in pairs], [p[1] for p in pairs], tenant_id],
        )
        found: dict[tuple[str, int], tuple[Any, ...]] = {
            (str(row[0]), int(row[1])): row for row in cursor.fetchall()
        }
    for index, around in wanted.items():
        hit = hits[index]
        seq = int(hit.turns[0]["seq"])
        before, after = [], []
        for pair in around:
            row = found.get(pair)
            if row is None:
                continue
            speaker = participants_of(row[4] or {}).get(row[2], row[2])
            line = f"{speaker}: {_cut(row[3])}"
            (before if pair[1] < seq else after).append(line)
            hit.turns.append({"session": pair[0], "seq": pair[1]})
        if before:
            hit.text = f"{hit.text} (in reply to {' / '.join(before)})"
        if after:
            hit.text = f"{hit.text} (answered by {' / '.join(after)})"
        hit.turns.sort(key=lambda t: int(t["seq"]))


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_NEIGHBOUR_CHARS else text[: MAX_NEIGHBOUR_CHARS - 1] + "…"
