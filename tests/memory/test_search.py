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


@pytest.fixture
def fused_legs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The legs fused by rank, as for a heavy user or another language (no ranker)."""
    import memory.search.index_legs

    monkeypatch.setattr(memory.search.index_legs, "RANKER", False)


def _ranked(hit: Any) -> dict[str, float]:
    return dict(hit.legs["ranked"])


@pytest.mark.parametrize("ranker", [True, False])
def test_without_words_the_meaning_alone_finds_it(
    advisor: Agent, priya: EndUser, ranker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memory.search.index_legs

    monkeypatch.setattr(memory.search.index_legs, "RANKER", ranker)
    agent_settings_update(agent=advisor, changes={"hybrid_search": False}, actor="t")
    _units(advisor, priya, *UNITS)
    result = memory_search(agent=advisor, end_user=priya, query="Does she have any pets?", k=3)
    assert _texts(result)[0] == UNITS[0][0]
    if ranker:
        assert set(result.hits[0].legs) == {"ranked", "recency"}
        assert _ranked(result.hits[0])["turn_bm25"] == 0 and _ranked(result.hits[0])["cosine"] > 0.3
    else:
        assert set(result.hits[0].legs) == {"semantic", "recency"}


def test_the_ranker_finds_the_exact_name_by_its_words(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, *UNITS)
    result = memory_search(agent=advisor, end_user=priya, query="Baner", k=4)
    assert result.hits[0].text == UNITS[1][0] and result.hits[0].legs["ranked"]["rank"] == 1
    # Only that unit names Baner (these units' turns are not in the log: their own words count).
    assert [_ranked(h)["turn_bm25"] > 0 for h in result.hits] == [True, False, False, False]


def test_the_ranker_puts_meaning_and_words_together_first(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, *UNITS)
    result = memory_search(
        agent=advisor, end_user=priya, query="where does Priya work as a nurse", k=4
    )
    top = result.hits[0]
    assert top.text == UNITS[2][0] and _ranked(top)["turn_bm25"] == 1.0
    assert top.score > result.hits[1].score and top.confidence == "high"


def test_the_answer_two_turns_after_the_subject_is_found(advisor: Agent, priya: EndUser) -> None:
    """The turn that answers seldom names the subject: "I loved the Becoming Nicole book" /
    "What did you take from it?" / "Self-acceptance, and that hard times pass." The same answer
    said once after that exchange and once (later) after unrelated turns: the ranker puts the
    one after the exchange first; the legs fused by rank, which see only its own words and
    meaning, prefer the newer."""
    hot_document_load(agent=advisor, end_user=priya)
    answer = "Self-acceptance, mostly, and that hard times do pass."
    said = {MARCH: ["I finally finished reading the Becoming Nicole book last night.",
                    "Oh nice, what did you take away from it?", answer],
            MAY: ["We repainted the kitchen a pale yellow over the weekend.",
                  "The dog has been chewing the sofa cushions again.", answer]}  # fmt: skip
    for when, texts in said.items():
        session = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk,
                               end_user_id=priya.pk, external_id=f"s-{when:%m}").id  # fmt: skip
        turn_append(tenant_id=advisor.tenant_id, session_id=session, turns=[
            TurnIn("user" if i % 2 == 0 else "assistant", t, occurred_at=when) for i, t in enumerate(texts)])  # fmt: skip
        acu_create_many(agent=advisor, end_user=priya, units=[
            {"text": f"On {when.day} {when:%B %Y}, Priya said: {t}", "embedding": v, "session_id": session,
             "first_seq": i + 1, "last_seq": i + 1, "occurred_at": when, "content_hash": f"nicole-{when:%m}-{i}"}
            for i, (t, v) in enumerate(zip(texts, embed(texts), strict=True))])  # fmt: skip
    query = "What did Priya learn from the book Becoming Nicole?"

    def answers(result: Any) -> list[str]:
        return [h.text.split(",")[0] for h in result.hits if answer in h.text]

    ranked = memory_search(agent=advisor, end_user=priya, query=query, k=6)
    assert answers(ranked) == ["On 3 March 2026", "On 9 May 2026"]
    first = next(h for h in ranked.hits if answer in h.text)
    assert _ranked(first)["before_bm25"] == 1.0
    import memory.search.index_legs

    memory.search.index_legs.RANKER = False
    try:
        fused = memory_search(agent=advisor, end_user=priya, query=query, k=6)
    finally:
        memory.search.index_legs.RANKER = True
    assert answers(fused) == ["On 9 May 2026", "On 3 March 2026"]


@pytest.mark.usefixtures("fused_legs")
def test_keyword_leg_alone_finds_the_exact_name(advisor: Agent, priya: EndUser) -> None:
    _units(advisor, priya, *UNITS)
    result = memory_search(agent=advisor, end_user=priya, query="Baner", k=4)
    top = result.hits[0]
    assert top.text == UNITS[1][0] and top.legs["keyword"]["rank"] == 1
    assert sum("keyword" in hit.legs for hit in result.hits) == 1  # only that unit names Baner


@pytest.mark.usefixtures("fused_legs")
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


@pytest.mark.parametrize("ranker", [True, False])
def test_explain_says_why_a_hit_ranks_where_it_does(
    advisor: Agent, priya: EndUser, ranker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranker's features by name; or, for the legs fused by rank, each leg's rank and score."""
    import memory.search.index_legs
    from memory.search.ranker import WEIGHTS

    monkeypatch.setattr(memory.search.index_legs, "RANKER", ranker)
    _units(advisor, priya, *UNITS)
    top = memory_search(agent=advisor, end_user=priya, query="Baner metro flat", k=2).hits[0]
    body = top.body(explain=True)
    legs = body["explain"]["legs"]
    if ranker:
        assert legs["ranked"]["rank"] == 1
        assert set(legs["ranked"]) == {"rank", "score", *(n for n, _ in WEIGHTS)}
        assert legs["ranked"]["turn_bm25"] == 1.0 and legs["ranked"]["cosine_rank"] == 0.0
    else:
        assert legs["semantic"]["rank"] == 1
        assert legs["keyword"]["rank"] == 1 and legs["keyword"]["score"] > 0
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


def test_a_context_pack_searches_units_only_and_fills_its_slots(
    advisor: Agent, priya: EndUser
) -> None:
    """Beside the ranker a current fact weighs most; /v1/context has the facts already and asks
    without them (``facts=False``), so the units it packs are not crowded out."""
    entity_upsert(agent=advisor, end_user=priya, key="budget",
                  value={"amount": 8_000_000, "currency": "INR"}, valid_from=MAY, actor="t")  # fmt: skip
    _units(
        advisor,
        priya,
        *[(f"On 9 May 2026, Priya looked at flat {i} in Baner.", MAY) for i in range(8)],
    )
    query = "What is Priya's budget for a flat in Baner?"
    with_facts = memory_search(agent=advisor, end_user=priya, query=query, k=8)
    assert with_facts.hits[0].source == "entity"
    assert sum(h.source == "acu" for h in with_facts.hits) == 7
    units_only = memory_search(agent=advisor, end_user=priya, query=query, k=8, facts=False)
    assert [h.source for h in units_only.hits] == ["acu"] * 8


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


def _two_painters(advisor: Agent, priya: EndUser) -> None:
    """Caroline and Melanie, each said to have painted the same sunset."""
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


@pytest.mark.parametrize("ranker", [True, False])
def test_a_question_about_one_participant_prefers_what_they_said(
    advisor: Agent, priya: EndUser, ranker: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranker weighs the subject as a feature; the legs fused by rank add a subject prior."""
    import memory.search.index_legs

    monkeypatch.setattr(memory.search.index_legs, "RANKER", ranker)
    _two_painters(advisor, priya)
    for who in ("Caroline", "Melanie"):
        result = memory_search(agent=advisor, end_user=priya, query=f"What did {who} paint?", k=2)
        assert result.hits[0].text.startswith(f"On 3 March 2026, {who}"), who
        if ranker:
            assert [_ranked(h)["subject"] for h in result.hits] == [1, 0]
        else:
            assert "subject" in result.hits[0].legs and "subject" not in result.hits[1].legs


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


def test_the_query_cache_embeds_only_the_texts_it_lacks_in_one_batch() -> None:
    from memory.search import cache

    store = cache._QueryCache(size=3)
    store.items["known"] = cache.np.ones(2)
    batches: list[list[str]] = []

    class Counting:
        def embed(self, texts: list[str]) -> object:
            batches.append(texts)
            return [cache.np.full(2, float(len(t))) for t in texts]

    original = cache.default_embedder
    cache.default_embedder = lambda: Counting()  # type: ignore[assignment]
    try:
        found = store.get_many(["known", "abc", "abcd", "abc"])
    finally:
        cache.default_embedder = original
    assert batches == [["abc", "abcd"]]  # one batch, each missing text once
    assert [float(v[0]) for v in found] == [1.0, 3.0, 4.0, 3.0]
    assert len(store.items) == 3 and "abcd" in store.items  # bounded, the newest kept
