from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.forms import ModelForm
from django.http import HttpRequest

from schemas.models import Agent, ExtractionSchema
from schemas.services import agent_create, agent_settings_update, agent_update, schema_activate
from schemas.validation import SETTINGS, ValidationFailed, agent_settings_validate
from tenants.admin import TenantScopedAdmin
from tenants.errors import DomainError
from tenants.services import actor_for_user


class AgentAdminForm(ModelForm):
    """Runs the same validation as the API, so an operator sees each error at its field
    instead of a saved page with an error message."""

    class Meta:
        model = Agent
        fields = ["tenant", "slug", "name", "description", *SETTINGS]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        changes = {name: cleaned[name] for name in SETTINGS if name in cleaned}
        current = self.instance.settings_dict() if self.instance.pk else None
        try:
            agent_settings_validate(changes, current=current)
        except ValidationFailed as exc:
            for place, problems in exc.errors.items():
                for problem in problems:
                    self.add_error(place if place in self.fields else None, problem)
        tenant, slug = cleaned.get("tenant"), cleaned.get("slug")
        if (
            not self.instance.pk
            and tenant
            and slug
            and Agent.objects.filter(tenant=tenant, slug=slug).exists()
        ):
            self.add_error("slug", f"An agent {slug!r} already exists in this tenant.")
        return cleaned


@admin.register(Agent)
class AgentAdmin(TenantScopedAdmin):
    form = AgentAdminForm
    list_display = [
        "slug",
        "name",
        "tenant",
        "extractor",
        "extraction_token_threshold",
        "updated_at",
    ]
    list_filter = ["extractor"]
    list_select_related = ["tenant"]
    search_fields = ["slug", "name"]
    fieldsets = [
        (None, {"fields": ["tenant", "slug", "name", "description"]}),
        ("Settings (take effect on the next read or run)", {"fields": list(SETTINGS)}),
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return ["tenant", "slug"] if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Agent, form: ModelForm, change: bool) -> None:
        actor = actor_for_user(request.user)  # type: ignore[arg-type]
        settings = {name: form.cleaned_data[name] for name in SETTINGS if name in form.cleaned_data}
        try:
            if change:
                agent_update(agent=obj, name=obj.name, description=obj.description, actor=actor)
                agent_settings_update(agent=obj, changes=settings, actor=actor)
            else:
                created = agent_create(
                    tenant_id=obj.tenant_id, slug=obj.slug, name=obj.name,
                    description=obj.description, settings=settings, actor=actor,
                )  # fmt: skip
                obj.pk = created.pk
        except DomainError as exc:
            self.message_user(request, exc.detail, level=messages.ERROR)


@admin.register(ExtractionSchema)
class ExtractionSchemaAdmin(TenantScopedAdmin):
    list_display = ["agent", "version", "is_active", "note", "created_by", "created_at"]
    list_filter = ["is_active"]
    list_select_related = ["agent"]
    readonly_fields = [
        "tenant",
        "agent",
        "version",
        "fields",
        "note",
        "is_active",
        "created_by",
        "created_at",
    ]
    actions = ["activate"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # versions are published through the API (the editor comes with the console)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        # Published versions are immutable; "change" here only unlocks the activate action.
        return obj is None and super().has_change_permission(request, obj)

    @admin.action(description="Activate the selected version")
    def activate(self, request: HttpRequest, queryset: QuerySet[ExtractionSchema]) -> None:
        ids = self._tenant_ids(request, write=True)
        if ids is not None:
            queryset = queryset.filter(tenant_id__in=ids)
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one version.", level=messages.ERROR)
            return
        schema = queryset.select_related("agent").get()
        schema_activate(
            agent=schema.agent,
            version=schema.version,
            actor=actor_for_user(request.user),  # type: ignore[arg-type]
        )
        self.message_user(request, f"{schema.agent.slug} v{schema.version} is now active.")
