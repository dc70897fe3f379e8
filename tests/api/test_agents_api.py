from __future__ import annotations

from typing import Any

import pytest

from schemas.models import Agent, ExtractionSchema
from tenants.models import AuditEvent, KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

FIELDS = [
    {"key": "budget", "description": "Maximum budget", "category": "temporal", "type": "money"}
]


def _snapshot() -> dict[str, Any]:
    """Everything the agent endpoints can change."""
    return {
        "agents": sorted(
            Agent.objects.values_list("tenant_id", "slug", "name", "description", "min_kept_turns")
        ),
        "schemas": sorted(ExtractionSchema.objects.values_list("agent_id", "version", "is_active")),
        "audit": AuditEvent.objects.count(),
    }


def test_list_shows_only_own_tenants_agents(operator_key_a: Key, agent_b: Agent) -> None:
    response = operator_key_a.client().get("/v1/agents")
    assert response.status_code == 200
    assert [a["slug"] for a in response.json()] == ["advisor"]


def test_create_agent_with_settings_and_schema(operator_key_a: Key) -> None:
    response = operator_key_a.client().post(
        "/v1/agents",
        {
            "slug": "voice",
            "name": "Voice",
            "settings": {"context_budget_tokens": 600},
            "schema_fields": FIELDS,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["slug"] == "voice" and body["settings"]["context_budget_tokens"] == 600
    assert body["settings"]["extraction_token_threshold"] == 4000
    versions = operator_key_a.client().get("/v1/agents/voice/schemas").json()
    assert [(v["version"], v["is_active"], v["fields"]) for v in versions] == [(1, True, FIELDS)]


def test_create_duplicate_slug_is_409(operator_key_a: Key) -> None:
    response = operator_key_a.client().post(
        "/v1/agents", {"slug": "advisor", "name": "x"}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "agent_exists"


@pytest.mark.parametrize(
    ("body", "place"),
    [
        ({"name": "no slug"}, "slug"),
        ({"slug": "Bad Slug", "name": "x"}, "slug"),
        (
            {"slug": "ok", "name": "x", "settings": {"dedup_threshold": 2}},
            "settings.dedup_threshold",
        ),
        (
            {"slug": "ok", "name": "x", "schema_fields": [{"key": "b"}]},
            "schema_fields[0].description",
        ),
        ({"slug": "ok", "name": "x", "colour": "blue"}, "colour"),
        ({"slug": 5, "name": ["x"]}, "name"),
    ],
)
def test_invalid_create_is_400_naming_the_field_and_writes_nothing(
    operator_key_a: Key, body: dict[str, Any], place: str
) -> None:
    before = _snapshot()
    response = operator_key_a.client().post("/v1/agents", body, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "invalid"
    assert place in response.json()["fields"], response.json()
    assert _snapshot() == before


def test_update_agent(operator_key_a: Key) -> None:
    response = operator_key_a.client().patch(
        "/v1/agents/advisor", {"name": "Renamed"}, format="json"
    )
    assert response.status_code == 200 and response.json()["name"] == "Renamed"


def test_settings_get_and_patch(operator_key_a: Key) -> None:
    client = operator_key_a.client()
    assert client.get("/v1/agents/advisor/settings").json()["dedup_threshold"] == 0.95
    response = client.patch(
        "/v1/agents/advisor/settings",
        {"dedup_threshold": 0.9, "hybrid_search": False},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["dedup_threshold"] == 0.9 and response.json()["hybrid_search"] is False
    bad = client.patch("/v1/agents/advisor/settings", {"dedup_threshold": "high"}, format="json")
    assert bad.status_code == 400 and "dedup_threshold" in bad.json()["fields"]
    assert client.get("/v1/agents/advisor/settings").json()["dedup_threshold"] == 0.9


def test_publish_activate_and_read_versions(operator_key_a: Key) -> None:
    client = operator_key_a.client()
    published = client.post(
        "/v1/agents/advisor/schemas", {"fields": FIELDS, "note": "v2"}, format="json"
    )
    assert published.status_code == 201 and published.json()["version"] == 2
    again = client.post("/v1/agents/advisor/schemas", {"fields": FIELDS}, format="json")
    assert again.status_code == 200 and again.json()["version"] == 2
    rolled = client.post("/v1/agents/advisor/schemas/1/activate")
    assert rolled.status_code == 200 and rolled.json()["is_active"] is True
    assert client.get("/v1/agents/advisor/schemas/2").json()["is_active"] is False
    assert client.get("/v1/agents/advisor/schemas/7").status_code == 404


def test_invalid_schema_publish_names_the_field(operator_key_a: Key) -> None:
    response = operator_key_a.client().post(
        "/v1/agents/advisor/schemas",
        {"fields": [{**FIELDS[0], "type": "enum"}]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["fields"] == {"fields[0].choices": ['is required for type "enum"']}
    assert ExtractionSchema.objects.filter(agent__slug="advisor").count() == 1


def test_viewer_key_reads_but_cannot_write(viewer_key_a: Key) -> None:
    client = viewer_key_a.client()
    assert client.get("/v1/agents/advisor").status_code == 200
    before = _snapshot()
    for response in [
        client.post("/v1/agents", {"slug": "new", "name": "x"}, format="json"),
        client.patch("/v1/agents/advisor/settings", {"min_kept_turns": 5}, format="json"),
        client.post("/v1/agents/advisor/schemas", {"fields": FIELDS}, format="json"),
    ]:
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert _snapshot() == before


def test_agent_key_cannot_use_management_endpoints(agent_key_a: Key) -> None:
    response = agent_key_a.client().get("/v1/agents")
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"


def test_agent_key_reads_schemas_but_cannot_publish_or_activate(agent_key_a: Key) -> None:
    # An agent writing facts needs the fields (the MCP server serves them as a resource).
    client = agent_key_a.client()
    listed = client.get("/v1/agents/advisor/schemas")
    assert listed.status_code == 200
    assert [(s["version"], s["is_active"]) for s in listed.json()] == [(1, True)]
    one = client.get("/v1/agents/advisor/schemas/1")
    assert one.status_code == 200 and one.json()["fields"] == listed.json()[0]["fields"]
    before = _snapshot()
    for response in [
        client.post("/v1/agents/advisor/schemas", {"fields": FIELDS}, format="json"),
        client.post("/v1/agents/advisor/schemas/1/activate"),
        client.get("/v1/agents/advisor/settings"),
        client.get("/v1/agents/advisor"),
    ]:
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert _snapshot() == before


def test_agent_scoped_agent_key_reads_only_its_agents_schemas(
    tenant_a: Tenant, agent_a: Agent, operator_key_a: Key
) -> None:
    operator_key_a.client().post("/v1/agents", {"slug": "other", "name": "Other"}, format="json")
    model, raw = api_key_create(
        tenant=tenant_a, name="scoped", role=KeyRole.AGENT, agent_id=agent_a.pk, actor="t"
    )
    scoped = Key(model, raw).client()
    assert scoped.get("/v1/agents/advisor/schemas").status_code == 200
    other = scoped.get("/v1/agents/other/schemas")
    assert other.status_code == 404 and other.json()["code"] == "agent_not_found"


def test_agent_scoped_key_sees_only_its_agent(
    tenant_a: Tenant, agent_a: Agent, operator_key_a: Key
) -> None:
    operator_key_a.client().post("/v1/agents", {"slug": "other", "name": "Other"}, format="json")
    model, raw = api_key_create(
        tenant=tenant_a, name="scoped", role=KeyRole.OPERATOR, agent_id=agent_a.pk, actor="t"
    )
    scoped = Key(model, raw).client()
    assert [a["slug"] for a in scoped.get("/v1/agents").json()] == ["advisor"]
    assert scoped.get("/v1/agents/other").status_code == 404
    assert scoped.post("/v1/agents", {"slug": "x", "name": "x"}, format="json").status_code == 403


@pytest.mark.parametrize("body", [{"slug": "x", "name": "x"}, {"slug": "Not A Slug"}])
def test_agent_scoped_key_cannot_create_agents_whatever_the_body(
    tenant_a: Tenant, agent_a: Agent, body: dict[str, Any]
) -> None:
    model, raw = api_key_create(
        tenant=tenant_a, name="scoped", role=KeyRole.OPERATOR, agent_id=agent_a.pk, actor="t"
    )
    before = _snapshot()
    response = Key(model, raw).client().post("/v1/agents", body, format="json")
    assert response.status_code == 403
    assert response.json() == {
        "code": "permission_denied",
        "detail": "A key scoped to one agent cannot create agents.",
    }
    assert _snapshot() == before


OUTSIDER_CALLS = [
    ("get", "/v1/agents/advisor", None),
    ("patch", "/v1/agents/advisor", {"name": "taken"}),
    ("get", "/v1/agents/advisor/settings", None),
    ("patch", "/v1/agents/advisor/settings", {"min_kept_turns": 9}),
    ("get", "/v1/agents/advisor/schemas", None),
    ("post", "/v1/agents/advisor/schemas", {"fields": FIELDS}),
    ("get", "/v1/agents/advisor/schemas/1", None),
    ("post", "/v1/agents/advisor/schemas/1/activate", None),
]


@pytest.mark.parametrize(
    ("method", "url", "body"), OUTSIDER_CALLS, ids=[f"{m} {u}" for m, u, _ in OUTSIDER_CALLS]
)
def test_outsider_gets_404_and_nothing_changes(
    operator_key_a: Key, key_b: Key, method: str, url: str, body: dict[str, Any] | None
) -> None:
    before = _snapshot()
    response = getattr(key_b.client(), method)(url, body, format="json")
    assert response.status_code == 404
    assert response.json()["code"] == "agent_not_found"
    assert _snapshot() == before


def test_outsider_list_does_not_show_other_tenants(operator_key_a: Key, key_b: Key) -> None:
    assert [a["slug"] for a in key_b.client().get("/v1/agents").json()] == ["advisor-b"]
