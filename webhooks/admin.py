"""The operator console's webhooks: endpoints (the secret shown once, on creation and
rotation), the delivery log with each attempt's outcome, and a replay button. Every change
goes through the services the API calls (audited)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from core.errors import DomainError, Invalid
from tenants.admin import CappedCountPaginator, TenantScopedAdmin
from tenants.services import actor_for_user
from webhooks.models import EventType, WebhookDelivery, WebhookEndpoint
from webhooks.services import (
    url_validate,
    webhook_delivery_replay,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_rotate_secret,
    webhook_endpoint_update,
)


class EndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=EventType.choices, widget=forms.CheckboxSelectMultiple, required=True
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["tenant", "url", "description", "active"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["events"].initial = self.instance.event_types

    def clean_url(self) -> str:
        try:
            return url_validate(self.cleaned_data["url"])
        except Invalid as exc:  # the API's rule and message, at the field
            raise forms.ValidationError(exc.detail.removeprefix("url: "), code=exc.code) from None


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(TenantScopedAdmin):
    form = EndpointForm
    list_display = ["url", "tenant", "events_shown", "active", "created_at"]
    list_filter = ["active"]
    list_select_related = ["tenant"]
    search_fields = ["url", "description"]
    actions = ["rotate_secret", "delete_endpoints"]

    @admin.display(description="events")
    def events_shown(self, obj: WebhookEndpoint) -> str:
        return ", ".join(obj.event_types)

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return ["tenant"] if obj is not None else []

    def save_model(
        self, request: HttpRequest, obj: WebhookEndpoint, form: forms.ModelForm, change: bool
    ) -> None:
        actor = actor_for_user(request.user)  # type: ignore[arg-type]
        data = form.cleaned_data
        if change:
            changes: dict[str, Any] = {
                k: data[k] for k in ("url", "description", "active") if k in data
            }
            webhook_endpoint_update(
                endpoint=obj, changes={**changes, "events": data["events"]}, actor=actor
            )
            return
        endpoint, secret = webhook_endpoint_create(
            tenant_id=obj.tenant_id, url=data["url"], events=data["events"],
            description=data.get("description", ""), active=data.get("active", True), actor=actor,
        )  # fmt: skip
        obj.pk = endpoint.pk
        self.message_user(
            request,
            f"Webhook endpoint created. Its signing secret, shown only now: {secret}",
            level=messages.WARNING,
        )

    def _writable(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        ids = self._tenant_ids(request, write=True)
        return queryset if ids is None else queryset.filter(tenant_id__in=ids)

    @admin.action(description="Rotate the signing secret (the old one signs for 24 h more)")
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        for endpoint in self._writable(request, queryset):
            secret = webhook_endpoint_rotate_secret(
                endpoint=endpoint,
                actor=actor_for_user(request.user),  # type: ignore[arg-type]
            )
            self.message_user(
                request,
                f"New secret for {endpoint.url}, shown only now: {secret}",
                messages.WARNING,
            )

    @admin.action(description="Delete the selected endpoints and their delivery logs")
    def delete_endpoints(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        endpoints = list(self._writable(request, queryset))
        for endpoint in endpoints:
            webhook_endpoint_delete(endpoint=endpoint, actor=actor_for_user(request.user))  # type: ignore[arg-type]
        self.message_user(request, f"Deleted {len(endpoints)} endpoint(s).")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(TenantScopedAdmin):
    list_display = [
        "created_at",
        "event_type",
        "endpoint",
        "status",
        "attempts",
        "response_code",
        "error",
    ]
    list_filter = ["status", "event__type", "created_at"]
    list_select_related = ["event", "endpoint"]
    search_fields = ["=id", "=event__id"]
    readonly_fields = [
        "tenant", "endpoint", "event_id", "event_type", "status", "attempts", "response_code",
        "error", "duration_ms", "next_attempt_at", "last_attempt_at", "delivered_at",
        "replay_of", "created_by", "created_at", "body",
    ]  # fmt: skip
    fields = tuple(readonly_fields)
    raw_id_fields = ["endpoint", "replay_of"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    paginator = CappedCountPaginator
    actions = ["replay"]
    change_form_template = "admin/webhooks/delivery_change_form.html"

    @admin.display(description="event")
    def event_type(self, obj: WebhookDelivery) -> str:
        return obj.event.type

    @admin.display(description="body (as sent, signed)")
    def body(self, obj: WebhookDelivery) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.event.payload, indent=2, sort_keys=True))

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # the log is read-only; replay is the one action

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_urls(self) -> list[URLPattern]:
        wrap: Callable[..., Any] = self.admin_site.admin_view
        return [
            path(
                "<uuid:pk>/replay/", wrap(self.replay_view), name="webhooks_webhookdelivery_replay"
            ),
            *super().get_urls(),
        ]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:  # fmt: skip
        obj = self.get_object(request, object_id)
        can_replay = obj is not None and self._allowed(request, obj, write=True)
        return super().change_view(
            request, object_id, form_url, {**(extra_context or {}), "can_replay": can_replay}
        )

    def _replay(self, request: HttpRequest, delivery: WebhookDelivery) -> WebhookDelivery | None:
        try:
            return webhook_delivery_replay(
                delivery=delivery,
                actor=actor_for_user(request.user),  # type: ignore[arg-type]
            )
        except DomainError as exc:
            self.message_user(request, f"Not replayed: {exc.detail}", messages.ERROR)
            return None

    def replay_view(self, request: HttpRequest, pk: Any) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        delivery = self.get_queryset(request).filter(pk=pk).first()
        if delivery is None or not self._allowed(request, delivery, write=True):
            raise Http404("Not found.")
        replay = self._replay(request, delivery)
        if replay is None:
            return HttpResponseRedirect(reverse("admin:webhooks_webhookdelivery_change", args=[pk]))
        self.message_user(request, "Replayed: a new delivery of the same event (same webhook-id).")
        return HttpResponseRedirect(
            reverse("admin:webhooks_webhookdelivery_change", args=[replay.pk])
        )

    @admin.action(description="Replay the selected deliveries (same webhook-id)")
    def replay(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        ids = self._tenant_ids(request, write=True)
        if ids is not None:
            queryset = queryset.filter(tenant_id__in=ids)
        done = [
            r for r in (self._replay(request, d) for d in queryset.select_related("endpoint")) if r
        ]
        self.message_user(
            request, f"Replayed {len(done)} deliver{'y' if len(done) == 1 else 'ies'}."
        )
