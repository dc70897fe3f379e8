"""Reference resolution against one session (``references``: the rules): read the session's
recent turns and the user's previous session, resolve the query, and turn what it points at
into hits that lead the results. Two indexed reads (the session's turns by ``(session, seq)``,
the previous session's by the same index); the facts are the caller's, already loaded."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from memory.models import Entity, Session
from memory.search.cache import query_cache
from memory.search.hits import Hit
from memory.search.reference_cues import wants_history
from memory.search.reference_turns import TurnView
from memory.search.references import Resolution, references_resolve
from memory.validation import participants_of

RECENT_TURNS = 60  # ≈ 30 exchanges: what "the other one" or "that" can reach back to
HISTORY_TURNS = 40  # of the user's previous session, for "same as last time"
EXPANSION_WORDS = 12  # words of the referent added to the query the legs search with


@dataclass
class Referents:
    resolution: Resolution
    hits: list[Hit] = field(default_factory=list)
    query: str = ""  # the query for the legs: the user's words and the referent's


def _turns(sql: str, params: list[Any]) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _recent(session: Session) -> list[tuple[object, ...]]:
    rows = _turns(
        "SELECT id, session_id, seq, role, text, occurred_at FROM memory_turn "
        "WHERE tenant_id = %s AND session_id = %s ORDER BY seq DESC LIMIT %s",
        [session.tenant_id, session.pk, RECENT_TURNS],
    )
    return rows[::-1]


def _previous(session: Session) -> list[tuple[object, ...]]:
    """The turns of the user's latest other session with this agent, oldest first."""
    rows = _turns(
        "SELECT t.id, t.session_id, t.seq, t.role, t.text, t.occurred_at FROM memory_turn t "
        "WHERE t.tenant_id = %s AND t.session_id = ("
        "  SELECT s.id FROM memory_session s WHERE s.tenant_id = %s AND s.end_user_id = %s "
        "  AND s.agent_id = %s AND s.id <> %s AND s.started_at <= %s "
        "  ORDER BY s.last_activity_at DESC LIMIT 1) ORDER BY t.seq DESC LIMIT %s",
        [session.tenant_id, session.tenant_id, session.end_user_id, session.agent_id, session.pk,
         session.started_at, HISTORY_TURNS],
    )  # fmt: skip
    return rows[::-1]


def _similar(query: str, texts: list[str]) -> list[float]:
    """The cosine of the query to each text, by the search's embedder (vectors cached)."""
    vectors = query_cache.get_many([query, *texts])
    return [float(v @ vectors[0]) for v in vectors[1:]]


def _view(row: tuple[object, ...]) -> TurnView:
    return TurnView(f"{row[1]}:{row[2]}", str(row[3]), str(row[4]))


def _hit(row: tuple[object, ...], speakers: dict[str, str], kind: str, rank: int) -> Hit:
    turn_id, session_id, seq, role, text, occurred_at = row
    speaker = speakers.get(str(role), str(role))
    hit = Hit(
        f"turn:{turn_id}",
        "turn",
        f"On {occurred_at.date().isoformat()}, {speaker} said: {text}",  # type: ignore[attr-defined]
        occurred_at,  # type: ignore[arg-type]
        str(session_id),
        [{"session": str(session_id), "seq": seq}],
    )
    hit.confidence = "high"
    hit.score = 1.0
    hit.legs["reference"] = {"kind": kind, "rank": rank}  # type: ignore[dict-item]
    return hit


def _fact_hit(entity: Entity, kind: str, rank: int) -> Hit:
    label = entity.key.replace(":", " ")
    hit = Hit(f"entity:{entity.pk}", "entity",
              f"{label}: {entity.value_text} (current, as of {entity.valid_from.date().isoformat()})",
              entity.valid_from, None, list(entity.source_turns or []))  # fmt: skip
    hit.confidence = "high" if entity.source != "inferred" else "medium"
    hit.score = 1.0
    hit.legs["reference"] = {"kind": kind, "rank": rank}  # type: ignore[dict-item]
    return hit


def references_find(*, session: Session, query: str, facts: list[Entity]) -> Referents:
    """What ``query`` points at in ``session`` (and the user's previous session and facts), as
    hits; the query's own turn, when already appended, is not its own referent."""
    rows = _recent(session)
    if rows and str(rows[-1][4]).strip() == query.strip():
        rows = rows[:-1]
    names = participants_of(session.metadata or {})
    lowered = {part.lower() for name in names.values() for part in str(name).split()}
    # "Same as last time" (or "the same again", when this session holds no request) reaches
    # into the previous session: read it only then.
    history = _previous(session) if wants_history(query) else []
    resolution = references_resolve(
        query, [_view(r) for r in rows], history=[_view(r) for r in history],
        facts={e.key: e.value_text for e in facts}, participants=lowered, similar=_similar,
    )  # fmt: skip
    by_key = {f"{r[1]}:{r[2]}": r for r in rows + history}
    hits = [
        _hit(by_key[t.key], names, resolution.kind or "", rank)
        for rank, t in enumerate(resolution.turns, 1)
        if t.key in by_key
    ]
    by_fact = {e.key: e for e in facts}
    hits += [
        _fact_hit(by_fact[key], resolution.kind or "", len(hits) + rank)
        for rank, key in enumerate(resolution.fact_keys, 1)
    ]
    extra = " ".join(resolution.words[:EXPANSION_WORDS])
    return Referents(resolution, hits, f"{query} {extra}".strip() if extra else query)
