"""The schema editor: the versions of an agent's extraction schema, and an editor that drafts a
new version from any of them, previews its prompt and JSON schema, and publishes it. Published
versions are immutable; activating an older one is the rollback."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.safestring import mark_safe

from console.admin.common import error_text, not_found_is_404, request_actor
from console.forms import SchemaFieldFormSet, schema_field_initial, schema_fields_from
from console.schema_diff import schema_diff
from console.selectors import agent_get_for_console
from core.errors import DomainError
from extraction.extractors.openai import facts_json_schema, facts_prompt
from schemas.models import Agent, ExtractionSchema
from schemas.selectors import schema_list
from schemas.services import schema_activate, schema_publish
from schemas.validation import ValidationFailed, schema_fields_validate
from tenants.admin import TenantScopedAdmin

FIELD_ERROR = re.compile(r"^fields\[(\d+)\](?:\.(\w+))?$")


@admin.register(ExtractionSchema)
class ExtractionSchemaAdmin(TenantScopedAdmin):
    """Published versions are immutable. The editor drafts a new version from any of them and
    publishes it; activating an older version is the rollback."""

    list_display = [
        "agent",
        "version",
        "is_active",
        "field_count",
        "note",
        "created_by",
        "created_at",
        "editor_link",
    ]
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

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a version is made by publishing from the editor

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    @admin.display(description="fields")
    def field_count(self, obj: ExtractionSchema) -> int:
        return len(obj.fields)

    @admin.display(description="")
    def editor_link(self, obj: ExtractionSchema) -> str:
        url = reverse("admin:schemas_extractionschema_editor", args=[obj.agent_id])
        return mark_safe(f'<a href="{url}?base={obj.version}">edit from here</a>')  # noqa: S308

    def get_urls(self) -> list[URLPattern]:
        wrap: Callable[..., Any] = self.admin_site.admin_view
        return [
            path(
                "editor/<int:agent_id>/",
                wrap(self.editor_view),
                name="schemas_extractionschema_editor",
            ),
            path(
                "editor/<int:agent_id>/activate/<int:version>/",
                wrap(self.activate_view),
                name="schemas_extractionschema_activate",
            ),
            *super().get_urls(),
        ]

    def _agent_or_404(self, request: HttpRequest, agent_id: int) -> Agent:
        with not_found_is_404("No such agent."):
            return agent_get_for_console(
                tenant_ids=self._tenant_ids(request, write=False), agent_id=agent_id
            )

    def editor_view(self, request: HttpRequest, agent_id: int) -> HttpResponse:
        agent = self._agent_or_404(request, agent_id)
        can_edit = self._allowed(request, agent, write=True)
        versions = list(schema_list(agent=agent))
        active = next((v for v in versions if v.is_active), None)
        base = active
        if request.GET.get("base"):
            base = next((v for v in versions if str(v.version) == request.GET["base"]), None)
            if base is None:
                raise Http404("No such version.")
        base_fields = base.fields if base else []
        errors: list[str] = []
        draft: list[dict[str, Any]] | None = None
        if request.method == "POST":
            if not can_edit:
                raise PermissionDenied
            formset = SchemaFieldFormSet(request.POST, prefix="f")
            draft, errors = self._draft(formset)
            intent = request.POST.get("intent", "preview")
            if not errors and intent in ("publish", "publish_activate"):
                try:
                    schema, created = schema_publish(
                        agent=agent, fields=draft, note=request.POST.get("note", "")[:500],
                        activate=intent == "publish_activate", actor=request_actor(request),
                    )  # fmt: skip
                except DomainError as exc:
                    errors.append(error_text(exc))
                else:
                    state = "published" if created else "unchanged from"
                    active_text = " and active" if schema.is_active else " (not active)"
                    self.message_user(
                        request, f"{agent.slug} v{schema.version}: {state}{active_text}."
                    )
                    url = reverse("admin:schemas_extractionschema_editor", args=[agent.pk])
                    return HttpResponseRedirect(url)
        else:
            formset = SchemaFieldFormSet(initial=schema_field_initial(base_fields), prefix="f")
        preview_fields = draft if draft else base_fields
        active_fields = active.fields if active else []
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Schema editor: {agent.slug}",
            "is_nav_sidebar_enabled": False,
            "agent": agent,
            "can_edit": can_edit,
            "formset": formset,
            "errors": errors,
            "base": base,
            "active": active,
            "versions": [(v, schema_diff(active_fields, v.fields)) for v in versions],
            "draft_diff": schema_diff(active_fields, draft) if draft else None,
            "prompt": facts_prompt(preview_fields) if preview_fields else "",
            "json_schema": json.dumps(facts_json_schema(preview_fields), indent=2)
            if preview_fields
            else "",
        }
        return TemplateResponse(request, "admin/console/schema_editor.html", context)

    def _draft(self, formset: Any) -> tuple[list[dict[str, Any]], list[str]]:
        """The draft fields from the form rows, validated by the schema validator; its errors
        are put on the rows and cells they are about."""
        errors: list[str] = []
        if not formset.is_valid():
            errors.append("Fix the highlighted fields.")
            return [], errors
        rows = schema_fields_from(formset)
        draft = [field for _, field in rows]
        try:
            schema_fields_validate(draft)
        except ValidationFailed as exc:
            for place, problems in exc.errors.items():
                match = FIELD_ERROR.match(place)
                if match and int(match.group(1)) < len(rows):
                    form = formset.forms[rows[int(match.group(1))][0]]
                    cell = match.group(2)
                    form.add_error(cell if cell in form.fields else None, " ".join(problems))
                else:
                    errors.append(f"{place}: {' '.join(problems)}")
            errors.insert(0, "The schema is not valid; nothing was published.")
        return draft, errors

    def activate_view(self, request: HttpRequest, agent_id: int, version: int) -> HttpResponse:
        agent = self._agent_or_404(request, agent_id)
        if request.method != "POST" or not self._allowed(request, agent, write=True):
            raise PermissionDenied
        try:
            schema_activate(agent=agent, version=version, actor=request_actor(request))
        except DomainError as exc:
            self.message_user(request, error_text(exc), level=messages.ERROR)
        else:
            self.message_user(request, f"{agent.slug} v{version} is now active.")
        return HttpResponseRedirect(
            reverse("admin:schemas_extractionschema_editor", args=[agent.pk])
        )
