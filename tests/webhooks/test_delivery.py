"""Signed webhooks end to end: a real HTTP receiver on loopback, signatures verified here
independently of the service's code, retries, replays, isolation and the outbound rules."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import socket
import time
from typing import Any

import pytest

from memory.services import end_user_get_or_create, entity_upsert
from schemas.models import Agent
from tenants.models import AuditEvent
from tests.conftest import Key
from tests.webhooks.receiver import Received, Receiver
from webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint, WebhookEvent
from webhooks.services import retry_delay, webhook_deliveries_sweep, webhook_emit

ALL = ["fact.created", "fact.superseded", "fact.forgotten", "run.completed", "run.failed",
       "erasure.done"]  # fmt: skip


def verify(secret: str, request: Received) -> dict[str, Any]:
    """Standard Webhooks by hand (not webhooks.signing): HMAC-SHA256 with the base64-decoded
    secret over "id.timestamp.body", base64, after "v1,"; a recent timestamp."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    msg_id, stamp = request.headers["webhook-id"], request.headers["webhook-timestamp"]
    mac = hmac.new(key, f"{msg_id}.{stamp}.".encode() + request.body, hashlib.sha256).digest()
    expected = base64.b64encode(mac).decode()
    given = [part.split(",", 1)[1] for part in request.headers["webhook-signature"].split(" ")]
    assert any(hmac.compare_digest(expected, sig) for sig in given), "bad signature"
    assert abs(time.time() - int(stamp)) < 60
    return dict(json.loads(request.body))


def create(key: Key, url: str, events: list[str] | None = None) -> dict[str, Any]:
    response = key.client().post(
        "/v1/webhooks", {"url": url, "events": events or ALL}, format="json"
    )
    assert response.status_code == 201, response.content
    return dict(response.json())


def write_fact(agent: Agent, value: str, user: str = "u1") -> Any:
    end_user = end_user_get_or_create(tenant_id=agent.tenant_id, external_id=user)
    entity, _ = entity_upsert(agent=agent, end_user=end_user, key="city", value=value, actor="t")
    return entity


def test_a_fact_reaches_the_endpoint_signed(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    assert hook["secret"].startswith("whsec_")
    with django_capture_on_commit_callbacks(execute=True):
        response = operator_key_a.client().post(
            "/v1/users/u1/facts",
            {"agent": "advisor", "key": "city", "value": "Pune"},
            format="json",
        )
    assert response.status_code == 201
    [request] = receiver.requests
    assert request.path == "/hooks/handover"
    assert request.headers["content-type"] == "application/json"
    body = verify(hook["secret"], request)
    entity_id = response.json()["id"]
    assert body["type"] == "fact.created"
    assert body["data"] == {
        "id": entity_id, "agent": "advisor", "user": "u1", "key": "city", "category": body["data"]["category"],
        "source": "explicit", "status": "active", "valid_from": body["data"]["valid_from"], "supersedes": None,
    }  # fmt: skip
    assert "Pune" not in request.body.decode()  # ids, never values
    event = WebhookEvent.objects.get()
    assert request.headers["webhook-id"] == str(event.pk)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code, delivery.error) == (
        DeliveryStatus.DELIVERED,
        1,
        200,
        "",
    )


def test_a_500_is_retried_until_it_succeeds(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    receiver.statuses = [500, 503, 200]
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    assert len(receiver.requests) == 3
    ids = {r.headers["webhook-id"] for r in receiver.requests}
    assert len(ids) == 1  # one event: the same idempotency id on every attempt
    bodies = {r.body for r in receiver.requests}
    assert len(bodies) == 1
    for request in receiver.requests:
        verify(hook["secret"], request)
    log = operator_key_a.client().get(f"/v1/webhooks/{hook['id']}/deliveries").json()
    assert [(d["status"], d["attempts"], d["response_code"], d["error"]) for d in log] == [
        ("delivered", 3, 200, "")
    ]


def test_delivery_gives_up_after_the_last_attempt(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    before = {o: _attempts(o) for o in ("retrying", "failed")}
    create(operator_key_a, receiver.url, ["fact.created"])
    receiver.statuses = [500]
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    assert len(receiver.requests) == 3
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code, delivery.error) == (
        DeliveryStatus.FAILED,
        3,
        500,
        "endpoint answered 500",
    )
    assert _attempts("retrying") - before["retrying"] == 2  # /metrics
    assert _attempts("failed") - before["failed"] == 1


def _attempts(outcome: str) -> float:
    from prometheus_client import REGISTRY

    value = REGISTRY.get_sample_value("handover_webhook_attempts_total", {"outcome": outcome})
    return value or 0.0


def test_backoff_doubles_and_is_capped(settings: Any) -> None:
    settings.WEBHOOK_RETRY_SECONDS = 30
    settings.WEBHOOK_RETRY_MAX_SECONDS = 4 * 3600
    assert [retry_delay(n) for n in range(1, 11)] == [
        30,
        60,
        120,
        240,
        480,
        960,
        1920,
        3840,
        7680,
        14400,
    ]


def test_a_later_retry_is_left_to_the_sweep(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    settings.WEBHOOK_RETRY_SECONDS = 3600  # past the delayed-message limit
    create(operator_key_a, receiver.url, ["fact.created"])
    receiver.statuses = [500, 200]
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, len(receiver.requests)) == ("pending", 1, 1)
    assert webhook_deliveries_sweep() == 0  # not due yet
    due = delivery.created_at - datetime.timedelta(minutes=2)  # its message is long overdue
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=due)
    assert webhook_deliveries_sweep() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, len(receiver.requests)) == ("delivered", 2, 2)


def test_no_tenant_receives_another_tenants_events(
    operator_key_a: Key, key_b: Key, agent_a: Agent, agent_b: Agent, receiver: Receiver,
    receiver_b: Receiver, django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    hook_a = create(operator_key_a, receiver.url)
    hook_b = create(key_b, receiver_b.url)
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune", user="same-id")
    assert len(receiver.requests) == 1 and receiver_b.requests == []
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_b, "Goa", user="same-id")
    assert len(receiver.requests) == 1 and len(receiver_b.requests) == 1
    assert verify(hook_b["secret"], receiver_b.requests[0])["data"]["agent"] == "advisor-b"
    # Each tenant's log holds its own deliveries only; the other's endpoint is a 404.
    assert len(key_b.client().get(f"/v1/webhooks/{hook_b['id']}/deliveries").json()) == 1
    assert key_b.client().get(f"/v1/webhooks/{hook_a['id']}/deliveries").status_code == 404
    assert [h["id"] for h in key_b.client().get("/v1/webhooks").json()] == [hook_b["id"]]


def test_replay_resends_the_same_event_with_the_same_webhook_id(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    first = WebhookDelivery.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        response = operator_key_a.client().post(
            f"/v1/webhooks/{hook['id']}/deliveries/{first.pk}/replay"
        )
    assert response.status_code == 202, response.content
    assert response.json()["replay_of"] == str(first.pk)
    original, replayed = receiver.requests
    assert replayed.headers["webhook-id"] == original.headers["webhook-id"] == str(first.event_id)
    assert replayed.body == original.body
    verify(hook["secret"], replayed)
    replay = WebhookDelivery.objects.get(replay_of=first)
    assert (replay.status, replay.attempts, replay.event_id) == ("delivered", 1, first.event_id)
    assert AuditEvent.objects.filter(action="webhook.replay").count() == 1


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://127.0.0.1:9/hook", "outbound_address_refused"),
        ("http://localhost/hook", "outbound_address_refused"),
        ("http://169.254.169.254/latest/meta-data", "outbound_address_refused"),
        ("http://10.1.2.3/hook", "outbound_address_refused"),
        ("http://[::1]/hook", "outbound_address_refused"),
        ("http://[::ffff:192.168.0.1]/hook", "outbound_address_refused"),
        ("ftp://hooks.example.com/x", "outbound_url_invalid"),
        ("https://user:pw@93.184.215.14/hook", "outbound_url_invalid"),
    ],
)
def test_a_disallowed_address_is_refused_and_nothing_stored(
    operator_key_a: Key, settings: Any, url: str, code: str
) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = operator_key_a.client().post(
        "/v1/webhooks", {"url": url, "events": ["fact.created"]}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == code
    assert "url" in response.json()["fields"]
    assert WebhookEndpoint.objects.count() == 0
    assert not AuditEvent.objects.filter(action__startswith="webhook.").exists()


def test_changing_the_url_to_a_disallowed_address_is_refused(
    operator_key_a: Key, receiver: Receiver, settings: Any
) -> None:
    hook = create(operator_key_a, receiver.url)
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = operator_key_a.client().patch(
        f"/v1/webhooks/{hook['id']}", {"url": "http://127.0.0.1:8000/x"}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "outbound_address_refused"
    assert WebhookEndpoint.objects.get().url == receiver.url


def test_the_address_is_checked_again_at_delivery(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    """Accepted while the deployment allowed private addresses (or while the name resolved to
    a public one): at delivery the rule holds again, and nothing is sent."""
    create(operator_key_a, receiver.url, ["fact.created"])
    settings.WEBHOOK_ALLOW_PRIVATE = False
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    assert receiver.requests == []
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("failed", 1, None)
    assert delivery.error.endswith("(outbound_address_refused)")


def test_delivery_connects_to_the_address_it_checked(
    operator_key_a: Key, agent_a: Agent, settings: Any, monkeypatch: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    """DNS rebinding: the name resolves to a public address when checked and to loopback
    afterwards. The connection goes to the checked address; the name is resolved once."""
    settings.WEBHOOK_ALLOW_PRIVATE = False
    answers = iter(["93.184.215.14", "127.0.0.1", "127.0.0.1"])
    resolved: list[str] = []

    def rebinding(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        address = next(answers)
        resolved.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    connected: list[tuple[str, int]] = []

    def connect(address: tuple[str, int], timeout: float = 0) -> socket.socket:
        connected.append(address)
        raise ConnectionRefusedError

    monkeypatch.setattr("core.outbound.socket.getaddrinfo", rebinding)
    monkeypatch.setattr("webhooks.transport.socket.create_connection", connect)
    hook = create(operator_key_a, "https://hooks.example.com/in", ["fact.created"])
    assert resolved == ["93.184.215.14"]  # checked at creation
    answers = iter(["93.184.215.14", "127.0.0.1"])
    resolved.clear()
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    assert resolved == ["93.184.215.14"] and connected == [("93.184.215.14", 443)]
    delivery = WebhookDelivery.objects.get(endpoint_id=hook["id"])
    assert (delivery.status, delivery.error) == (
        "failed",
        "connection failed: ConnectionRefusedError",
    )


def test_a_change_that_rolls_back_sends_nothing(
    operator_key_a: Key, receiver: Receiver, tenant_a: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from django.db import transaction

    create(operator_key_a, receiver.url)
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        webhook_emit(tenant_id=tenant_a.pk, events=[("fact.created", {"id": "x"})])
        raise RuntimeError
    assert receiver.requests == [] and WebhookEvent.objects.count() == 0


def test_a_tenant_without_endpoints_costs_one_query(
    tenant_a: Any, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(1):
        # The data is never built when nobody listens (this one would raise).
        assert webhook_emit(tenant_id=tenant_a.pk, events=[("fact.created", _boom)]) == []


def _boom() -> dict[str, Any]:
    raise AssertionError("built the data of an event nobody listens to")


def test_a_broker_that_is_down_fails_no_request_and_the_sweep_sends_later(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, monkeypatch: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    from celery.canvas import Signature
    from kombu.exceptions import OperationalError

    create(operator_key_a, receiver.url, ["fact.created"])
    real = Signature.apply_async

    def down(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise OperationalError("broker unreachable")

    monkeypatch.setattr(Signature, "apply_async", down)
    with django_capture_on_commit_callbacks(execute=True):
        response = operator_key_a.client().post(
            "/v1/users/u1/facts",
            {"agent": "advisor", "key": "city", "value": "Pune"},
            format="json",
        )
    assert response.status_code == 201 and receiver.requests == []
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts) == ("pending", 0)
    monkeypatch.setattr(Signature, "apply_async", real)
    later = delivery.next_attempt_at + datetime.timedelta(minutes=2)
    assert webhook_deliveries_sweep(now=later) == 1
    delivery.refresh_from_db()
    assert (delivery.status, len(receiver.requests)) == ("delivered", 1)
