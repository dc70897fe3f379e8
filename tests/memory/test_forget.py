"""Forgetting one fact: every version, the memory units that state it, optionally the turns."""

from __future__ import annotations

import datetime

import pytest

from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import ACU, EndUser, Entity, HotDocument, Turn
from memory.services import REDACTED, TurnIn, entity_forget, session_open, turn_append
from schemas.models import Agent
from tenants.models import AuditEvent

MAY = datetime.datetime(2026, 5, 9, 10, 0, tzinfo=datetime.UTC)
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)


def _extracted(agent: Agent, user: EndUser) -> Entity:
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    lines = ["Hi, I'm Priya.", "My budget is 50 lakhs.", "I live in Pune.", "My budget is now 80 lakhs."]  # fmt: skip
    turn_append(
        tenant_id=agent.tenant_id,
        session_id=opened.id,
        turns=[TurnIn("user", t, occurred_at=MAY + datetime.timedelta(minutes=i)) for i, t in enumerate(lines)],
    )  # fmt: skip
    run = extraction_run_request(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None and extraction_run_execute(run_id=run.pk) is not None
    return Entity.objects.get(end_user=user, key="budget", status="active")


def _lakhs_in_units(user: EndUser) -> list[str]:
    return [
        t for t in ACU.objects.filter(end_user=user).values_list("text", flat=True) if "lakh" in t
    ]


def test_forget_deletes_the_units_that_state_the_value_and_its_summary_sentences(
    advisor: Agent, priya: EndUser
) -> None:
    budget = _extracted(advisor, priya)
    assert len(_lakhs_in_units(priya)) == 2
    assert "lakh" in HotDocument.objects.get(end_user=priya).summary
    units_before = ACU.objects.filter(end_user=priya).count()

    forgotten = entity_forget(entity=budget, actor="user:op")

    assert (forgotten.versions, forgotten.acus, forgotten.turns_redacted) == (2, 2, 0)
    assert not Entity.objects.filter(end_user=priya, key="budget").exists()
    assert _lakhs_in_units(priya) == []
    assert ACU.objects.filter(end_user=priya).count() == units_before - 2  # Pune stays
    document = HotDocument.objects.get(end_user=priya)
    # The summary's history line of the budget goes; its other sentences, and the other fact, stay.
    assert "lakh" not in document.summary and "Priya" in document.summary
    assert "lakh" not in document.stable_block and "Pune" in document.stable_block
    # Without redact_turns the turn log, the source of truth, keeps what was said.
    assert Turn.objects.filter(end_user=priya, text__contains="lakhs").count() == 2


def test_forget_with_redact_turns_redacts_and_reindexes_the_source_turns(
    advisor: Agent, priya: EndUser
) -> None:
    budget = _extracted(advisor, priya)
    matches = Turn.objects.filter(end_user=priya, text_search="lakhs")
    assert matches.count() == 2

    forgotten = entity_forget(entity=budget, actor="user:op", redact_turns=True)

    assert forgotten.turns_redacted == 2
    assert matches.count() == 0  # the stored search vector was recomputed
    texts = list(Turn.objects.filter(end_user=priya).order_by("seq").values_list("text", flat=True))
    assert texts == ["Hi, I'm Priya.", REDACTED, "I live in Pune.", REDACTED]
    recent = HotDocument.objects.get(end_user=priya).recent_turns
    assert all("lakh" not in turn["text"] for turn in recent)
    event = AuditEvent.objects.get(action="entity.forget")
    assert event.after == {"key": "budget", "end_user_id": priya.pk, "versions": 2, "acus": 2,
                           "turns_redacted": 2}  # fmt: skip
    assert "lakh" not in str(event.before) + str(event.after)
