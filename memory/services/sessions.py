"""End users and sessions: first sight of a user, opening a session, and the session start an
agent makes (its hot document from Redis when that copy is current, else from PostgreSQL)."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.errors import Conflict
from memory.hot.document import hot_document_from_row
from memory.models import EndUser
from memory.rendering import context_block_render, recent_messages
from memory.selectors.hot import hot_document_cached, hot_document_current
from memory.selectors.sessions import agent_user_get
from memory.validation import external_id_validate, metadata_validate


def db_json(value: Any) -> Any:
    """A jsonb column read by hand-written SQL: Django's driver setup hands it over as text."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def end_user_get_or_create(*, tenant_id: int, external_id: str) -> EndUser:
    external_id_validate(external_id, "user")
    user = EndUser.objects.filter(tenant_id=tenant_id, external_id=external_id).first()
    if user is not None:
        return user
    try:
        with transaction.atomic():
            return EndUser.objects.create(tenant_id=tenant_id, external_id=external_id)
    except IntegrityError:  # created concurrently
        return EndUser.objects.get(tenant_id=tenant_id, external_id=external_id)


@dataclass(frozen=True)
class SessionOpened:
    id: uuid.UUID
    created: bool
    started_at: datetime.datetime
    metadata: dict[str, Any]
    # PostgreSQL's versions of the user's hot document (None before it is built), read in the
    # same statement, so a Redis copy can be checked against them (ADR 0020).
    hot_version: int | None = None
    hot_stable_version: int | None = None
    # The seq the server gives the session's next turn: a client resuming the session numbers
    # its appends from here, so their retries stay exactly-once.
    next_seq: int = 1


def session_open(
    *,
    tenant_id: int,
    agent_id: int,
    end_user_id: int,
    external_id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> SessionOpened:
    """Open a session, or resume the one with this ``external_id``: one statement, which also
    reads the versions of the user's hot document.

    Resuming keeps the stored metadata. An ``external_id`` already used by another user of the
    agent is a Conflict.
    """
    if external_id is not None:
        external_id_validate(external_id, "session")
    metadata = metadata_validate(metadata)
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH s AS (INSERT INTO memory_session (id, tenant_id, agent_id, end_user_id, external_id, "
            "metadata, started_at, last_activity_at, next_seq) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 1) "
            "ON CONFLICT (tenant_id, agent_id, external_id) WHERE external_id IS NOT NULL "
            "DO UPDATE SET last_activity_at = EXCLUDED.last_activity_at, archived_at = NULL "
            "RETURNING id, agent_id, end_user_id, started_at, metadata, (xmax = 0) AS created, next_seq) "
            "SELECT s.id, s.end_user_id, s.started_at, s.metadata, s.created, h.version, "
            "h.stable_version, s.next_seq FROM s LEFT JOIN memory_hotdocument h "
            "ON h.tenant_id = %s AND h.agent_id = s.agent_id AND h.end_user_id = s.end_user_id",
            [uuid.uuid4(), tenant_id, agent_id, end_user_id, external_id,
             json.dumps(metadata or {}), now, now, tenant_id],
        )  # fmt: skip
        session_id, owner_id, started_at, stored_metadata, created, version, stable, next_seq = (
            cursor.fetchone()
        )
    if owner_id != end_user_id:
        raise Conflict(
            f"Session {external_id!r} belongs to another user of this agent.",
            code="session_user_mismatch",
        )
    return SessionOpened(
        session_id, bool(created), started_at, db_json(stored_metadata), version, stable, next_seq
    )


@dataclass(frozen=True)
class SessionStarted:
    created: bool
    body: dict[str, Any]  # what the agent gets: the session, its context block and memory


def session_start(
    *,
    tenant_id: int,
    agent_scope: int | None,
    agent_slug: str,
    user_external_id: str,
    external_id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> SessionStarted:
    """Open (or resume) a session for the user the agent knows by ``user_external_id``, with
    the user's hot document: warm, one statement (the open) and one Redis read.

    The document comes from Redis when there is a copy this key may see; else from PostgreSQL,
    the user created on first sight. Either is then checked against PostgreSQL's versions, read
    by the open: a Redis copy left behind by a failed write is read past and PostgreSQL's
    re-cached (ADR 0020). On a miss the agent, the user and their document's row are one
    statement (``agent_user_get``).
    """
    metadata_validate(metadata)  # before anything is created: bad input changes nothing

    def load() -> dict[str, Any]:
        external_id_validate(user_external_id, "user")  # before it reaches the statement
        agent, end_user, row = agent_user_get(
            tenant_id=tenant_id, agent_slug=agent_slug, agent_scope=agent_scope,
            user_external_id=user_external_id, with_document=True,
        )  # fmt: skip
        if end_user is None:  # first sight
            end_user = end_user_get_or_create(tenant_id=tenant_id, external_id=user_external_id)
        return hot_document_from_row(agent=agent, end_user=end_user, document=row)

    document = hot_document_cached(
        tenant_id=tenant_id, agent_slug=agent_slug, user_external_id=user_external_id
    )
    if document is None or (agent_scope is not None and document["agent_id"] != agent_scope):
        document = load()
    opened = session_open(
        tenant_id=tenant_id,
        agent_id=document["agent_id"],
        end_user_id=document["end_user_id"],
        external_id=external_id,
        metadata=metadata,
    )
    if not hot_document_current(
        document, version=opened.hot_version, stable_version=opened.hot_stable_version
    ):
        document = load()  # read after the open: at least as new as its versions
    body = {
        "session_id": str(opened.id),
        "created": opened.created,
        "next_seq": opened.next_seq,
        "agent": agent_slug,
        "user": user_external_id,
        "hot_version": document["version"],
        # What to inject: the system block (memory, no raw turns) and the recent turns as chat
        # messages; context_block (both in one text) stays for older callers.
        "system_block": document["stable_block"] + "\n",
        "recent_messages": recent_messages(document["recent_turns"]),
        "context_block": context_block_render(document["stable_block"], document["recent_turns"]),
        "profile": {fact["key"]: fact for fact in document["profile"]},
        "facts": document["facts"],
        "possibilities": document["possibilities"],
        "pinned": document["pinned"],
        "recent_turns": document["recent_turns"],
        "summary": document["summary"],
    }
    return SessionStarted(created=opened.created, body=body)
