"""Facts: recording a version (bi-temporal, ADR 0006), correcting and pinning one. Every write
is audited, never with the value, and leaves the hot document re-rendered."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.errors import Conflict, Invalid, invalid
from memory.hot.document import hot_document_rebuild
from memory.models import Category, EndUser, Entity, Source, Status
from memory.services.sessions import end_user_get_or_create
from memory.validation import value_text_validate
from schemas.models import Agent
from schemas.selectors import schema_active
from schemas.validation import ValidationFailed, fact_key_parse, fact_value_validate
from tenants.services import audit_record
from webhooks.services import webhook_emit

SOURCE_RANK: dict[str, int] = {
    Source.INFERRED: 0,
    Source.EXPLICIT: 1,
    Source.CONFIRMED: 2,
    Source.OPERATOR: 3,
}


def _entity_audit(entity: Entity, action: str, actor: str, **extra: Any) -> None:
    # Never the value: a forgotten or erased fact must not survive in the audit log.
    audit_record(
        tenant=entity.tenant_id, actor=actor, action=action, target_type="entity", target_id=entity.pk,
        after={"key": entity.key, "source": entity.source, "end_user_id": entity.end_user_id, **extra},
    )  # fmt: skip


def entity_upsert(
    *,
    agent: Agent,
    end_user: EndUser,
    key: str,
    value: object,
    source: str = Source.EXPLICIT,
    valid_from: datetime.datetime | None = None,
    value_text: str | None = None,
    source_turns: list[Any] | None = None,
    actor: str,
    fields: list[dict[str, Any]] | None = None,
    rebuild: bool = True,
) -> tuple[Entity, bool]:
    """Record a fact; returns (the version now describing it, whether a new version was written).

    - New key: inserted active.
    - Same value as the active version from a source no stronger: nothing changes.
    - Otherwise the active version is superseded (``valid_until`` = the new ``valid_from``)
      and the new one inserted active; nothing is deleted.
    - A value valid from before the active version (learnt late) is stored as history, valid
      until the next version's start; the active one stays.
    """
    if source not in Source.values:
        raise invalid("source", f"must be one of {', '.join(Source.values)}")
    if fields is None:
        fields = schema_active(agent=agent).fields
    try:
        field, full_key = fact_key_parse(key, fields)
        stored_value, text = fact_value_validate(field, value)
    except ValidationFailed as exc:
        place, messages = next(iter(exc.errors.items()))
        raise Invalid(f"{place}: {messages[0]}", fields=exc.errors) from None
    if value_text is not None:
        text = value_text_validate(value_text)
    now = timezone.now()
    valid_from = valid_from or now
    expires_at = None
    if field["category"] == Category.EPHEMERAL:
        expires_at = valid_from + datetime.timedelta(
            hours=field.get("ttl_hours") or agent.ephemeral_ttl_hours
        )

    # A safety net behind the advisory lock: should two first versions still meet the partial
    # unique index, the loser retries and supersedes the winner.
    for attempt in range(3):
        try:
            with transaction.atomic():
                return _entity_write(
                    agent=agent, end_user=end_user, key=full_key, field=field, value=stored_value,
                    text=text, source=source, valid_from=valid_from, expires_at=expires_at,
                    source_turns=source_turns, actor=actor, rebuild=rebuild, now=now,
                )  # fmt: skip
        except IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _entity_write(
    *,
    agent: Agent,
    end_user: EndUser,
    key: str,
    field: dict[str, Any],
    value: Any,
    text: str,
    source: str,
    valid_from: datetime.datetime,
    expires_at: datetime.datetime | None,
    source_turns: list[Any] | None,
    actor: str,
    rebuild: bool,
    now: datetime.datetime,
) -> tuple[Entity, bool]:
    _fact_lock(agent, end_user, key)
    chain = list(
        Entity.objects.select_for_update()
        .filter(tenant_id=agent.tenant_id, agent=agent, end_user=end_user, key=key)
        .order_by("valid_from", "recorded_at")
    )
    current = next((e for e in chain if e.status == Status.ACTIVE), None)
    new = Entity(
        id=uuid.uuid4(), tenant_id=agent.tenant_id, agent=agent, end_user=end_user, key=key,
        field=field["key"], category=field["category"], value=value, value_text=text,
        source=source, status=Status.ACTIVE, valid_from=valid_from, recorded_at=now,
        expires_at=expires_at, source_turns=source_turns or [], created_by=actor,
    )  # fmt: skip
    if (
        current is not None
        and current.value == value
        and SOURCE_RANK[source] <= SOURCE_RANK[current.source]
    ):
        return current, False
    if current is not None and current.value == value:
        new.valid_from = current.valid_from  # a confirmation: true since it was first said
        new.expires_at = current.expires_at
    if current is not None and new.valid_from < current.valid_from:
        later = next(e for e in chain if e.valid_from > new.valid_from)
        new.status = Status.SUPERSEDED
        new.valid_until = later.valid_from
        new.superseded_at = now
        new.superseded_by = later
        new.save(force_insert=True)
        _entity_audit(new, "entity.record_history", actor)
        _fact_events(new, current=None, agent=agent, end_user=end_user)
        return new, True
    if current is not None:
        Entity.objects.filter(pk=current.pk).update(
            status=Status.SUPERSEDED,
            valid_until=new.valid_from,
            superseded_at=now,
            superseded_by=new.id,
        )
        new.pinned = current.pinned
    new.save(force_insert=True)
    _entity_audit(new, "entity.upsert", actor, supersedes=str(current.pk) if current else None)
    _fact_events(new, current=current, agent=agent, end_user=end_user)
    if rebuild:
        hot_document_rebuild(agent=agent, end_user=end_user)
    return new, True


def _fact_lock(agent: Agent, end_user: EndUser, key: str) -> None:
    """Writers of one fact queue up here: a transaction-scoped advisory lock on (agent, user,
    key) exists even before the key's first row does; the chain read after it sees every
    version committed before."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"fact:{agent.pk}:{end_user.pk}:{key}"],
        )


def _superseded(old: Entity, about: dict[str, Any], by: str | None,
                until: datetime.datetime) -> tuple[str, dict[str, Any]]:  # fmt: skip
    """The ``fact.superseded`` event of ``old``: replaced ``by`` a version, or ended (None)."""
    return ("fact.superseded", {"id": str(old.pk), **about, "superseded_by": by,
                                "valid_until": until.isoformat()})  # fmt: skip


def _fact_events(new: Entity, *, current: Entity | None, agent: Agent, end_user: EndUser) -> None:
    """Webhooks (ADR 0031), in this transaction: ids, key and source, never the value (fetch
    it with GET /v1/entities/{id}; a forgotten value must not live on in the delivery log)."""
    about = {"agent": agent.slug, "user": end_user.external_id, "key": new.key}
    events: list[tuple[str, Any]] = []
    if current is not None:
        events.append(_superseded(current, about, str(new.pk), new.valid_from))
    events.append(("fact.created", {"id": str(new.pk), **about, "category": new.category,
                   "source": new.source, "status": new.status, "valid_from": new.valid_from.isoformat(),
                   "supersedes": str(current.pk) if current else None}))  # fmt: skip
    webhook_emit(tenant_id=agent.tenant_id, events=events, end_user_id=end_user.pk)


def entity_end(
    *,
    agent: Agent,
    end_user: EndUser,
    key: str,
    valid_until: datetime.datetime,
    actor: str,
    rebuild: bool = True,
) -> Entity | None:
    """The fact no longer holds from ``valid_until`` ("I stopped taking it last week"): its
    active version is superseded by nothing, valid until then; nothing is deleted, so "as of"
    reads before then still see it. Returns that version, or None when no active version began
    before ``valid_until`` (nothing to end)."""
    with transaction.atomic():
        _fact_lock(agent, end_user, key)
        current = (
            Entity.objects.select_for_update()
            .filter(tenant_id=agent.tenant_id, agent=agent, end_user=end_user, key=key)
            .filter(status=Status.ACTIVE, valid_from__lt=valid_until)
            .first()
        )
        if current is None:
            return None
        now = timezone.now()
        Entity.objects.filter(pk=current.pk).update(
            status=Status.SUPERSEDED, valid_until=valid_until, superseded_at=now
        )
        current.status, current.valid_until, current.superseded_at = (
            Status.SUPERSEDED, valid_until, now
        )  # fmt: skip
        _entity_audit(current, "entity.end", actor)
        about = {"agent": agent.slug, "user": end_user.external_id, "key": key}
        webhook_emit(tenant_id=agent.tenant_id, end_user_id=end_user.pk,
                     events=[_superseded(current, about, None, valid_until)])  # fmt: skip
        if rebuild:
            hot_document_rebuild(agent=agent, end_user=end_user)
    return current


def entity_correct(
    *,
    entity: Entity,
    value: object,
    valid_from: datetime.datetime | None = None,
    source: str = Source.OPERATOR,
    value_text: str | None = None,
    actor: str,
) -> tuple[Entity, bool]:
    """Replace a wrong value: a new active version (source operator or confirmed) that
    supersedes this one, valid from this one's start unless told otherwise."""
    if source not in (Source.OPERATOR, Source.CONFIRMED):
        raise invalid("source", "must be operator or confirmed")
    if entity.status != Status.ACTIVE:
        raise Conflict(
            "Only the active version of a fact can be corrected.", code="entity_not_active"
        )
    return entity_upsert(
        agent=entity.agent, end_user=entity.end_user, key=entity.key, value=value, source=source,
        valid_from=valid_from or entity.valid_from, value_text=value_text, actor=actor,
    )  # fmt: skip


def entity_pin_set(*, entity: Entity, pinned: bool, actor: str) -> Entity:
    if entity.status != Status.ACTIVE:
        raise Conflict("Only the active version of a fact can be pinned.", code="entity_not_active")
    with transaction.atomic():
        if Entity.objects.filter(pk=entity.pk, pinned=not pinned).update(pinned=pinned):
            entity.pinned = pinned
            _entity_audit(entity, "entity.pin" if pinned else "entity.unpin", actor)
            hot_document_rebuild(agent=entity.agent, end_user=entity.end_user)
    return entity


def entity_upsert_for_user(
    *,
    agent: Agent,
    user_external_id: str,
    key: str,
    value: object,
    source: str = Source.EXPLICIT,
    valid_from: datetime.datetime | None = None,
    value_text: str | None = None,
    source_turns: list[Any] | None = None,
    actor: str,
) -> tuple[Entity, bool]:
    """``entity_upsert`` for the user the tenant knows by ``user_external_id``, created on first
    sight (a fact may be written before the user's first session)."""
    end_user = end_user_get_or_create(tenant_id=agent.tenant_id, external_id=user_external_id)
    return entity_upsert(
        agent=agent, end_user=end_user, key=key, value=value, source=source,
        valid_from=valid_from, value_text=value_text, source_turns=source_turns, actor=actor,
    )  # fmt: skip
