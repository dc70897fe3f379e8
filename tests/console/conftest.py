"""A property-advisor user with a memory worth looking at: changed, inferred, pinned, expired."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest
from django.db.models import F
from django.utils import timezone

from memory.models import EndUser, Entity
from memory.services import (
    TurnIn,
    end_user_get_or_create,
    entity_pin_set,
    entity_upsert,
    session_open,
    turn_append,
)
from schemas.models import Agent

LAKH = 100_000


@dataclass
class Seeded:
    agent: Agent
    user: EndUser
    budget_old: Entity
    budget: Entity


def seed_priya(agent: Agent) -> Seeded:
    """Ten weeks of conversations with Priya; her budget went from 50 to 80 lakh in session 9."""
    now = timezone.now().replace(microsecond=0)
    start = now - datetime.timedelta(days=70)
    user = end_user_get_or_create(tenant_id=agent.tenant_id, external_id="priya")
    said = [
        (0, "Hi, I'm Priya. We're a family of four moving to Pune for my new job."),
        (14, "Our budget is around 50 lakh, and we need three bedrooms."),
        (28, "I think we might prefer an apartment over a villa, not sure yet."),
        (49, "Good news: the bank pre-approved our loan."),
        (56, "We've stretched the budget to 80 lakh after the raise."),
        (69, "Can we see the Baner flat today at 5 pm?"),
    ]
    refs = []
    for index, (day, text) in enumerate(said):
        when = start + datetime.timedelta(days=day)
        session = session_open(
            tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk,
            external_id=f"priya-s{index + 1}", metadata={},
        )  # fmt: skip
        turn_append(
            tenant_id=agent.tenant_id, session_id=session.id,
            turns=[TurnIn(role="user", text=text, seq=1, occurred_at=when),
                   TurnIn(role="assistant", text="Noted, thank you.", seq=2, occurred_at=when)],
        )  # fmt: skip
        refs.append(({"session": str(session.id), "seq": 1}, when))

    def fact(key: str, value: object, i: int, source: str = "explicit") -> Entity:
        entity, _ = entity_upsert(
            agent=agent, end_user=user, key=key, value=value, source=source,
            valid_from=refs[i][1], source_turns=[refs[i][0]], actor="extraction_run:seed",
        )  # fmt: skip
        return entity

    name = fact("name", "Priya", 0)
    fact("city", "Pune", 0)
    fact("family_size", 4, 0)
    budget_old = fact("budget", {"amount": 50 * LAKH, "currency": "INR"}, 1)
    fact("bedrooms", 3, 1)
    fact("property_type", "apartment", 2, source="inferred")
    fact("loan_preapproved", True, 3, source="confirmed")
    budget = fact("budget", {"amount": 80 * LAKH, "currency": "INR"}, 4)
    # An ephemeral plan that ran out: hidden from the agent, kept in the timeline.
    entity_upsert(
        agent=agent, end_user=user, key="site_visit_today", value="Baner flat, 5 pm",
        valid_from=now - datetime.timedelta(days=2), source_turns=[refs[5][0]],
        actor="extraction_run:seed",
    )  # fmt: skip
    entity_pin_set(entity=name, pinned=True, actor="test")
    # As if the write lane had learnt each fact two hours after it was said.
    learnt = datetime.timedelta(hours=2)
    Entity.objects.filter(end_user=user).update(recorded_at=F("valid_from") + learnt)
    Entity.objects.filter(pk=budget_old.pk).update(superseded_at=budget.valid_from + learnt)
    budget_old.refresh_from_db()
    budget.refresh_from_db()
    return Seeded(agent=agent, user=user, budget_old=budget_old, budget=budget)


@pytest.fixture
def priya(property_agent: Agent) -> Seeded:
    return seed_priya(property_agent)
