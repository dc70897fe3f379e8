"""Memory search (DESIGN §7): scoped to one (tenant, agent, user) before anything else.

Legs: semantic (pgvector cosine over the user's memory units, exact scan), keyword (PostgreSQL
full text, an OR of the query's lexemes, ranked by cover density) and current facts (active facts
whose key or value the query names). Fusion: reciprocal rank fusion plus a recency prior.
When the best semantic similarity is under the agent's confidence threshold, or too few results
come back, the raw turn log is searched too; those results always score below every memory unit
and say `confidence: low`. A memory unit said while a fact it mentions held an older value is
marked stale, with its date, and is never high confidence: only facts are current.
"""

from __future__ import annotations

import datetime
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from threading import Lock
from typing import Any

import numpy as np
from django.db import connection
from django.utils import timezone

from core.text import iso
from memory.embedding import default_embedder, vector_literal
from memory.models import EndUser, Entity, Session, Status
from memory.selectors import entity_list
from schemas.models import Agent

RRF_K = 60  # the usual constant: rank 1 → 1/61, rank 10 → 1/70
CANDIDATES = 50  # per leg, before fusion
TURN_CANDIDATES = 30  # turns matched by full text, each credited to its units
HIGH, MEDIUM = 0.5, 0.35  # cosine bands of MiniLM for "clearly about it" / "related"
_STOP = set(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "about", "from", "by", "is", "are", "was", "were", "be", "been", "do", "does", "did", "what", "when", "where", "who", "whom", "which", "why", "how", "have", "has", "had", "i", "you", "he", "she", "it", "we", "they", "my", "your", "his", "her", "its", "our", "their", "me", "him", "them", "this", "that", "these", "those", "there", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "not", "no", "yes", "any", "some"])  # fmt: skip


class _QueryCache:
    """Recent query embeddings: a repeated question skips the model (≈2 ms)."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self.items: OrderedDict[str, np.ndarray] = OrderedDict()
        self.lock = Lock()

    def get(self, text: str) -> np.ndarray:
        with self.lock:
            if text in self.items:
                self.items.move_to_end(text)
                return self.items[text]
        vector = default_embedder().embed([text])[0]
        with self.lock:
            self.items[text] = vector
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return vector


query_cache = _QueryCache()


@dataclass
class Hit:
    id: str
    source: str  # acu | entity | turn
    text: str
    occurred_at: datetime.datetime | None
    session: str | None
    turns: list[dict[str, Any]]
    similarity: float | None = None
    legs: dict[str, dict[str, float]] = field(default_factory=dict)
    fused: float = 0.0
    score: float = 0.0
    confidence: str = "low"
    stale: bool = False
    note: str | None = None

    def body(self, explain: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "score": round(self.score, 4),
            "confidence": self.confidence,
            "source": self.source,
            "occurred_at": iso(self.occurred_at),
            "session": self.session,
            "turns": self.turns,
            "stale": self.stale,
        }
        if self.note:
            out["note"] = self.note
        if explain:
            out["explain"] = {
                "legs": self.legs,
                "similarity": self.similarity,
                "fused": round(self.fused, 6),
            }
        return out


@dataclass
class SearchResult:
    hits: list[Hit]
    confidence: str
    fallback: bool
    timings: dict[str, float]


def _turn_refs(session: Any, first: int | None, last: int | None) -> list[dict[str, Any]]:
    if session is None or first is None:
        return []
    return [{"session": str(session), "seq": seq} for seq in range(first, (last or first) + 1)]


def _semantic(agent: Agent, user: EndUser, vector: str, session: str | None) -> list[Hit]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, text, session_id, first_seq, last_seq, occurred_at, 1 - (embedding <=> %s::vector) "
            "FROM memory_acu WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s "
            "AND embedding IS NOT NULL AND (%s::uuid IS NULL OR session_id = %s::uuid) "
            "ORDER BY embedding <=> %s::vector LIMIT %s",
            [vector, agent.tenant_id, agent.pk, user.pk, session, session, vector, CANDIDATES],
        )
        rows = cursor.fetchall()
    return [Hit(f"acu:{r[0]}", "acu", r[1], r[5], str(r[2]) if r[2] else None, _turn_refs(r[2], r[3], r[4]),
                similarity=float(r[6])) for r in rows]  # fmt: skip


_OR_QUERY = (
    "(SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) "
    "FROM unnest(to_tsvector(%s::regconfig, %s)))"
)


def _ranked_units(rows: list[tuple[Any, ...]], leg: str) -> list[Hit]:
    """Rows of (id, text, session, first_seq, last_seq, occurred_at, leg score, cosine)."""
    hits = []
    for r in rows:
        hit = Hit(f"acu:{r[0]}", "acu", r[1], r[5], str(r[2]) if r[2] else None, _turn_refs(r[2], r[3], r[4]),
                  similarity=float(r[7]) if r[7] is not None else None)  # fmt: skip
        hit.legs[leg] = {"score": round(float(r[6]), 4)}
        hits.append(hit)
    return hits


def _keyword(
    agent: Agent, user: EndUser, query: str, vector: str, session: str | None
) -> list[Hit]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH q AS (SELECT {_OR_QUERY} AS q) "  # noqa: S608 (a constant, no input)
            "SELECT a.id, a.text, a.session_id, a.first_seq, a.last_seq, a.occurred_at, "
            "ts_rank_cd(a.keywords, q.q), 1 - (a.embedding <=> %s::vector) "
            "FROM memory_acu a, q WHERE q.q IS NOT NULL AND a.tenant_id = %s AND a.agent_id = %s "
            "AND a.end_user_id = %s AND a.keywords @@ q.q AND (%s::uuid IS NULL OR a.session_id = %s::uuid) "
            "ORDER BY 7 DESC, a.occurred_at DESC LIMIT %s",
            [
                agent.search_language,
                query,
                vector,
                agent.tenant_id,
                agent.pk,
                user.pk,
                session,
                session,
                CANDIDATES,
            ],
        )
        rows = cursor.fetchall()
    return _ranked_units(rows, "keyword")


def _turn_vector(agent: Agent) -> str:
    """The turn log's stored english vector, or one computed on the fly for another language
    (validated against the agent setting's choices, so it is safe to inline)."""
    language = agent.search_language
    if language == "english":
        return "t.text_search"
    assert re.fullmatch(r"[a-z]+", language)
    return f"to_tsvector('{language}'::regconfig, t.text)"


def _turn_keyword(
    agent: Agent, user: EndUser, query: str, vector: str, session: str | None
) -> list[Hit]:
    """Full text over the raw turns (the words as said, before rewriting), credited to the
    memory units made from the matching turns."""
    language = agent.search_language
    with connection.cursor() as cursor:
        tsv = _turn_vector(agent)
        cursor.execute(
            f"WITH q AS (SELECT {_OR_QUERY} AS q), t AS ("  # noqa: S608 (constants and a validated name)
            f"  SELECT t.session_id, t.seq, ts_rank_cd({tsv}, q.q) AS rank "
            "  FROM memory_turn t, q WHERE q.q IS NOT NULL AND t.tenant_id = %s AND t.agent_id = %s "
            f"  AND t.end_user_id = %s AND {tsv} @@ q.q "
            "  AND (%s::uuid IS NULL OR t.session_id = %s::uuid) ORDER BY rank DESC LIMIT %s) "
            "SELECT a.id, a.text, a.session_id, a.first_seq, a.last_seq, a.occurred_at, max(t.rank), "
            "1 - (a.embedding <=> %s::vector) FROM t CROSS JOIN LATERAL ("
            "  SELECT * FROM memory_acu a WHERE a.session_id = t.session_id AND a.first_seq <= t.seq "
            "  AND a.last_seq >= t.seq AND a.tenant_id = %s AND a.agent_id = %s AND a.end_user_id = %s) a "
            "GROUP BY a.id, a.text, a.session_id, a.first_seq, a.last_seq, a.occurred_at, a.embedding "
            "ORDER BY 7 DESC, a.id LIMIT %s",
            [language, query, agent.tenant_id, agent.pk, user.pk, session, session,
             TURN_CANDIDATES, vector, agent.tenant_id, agent.pk, user.pk, CANDIDATES],
        )  # fmt: skip
        rows = cursor.fetchall()
    return _ranked_units(rows, "turn_keyword")


SUBJECT_WEIGHT = 0.5  # a third of a leg at rank 1: breaks ties, never outweighs a match
_SUBJECT = re.compile(r"^On \d{1,2} \w+ \d{4}, (\w+)")


def _subject(text: str) -> str | None:
    match = _SUBJECT.match(text)
    return match.group(1).lower() if match else None


_PARTICIPANTS_SECONDS = 60.0
_participants_seen: dict[tuple[int, int], tuple[float, set[str]]] = {}


def _participants(agent: Agent, user: EndUser) -> set[str]:
    """Names of the two sides of this user's conversations (session metadata), lower-case;
    remembered for a minute per process (they change when a new session names someone new)."""
    key = (agent.pk, user.pk)
    seen = _participants_seen.get(key)
    if seen is not None and time.monotonic() - seen[0] < _PARTICIPANTS_SECONDS:
        return seen[1]
    names = _participants_load(agent, user)
    if len(_participants_seen) > 10_000:
        _participants_seen.clear()
    _participants_seen[key] = (time.monotonic(), names)
    return names


def search_cache_forget_user(*, end_user_id: int) -> None:
    """Drop what this process remembers of a user (their participants' names): after an erase."""
    for key in [k for k in _participants_seen if k[1] == end_user_id]:
        _participants_seen.pop(key, None)


def _participants_load(agent: Agent, user: EndUser) -> set[str]:
    names: set[str] = set()
    rows = (
        Session.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=user)
        .exclude(metadata={})
        .values_list("metadata", flat=True)
        .distinct()[:20]
    )
    for metadata in rows:
        for name in ((metadata or {}).get("participants") or {}).values():
            names |= {part.lower() for part in str(name).split()}
    return names


def _keyword_query(query: str, names: set[str]) -> str:
    return " ".join(
        w
        for w in re.findall(r"[\w'-]+", query)
        if w.lower().strip("'s") not in names and w.lower() not in names
    )


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 2}


def _facts(current: list[Entity], query: str) -> list[Hit]:
    words = _words(query)
    if not words:
        return []
    scored = []
    for entity in current:
        key_words = set(entity.key.replace(":", "_").lower().split("_"))
        by_key = len(words & key_words)
        by_value = len(words & _words(entity.value_text))
        if by_key or by_value:
            label = entity.key.replace(":", " ")
            hit = Hit(f"entity:{entity.pk}", "entity",
                      f"{label}: {entity.value_text} (current, as of {entity.valid_from.date().isoformat()})",
                      entity.valid_from, None, list(entity.source_turns or []))  # fmt: skip
            hit.confidence = "high" if by_key and entity.source != "inferred" else "medium"
            scored.append((2 * by_key + by_value, hit))
    scored.sort(key=lambda pair: -pair[0])
    return [hit for _, hit in scored]


def _fallback(
    agent: Agent, user: EndUser, query: str, session: str | None, limit: int, exclude: set[str]
) -> list[Hit]:
    language = agent.search_language
    with connection.cursor() as cursor:
        tsv = _turn_vector(agent)
        cursor.execute(
            f"WITH q AS (SELECT {_OR_QUERY} AS q) "  # noqa: S608 (constants and a validated name)
            f"SELECT t.id, t.text, t.session_id, t.seq, t.occurred_at, t.role, ts_rank_cd({tsv}, q.q) AS rank "
            "FROM memory_turn t, q WHERE q.q IS NOT NULL AND t.tenant_id = %s AND t.agent_id = %s "
            f"AND t.end_user_id = %s AND {tsv} @@ q.q "
            "AND (%s::uuid IS NULL OR t.session_id = %s::uuid) "
            "ORDER BY rank DESC, t.id DESC LIMIT %s",
            [language, query, agent.tenant_id, agent.pk, user.pk, session, session, limit * 3],
        )  # fmt: skip
        rows = cursor.fetchall()
    hits = []
    for r in rows:
        refs = [{"session": str(r[2]), "seq": r[3]}]
        if f"{r[2]}:{r[3]}" in exclude:
            continue
        hit = Hit(
            f"turn:{r[0]}",
            "turn",
            f"On {r[4].date().isoformat()}, {r[5]} said: {r[1]}",
            r[4],
            str(r[2]),
            refs,
        )
        hit.legs["fallback"] = {"score": round(float(r[6]), 4)}
        hits.append(hit)
    return hits[:limit]


def _key_words(key: str) -> list[str]:
    return [w for w in key.split(":")[0].split("_") if len(w) > 2]


def _stale_marks(agent: Agent, user: EndUser, hits: list[Hit], current_facts: list[Entity]) -> None:
    """Mark memory units said while a fact they mention held a value that has since changed."""
    texts = [hit.text.lower() for hit in hits if hit.source == "acu"]
    mentioned = any(
        (words := _key_words(e.key)) and all(w in text for w in words)
        for e in current_facts
        for text in texts
    )
    if not mentioned:
        return  # no unit names a fact: nothing can be stale (and no query for its history)
    history = list(
        Entity.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=user, status=Status.SUPERSEDED,
                              valid_until__isnull=False)
        .values_list("key", "valid_from", "valid_until")
    )  # fmt: skip
    if not history:
        return
    current = {e.key: e.value_text for e in current_facts}
    for hit in hits:
        if hit.source != "acu" or hit.occurred_at is None:
            continue
        text = hit.text.lower()
        for key, valid_from, valid_until in history:
            words = _key_words(key)
            if (
                words
                and all(w in text for w in words)
                and valid_until is not None
                and valid_from <= hit.occurred_at < valid_until
            ):
                hit.stale = True
                now_value = current.get(key)
                hit.note = (
                    f"as of {hit.occurred_at.date().isoformat()}; {key} has changed since"
                    + (f" (now {now_value})" if now_value else "")
                )
                break


def _diversified(ordered: list[Hit], k: int) -> list[Hit]:
    """Top k that cover different turns: a unit from a turn an earlier hit already covers is
    folded into that hit (its sentence appended) instead of taking a slot of its own."""
    out: list[Hit] = []
    by_turn: dict[str, Hit] = {}
    for hit in ordered:
        refs = [f"{t['session']}:{t['seq']}" for t in hit.turns]
        owner = (
            next((by_turn[r] for r in refs if r in by_turn), None)
            if refs and hit.source == "acu"
            else None
        )
        if owner is not None and owner.source == "acu":
            if hit.text not in owner.text and len(owner.text) < 1200:
                owner.text = f"{owner.text} {hit.text.split(': ', 1)[-1] if ' said: ' in hit.text else hit.text}"
            continue
        if len(out) == k:
            continue
        out.append(hit)
        for ref in refs:
            by_turn.setdefault(ref, hit)
    return out


def memory_search(
    *,
    agent: Agent,
    end_user: EndUser,
    query: str,
    k: int = 10,
    session: str | None = None,
    now: datetime.datetime | None = None,
) -> SearchResult:
    now = now or timezone.now()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    vector = vector_literal(query_cache.get(query))
    timings["embed_ms"] = round((time.perf_counter() - started) * 1000, 2)

    started = time.perf_counter()
    legs: dict[str, list[Hit]] = {"semantic": _semantic(agent, end_user, vector, session)}
    if agent.hybrid_search:
        # The participants' names are in nearly every line: as keywords they match everything
        # and rank nothing (no IDF in PostgreSQL's ranking), so the keyword legs leave them out.
        words = _keyword_query(query, _participants(agent, end_user))
        if words:
            legs["keyword"] = _keyword(agent, end_user, words, vector, session)
            legs["turn_keyword"] = _turn_keyword(agent, end_user, words, vector, session)
    current_facts = list(entity_list(agent=agent, end_user=end_user, now=now))
    legs["facts"] = [] if session else _facts(current_facts, query)
    timings["legs_ms"] = round((time.perf_counter() - started) * 1000, 2)

    merged: dict[str, Hit] = {}
    for leg, hits in legs.items():
        for rank, hit in enumerate(hits, 1):
            kept = merged.setdefault(hit.id, hit)
            kept.legs.setdefault(leg, {}).update({"rank": rank} | hit.legs.get(leg, {}))
            if kept.similarity is None and hit.similarity is not None:
                kept.similarity = hit.similarity
            kept.fused += 1.0 / (RRF_K + rank)
    # The subject prior: a question about one participant prefers what that participant said
    # or did (a unit's subject follows its date: "On 8 May 2023, Caroline …").
    named = {w.lower() for w in re.findall(r"[A-Za-z]+", query)} & _participants(agent, end_user)
    if len(named) == 1:
        subject = next(iter(named))
        for hit in merged.values():
            if hit.source == "acu" and _subject(hit.text) == subject:
                hit.fused += SUBJECT_WEIGHT / (RRF_K + 1)
                hit.legs["subject"] = {"rank": 1}
    # The recency prior: one more "leg" that ranks by when it was said.
    by_time = sorted(
        merged.values(),
        key=lambda h: h.occurred_at or datetime.datetime.min.replace(tzinfo=datetime.UTC),
        reverse=True,
    )
    for rank, hit in enumerate(by_time, 1):
        hit.fused += agent.search_recency_weight / (RRF_K + rank)
        hit.legs["recency"] = {"rank": rank}
    ceiling = (len(legs) + agent.search_recency_weight) / (RRF_K + 1)
    ranked = _diversified(sorted(merged.values(), key=lambda h: (-h.fused, h.id)), k)
    for hit in ranked:
        hit.score = hit.fused / ceiling
        if hit.source == "acu":
            similarity = hit.similarity or 0.0
            hit.confidence = (
                "high" if similarity >= HIGH else "medium" if similarity >= MEDIUM else "low"
            )
    _stale_marks(agent, end_user, ranked, current_facts)
    for hit in ranked:
        if hit.stale and hit.confidence == "high":
            hit.confidence = "medium"

    best = max((h.similarity or 0.0 for h in ranked if h.source == "acu"), default=0.0)
    fallback = (
        best < agent.search_confidence_threshold or len(ranked) < agent.cold_fallback_min_results
    )
    if fallback:
        started = time.perf_counter()
        covered = {f"{t['session']}:{t['seq']}" for h in ranked for t in h.turns}
        # Room for the turn log: whatever k leaves, and at least a third of k when the memory
        # units found are weak; those slots come from the weakest memory units.
        room = max(k - len(ranked), -(-k // 3))
        extra = _fallback(agent, end_user, query, session, room, covered)
        floor = min((h.score for h in ranked), default=1.0)
        for index, hit in enumerate(extra):
            hit.score = floor * 0.5 / (index + 1)  # always below every memory unit
            hit.confidence = "low"
        ranked = ranked[: k - len(extra)] + extra
        timings["fallback_ms"] = round((time.perf_counter() - started) * 1000, 2)

    order = {"high": 2, "medium": 1, "low": 0}
    overall = max((h.confidence for h in ranked), key=lambda c: order[c], default="low")
    return SearchResult(ranked, overall, fallback, timings)
