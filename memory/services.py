"""Writes to memory. Each public function is one transaction and leaves the hot document
re-rendered (and, after commit, re-cached) when what it changed is visible there."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Q, Sum
from django.utils import timezone

from core.errors import Conflict, Invalid, NotFound
from core.text import iso, sentences, text_storable
from memory.embedding import vector_literal
from memory.hot import hot_cache_key, hot_cache_put, hot_cache_put_tail
from memory.models import (
    ACU,
    Category,
    EndUser,
    Entity,
    HotDocument,
    Role,
    Source,
    Status,
    Turn,
)
from memory.rendering import stable_block_render
from memory.selectors import (
    entity_list,
    hot_document_cached,
    hot_document_current,
    hot_document_payload,
)
from memory.tokens import count_tokens
from memory.views import facts_split, turn_view
from schemas.models import Agent
from schemas.selectors import schema_active
from schemas.validation import (
    ValidationFailed,
    fact_key_parse,
    fact_value_validate,
)
from tenants.services import audit_record

MAX_TURN_CHARS = 32_000  # ≈ 8,000 tokens: longer is a document, not a turn
MAX_EXTERNAL_ID = 200
SOURCE_RANK: dict[str, int] = {
    Source.INFERRED: 0,
    Source.EXPLICIT: 1,
    Source.CONFIRMED: 2,
    Source.OPERATOR: 3,
}


def _invalid(place: str, message: str, code: str = "invalid") -> Invalid:
    return Invalid(f"{place}: {message}", code=code, fields={place: [message]})


def external_id_validate(value: str, place: str) -> str:
    if not value or len(value) > MAX_EXTERNAL_ID or not value.isprintable():
        raise _invalid(place, f"must be 1 to {MAX_EXTERNAL_ID} printable characters")
    return value


MAX_METADATA_BYTES = 16_384


def metadata_validate(metadata: object, place: str = "metadata") -> dict[str, Any]:
    """Client metadata is stored as JSONB, which holds no NUL and no lone surrogate."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise _invalid(place, "must be a JSON object")

    def walk(value: object) -> bool:
        if isinstance(value, str):
            return text_storable(value)
        if isinstance(value, dict):
            return all(text_storable(str(k)) and walk(v) for k, v in value.items())
        if isinstance(value, list):
            return all(walk(v) for v in value)
        return True

    if not walk(metadata):
        raise _invalid(
            place, "strings must be valid Unicode without NUL characters or lone surrogates"
        )
    if len(json.dumps(metadata)) > MAX_METADATA_BYTES:
        raise _invalid(place, f"at most {MAX_METADATA_BYTES} bytes of JSON")
    return metadata


def turn_text_validate(text: str, place: str = "text") -> str:
    if not text.strip():
        raise _invalid(place, "must not be empty")
    if len(text) > MAX_TURN_CHARS:
        raise _invalid(place, f"at most {MAX_TURN_CHARS} characters", code="turn_too_long")
    if not text_storable(text):
        raise _invalid(
            place,
            "must be valid Unicode without NUL characters or lone surrogates",
            code="invalid_text",
        )
    return text


# --- End users and the hot document ------------------------------------------------------------


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


def _recent_turns(agent: Agent, end_user: EndUser) -> list[dict[str, Any]]:
    turns = Turn.objects.filter(
        tenant_id=agent.tenant_id, agent=agent, end_user=end_user, archived_at__isnull=True
    ).order_by("-id")[: agent.context_window_turns]
    return [turn_view(t) for t in reversed(turns)]


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
            "'[]', '[]', '', '', '[]', 0, 0, now()) ON CONFLICT (agent_id, end_user_id) DO NOTHING",
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
    if document is None or (
        document.expires_next_at is not None and document.expires_next_at <= timezone.now()
    ):
        document = hot_document_rebuild(agent=agent, end_user=end_user)
        return hot_document_payload(document, agent_slug=agent.slug)  # cached on commit
    payload = hot_document_payload(document, agent_slug=agent.slug)
    hot_cache_put(document.cache_key, payload)
    return payload


# --- Sessions ----------------------------------------------------------------------------------


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
            "ON CONFLICT (agent_id, external_id) WHERE external_id IS NOT NULL "
            "DO UPDATE SET last_activity_at = EXCLUDED.last_activity_at, archived_at = NULL "
            "RETURNING id, agent_id, end_user_id, started_at, metadata, (xmax = 0) AS created) "
            "SELECT s.id, s.end_user_id, s.started_at, s.metadata, s.created, h.version, "
            "h.stable_version FROM s LEFT JOIN memory_hotdocument h "
            "ON h.agent_id = s.agent_id AND h.end_user_id = s.end_user_id",
            [uuid.uuid4(), tenant_id, agent_id, end_user_id, external_id,
             json.dumps(metadata or {}), now, now],
        )  # fmt: skip
        session_id, owner_id, started_at, stored_metadata, created, version, stable = (
            cursor.fetchone()
        )
    if owner_id != end_user_id:
        raise Conflict(
            f"Session {external_id!r} belongs to another user of this agent.",
            code="session_user_mismatch",
        )
    return SessionOpened(
        session_id, bool(created), started_at, _json(stored_metadata), version, stable
    )


# --- Turns -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnIn:
    role: str
    text: str
    seq: int | None = None
    occurred_at: datetime.datetime | None = None


@dataclass
class TurnAppended:
    turn: Turn
    created: bool


@dataclass
class AppendResult:
    turns: list[TurnAppended]
    agent_id: int
    end_user_id: int
    hot_version: int | None
    pending_tokens: int | None
    extraction_threshold: int | None


_ALLOCATE = (
    "UPDATE memory_session SET last_activity_at = %s, archived_at = NULL, next_seq = CASE WHEN %s::bigint IS NULL "
    "THEN next_seq + 1 ELSE GREATEST(next_seq, %s::bigint + 1) END "
    "WHERE id = %s AND tenant_id = %s RETURNING agent_id, end_user_id, next_seq"
)
_INSERT = (
    "INSERT INTO memory_turn (tenant_id, session_id, agent_id, end_user_id, seq, role, text, tokens, "
    "occurred_at, recorded_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (session_id, seq) DO NOTHING RETURNING id"
)
# Append to the tail, keep the agent's window, count pending tokens: one statement.
_HOT_APPEND = (
    "UPDATE memory_hotdocument h SET version = h.version + 1, updated_at = %s, "
    "pending_tokens = h.pending_tokens + %s, recent_turns = ("
    "  SELECT COALESCE(jsonb_agg(t.e ORDER BY t.o), '[]'::jsonb) FROM ("
    "    SELECT e, o FROM jsonb_array_elements(h.recent_turns || %s::jsonb) WITH ORDINALITY AS x(e, o)"
    "    ORDER BY o DESC LIMIT a.context_window_turns) t) "
    "FROM schemas_agent a WHERE a.id = h.agent_id AND h.agent_id = %s AND h.end_user_id = %s "
    "AND h.tenant_id = %s RETURNING h.cache_key, a.extraction_token_threshold, h.version, "
    "h.pending_tokens, h.recent_turns"
)


# One turn, one statement, one commit: allocate the seq, insert the turn, update the hot tail.
# Data-modifying CTEs run atomically as a single statement, so the autocommit is the
# transaction and the acknowledgement waits for exactly one WAL flush (bench/latency.py).
_APPEND_ONE = """
WITH s AS (
  UPDATE memory_session SET last_activity_at = %(now)s, archived_at = NULL,
    next_seq = CASE WHEN %(seq)s::bigint IS NULL THEN next_seq + 1
                    ELSE GREATEST(next_seq, %(seq)s::bigint + 1) END
  WHERE id = %(session)s AND tenant_id = %(tenant)s
    AND (%(scope)s::bigint IS NULL OR agent_id = %(scope)s::bigint)
  RETURNING agent_id, end_user_id, COALESCE(%(seq)s::bigint, next_seq - 1) AS seq
), t AS (
  INSERT INTO memory_turn (tenant_id, session_id, agent_id, end_user_id, seq, role, text, tokens,
                           occurred_at, recorded_at)
  SELECT %(tenant)s, %(session)s, s.agent_id, s.end_user_id, s.seq, %(role)s, %(text)s,
         %(tokens)s, %(occurred_at)s, %(now)s FROM s
  ON CONFLICT (session_id, seq) DO NOTHING
  RETURNING id
), h AS (
  UPDATE memory_hotdocument h SET version = h.version + 1, updated_at = %(now)s,
    pending_tokens = h.pending_tokens + %(tokens)s,
    recent_turns = (
      SELECT COALESCE(jsonb_agg(x.e ORDER BY x.o), '[]'::jsonb) FROM (
        SELECT e, o FROM jsonb_array_elements(h.recent_turns || jsonb_build_array(
          jsonb_build_object('session', %(session_text)s::text, 'seq', s.seq, 'role', %(role)s::text,
                             'text', %(text)s::text, 'occurred_at', %(occurred_iso)s::text)
        )) WITH ORDINALITY AS y(e, o) ORDER BY o DESC LIMIT a.context_window_turns) x)
  FROM s, t, schemas_agent a
  WHERE a.id = s.agent_id AND h.agent_id = s.agent_id AND h.end_user_id = s.end_user_id
    AND h.tenant_id = %(tenant)s
  RETURNING h.cache_key, a.extraction_token_threshold, h.version, h.pending_tokens, h.recent_turns
)
SELECT s.agent_id, s.end_user_id, s.seq, t.id, h.*
FROM s LEFT JOIN t ON true LEFT JOIN h ON true
"""


def _turn_append_one(
    *, tenant_id: int, session_id: uuid.UUID, turn: TurnIn, agent_scope: int | None
) -> AppendResult:
    now = timezone.now()
    occurred_at = turn.occurred_at or now
    tokens = count_tokens(turn.text)
    params = {
        "now": now, "seq": turn.seq, "session": session_id, "session_text": str(session_id),
        "tenant": tenant_id, "scope": agent_scope, "role": turn.role, "text": turn.text,
        "tokens": tokens, "occurred_at": occurred_at, "occurred_iso": iso(occurred_at),
    }  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(_APPEND_ONE, params)
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"No session {session_id}.", code="session_not_found")
    agent_id, end_user_id, seq, turn_id = row[:4]
    if turn_id is None:
        stored = Turn.objects.get(tenant_id=tenant_id, session_id=session_id, seq=seq)
        if stored.role != turn.role or stored.text != turn.text:
            raise Conflict(
                f"Turn {seq} of this session is already stored with different content.",
                code="turn_conflict",
            )
        return AppendResult(
            [TurnAppended(stored, created=False)], agent_id, end_user_id, None, None, None
        )
    stored = Turn(
        id=turn_id, tenant_id=tenant_id, session_id=session_id, agent_id=agent_id,
        end_user_id=end_user_id, seq=seq, role=turn.role, text=turn.text, tokens=tokens,
        occurred_at=occurred_at, recorded_at=now,
    )  # fmt: skip
    appended = [TurnAppended(stored, created=True)]
    if row[4] is None:  # no hot document yet: build it from the log, which holds this turn
        agent = Agent.objects.get(pk=agent_id, tenant_id=tenant_id)
        end_user = EndUser.objects.get(pk=end_user_id, tenant_id=tenant_id)
        HotDocument.objects.filter(agent=agent, end_user=end_user).update(pending_tokens=tokens)
        document = hot_document_rebuild(agent=agent, end_user=end_user)
        return AppendResult(
            appended,
            agent_id,
            end_user_id,
            document.version,
            tokens,
            agent.extraction_token_threshold,
        )
    cache_key, threshold, version, pending, recent = row[4:9]
    # Committed already (the statement was the transaction): refresh the cached tail now.
    hot_cache_put_tail(
        cache_key, version=version, recent_turns=_json(recent), pending_tokens=pending
    )
    return AppendResult(appended, agent_id, end_user_id, version, pending, threshold)


def turn_append(
    *, tenant_id: int, session_id: uuid.UUID, turns: list[TurnIn], agent_scope: int | None = None
) -> AppendResult:
    """Append turns to a session's log, exactly once per ``(session, seq)``; all or nothing.

    A turn whose seq is already stored with the same role and text is returned as it is
    (``created`` False); with different content the whole call is a Conflict and writes nothing.
    The turns are committed before this returns; then the hot tail and the pending-token count
    are updated in the same transaction, and the cache after commit.
    """
    for index, turn in enumerate(turns):
        place = f"turns[{index}]." if len(turns) > 1 else ""
        if turn.role not in Role.values:
            raise _invalid(f"{place}role", f"must be one of {', '.join(Role.values)}")
        turn_text_validate(turn.text, f"{place}text")
        if turn.seq is not None and turn.seq < 1:
            raise _invalid(f"{place}seq", "must be at least 1")
    if len(turns) == 1 and not connection.in_atomic_block:
        return _turn_append_one(
            tenant_id=tenant_id, session_id=session_id, turn=turns[0], agent_scope=agent_scope
        )
    now = timezone.now()
    results: list[TurnAppended] = []
    new_views: list[dict[str, Any]] = []
    new_tokens = 0
    with transaction.atomic(), connection.cursor() as cursor:
        agent_id = end_user_id = None
        for turn in turns:
            cursor.execute(_ALLOCATE, [now, turn.seq, turn.seq, session_id, tenant_id])
            row = cursor.fetchone()
            if row is None:
                raise NotFound(f"No session {session_id}.", code="session_not_found")
            agent_id, end_user_id, next_seq = row
            if agent_scope is not None and agent_id != agent_scope:
                raise NotFound(f"No session {session_id}.", code="session_not_found")
            seq = turn.seq if turn.seq is not None else next_seq - 1
            occurred_at = turn.occurred_at or now
            tokens = count_tokens(turn.text)
            cursor.execute(
                _INSERT,
                [
                    tenant_id,
                    session_id,
                    agent_id,
                    end_user_id,
                    seq,
                    turn.role,
                    turn.text,
                    tokens,
                    occurred_at,
                    now,
                ],
            )
            inserted = cursor.fetchone()
            if inserted is None:
                stored = Turn.objects.get(session_id=session_id, seq=seq)
                if stored.role != turn.role or stored.text != turn.text:
                    raise Conflict(
                        f"Turn {seq} of this session is already stored with different content.",
                        code="turn_conflict",
                    )
                results.append(TurnAppended(stored, created=False))
                continue
            stored = Turn(
                id=inserted[0], tenant_id=tenant_id, session_id=session_id, agent_id=agent_id,
                end_user_id=end_user_id, seq=seq, role=turn.role, text=turn.text, tokens=tokens,
                occurred_at=occurred_at, recorded_at=now,
            )  # fmt: skip
            results.append(TurnAppended(stored, created=True))
            new_views.append(turn_view(stored))
            new_tokens += tokens
        assert agent_id is not None and end_user_id is not None
        if not new_views:
            return AppendResult(results, agent_id, end_user_id, None, None, None)
        cursor.execute(
            _HOT_APPEND, [now, new_tokens, json.dumps(new_views), agent_id, end_user_id, tenant_id]
        )
        row = cursor.fetchone()
        if row is None:  # no hot document yet (a session opened before it was built)
            agent = Agent.objects.get(pk=agent_id, tenant_id=tenant_id)
            end_user = EndUser.objects.get(pk=end_user_id, tenant_id=tenant_id)
            HotDocument.objects.filter(agent=agent, end_user=end_user).update(
                pending_tokens=new_tokens
            )
            document = hot_document_rebuild(agent=agent, end_user=end_user)
            return AppendResult(
                results,
                agent_id,
                end_user_id,
                document.version,
                new_tokens,
                agent.extraction_token_threshold,
            )
        cache_key, threshold, version, pending, recent = row
        tail = {"version": version, "recent_turns": _json(recent), "pending_tokens": pending}
        transaction.on_commit(lambda: hot_cache_put_tail(cache_key, **tail))
    return AppendResult(results, agent_id, end_user_id, version, pending, threshold)


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


# --- Facts -------------------------------------------------------------------------------------


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
        raise _invalid("source", f"must be one of {', '.join(Source.values)}")
    if fields is None:
        fields = schema_active(agent=agent).fields
    try:
        field, full_key = fact_key_parse(key, fields)
        stored_value, text = fact_value_validate(field, value)
    except ValidationFailed as exc:
        place, messages = next(iter(exc.errors.items()))
        raise Invalid(f"{place}: {messages[0]}", fields=exc.errors) from None
    if value_text is not None:
        if not value_text.strip() or len(value_text) > 1000:
            raise _invalid("value_text", "must be 1 to 1000 characters")
        text = value_text.strip()
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
    # Writers of one fact queue up here: a transaction-scoped advisory lock on (agent, user,
    # key) exists even before the key's first row does; the chain read after it sees every
    # version committed before.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"fact:{agent.pk}:{end_user.pk}:{key}"],
        )
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
    if rebuild:
        hot_document_rebuild(agent=agent, end_user=end_user)
    return new, True


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
        raise _invalid("source", "must be operator or confirmed")
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


def end_user_lock_live(*, end_user: EndUser) -> bool:
    """In the caller's transaction: share-lock the user's row and tell whether it still is this
    user (not erased, not being erased). Holding the lock until commit keeps an erase from
    starting before the caller's writes are in, so the erase then removes them too."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM memory_enduser WHERE id = %s AND tenant_id = %s AND external_id = %s "
            "FOR SHARE",
            [end_user.pk, end_user.tenant_id, end_user.external_id],
        )
        return cursor.fetchone() is not None


# --- Memory units (tier 2) and archiving, for the write lane ---------------------------------


def acu_create_many(*, agent: Agent, end_user: EndUser, units: list[dict[str, Any]]) -> int:
    """Insert memory units; one whose content hash this user already has is skipped (so a
    re-run of a window cannot duplicate). Returns how many were inserted."""
    if not units:
        return 0
    inserted = 0
    with connection.cursor() as cursor:
        for unit in units:
            cursor.execute(
                "INSERT INTO memory_acu (tenant_id, agent_id, end_user_id, session_id, text, embedding, "
                "keywords, first_seq, last_seq, occurred_at, content_hash, created_at) "
                "VALUES (%s, %s, %s, %s, %s, %s::vector, to_tsvector(%s::regconfig, %s), %s, %s, %s, %s, now()) "
                "ON CONFLICT (agent_id, end_user_id, content_hash) DO NOTHING",
                [agent.tenant_id, agent.pk, end_user.pk, unit["session_id"], unit["text"],
                 vector_literal(unit["embedding"]), agent.search_language, unit["text"],
                 unit["first_seq"], unit["last_seq"],
                 unit["occurred_at"], unit["content_hash"]],
            )  # fmt: skip
            inserted += cursor.rowcount
    return inserted


def acu_nearest(
    *, agent: Agent, end_user: EndUser, vector: Any, k: int = 3
) -> list[tuple[str, float]]:
    """The user's stored units closest to ``vector``, with cosine similarity (exact scan)."""
    literal = vector_literal(vector)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT text, 1 - (embedding <=> %s::vector) FROM memory_acu "
            "WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s AND embedding IS NOT NULL "
            "ORDER BY embedding <=> %s::vector LIMIT %s",
            [literal, agent.tenant_id, agent.pk, end_user.pk, literal, k],
        )
        return [(text, float(similarity)) for text, similarity in cursor.fetchall()]


def turns_archive(*, agent: Agent, end_user: EndUser, through_turn_id: int, keep: set[int]) -> int:
    """Evict turns from the hot tier (mark, never move or rewrite): every unarchived turn up to
    ``through_turn_id`` except those in ``keep``."""
    return (
        Turn.objects.filter(
            tenant_id=agent.tenant_id,
            agent=agent,
            end_user=end_user,
            archived_at__isnull=True,
            id__lte=through_turn_id,
        )
        .exclude(id__in=keep)
        .update(archived_at=timezone.now())
    )
