from __future__ import annotations

import datetime
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Field, Model, Q, QuerySet
from django.utils import timezone

from core import metrics
from core.errors import NotFound
from core.text import iso
from memory.hot import hot_cache_get, hot_cache_key
from memory.models import EndUser, Entity, HotDocument, Session, Status, Turn
from memory.rendering import Packed, context_block_render, pack, stable_block_render
from memory.views import facts_split, turn_view
from schemas.models import Agent


def _uuid(value: object, code: str, what: str) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise NotFound(f"No {what} {value!r}.", code=code) from None


def _columns(model: type[Model], alias: str) -> tuple[list[Field[Any, Any]], str]:
    fields = list(model._meta.concrete_fields)
    return fields, ", ".join(f'{alias}."{f.column}"' for f in fields)


def _instance(model: type[Model], fields: list[Field[Any, Any]], values: Sequence[Any]) -> Any:
    converted = [
        f.from_db_value(v, None, connection) if hasattr(f, "from_db_value") else v
        for f, v in zip(fields, values, strict=True)
    ]
    return model.from_db("default", [f.attname for f in fields], converted)


_SESSION, _SESSION_SQL = _columns(Session, "s")
_AGENT, _AGENT_SQL = _columns(Agent, "a")
_USER, _USER_SQL = _columns(EndUser, "u")
# Hand-written: the call path's one statement, without the ORM's compile cost (≈2 ms a call).
_SESSION_LOOKUP = (
    f"SELECT {_SESSION_SQL}, {_AGENT_SQL}, {_USER_SQL}, h.version, h.stable_version "  # noqa: S608 (column names)
    "FROM memory_session s JOIN schemas_agent a ON a.id = s.agent_id "
    "JOIN memory_enduser u ON u.id = s.end_user_id "
    "LEFT JOIN memory_hotdocument h ON h.agent_id = s.agent_id AND h.end_user_id = s.end_user_id "
    "WHERE s.tenant_id = %s AND s.id = %s AND (%s::bigint IS NULL OR s.agent_id = %s::bigint)"
)


def session_get_for_tenant(
    *,
    tenant_id: int,
    session_id: object,
    agent_scope: int | None = None,
) -> Session:
    """One session with its agent and user, and the versions of the user's hot document
    (``hot_version``, ``hot_stable_version``; None when it has not been built), for
    ``hot_document_load(current=...)``: one statement."""
    pk = _uuid(session_id, "session_not_found", "session")
    with connection.cursor() as cursor:
        cursor.execute(_SESSION_LOOKUP, [tenant_id, pk, agent_scope, agent_scope])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"No session {session_id}.", code="session_not_found")
    a, b = len(_SESSION), len(_SESSION) + len(_AGENT)
    session: Session = _instance(Session, _SESSION, row[:a])
    session.agent = _instance(Agent, _AGENT, row[a:b])
    session.end_user = _instance(EndUser, _USER, row[b : b + len(_USER)])
    session.hot_version, session.hot_stable_version = row[-2], row[-1]  # type: ignore[attr-defined]
    return session


def end_user_get_for_tenant(*, tenant_id: int, external_id: str) -> EndUser:
    user = EndUser.objects.filter(tenant_id=tenant_id, external_id=external_id).first()
    if user is None:
        raise NotFound(f"No user {external_id!r}.", code="user_not_found")
    return user


def entity_get_for_tenant(
    *, tenant_id: int, entity_id: object, agent_scope: int | None = None
) -> Entity:
    entities = Entity.objects.filter(
        tenant_id=tenant_id, pk=_uuid(entity_id, "entity_not_found", "entity")
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


# --- The hot document --------------------------------------------------------------------------


def hot_document_payload(document: HotDocument, *, agent_slug: str) -> dict[str, Any]:
    return {
        "version": document.version,
        "stable_version": document.stable_version,
        "agent_id": document.agent_id,
        "agent": agent_slug,
        "end_user_id": document.end_user_id,
        "profile": document.profile,
        "facts": document.facts,
        "possibilities": document.possibilities,
        "pinned": document.pinned,
        "summary": document.summary,
        "stable_block": document.stable_block,
        "recent_turns": document.recent_turns,
        "expires_next_at": iso(document.expires_next_at),
        "pending_tokens": document.pending_tokens,
    }


def hot_document_cached(
    *, tenant_id: int, agent_slug: str, user_external_id: str
) -> dict[str, Any] | None:
    """The hot document from Redis if it is there and still in force, else None."""
    document = hot_cache_get(
        hot_cache_key(tenant_id=tenant_id, agent_slug=agent_slug, user_external_id=user_external_id)
    )
    if document is not None:
        expires = document.get("expires_next_at")
        if expires is not None and expires <= timezone.now().astimezone(datetime.UTC).isoformat():
            document = None  # an ephemeral fact ran out: the caller rebuilds
    metrics.hot_cache_read(hit=document is not None)
    return document


def hot_document_current(
    document: dict[str, Any], *, version: int | None, stable_version: int | None
) -> bool:
    """Whether a copy read from Redis is PostgreSQL's current document: its tail holds the
    current version (every change rewrites the tail) and its stable part is no older than the
    last rebuild. A copy left behind by a failed Redis write fails this (ADR 0020)."""
    if version is None or stable_version is None:
        return False  # no document in PostgreSQL: whatever Redis holds is left over
    return bool(document["version"] == version and document["stable_version"] >= stable_version)


def context_pack(
    *, document: dict[str, Any], budget_tokens: int, hits: Sequence[str] = ()
) -> Packed:
    return pack(
        pinned=document["pinned"],
        profile=document["profile"],
        facts=document["facts"],
        possibilities=document["possibilities"],
        summary=document["summary"],
        recent_turns=document["recent_turns"],
        hits=hits,
        budget_tokens=budget_tokens,
    )


# --- The operator's "as of" view ---------------------------------------------------------------


@dataclass(frozen=True)
class BlockAsOf:
    text: str
    facts: int
    turns: int
    summary_included: bool


def context_block_as_of(
    *,
    agent: Agent,
    end_user: EndUser,
    as_of: datetime.datetime | None = None,
    known_at: datetime.datetime | None = None,
) -> BlockAsOf:
    """The session-start context block this user would have got at world time ``as_of``, from
    what Handover knew at ``known_at`` (each defaulting to now): the facts in force then, the
    turns recorded by then, rendered as the call path renders them.

    The rolling summary is not versioned, so it is shown for the present only; a block for a
    past moment leaves it out rather than leak later knowledge into it.
    """
    now = timezone.now()
    world, known = as_of or now, known_at or now
    entities = list(entity_list(agent=agent, end_user=end_user, as_of=world, known_at=known))
    parts = facts_split(entities)
    present = as_of is None and known_at is None
    summary = ""
    if present:
        summary = (
            HotDocument.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=end_user)
            .values_list("summary", flat=True)
            .first()
            or ""
        )
    turns = (
        Turn.objects.filter(
            tenant_id=agent.tenant_id,
            agent=agent,
            end_user=end_user,
            occurred_at__lte=world,
            recorded_at__lte=known,
        )
        .filter(Q(archived_at__isnull=True) | Q(archived_at__gt=known))
        .order_by("-id")[: agent.context_window_turns]
    )
    recent = [turn_view(t) for t in reversed(list(turns))]
    stable = stable_block_render(summary=summary, **parts)
    return BlockAsOf(
        text=context_block_render(stable, recent),
        facts=len(entities),
        turns=len(recent),
        summary_included=bool(summary),
    )
