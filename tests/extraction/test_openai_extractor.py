"""The `openai` extractor against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest

from core.outbound import ModelConnection
from extraction.extractors import RetryableError
from extraction.extractors.openai import CAPABILITIES
from extraction.models import ExtractionRun, RunStatus
from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import ACU, EndUser, Entity, HotDocument, Session
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.services import agent_create
from tenants.models import Tenant
from tests.scripted_model import ScriptedModel, task_of

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
    # the fact says the budget; the summary does not repeat a value the facts speak for
    assert "80 lakhs" not in HotDocument.objects.get().summary
    assert (run.counts["facts_invalid"], run.counts["repairs"]) == (0, 0)
    # An endpoint that takes structured outputs is asked for them, strictly, once per task.
    formats = [(r["response_format"]["type"], r["response_format"]["json_schema"]["name"])
               for r in model.requests]  # fmt: skip
    assert sorted(formats) == [("json_schema", "facts"), ("json_schema", "summary"),
                               ("json_schema", "units")]  # fmt: skip
    asked = next(
        r for r in model.requests if r["response_format"]["json_schema"]["name"] == "facts"
    )
    assert asked["model"] == "scripted-1" and asked["response_format"]["json_schema"]["strict"]
    branches = asked["response_format"]["json_schema"]["schema"]["properties"]["facts"]["items"][
        "anyOf"
    ]
    money = next(b for b in branches if b["properties"]["key"]["enum"] == ["budget"])
    assert money["properties"]["value"]["required"] == ["amount", "currency"]
    assert "budget (temporal, money)" in asked["messages"][0]["content"]
    assert "JSON Schema" not in asked["messages"][0]["content"]  # enforced, not described
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


def test_the_abstractive_summary_keeps_only_traceable_sentences(
    model: ScriptedModel, run_id: int
) -> None:
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    model.script("summary", ("ok", {"sentences": [
        {"text": "Priya wants a flat near the metro.", "sources": ["U1"]},
        {"text": "Priya is a doctor.", "sources": []},
        {"text": "Priya owns three cars.", "sources": ["U9"]},
    ]}))  # fmt: skip
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert HotDocument.objects.get().summary == "Priya wants a flat near the metro."
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
    model.script("facts", ("status", 503), ("invalid", "not json"), ("invalid", "still not"))
    with pytest.raises(RetryableError):
        extraction_run_execute(run_id=run_id)
    extraction_run_execute(run_id=run_id)
    after = {status: runs(status) for status in before}
    assert {s: after[s] - before[s] for s in before} == {"retrying": 1, "failed": 1, "succeeded": 0}


# --- Structured output: what the endpoint takes, and one repair ----------------------------


def _formats(model: ScriptedModel, task: str) -> list[str]:
    """The response format of each request for ``task``, in order ("prompt": none)."""
    return [(r.get("response_format") or {}).get("type", "prompt")
            for r in model.requests if task_of(r) == task]  # fmt: skip


@pytest.mark.parametrize("refusal", [400, 422, 500])
def test_an_endpoint_refusing_json_schema_gets_json_mode_and_it_is_remembered(
    model: ScriptedModel, run_id: int, tenant_a: Tenant, refusal: int
) -> None:
    model.formats = {"json_object"}  # JSON mode only, as llama-cpp-python's server (a 500)
    model.refusal_status = refusal
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert sorted(Entity.objects.values_list("key", flat=True)) == ["budget", "city"]
    # Facts and units ask in parallel: one or both are refused before JSON mode is
    # remembered; the summary, asked after them, goes straight to JSON mode.
    refused = [r for r in model.requests if r["response_format"]["type"] == "json_schema"]
    assert 1 <= len(refused) <= 2 and _formats(model, "facts")[-1] == "json_object"
    assert _formats(model, "summary") == ["json_object"]
    asked = [
        r for r in model.requests if (r.get("response_format") or {}).get("type") == "json_object"
    ]
    assert all("schema" in r["response_format"] for r in asked)
    assert all("It must match this JSON Schema" in r["messages"][0]["content"] for r in asked)
    assert run.counts["model_calls"] == len(model.requests) == 3 + len(refused)

    # The next run, in the same process, does not pay for the refusal again.
    session = Session.objects.get()
    turn_append(tenant_id=tenant_a.pk, session_id=session.id,
                turns=[TurnIn("user", "We have a dog, Max.", occurred_at=WHEN)])  # fmt: skip
    again = extraction_run_request(tenant_id=tenant_a.pk, agent_id=run.agent_id, end_user_id=run.end_user_id)  # fmt: skip
    assert again is not None
    model.requests.clear()
    run = extraction_run_execute(run_id=again.pk)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert {r["response_format"]["type"] for r in model.requests} == {"json_object"}


def test_an_endpoint_refusing_the_schema_beside_json_mode_gets_plain_json_mode(
    model: ScriptedModel, run_id: int
) -> None:
    model.formats, model.schema_in_json_mode = {"json_object"}, False  # e.g. OpenAI's older models
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert Entity.objects.count() == 2
    summary = next(r for r in model.requests if task_of(r) == "summary")
    assert summary["response_format"] == {"type": "json_object"}
    assert "It must match this JSON Schema" in summary["messages"][0]["content"]
    assert CAPABILITIES.mode(("scripted", model.url, "scripted-1")) == "json_object"


def test_an_endpoint_without_json_mode_gets_plain_prompting(
    model: ScriptedModel, run_id: int
) -> None:
    model.formats = set()
    model.script("facts", ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert Entity.objects.count() == 2
    assert _formats(model, "facts")[-1] == "prompt" and _formats(model, "summary") == ["prompt"]
    seen = [(r.get("response_format") or {}).get("type", "prompt") for r in model.requests]
    assert seen[0] == "json_schema" and {"json_object", "prompt"} <= set(seen)
    prompted = next(r for r in model.requests if "response_format" not in r)
    assert "It must match this JSON Schema" in prompted["messages"][0]["content"]


@pytest.mark.parametrize(
    ("malformed", "repaired_in"),
    [
        (("invalid", "Sure! Here are the facts: budget = 80 lakhs"), "json_object"),
        (("invalid", "[1, 2]"), "json_schema"),
        (("ok", {"fact": []}), "json_schema"),
        (("ok", {"facts": ["budget is 80 lakhs"]}), "json_schema"),
    ],
    ids=["not-json", "not-an-object", "no-facts-list", "no-fact-objects"],
)
def test_a_malformed_answer_is_repaired_once(
    model: ScriptedModel, run_id: int, malformed: tuple[str, Any], repaired_in: str
) -> None:
    model.script("facts", malformed, ("ok", FACTS))
    model.script("units", ("ok", UNITS))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert sorted(Entity.objects.values_list("key", flat=True)) == ["budget", "city"]
    assert (run.counts["repairs"], run.counts["model_calls"]) == (1, 4)
    # A non-JSON answer under json_schema: the endpoint did not hold the model to it, so the
    # repair is asked in JSON mode; a wrong shape is asked again as before.
    assert _formats(model, "facts") == ["json_schema", repaired_in]
    repair = [r for r in model.requests if len(r["messages"]) == 4]
    assert len(repair) == 1
    sent_back, request = repair[0]["messages"][2:]
    assert sent_back["role"] == "assistant" and request["role"] == "user"
    assert request["content"].startswith("Your answer could not be used: ")
    # What worked is what the endpoint is asked for next.
    assert _formats(model, "summary") == [repaired_in]


def test_a_repair_that_fails_too_fails_the_run_with_a_recorded_error(
    model: ScriptedModel, run_id: int
) -> None:
    model.script("facts", ("invalid", "Sure! budget = 80 lakhs"), ("invalid", "Sorry: 80 lakhs"))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.FAILED
    assert run.error == (
        "the model's answer is not the JSON that was asked for "
        "(facts: it is not JSON; after one repair: it is not JSON)"
    )
    assert not Entity.objects.exists() and not ACU.objects.exists()
    # What the failed run spent is on it (it counts against the tenant's daily budget).
    assert run.counts["repairs"] == 1 and run.counts["model_calls"] >= 2
    assert run.counts["tokens_in"] >= 240
    assert [(e["kind"], e["outcome"]) for e in run.explanations] == [
        ("repair", "still malformed"), ("malformed", "run failed")
    ]  # fmt: skip
    assert extraction_run_execute(run_id=run_id) is None  # failed for good: not claimed again
    # JSON mode did not help this time: it is not remembered for the endpoint.
    assert CAPABILITIES.mode(("scripted", model.url, "scripted-1")) == "json_schema"


WRONG = {"facts": [
    {"key": "budget", "qualifier": "", "value": {"amount": 8_000_000, "currency": "INR"}, "source": "explicit", "seq": 1},
    {"key": "city", "qualifier": "", "value": "Pune", "source": "inferred", "seq": 2},
    {"key": "pet", "qualifier": "Max", "value": "dog", "source": "explicit", "seq": 2},
    {"key": "budget", "qualifier": "", "value": "80 lakhs", "source": "explicit", "seq": 1},
    {"key": "move_in_date", "qualifier": "", "value": "2026/06/01", "source": "explicit", "seq": 1},
    {"key": "property_type", "qualifier": "", "value": "castle", "source": "explicit", "seq": 1},
    {"key": "salary", "qualifier": "", "value": "a lot", "source": "explicit", "seq": 1},
    {"key": "family_size", "qualifier": "", "value": 4, "source": "explicit", "seq": 99},
    {"key": "loan_preapproved", "qualifier": "", "value": True, "source": "guessed", "seq": 1},
]}  # fmt: skip


def test_wrongly_typed_facts_are_dropped_and_counted_while_valid_ones_land(
    model: ScriptedModel, run_id: int
) -> None:
    model.script("facts", ("ok", WRONG))
    run = extraction_run_execute(run_id=run_id)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert sorted(Entity.objects.values_list("key", "value_text")) == [
        ("budget", "₹80 lakh"), ("city", "Pune"), ("pet:Max", "dog")
    ]  # fmt: skip
    assert (run.counts["facts"], run.counts["facts_invalid"], run.counts["repairs"]) == (3, 6, 0)
    # The run inspector shows each fact written and each one refused, with why.
    shown = [(e["key"], e["outcome"]) for e in run.explanations]
    assert sorted(shown) == sorted([("budget", "written"), ("city", "written"), ("pet:Max", "written"),
                                    ("budget", "not written"), ("move_in_date", "not written"),
                                    ("property_type", "not written"), ("salary", "not written"),
                                    ("family_size", "not written"), ("loan_preapproved", "not written")])  # fmt: skip
    refused = {e["key"]: e["detail"] for e in run.explanations if e.get("kind") == "invalid_fact"}
    assert refused["family_size"] == "seq 99 is not a turn of this window"
    assert refused["move_in_date"] == "move_in_date is date: expected YYYY-MM-DD"


def test_a_model_summary_stating_a_superseded_value_as_current_is_stored_only_as_history(
    model: ScriptedModel, run_id: int, tenant_a: Tenant
) -> None:
    model.script("facts", ("ok", {"facts": [
        {"key": "budget", "qualifier": "", "value": {"amount": 5_000_000, "currency": "INR"}, "source": "explicit", "seq": 1}]}))  # fmt: skip
    first = extraction_run_execute(run_id=run_id)
    assert first is not None and first.status == RunStatus.SUCCEEDED, first and first.error

    later = WHEN + datetime.timedelta(days=6)  # 9 March 2026
    session = Session.objects.get()
    turn_append(tenant_id=tenant_a.pk, session_id=session.id,
                turns=[TurnIn("user", "Our budget is 80 lakhs now.", occurred_at=later)])  # fmt: skip
    model.script("facts", ("ok", {"facts": [
        {"key": "budget", "qualifier": "", "value": {"amount": 8_000_000, "currency": "INR"}, "source": "explicit", "seq": 3}]}))  # fmt: skip
    model.script("units", ("ok", {"units": ["On 9 March 2026, Priya's budget is 80 lakhs."]}))
    model.script("summary", ("ok", {"sentences": [
        # the old value, stated as current: left out (the facts say it, as history)
        {"text": "On 3 March 2026, Priya's budget is 50 lakhs.", "sources": ["U1"]},
        # a value the facts never held: left out
        {"text": "On 1 March 2026, Priya's budget was 60 lakhs.", "sources": ["U1"]},
        {"text": "On 9 March 2026, Priya wants a flat near the metro.", "sources": ["U1"]},
    ]}))  # fmt: skip
    again = extraction_run_request(tenant_id=tenant_a.pk, agent_id=first.agent_id, end_user_id=first.end_user_id)  # fmt: skip
    assert again is not None
    run = extraction_run_execute(run_id=again.pk)
    assert run is not None and run.status == RunStatus.SUCCEEDED, run and run.error
    assert list(Entity.objects.filter(status="active").values_list("value_text", flat=True)) == [
        "₹80 lakh"
    ]
    assert HotDocument.objects.get().summary == (
        "Budget: ₹50 lakh until 9 March 2026; ₹80 lakh since. "
        "On 9 March 2026, Priya wants a flat near the metro."
    )
