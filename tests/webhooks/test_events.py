"""Where events come from: fact writes, supersession, forgetting, extraction runs, erasure.
Each is recorded in the transaction of its change (not sent here: no commit callbacks run)."""

from __future__ import annotations

from typing import Any

import pytest

from extraction.models import ExtractionRun, RunStatus
from extraction.services import extraction_rebuild_user, extraction_run_fail
from memory.models import EndUser, Session
from memory.services import (
    SessionOpened,
    TurnIn,
    end_user_get_or_create,
    entity_forget,
    entity_upsert,
    session_open,
    turn_append,
)
from memory.services.erasure import erasure_request, erasure_run_to_end
from schemas.models import Agent
from tests.webhooks.test_delivery import ALL
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import webhook_endpoint_create


@pytest.fixture
def listening(agent_a: Agent) -> WebhookEndpoint:
    endpoint, _ = webhook_endpoint_create(
        tenant_id=agent_a.tenant_id, url="http://127.0.0.1:9/in", events=ALL, actor="t"
    )
    return endpoint


def _events() -> list[tuple[str, dict[str, Any]]]:
    return [(e.type, e.payload["data"]) for e in WebhookEvent.objects.order_by("created_at")]


def _user(agent: Agent) -> EndUser:
    return end_user_get_or_create(tenant_id=agent.tenant_id, external_id="priya")


def test_a_new_value_supersedes_the_old_one(listening: WebhookEndpoint, agent_a: Agent) -> None:
    user = _user(agent_a)
    old, _ = entity_upsert(agent=agent_a, end_user=user, key="city", value="Pune", actor="t")
    new, _ = entity_upsert(agent=agent_a, end_user=user, key="city", value="Goa", actor="t")
    entity_upsert(agent=agent_a, end_user=user, key="city", value="Goa", actor="t")  # no change
    events = [(t, d["id"]) for t, d in _events()]
    assert events == [
        ("fact.created", str(old.pk)), ("fact.superseded", str(old.pk)), ("fact.created", str(new.pk))
    ]  # fmt: skip
    superseded = next(d for t, d in _events() if t == "fact.superseded")
    assert superseded["superseded_by"] == str(new.pk) and superseded["user"] == "priya"
    assert WebhookDelivery.objects.filter(endpoint=listening, status="pending").count() == 3
    assert {e.end_user_id for e in WebhookEvent.objects.all()} == {user.pk}


def test_forgetting_a_fact(listening: WebhookEndpoint, agent_a: Agent) -> None:
    entity, _ = entity_upsert(
        agent=agent_a, end_user=_user(agent_a), key="city", value="Pune", actor="t"
    )
    entity_forget(entity=entity, actor="t")
    assert _events()[-1] == (
        "fact.forgotten",
        {"id": str(entity.pk), "agent": "advisor", "user": "priya", "key": "city", "versions": 1},
    )


def test_only_the_subscribed_types_are_recorded(agent_a: Agent) -> None:
    webhook_endpoint_create(
        tenant_id=agent_a.tenant_id,
        url="http://127.0.0.1:9/in",
        events=["fact.forgotten"],
        actor="t",
    )
    entity, _ = entity_upsert(
        agent=agent_a, end_user=_user(agent_a), key="city", value="Pune", actor="t"
    )
    assert _events() == []
    entity_forget(entity=entity, actor="t")
    assert [t for t, _ in _events()] == ["fact.forgotten"]


def test_a_disabled_endpoint_gets_nothing(listening: WebhookEndpoint, agent_a: Agent) -> None:
    WebhookEndpoint.objects.filter(pk=listening.pk).update(active=False)
    entity_upsert(agent=agent_a, end_user=_user(agent_a), key="city", value="Pune", actor="t")
    assert _events() == []


def _run_on(agent: Agent, text: str) -> tuple[ExtractionRun, SessionOpened]:
    """Priya says ``text`` in a session, then a rebuild extracts it: the run and the session."""
    user = _user(agent)
    session = session_open(
        tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk, external_id="s1"
    )
    turn_append(
        tenant_id=agent.tenant_id, session_id=session.id,
        turns=[TurnIn(role="user", text=text, seq=1)],
    )  # fmt: skip
    [run] = extraction_rebuild_user(
        tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk
    )
    return run, session


def test_an_extraction_run_completes(listening: WebhookEndpoint, agent_a: Agent) -> None:
    run, session = _run_on(agent_a, "I live in Pune now.")
    completed = [d for t, d in _events() if t == "run.completed"]
    assert len(completed) == 1
    assert completed[0]["id"] == str(run.public_id)
    assert (completed[0]["agent"], completed[0]["user"], completed[0]["status"]) == (
        "advisor",
        "priya",
        "succeeded",
    )
    assert completed[0]["counts"]["turns"] == 1
    assert Session.objects.filter(pk=session.id).exists()


def test_an_extraction_run_fails(listening: WebhookEndpoint, agent_a: Agent) -> None:
    user = _user(agent_a)
    run = ExtractionRun.objects.create(
        tenant_id=agent_a.tenant_id, agent=agent_a, end_user=user, status=RunStatus.RUNNING
    )
    extraction_run_fail(run_id=run.pk, error="the model's answer is not JSON")
    [(kind, data)] = _events()
    assert kind == "run.failed"
    assert (data["id"], data["status"], data["error"]) == (
        str(run.public_id),
        "failed",
        "the model's answer is not JSON",
    )


def test_an_erasure_is_done_and_takes_the_users_events_with_it(
    listening: WebhookEndpoint, agent_a: Agent
) -> None:
    entity_upsert(agent=agent_a, end_user=_user(agent_a), key="city", value="Pune", actor="t")
    other = end_user_get_or_create(tenant_id=agent_a.tenant_id, external_id="ravi")
    entity_upsert(agent=agent_a, end_user=other, key="city", value="Goa", actor="t")
    erasure, _ = erasure_request(
        tenant_id=agent_a.tenant_id, external_id="priya", actor="t", enqueue=False
    )
    done = erasure_run_to_end(erasure_id=erasure.pk)
    assert done.status == "done"
    assert done.counts["webhooks.WebhookEvent"] == 1
    users = [d.get("user") for t, d in _events()]
    assert "priya" not in users and users.count("ravi") == 1
    kind, data = _events()[-1]
    assert kind == "erasure.done"
    assert data["id"] == str(erasure.pk) and data["status"] == "done"


def test_every_fact_of_a_run_has_its_event_with_the_endpoints_read_once(
    listening: WebhookEndpoint, agent_a: Agent
) -> None:
    _run_on(agent_a, "I'm Priya. I live in Pune now, budget 80 lakhs.")
    created = sorted(d["key"] for t, d in _events() if t == "fact.created")
    assert len(created) >= 2 and "city" in created
    # one delivery per event for the one listening endpoint: none lost to the shared read
    assert WebhookDelivery.objects.count() == len(_events())
