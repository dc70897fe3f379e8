"""Forgetting one fact: every version of it, the memory units and summary sentences that state
it, optionally the words in the turns it came from (docs/gdpr.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Q

from core.text import sentences
from memory.hot.document import hot_document_rebuild
from memory.models import ACU, Entity, HotDocument, Turn
from memory.tokens import count_tokens
from tenants.services import audit_record
from webhooks.services import webhook_emit

REDACTED = "[redacted]"
MIN_NEEDLE_CHARS = 3  # a shorter value ("3", "no") would match memory units that say other things


@dataclass(frozen=True)
class Forgotten:
    key: str
    versions: int
    acus: int
    turns_redacted: int


def _value_needles(chain: list[dict[str, Any]]) -> set[str]:
    needles: set[str] = set()
    for version in chain:
        for candidate in (version["value_text"], version["value"]):
            if isinstance(candidate, str) and len(candidate.strip()) >= MIN_NEEDLE_CHARS:
                needles.add(candidate.strip().lower())
    return needles


def entity_forget(*, entity: Entity, actor: str, redact_turns: bool = False) -> Forgotten:
    """Forget a fact.

    Deletes every version of it (its whole key chain); every memory unit of the user that
    states one of its values: units whose text contains a version's value, and units compressed
    from the turns a version was extracted from; and the sentences of the rolling summary that
    came from those units or state a value. With ``redact_turns`` the source turns' text is
    replaced by a marker (PostgreSQL recomputes their search vector). Audited with the key and
    counts, never the value.
    """
    with transaction.atomic():
        with connection.cursor() as cursor:  # the same lock the fact's writers take
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                [f"fact:{entity.agent_id}:{entity.end_user_id}:{entity.key}"],
            )
        versions = Entity.objects.filter(
            tenant_id=entity.tenant_id,
            agent_id=entity.agent_id,
            end_user_id=entity.end_user_id,
            key=entity.key,
        )
        chain: list[dict[str, Any]] = [
            dict(row) for row in versions.values("value", "value_text", "source_turns")
        ]
        # superseded_by points inside the chain; clear it so the delete order does not matter.
        versions.update(superseded_by=None)
        deleted, _ = versions.delete()

        needles = _value_needles(chain)
        turns = {
            (str(ref["session"]), int(ref["seq"]))
            for version in chain
            for ref in version["source_turns"] or []
            if isinstance(ref, dict) and "session" in ref and "seq" in ref
        }
        stating = Q(pk__in=[])
        for needle in needles:
            stating |= Q(text__icontains=needle)
        for session, seq in turns:
            stating |= Q(session_id=session, first_seq__lte=seq, last_seq__gte=seq)
        units = ACU.objects.filter(
            tenant_id=entity.tenant_id, agent_id=entity.agent_id, end_user_id=entity.end_user_id
        ).filter(stating)
        unit_texts = set(units.values_list("text", flat=True))
        acus, _ = units.delete()

        redacted = 0
        if redact_turns and turns:
            at = Q(pk__in=[])
            for session, seq in turns:
                at |= Q(session_id=session, seq=seq)
            redacted = (
                Turn.objects.filter(
                    tenant_id=entity.tenant_id,
                    agent_id=entity.agent_id,
                    end_user_id=entity.end_user_id,
                )
                .filter(at)
                .exclude(text=REDACTED)
                .update(text=REDACTED, tokens=count_tokens(REDACTED))
            )
        audit_record(
            tenant=entity.tenant_id, actor=actor, action="entity.forget", target_type="entity",
            target_id=entity.pk,
            after={"key": entity.key, "end_user_id": entity.end_user_id, "versions": deleted,
                   "acus": acus, "turns_redacted": redacted},
        )  # fmt: skip
        webhook_emit(
            tenant_id=entity.tenant_id, end_user_id=entity.end_user_id,
            events=[("fact.forgotten", lambda: {"id": str(entity.pk), "agent": entity.agent.slug,
                     "user": entity.end_user.external_id, "key": entity.key, "versions": deleted})],
        )  # fmt: skip
        summary = (
            HotDocument.objects.filter(agent_id=entity.agent_id, end_user_id=entity.end_user_id)
            .values_list("summary", flat=True)
            .first()
        )
        kept = [
            sentence
            for sentence in sentences(summary or "")
            if sentence
            and sentence not in unit_texts
            and not any(needle in sentence.lower() for needle in needles)
        ]
        hot_document_rebuild(agent=entity.agent, end_user=entity.end_user, summary=" ".join(kept))
    return Forgotten(entity.key, deleted, acus, redacted)
