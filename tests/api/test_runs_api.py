from __future__ import annotations

from typing import Any

import pytest

from extraction.models import ExtractionRun
from memory.models import ACU, Entity
from schemas.models import Agent
from tenants.models import AuditEvent, KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def operator_key(tenant_a: Tenant, property_agent: Agent) -> Key:
    model, raw = api_key_create(tenant=tenant_a, name="op", role=KeyRole.OPERATOR, actor="t")
    return Key(model, raw)


def _session(client: Any) -> str:
    return str(
        client.post("/v1/sessions", {"agent": "property", "user": "priya"}, format="json").json()[
            "session_id"
        ]
    )


def test_thanks_bye_below_the_threshold_writes_nothing_beyond_the_turn(operator_key: Key) -> None:
    client = operator_key.client()
    session = _session(client)
    audit_before = AuditEvent.objects.count()
    response = client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "thanks, bye"}, format="json"
    )
    assert response.status_code == 201
    assert ExtractionRun.objects.count() == 0
    assert Entity.objects.count() == 0 and ACU.objects.count() == 0
    assert AuditEvent.objects.count() == audit_before


def test_operator_starts_a_run_and_reads_its_figures(operator_key: Key) -> None:
    client = operator_key.client()
    session = _session(client)
    client.post(
        f"/v1/sessions/{session}/turns",
        {"role": "user", "text": "My budget is 80 lakhs for a flat in Pune."},
        format="json",
    )
    started = client.post("/v1/users/priya/runs", {"agent": "property"}, format="json")
    assert started.status_code == 202 and started.json()["trigger"] == "operator"
    # Audited like the console's "Run extraction now": the same service.
    assert AuditEvent.objects.filter(
        action="extraction.request", actor=f"api_key:hv_{operator_key.model.prefix}"
    ).exists()
    runs = client.get("/v1/users/priya/runs", {"agent": "property"}).json()
    assert len(runs) == 1
    run = runs[0]
    # Eager Celery ran it on commit.
    assert run["status"] == "succeeded", run
    assert run["counts"]["facts"] == 2 and run["counts"]["acus"] == 1
    assert {"extract", "compress", "embed", "dedup", "write", "total"} <= set(run["timings"])
    facts = client.get("/v1/users/priya/entities", {"agent": "property"}).json()
    assert sorted(f["key"] for f in facts) == ["budget", "city"]


def test_agent_keys_cannot_start_runs_and_outsiders_see_nothing(
    operator_key: Key, key_b: Key, tenant_a: Tenant
) -> None:
    client = operator_key.client()
    _session(client)
    model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
    assert (
        Key(model, raw)
        .client()
        .post("/v1/users/priya/runs", {"agent": "property"}, format="json")
        .status_code
        == 403
    )
    assert key_b.client().get("/v1/users/priya/runs", {"agent": "property"}).status_code == 404
    assert (
        key_b.client()
        .post("/v1/users/priya/runs", {"agent": "property"}, format="json")
        .status_code
        == 404
    )
    assert ExtractionRun.objects.count() == 0


def test_a_second_start_while_one_is_open_is_409_and_records_nothing(
    operator_key: Key, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)  # the first stays open
    client = operator_key.client()
    _session(client)
    first = client.post("/v1/users/priya/runs", {"agent": "property"}, format="json")
    assert first.status_code == 202 and first.json()["status"] == "pending"
    audit_before = AuditEvent.objects.count()
    second = client.post("/v1/users/priya/runs", {"agent": "property"}, format="json")
    assert second.status_code == 409
    assert second.json() == {
        "code": "run_open",
        "detail": "A run for this user is already pending or running.",
    }
    assert [str(i) for i in ExtractionRun.objects.values_list("public_id", flat=True)] == [
        first.json()["id"]
    ]
    assert AuditEvent.objects.count() == audit_before
