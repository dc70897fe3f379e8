from __future__ import annotations

import ast
import datetime
from pathlib import Path
from typing import Any

import pytest

from memory.embedding import embed
from memory.models import EndUser
from memory.search import memory_search
from memory.search.legs import LANGUAGES, fallback_leg, turn_keyword_leg, turn_vector_sql
from memory.services import (
    TurnIn,
    acu_create_many,
    entity_upsert,
    hot_document_load,
    session_open,
    turn_append,
)
from schemas.models import Agent
from schemas.services import agent_settings_update

UTC = datetime.UTC
MARCH = datetime.datetime(2026, 3, 3, 10, tzinfo=UTC)
MAY = datetime.datetime(2026, 5, 9, 10, tzinfo=UTC)


def _units(agent: Agent, user: EndUser, *items: tuple[str, datetime.datetime], seq: int = 1) -> str:
    hot_document_load(agent=agent, end_user=user)
    session = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk).id
    vectors = embed([text for text, _ in items])
    acu_create_many(agent=agent, end_user=user, units=[
        {"text": text, "embedding": vector, "session_id": session, "first_seq": seq + i, "last_seq": seq + i,
         "occurred_at": when, "content_hash": f"h{seq + i}-{abs(hash(text))}"}
        for i, ((text, when), vector) in enumerate(zip(items, vectors, strict=True))
    ])  # fmt: skip
    return str(session)


def _texts(result: Any) -> list[str]:
    return [hit.text for hit in result.hits]


UNITS = [
    ("On 3 March 2026, Priya adopted a puppy named Oscar.", MARCH),
    ("On 3 March 2026, Priya wants a flat near the Baner metro station.", MARCH),
    ("On 3 March 2026, Priya works as a nurse at Ruby Hall.", MARCH),
    ("On 3 March 2026, Priya's sister lives in Delhi.", MARCH),
]


def test_semantic_leg_alone_finds_the_meaning(advisor: Agent, priya: EndUser) -> None:
    agent_settings_update(agent=advisor, changes={"hybrid_search": False}, actor="t")
    _units(advisor, priya, *UNITS)
    result = memory_search(agent=advisor, end_user=priya, query="Does she have any pets?", k=3)
    assert _texts(result)[0] == UNITS[0][0]
    assert set(result.hits[0].legs) == {"semantic", "recency"}


def test_keyword_leg_alone_finds_the_exact_name(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, *UNITS)
    result = memory_search(agent=advisor, end_user=priya, query="Baner", k=4)
    top = result.hits[0]
    assert top.text == UNITS[1][0] and top.legs["keyword"]["rank"] == 1
    assert sum("keyword" in hit.legs for hit in result.hits) == 1  # only that unit names Baner


def test_fusion_puts_what_both_legs_found_first(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, *UNITS)
    result = memory_search(
        agent=advisor, end_user=priya, query="where does Priya work as a nurse", k=4
    )
    assert result.hits[0].text == UNITS[2][0]
    assert {"semantic", "keyword"} <= set(result.hits[0].legs)
    assert result.hits[0].score > result.hits[1].score and result.hits[0].confidence == "high"


def test_recency_prior_breaks_ties_toward_the_newer(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, ("On 3 March 2026, Priya went hiking in the hills.", MARCH),
           ("On 9 May 2026, Priya went hiking in the hills.", MAY))  # fmt: skip
    agent_settings_update(agent=advisor, changes={"search_recency_weight": 2.0}, actor="t")
    newer_first = memory_search(agent=advisor, end_user=priya, query="hiking", k=2)
    assert _texts(newer_first)[0].startswith("On 9 May 2026")
    assert newer_first.hits[0].legs["recency"]["rank"] == 1


def test_weak_memory_falls_back_to_the_turn_log_ranked_last_and_low(
    advisor: Agent, priya: EndUser
) -> None:
    _units(advisor, priya, *UNITS[:2])
    session = session_open(
        tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk
    ).id
    turn_append(tenant_id=advisor.tenant_id, session_id=session,
                turns=[TurnIn("user", "The plumber Ramesh fixes the geyser on Tuesday.", occurred_at=MAY)])  # fmt: skip
    result = memory_search(agent=advisor, end_user=priya, query="plumber geyser", k=5)
    assert result.fallback
    turn_hits = [hit for hit in result.hits if hit.source == "turn"]
    assert turn_hits and "Ramesh" in turn_hits[0].text and turn_hits[0].confidence == "low"
    assert turn_hits[0].turns == [{"session": str(session), "seq": 1}]
    acu_scores = [hit.score for hit in result.hits if hit.source == "acu"]
    assert all(hit.score < min(acu_scores) for hit in turn_hits)
    assert result.hits[-1].source == "turn"


def test_explain_gives_each_legs_rank_and_score(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, *UNITS)
    body = (
        memory_search(agent=advisor, end_user=priya, query="Baner metro flat", k=2)
        .hits[0]
        .body(explain=True)
    )
    assert body["explain"]["legs"]["semantic"]["rank"] == 1
    assert (
        body["explain"]["legs"]["keyword"]["rank"] == 1
        and body["explain"]["legs"]["keyword"]["score"] > 0
    )
    assert 0 < body["explain"]["similarity"] <= 1 and body["explain"]["fused"] > 0


def test_a_superseded_value_is_never_a_high_confidence_current_fact(
    advisor: Agent, priya: EndUser
) -> None:
    entity_upsert(
        agent=advisor,
        end_user=priya,
        key="budget",
        value={"amount": 5_000_000, "currency": "INR"},
        valid_from=MARCH,
        actor="t",
    )
    entity_upsert(
        agent=advisor,
        end_user=priya,
        key="budget",
        value={"amount": 8_000_000, "currency": "INR"},
        valid_from=MAY,
        actor="t",
    )
    _units(advisor, priya, ("On 3 March 2026, Priya's budget is 50 lakhs.", MARCH),
           ("On 9 May 2026, Priya's budget is 80 lakhs.", MAY))  # fmt: skip
    result = memory_search(agent=advisor, end_user=priya, query="What is Priya's budget?", k=5)
    facts = [hit for hit in result.hits if hit.source == "entity"]
    assert [hit.text for hit in facts] == ["budget: ₹80 lakh (current, as of 2026-05-09)"]
    assert facts[0].confidence == "high"
    old = next(hit for hit in result.hits if "50 lakhs" in hit.text)
    assert old.stale and old.confidence != "high"
    assert old.note == "as of 2026-03-03; budget has changed since (now ₹80 lakh)"
    assert not next(hit for hit in result.hits if "80 lakhs" in hit.text).stale


def test_one_users_search_never_returns_anothers_memory(
    advisor: Agent, priya: EndUser, tenant_a: Any
) -> None:
    other = EndUser.objects.create(tenant=tenant_a, external_id="rahul")
    _units(advisor, other, ("On 3 March 2026, Rahul adopted a puppy named Oscar.", MARCH), seq=1)
    session = session_open(
        tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=other.pk
    ).id
    turn_append(
        tenant_id=advisor.tenant_id,
        session_id=session,
        turns=[TurnIn("user", "My puppy Oscar chews shoes.")],
    )
    _units(advisor, priya, UNITS[2])
    result = memory_search(agent=advisor, end_user=priya, query="puppy named Oscar", k=10)
    assert all("Oscar" not in hit.text and "Rahul" not in hit.text for hit in result.hits)


@pytest.mark.parametrize("query", ["", "   "])
def test_blank_query_finds_nothing_weird(advisor: Agent, priya: EndUser, query: str) -> None:
    _units(advisor, priya, UNITS[0])
    result = memory_search(agent=advisor, end_user=priya, query=query or "?", k=3)
    assert len(result.hits) <= 3


def test_a_question_about_one_participant_prefers_what_they_said(
    advisor: Agent, priya: EndUser
) -> None:
    hot_document_load(agent=advisor, end_user=priya)
    session = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk,
                           metadata={"participants": {"user": "Caroline", "assistant": "Melanie"}}).id  # fmt: skip
    texts = ["On 3 March 2026, Melanie painted a sunset over the lake.",
             "On 3 March 2026, Caroline painted a sunset over the lake."]  # fmt: skip
    vectors = embed(texts)
    acu_create_many(agent=advisor, end_user=priya, units=[
        {"text": t, "embedding": v, "session_id": session, "first_seq": i + 1, "last_seq": i + 1,
         "occurred_at": MARCH, "content_hash": f"subject-{i}"} for i, (t, v) in enumerate(zip(texts, vectors, strict=True))
    ])  # fmt: skip
    for who in ("Caroline", "Melanie"):
        result = memory_search(agent=advisor, end_user=priya, query=f"What did {who} paint?", k=2)
        assert result.hits[0].text.startswith(f"On 3 March 2026, {who}"), who
        assert "subject" in result.hits[0].legs


def test_the_turn_vector_of_each_allowed_language() -> None:
    assert "english" in LANGUAGES and len(LANGUAGES) > 1
    for language in LANGUAGES - {"english"}:
        assert turn_vector_sql(language) == f"to_tsvector('{language}'::regconfig, t.text)"
    assert turn_vector_sql("english") == "t.text_search"


@pytest.mark.parametrize(
    "language", ["klingon", "English", "", "german'::regconfig, t.text) OR true --"]
)
def test_a_language_outside_the_choices_is_refused_not_inlined(language: str) -> None:
    with pytest.raises(ValueError, match="search_language"):
        turn_vector_sql(language)


def test_the_turn_legs_refuse_a_bad_language_before_any_sql(
    advisor: Agent, priya: EndUser, django_assert_num_queries: Any
) -> None:
    advisor.search_language = "english'::regconfig, t.text) OR true --"  # never saved
    scope: dict[str, Any] = {"agent": advisor, "user": priya, "session": None}
    with django_assert_num_queries(0):
        with pytest.raises(ValueError):
            fallback_leg(**scope, query="budget", limit=3, exclude=set())
        with pytest.raises(ValueError):
            turn_keyword_leg(**scope, words="budget", vector="[0]")


def test_search_guards_with_checks_that_raise_not_asserts() -> None:
    """``python -O`` strips asserts: a guard in search must be an ``if … raise``."""
    package = Path(__file__).resolve().parents[2] / "memory" / "search"
    modules = sorted(package.glob("*.py"))
    assert modules
    asserts = [f"{path.name}:{node.lineno}" for path in modules
               for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Assert)]  # fmt: skip
    assert asserts == []


def test_an_erase_leaves_no_query_or_name_of_the_user_in_the_process_caches() -> None:
    from memory.search import cache

    cache.query_cache.items["what is priya's budget"] = cache.np.zeros(3)
    cache._participants_seen[(1, 42)] = (0.0, {"priya"})
    cache._participants_seen[(1, 43)] = (0.0, {"rajiv"})
    cache.search_cache_forget_user(end_user_id=42)
    assert "what is priya's budget" not in cache.query_cache.items
    assert (1, 42) not in cache._participants_seen and (1, 43) in cache._participants_seen
