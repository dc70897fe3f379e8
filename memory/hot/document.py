"""The hot document: one user's memory for one agent, rendered from the tables (PostgreSQL is
the copy of record) and cached in Redis (``memory.hot.cache``)."""

from __future__ import annotations

import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from memory.hot.cache import hot_cache_key, hot_cache_put
from memory.models import EndUser, Entity, HotDocument, Status, Turn
from memory.presenters import facts_split, turn_present
from memory.rendering import stable_block_render
from memory.selectors.facts import entity_list
from memory.selectors.hot import hot_document_cached, hot_document_current, hot_document_payload
from schemas.models import Agent


def _recent_turns(agent: Agent, end_user: EndUser) -> list[dict[str, Any]]:
    turns = Turn.objects.filter(
        tenant_id=agent.tenant_id, agent=agent, end_user=end_user, archived_at__isnull=True
    ).order_by("-id")[: agent.context_window_turns]
    return [turn_present(t) for t in reversed(turns)]


def _next_change(
    agent: Agent, end_user: EndUser, now: datetime.datetime
) -> datetime.datetime | None:
    """When the set of facts in force next changes by itself: an expiry or a future valid_from."""
    upcoming = Entity.objects.filter(
        tenant_id=agent.tenant_id, agent=agent, end_user=end_user, status=Status.ACTIVE
    )
    expiry = (
        upcoming.filter(expires_at__gt=now)
        .order_by("expires_at")
        .values_list("expires_at", flat=True)
        .first()
    )
    start = (
        upcoming.filter(valid_from__gt=now)
        .order_by("valid_from")
        .values_list("valid_from", flat=True)
        .first()
    )
    moments = [m for m in (expiry, start) if m is not None]
    return min(moments) if moments else None


def hot_document_rebuild(
    *,
    agent: Agent,
    end_user: EndUser,
    summary: str | None = None,
    watermark_turn_id: int | None = None,
) -> HotDocument:
    """Re-render one user's hot document from the tables; bump its version; cache on commit.

    The write lane passes the new rolling ``summary`` and its ``watermark_turn_id``; the pending
    token count is then recounted from the turns after the watermark (appends made during the
    run included).
    """
    now = timezone.now()
    with transaction.atomic():
        document = _hot_document_locked(agent, end_user)
        if summary is not None:
            document.summary = summary
        if watermark_turn_id is not None:
            document.watermark_turn_id = watermark_turn_id
            document.pending_tokens = (
                Turn.objects.filter(
                    tenant_id=agent.tenant_id,
                    agent=agent,
                    end_user=end_user,
                    id__gt=watermark_turn_id,
                ).aggregate(total=Sum("tokens"))["total"]
                or 0
            )
        parts = facts_split(list(entity_list(agent=agent, end_user=end_user, now=now)))
        document.pinned = parts["pinned"]
        document.profile = parts["profile"]
        document.facts = parts["facts"]
        document.possibilities = parts["possibilities"]
        document.recent_turns = _recent_turns(agent, end_user)
        document.stable_block = stable_block_render(summary=document.summary, **parts)
        document.expires_next_at = _next_change(agent, end_user, now)
        document.version += 1
        document.stable_version = document.version
        document.save()
        payload = hot_document_payload(document, agent_slug=agent.slug)
        transaction.on_commit(lambda: hot_cache_put(document.cache_key, payload))
    return document


def _hot_document_locked(agent: Agent, end_user: EndUser) -> HotDocument:
    document = (
        HotDocument.objects.select_for_update().filter(agent=agent, end_user=end_user).first()
    )
    if document is not None:
        return document
    key = hot_cache_key(
        tenant_id=agent.tenant_id, agent_slug=agent.slug, user_external_id=end_user.external_id
    )
    with connection.cursor() as cursor:
        # Concurrent first writers: one inserts, the other waits on the row and locks it.
        cursor.execute(
            "INSERT INTO memory_hotdocument (tenant_id, agent_id, end_user_id, cache_key, version, "
            "profile, facts, possibilities, pinned, summary, stable_block, recent_turns, "
            "pending_tokens, watermark_turn_id, updated_at) VALUES (%s, %s, %s, %s, 0, '[]', '[]', "
            "'[]', '[]', '', '', '[]', 0, 0, now()) ON CONFLICT (tenant_id, agent_id, end_user_id) DO NOTHING",
            [agent.tenant_id, agent.pk, end_user.pk, key],
        )
    return HotDocument.objects.select_for_update().get(agent=agent, end_user=end_user)


def hot_document_load(
    *, agent: Agent, end_user: EndUser, current: tuple[int | None, int | None] | None = None
) -> dict[str, Any]:
    """The hot document for a read: Redis first; PostgreSQL on a miss (then re-cached);
    rebuilt first when it has never been built or a fact in it has run out.

    ``current``: PostgreSQL's (version, stable_version) of the document, read by the caller's
    statement; a Redis copy that does not match them is stale and is read past (ADR 0020).
    """
    cached = hot_document_cached(
        tenant_id=agent.tenant_id, agent_slug=agent.slug, user_external_id=end_user.external_id
    )
    if cached is not None and (
        current is None
        or hot_document_current(cached, version=current[0], stable_version=current[1])
    ):
        return cached
    document = HotDocument.objects.filter(
        tenant_id=agent.tenant_id, agent=agent, end_user=end_user
    ).first()
    return hot_document_from_row(agent=agent, end_user=end_user, document=document)


def hot_document_from_row(
    *, agent: Agent, end_user: EndUser, document: HotDocument | None
) -> dict[str, Any]:
    """The hot document from its PostgreSQL row, already read (None: never built), re-cached;
    rebuilt first when it has never been built or a fact in it has run out."""
    if document is None or (
        document.expires_next_at is not None and document.expires_next_at <= timezone.now()
    ):
        document = hot_document_rebuild(agent=agent, end_user=end_user)
        return hot_document_payload(document, agent_slug=agent.slug)  # cached on commit
    payload = hot_document_payload(document, agent_slug=agent.slug)
    hot_cache_put(document.cache_key, payload)
    return payload
