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
    # Another tenant's object answers exactly as a made-up id does: a plain 404.
    made_up = client.get("/admin/schemas/agent/999999/change/")
    assert other.status_code == made_up.status_code == 404
    assert b"advisor-b" not in other.content


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
    assert agent_a.min_kept_turns == 1
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


def test_run_detail_shows_stage_timings_counts_and_error(operator_a: Any, agent_a: Agent) -> None:
    from extraction.models import ExtractionRun
    from memory.services import end_user_get_or_create

    user = end_user_get_or_create(tenant_id=agent_a.tenant_id, external_id="u1")
    run = ExtractionRun.objects.create(
        tenant_id=agent_a.tenant_id, agent=agent_a, end_user=user, status="failed",
        timings={"extract": 12.5, "embed": 30.25, "total": 50.0}, counts={"acus": 7},
        error="model said no",
    )  # fmt: skip
    client = _login(operator_a)
    page = client.get(f"/admin/extraction/extractionrun/{run.pk}/change/").content.decode()
    assert "<th>embed</th><td style='text-align:right'>30.25 ms</td>" in page
    assert "<th>acus</th><td style='text-align:right'>7</td>" in page
    assert "model said no" in page
    listing = client.get("/admin/extraction/extractionrun/").content.decode()
    assert "0.05 s" in listing


def test_audit_log_filters_by_actor_action_and_target(operator_a: Any, agent_a: Agent) -> None:
    from tenants.services import audit_record

    audit_record(
        tenant=agent_a.tenant_id,
        actor="user:alice",
        action="entity.pin",
        target_type="entity",
        target_id="e1",
    )
    audit_record(
        tenant=agent_a.tenant_id,
        actor="user:bob",
        action="entity.pin",
        target_type="entity",
        target_id="e2",
    )
    client = _login(operator_a)
    page = client.get("/admin/tenants/auditevent/", {"actor": "user:alice"})
    rows = list(page.context["cl"].result_list)
    assert [e.target_id for e in rows] == ["e1"]
    assert ("user:bob", "user:bob") in page.context["cl"].filter_specs[0].lookup_choices
    page = client.get(
        "/admin/tenants/auditevent/", {"action": "entity.pin", "target_type": "entity", "q": "e2"}
    )
    assert [e.actor for e in page.context["cl"].result_list] == ["user:bob"]


def test_turn_log_list_never_counts_the_whole_table(operator_a: Any, agent_a: Agent) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = _login(operator_a)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/admin/memory/turn/").status_code == 200
        assert client.get("/admin/memory/acu/").status_code == 200
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]
    assert counts and all("LIMIT 10000" in sql for sql in counts), counts
    acu_reads = [q["sql"] for q in queries.captured_queries if 'FROM "memory_acu"' in q["sql"]]
    assert acu_reads and not any('"memory_acu"."embedding"' in sql for sql in acu_reads)
