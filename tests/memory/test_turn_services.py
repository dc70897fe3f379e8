from __future__ import annotations

import datetime
import threading
from typing import Any

import pytest
from django.db import connection

from core.errors import Conflict, Invalid, NotFound
from extraction.models import ExtractionRun
from extraction.services import extraction_schedule_if_due
from memory.models import EndUser, HotDocument, Session, Turn
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from memory.tokens import count_tokens
from schemas.models import Agent
from schemas.services import agent_settings_update


@pytest.fixture
def session(advisor: Agent, priya: EndUser) -> Session:
    hot_document_load(agent=advisor, end_user=priya)
    opened = session_open(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk)
    return Session.objects.get(pk=opened.id)


def _append(session: Session, *turns: TurnIn) -> Any:
    return turn_append(tenant_id=session.tenant_id, session_id=session.pk, turns=list(turns))


def test_server_assigns_consecutive_seqs(session: Session) -> None:
    seqs = [_append(session, TurnIn("user", f"message {i}")).turns[0].turn.seq for i in range(3)]
    assert seqs == [1, 2, 3]
    assert list(Turn.objects.filter(session=session).order_by("seq").values_list("seq", "text")) == [
        (1, "message 0"), (2, "message 1"), (3, "message 2"),
    ]  # fmt: skip


def test_same_seq_twice_returns_stored_turn(session: Session) -> None:
    first = _append(session, TurnIn("user", "hello", seq=7)).turns[0]
    again = _append(session, TurnIn("user", "hello", seq=7)).turns[0]
    assert first.created and not again.created and again.turn.id == first.turn.id
    assert Turn.objects.filter(session=session).count() == 1
    # The next server-assigned seq continues after the client's.
    assert _append(session, TurnIn("assistant", "hi")).turns[0].turn.seq == 8


def test_same_seq_different_content_conflicts_and_writes_nothing(session: Session) -> None:
    _append(session, TurnIn("user", "hello", seq=1))
    version = HotDocument.objects.get(agent_id=session.agent_id).version
    with pytest.raises(Conflict) as caught:
        _append(session, TurnIn("user", "something else", seq=1))
    assert caught.value.code == "turn_conflict"
    assert list(Turn.objects.filter(session=session).values_list("text", flat=True)) == ["hello"]
    assert HotDocument.objects.get(agent_id=session.agent_id).version == version


def test_batch_is_all_or_nothing(session: Session) -> None:
    _append(session, TurnIn("user", "one", seq=1))
    with pytest.raises(Conflict):
        _append(session, TurnIn("user", "two", seq=2), TurnIn("user", "not one", seq=1))
    assert Turn.objects.filter(session=session).count() == 1


@pytest.mark.parametrize(
    ("turn", "code"),
    [
        (TurnIn("user", ""), "invalid"),
        (TurnIn("user", "   "), "invalid"),
        (TurnIn("robot", "hi"), "invalid"),
        (TurnIn("user", "nul \x00 byte"), "invalid_text"),
        (TurnIn("user", "lone \ud800 surrogate"), "invalid_text"),
        (TurnIn("user", "x" * 32_001), "turn_too_long"),
        (TurnIn("user", "hi", seq=0), "invalid"),
    ],
)
def test_bad_turns_are_rejected(session: Session, turn: TurnIn, code: str) -> None:
    with pytest.raises(Invalid) as caught:
        _append(session, turn)
    assert caught.value.code == code
    assert not Turn.objects.filter(session=session).exists()


def test_unicode_is_stored_intact(session: Session) -> None:
    text = "שלום 👋🏽 مرحبا — ₹80 lakh\u200f"
    stored = _append(session, TurnIn("user", text)).turns[0].turn
    assert Turn.objects.get(pk=stored.id).text == text


def test_other_tenants_session_is_not_found(session: Session, tenant_b: Any) -> None:
    with pytest.raises(NotFound):
        turn_append(tenant_id=tenant_b.pk, session_id=session.pk, turns=[TurnIn("user", "hi")])
    assert not Turn.objects.exists()


def test_hot_tail_keeps_the_agents_window_and_counts_tokens(
    session: Session, advisor: Agent
) -> None:
    agent_settings_update(agent=advisor, changes={"context_window_turns": 3}, actor="t")
    texts = [f"turn number {i}" for i in range(5)]
    for text in texts:
        result = _append(session, TurnIn("user", text))
    document = HotDocument.objects.get(agent=advisor)
    assert [t["text"] for t in document.recent_turns] == texts[-3:]
    assert document.pending_tokens == sum(count_tokens(t) for t in texts)
    assert result.hot_version == document.version


def test_occurred_at_is_kept(session: Session) -> None:
    when = datetime.datetime(2023, 5, 8, 13, 56, tzinfo=datetime.UTC)
    turn = _append(session, TurnIn("user", "back then", occurred_at=when)).turns[0].turn
    assert Turn.objects.get(pk=turn.id).occurred_at == when


def test_extraction_is_scheduled_once_when_the_threshold_is_crossed(
    session: Session, advisor: Agent
) -> None:
    agent_settings_update(agent=advisor, changes={"extraction_token_threshold": 200}, actor="t")
    long_text = "word " * 120  # 120 tokens
    first = _append(session, TurnIn("user", long_text))
    assert extraction_schedule_if_due(
        tenant_id=session.tenant_id, agent_id=advisor.pk, end_user_id=session.end_user_id,
        pending_tokens=first.pending_tokens, threshold=first.extraction_threshold,
    ) is None  # fmt: skip
    second = _append(session, TurnIn("user", long_text))
    run = extraction_schedule_if_due(
        tenant_id=session.tenant_id, agent_id=advisor.pk, end_user_id=session.end_user_id,
        pending_tokens=second.pending_tokens, threshold=second.extraction_threshold,
    )  # fmt: skip
    assert run is not None and run.pending_tokens == 240
    assert ExtractionRun.objects.filter(end_user_id=session.end_user_id).count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_appends_store_one_row(tenant_a: Any) -> None:
    from schemas.defaults import PROPERTY_ADVISOR
    from schemas.services import agent_create

    agent = agent_create(
        tenant_id=tenant_a.pk, slug="c", name="c", schema_fields=PROPERTY_ADVISOR, actor="t"
    )
    user = EndUser.objects.create(tenant=tenant_a, external_id="racer")
    hot_document_load(agent=agent, end_user=user)
    session_id = session_open(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk).id
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def worker(text: str) -> None:
        try:
            barrier.wait()
            result = turn_append(
                tenant_id=tenant_a.pk, session_id=session_id, turns=[TurnIn("user", text, seq=1)]
            )
            outcomes.append("created" if result.turns[0].created else "existing")
        except Conflict:
            outcomes.append("conflict")
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=("same",)) for _ in range(6)]
    threads += [threading.Thread(target=worker, args=("different",)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = list(Turn.objects.filter(session_id=session_id).values_list("seq", "text"))
    assert len(stored) == 1 and stored[0][0] == 1
    winner = stored[0][1]
    assert outcomes.count("created") == 1
    assert outcomes.count("existing") + outcomes.count("conflict") == 7
    assert outcomes.count("conflict") == (2 if winner == "same" else 6)
