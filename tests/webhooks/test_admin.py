"""The console's webhooks: an endpoint made with its secret shown once, the delivery log, the
replay button; scoped to the operator's tenants like every page."""

from __future__ import annotations

from typing import Any

from django.contrib.messages import get_messages
from django.test import Client

from tenants.models import AuditEvent, Tenant
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_delivery import write_fact
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_endpoint_create


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_operator_adds_an_endpoint_and_sees_the_secret_once(
    operator_a: Any, tenant_a: Tenant, receiver: Receiver
) -> None:
    response = _login(operator_a).post(
        "/admin/webhooks/webhookendpoint/add/",
        {"tenant": tenant_a.pk, "url": receiver.url, "description": "CRM",
         "events": ["fact.created", "erasure.done"], "active": "on"},
        follow=True,
    )  # fmt: skip
    assert response.status_code == 200
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.event_types == ["erasure.done", "fact.created"]
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    assert any(endpoint.secret in m for m in shown)
    page = _login(operator_a).get(f"/admin/webhooks/webhookendpoint/{endpoint.pk}/change/")
    assert endpoint.secret.encode() not in page.content
    assert AuditEvent.objects.filter(action="webhook.create", actor="user:operator-a").exists()


def test_a_disallowed_url_shows_at_its_field_and_saves_nothing(
    operator_a: Any, tenant_a: Tenant, settings: Any
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = _login(operator_a).post(
        "/admin/webhooks/webhookendpoint/add/",
        {"tenant": tenant_a.pk, "url": "http://169.254.169.254/", "events": ["fact.created"]},
    )
    assert response.status_code == 200
    assert "url" in response.context["adminform"].form.errors
    assert WebhookEndpoint.objects.count() == 0


def test_the_replay_button_resends_and_a_viewer_cannot(
    operator_a: Any, viewer_a: Any, agent_a: Any, receiver: Receiver,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    webhook_endpoint_create(
        tenant_id=agent_a.tenant_id, url=receiver.url, events=["fact.created"], actor="t"
    )
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    delivery = WebhookDelivery.objects.get()
    page = _login(operator_a).get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/")
    assert page.status_code == 200 and b"Replay (same webhook-id)" in page.content
    assert b"endpoint" in page.content and b"fact.created" in page.content
    viewer = _login(viewer_a)
    viewer_page = viewer.get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/")
    assert viewer_page.status_code == 200 and b"Replay (same webhook-id)" not in viewer_page.content
    assert viewer.post(f"/admin/webhooks/webhookdelivery/{delivery.pk}/replay/").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        response = _login(operator_a).post(f"/admin/webhooks/webhookdelivery/{delivery.pk}/replay/")
    assert response.status_code == 302
    replay = WebhookDelivery.objects.get(replay_of=delivery)
    assert response["Location"].endswith(f"/{replay.pk}/change/")
    assert len(receiver.requests) == 2
    assert receiver.requests[0].headers["webhook-id"] == receiver.requests[1].headers["webhook-id"]


def test_another_tenants_delivery_is_not_there(
    operator_a: Any, agent_b: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    webhook_endpoint_create(
        tenant_id=agent_b.tenant_id, url=receiver.url, events=["fact.created"], actor="t"
    )
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_b, "Goa")
    delivery = WebhookDelivery.objects.get()
    client = _login(operator_a)
    listed = client.get("/admin/webhooks/webhookdelivery/")
    assert listed.status_code == 200 and str(delivery.pk).encode() not in listed.content
    assert client.get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/").status_code == 404
    assert client.post(f"/admin/webhooks/webhookdelivery/{delivery.pk}/replay/").status_code == 404
    assert WebhookDelivery.objects.count() == 1
