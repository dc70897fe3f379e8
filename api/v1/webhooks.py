"""Webhook endpoints of the tenant and their delivery logs (ADR 0031): operator keys not scoped
to one agent manage them (an endpoint receives the events of every agent), viewer keys read.
The secret is in the answer to a create and a rotation, and never again."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import IsOperatorKey
from api.schema import conflict
from api.serializers import StrictSerializer
from api.v1.common import principal_of
from core.errors import Forbidden
from webhooks.models import DeliveryStatus, EventType, WebhookEndpoint
from webhooks.selectors import (
    webhook_delivery_get_for_tenant,
    webhook_delivery_list,
    webhook_endpoint_get_for_tenant,
    webhook_endpoint_list,
)
from webhooks.services import (
    webhook_delivery_replay,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_rotate_secret,
    webhook_endpoint_update,
)


class ManagesWebhooks(IsOperatorKey):
    def has_permission(self, request: Request, view: Any) -> bool:
        super().has_permission(request, view)
        if principal_of(request).agent_id is not None:
            raise Forbidden(
                "Webhooks are the tenant's: use a key not scoped to one agent.",
                code="permission_denied",
            )
        return True


class WebhookOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.CharField()
    description = serializers.CharField()
    events = serializers.ListField(child=serializers.CharField(), source="event_types")
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Webhook"


class WebhookWithSecretSerializer(WebhookOutputSerializer):
    secret = serializers.CharField(
        help_text="whsec_…: the signing secret, shown only in this answer. Verify "
        "`webhook-signature` with it (docs/webhooks.md)."
    )

    class Meta:
        ref_name = "WebhookWithSecret"


class DeliveryOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    event_id = serializers.UUIDField(help_text="the `webhook-id` header: the same on a replay")
    event_type = serializers.CharField(source="event.type")
    payload = serializers.JSONField(source="event.payload", help_text="the body as sent")
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    response_code = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    next_attempt_at = serializers.DateTimeField()
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    replay_of = serializers.UUIDField(source="replay_of_id", allow_null=True)
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "WebhookDelivery"


def _with_secret(endpoint: WebhookEndpoint, secret: str) -> dict[str, Any]:
    return {**WebhookOutputSerializer(endpoint).data, "secret": secret}


def _endpoint(request: Request, webhook_id: object) -> WebhookEndpoint:
    return webhook_endpoint_get_for_tenant(
        tenant_id=principal_of(request).tenant_id, webhook_id=webhook_id
    )


_EVENTS = serializers.ListField(
    child=serializers.ChoiceField(choices=EventType.choices), allow_empty=False, max_length=20
)


class WebhookListApi(APIView):
    permission_classes = [ManagesWebhooks]

    class InputSerializer(StrictSerializer):
        url = serializers.CharField(max_length=2000)
        events = _EVENTS
        description = serializers.CharField(
            max_length=500, required=False, default="", allow_blank=True
        )
        active = serializers.BooleanField(required=False, default=True)

        class Meta:
            ref_name = "WebhookCreate"

    @extend_schema(responses=WebhookOutputSerializer(many=True), tags=["webhooks"])
    def get(self, request: Request) -> Response:
        endpoints = webhook_endpoint_list(tenant_id=principal_of(request).tenant_id)
        return Response(WebhookOutputSerializer(endpoints, many=True).data)

    @extend_schema(
        request=InputSerializer,
        responses={201: WebhookWithSecretSerializer, 409: conflict("webhook_limit")},
        tags=["webhooks"],
        description="Add an endpoint. The URL must pass the outbound rules (http(s), a host "
        "resolving only to public addresses): else 400 `outbound_address_refused`, "
        "`outbound_url_invalid` or `outbound_host_unresolved`, and nothing is stored.",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        principal = principal_of(request)
        endpoint, secret = webhook_endpoint_create(
            tenant_id=principal.tenant_id, actor=principal.actor, **serializer.validated_data
        )
        return Response(_with_secret(endpoint, secret), status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    permission_classes = [ManagesWebhooks]

    class InputSerializer(StrictSerializer):
        url = serializers.CharField(max_length=2000, required=False)
        events = serializers.ListField(
            child=serializers.ChoiceField(choices=EventType.choices), allow_empty=False,
            max_length=20, required=False,
        )  # fmt: skip
        description = serializers.CharField(max_length=500, required=False, allow_blank=True)
        active = serializers.BooleanField(required=False)

        class Meta:
            ref_name = "WebhookUpdate"

    @extend_schema(responses=WebhookOutputSerializer, tags=["webhooks"])
    def get(self, request: Request, webhook_id: str) -> Response:
        return Response(WebhookOutputSerializer(_endpoint(request, webhook_id)).data)

    @extend_schema(request=InputSerializer, responses=WebhookOutputSerializer, tags=["webhooks"])
    def patch(self, request: Request, webhook_id: str) -> Response:
        endpoint = _endpoint(request, webhook_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = webhook_endpoint_update(
            endpoint=endpoint, changes=serializer.validated_data, actor=principal_of(request).actor
        )
        return Response(WebhookOutputSerializer(endpoint).data)

    @extend_schema(request=None, responses={204: None}, tags=["webhooks"])
    def delete(self, request: Request, webhook_id: str) -> Response:
        endpoint = _endpoint(request, webhook_id)
        webhook_endpoint_delete(endpoint=endpoint, actor=principal_of(request).actor)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateApi(APIView):
    permission_classes = [ManagesWebhooks]

    @extend_schema(
        request=None,
        responses=WebhookWithSecretSerializer,
        tags=["webhooks"],
        description="A new signing secret, shown once. For 24 hours the old one signs too "
        "(`webhook-signature` carries both), so receivers can switch without missing events.",
    )
    def post(self, request: Request, webhook_id: str) -> Response:
        endpoint = _endpoint(request, webhook_id)
        secret = webhook_endpoint_rotate_secret(
            endpoint=endpoint, actor=principal_of(request).actor
        )
        return Response(_with_secret(endpoint, secret))


class DeliveryListApi(APIView):
    permission_classes = [ManagesWebhooks]

    class QuerySerializer(StrictSerializer):
        status = serializers.ChoiceField(choices=DeliveryStatus.choices, required=False)
        limit = serializers.IntegerField(min_value=1, max_value=200, required=False, default=50)

        class Meta:
            ref_name = "WebhookDeliveryQuery"

    @extend_schema(
        parameters=[QuerySerializer],
        responses=DeliveryOutputSerializer(many=True),
        tags=["webhooks"],
        description="The endpoint's delivery log, newest first.",
    )
    def get(self, request: Request, webhook_id: str) -> Response:
        endpoint = _endpoint(request, webhook_id)
        serializer = self.QuerySerializer(data=request.query_params.dict())
        serializer.is_valid(raise_exception=True)
        deliveries = webhook_delivery_list(endpoint=endpoint, **serializer.validated_data)
        return Response(DeliveryOutputSerializer(deliveries, many=True).data)


class DeliveryReplayApi(APIView):
    permission_classes = [ManagesWebhooks]

    @extend_schema(
        request=None,
        responses={202: DeliveryOutputSerializer, 409: conflict("webhook_inactive")},
        tags=["webhooks"],
        description="Send the delivery's event again (a new delivery; the same `webhook-id`).",
    )
    def post(self, request: Request, webhook_id: str, delivery_id: str) -> Response:
        principal = principal_of(request)
        delivery = webhook_delivery_get_for_tenant(
            tenant_id=principal.tenant_id, endpoint=_endpoint(request, webhook_id),
            delivery_id=delivery_id,
        )  # fmt: skip
        replay = webhook_delivery_replay(delivery=delivery, actor=principal.actor)
        replay.refresh_from_db()
        return Response(DeliveryOutputSerializer(replay).data, status=status.HTTP_202_ACCEPTED)
