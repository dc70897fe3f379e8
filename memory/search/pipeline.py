"""``memory_search``: embed the query, run the legs, fuse, mark what is stale, and fall back to
the turn log when what was found is weak."""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from django.utils import timezone

from memory.embedding import vector_literal
from memory.models import EndUser, Entity, Session
from memory.search import fusion
from memory.search.cache import participants, query_cache
from memory.search.hits import Hit, SearchResult, turn_ref_keys
from memory.search.index import UserIndex, search_start, user_index
from memory.search.index_legs import index_hits, index_legs, keyword_legs, window_fallback
from memory.search.legs import (
    facts_leg,
    fallback_leg,
    keyword_leg,
    keyword_query,
    semantic_leg,
    superseded_history,
    turn_keyword_leg,
)
from memory.search.resolve import references_find
from memory.search.vector_index import users_with_index, vector_index_request
from schemas.models import Agent

IN_PROCESS = True  # False: every search by the SQL legs (how ADR 0010 compared the two)


def memory_search(
    *,
    agent: Agent,
    end_user: EndUser,
    query: str,
    k: int = 10,
    session: str | None = None,
    now: datetime.datetime | None = None,
    resolve_in: Session | None = None,
    facts: bool = True,
) -> SearchResult:
    """The best ``k`` hits for ``query``; ``session`` keeps the legs to that session's memory;
    ``facts``: False leaves the current facts out (a context pack has them already);
    ``resolve_in`` resolves references in the query against that session (its recent turns,
    the user's previous session, the facts): what the query points at leads the results, and
    its words join the query the legs search with."""
    now = now or timezone.now()
    timings: dict[str, float] = {}
    with _timed(timings, "start_ms"):
        state, current_facts = search_start(
            tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=end_user.pk, now=now
        )
    referents = None
    if resolve_in is not None:
        with _timed(timings, "resolve_ms"):
            referents = references_find(session=resolve_in, query=query, facts=current_facts)
        query = referents.query
    with _timed(timings, "embed_ms"):
        vector = query_cache.get(query)
    with _timed(timings, "legs_ms"):
        legs, window = _legs_run(
            agent,
            end_user,
            query,
            vector,
            session,
            current_facts if facts else None,
            state,
            timings,
            k,
        )
    with _timed(timings, "fuse_ms"):
        ranked = _fuse(agent, end_user, query, legs, k)
    with _timed(timings, "stale_ms"):
        _stale_mark(agent, end_user, ranked, current_facts)
    fallback = fusion.fallback_due(
        ranked,
        threshold=agent.search_confidence_threshold,
        min_results=agent.cold_fallback_min_results,
    )
    if fallback:
        with _timed(timings, "fallback_ms"):
            ranked = _fallback_add(agent, end_user, query, session, ranked, k, window)
    if referents is not None and referents.hits:
        # After the fallback: its turns take the weakest search hits' places, never a referent's.
        ranked = _referents_first(referents.hits, ranked, k)
    return SearchResult(ranked, fusion.overall_confidence(ranked), fallback, timings)


@contextmanager
def _timed(timings: dict[str, float], name: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    timings[name] = round((time.perf_counter() - started) * 1000, 2)


def _legs_run(
    agent: Agent,
    user: EndUser,
    query: str,
    vector: np.ndarray,
    session: str | None,
    current_facts: list[Entity] | None,
    state: tuple[int, int],
    timings: dict[str, float],
    k: int,
) -> tuple[dict[str, list[Hit]], UserIndex | None]:
    """Each leg's hits, best first; each leg's time goes into ``timings`` (ADR 0010's
    profile). Over the user's in-process index when it can hold them (english), else in SQL;
    and a heavy user's window index (for the fallback), if that is what they have."""
    words = keyword_query(query, participants(agent, user)) if agent.hybrid_search else ""
    index = None
    if IN_PROCESS and agent.search_language == "english":
        with _timed(timings, "index_ms"):
            index = user_index(
                tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk, state=state
            )
    scope = [agent.tenant_id, agent.pk, user.pk]
    if index is not None and not index.window:
        with _timed(timings, "rank_ms"), index.lock:
            ranked, similarity, details = index_legs(index, vector=vector, words=words or None,
                                                     session=session, query=query, k=k,
                                                     names=participants(agent, user))  # fmt: skip
        with _timed(timings, "rows_ms"):
            legs = index_hits(index, ranked, similarity, scope=scope, details=details)
    elif index is not None:
        # A heavy user (ADR 0029): meaning over all their units by their own HNSW index, words
        # over the newest of their turns and units in process.
        literal = vector_literal(vector)
        legs = _sql_legs(agent, user, literal, "", session, timings, heavy=True)
        with _timed(timings, "rank_ms"), index.lock:
            ranked = keyword_legs(index, words=words or None, session=session)
        with _timed(timings, "rows_ms"):
            legs.update(index_hits(index, ranked, None, scope=scope, vector=literal))
    else:
        legs = _sql_legs(agent, user, vector_literal(vector), words, session, timings)
    legs["facts"] = (
        [] if session or current_facts is None else facts_leg(current=current_facts, query=query)
    )
    return legs, index if index is not None and index.window else None


def _sql_legs(
    agent: Agent,
    user: EndUser,
    vector: str,
    words: str,
    session: str | None,
    timings: dict[str, float],
    heavy: bool = False,
) -> dict[str, list[Hit]]:
    legs: dict[str, list[Hit]] = {}
    indexed = user.pk in users_with_index()
    if heavy and not indexed:
        vector_index_request(end_user_id=user.pk)  # the exact scan answers until it is built
    with _timed(timings, "semantic_ms"):
        legs["semantic"] = semantic_leg(
            agent=agent, user=user, vector=vector, session=session, indexed=indexed
        )
    if words:
        with _timed(timings, "keyword_ms"):
            legs["keyword"] = keyword_leg(
                agent=agent, user=user, words=words, vector=vector, session=session
            )
        with _timed(timings, "turn_keyword_ms"):
            legs["turn_keyword"] = turn_keyword_leg(
                agent=agent, user=user, words=words, vector=vector, session=session
            )
    return legs


def _referents_first(referents: list[Hit], ranked: list[Hit], k: int) -> list[Hit]:
    """What the query points at, then the search's hits that cover other turns and facts."""
    taken = fusion.covered_turns(referents) | {h.id for h in referents}
    rest = [h for h in ranked if h.id not in taken and not (set(turn_ref_keys(h)) & taken)]
    return (referents + rest)[:k]


def _fuse(agent: Agent, user: EndUser, query: str, legs: dict[str, list[Hit]], k: int) -> list[Hit]:
    merged = fusion.rrf_fuse(legs)
    if "ranked" not in legs:  # the ranker weighs the subject itself
        fusion.subject_prior(merged, query, participants(agent, user))
    fusion.recency_prior(merged, agent.search_recency_weight)
    return fusion.top_k(
        merged, legs=fusion.legs_weight(legs), recency_weight=agent.search_recency_weight, k=k
    )


def _stale_mark(agent: Agent, user: EndUser, ranked: list[Hit], current: list[Entity]) -> None:
    if not fusion.names_a_fact(ranked, current):
        return  # the facts' history is read only when a unit names a fact
    fusion.stale_mark(ranked, superseded_history(agent=agent, user=user), current)


def _fallback_add(
    agent: Agent,
    user: EndUser,
    query: str,
    session: str | None,
    ranked: list[Hit],
    k: int,
    window: UserIndex | None = None,
) -> list[Hit]:
    """``window``: a heavy user's index, whose turns the fallback searches in process."""
    room, covered = fusion.fallback_room(ranked, k), fusion.covered_turns(ranked)
    if window is not None:
        with window.lock:
            extra = window_fallback(window, query=query, session=session, limit=room,
                                    exclude=covered, scope=[agent.tenant_id, agent.pk, user.pk])  # fmt: skip
    else:
        extra = fallback_leg(agent=agent, user=user, query=query, session=session, limit=room,
                             exclude=covered)  # fmt: skip
    return fusion.fallback_append(ranked, extra, k)
