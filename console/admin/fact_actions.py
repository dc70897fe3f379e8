"""The end user page's actions, for operators: correct a fact, pin it, run extraction or rebuild
from the turn log, and forget a fact (after a confirmation page). Each calls the service the API
calls, which writes its audit entry."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from console.admin.common import error_text, form_invalid, request_actor
from console.admin.enduser_base import EndUserAdminBase
from console.forms import CorrectForm, ForgetForm, operator_value_parse
from core.errors import DomainError
from extraction.services import extraction_operator_request
from memory.models import EndUser
from memory.selectors import entity_list
from memory.services import entity_correct, entity_forget, entity_pin_set
from schemas.models import Agent
from schemas.selectors import schema_active


def _schema_field(agent: Agent, field_key: str) -> dict[str, Any]:
    try:
        fields = schema_active(agent=agent).fields
    except DomainError:
        return {}
    return next((f for f in fields if f["key"] == field_key), {})


class FactActions(EndUserAdminBase):
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
            self.message_user(request, error_text(exc), level=messages.ERROR)
        else:
            self.message_user(request, message)
        return self._back(user, agent)

    def _act(self, request: HttpRequest, action: str, user: EndUser, agent: Agent) -> str:
        actor = request_actor(request)
        if action == "correct":
            form = CorrectForm(request.POST)
            if not form.is_valid():
                raise form_invalid(form)
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
                entity=entity,
                actor=request_actor(request),
                redact_turns=form.cleaned_data["redact_turns"],
            )
            self.message_user(
                request,
                f"Forgot {done.key}: {done.versions} version(s), {done.acus} memory unit(s) "
                f"deleted, {done.turns_redacted} turn(s) redacted.",
            )
            return self._back(user, agent)
        versions = entity_list(agent=agent, end_user=user, key=entity.key, status="any").count()
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
