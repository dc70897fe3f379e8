"""The `openai` extractor against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest

from core.outbound import ModelConnection
from extraction.extractors import RetryableError
from extraction.models import ExtractionRun, RunStatus
from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import ACU, EndUser, Entity, HotDocument
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.services import agent_create
from tenants.models import Tenant
from tests.scripted_model import ScriptedModel

pytestmark = pytest.mark.django_db(transaction=True)
WHEN = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=datetime.UTC)
FACTS = {"facts": [{"key": "budget", "value": {"amount": 8_000_000, "currency": "INR"}, "source": "explicit", "seq": 1},
                   {"key": "city", "value": "Pune", "source": "inferred", "seq": 2}]}  # fmt: skip
UNITS = {
    "units": ["On 3 March 2026, Priya's budget is 80 lakhs.", "I like the flat near the metro."]
}


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[ScriptedModel]:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)
    monkeypatch.setattr("extraction.extractors.openai.DEFAULT_TIMEOUT", 0.5)
    monkeypatch.setenv("HV_TEST_MODEL_KEY", "sk-test-123")
    server = ScriptedModel()
    # The deployment's connection to the scripted model on loopback (allowed explicitly).
    settings.MODEL_CONNECTIONS = {
        "scripted": ModelConnection("scripted", server.url, "HV_TEST_MODEL_KEY", allow_private=True)
    }
    yield server
    server.close()


@pytest.fixture
def run_id(tenant_a: Tenant, model: ScriptedModel) -> int:
    agent = agent_create(
        tenant_id=tenant_a.pk, slug="llm", name="LLM", schema_fields=PROPERTY_ADVISOR, actor="t",
        settings={"extractor": "openai", "extractor_model": "scripted-1", "extractor_connection": "scripted"},
    )  # fmt: skip
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=agent, end_user=user)
    session = session_open(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk,
                           metadata={"participants": {"user": "Priya"}})  # fmt: skip
    turn_append(tenant_id=tenant_a.pk, session_id=session.id, turns=[
        TurnIn("user", "My budget is 80 lakhs.", occurred_at=WHEN),
        TurnIn("user", "Probably Pune, near the metro.", occurred_at=WHEN),
    ])  # fmt: skip
    run = extraction_run_request(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None
    return run.pk


def test_a_correct_answer_becomes_facts_and_units(model: ScriptedModel, run_id: int) -> None:
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    facts = sorted(Entity.objects.values_list("key", "value_text", "source"))
    assert facts == [("budget", "₹80 lakh", "explicit"), ("city", "Pune", "inferred")]
    assert list(ACU.objects.values_list("text", flat=True)) == [
        "On 3 March 2026, Priya's budget is 80 lakhs."
    ]
    assert run.counts["atomicity_rejects"] == 1  # "I like the flat…": dropped and counted
    # facts, units, then the summary (it came back empty, so the extractive fold stands in)
    assert (run.counts["model_calls"], run.counts["tokens_in"], run.counts["tokens_out"]) == (
        3,
        360,
        90,
    )
    assert "Priya's budget is 80 lakhs" in HotDocument.objects.get().summary
    asked = next(
        r for r in model.requests if r["response_format"]["json_schema"]["name"] == "facts"
    )
    assert asked["model"] == "scripted-1"
    assert asked["response_format"]["json_schema"]["schema"]["properties"]["facts"]["items"][
        "properties"
    ]["key"]["enum"][:2] == ["name", "city"]
    assert "budget (temporal, money)" in asked["messages"][0]["content"]
    assert all(h["Authorization"] == "Bearer sk-test-123" for h in model.headers)


@pytest.mark.parametrize(
    "failure", [("status", 429), ("status", 500), ("slow", 1.5)], ids=["429", "500", "timeout"]
)
def test_transient_failures_are_retried_then_succeed(
    model: ScriptedModel, run_id: int, failure: tuple[str, object]
) -> None:
    model.script("facts", failure, ("ok", FACTS))
    with pytest.raises(RetryableError):
        extraction_run_execute(run_id=run_id)
    pending = ExtractionRun.objects.get(pk=run_id)
    assert pending.status == RunStatus.PENDING and pending.error.startswith("RetryableError")
    assert not Entity.objects.exists() and not ACU.objects.exists()
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED
    assert Entity.objects.count() == 2


def test_invalid_json_is_a_recorded_failure_not_a_retry_loop(
    model: ScriptedModel, run_id: int
) -> None:
    model.script("facts", ("invalid", "Sure! Here are the facts: budget = 80 lakhs"))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.FAILED
    assert "not the JSON that was asked for" in run.error
    assert not Entity.objects.exists() and not ACU.objects.exists()
    assert extraction_run_execute(run_id=run_id) is None  # failed for good: not claimed again


def test_the_abstractive_summary_keeps_only_traceable_sentences(
    model: ScriptedModel, run_id: int
) -> None:
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    model.script("summary", ("ok", {"sentences": [
        {"text": "Priya's budget is 80 lakhs as of March 2026.", "sources": ["U1"]},
        {"text": "Priya is a doctor.", "sources": []},
        {"text": "Priya owns three cars.", "sources": ["U9"]},
    ]}))  # fmt: skip
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert HotDocument.objects.get().summary == "Priya's budget is 80 lakhs as of March 2026."
    assert run.counts["summary_untraceable"] == 2 and run.counts["model_calls"] == 3
    asked = next(
        r for r in model.requests if r["response_format"]["json_schema"]["name"] == "summary"
    )
    assert asked["messages"][1]["content"] == "U1: On 3 March 2026, Priya's budget is 80 lakhs."


def test_run_outcomes_are_counted_in_the_metrics(model: ScriptedModel, run_id: int) -> None:
    from prometheus_client import REGISTRY

    def runs(status: str) -> float:
        value = REGISTRY.get_sample_value("handover_extraction_runs_total", {"status": status})
        return value or 0.0

    before = {status: runs(status) for status in ("retrying", "failed", "succeeded")}
    model.script("facts", ("status", 503), ("invalid", "not json"))
    with pytest.raises(RetryableError):
        extraction_run_execute(run_id=run_id)
    extraction_run_execute(run_id=run_id)
    after = {status: runs(status) for status in before}
    assert {s: after[s] - before[s] for s in before} == {"retrying": 1, "failed": 1, "succeeded": 0}
