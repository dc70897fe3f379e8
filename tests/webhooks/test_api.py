"""The webhook endpoints' API: the secret once, roles and scopes, rotation, changes, errors."""

from __future__ import annotations

from typing import Any

from tenants.models import AuditEvent, KeyRole, Tenant
from tests.conftest import Key, _key
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_delivery import create, verify, write_fact
from webhooks.models import WebhookDelivery, WebhookEndpoint


def test_the_secret_is_shown_on_creation_and_never_again(
    operator_key_a: Key, receiver: Receiver
) -> None:
    hook = create(operator_key_a, receiver.url, ["fact.created", "run.failed"])
    assert set(hook) == {"id", "url", "description", "events", "active", "created_at",
                         "updated_at", "secret"}  # fmt: skip
    assert hook["events"] == ["fact.created", "run.failed"] and hook["active"] is True
    shown = operator_key_a.client().get(f"/v1/webhooks/{hook['id']}").json()
    listed = operator_key_a.client().get("/v1/webhooks").json()
    assert "secret" not in shown and [set(h) for h in listed] == [set(shown)]
    audit = AuditEvent.objects.get(action="webhook.create")
    assert hook["secret"] not in str(audit.after)


def test_rotation_signs_with_both_secrets_for_a_while(
    operator_key_a: Key, agent_a: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    rotated = operator_key_a.client().post(f"/v1/webhooks/{hook['id']}/rotate-secret")
    assert rotated.status_code == 200
    new_secret = rotated.json()["secret"]
    assert new_secret != hook["secret"] and new_secret.startswith("whsec_")
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    [request] = receiver.requests
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    verify(new_secret, request)
    verify(hook["secret"], request)  # the old one, within the grace period


def test_change_disable_and_delete(operator_key_a: Key, receiver: Receiver) -> None:
    hook = create(operator_key_a, receiver.url)
    client = operator_key_a.client()
    changed = client.patch(
        f"/v1/webhooks/{hook['id']}",
        {"events": ["erasure.done"], "active": False, "description": "GDPR desk"},
        format="json",
    )
    assert changed.status_code == 200, changed.content
    body = changed.json()
    assert (body["events"], body["active"], body["description"]) == (
        ["erasure.done"],
        False,
        "GDPR desk",
    )
    assert client.delete(f"/v1/webhooks/{hook['id']}").status_code == 204
    assert client.get(f"/v1/webhooks/{hook['id']}").status_code == 404
    assert WebhookEndpoint.objects.count() == 0
    assert [e.action for e in AuditEvent.objects.order_by("created_at")][-3:] == [
        "webhook.create", "webhook.update", "webhook.delete"
    ]  # fmt: skip


def test_bad_input_is_a_400_with_the_field(operator_key_a: Key, receiver: Receiver) -> None:
    client = operator_key_a.client()
    for body, field in [
        ({"url": receiver.url, "events": ["fact.exploded"]}, "events.0"),
        ({"url": receiver.url, "events": []}, "events"),
        ({"url": receiver.url}, "events"),
        ({"url": receiver.url, "events": ["fact.created"], "secret": "mine"}, "secret"),
    ]:
        response = client.post("/v1/webhooks", body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert field in response.json()["fields"], (body, response.json())
    assert client.get("/v1/webhooks/not-a-uuid").json()["code"] == "webhook_not_found"
    assert WebhookEndpoint.objects.count() == 0


def test_roles_and_scopes(
    tenant_a: Tenant, agent_a: Any, operator_key_a: Key, viewer_key_a: Key, agent_key_a: Key,
    receiver: Receiver,
) -> None:  # fmt: skip
    hook = create(operator_key_a, receiver.url)
    # A viewer reads, never writes; an agent key neither; nor an operator key scoped to an agent.
    assert viewer_key_a.client().get("/v1/webhooks").status_code == 200
    assert viewer_key_a.client().get(f"/v1/webhooks/{hook['id']}/deliveries").status_code == 200
    scoped = _key(tenant_a, KeyRole.OPERATOR, agent_a)
    for key in (viewer_key_a, agent_key_a, scoped):
        response = key.client().post(
            "/v1/webhooks", {"url": receiver.url, "events": ["fact.created"]}, format="json"
        )
        assert response.status_code == 403 and response.json()["code"] == "permission_denied"
        assert key.client().post(f"/v1/webhooks/{hook['id']}/rotate-secret").status_code == 403
    assert agent_key_a.client().get("/v1/webhooks").status_code == 403
    assert scoped.client().get("/v1/webhooks").status_code == 403
    assert WebhookEndpoint.objects.count() == 1


def test_replay_to_a_disabled_endpoint_is_a_conflict(
    operator_key_a: Key, agent_a: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    delivery = WebhookDelivery.objects.get()
    client = operator_key_a.client()
    client.patch(f"/v1/webhooks/{hook['id']}", {"active": False}, format="json")
    response = client.post(f"/v1/webhooks/{hook['id']}/deliveries/{delivery.pk}/replay")
    assert response.status_code == 409 and response.json()["code"] == "webhook_inactive"
    assert WebhookDelivery.objects.count() == 1 and len(receiver.requests) == 1


def test_the_delivery_log_filters_by_status(
    operator_key_a: Key, agent_a: Any, receiver: Receiver, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    receiver.statuses = [200, 410]
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
        write_fact(agent_a, "Goa")
    client = operator_key_a.client()
    log = client.get(f"/v1/webhooks/{hook['id']}/deliveries").json()
    assert [(d["status"], d["response_code"]) for d in log] == [("failed", 410), ("delivered", 200)]
    failed = client.get(f"/v1/webhooks/{hook['id']}/deliveries?status=failed").json()
    assert [d["error"] for d in failed] == ["endpoint answered 410"]
    assert client.get(f"/v1/webhooks/{hook['id']}/deliveries?limit=0").status_code == 400
