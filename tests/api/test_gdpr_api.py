"""Export, erase, erasure status and forget-with-redaction over HTTP; the management commands."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.models import EndUser, Entity, Erasure, HotDocument, Session, Turn
from schemas.models import Agent
from tenants.models import AuditEvent, KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def agent_key(tenant_a: Tenant, property_agent: Agent) -> Key:
    return Key(*api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t"))


@pytest.fixture
def operator(tenant_a: Tenant, property_agent: Agent) -> Key:
    return Key(*api_key_create(tenant=tenant_a, name="op", role=KeyRole.OPERATOR, actor="t"))


@pytest.fixture
def priya(agent_key: Key) -> dict[str, str]:
    client = agent_key.client()
    session = client.post("/v1/sessions", {"agent": "property", "user": "priya"}, format="json")
    session_id = session.json()["session_id"]
    for text in ("My budget is 50 lakhs.", "I live in Pune."):
        client.post(f"/v1/sessions/{session_id}/turns", {"role": "user", "text": text}, format="json")  # fmt: skip
    fact = client.post("/v1/users/priya/facts", {"agent": "property", "key": "city", "value": "Pune"},
                       format="json").json()  # fmt: skip
    return {"session": session_id, "entity": fact["id"]}


def _snapshot() -> dict[str, Any]:
    return {
        "users": sorted(EndUser.objects.values_list("id", "external_id")),
        "sessions": sorted(Session.objects.values_list("id", "last_activity_at")),
        "turns": sorted(Turn.objects.values_list("id", "text")),
        "entities": sorted(Entity.objects.values_list("id", "status", "pinned")),
        "hot": sorted(HotDocument.objects.values_list("id", "version")),
        "erasures": Erasure.objects.count(),
        "audit": AuditEvent.objects.count(),
    }


def _body(response: Any) -> dict[str, Any]:
    return dict(json.loads(b"".join(response.streaming_content)))


def test_export_streams_the_users_json(operator: Key, priya: dict[str, str]) -> None:
    response = operator.client().get("/v1/users/priya/export")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/json"
    export = _body(response)
    assert export["format_version"] == 1 and export["end_user"]["external_id"] == "priya"
    assert [t["text"] for t in export["turns"]] == ["My budget is 50 lakhs.", "I live in Pune."]
    assert [e["id"] for e in export["entities"]] == [priya["entity"]]
    vectors = _body(operator.client().get("/v1/users/priya/export", {"embeddings": "true"}))
    assert vectors["options"] == {"embeddings": True}


def test_erase_is_202_with_a_job_whose_status_can_be_read(
    operator: Key, agent_key: Key, priya: dict[str, str]
) -> None:
    client = operator.client()
    response = client.delete("/v1/users/priya")
    assert response.status_code == 202, response.json()
    job = response.json()
    assert set(job) == {
        "id",
        "status",
        "counts",
        "requested_at",
        "started_at",
        "finished_at",
        "error",
    }
    status = client.get(f"/v1/erasures/{job['id']}").json()  # the eager worker has finished it
    assert status["status"] == "done" and status["counts"]["memory.Turn"] == 2
    assert "priya" not in json.dumps(status)
    assert not EndUser.objects.exists() and not Turn.objects.exists()
    # Asking again: the same job, 200. The user is gone for reads.
    again = client.delete("/v1/users/priya")
    assert (again.status_code, again.json()["id"]) == (200, job["id"])
    missing = agent_key.client().get("/v1/users/priya/entities", {"agent": "property"})
    assert (missing.status_code, missing.json()["code"]) == (404, "user_not_found")
    # The session id the agent still holds no longer exists either.
    gone = agent_key.client().post(f"/v1/sessions/{priya['session']}/turns",
                                   {"role": "user", "text": "hello?"}, format="json")  # fmt: skip
    assert (gone.status_code, gone.json()["code"]) == (404, "session_not_found")


def test_forget_with_redact_turns_over_http(agent_key: Key, priya: dict[str, str]) -> None:
    response = agent_key.client().delete(f"/v1/entities/{priya['entity']}", {"redact_turns": True},
                                         format="json")  # fmt: skip
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "key": "city",
        "deleted_versions": 1,
        "deleted_acus": 0,
        "redacted_turns": 0,
    }  # fmt: skip  (written by the client: no turns)


OUTSIDER = [
    ("get", "/v1/users/priya/export", None),
    ("delete", "/v1/users/priya", None),
    ("get", "/v1/erasures/{erasure}", None),
    ("delete", "/v1/entities/{entity}", {"redact_turns": True}),
]


@pytest.mark.parametrize(
    ("method", "url", "body"), OUTSIDER, ids=[f"{m} {u}" for m, u, _ in OUTSIDER]
)
def test_outsider_gets_404_and_nothing_changes(
    operator: Key, key_b: Key, priya: dict[str, str], method: str, url: str, body: Any
) -> None:
    # An erasure of tenant A to look for: another user's, finished.
    operator.client().post("/v1/sessions", {"agent": "property", "user": "other"}, format="json")
    erasure = operator.client().delete("/v1/users/other").json()["id"]
    before = _snapshot()
    target = url.format(entity=priya["entity"], erasure=erasure)
    response = getattr(key_b.client(), method)(target, body, format="json")
    assert response.status_code == 404
    assert response.json()["code"] in {"user_not_found", "erasure_not_found", "entity_not_found"}
    assert _snapshot() == before


@pytest.mark.parametrize("who", ["agent", "viewer", "scoped operator"])
@pytest.mark.parametrize(
    ("method", "url"), [("get", "/v1/users/priya/export"), ("delete", "/v1/users/priya")]
)
def test_export_and_erase_need_a_tenant_wide_operator_key(
    tenant_a: Tenant, property_agent: Agent, priya: dict[str, str], who: str, method: str, url: str
) -> None:
    role = {"agent": KeyRole.AGENT, "viewer": KeyRole.VIEWER}.get(who, KeyRole.OPERATOR)
    scope = property_agent.pk if who == "scoped operator" else None
    key = Key(*api_key_create(tenant=tenant_a, name=who, role=role, agent_id=scope, actor="t"))
    before = _snapshot()
    response = getattr(key.client(), method)(url)
    assert (response.status_code, response.json()["code"]) == (403, "permission_denied")
    assert _snapshot() == before


@pytest.mark.parametrize(
    ("method", "url", "body", "code", "status"),
    [
        ("get", "/v1/users/priya/export", {"embeddings": "maybe"}, "invalid", 400),
        ("get", "/v1/users/priya/export", {"vectors": "true"}, "invalid", 400),
        ("delete", "/v1/entities/{entity}", {"redact_turns": "maybe"}, "invalid", 400),
        ("delete", "/v1/entities/{entity}", {"redact": True}, "invalid", 400),
        ("get", "/v1/erasures/not-a-uuid", None, "erasure_not_found", 404),
        ("delete", "/v1/users/nobody", None, "user_not_found", 404),
    ],
)
def test_bad_input_is_a_4xx_with_a_stable_code_and_changes_nothing(
    operator: Key, priya: dict[str, str], method: str, url: str, body: Any, code: str, status: int
) -> None:
    before = _snapshot()
    client = operator.client()
    target = url.format(entity=priya["entity"])
    response = (
        client.get(target, body) if method == "get" else client.delete(target, body, format="json")
    )
    assert (response.status_code, response.json()["code"]) == (status, code), response.json()
    assert _snapshot() == before


def test_the_commands_export_and_erase(priya: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "export.json"
    call_command(
        "memory_export", "--tenant", "tenant-a", "--user", "priya", "--output", str(target)
    )
    export = json.loads(target.read_text())
    assert export["end_user"]["external_id"] == "priya" and len(export["turns"]) == 2
    with pytest.raises(CommandError, match="No user 'nobody'"):
        call_command("memory_export", "--tenant", "tenant-a", "--user", "nobody")

    out = io.StringIO()
    call_command("memory_erase", "--tenant", "tenant-a", "--user", "priya", "--now", stdout=out)
    result = json.loads(out.getvalue())
    assert result["status"] == "done" and result["counts"]["memory.Turn"] == 2
    assert not EndUser.objects.exists()
    assert Erasure.objects.get().actor == "cli:manage.py"
