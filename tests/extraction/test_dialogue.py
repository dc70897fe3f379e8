"""The rules extractor on dialogue, end to end through the pipeline: conversation text in,
facts (and the summary) out. One test per phenomenon of issue 15."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest

from extraction.models import RunStatus
from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import EndUser, Entity, HotDocument
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from memory.tokens import count_tokens
from schemas.defaults import GENERAL_ASSISTANT, PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant

UTC = datetime.UTC
MARCH_2 = datetime.datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # a Monday
MARCH_9 = datetime.datetime(2026, 3, 9, 10, 0, tzinfo=UTC)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)


@pytest.fixture
def advisor(tenant_a: Tenant) -> Agent:
    return agent_create(
        tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR, actor="t"
    )


@pytest.fixture
def buyer(tenant_a: Tenant, advisor: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="probe-wl-7f3a")
    hot_document_load(agent=advisor, end_user=user)
    return user


def converse(agent: Agent, user: EndUser, when: datetime.datetime, *lines: str) -> None:
    """One session (no participants: the pipeline must name the user itself), then a run.
    Lines alternate agent, user, agent, … unless they start with "u:" or "a:"."""
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    turns = []
    for i, line in enumerate(lines):
        role, text = ("user", line[2:]) if line.startswith("u:") else ("assistant", line[2:]) \
            if line.startswith("a:") else (("assistant", "user")[i % 2], line)  # fmt: skip
        turns.append(TurnIn(role, text.strip(), occurred_at=when + datetime.timedelta(minutes=i)))
    turn_append(tenant_id=agent.tenant_id, session_id=opened.id, turns=turns)
    run = extraction_run_request(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None
    done = extraction_run_execute(run_id=run.pk)
    assert done is not None and done.status == RunStatus.SUCCEEDED, done and done.error


def current(user: EndUser) -> dict[str, tuple[Any, str]]:
    return {
        e.key: (e.value, e.source) for e in Entity.objects.filter(end_user=user, status="active")
    }


def test_the_session_start_block_never_states_a_superseded_budget_as_current(
    advisor: Agent, buyer: EndUser
) -> None:
    converse(advisor, buyer, MARCH_2, "u: Hello! My budget is 50 lakhs and I'm looking in Pune.",
             "a: Thanks, noted.", "u: My father is helping us with the down payment.")  # fmt: skip
    converse(advisor, buyer, MARCH_9, "u: Update: my budget is now 80 lakhs.", "a: Great.")
    assert current(buyer)["budget"] == ({"amount": 8000000, "currency": "INR"}, "explicit")
    document = HotDocument.objects.get(agent=advisor, end_user=buyer)
    block = document.stable_block
    assert "₹80 lakh" in block
    # The old budget appears only as history, or not at all (the facts speak for values).
    stale = [s for s in re.split(r"(?<=[.!?])\s+", block) if re.search(r"\b50 lakh", s)]
    assert all("until 9 March 2026; ₹80 lakh since" in s for s in stale), stale
    assert "probe-wl" not in document.summary and "the user" in document.summary


def test_a_long_history_stays_within_the_summary_cap(advisor: Agent, buyer: EndUser) -> None:
    advisor.summary_max_tokens = 120
    advisor.save(update_fields=["summary_max_tokens"])
    lines = [f"u: Day {i}: we visited the flat number {i} in Baner and liked the balcony."
             if i % 2 else "a: Noted, anything else about the visit?" for i in range(400)]  # fmt: skip
    converse(advisor, buyer, MARCH_2, *lines)
    summary = HotDocument.objects.get(agent=advisor, end_user=buyer).summary
    assert summary and count_tokens(summary) <= 120


def test_short_replies_answer_the_field_the_agent_asked_about(
    advisor: Agent, buyer: EndUser
) -> None:
    converse(advisor, buyer, MARCH_2,
             "Which city are you looking to buy in?", "Pune.",
             "And what budget do you have in mind?", "Around 2 crore.",
             "How many bedrooms?", "Three.",
             "How have you been?", "Good, busy week.")  # fmt: skip
    facts = current(buyer)
    assert facts["city"] == ("Pune", "explicit")
    assert facts["budget"] == ({"amount": 20000000, "currency": "INR"}, "explicit")
    assert facts["bedrooms"] == (3, "explicit")
    assert set(facts) == {"city", "budget", "bedrooms"}  # small talk answers no field
    budget = Entity.objects.get(end_user=buyer, key="budget", status="active")
    assert [t["seq"] for t in budget.source_turns] == [3, 4]  # the question and its answer


def test_a_question_names_a_field_by_what_it_holds_not_by_its_descriptions_verbs(
    tenant_a: Tenant,
) -> None:
    # The starter schema's language field is "the language the user prefers to talk in", its
    # goal "what the user is currently trying to achieve": "talk", "currently" and "trying"
    # are how those are said, and a question using them asks about something else.
    agent = agent_create(tenant_id=tenant_a.pk, slug="friend", name="F",
                         schema_fields=GENERAL_ASSISTANT, actor="t")  # fmt: skip
    user = EndUser.objects.create(tenant=tenant_a, external_id="friend-1")
    converse(agent, user, MARCH_2,
             "Things have been slow here, but I'm fine. And you? What's been going on since we last talked?",
             "Much the same as you. Our street lost power for two days.",
             "What are you currently reading?", "A thriller my sister lent me.",
             "Did you try the ramen place?", "Not yet.",
             "Which language would you prefer to talk in?", "Spanish, please.")  # fmt: skip
    ever = list(Entity.objects.filter(end_user=user).values_list("key", "value"))
    assert ever == [("preferred_language", "Spanish")]  # written once, and never superseded


def test_a_thing_the_user_stopped_ends_and_stays_as_history(tenant_a: Tenant) -> None:
    meds = [{"key": "medication", "category": "temporal", "type": "string",
             "description": "A medicine the patient takes, one fact per medicine (medication:metformin), "
                            "value: the dose and how often"}]  # fmt: skip
    agent = agent_create(
        tenant_id=tenant_a.pk, slug="clinic", name="C", schema_fields=meds, actor="t"
    )
    user = EndUser.objects.create(tenant=tenant_a, external_id="patient-1")
    converse(agent, user, MARCH_2, "Any regular medications?", "Ramipril, 5 mg every morning.")
    assert current(user) == {"medication:ramipril": ("5 mg every morning", "explicit")}
    converse(agent, user, MARCH_9, "Are you still on the blood pressure tablet?",
             "Actually I stopped it last week, the GP said I could.")  # fmt: skip
    assert current(user) == {}  # no longer holds, and nothing replaces it
    ended = Entity.objects.get(end_user=user, key="medication:ramipril")
    assert ended.status == "superseded" and ended.superseded_by is None
    assert ended.valid_until == MARCH_9 + datetime.timedelta(minutes=1)  # the turn that ended it
    block = HotDocument.objects.get(agent=agent, end_user=user).stable_block
    stated = block.split("## Summary of earlier conversations")[0]  # facts, possibilities
    assert "5 mg every morning" not in stated and "ramipril" not in stated.lower()
