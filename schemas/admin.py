from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Model
from django.forms import ModelForm
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from core.errors import DomainError
from schemas.models import Agent
from schemas.services import agent_create, agent_settings_update, agent_update
from schemas.validation import SETTINGS, ValidationFailed, agent_settings_validate
from tenants.admin import TenantScopedAdmin
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

    def get_fieldsets(self, request: HttpRequest, obj: Model | None = None) -> Any:
        if obj is None:
            return self.fieldsets
        return [
            (None, {"fields": ["tenant", "slug", "name", "description", "extraction_schema"]}),
            *self.fieldsets[1:],
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        return ["tenant", "slug", "extraction_schema"] if obj is not None else []

    @admin.display(description="extraction schema")
    def extraction_schema(self, obj: Agent) -> str:
        active = obj.schemas.filter(is_active=True).values_list("version", flat=True).first()
        url = reverse("admin:schemas_extractionschema_editor", args=[obj.pk])
        state = f"v{active} active" if active else "none active"
        return format_html('{} · <a href="{}">open the schema editor</a>', state, url)

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
