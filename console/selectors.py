"""The reads of the operator console that no domain app has a selector for.

The pages call the domain's selectors directly where they exist (``memory.selectors.entity_list``
and ``context_block_as_of``, ``schemas.selectors.schema_list``,
``extraction.selectors.extraction_run_list`` …), and this module builds on them
(``entity_get_for_tenant``, ``agent_get_for_tenant``, ``agent_list``). What is left is the
console's own: lookups across the tenants an operator belongs to, and the end user page's reads.
The list pages are the admin's queryset, scoped by ``tenants.admin.TenantScopedAdmin`` and
counted by its ``CappedCountPaginator``.

``tenant_ids`` is the set of tenants the operator may see; None is a superuser's: every tenant.
Another tenant's object does not exist (``NotFound``), as everywhere else.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from core.errors import NotFound
from memory.models import EndUser, Entity, HotDocument, Session, Turn
from memory.selectors import entity_get_for_tenant
from schemas.models import Agent
from schemas.selectors import agent_get_for_tenant, agent_list

TurnRef = tuple[str, int]  # (session id, seq): where a fact was said


def _in_tenants(rows: QuerySet[Any], tenant_ids: set[int] | None) -> QuerySet[Any]:
    return rows if tenant_ids is None else rows.filter(tenant_id__in=tenant_ids)


def end_user_get_for_console(*, tenant_ids: set[int] | None, user_id: str | int) -> EndUser:
    user = _in_tenants(EndUser.objects.filter(pk=user_id), tenant_ids).first()
    if user is None:
        raise NotFound("No such user.", code="user_not_found")
    return user


def agent_get_for_console(*, tenant_ids: set[int] | None, agent_id: int) -> Agent:
    agent = _in_tenants(Agent.objects.filter(pk=agent_id), tenant_ids).first()
    if agent is None:
        raise NotFound("No such agent.", code="agent_not_found")
    return agent


# --- The end user page ---------------------------------------------------------------------------


def end_user_agent(*, end_user: EndUser, slug: str | None) -> Agent | None:
    """The agent whose memory the page shows: the one named by ``slug`` (NotFound when the
    tenant has none by that name), else that of the user's latest session, else the tenant's
    first; None when the tenant has no agent."""
    if slug:
        return agent_get_for_tenant(tenant_id=end_user.tenant_id, slug=slug)
    agents = agent_list(tenant_id=end_user.tenant_id)
    latest = (
        Session.objects.filter(tenant_id=end_user.tenant_id, end_user=end_user)
        .order_by("-last_activity_at")
        .values_list("agent_id", flat=True)
        .first()
    )
    return agents.filter(pk=latest).first() if latest else agents.first()


def end_user_entity(*, end_user: EndUser, agent: Agent, entity_id: object) -> Entity:
    """One fact of this user for this agent, with its agent and user; any other is NotFound."""
    entity = entity_get_for_tenant(
        tenant_id=end_user.tenant_id, entity_id=entity_id, agent_scope=agent.pk
    )
    if entity.end_user_id != end_user.pk:
        raise NotFound(f"No entity {entity_id}.", code="entity_not_found")
    return entity


def turn_texts(*, end_user: EndUser, refs: Iterable[TurnRef]) -> dict[TurnRef, str]:
    """The text of each turn a fact came from, in one query (without the search vector)."""
    wanted = set(refs)
    if not wanted:
        return {}
    turns = Turn.objects.filter(
        tenant_id=end_user.tenant_id, end_user=end_user, session_id__in={s for s, _ in wanted},
        seq__in={seq for _, seq in wanted},
    ).values_list("session_id", "seq", "text")  # fmt: skip
    return {(str(s), q): t for s, q, t in turns if (str(s), q) in wanted}


def hot_document_get(*, agent: Agent, end_user: EndUser) -> HotDocument | None:
    return HotDocument.objects.filter(
        tenant_id=end_user.tenant_id, agent=agent, end_user=end_user
    ).first()


def session_list_recent(*, agent: Agent, end_user: EndUser, limit: int) -> QuerySet[Session]:
    return Session.objects.filter(
        tenant_id=end_user.tenant_id, end_user=end_user, agent=agent
    ).order_by("-last_activity_at")[:limit]


def end_user_row_counts(*, end_user: EndUser) -> dict[str, int]:
    """What erasing the user deletes, in rows: sessions, entities (every version), turns."""
    tenant_id = end_user.tenant_id
    return {
        "sessions": Session.objects.filter(tenant_id=tenant_id, end_user=end_user).count(),
        "entities": Entity.objects.filter(tenant_id=tenant_id, end_user=end_user).count(),
        "turns": Turn.objects.filter(tenant_id=tenant_id, end_user=end_user).count(),
    }
