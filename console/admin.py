"""The operator console: the end user page (facts, timeline, as-of block, corrections) and the
schema editor. Every action calls the service the API calls, which audits it; another tenant's
object answers 404.

These pages compose every domain app (memory facts, extraction runs and prompts, schemas), so
they live here, above all of them (ADR 0011).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    StreamingHttpResponse,
)
from django.shortcuts import render
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.safestring import mark_safe

from console.forms import (
    AsOfForm,
    CorrectForm,
    EraseForm,
    ForgetForm,
    SchemaFieldFormSet,
    operator_value_parse,
    schema_field_initial,
    schema_fields_from,
)
from console.schema_diff import schema_diff
from console.timeline import SOURCE_COLOURS, Version, timeline_svg
from core.errors import DomainError, Invalid
from extraction.extractors.openai import facts_json_schema, facts_prompt
from extraction.models import ExtractionRun
from extraction.services import extraction_operator_request
from memory.erasure import erasure_request
from memory.export import user_export_record, user_export_stream
from memory.models import EndUser, Entity, HotDocument, Session, Source, Turn
from memory.selectors import context_block_as_of, entity_list
from memory.services import entity_correct, entity_forget, entity_pin_set
from schemas.models import Agent, ExtractionSchema
from schemas.selectors import schema_active, schema_list
from schemas.services import schema_activate, schema_publish
from schemas.validation import ValidationFailed, schema_fields_validate
from tenants.admin import CappedCountPaginator, TenantScopedAdmin
from tenants.services import actor_for_user

CONFIDENCE_GROUPS = [
    (Source.EXPLICIT, "Explicit: the user said it"),
    (Source.CONFIRMED, "Confirmed: the user agreed to it"),
    (Source.OPERATOR, "Set by an operator"),
    (Source.INFERRED, "Inferred: a possibility, never asserted"),
]
RECENT_SESSIONS = 10


def _actor(request: HttpRequest) -> str:
    return actor_for_user(request.user)  # type: ignore[arg-type]


def _ref_label(ref: tuple[str, int]) -> str:
    return f"{ref[0][:8]}#{ref[1]}"


@admin.register(EndUser)
class EndUserConsoleAdmin(TenantScopedAdmin):
    """The end user page. Reads for every member of the tenant; actions for operators."""

    list_display = ["external_id", "tenant", "created_at"]
    search_fields = ["external_id"]
    list_select_related = ["tenant"]
    show_full_result_count = False
    paginator = CappedCountPaginator

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # no model form: changes are the console's actions, checked one by one

    def _can_act(self, request: HttpRequest, obj: EndUser) -> bool:
        return self._allowed(request, obj, write=True)

    def get_urls(self) -> list[URLPattern]:
        wrap: Callable[..., Any] = self.admin_site.admin_view
        return [
            path("<int:pk>/act/", wrap(self.act_view), name="memory_enduser_act"),
            path(
                "<int:pk>/forget/<uuid:entity_id>/",
                wrap(self.forget_view),
                name="memory_enduser_forget",
            ),
            path("<int:pk>/export/", wrap(self.export_view), name="memory_enduser_export"),
            path("<int:pk>/erase/", wrap(self.erase_view), name="memory_enduser_erase"),
            *super().get_urls(),
        ]

    # -- reading -----------------------------------------------------------------------------

    def _user_or_404(self, request: HttpRequest, pk: object) -> EndUser:
        user = self.get_queryset(request).filter(pk=pk).first()
        if user is None:
            raise Http404("No such user.")
        return user

    def _agents(self, user: EndUser) -> QuerySet[Agent]:
        return Agent.objects.filter(tenant_id=user.tenant_id).order_by("slug")

    def _agent(self, request: HttpRequest, user: EndUser) -> Agent | None:
        agents = self._agents(user)
        slug = request.GET.get("agent") or request.POST.get("agent")
        if slug:
            agent = agents.filter(slug=slug).first()
            if agent is None:
                raise Http404("No such agent.")
            return agent
        latest = (
            Session.objects.filter(tenant_id=user.tenant_id, end_user=user)
            .order_by("-last_activity_at")
            .values_list("agent_id", flat=True)
            .first()
        )
        return agents.filter(pk=latest).first() if latest else agents.first()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        user = self._user_or_404(request, object_id)
        agent = self._agent(request, user)
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"User {user.external_id}",
            "subtitle": user.external_id,
            "end_user": user,
            "agent": agent,
            "agents": self._agents(user),
            "can_act": self._can_act(request, user),
            "is_nav_sidebar_enabled": False,  # the page needs the width
            "export_url": reverse("admin:memory_enduser_export", args=[user.pk]),
            "erase_url": reverse("admin:memory_enduser_erase", args=[user.pk]),
        }
        if agent is not None:
            context.update(self._page(request, user, agent))
        return TemplateResponse(request, "admin/console/enduser.html", context)

    def _page(self, request: HttpRequest, user: EndUser, agent: Agent) -> dict[str, Any]:
        now = timezone.now()
        current = list(entity_list(agent=agent, end_user=user, now=now))
        groups = [
            (label, SOURCE_COLOURS.get(source, ""), [e for e in current if e.source == source])
            for source, label in CONFIDENCE_GROUPS
        ]
        history = list(entity_list(agent=agent, end_user=user, status="any"))
        refs = {e.pk: _refs_keys(e) for e in history}
        versions = [
            Version(
                id=str(e.pk),
                key=e.key,
                value_text=e.value_text,
                source=e.source,
                status=e.status,
                valid_from=e.valid_from,
                valid_until=e.valid_until,
                recorded_at=e.recorded_at,
                expires_at=e.expires_at,
                pinned=e.pinned,
                source_turns=[_ref_label(ref) for ref in refs[e.pk]],
            )
            for e in history
        ]
        turn_texts = self._source_turn_texts(user, refs.values())
        as_of_form = AsOfForm(request.GET or None)
        as_of = known_at = None
        if as_of_form.is_valid():
            as_of = as_of_form.cleaned_data["as_of"]
            known_at = as_of_form.cleaned_data["known_at"]
        block = context_block_as_of(agent=agent, end_user=user, as_of=as_of, known_at=known_at)
        document = HotDocument.objects.filter(
            tenant_id=user.tenant_id, agent=agent, end_user=user
        ).first()
        return {
            "groups": groups,
            "pinned": [e for e in current if e.pinned],
            "current_count": len(current),
            "history": [
                (e, [(_ref_label(k), turn_texts.get(k)) for k in refs[e.pk]]) for e in history
            ],
            "timeline": mark_safe(timeline_svg(versions, now=now)),  # noqa: S308  # escaped inside
            "document": document,
            "sessions": Session.objects.filter(
                tenant_id=user.tenant_id, end_user=user, agent=agent
            ).order_by("-last_activity_at")[:RECENT_SESSIONS],
            "runs": ExtractionRun.objects.filter(
                tenant_id=user.tenant_id, end_user=user, agent=agent
            ).order_by("-created_at")[:5],
            "as_of_form": as_of_form,
            "as_of": as_of,
            "known_at": known_at,
            "as_of_block": block,
            "now": now,
        }

    def _source_turn_texts(
        self, user: EndUser, refs: Iterable[list[tuple[str, int]]]
    ) -> dict[tuple[str, int], str]:
        wanted = {key for keys in refs for key in keys}
        if not wanted:
            return {}
        sessions = {s for s, _ in wanted}
        turns = Turn.objects.filter(
            tenant_id=user.tenant_id, end_user=user, session_id__in=sessions,
            seq__in={seq for _, seq in wanted},
        ).values_list("session_id", "seq", "text")  # fmt: skip
        return {(str(s), q): t for s, q, t in turns if (str(s), q) in wanted}

    # -- actions -----------------------------------------------------------------------------

    def _entity(self, user: EndUser, agent: Agent, entity_id: uuid.UUID | str | None) -> Entity:
        try:
            entity_id = uuid.UUID(str(entity_id))
        except ValueError:
            raise Http404("No such fact.") from None
        entity = (
            Entity.objects.filter(
                tenant_id=user.tenant_id, end_user=user, agent=agent, pk=entity_id
            )
            .select_related("agent", "end_user")
            .first()
        )
        if entity is None:
            raise Http404("No such fact.")
        return entity

    def _back(self, user: EndUser, agent: Agent | None) -> HttpResponseRedirect:
        url = reverse("admin:memory_enduser_change", args=[user.pk])
        return HttpResponseRedirect(f"{url}?agent={agent.slug}" if agent else url)

    def act_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        user = self._user_or_404(request, pk)
        if request.method != "POST":
            return self._back(user, None)
        if not self._can_act(request, user):
            raise PermissionDenied
        agent = self._agent(request, user)
        if agent is None:
            raise Http404("No agent.")
        action = request.POST.get("action", "")
        try:
            message = self._act(request, action, user, agent)
        except DomainError as exc:
            self.message_user(request, _error_text(exc), level=messages.ERROR)
        else:
            self.message_user(request, message)
        return self._back(user, agent)

    def _act(self, request: HttpRequest, action: str, user: EndUser, agent: Agent) -> str:
        actor = _actor(request)
        if action == "correct":
            form = CorrectForm(request.POST)
            if not form.is_valid():
                raise _invalid_form(form)
            entity = self._entity(user, agent, form.cleaned_data["entity"])
            field = _schema_field(agent, entity.field)
            value = operator_value_parse(
                field.get("type", "string"), form.cleaned_data["value"], entity.value
            )
            new, _ = entity_correct(
                entity=entity, value=value, valid_from=form.cleaned_data["valid_from"], actor=actor
            )
            return f"{entity.key} is now {new.value_text!r}; the old version is superseded."
        if action in ("pin", "unpin"):
            entity = self._entity(user, agent, request.POST.get("entity"))
            entity_pin_set(entity=entity, pinned=action == "pin", actor=actor)
            return f"{entity.key} {'pinned' if action == 'pin' else 'unpinned'}."
        if action in ("extract", "rebuild"):
            run = extraction_operator_request(
                agent=agent, end_user=user, rebuild=action == "rebuild", actor=actor
            )
            if action == "rebuild":
                return "Rebuild from the turn log scheduled; its runs appear below as they go."
            if run is None:
                return "A run is already waiting or running for this user (or one failed in the last 10 minutes)."
            return f"Extraction run {run.pk} scheduled."
        raise Http404("No such action.")

    def forget_view(self, request: HttpRequest, pk: int, entity_id: uuid.UUID) -> HttpResponse:
        user = self._user_or_404(request, pk)
        agent = self._agent(request, user)
        if agent is None:
            raise Http404("No agent.")
        entity = self._entity(user, agent, entity_id)
        if not self._can_act(request, user):
            raise PermissionDenied
        form = ForgetForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            done = entity_forget(
                entity=entity, actor=_actor(request), redact_turns=form.cleaned_data["redact_turns"]
            )
            self.message_user(
                request,
                f"Forgot {done.key}: {done.versions} version(s), {done.acus} memory unit(s) "
                f"deleted, {done.turns_redacted} turn(s) redacted.",
            )
            return self._back(user, agent)
        versions = Entity.objects.filter(
            tenant_id=user.tenant_id, agent=agent, end_user=user, key=entity.key
        ).count()
        return render(
            request,
            "admin/console/confirm_forget.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Forget {entity.key}?",
                "end_user": user,
                "agent": agent,
                "entity": entity,
                "versions": versions,
                "form": form,
            },
        )

    # -- the whole end user (every agent): export and erase, for operators ---------------------

    def export_view(self, request: HttpRequest, pk: int) -> StreamingHttpResponse:
        user = self._user_or_404(request, pk)
        if not self._can_act(request, user):
            raise PermissionDenied
        user_export_record(end_user=user, actor=_actor(request), via="admin")
        response = StreamingHttpResponse(
            user_export_stream(end_user=user, embeddings=False), content_type="application/json"
        )
        response["Content-Disposition"] = f'attachment; filename="export-{user.pk}.json"'
        return response

    def erase_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        user = self._user_or_404(request, pk)
        if not self._can_act(request, user):
            raise PermissionDenied
        form = EraseForm(request.POST or None, external_id=user.external_id)
        if request.method == "POST" and form.is_valid():
            erasure, _ = erasure_request(
                tenant_id=user.tenant_id, external_id=user.external_id, actor=_actor(request)
            )
            self.message_user(
                request, f"Erasing the user: job {erasure.pk}. Its status and counts are below."
            )
            return HttpResponseRedirect(reverse("admin:memory_erasure_change", args=[erasure.pk]))
        counts = {
            "sessions": Session.objects.filter(tenant_id=user.tenant_id, end_user=user).count(),
            "facts (every version)": Entity.objects.filter(
                tenant_id=user.tenant_id, end_user=user
            ).count(),
            "turns": Turn.objects.filter(tenant_id=user.tenant_id, end_user=user).count(),
        }
        return render(
            request,
            "admin/console/confirm_erase.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Erase {user.external_id}?",
                "end_user": user,
                "counts": counts,
                "form": form,
            },
        )


def _refs_keys(entity: Entity) -> list[tuple[str, int]]:
    return [
        (str(ref.get("session")), int(ref["seq"]))
        for ref in entity.source_turns or []
        if isinstance(ref, dict) and "seq" in ref and ref.get("session")
    ]


def _schema_field(agent: Agent, field_key: str) -> dict[str, Any]:
    try:
        fields = schema_active(agent=agent).fields
    except DomainError:
        return {}
    return next((f for f in fields if f["key"] == field_key), {})


def _error_text(exc: DomainError) -> str:
    """Every problem at its place; the detail alone when the error names no place (an error
    with places repeats the first of them in its detail)."""
    if not exc.fields:
        return exc.detail
    return "; ".join(f"{place}: {' '.join(problems)}" for place, problems in exc.fields.items())


def _invalid_form(form: Any) -> DomainError:
    problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items())
    return Invalid(problems or "Invalid input.")


# --- Schema editor -------------------------------------------------------------------------------

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
        agents = Agent.objects.filter(pk=agent_id)
        ids = self._tenant_ids(request, write=False)
        if ids is not None:
            agents = agents.filter(tenant_id__in=ids)
        agent = agents.first()
        if agent is None:
            raise Http404("No such agent.")
        return agent

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
            draft, errors = self._draft(formset, base_fields)
            intent = request.POST.get("intent", "preview")
            if not errors and intent in ("publish", "publish_activate"):
                try:
                    schema, created = schema_publish(
                        agent=agent, fields=draft, note=request.POST.get("note", "")[:500],
                        activate=intent == "publish_activate", actor=_actor(request),
                    )  # fmt: skip
                except DomainError as exc:
                    errors.append(_error_text(exc))
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

    def _draft(
        self, formset: Any, base_fields: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """The draft fields from the form rows, validated by the schema validator; its errors
        are put on the rows and cells they are about."""
        errors: list[str] = []
        if not formset.is_valid():
            errors.append("Fix the highlighted fields.")
            return [], errors
        rows = schema_fields_from(formset)
        examples = {f["key"]: f["examples"] for f in base_fields if f.get("examples")}
        draft = []
        for _, field in rows:
            if field["key"] in examples:
                field["examples"] = examples[field["key"]]  # not edited here; kept by key
            draft.append(field)
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
            schema_activate(agent=agent, version=version, actor=_actor(request))
        except DomainError as exc:
            self.message_user(request, _error_text(exc), level=messages.ERROR)
        else:
            self.message_user(request, f"{agent.slug} v{version} is now active.")
        return HttpResponseRedirect(
            reverse("admin:schemas_extractionschema_editor", args=[agent.pk])
        )
