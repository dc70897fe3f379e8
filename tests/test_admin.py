"""The admin is scoped to the user's tenants; viewers only read."""

from __future__ import annotations

from typing import Any

from django.test import Client

from schemas.models import Agent
from tenants.models import ApiKey, AuditEvent
from tests.factories import UserFactory


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_operator_sees_only_own_tenant(operator_a: Any, agent_a: Agent, agent_b: Agent) -> None:
    page = _login(operator_a).get("/admin/schemas/agent/")
    assert page.status_code == 200
    assert b"advisor" in page.content and b"advisor-b" not in page.content


def test_other_tenants_object_by_url_is_not_there(
    operator_a: Any, agent_a: Agent, agent_b: Agent
) -> None:
    client = _login(operator_a)
    own = client.get(f"/admin/schemas/agent/{agent_a.pk}/change/")
    assert own.status_code == 200
    other = client.get(f"/admin/schemas/agent/{agent_b.pk}/change/")
    # Django answers a missing object with a redirect to the index: the same as for a made-up id.
    made_up = client.get("/admin/schemas/agent/999999/change/")
    assert other.status_code == made_up.status_code == 302
    assert b"advisor-b" not in client.get(other["Location"], follow=True).content


def test_operator_changes_settings_through_the_service(operator_a: Any, agent_a: Agent) -> None:
    client = _login(operator_a)
    form = client.get(f"/admin/schemas/agent/{agent_a.pk}/change/").context["adminform"].form
    data = {**{k: v for k, v in form.initial.items() if v is not None}, "min_kept_turns": 7}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    response = client.post(f"/admin/schemas/agent/{agent_a.pk}/change/", data)
    assert response.status_code == 302, response.content[:2000]
    agent_a.refresh_from_db()
    assert agent_a.min_kept_turns == 7
    assert AuditEvent.objects.filter(action="agent.settings", actor="user:operator-a").count() == 1


def test_viewer_reads_but_cannot_change(viewer_a: Any, agent_a: Agent) -> None:
    client = _login(viewer_a)
    page = client.get(f"/admin/schemas/agent/{agent_a.pk}/change/")
    assert page.status_code == 200 and b"Save" not in page.content
    response = client.post(f"/admin/schemas/agent/{agent_a.pk}/change/", {"min_kept_turns": 9})
    assert response.status_code == 403
    agent_a.refresh_from_db()
    assert agent_a.min_kept_turns == 4
    assert client.get("/admin/tenants/apikey/add/").status_code == 403


def test_operator_creates_key_and_sees_secret_once(
    operator_a: Any, tenant_a: Any, agent_a: Agent
) -> None:
    client = _login(operator_a)
    response = client.post(
        "/admin/tenants/apikey/add/",
        {"tenant": tenant_a.pk, "name": "from admin", "role": "agent"},
        follow=True,
    )
    assert response.status_code == 200
    messages = [str(m) for m in response.context["messages"]]
    key = ApiKey.objects.get(name="from admin")
    assert any(f"hv_{key.prefix}_" in m for m in messages)
    assert key.created_by == "user:operator-a"


def test_superuser_sees_every_tenant(agent_a: Agent, agent_b: Agent) -> None:
    root = UserFactory(username="root", is_superuser=True)
    page = _login(root).get("/admin/schemas/agent/")
    assert b"advisor-b" in page.content and b"Advisor A" in page.content


def test_user_without_membership_sees_no_models(db: None) -> None:
    stranger = UserFactory(username="stranger")
    page = _login(stranger).get("/admin/")
    assert page.status_code == 200
    assert b"/admin/schemas/agent/" not in page.content


def test_memory_pages_are_scoped_and_read_only(
    operator_a: Any, tenant_a: Any, tenant_b: Any
) -> None:
    from memory.models import EndUser

    EndUser.objects.create(tenant=tenant_a, external_id="alice-of-a")
    EndUser.objects.create(tenant=tenant_b, external_id="bob-of-b")
    client = _login(operator_a)
    page = client.get("/admin/memory/enduser/")
    assert page.status_code == 200
    assert b"alice-of-a" in page.content and b"bob-of-b" not in page.content
    for url in ["/admin/memory/turn/", "/admin/memory/entity/", "/admin/memory/session/",
                "/admin/memory/hotdocument/", "/admin/memory/acu/", "/admin/extraction/extractionrun/"]:  # fmt: skip
        assert client.get(url).status_code == 200, url
    assert client.get("/admin/memory/enduser/add/").status_code == 403


def test_invalid_settings_show_at_their_field_and_save_nothing(
    operator_a: Any, agent_a: Agent
) -> None:
    client = _login(operator_a)
    form = client.get(f"/admin/schemas/agent/{agent_a.pk}/change/").context["adminform"].form
    data = {
        **{k: v for k, v in form.initial.items() if v is not None},
        "extractor": "openai",
        "extractor_model": "",
    }
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    response = client.post(f"/admin/schemas/agent/{agent_a.pk}/change/", data)
    assert response.status_code == 200  # the form again, not a redirect
    errors = response.context["adminform"].form.errors
    assert 'is required when extractor is "openai"' in errors["extractor_model"][0]
    agent_a.refresh_from_db()
    assert agent_a.extractor == "rules"
    assert not AuditEvent.objects.filter(action="agent.settings").exists()
