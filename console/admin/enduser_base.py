"""What every view of the end user console shares: the user, the agent and the fact a URL names
(another tenant's is a 404), who may act, and the way back to the page."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse

from console.admin.common import not_found_is_404
from console.selectors import end_user_agent, end_user_entity, end_user_get_for_console
from memory.models import EndUser, Entity
from schemas.models import Agent
from tenants.admin import TenantScopedAdmin


class EndUserAdminBase(TenantScopedAdmin):
    """Reads for every member of the tenant; actions for operators."""

    def _can_act(self, request: HttpRequest, obj: EndUser) -> bool:
        return self._allowed(request, obj, write=True)

    def _user_or_404(self, request: HttpRequest, pk: str | int) -> EndUser:
        with not_found_is_404("No such user."):
            return end_user_get_for_console(
                tenant_ids=self._tenant_ids(request, write=False), user_id=pk
            )

    def _agent(self, request: HttpRequest, user: EndUser) -> Agent | None:
        slug = request.GET.get("agent") or request.POST.get("agent")
        with not_found_is_404("No such agent."):
            return end_user_agent(end_user=user, slug=slug)

    def _entity(self, user: EndUser, agent: Agent, entity_id: object) -> Entity:
        with not_found_is_404("No such fact."):
            return end_user_entity(end_user=user, agent=agent, entity_id=entity_id)

    def _back(self, user: EndUser, agent: Agent | None) -> HttpResponseRedirect:
        url = reverse("admin:memory_enduser_change", args=[user.pk])
        return HttpResponseRedirect(f"{url}?agent={agent.slug}" if agent else url)
