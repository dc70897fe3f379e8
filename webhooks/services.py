"""Webhook endpoints (create, change, delete, rotate the secret), the outbox (``webhook_emit``,
called inside the transaction of the change it reports) and deliveries (an attempt, a replay,
the sweep). Tasks are sent by name (services never import tasks). ADR 0031."""

from __future__ import annotations

import datetime
import http.client
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core import metrics
from core.errors import Conflict, invalid
from core.outbound import OutboundRefused, address_check
from tenants.services import audit_record
from webhooks import signing, transport
from webhooks.models import (
    DeliveryStatus,
    EventType,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

logger = logging.getLogger(__name__)

DELIVER_TASK = "webhooks.deliver"
MAX_ENDPOINTS_PER_TENANT = 20
MAX_URL_CHARS = 2000
# After a rotation the old secret also signs for a day: receivers switch without a gap.
ROTATION_GRACE = datetime.timedelta(hours=24)
# A retry due within this is sent as a delayed message; a later one is left to the sweep (a
# long countdown outlives the Redis broker's visibility timeout and comes back twice).
DIRECT_RETRY_MAX_SECONDS = 900
# The sweep sends what is due this long ago and still pending (a lost or never-sent message).
SWEEP_GRACE = datetime.timedelta(seconds=60)
SWEEP_BATCH = 1000
# Refusals a retry cannot change; an unresolvable host may resolve later, so it is retried.
FINAL_REFUSALS = {"outbound_address_refused", "outbound_url_invalid"}

EventData = dict[str, Any] | Callable[[], dict[str, Any]]


# --- Endpoints --------------------------------------------------------------------------------


def url_validate(url: object) -> str:
    """The outbound rules of the model endpoint (core.outbound): http(s), a host that resolves
    only to public addresses unless the deployment allows private ones (``WEBHOOK_ALLOW_PRIVATE``).
    Checked here, when the URL is given, and again at every delivery."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_CHARS:
        raise invalid("url", f"must be an http(s) URL of at most {MAX_URL_CHARS} characters")
    parts = urlsplit(url)
    if parts.username or parts.password:
        raise invalid("url", "must not carry credentials", code="outbound_url_invalid")
    if parts.fragment:
        raise invalid("url", "must not carry a #fragment", code="outbound_url_invalid")
    try:
        address_check(url, allow_private=settings.WEBHOOK_ALLOW_PRIVATE)
    except OutboundRefused as exc:
        raise invalid("url", str(exc), code=exc.code) from None
    return url


def event_types_validate(event_types: object) -> list[str]:
    if (
        not isinstance(event_types, list)
        or not event_types
        or not all(isinstance(t, str) for t in event_types)
    ):
        raise invalid("events", "must be a non-empty list of event types")
    unknown = sorted(set(event_types) - set(EventType.values))
    if unknown:
        raise invalid(
            "events", f"unknown: {', '.join(unknown)}; known: {', '.join(EventType.values)}"
        )
    return sorted(set(event_types))


def _endpoint_audit(endpoint: WebhookEndpoint, action: str, actor: str) -> None:
    # Never the secret.
    audit_record(
        tenant=endpoint.tenant_id, actor=actor, action=action, target_type="webhook",
        target_id=endpoint.pk,
        after={"url": endpoint.url, "events": endpoint.event_types, "active": endpoint.active},
    )  # fmt: skip


def webhook_endpoint_create(
    *,
    tenant_id: int,
    url: str,
    events: list[str],
    description: str = "",
    active: bool = True,
    actor: str,
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (returned once; the caller shows it and forgets it)."""
    url = url_validate(url)
    event_types = event_types_validate(events)
    with transaction.atomic():
        if WebhookEndpoint.objects.filter(tenant_id=tenant_id).count() >= MAX_ENDPOINTS_PER_TENANT:
            raise Conflict(
                f"A tenant has at most {MAX_ENDPOINTS_PER_TENANT} webhook endpoints.",
                code="webhook_limit",
            )
        secret = signing.secret_generate()
        endpoint = WebhookEndpoint.objects.create(
            tenant_id=tenant_id, url=url, event_types=event_types, description=description,
            active=active, secret=secret, created_by=actor,
        )  # fmt: skip
        _endpoint_audit(endpoint, "webhook.create", actor)
    return endpoint, secret


def webhook_endpoint_update(
    *, endpoint: WebhookEndpoint, changes: dict[str, Any], actor: str
) -> WebhookEndpoint:
    """Change ``url``, ``events``, ``description`` or ``active``; a new URL is checked again."""
    if "url" in changes:
        endpoint.url = url_validate(changes["url"])
    if "events" in changes:
        endpoint.event_types = event_types_validate(changes["events"])
    if "description" in changes:
        endpoint.description = str(changes["description"])
    if "active" in changes:
        endpoint.active = bool(changes["active"])
    with transaction.atomic():
        endpoint.save(update_fields=["url", "event_types", "description", "active", "updated_at"])
        _endpoint_audit(endpoint, "webhook.update", actor)
    return endpoint


def webhook_endpoint_delete(*, endpoint: WebhookEndpoint, actor: str) -> None:
    """Delete the endpoint and its delivery log (pending deliveries are not sent)."""
    with transaction.atomic():
        _endpoint_audit(endpoint, "webhook.delete", actor)
        WebhookEndpoint.objects.filter(pk=endpoint.pk, tenant_id=endpoint.tenant_id).delete()


def webhook_endpoint_rotate_secret(*, endpoint: WebhookEndpoint, actor: str) -> str:
    """A new secret (returned once). The old one keeps signing beside it for ``ROTATION_GRACE``."""
    secret = signing.secret_generate()
    with transaction.atomic():
        WebhookEndpoint.objects.filter(pk=endpoint.pk, tenant_id=endpoint.tenant_id).update(
            previous_secret=F("secret"),
            previous_secret_until=timezone.now() + ROTATION_GRACE,
            secret=secret,
            updated_at=timezone.now(),
        )
        endpoint.refresh_from_db()
        audit_record(
            tenant=endpoint.tenant_id, actor=actor, action="webhook.rotate_secret",
            target_type="webhook", target_id=endpoint.pk, after={"url": endpoint.url},
        )  # fmt: skip
    return secret


# --- The outbox -------------------------------------------------------------------------------


# Within ``webhook_endpoints_read_once``: each tenant's listening endpoints, read once.
_read: ContextVar[dict[int, list[tuple[uuid.UUID, list[str]]]] | None] = ContextVar(
    "webhook_endpoints_read", default=None
)


@contextmanager
def webhook_endpoints_read_once() -> Iterator[None]:
    """Inside the block, ``webhook_emit`` reads each tenant's endpoints once, not once per event
    (an extraction run writes its facts in one transaction: one read instead of one per fact).
    An endpoint added or disabled meanwhile counts from the next block on."""
    token = _read.set({})
    try:
        yield
    finally:
        _read.reset(token)


def _endpoints(tenant_id: int) -> list[tuple[uuid.UUID, list[str]]]:
    memo = _read.get()
    if memo is not None and tenant_id in memo:
        return memo[tenant_id]
    endpoints = list(
        WebhookEndpoint.objects.filter(tenant_id=tenant_id, active=True).values_list(
            "id", "event_types"
        )
    )
    if memo is not None:
        memo[tenant_id] = endpoints
    return endpoints


def webhook_emit(
    *, tenant_id: int, events: list[tuple[str, EventData]], end_user_id: int | None = None
) -> list[WebhookEvent]:
    """Record events for the tenant's active endpoints subscribed to them, in the caller's
    transaction, and send their deliveries when it commits (nothing is sent for a change that
    rolls back). ``data`` may be a function: it is called only when an endpoint listens.

    One query when no endpoint listens (none in a ``webhook_endpoints_read_once`` block that
    read them already); never another tenant's endpoints.
    """
    endpoints = _endpoints(tenant_id)
    if not endpoints:
        return []
    now = timezone.now()
    recorded: list[WebhookEvent] = []
    deliveries: list[WebhookDelivery] = []
    for type_, data in events:
        listening = [pk for pk, types in endpoints if type_ in types]
        if not listening:
            continue
        payload = {
            "type": type_,
            "timestamp": now.isoformat(),
            "data": data() if callable(data) else data,
        }
        event = WebhookEvent(
            tenant_id=tenant_id, type=type_, payload=payload, end_user_id=end_user_id
        )
        recorded.append(event)
        deliveries += [
            WebhookDelivery(tenant_id=tenant_id, event=event, endpoint_id=pk, next_attempt_at=now)
            for pk in listening
        ]
    if recorded:
        WebhookEvent.objects.bulk_create(recorded)
        WebhookDelivery.objects.bulk_create(deliveries)
        ids = [d.pk for d in deliveries]
        transaction.on_commit(lambda: _send_all(ids))
    return recorded


def _send(delivery_id: Any, countdown: float = 0) -> None:
    # After commit: the change is acknowledged, so a broker that is down must not fail the
    # request. The delivery row stays pending and the sweep sends it when the broker is back.
    try:
        current_app.signature(DELIVER_TASK, args=[str(delivery_id)]).apply_async(
            countdown=countdown
        )
    except Exception as exc:
        logger.warning("webhook delivery %s not enqueued (%s); the sweep sends it", delivery_id,
                       type(exc).__name__)  # fmt: skip


def _send_all(delivery_ids: list[Any]) -> None:
    for pk in delivery_ids:
        _send(pk)


# --- Deliveries -------------------------------------------------------------------------------


def retry_delay(attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones: exponential, capped."""
    base = settings.WEBHOOK_RETRY_SECONDS
    return float(min(base * 2 ** max(attempts - 1, 0), settings.WEBHOOK_RETRY_MAX_SECONDS))


def _secrets_in_force(endpoint: WebhookEndpoint, now: datetime.datetime) -> list[str]:
    in_grace = endpoint.previous_secret_until and endpoint.previous_secret_until > now
    return [endpoint.secret, *([endpoint.previous_secret] if in_grace else [])]


def _post(
    endpoint: WebhookEndpoint, event: WebhookEvent, now: datetime.datetime
) -> tuple[int | None, str, bool]:
    """(response code, error, whether the failure is final); the error names what happened,
    never the response body (ADR 0024)."""
    if not endpoint.active:
        return None, "the endpoint is disabled", True
    body = signing.body_bytes(event.payload)
    headers = signing.headers(
        secrets_in_force=_secrets_in_force(endpoint, now), msg_id=str(event.pk),
        timestamp=int(now.timestamp()), body=body,
    )  # fmt: skip
    try:
        code = transport.post(
            endpoint.url, body, headers, timeout=settings.WEBHOOK_TIMEOUT,
            allow_private=settings.WEBHOOK_ALLOW_PRIVATE,
        )  # fmt: skip
    except OutboundRefused as exc:
        return None, f"refused: {exc} ({exc.code})", exc.code in FINAL_REFUSALS
    except TimeoutError:
        return None, f"no answer within {settings.WEBHOOK_TIMEOUT} s", False
    except (OSError, http.client.HTTPException) as exc:
        return None, f"connection failed: {type(exc).__name__}", False
    if 200 <= code < 300:
        return code, "", False
    return code, f"endpoint answered {code}", False


def webhook_delivery_attempt(*, delivery_id: Any) -> WebhookDelivery | None:
    """One attempt of a delivery that is due. Claimed first (``pending`` → ``sending``), so a
    message delivered twice sends once. A failure is retried with exponential backoff up to
    ``WEBHOOK_MAX_ATTEMPTS``; an address the rules refuse fails at once."""
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    ).update(status=DeliveryStatus.SENDING, attempts=F("attempts") + 1, last_attempt_at=now)
    if claimed != 1:
        return None
    delivery = (
        WebhookDelivery.objects.select_related("event", "endpoint").filter(pk=delivery_id).first()
    )
    if delivery is None:  # its endpoint was deleted since the claim
        return None
    started = time.perf_counter()
    code, error, final = _post(delivery.endpoint, delivery.event, now)
    delivery.duration_ms = round((time.perf_counter() - started) * 1000, 2)
    delivery.response_code, delivery.error = code, error
    delay = 0.0
    if not error:
        delivery.status, delivery.delivered_at = DeliveryStatus.DELIVERED, timezone.now()
    elif final or delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        delivery.status = DeliveryStatus.FAILED
    else:
        delay = retry_delay(delivery.attempts)
        delivery.status = DeliveryStatus.PENDING
        delivery.next_attempt_at = timezone.now() + datetime.timedelta(seconds=delay)
    # An update, not save(): the endpoint (and so this row) may have been deleted meanwhile.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=delivery.status, response_code=code, error=error, duration_ms=delivery.duration_ms,
        delivered_at=delivery.delivered_at, next_attempt_at=delivery.next_attempt_at,
    )  # fmt: skip
    metrics.webhook_attempts.labels(
        {DeliveryStatus.PENDING: "retrying"}.get(delivery.status, delivery.status)
    ).inc()
    if error:
        logger.info(
            "webhook delivery failed",
            extra={"delivery": str(delivery.pk), "attempt": delivery.attempts, "error": error,
                   "status": delivery.status},
        )  # fmt: skip
    if delivery.status == DeliveryStatus.PENDING and delay <= DIRECT_RETRY_MAX_SECONDS:
        _send(delivery.pk, countdown=delay)
    return delivery


def webhook_delivery_replay(*, delivery: WebhookDelivery, actor: str) -> WebhookDelivery:
    """Send the delivery's event to its endpoint again: a new delivery in the log, the same
    event, so the same ``webhook-id`` (a receiver that already has it can drop it)."""
    endpoint = delivery.endpoint
    if not endpoint.active:
        raise Conflict("The endpoint is disabled; enable it first.", code="webhook_inactive")
    with transaction.atomic():
        replay = WebhookDelivery.objects.create(
            tenant_id=delivery.tenant_id, event_id=delivery.event_id, endpoint=endpoint,
            next_attempt_at=timezone.now(), replay_of=delivery, created_by=actor,
        )  # fmt: skip
        audit_record(
            tenant=delivery.tenant_id, actor=actor, action="webhook.replay",
            target_type="webhook_delivery", target_id=delivery.pk, after={"replay": str(replay.pk)},
        )  # fmt: skip
        transaction.on_commit(lambda: _send(replay.pk))
    return replay


def webhook_deliveries_sweep(*, now: datetime.datetime | None = None) -> int:
    """Periodic (beat): send the deliveries that are due and have no message on the way (a
    retry later than ``DIRECT_RETRY_MAX_SECONDS``, a message lost with a worker), and put back
    attempts a dead worker left ``sending``. Returns how many were sent."""
    now = now or timezone.now()
    stuck = now - datetime.timedelta(seconds=settings.WEBHOOK_TIMEOUT) - SWEEP_GRACE
    WebhookDelivery.objects.filter(status=DeliveryStatus.SENDING, last_attempt_at__lt=stuck).update(
        status=DeliveryStatus.PENDING, next_attempt_at=now - SWEEP_GRACE
    )
    due = list(
        WebhookDelivery.objects.filter(
            status=DeliveryStatus.PENDING, next_attempt_at__lte=now - SWEEP_GRACE
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for pk in due:
        _send(pk)
    return len(due)
