"""Editing a session's history as a chat framework does: undo the last turn appended, clear the
session's turns from the hot tier. Both are audited, never with the text."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from core.errors import Conflict, NotFound
from memory.hot.document import hot_document_rebuild
from memory.models import HotDocument, Session, Turn
from tenants.services import audit_record


@dataclass(frozen=True)
class TurnRemoved:
    seq: int
    role: str
    hot_version: int


def turn_remove_last(*, session: Session, actor: str) -> TurnRemoved:
    """Delete the session's last turn (highest ``seq``) from the log and the hot tail: the undo
    of a mistaken append.

    Refused (409 ``turn_extracted``) once the write lane has read the turn: facts and memory
    units may come from it, and removing the turn would leave them citing nothing. Forget those
    facts (``entity_forget``) or erase the user instead. The seq is not given out again: the next
    server-numbered turn takes the one after it.
    """
    with transaction.atomic():
        # The session's row first, then the hot document's, as an append takes them: an append
        # waits for the undo (or the undo for it), so "the last turn" is the last one committed.
        Session.objects.select_for_update().filter(tenant_id=session.tenant_id, pk=session.pk).get()
        document = (
            HotDocument.objects.select_for_update()
            .filter(tenant_id=session.tenant_id, agent_id=session.agent_id)
            .filter(end_user_id=session.end_user_id)
            .first()
        )
        turn = (
            Turn.objects.filter(tenant_id=session.tenant_id, session_id=session.pk)
            .order_by("-seq")
            .first()
        )
        if turn is None:
            raise NotFound("This session has no turns.", code="turn_not_found")
        if document is not None and turn.id <= document.watermark_turn_id:
            raise Conflict(
                f"Turn {turn.seq} has already been extracted; forget the facts instead.",
                code="turn_extracted",
            )
        turn.delete()
        if document is not None:
            HotDocument.objects.filter(pk=document.pk).update(
                pending_tokens=Greatest(F("pending_tokens") - turn.tokens, 0)
            )
        audit_record(
            tenant=session.tenant_id, actor=actor, action="turn.remove", target_type="session",
            target_id=session.pk,
            after={"seq": turn.seq, "role": turn.role, "end_user_id": session.end_user_id},
        )  # fmt: skip
        rebuilt = hot_document_rebuild(agent=session.agent, end_user=session.end_user)
    return TurnRemoved(turn.seq, turn.role, rebuilt.version)


@dataclass(frozen=True)
class TurnsCleared:
    cleared: int
    hot_version: int


def turn_clear_hot(*, session: Session, actor: str) -> TurnsCleared:
    """Take the session's turns out of the hot tier (its recent conversation), as a chat's
    "clear" does. The log keeps them (search, export and extraction still read them) until the
    user is erased or retention removes them; nothing else changes."""
    with transaction.atomic():
        cleared = Turn.objects.filter(
            tenant_id=session.tenant_id, session_id=session.pk, archived_at__isnull=True
        ).update(archived_at=timezone.now())
        audit_record(
            tenant=session.tenant_id, actor=actor, action="turn.clear_hot", target_type="session",
            target_id=session.pk, after={"turns": cleared, "end_user_id": session.end_user_id},
        )  # fmt: skip
        rebuilt = hot_document_rebuild(agent=session.agent, end_user=session.end_user)
    return TurnsCleared(cleared, rebuilt.version)
