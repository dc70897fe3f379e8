"""The end user page: what an operator sees, and each action through its service, audited."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from django.utils import timezone

from extraction.models import ExtractionRun
from memory.models import EndUser, Entity, Erasure, Source, Status
from memory.services import end_user_get_or_create, entity_upsert
from tenants.models import AuditEvent, Role
from tenants.services import membership_set
from tests.console.conftest import Seeded
from tests.factories import UserFactory


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(seeded: Seeded) -> str:
    return f"/admin/memory/enduser/{seeded.user.pk}/change/?agent={seeded.agent.slug}"


def _act(seeded: Seeded) -> str:
    return f"/admin/memory/enduser/{seeded.user.pk}/act/"


def test_page_shows_facts_by_confidence_timeline_and_block(operator_a: Any, priya: Seeded) -> None:
    response = _login(operator_a).get(_page(priya))
    assert response.status_code == 200
    html = response.content.decode()
    groups = {label: [e.key for e in facts] for label, _, facts in response.context["groups"]}
    assert groups["Explicit: the user said it"] == [
        "bedrooms", "budget", "city", "family_size", "name",
    ]  # fmt: skip
    assert groups["Confirmed: the user agreed to it"] == ["loan_preapproved"]
    assert groups["Inferred: a possibility, never asserted"] == ["property_type"]
    assert [e.key for e in response.context["pinned"]] == ["name"]
    # The timeline: both budget versions, the old one greyed as superseded, the expired plan marked.
    svg = str(response.context["timeline"])
    assert svg.count('data-entity="') == Entity.objects.filter(end_user=priya.user).count() == 9
    assert f'class="hv-version hv-superseded" data-entity="{priya.budget_old.pk}"' in svg
    assert f'class="hv-version hv-active" data-entity="{priya.budget.pk}"' in svg
    assert 'stroke="#dc2626" stroke-width="2"' in svg  # an ephemeral expiry
    assert "₹50 lakh" in html and "₹80 lakh" in html
    assert "We&#x27;ve stretched the budget to 80 lakh" in html  # the source turn, on the version
    # The block now: the current budget only, the expired plan hidden.
    block = response.context["as_of_block"].text
    assert "budget: ₹80 lakh" in block and "budget: ₹50 lakh" not in block
    assert "site_visit_today" not in block


def test_as_of_picker_shows_the_block_the_agent_had_then(operator_a: Any, priya: Seeded) -> None:
    before_raise = priya.budget.valid_from - datetime.timedelta(days=1)
    response = _login(operator_a).get(
        _page(priya), {"agent": priya.agent.slug, "as_of": before_raise.strftime("%Y-%m-%dT%H:%M")}
    )
    block = response.context["as_of_block"].text
    assert "budget: ₹50 lakh" in block and "80 lakh" not in block
    assert "loan_preapproved" in block  # confirmed a week before the raise
    # Known-at before the second budget was recorded: even "now" it was still 50 lakh.
    hour = datetime.timedelta(hours=1)
    Entity.objects.exclude(pk=priya.budget.pk).update(recorded_at=F("recorded_at") - hour)
    known = priya.budget.recorded_at - hour / 2
    response = _login(operator_a).get(
        _page(priya), {"agent": priya.agent.slug, "known_at": known.strftime("%Y-%m-%dT%H:%M:%S")}
    )
    assert "budget: ₹50 lakh" in response.context["as_of_block"].text


def test_correct_supersedes_with_an_operator_version_and_audits(
    operator_a: Any, priya: Seeded
) -> None:
    client = _login(operator_a)
    response = client.post(
        _act(priya),
        {"agent": priya.agent.slug, "action": "correct", "entity": str(priya.budget.pk),
         "value": "9000000"},
    )  # fmt: skip
    assert response.status_code == 302
    priya.budget.refresh_from_db()
    assert priya.budget.status == Status.SUPERSEDED
    new = Entity.objects.get(end_user=priya.user, key="budget", status=Status.ACTIVE)
    assert new.source == Source.OPERATOR and new.created_by == "user:operator-a"
    assert new.value == {"amount": 9_000_000, "currency": "INR"}  # the currency it had
    assert priya.budget.superseded_by_id == new.pk
    assert AuditEvent.objects.filter(action="entity.upsert", actor="user:operator-a").count() == 1
    page = client.get(response["Location"])
    assert "budget: ₹90 lakh" in page.context["as_of_block"].text


def test_a_bad_correction_changes_nothing_and_says_why(operator_a: Any, priya: Seeded) -> None:
    client = _login(operator_a)
    response = client.post(
        _act(priya),
        {"agent": priya.agent.slug, "action": "correct", "entity": str(priya.budget.pk),
         "value": "a lot"},
    )  # fmt: skip
    messages = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert any("budget is money" in m for m in messages), messages
    assert Entity.objects.get(end_user=priya.user, key="budget", status="active") == priya.budget


def test_an_incomplete_correction_names_the_field_and_changes_nothing(
    operator_a: Any, priya: Seeded
) -> None:
    client = _login(operator_a)
    response = client.post(
        _act(priya), {"agent": priya.agent.slug, "action": "correct", "entity": "not-a-uuid"}
    )
    messages = [str(m) for m in client.get(response["Location"]).context["messages"]]
    assert messages == ["entity: Enter a valid UUID.; value: This field is required."]
    assert Entity.objects.get(end_user=priya.user, key="budget", status="active") == priya.budget
    assert not AuditEvent.objects.filter(actor="user:operator-a").exists()


def test_pin_and_unpin_are_audited(operator_a: Any, priya: Seeded) -> None:
    client = _login(operator_a)
    base = {"agent": priya.agent.slug, "entity": str(priya.budget.pk)}
    client.post(_act(priya), {**base, "action": "pin"})
    priya.budget.refresh_from_db()
    assert priya.budget.pinned
    client.post(_act(priya), {**base, "action": "unpin"})
    priya.budget.refresh_from_db()
    assert not priya.budget.pinned
    actions = AuditEvent.objects.filter(actor="user:operator-a").values_list("action", flat=True)
    assert sorted(actions) == ["entity.pin", "entity.unpin"]


def test_forget_asks_first_then_deletes_every_version(operator_a: Any, priya: Seeded) -> None:
    client = _login(operator_a)
    url = (
        f"/admin/memory/enduser/{priya.user.pk}/forget/{priya.budget.pk}/?agent={priya.agent.slug}"
    )
    page = client.get(url)
    assert page.status_code == 200 and b"all 2 version(s)" in page.content
    client.post(url, {"agent": priya.agent.slug})  # not confirmed
    assert Entity.objects.filter(end_user=priya.user, key="budget").count() == 2
    response = client.post(url, {"agent": priya.agent.slug, "confirm": "on"})
    assert response.status_code == 302
    assert Entity.objects.filter(end_user=priya.user, key="budget").count() == 0
    event = AuditEvent.objects.get(action="entity.forget")
    assert event.actor == "user:operator-a" and "lakh" not in str(event.after)


def test_run_extraction_now_schedules_a_run_and_audits(
    operator_a: Any, priya: Seeded, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        _login(operator_a).post(_act(priya), {"agent": priya.agent.slug, "action": "extract"})
    run = ExtractionRun.objects.get(end_user=priya.user)
    assert run.trigger == "operator" and run.status == "succeeded"  # eager Celery in tests
    assert AuditEvent.objects.filter(action="extraction.request", actor="user:operator-a").exists()


def test_viewer_reads_but_every_action_is_refused(viewer_a: Any, priya: Seeded) -> None:
    client = _login(viewer_a)
    page = client.get(_page(priya))
    assert page.status_code == 200 and b"Correct" not in page.content
    post = {
        "agent": priya.agent.slug,
        "action": "correct",
        "entity": str(priya.budget.pk),
        "value": "1",
    }
    assert client.post(_act(priya), post).status_code == 403
    forget = f"/admin/memory/enduser/{priya.user.pk}/forget/{priya.budget.pk}/"
    assert client.post(forget, {"agent": priya.agent.slug, "confirm": "on"}).status_code == 403
    assert Entity.objects.filter(end_user=priya.user).count() == 9
    assert not AuditEvent.objects.filter(actor="user:viewer-a").exists()


@pytest.mark.parametrize("method", ["page", "act", "forget"])
def test_another_tenants_operator_gets_404_and_changes_nothing(
    tenant_b: Any, priya: Seeded, method: str
) -> None:
    outsider: Any = UserFactory(username="operator-b")
    membership_set(tenant=tenant_b, user=outsider, role=Role.OPERATOR)
    client = _login(outsider)
    if method == "page":
        response = client.get(_page(priya))
    elif method == "act":
        response = client.post(
            _act(priya),
            {"agent": priya.agent.slug, "action": "pin", "entity": str(priya.budget.pk)},
        )
    else:
        response = client.post(
            f"/admin/memory/enduser/{priya.user.pk}/forget/{priya.budget.pk}/",
            {"agent": priya.agent.slug, "confirm": "on"},
        )
    assert response.status_code == 404
    assert b"priya" not in response.content
    assert Entity.objects.filter(end_user=priya.user).count() == 9
    assert not Entity.objects.filter(end_user=priya.user, pinned=True).exclude(key="name").exists()


def test_another_users_fact_through_this_users_page_is_404(operator_a: Any, priya: Seeded) -> None:
    ravi = end_user_get_or_create(tenant_id=priya.agent.tenant_id, external_id="ravi")
    his, _ = entity_upsert(agent=priya.agent, end_user=ravi, key="city", value="Nagpur", actor="t")
    client = _login(operator_a)
    pin = {"agent": priya.agent.slug, "action": "pin", "entity": str(his.pk)}
    assert client.post(_act(priya), pin).status_code == 404
    forget = f"/admin/memory/enduser/{priya.user.pk}/forget/{his.pk}/?agent={priya.agent.slug}"
    assert client.get(forget).status_code == 404
    his.refresh_from_db()
    assert not his.pinned
    assert not AuditEvent.objects.filter(actor="user:operator-a").exists()


def test_user_list_lists_only_own_tenant(operator_a: Any, priya: Seeded, tenant_b: Any) -> None:
    end_user_get_or_create(tenant_id=tenant_b.pk, external_id="someone-else")
    page = _login(operator_a).get("/admin/memory/enduser/")
    assert b"priya" in page.content and b"someone-else" not in page.content


def test_expired_plan_shows_expired_in_the_versions_table(operator_a: Any, priya: Seeded) -> None:
    html = _login(operator_a).get(_page(priya)).content.decode()
    visit = Entity.objects.get(end_user=priya.user, key="site_visit_today")
    assert visit.expires_at is not None and visit.expires_at < timezone.now()
    row = html[html.index(f'id="version-{visit.pk}"') :]
    assert "expired" in row[: row.index("</tr>")]


def test_export_downloads_everything_and_is_audited(operator_a: Any, priya: Seeded) -> None:
    response = _login(operator_a).get(f"/admin/memory/enduser/{priya.user.pk}/export/")
    assert response.status_code == 200
    document = json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined]
    assert document["format_version"] == 1
    assert len(document["entities"]) == 9 and len(document["turns"]) == 12
    event = AuditEvent.objects.get(action="end_user.export")
    assert event.actor == "user:operator-a" and event.after == {"via": "admin"}


def test_erase_needs_the_typed_id_then_erases_everything(
    operator_a: Any, priya: Seeded, django_capture_on_commit_callbacks: Any
) -> None:
    client = _login(operator_a)
    url = f"/admin/memory/enduser/{priya.user.pk}/erase/"
    assert b"12 turns" in client.get(url).content
    wrong = client.post(url, {"confirm": "priya2"})
    assert wrong.status_code == 200 and b"nothing was erased" in wrong.content
    assert EndUser.objects.filter(pk=priya.user.pk, external_id="priya").exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"confirm": "priya"})
    erasure = Erasure.objects.get()
    assert response.status_code == 302 and str(erasure.pk) in response["Location"]
    assert erasure.status == "done" and erasure.actor == "user:operator-a"
    assert not EndUser.objects.filter(pk=priya.user.pk).exists()
    assert Entity.objects.count() == 0
    page = client.get(response["Location"])
    assert page.status_code == 200 and b"priya" not in page.content


def test_viewer_and_outsider_can_neither_export_nor_erase(
    viewer_a: Any, tenant_b: Any, priya: Seeded
) -> None:
    viewer = _login(viewer_a)
    assert viewer.get(f"/admin/memory/enduser/{priya.user.pk}/export/").status_code == 403
    assert (
        viewer.post(
            f"/admin/memory/enduser/{priya.user.pk}/erase/", {"confirm": "priya"}
        ).status_code
        == 403
    )
    outsider: Any = UserFactory(username="operator-b")
    membership_set(tenant=tenant_b, user=outsider, role=Role.OPERATOR)
    client = _login(outsider)
    assert client.get(f"/admin/memory/enduser/{priya.user.pk}/export/").status_code == 404
    assert (
        client.post(
            f"/admin/memory/enduser/{priya.user.pk}/erase/", {"confirm": "priya"}
        ).status_code
        == 404
    )
    assert EndUser.objects.filter(pk=priya.user.pk).exists()
    assert not AuditEvent.objects.filter(action__startswith="end_user.").exists()


def test_page_reads_in_a_fixed_number_of_queries(
    operator_a: Any, priya: Seeded, django_assert_num_queries: Any
) -> None:
    client = _login(operator_a)
    client.get(_page(priya))  # warm the per-process caches (content types, the site)
    # 54, measured before the console read through console/selectors.py. 36 of them are one
    # membership query per permission check of the admin's app list (tenants.admin).
    # 60: the webhook endpoints and deliveries pages joined the app list (3 checks each).
    with django_assert_num_queries(60):
        assert client.get(_page(priya)).status_code == 200
