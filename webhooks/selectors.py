"""Reads of webhook endpoints and their delivery logs, always within one tenant: another
tenant's endpoint or delivery is ``NotFound``, like one that does not exist."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from core.errors import NotFound
from webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint


def _uuid(value: object, code: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise NotFound(f"No {what} {value!r}.", code=code) from None


def webhook_endpoint_list(*, tenant_id: int) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(tenant_id=tenant_id).order_by("created_at", "id")


def webhook_endpoint_get_for_tenant(*, tenant_id: int, webhook_id: object) -> WebhookEndpoint:
    pk = _uuid(webhook_id, "webhook_not_found", "webhook endpoint")
    endpoint = WebhookEndpoint.objects.filter(tenant_id=tenant_id, pk=pk).first()
    if endpoint is None:
        raise NotFound(f"No webhook endpoint {webhook_id!r}.", code="webhook_not_found")
    return endpoint


def webhook_delivery_list(
    *, endpoint: WebhookEndpoint, status: str | None = None, limit: int = 50
) -> list[WebhookDelivery]:
    """The endpoint's delivery log, newest first, with each delivery's event."""
    deliveries = WebhookDelivery.objects.filter(
        tenant_id=endpoint.tenant_id, endpoint_id=endpoint.pk
    ).select_related("event")
    if status is not None:
        if status not in DeliveryStatus.values:
            raise NotFound(f"No delivery status {status!r}.", code="not_found")
        deliveries = deliveries.filter(status=status)
    return list(deliveries.order_by("-created_at", "-id")[:limit])


def webhook_delivery_get_for_tenant(
    *, tenant_id: int, endpoint: WebhookEndpoint, delivery_id: object
) -> WebhookDelivery:
    pk = _uuid(delivery_id, "delivery_not_found", "delivery")
    delivery = (
        WebhookDelivery.objects.filter(tenant_id=tenant_id, endpoint_id=endpoint.pk, pk=pk)
        .select_related("event", "endpoint")
        .first()
    )
    if delivery is None:
        raise NotFound(f"No delivery {delivery_id!r}.", code="delivery_not_found")
    return delivery
