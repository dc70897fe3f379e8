"""Viewer keys only read; erasure jobs are read with the keys that may erase (issue 16)."""

from __future__ import annotations

import pytest

from memory.models import Entity, Session, Turn
from tenants.models import KeyRole, Tenant
from tests.conftest import Key, _key

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_viewer_key_reads_but_never_writes(
    agent_key_a: Key, viewer_key_a: Key, operator_key_a: Key
) -> None:
    agent = agent_key_a.client()
    opened = agent.post("/v1/sessions", {"agent": "advisor", "user": "priya"}, format="json")
    session = opened.json()["session_id"]
    agent.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": "hi"}, format="json")
    fact = operator_key_a.client().post(
        "/v1/users/priya/facts", {"agent": "advisor", "key": "name", "value": "Priya"},
        format="json",
    )  # fmt: skip
    entity = fact.json()["id"]
    viewer = viewer_key_a.client()
    writes = [
        ("post", "/v1/sessions", {"agent": "advisor", "user": "ravi"}),
        ("post", f"/v1/sessions/{session}/turns", {"role": "user", "text": "x"}),
        ("post", f"/v1/sessions/{session}/turns:batch", {"turns": [{"role": "user", "text": "x"}]}),
        ("post", "/v1/users/priya/facts", {"agent": "advisor", "key": "name", "value": "P"}),
        ("post", f"/v1/entities/{entity}/correct", {"value": "P"}),
        ("post", f"/v1/entities/{entity}/pin", None),
        ("delete", f"/v1/entities/{entity}", {"redact_turns": True}),
    ]
    for method, path, body in writes:
        response = getattr(viewer, method)(path, body, format="json")
        assert response.status_code == 403, (path, response.content)
        assert response.json()["code"] == "permission_denied"
    assert (Session.objects.count(), Turn.objects.count(), Entity.objects.count()) == (1, 1, 1)
    assert not Entity.objects.get().pinned
    reads = [
        ("post", "/v1/memory/search", {"agent": "advisor", "user": "priya", "query": "name"}),
        ("post", "/v1/context", {"session": session}),
        ("get", "/v1/users/priya/entities?agent=advisor", None),
        ("get", f"/v1/entities/{entity}", None),
    ]
    for method, path, body in reads:
        response = getattr(viewer, method)(path, body, format="json")
        assert response.status_code == 200, (path, response.content)


def test_an_agent_scoped_operator_key_cannot_read_erasure_jobs(
    tenant_a: Tenant, agent_a: object, operator_key_a: Key
) -> None:
    from schemas.services import agent_create

    other = agent_create(tenant_id=tenant_a.pk, slug="other", name="O", actor="t")
    operator_key_a.client().post("/v1/sessions", {"agent": "other", "user": "priya"}, format="json")
    # Sessions need an agent or operator key; the erase an unscoped operator key.
    erase = operator_key_a.client().delete("/v1/users/priya")
    assert erase.status_code == 202
    job = erase.json()["id"]
    scoped = _key(tenant_a, KeyRole.OPERATOR, agent_a)  # type: ignore[arg-type]
    response = scoped.client().get(f"/v1/erasures/{job}")
    assert response.status_code == 403
    assert operator_key_a.client().get(f"/v1/erasures/{job}").status_code == 200
    assert other.pk  # the user was erased under the other agent
