"""The in-process legs: BM25, the date test, the per-user index and how it stays current."""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pytest

from memory.embedding import embed
from memory.hot.document import hot_document_rebuild
from memory.models import ACU, EndUser, Session
from memory.search import memory_search
from memory.search.bm25 import Bm25, stem, tokens
from memory.search.dates import date_test
from memory.search.index import UserIndex, search_start, user_index
from memory.services import TurnIn, acu_create_many, hot_document_load, session_open, turn_append
from schemas.models import Agent

UTC = datetime.UTC
MAY = datetime.datetime(2023, 5, 8, 13, tzinfo=UTC)
JULY = datetime.datetime(2023, 7, 20, 13, tzinfo=UTC)


def test_stemming_folds_the_usual_endings() -> None:
    assert {stem(w) for w in ("painting", "painted", "paints", "paint")} == {"paint"}
    assert tokens("What did the kids paint?") == ["kid", "paint"]


def test_bm25_weighs_a_rare_word_over_a_common_one() -> None:
    bm25 = Bm25()
    for text in [
        "I like the beach",
        "I like pottery",
        "I like hiking",
        "the pottery class was fun",
    ]:
        bm25.add(text)
    scores = bm25.scores("like pottery")
    assert scores.argmax() in (1, 3) and scores[0] < scores[1] and scores[2] < scores[3]
    assert bm25.scores("volcano").sum() == 0


def test_bm25_grows_after_it_has_scored() -> None:
    """Postings are C arrays: scoring must not leave a view on them that stops them growing."""
    bm25 = Bm25()
    bm25.add("the pottery class")
    first = bm25.scores("pottery")
    bm25.add("pottery again, pottery always")
    scores = bm25.scores("pottery")
    assert len(first) == 1 and len(scores) == 2 and scores[1] > scores[0] > 0


def test_dates_in_a_query_become_tests_on_the_day() -> None:
    day = date_test("What painting did Melanie show on October 13, 2023?")
    assert day is not None and day(datetime.date(2023, 10, 13)) and day(datetime.date(2023, 10, 15))
    assert not day(datetime.date(2023, 10, 20))
    assert date_test("What did she paint on 1 February, 2023?")(datetime.date(2023, 2, 1))  # type: ignore[misc]
    month = date_test("When did Melanie go camping in July?")
    assert (
        month is not None
        and month(datetime.date(2022, 7, 3))
        and not month(datetime.date(2023, 6, 30))
    )
    assert date_test("What is her favourite food?") is None


def _said(agent: Agent, user: EndUser, lines: list[tuple[str, datetime.datetime]]) -> Session:
    """Turns said at those times, one unit each (as the rules extractor makes them)."""
    hot_document_load(agent=agent, end_user=user)
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    turn_append(tenant_id=agent.tenant_id, session_id=opened.id,
                turns=[TurnIn(role="user", text=t, occurred_at=w) for t, w in lines])  # fmt: skip
    units = [f"On {w.day} {w:%B %Y}, Priya said: {t}" for t, w in lines]
    acu_create_many(agent=agent, end_user=user, units=[
        {"text": u, "embedding": v, "session_id": opened.id, "first_seq": i + 1, "last_seq": i + 1,
         "occurred_at": w, "content_hash": f"idx-{i}-{abs(hash(u))}"}
        for i, (u, v, (_, w)) in enumerate(zip(units, embed(units), lines, strict=True))])  # fmt: skip
    hot_document_rebuild(agent=agent, end_user=user)  # as an extraction run does
    return Session.objects.get(pk=opened.id, tenant_id=agent.tenant_id)


def _index(agent: Agent, user: EndUser) -> UserIndex:
    state, _ = search_start(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk,
                            now=datetime.datetime.now(UTC))  # fmt: skip
    return user_index(
        tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk, state=state
    )


def test_the_index_takes_appends_and_reloads_after_a_rebuild(
    advisor: Agent, priya: EndUser
) -> None:
    session = _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY)])
    index = _index(advisor, priya)
    assert (len(index.unit_ids), len(index.turn_keys)) == (1, 1)
    turn_append(tenant_id=advisor.tenant_id, session_id=session.pk,
                turns=[TurnIn(role="user", text="Oscar chewed my shoes.")])  # fmt: skip
    assert _index(advisor, priya) is index and len(index.turn_keys) == 2  # appended, not reloaded
    ACU.objects.filter(tenant_id=advisor.tenant_id, end_user=priya).delete()
    hot_document_rebuild(agent=advisor, end_user=priya)  # a forget or a run rebuilds
    assert len(_index(advisor, priya).unit_ids) == 0
    assert np.allclose(index.matrix.shape, (0, 384))


def test_a_named_month_prefers_what_was_said_that_month(advisor: Agent, priya: EndUser) -> None:
    _said(advisor, priya, [("We went camping by the lake with the kids.", MAY),
                           ("We went camping by the river with the kids.", JULY)])  # fmt: skip
    for month, place in (("July", "river"), ("May", "lake")):
        result = memory_search(
            agent=advisor, end_user=priya, query=f"Where did Priya go camping in {month}?", k=2
        )
        assert place in result.hits[0].text, month
        assert [h.legs["ranked"]["date"] for h in result.hits] == [1, 0]


def test_a_unit_whose_turns_are_gone_is_found_by_its_own_words(
    advisor: Agent, priya: EndUser
) -> None:
    hot_document_load(agent=advisor, end_user=priya)
    text = "On 8 May 2023, Priya booked the Baner flat visit."
    acu_create_many(agent=advisor, end_user=priya, units=[
        {"text": text, "embedding": embed([text])[0], "session_id": None, "first_seq": None,
         "last_seq": None, "occurred_at": MAY, "content_hash": "orphan-1"}])  # fmt: skip
    hot_document_rebuild(agent=advisor, end_user=priya)
    result = memory_search(agent=advisor, end_user=priya, query="Baner", k=3)
    assert result.hits[0].text == text and result.hits[0].legs["ranked"]["rank"] == 1
    assert result.hits[0].legs["ranked"]["turn_bm25"] == 1.0  # its own words, over the best


def test_an_erased_user_leaves_no_index_behind(advisor: Agent, priya: EndUser) -> None:
    from memory.search import search_cache_forget_user
    from memory.search.index import _indexes

    _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY)])
    _index(advisor, priya)
    assert any(key[2] == priya.pk for key in _indexes)
    search_cache_forget_user(end_user_id=priya.pk)
    assert not any(key[2] == priya.pk for key in _indexes)


def test_a_heavy_user_is_held_as_a_window_of_their_newest_rows(
    advisor: Agent, priya: EndUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over MAX_USER_ROWS: meaning by SQL over all their units, words by BM25 over their newest
    WINDOW turns and units (no vectors held); appends join the window, a rebuild reloads it."""
    import memory.search.index as index_module

    monkeypatch.setattr(index_module, "MAX_USER_ROWS", 1)
    monkeypatch.setattr(index_module, "WINDOW", 2)
    session = _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY),
                                     ("The Baner flat has a west view.", JULY),
                                     ("The Wakad flat has a gym downstairs.", JULY)])  # fmt: skip
    index = _index(advisor, priya)
    assert index.window and len(index.vectors) == 0
    assert (len(index.unit_ids), len(index.turn_keys)) == (2, 2)  # the newest two of each
    result = memory_search(agent=advisor, end_user=priya, query="Baner flat view", k=2)
    assert "Baner" in result.hits[0].text and "turn_keyword" in result.hits[0].legs
    assert result.hits[0].similarity is not None and result.hits[0].similarity > 0.2
    assert {"semantic_ms", "rank_ms", "rows_ms"} <= set(result.timings)
    oscar = memory_search(agent=advisor, end_user=priya, query="Oscar the puppy", k=3)
    assert "Oscar" in oscar.hits[0].text  # older than the window: found by meaning
    assert "turn_keyword" not in oscar.hits[0].legs and "keyword" not in oscar.hits[0].legs
    turn_append(tenant_id=advisor.tenant_id, session_id=session.pk,
                turns=[TurnIn(role="user", text="Oscar chewed my shoes.")])  # fmt: skip
    assert _index(advisor, priya) is index and len(index.turn_keys) == 3  # appended
    import memory.search.pipeline as pipeline_module

    def sql_fallback(**_: object) -> None:
        raise AssertionError("a heavy user's fallback reads their window, not the turn log")

    monkeypatch.setattr(pipeline_module, "fallback_leg", sql_fallback)
    chewed = memory_search(agent=advisor, end_user=priya, query="who chewed my shoes", k=3)
    turns = [h for h in chewed.hits if h.source == "turn"]  # no unit says it yet: the fallback
    assert chewed.fallback and turns and turns[0].text.endswith("said: Oscar chewed my shoes.")
    hot_document_rebuild(agent=advisor, end_user=priya)
    assert len(_index(advisor, priya).turn_keys) == 2  # reloaded: the newest two again


def test_a_user_who_grows_heavy_is_held_as_a_window_from_then_on(
    advisor: Agent, priya: EndUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memory.search.index as index_module

    session = _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY)])
    index = _index(advisor, priya)
    assert not index.window and len(index.vectors) == 1
    monkeypatch.setattr(index_module, "MAX_USER_ROWS", 2)
    turn_append(tenant_id=advisor.tenant_id, session_id=session.pk,
                turns=[TurnIn(role="user", text="Oscar chewed my shoes.")])  # fmt: skip
    assert _index(advisor, priya).window and len(index.vectors) == 0


def test_a_session_search_of_a_user_with_turns_but_no_units_answers(
    advisor: Agent, priya: EndUser
) -> None:
    """A voice agent's recall searches the call's session before any extraction ran: the index
    holds turns and no unit (the session filter was an empty float array, and ``&`` with the
    empty boolean orphans raised: a 500)."""
    hot_document_load(agent=advisor, end_user=priya)
    opened = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk)
    turn_append(tenant_id=advisor.tenant_id, session_id=opened.id,
                turns=[TurnIn(role="user", text="Our budget is 80 lakhs.")])  # fmt: skip
    result = memory_search(agent=advisor, end_user=priya, query="budget", k=3,
                           session=str(opened.id))  # fmt: skip
    assert [hit.source for hit in result.hits] == ["turn"]
    assert result.hits[0].text.endswith("said: Our budget is 80 lakhs.")


def test_nearest_stored_units_for_many_vectors_in_one_statement(
    advisor: Agent, priya: EndUser, django_assert_num_queries: Any
) -> None:
    """The run's dedup asks for each new unit's nearest stored ones: one statement for all,
    each vector's answer its own, closest first."""
    from memory.services import acu_nearest

    _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY),
                           ("The Baner flat has a west view.", JULY)])  # fmt: skip
    queries = embed(["Our puppy is called Oscar.", "A flat in Baner facing west.", "Tax forms"])
    with django_assert_num_queries(1):
        nearest = acu_nearest(agent=advisor, end_user=priya, vectors=list(queries), k=2)
    assert [len(n) for n in nearest] == [2, 2, 2]
    assert "Oscar" in nearest[0][0][0] and "Baner" in nearest[1][0][0]
    assert nearest[0][0][1] > nearest[0][1][1] and nearest[0][0][1] > 0.5
    assert acu_nearest(agent=advisor, end_user=priya, vectors=[], k=2) == []
