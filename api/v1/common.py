from __future__ import annotations

from rest_framework.request import Request

from core.errors import Invalid
from schemas.models import Agent
from schemas.selectors import agent_get_by_id_for_tenant, agent_get_for_tenant
from tenants.principal import ApiPrincipal


def principal_of(request: Request) -> ApiPrincipal:
    principal = request.auth
    assert isinstance(principal, ApiPrincipal)  # HasApiKey ran first
    return principal


def agent_of(request: Request, slug: str | None) -> Agent:
    """The agent named in the request, or the key's own agent when the key is scoped to one."""
    return agent_for(principal_of(request), slug)


def agent_for(principal: ApiPrincipal, slug: str | None) -> Agent:
    """The agent ``slug`` as this key sees it, or the key's own agent when it is scoped to one."""
    if slug:
        return agent_get_for_tenant(
            tenant_id=principal.tenant_id, slug=slug, agent_scope=principal.agent_id
        )
    if principal.agent_id is not None:
        return agent_get_by_id_for_tenant(
            tenant_id=principal.tenant_id, agent_id=principal.agent_id
        )
    raise Invalid(
        "agent: is required (the key is not scoped to one agent)", fields={"agent": ["is required"]}
    )
