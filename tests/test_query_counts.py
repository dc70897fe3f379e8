"""Query counts of the writes off the call path, pinned like the call path's own (STYLE.md): a
refactor that adds a round trip to a fact write or an extraction run fails here.

The counts are what the code issued when they were pinned (issue 14, before the layout change);
lower them when a change saves a query, never raise them without saying why in the commit.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import EndUser
from memory.services import TurnIn, entity_upsert, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant

UTC = datetime.UTC
WHEN = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
LAKH = 100_000


@pytest.fixture
def advisor(tenant_a: Tenant) -> Agent:
    return agent_create(
        tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR, actor="t"
    )


@pytest.fixture
def priya(tenant_a: Tenant, advisor: Agent) -> EndUser:
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=advisor, end_user=user)
    return user


def _budget(agent: Agent, user: EndUser, lakhs: int) -> tuple[Any, bool]:
    return entity_upsert(
        agent=agent, end_user=user, key="budget", value={"amount": lakhs * LAKH, "currency": "INR"},
        valid_from=WHEN, actor="test",
    )  # fmt: skip


def test_entity_upsert_of_a_new_key(
    advisor: Agent, priya: EndUser, django_assert_num_queries: Any
) -> None:
    # schema, lock, chain, insert, audit; then the hot-document rebuild (lock, facts, turns,
    # two next-change reads, save) inside the same transaction; and the tenant's webhook
    # endpoints (one read; none listen here, so no event is written).
    with django_assert_num_queries(16):
        _, created = _budget(advisor, priya, 50)
    assert created


def test_entity_upsert_superseding_a_value(
    advisor: Agent, priya: EndUser, django_assert_num_queries: Any
) -> None:
    _budget(advisor, priya, 50)
    with django_assert_num_queries(17):  # as a new key, plus the UPDATE of the old version
        _, created = _budget(advisor, priya, 80)
    assert created


def test_entity_upsert_of_the_same_value_writes_nothing(
    advisor: Agent, priya: EndUser, django_assert_num_queries: Any
) -> None:
    _budget(advisor, priya, 50)
    with django_assert_num_queries(5):  # schema, savepoint, lock, chain, release: no write
        _, created = _budget(advisor, priya, 50)
    assert not created


@pytest.mark.django_db(transaction=True)
def test_one_extraction_run(
    advisor: Agent, priya: EndUser, django_assert_num_queries: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)
    opened = session_open(
        tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk,
        metadata={"participants": {"user": "Priya", "assistant": "Asha"}},
    )  # fmt: skip
    lines = [
        ("user", "Hi, I'm Priya. Our budget is 50 lakhs for a 3BHK in Baner."),
        ("assistant", "Noted, Priya. Do you want a gated society?"),
        ("user", "Yes, gated please. We have a dog named Max."),
        ("assistant", "Got it."),
    ]
    turn_append(
        tenant_id=advisor.tenant_id, session_id=opened.id,
        turns=[TurnIn(role, text, occurred_at=WHEN + datetime.timedelta(minutes=i))
               for i, (role, text) in enumerate(lines)],
    )  # fmt: skip
    run = extraction_run_request(
        tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk
    )
    assert run is not None
    # claim, budget, schema, turns, the extractor's facts (each an upsert), units, summary,
    # archive, rebuild, finish: one transaction. Run threads' queries are not counted.
    # 56: one read of the current and superseded facts, which the summary is checked against.
    # 57: the webhook endpoints, read once for the run's transaction (the facts it writes and
    # run.completed; it was once per fact, 60).
    # 54: the dedup's nearest stored units, one statement for all the run's units (it was one
    # per unit: this run makes four).
    with django_assert_num_queries(54):
        extraction_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "succeeded"
