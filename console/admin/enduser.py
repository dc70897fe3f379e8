"""The end user page: the facts by confidence, the timeline and versions, the block the agent
got (now or as of any moment), recent sessions and runs; and the list of end users.

The page composes every domain app (memory facts, extraction runs, schemas), so it lives here,
above all of them (ADR 0011). Its actions are in ``fact_actions`` and ``erasure``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone

from console.admin.erasure import WholeUserActions
from console.admin.fact_actions import FactActions
from console.admin.versions import versions_context
from console.forms import AsOfForm
from console.selectors import hot_document_get, session_list_recent
from console.timeline import SOURCE_COLOURS
from extraction.selectors import extraction_run_list
from memory.models import EndUser, Source
from memory.selectors import context_block_as_of, entity_list
from schemas.models import Agent
from schemas.selectors import agent_list
from tenants.admin import CappedCountPaginator

CONFIDENCE_GROUPS = [
    (Source.EXPLICIT, "Explicit: the user said it"),
    (Source.CONFIRMED, "Confirmed: the user agreed to it"),
    (Source.OPERATOR, "Set by an operator"),
    (Source.INFERRED, "Inferred: a possibility, never asserted"),
]
RECENT_SESSIONS = 10
RECENT_RUNS = 5


@admin.register(EndUser)
class EndUserConsoleAdmin(FactActions, WholeUserActions):
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
            "agents": agent_list(tenant_id=user.tenant_id),
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
        versions = versions_context(agent=agent, end_user=user, now=now)
        as_of_form = AsOfForm(request.GET or None)
        as_of = known_at = None
        if as_of_form.is_valid():
            as_of = as_of_form.cleaned_data["as_of"]
            known_at = as_of_form.cleaned_data["known_at"]
        block = context_block_as_of(agent=agent, end_user=user, as_of=as_of, known_at=known_at)
        return {
            "groups": groups,
            "pinned": [e for e in current if e.pinned],
            "current_count": len(current),
            **versions,
            "document": hot_document_get(agent=agent, end_user=user),
            "sessions": session_list_recent(agent=agent, end_user=user, limit=RECENT_SESSIONS),
            "runs": extraction_run_list(agent=agent, end_user=user, limit=RECENT_RUNS),
            "as_of_form": as_of_form,
            "as_of": as_of,
            "known_at": known_at,
            "as_of_block": block,
            "now": now,
        }
