"""Isolation over every endpoint: two tenants with look-alike data (the same agent slug, the
same user ids) and two users per tenant.

- Tenant B's key on tenant A's objects: 404 on every endpoint and nothing changed anywhere.
- Tenant B's key on its own look-alikes: only B's data comes back.
- Tenant A's key on user u1: nothing of user u2 comes back.
A test checks the matrix names every route of the API, so a new endpoint fails here until it
is added.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

import pytest
from django.apps import apps
from django.urls import URLPattern, get_resolver

from extraction.services import extraction_rebuild_user
from memory.models import Entity, Session
from memory.services import TurnIn, end_user_get_or_create, entity_upsert, session_open, turn_append
from memory.services.erasure import erasure_request
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import KeyRole, Tenant
from tests.conftest import Key, _key
from webhooks.models import WebhookDelivery
from webhooks.services import webhook_emit, webhook_endpoint_create

VOLATILE = {"last_used_at", "updated_at", "last_activity_at"}
NOT_TENANT_DATA = {"v1/schema", "v1/docs", "healthz", "readyz", "metrics"}


@dataclass
class World:
    key_a: Key
    key_b: Key
    session_a1: str
    session_a2: str
    session_b1: str
    entity_a1: str
    entity_b1: str
    erasure_a: str
    webhook_a: str
    delivery_a: str


def _user(agent: Agent, external_id: str, canary: str) -> tuple[str, str]:
    user = end_user_get_or_create(tenant_id=agent.tenant_id, external_id=external_id)
    session = session_open(
        tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk,
        external_id=f"{agent.tenant_id}-{external_id}", metadata={"note": canary},
    )  # fmt: skip
    turn_append(
        tenant_id=agent.tenant_id, session_id=session.id,
        turns=[TurnIn(role="user", text=f"My name is Kiran and my code word is {canary}.", seq=1),
               TurnIn(role="user", text=f"Our budget is 40 lakh, remember {canary}.", seq=2)],
    )  # fmt: skip
    entity, _ = entity_upsert(
        agent=agent, end_user=user, key="name", value=f"Kiran {canary}", actor="test"
    )
    extraction_rebuild_user(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    return str(session.id), str(entity.pk)


@pytest.fixture
def world(tenant_a: Tenant, tenant_b: Tenant, property_agent: Agent) -> World:
    from schemas.defaults import PROPERTY_ADVISOR

    agent_b = agent_create(
        tenant_id=tenant_b.pk, slug="property", name="B", schema_fields=PROPERTY_ADVISOR, actor="t"
    )
    session_a1, entity_a1 = _user(property_agent, "u1", "CANARYa1")
    session_a2, _ = _user(property_agent, "u2", "CANARYa2")
    session_b1, entity_b1 = _user(agent_b, "u1", "CANARYb1")
    _user(property_agent, "gone", "CANARYgone")
    erasure, _ = erasure_request(
        tenant_id=tenant_a.pk, external_id="gone", actor="t", enqueue=False
    )
    # Tenant A's webhook endpoint (a public address: no loopback exception here) and one
    # delivery in its log; the event is recorded, never sent (no commit in a test).
    webhook, _ = webhook_endpoint_create(
        tenant_id=tenant_a.pk, url="https://93.184.215.14/hooks", events=["fact.created"],
        description="CANARYa-hook", actor="t",
    )  # fmt: skip
    webhook_emit(tenant_id=tenant_a.pk, events=[("fact.created", {"id": "CANARYa-event"})])
    delivery = WebhookDelivery.objects.get(endpoint=webhook)
    return World(
        key_a=_key(tenant_a, KeyRole.OPERATOR), key_b=_key(tenant_b, KeyRole.OPERATOR),
        session_a1=session_a1, session_a2=session_a2, session_b1=session_b1,
        entity_a1=entity_a1, entity_b1=entity_b1, erasure_a=str(erasure.pk),
        webhook_a=str(webhook.pk), delivery_a=str(delivery.pk),
    )  # fmt: skip


def _requests(
    w: World, session: str, entity: str, user: str = "u1"
) -> list[tuple[str, str, str, Any]]:
    """(route, method, path, body) for every endpoint, aimed at the given objects."""
    schema = {
        "fields": [
            {"key": "name", "description": "The name", "category": "profile", "type": "string"}
        ]
    }
    return [
        ("v1/agents", "GET", "/v1/agents", None),
        ("v1/agents", "POST", "/v1/agents", {"slug": "property", "name": "x"}),
        ("v1/agents/<str:slug>", "GET", "/v1/agents/property", None),
        ("v1/agents/<str:slug>", "PATCH", "/v1/agents/property", {"name": "renamed"}),
        ("v1/agents/<str:slug>/settings", "GET", "/v1/agents/property/settings", None),
        ("v1/agents/<str:slug>/settings", "PATCH", "/v1/agents/property/settings", {"min_kept_turns": 9}),
        ("v1/agents/<str:slug>/schemas", "GET", "/v1/agents/property/schemas", None),
        ("v1/agents/<str:slug>/schemas", "POST", "/v1/agents/property/schemas", schema),
        ("v1/agents/<str:slug>/schemas/<int:version>", "GET", "/v1/agents/property/schemas/1", None),
        ("v1/agents/<str:slug>/schemas/<int:version>/activate", "POST", "/v1/agents/property/schemas/1/activate", None),
        ("v1/sessions", "POST", "/v1/sessions", {"agent": "property", "user": user}),
        ("v1/sessions/<uuid:session_id>/turns", "POST", f"/v1/sessions/{session}/turns", {"role": "user", "text": "hello", "seq": 99}),
        ("v1/sessions/<uuid:session_id>/turns", "GET", f"/v1/sessions/{session}/turns?limit=50", None),
        ("v1/sessions/<uuid:session_id>/turns/last", "DELETE", f"/v1/sessions/{session}/turns/last", None),
        ("v1/sessions/<uuid:session_id>/turns:clear", "POST", f"/v1/sessions/{session}/turns:clear", None),
        ("v1/sessions/<uuid:session_id>/turns:batch", "POST", f"/v1/sessions/{session}/turns:batch", {"turns": [{"role": "user", "text": "hi", "seq": 98}]}),
        ("v1/context", "POST", "/v1/context", {"session": session, "query": "code word"}),
        ("v1/memory/search", "POST", "/v1/memory/search", {"agent": "property", "user": user, "query": "code word budget"}),
        ("v1/users/<path:user>/facts", "POST", f"/v1/users/{user}/facts", {"agent": "property", "key": "city", "value": "Pune"}),
        ("v1/users/<path:user>/entities", "GET", f"/v1/users/{user}/entities?agent=property&status=any", None),
        ("v1/users/<path:user>/runs", "GET", f"/v1/users/{user}/runs?agent=property", None),
        ("v1/users/<path:user>/runs", "POST", f"/v1/users/{user}/runs", {"agent": "property"}),
        ("v1/users/<path:user>/export", "GET", f"/v1/users/{user}/export", None),
        ("v1/users/<path:user>", "DELETE", f"/v1/users/{user}", None),
        ("v1/erasures/<str:erasure_id>", "GET", f"/v1/erasures/{w.erasure_a}", None),
        ("v1/entities/<str:entity_id>", "GET", f"/v1/entities/{entity}", None),
        ("v1/entities/<str:entity_id>", "DELETE", f"/v1/entities/{entity}", None),
        ("v1/entities/<str:entity_id>/correct", "POST", f"/v1/entities/{entity}/correct", {"value": "Ravi"}),
        ("v1/entities/<str:entity_id>/pin", "POST", f"/v1/entities/{entity}/pin", None),
        ("v1/entities/<str:entity_id>/unpin", "POST", f"/v1/entities/{entity}/unpin", None),
        ("v1/webhooks", "GET", "/v1/webhooks", None),
        ("v1/webhooks", "POST", "/v1/webhooks", {"url": "https://93.184.215.14/b", "events": ["fact.created"], "active": False}),
        ("v1/webhooks/<str:webhook_id>", "GET", f"/v1/webhooks/{w.webhook_a}", None),
        ("v1/webhooks/<str:webhook_id>", "PATCH", f"/v1/webhooks/{w.webhook_a}", {"description": "hijacked"}),
        ("v1/webhooks/<str:webhook_id>", "DELETE", f"/v1/webhooks/{w.webhook_a}", None),
        ("v1/webhooks/<str:webhook_id>/rotate-secret", "POST", f"/v1/webhooks/{w.webhook_a}/rotate-secret", None),
        ("v1/webhooks/<str:webhook_id>/deliveries", "GET", f"/v1/webhooks/{w.webhook_a}/deliveries", None),
        ("v1/webhooks/<str:webhook_id>/deliveries/<str:delivery_id>/replay", "POST", f"/v1/webhooks/{w.webhook_a}/deliveries/{w.delivery_a}/replay", None),
    ]  # fmt: skip


def _routes() -> set[str]:
    found: set[str] = set()

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLPattern):
                found.add(prefix + str(pattern.pattern))
            else:
                walk(pattern.url_patterns, prefix + str(pattern.pattern))

    walk(get_resolver().url_patterns, "")
    return {r for r in found if not r.startswith("admin/")}


def _fingerprint() -> str:
    """Every row of every model of ours, volatile timestamps left out."""
    rows = {}
    for model in apps.get_models():
        if model._meta.app_label not in {"tenants", "webhooks", "schemas", "memory", "extraction"}:
            continue
        fields = [f.attname for f in model._meta.concrete_fields if f.attname not in VOLATILE]
        fields = [f for f in fields if f not in {"embedding", "keywords", "text_search"}]
        rows[model._meta.label] = list(model._default_manager.order_by("pk").values_list(*fields))
    return json.dumps(rows, default=str, sort_keys=True)


def _call(key: Key, method: str, path: str, body: Any) -> Any:
    client = key.client()
    return (
        getattr(client, method.lower())(path, body, format="json")
        if body is not None
        else getattr(client, method.lower())(path)
    )


def _text(response: Any) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def test_the_matrix_names_every_route() -> None:
    w = World(*([None] * len(fields(World))))  # type: ignore[arg-type]
    named = {route for route, *_ in _requests(w, "s", "e")}
    assert _routes() - NOT_TENANT_DATA == named


# Endpoints a tenant legitimately reaches by a name it has too (agent slug "property", user
# "u1"): tenant B gets its own, never A's. All others address A's objects by their ids.
OWN_LOOKALIKE = {"v1/agents", "v1/agents/<str:slug>", "v1/agents/<str:slug>/settings",
                 "v1/agents/<str:slug>/schemas", "v1/agents/<str:slug>/schemas/<int:version>",
                 "v1/agents/<str:slug>/schemas/<int:version>/activate", "v1/sessions",
                 "v1/memory/search", "v1/users/<path:user>/facts", "v1/users/<path:user>/entities",
                 "v1/users/<path:user>/runs", "v1/users/<path:user>/export", "v1/users/<path:user>",
                 "v1/webhooks"}  # fmt: skip


def test_outsider_gets_404_on_every_object_of_another_tenant_and_changes_nothing(
    world: World,
) -> None:
    for route, method, path, body in _requests(world, world.session_a1, world.entity_a1):
        if route in OWN_LOOKALIKE:
            continue
        before = _fingerprint()
        response = _call(world.key_b, method, path, body)
        assert response.status_code == 404, (method, path, response.status_code, _text(response))
        text = _text(response)
        assert "CANARYa" not in text and "Kiran" not in text, (method, path)
        assert _fingerprint() == before, f"{method} {path} changed data"


def test_lookalike_names_reach_only_the_callers_own_data(world: World) -> None:
    # Reads first, writes after, the erase last: each write acts on B's data only.
    order = sorted(
        (r for r in _requests(world, world.session_b1, world.entity_b1) if r[0] in OWN_LOOKALIKE),
        key=lambda r: (r[1] != "GET", r[0] == "v1/users/<path:user>"),
    )
    a_rows = _tenant_rows(world, "tenant-a")
    for _, method, path, body in order:
        response = _call(world.key_b, method, path, body)
        assert response.status_code < 500, (method, path)
        assert "CANARYa" not in _text(response), (method, path)
    assert _tenant_rows(world, "tenant-a") == a_rows, "tenant B's calls changed tenant A's rows"


def _tenant_rows(world: World, slug: str) -> str:
    tenant = Tenant.objects.get(slug=slug)
    rows = {}
    for model in apps.get_models():
        names = {f.attname for f in model._meta.concrete_fields}
        if "tenant_id" not in names or model._meta.app_label not in {
            "webhooks",
            "schemas",
            "memory",
            "extraction",
        }:
            continue
        fields = sorted(names - VOLATILE - {"embedding", "keywords", "text_search"})
        rows[model._meta.label] = list(
            model._default_manager.filter(tenant_id=tenant.pk).order_by("pk").values_list(*fields)
        )
    return json.dumps(rows, default=str, sort_keys=True)


def test_a_users_reads_never_return_another_users_data(world: World) -> None:
    for route, method, path, body in _requests(world, world.session_a1, world.entity_a1):
        if method != "GET" and route not in {"v1/sessions", "v1/context", "v1/memory/search"}:
            continue
        if route.startswith(("v1/agents", "v1/erasures", "v1/webhooks")):
            continue  # not about a user
        response = _call(world.key_a, method, path, body)
        assert response.status_code in (200, 201), (method, path, _text(response))
        text = _text(response)
        assert "CANARYa1" in text or route in {"v1/users/<path:user>/runs"}, (method, path)
        assert "CANARYa2" not in text and "CANARYb1" not in text, (method, path)
    # The same through u2's session: none of u1.
    response = _call(
        world.key_a, "POST", "/v1/context", {"session": world.session_a2, "query": "code word"}
    )
    assert "CANARYa2" in _text(response) and "CANARYa1" not in _text(response)
    assert Session.objects.filter(pk=world.session_a2).exists()
    assert Entity.objects.filter(pk=world.entity_a1, status="active").exists()
