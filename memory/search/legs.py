"""The retrieval legs, each one query scoped to (tenant, agent, end user) before anything else:
semantic (pgvector cosine over the user's memory units, exact scan), keyword (full text over the
units), turn keyword (full text over the raw turns, credited to the units made from them), current
facts (in Python, over facts already loaded) and the turn-log fallback."""

from __future__ import annotations

import datetime
import re
from typing import Any

from django.db import connection, transaction

from memory.models import EndUser, Entity, Status
from memory.search.hits import Hit, turn_refs
from schemas.models import Agent
from schemas.validation import SETTINGS

CANDIDATES = 50  # per leg, before fusion
# HNSW candidates a heavy user's indexed semantic leg looks at: ≥ CANDIDATES (pgvector's default
# 40 would return fewer); recall@10 0.99 at 10^5 units (ADR 0029).
EF_SEARCH = 100
TURN_CANDIDATES = 30  # turns matched by full text, each credited to its units
# The full-text legs search a user's newest WINDOW turns (and units), ranking at most MATCHES
# matches, newest first: a heavy user's cost stays bounded (ADR 0029). The in-process index
# holds users up to the same size (index.MAX_USER_ROWS), so they are searched whole.
WINDOW = 20_000
MATCHES = 2_000
_STOP = set(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with", "about", "from", "by", "is", "are", "was", "were", "be", "been", "do", "does", "did", "what", "when", "where", "who", "whom", "which", "why", "how", "have", "has", "had", "i", "you", "he", "she", "it", "we", "they", "my", "your", "his", "her", "its", "our", "their", "me", "him", "them", "this", "that", "these", "those", "there", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "not", "no", "yes", "any", "some"])  # fmt: skip

# The only languages whose name is ever written into SQL text (the setting's choices): a value
# that reached the row some other way is refused, not inlined.
LANGUAGES = frozenset(SETTINGS["search_language"].choices or ())

# The query as an OR of its lexemes (an AND of a whole question rarely matches anything);
# parameters: the language, the query.
_WITH_Q = (
    "WITH q AS (SELECT (SELECT to_tsquery('simple', string_agg(quote_literal(lexeme), ' | ')) "
    "FROM unnest(to_tsvector(%s::regconfig, %s))) AS q)"
)


def turn_vector_sql(language: str) -> str:
    """The turn log's full-text vector in ``language``: the stored (indexed) one for english,
    one computed on the fly for another. Raises ValueError for a name outside LANGUAGES."""
    if language not in LANGUAGES:
        raise ValueError(f"search_language {language!r} is not one of {sorted(LANGUAGES)}")
    if language == "english":
        return "t.text_search"
    return f"to_tsvector('{language}'::regconfig, t.text)"


def _matching_turns(language: str, columns: str) -> str:
    """The user's turns that match ``q``, with their rank: the one place the turn log is
    searched by full text. Parameters: tenant, agent, end user (twice), session, session.

    Only the user's newest WINDOW turns are searched: for a user with 10^5 turns a common word
    matches tens of thousands, and reading and ranking them all cost 0.5 s (ADR 0029). The
    window's first id is found in the user's index on the log (newest first), so the cost is
    bounded per user whatever the log's size; older turns stay reachable through the units."""
    tsv = turn_vector_sql(language)
    return (
        f"SELECT {columns}, ts_rank_cd({tsv}, q.q) AS rank FROM q, ("  # noqa: S608 (constants and a checked name)
        "SELECT t.* FROM memory_turn t, q WHERE q.q IS NOT NULL AND t.tenant_id = %s AND t.agent_id = %s "
        f"AND t.end_user_id = %s AND t.id >= {_window('memory_turn', 'id', '0')} AND {tsv} @@ q.q "
        f"AND (%s::uuid IS NULL OR t.session_id = %s::uuid) ORDER BY t.id DESC LIMIT {MATCHES}) t"
    )


def _window(table: str, column: str, floor: str) -> str:
    """The lowest ``column`` of the user's newest WINDOW rows (parameters: tenant, agent,
    end user), read from their (tenant, agent, end user, column) index; ``floor`` when they
    have fewer."""
    return (
        f"COALESCE((SELECT w.{column} FROM {table} w WHERE w.tenant_id = %s AND w.agent_id = %s "  # noqa: S608 (constants)
        f"AND w.end_user_id = %s ORDER BY w.{column} DESC OFFSET {WINDOW} LIMIT 1), "
        f"{floor})"
    )


def _scope(agent: Agent, user: EndUser) -> list[int]:
    return [agent.tenant_id, agent.pk, user.pk]


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _ranked_units(rows: list[tuple[Any, ...]], leg: str) -> list[Hit]:
    """Rows of (id, text, session, first_seq, last_seq, occurred_at, leg score, cosine)."""
    hits = []
    for r in rows:
        hit = Hit(f"acu:{r[0]}", "acu", r[1], r[5], str(r[2]) if r[2] else None, turn_refs(r[2], r[3], r[4]),
                  similarity=float(r[7]) if r[7] is not None else None)  # fmt: skip
        hit.legs[leg] = {"score": round(float(r[6]), 4)}
        hits.append(hit)
    return hits


def semantic_leg(
    *, agent: Agent, user: EndUser, vector: str, session: str | None, indexed: bool = False
) -> list[Hit]:
    """Exact cosine over the user's units; ``indexed``: the user has a partial HNSW index
    (``vector_index``), used by naming the user's id as a constant (an int) and searching it
    with ``ef_search`` raised to at least the candidates wanted."""
    user_sql = str(int(user.pk)) if indexed else "%s"
    sql = (
        "SELECT id, text, session_id, first_seq, last_seq, occurred_at, 1 - (embedding <=> %s::vector) "  # noqa: S608 (an int)
        f"FROM memory_acu WHERE tenant_id = %s AND agent_id = %s AND end_user_id = {user_sql} "
        "AND embedding IS NOT NULL AND (%s::uuid IS NULL OR session_id = %s::uuid) "
        "ORDER BY embedding <=> %s::vector LIMIT %s"
    )
    params = [vector, agent.tenant_id, agent.pk, *([] if indexed else [user.pk]), session,
              session, vector, CANDIDATES]  # fmt: skip
    if indexed:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL hnsw.ef_search = {EF_SEARCH}")
            cursor.execute(sql, params)
            rows = cursor.fetchall()
    else:
        rows = _rows(sql, params)
    return [Hit(f"acu:{r[0]}", "acu", r[1], r[5], str(r[2]) if r[2] else None, turn_refs(r[2], r[3], r[4]),
                similarity=float(r[6])) for r in rows]  # fmt: skip


def keyword_query(query: str, names: set[str]) -> str:
    """The query's words without the participants' names: those are in nearly every line, so as
    keywords they match everything and rank nothing (no IDF in PostgreSQL's ranking)."""
    return " ".join(
        w
        for w in re.findall(r"[\w'-]+", query)
        if w.lower().strip("'s") not in names and w.lower() not in names
    )


def keyword_leg(
    *, agent: Agent, user: EndUser, words: str, vector: str, session: str | None
) -> list[Hit]:
    """Full text over the user's units: the newest MATCHES matches ranked (as for the turns),
    the rows and cosines read for the best CANDIDATES only."""
    rows = _rows(
        f"{_WITH_Q}, m AS ("  # noqa: S608 (constants)
        "SELECT a.id, a.occurred_at, ts_rank_cd(a.keywords, q.q) AS rank FROM q, ("
        "SELECT a.id, a.occurred_at, a.keywords FROM memory_acu a, q WHERE q.q IS NOT NULL "
        "AND a.tenant_id = %s AND a.agent_id = %s AND a.end_user_id = %s "
        f"AND a.occurred_at >= {_window('memory_acu', 'occurred_at', "'-infinity'")} AND a.keywords @@ q.q "
        "AND (%s::uuid IS NULL OR a.session_id = %s::uuid) "
        f"ORDER BY a.occurred_at DESC LIMIT {MATCHES}) a ORDER BY 3 DESC, 2 DESC LIMIT %s) "
        "SELECT a.id, a.text, a.session_id, a.first_seq, a.last_seq, a.occurred_at, m.rank, "
        "1 - (a.embedding <=> %s::vector) FROM m JOIN memory_acu a ON a.id = m.id AND a.tenant_id = %s "
        "ORDER BY m.rank DESC, m.occurred_at DESC",
        [agent.search_language, words, *_scope(agent, user), *_scope(agent, user), session,
         session, CANDIDATES, vector, agent.tenant_id],
    )  # fmt: skip
    return _ranked_units(rows, "keyword")


def turn_keyword_leg(
    *, agent: Agent, user: EndUser, words: str, vector: str, session: str | None
) -> list[Hit]:
    """Full text over the raw turns (the words as said, before rewriting), credited to the
    memory units made from the matching turns."""
    turns = _matching_turns(agent.search_language, "t.session_id, t.seq")
    rows = _rows(
        f"{_WITH_Q}, t AS ({turns} ORDER BY rank DESC LIMIT %s) "  # noqa: S608 (constants and a checked name)
        "SELECT a.id, a.text, a.session_id, a.first_seq, a.last_seq, a.occurred_at, max(t.rank), "
        "1 - (a.embedding <=> %s::vector) FROM t CROSS JOIN LATERAL ("
        "  SELECT * FROM memory_acu a WHERE a.session_id = t.session_id AND a.first_seq <= t.seq "
        "  AND a.last_seq >= t.seq AND a.tenant_id = %s AND a.agent_id = %s AND a.end_user_id = %s) a "
        "GROUP BY a.id, a.text, a.session_id, a.first_seq, a.last_seq, a.occurred_at, a.embedding "
        "ORDER BY 7 DESC, a.id LIMIT %s",
        [agent.search_language, words, *_scope(agent, user), *_scope(agent, user), session,
         session, TURN_CANDIDATES, vector, agent.tenant_id, agent.pk, user.pk, CANDIDATES],
    )  # fmt: skip
    return _ranked_units(rows, "turn_keyword")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 2}


def facts_leg(*, current: list[Entity], query: str) -> list[Hit]:
    """Current facts whose key or value the query names (a key word counts twice)."""
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


def fallback_leg(
    *, agent: Agent, user: EndUser, query: str, session: str | None, limit: int, exclude: set[str]
) -> list[Hit]:
    """Raw turns matching the query, best first, leaving out the ``session:seq`` in ``exclude``."""
    turns = _matching_turns(
        agent.search_language, "t.id, t.text, t.session_id, t.seq, t.occurred_at, t.role"
    )
    rows = _rows(
        f"{_WITH_Q} {turns} ORDER BY rank DESC, t.id DESC LIMIT %s",
        [agent.search_language, query, *_scope(agent, user), *_scope(agent, user), session,
         session, limit * 3],
    )  # fmt: skip
    hits = [turn_hit(r, float(r[6])) for r in rows if f"{r[2]}:{r[3]}" not in exclude]
    return hits[:limit]


def turn_hit(row: tuple[Any, ...], score: float) -> Hit:
    """A raw turn as a fallback hit; ``row``: (id, text, session, seq, occurred_at, role)."""
    hit = Hit(f"turn:{row[0]}", "turn", f"On {row[4].date().isoformat()}, {row[5]} said: {row[1]}",
              row[4], str(row[2]), [{"session": str(row[2]), "seq": row[3]}])  # fmt: skip
    hit.legs["fallback"] = {"score": round(score, 4)}
    return hit


def superseded_history(
    *, agent: Agent, user: EndUser
) -> list[tuple[str, datetime.datetime, datetime.datetime | None]]:
    """(key, valid_from, valid_until) of every superseded value of this user's facts."""
    return list(
        Entity.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=user, status=Status.SUPERSEDED,
                              valid_until__isnull=False)
        .values_list("key", "valid_from", "valid_until")
    )  # fmt: skip
