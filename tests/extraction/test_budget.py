"""A tenant's daily cap on extraction spend pauses extraction, never ingestion."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.outbound import ModelConnection
from extraction.models import ExtractionRun, RunStatus
from extraction.services import (
    extraction_run_execute,
    extraction_run_request,
    extraction_tokens_today,
)
from memory.models import EndUser, Entity, Turn
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant
from tests.extraction.test_openai_extractor import FACTS, UNITS, WHEN
from tests.scripted_model import ScriptedModel

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[ScriptedModel]:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)
    monkeypatch.setenv("HV_TEST_MODEL_KEY", "sk-test-123")
    server = ScriptedModel()
    # The deployment's connection to the scripted model on loopback (allowed explicitly).
    settings.MODEL_CONNECTIONS = {
        "scripted": ModelConnection("scripted", server.url, "HV_TEST_MODEL_KEY", allow_private=True)
    }
    yield server
    server.close()


def _agent(tenant: Tenant, model: ScriptedModel) -> Agent:
    return agent_create(
        tenant_id=tenant.pk, slug="llm", name="LLM", schema_fields=PROPERTY_ADVISOR, actor="t",
        settings={"extractor": "openai", "extractor_model": "scripted-1", "extractor_connection": "scripted"},
    )  # fmt: skip


def _turns(agent: Agent, user: EndUser, text: str) -> None:
    session = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    turn_append(
        tenant_id=agent.tenant_id,
        session_id=session.id,
        turns=[TurnIn("user", text, occurred_at=WHEN)],
    )


def test_spent_budget_pauses_runs_but_not_appends(tenant_a: Tenant, model: ScriptedModel) -> None:
    tenant_a.extraction_tokens_per_day = 100  # one run of the scripted model spends more
    tenant_a.save()
    agent = _agent(tenant_a, model)
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=agent, end_user=user)
    _turns(agent, user, "My budget is 80 lakhs.")
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    first = extraction_run_request(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk)
    assert first is not None
    done = extraction_run_execute(run_id=first.pk)
    assert done is not None and done.status == RunStatus.SUCCEEDED
    spent = done.counts["tokens_in"] + done.counts["tokens_out"]
    assert spent > 0 and extraction_tokens_today(tenant_id=tenant_a.pk) == spent
    facts_before = Entity.objects.count()

    # Over the cap: the next run pauses and writes nothing; its turns stay for tomorrow.
    _turns(agent, user, "Actually we now have a budget of 90 lakhs.")
    second = extraction_run_request(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk)
    assert second is not None
    paused = extraction_run_execute(run_id=second.pk)
    assert paused is not None and paused.status == RunStatus.PAUSED
    assert "budget" in paused.error and Entity.objects.count() == facts_before
    calls = len(model.requests)
    # Ingestion goes on, and no new run is scheduled while the budget is spent.
    _turns(agent, user, "And we want three bedrooms.")
    assert Turn.objects.filter(end_user=user).count() == 3
    assert (
        extraction_run_request(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk)
        is None
    )
    assert len(model.requests) == calls  # the model was not called for the paused run
    assert ExtractionRun.objects.filter(status=RunStatus.PAUSED).count() == 1


def test_no_cap_means_no_pause(tenant_a: Tenant, model: ScriptedModel) -> None:
    agent = _agent(tenant_a, model)
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=agent, end_user=user)
    _turns(agent, user, "My budget is 80 lakhs.")
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    run = extraction_run_request(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None
    done = extraction_run_execute(run_id=run.pk)
    assert done is not None and done.status == RunStatus.SUCCEEDED
