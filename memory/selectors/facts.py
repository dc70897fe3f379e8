"""Reads of facts: one version by id, and the bi-temporal list (ADR 0006)."""

from __future__ import annotations

import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from core.errors import NotFound
from memory.models import EndUser, Entity, Status
from memory.selectors.sessions import end_user_get_for_tenant, uuid_or_not_found
from schemas.models import Agent


def entity_get_for_tenant(
    *, tenant_id: int, entity_id: object, agent_scope: int | None = None
) -> Entity:
    entities = Entity.objects.filter(
        tenant_id=tenant_id, pk=uuid_or_not_found(entity_id, "entity_not_found", "entity")
    )
    if agent_scope is not None:
        entities = entities.filter(agent_id=agent_scope)
    entity = entities.select_related("agent", "end_user").first()
    if entity is None:
        raise NotFound(f"No entity {entity_id}.", code="entity_not_found")
    return entity


def entity_list(
    *,
    agent: Agent,
    end_user: EndUser,
    key: str | None = None,
    status: str | None = None,
    as_of: datetime.datetime | None = None,
    known_at: datetime.datetime | None = None,
    now: datetime.datetime | None = None,
) -> QuerySet[Entity]:
    """Facts of one user for one agent.

    - Neither ``as_of`` nor ``known_at``, no ``status``: what is true now (active, in force,
      not expired).
    - ``status`` alone (``active`` / ``superseded`` / ``retracted`` / ``any``): the stored rows,
      expired ones included: the timeline.
    - ``as_of`` (world time T) and/or ``known_at`` (transaction time R), each defaulting to now:
      what was true at T according to what Handover knew at R. A row counts from its
      ``recorded_at``; its ``valid_until`` counts only from ``superseded_at``, when it was learnt.
    """
    now = now or timezone.now()
    entities = Entity.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=end_user)
    if key is not None:
        entities = entities.filter(key=key)
    if as_of is None and known_at is None:
        if status is None:
            entities = entities.filter(status=Status.ACTIVE, valid_from__lte=now).filter(
                Q(expires_at__isnull=True) | Q(expires_at__gt=now)
            )
        elif status != "any":
            entities = entities.filter(status=status)
        return entities.order_by("key", "valid_from", "recorded_at")
    world = as_of or now
    known = known_at or now
    entities = (
        entities.filter(recorded_at__lte=known, valid_from__lte=world)
        .exclude(status=Status.RETRACTED)
        .exclude(superseded_at__lte=known, valid_until__lte=world)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=world))
    )
    if status not in (None, "any"):
        entities = entities.filter(status=status)
    return entities.order_by("key", "valid_from", "recorded_at")


def entity_list_for_user(
    *,
    agent: Agent,
    user_external_id: str,
    key: str | None = None,
    status: str | None = None,
    as_of: datetime.datetime | None = None,
    known_at: datetime.datetime | None = None,
) -> QuerySet[Entity]:
    """``entity_list`` for the user the tenant knows by ``user_external_id`` (NotFound if none)."""
    end_user = end_user_get_for_tenant(tenant_id=agent.tenant_id, external_id=user_external_id)
    return entity_list(
        agent=agent, end_user=end_user, key=key, status=status, as_of=as_of, known_at=known_at
    )
