from __future__ import annotations

from django.db.models import QuerySet

from core.errors import NotFound
from schemas.models import Agent, ExtractionSchema


def agent_list(*, tenant_id: int, agent_scope: int | None = None) -> QuerySet[Agent]:
    agents = Agent.objects.filter(tenant_id=tenant_id).order_by("slug")
    if agent_scope is not None:
        agents = agents.filter(pk=agent_scope)
    return agents


def agent_get_for_tenant(*, tenant_id: int, slug: str, agent_scope: int | None = None) -> Agent:
    """The agent ``slug`` of this tenant; another tenant's, or one outside the key's scope,
    does not exist."""
    agent = agent_list(tenant_id=tenant_id, agent_scope=agent_scope).filter(slug=slug).first()
    if agent is None:
        raise NotFound(f"No agent {slug!r}.", code="agent_not_found")
    return agent


def schema_list(*, agent: Agent) -> QuerySet[ExtractionSchema]:
    return ExtractionSchema.objects.filter(tenant_id=agent.tenant_id, agent=agent).order_by(
        "-version"
    )


def schema_get(*, agent: Agent, version: int) -> ExtractionSchema:
    schema = schema_list(agent=agent).filter(version=version).first()
    if schema is None:
        raise NotFound(
            f"Agent {agent.slug!r} has no schema version {version}.", code="schema_not_found"
        )
    return schema


def schema_active(*, agent: Agent) -> ExtractionSchema:
    schema = schema_list(agent=agent).filter(is_active=True).first()
    if schema is None:  # agent_create always publishes one; only a broken database lands here
        raise NotFound(f"Agent {agent.slug!r} has no active schema.", code="schema_not_found")
    return schema


def agent_get_by_id_for_tenant(*, tenant_id: int, agent_id: int) -> Agent:
    agent = Agent.objects.filter(tenant_id=tenant_id, pk=agent_id).first()
    if agent is None:
        raise NotFound("No such agent.", code="agent_not_found")
    return agent
