"""The legs over a user's in-process index (``index``): semantic, turn keyword (BM25 over the
raw turns, credited to their units), keyword (BM25 over the units' own words, for units whose
turns are gone) and date (the units said on the day the query names, by similarity); then one
read of the chosen units' rows. Same hits and candidate counts as the SQL legs (``legs``). A
heavy user's window has no vectors: only its keyword legs run here (``keyword_legs``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.db import connection

from memory.search.dates import said_then
from memory.search.hits import Hit, turn_refs
from memory.search.index import UserIndex
from memory.search.legs import CANDIDATES, TURN_CANDIDATES, turn_hit
from memory.search.ranker import explained, unit_scores

DATE_LEG = True  # False: no date leg (how ADR 0010 measured it)
RANKER = True  # False: the legs fused by rank, as before the ranker (how ADR 0010 measured it)
DATE_CANDIDATES = 20  # the units said on the day (or month) the query names, by similarity


def _top(scores: np.ndarray, n: int, positive: bool) -> list[int]:
    if not len(scores):
        return []
    n = min(n, len(scores))
    part = np.argpartition(-scores, n - 1)[:n]
    order = part[np.argsort(-scores[part], kind="stable")]
    return [int(i) for i in order if not positive or scores[i] > 0]


def index_legs(
    index: UserIndex,
    *,
    vector: np.ndarray,
    words: str | None,
    session: str | None,
    query: str | None = None,
    names: set[str] | None = None,
    k: int = 10,
) -> tuple[dict[str, list[tuple[int, float]]], np.ndarray, dict[int, dict[str, float]]]:
    """leg → [(unit position, leg score)], best first; and every unit's cosine. ``words``:
    the keyword query (None: no keyword legs); ``session``: keep to that session's units.
    With ``query`` (and RANKER), one leg: the ranker's best CANDIDATES units, or two a result
    for a large ``k`` (a turn's units fold into one result), with the features it weighed for
    each (the third value, by unit position)."""
    similarity = index.matrix @ vector if index.unit_ids else np.zeros(0, np.float32)
    allowed = _allowed(index, session)
    if RANKER and query is not None:
        scores, features = unit_scores(index, similarity=similarity, words=words, query=query,
                                       names=names or set())  # fmt: skip
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        top = _top(scores, max(CANDIDATES, 2 * k), False)
        ranked = [(i, float(scores[i])) for i in top if np.isfinite(scores[i])]
        return {"ranked": ranked}, similarity, explained(features, [i for i, _ in ranked])
    masked = similarity if allowed is None else np.where(allowed, similarity, -np.inf)
    legs = {"semantic": [(i, float(similarity[i])) for i in _top(masked, CANDIDATES, False)
                         if allowed is None or allowed[i]]}  # fmt: skip
    legs.update(keyword_legs(index, words=words, session=session, allowed=allowed))
    if DATE_LEG and query is not None and (said := said_then(query, index.dates)) is not None:
        if allowed is not None:
            said &= allowed
        if said.any():
            dated = np.where(said, similarity, -np.inf)
            legs["date"] = [
                (i, float(similarity[i])) for i in _top(dated, DATE_CANDIDATES, False) if said[i]
            ]
    return legs, similarity, {}


def _allowed(index: UserIndex, session: str | None) -> np.ndarray | None:
    """Per unit: made in ``session`` (None: no session filter)."""
    if session is None:
        return None
    # dtype: with no unit the list is empty, and an empty array is float (``&`` refuses it).
    return np.array(
        [span is not None and span[0] == session for span in index.unit_turns], dtype=bool
    )


def keyword_legs(
    index: UserIndex, *, words: str | None, session: str | None, allowed: np.ndarray | None = None
) -> dict[str, list[tuple[int, float]]]:
    """The turn keyword and keyword legs (no vector needed: a heavy user's window has none)."""
    if not words:
        return {}
    if allowed is None and session is not None:
        allowed = _allowed(index, session)
    legs = {"turn_keyword": _turn_keyword(index, words, session)}
    # The units' own words count only for units whose turns are gone: made from the turns,
    # they say the same words, and counted twice they outweighed the meaning (ADR 0010:
    # R@8 0.667 -> 0.692 without them).
    scores = np.where(index.orphans() if allowed is None else index.orphans() & allowed,
                      index.units.scores(words), 0.0)  # fmt: skip
    if scores.any():
        legs["keyword"] = [(i, float(scores[i])) for i in _top(scores, CANDIDATES, True)]
    return legs


def _turn_keyword(index: UserIndex, words: str, session: str | None) -> list[tuple[int, float]]:
    """BM25 over the raw turns (the words as said), each matching turn crediting the units made
    from it with its score; a unit keeps its best turn's."""
    scores = _turn_scores(index, words, session)
    best: dict[int, float] = {}
    for turn in _top(scores, TURN_CANDIDATES, True):
        for unit in index.by_turn.get(index.turn_keys[turn], []):
            best[unit] = max(best.get(unit, 0.0), float(scores[turn]))
    ranked = sorted(best.items(), key=lambda kv: (-kv[1], index.unit_ids[kv[0]]))
    return ranked[:CANDIDATES]


def _turn_scores(index: UserIndex, text: str, session: str | None) -> np.ndarray:
    """BM25 of ``text`` over the held turns; 0 for turns of another session than ``session``."""
    scores = index.turns.scores(text)
    if session is not None:
        scores = np.where([k[0] == session for k in index.turn_keys], scores, 0.0)
    return scores


def index_hits(
    index: UserIndex,
    legs: dict[str, list[tuple[int, float]]],
    similarity: np.ndarray | None,
    *,
    scope: list[int],
    vector: str | None = None,
    details: dict[int, dict[str, float]] | None = None,
) -> dict[str, list[Hit]]:
    """The legs as hits: one read of the rows of every unit any leg chose. Each hit's cosine
    from ``similarity`` (per unit position), or, for a window without vectors, computed in
    that read against ``vector``; ``details``: what explain shows of a unit's leg score (the
    ranker's features)."""
    positions = sorted({p for ranked in legs.values() for p, _ in ranked})
    if not positions:
        return {leg: [] for leg in legs}
    cosine = "1 - (embedding <=> %s::vector)" if similarity is None else "NULL"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, text, session_id, first_seq, last_seq, occurred_at, {cosine} FROM memory_acu "  # noqa: S608 (constants)
            "WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s AND id = ANY(%s)",
            [*([vector] if similarity is None else []), *scope, [index.unit_ids[p] for p in positions]],
        )  # fmt: skip
        rows: dict[int, tuple[Any, ...]] = {int(r[0]): r for r in cursor.fetchall()}
    out: dict[str, list[Hit]] = {}
    for leg, ranked in legs.items():
        hits = []
        for position, score in ranked:
            row = rows.get(index.unit_ids[position])
            if row is None:
                continue  # deleted since the index was read
            cos = float(similarity[position]) if similarity is not None else float(row[6] or 0.0)
            hit = Hit(f"acu:{row[0]}", "acu", row[1], row[5], str(row[2]) if row[2] else None,
                      turn_refs(row[2], row[3], row[4]), similarity=cos)  # fmt: skip
            if leg != "semantic":
                hit.legs[leg] = {"score": round(score, 4), **(details or {}).get(position, {})}
            hits.append(hit)
        out[leg] = hits
    return out


def window_fallback(
    index: UserIndex,
    *,
    query: str,
    session: str | None,
    limit: int,
    exclude: set[str],
    scope: list[int],
) -> list[Hit]:
    """The turn-log fallback for a heavy user: BM25 over their window's turns (the SQL one read
    tens of thousands of matching rows of theirs: 67 ms at p95 for 10^5 units, ADR 0029), then
    one read of the best ``limit`` turns' rows by (session, seq)."""
    scores = _turn_scores(index, query, session)
    chosen = [(index.turn_keys[t], float(scores[t])) for t in _top(scores, limit * 3, True)]
    chosen = [(key, score) for key, score in chosen if f"{key[0]}:{key[1]}" not in exclude][:limit]
    if not chosen:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.id, t.text, t.session_id, t.seq, t.occurred_at, t.role FROM memory_turn t "
            "JOIN unnest(%s::uuid[], %s::bigint[]) AS k(session_id, seq) "
            "ON t.session_id = k.session_id AND t.seq = k.seq "
            "WHERE t.tenant_id = %s AND t.agent_id = %s AND t.end_user_id = %s",
            [[key[0] for key, _ in chosen], [key[1] for key, _ in chosen], *scope],
        )
        rows = {(str(r[2]), int(r[3])): r for r in cursor.fetchall()}
    return [turn_hit(rows[key], score) for key, score in chosen if key in rows]
