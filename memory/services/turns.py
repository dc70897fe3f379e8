"""Appending turns: the exactly-once log of a session, and the hot tail it feeds."""

from __future__ import annotations

import contextlib
import datetime
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from core.errors import Conflict, NotFound
from core.text import iso, utc_offset_minutes
from memory.hot.cache import hot_cache_put_tail
from memory.hot.document import hot_document_rebuild
from memory.models import EndUser, HotDocument, Turn
from memory.tokens import count_tokens
from memory.validation import turn_validate
from schemas.models import Agent


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
    """The stored turns, and what the extraction scheduler needs to decide whether a run is
    due (``extraction_schedule_if_due``; the API layer composes the two, as memory does not
    import extraction). The hot fields are None when no turn was new."""

    turns: list[TurnAppended]
    agent_id: int
    end_user_id: int
    hot_version: int | None
    pending_tokens: int | None
    extraction_threshold: int | None


# One turn, one statement: allocate the seq, insert the turn, append it to the hot tail (keeping
# the agent's window, counting pending tokens). Data-modifying CTEs run atomically as a single
# statement, so outside a transaction the autocommit is the transaction and the acknowledgement
# waits for exactly one WAL flush (bench/latency.py). A batch runs it once per turn.
_APPEND = """
WITH s AS (
  UPDATE memory_session SET last_activity_at = %(now)s, archived_at = NULL,
    next_seq = CASE WHEN %(seq)s::bigint IS NULL THEN next_seq + 1
                    ELSE GREATEST(next_seq, %(seq)s::bigint + 1) END
  WHERE id = %(session)s AND tenant_id = %(tenant)s
    AND (%(scope)s::bigint IS NULL OR agent_id = %(scope)s::bigint)
  RETURNING agent_id, end_user_id, COALESCE(%(seq)s::bigint, next_seq - 1) AS seq
), t AS (
  INSERT INTO memory_turn (tenant_id, session_id, agent_id, end_user_id, seq, role, text, tokens,
                           occurred_at, utc_offset, recorded_at)
  SELECT %(tenant)s, %(session)s, s.agent_id, s.end_user_id, s.seq, %(role)s, %(text)s,
         %(tokens)s, %(occurred_at)s, %(utc_offset)s, %(now)s FROM s
  ON CONFLICT (tenant_id, session_id, seq) DO NOTHING
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


@dataclass
class _Written:
    appended: TurnAppended
    agent_id: int
    end_user_id: int
    hot: tuple[Any, ...] | None  # the hot document's row after the turn went in, if it has one


def _turn_write(
    *,
    tenant_id: int,
    session_id: uuid.UUID,
    turn: TurnIn,
    agent_scope: int | None,
    now: datetime.datetime,
) -> _Written:
    occurred_at = turn.occurred_at or now
    tokens = count_tokens(turn.text)
    offset = utc_offset_minutes(turn.occurred_at)
    params = {
        "now": now, "seq": turn.seq, "session": session_id, "session_text": str(session_id),
        "tenant": tenant_id, "scope": agent_scope, "role": turn.role, "text": turn.text,
        "tokens": tokens, "occurred_at": occurred_at, "occurred_iso": iso(occurred_at),
        "utc_offset": offset,
    }  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(_APPEND, params)
        row = cursor.fetchone()
    if row is None:
        raise NotFound(f"No session {session_id}.", code="session_not_found")
    agent_id, end_user_id, seq, turn_id = row[:4]
    if turn_id is None:  # this seq is stored: the same turn again, or a conflict
        stored = Turn.objects.get(tenant_id=tenant_id, session_id=session_id, seq=seq)
        if stored.role != turn.role or stored.text != turn.text:
            raise Conflict(
                f"Turn {seq} of this session is already stored with different content.",
                code="turn_conflict",
            )
        return _Written(TurnAppended(stored, created=False), agent_id, end_user_id, None)
    stored = Turn(
        id=turn_id, tenant_id=tenant_id, session_id=session_id, agent_id=agent_id,
        end_user_id=end_user_id, seq=seq, role=turn.role, text=turn.text, tokens=tokens,
        occurred_at=occurred_at, utc_offset=offset, recorded_at=now,
    )  # fmt: skip
    hot = tuple(row[4:9]) if row[4] is not None else None
    return _Written(TurnAppended(stored, created=True), agent_id, end_user_id, hot)


def turn_append(
    *, tenant_id: int, session_id: uuid.UUID, turns: list[TurnIn], agent_scope: int | None = None
) -> AppendResult:
    """Append turns to a session's log, exactly once per ``(session, seq)``; all or nothing.

    A turn whose seq is already stored with the same role and text is returned as it is
    (``created`` False); with different content the whole call is a Conflict and writes nothing.
    Each turn goes in with the hot tail and the pending-token count, in one statement; several
    turns share one transaction. The cached tail is refreshed after commit.
    """
    for index, turn in enumerate(turns):
        place = f"turns[{index}]." if len(turns) > 1 else ""
        turn_validate(role=turn.role, text=turn.text, seq=turn.seq, place=place)
    now = timezone.now()
    # One turn outside a transaction is its own statement's commit: no BEGIN/COMMIT round trips.
    batch: contextlib.AbstractContextManager[Any] = (
        transaction.atomic() if len(turns) > 1 else contextlib.nullcontext()
    )
    with batch:
        written = [
            _turn_write(
                tenant_id=tenant_id, session_id=session_id, turn=t, agent_scope=agent_scope, now=now
            )
            for t in turns
        ]
        appended = [w.appended for w in written]
        agent_id, end_user_id = written[-1].agent_id, written[-1].end_user_id
        new = [w for w in written if w.appended.created]
        if not new:
            return AppendResult(appended, agent_id, end_user_id, None, None, None)
        hot = new[-1].hot
        if hot is None or any(w.hot is None for w in new):  # no hot document yet: build it
            new_tokens = sum(w.appended.turn.tokens for w in new)
            agent = Agent.objects.get(pk=agent_id, tenant_id=tenant_id)
            end_user = EndUser.objects.get(pk=end_user_id, tenant_id=tenant_id)
            HotDocument.objects.filter(agent=agent, end_user=end_user).update(
                pending_tokens=new_tokens
            )
            document = hot_document_rebuild(agent=agent, end_user=end_user)
            return AppendResult(
                appended, agent_id, end_user_id, document.version, new_tokens,
                agent.extraction_token_threshold,
            )  # fmt: skip
        cache_key, threshold, version, pending, recent = hot
        # The tail's JSON goes to Redis as PostgreSQL wrote it (text: not parsed, not re-dumped).
        recent = recent.decode() if isinstance(recent, bytes) else recent
        tail = {"version": version, "recent_turns": recent, "pending_tokens": pending}
        # After commit; for one turn outside a transaction that is now (the statement was it).
        transaction.on_commit(lambda: hot_cache_put_tail(cache_key, **tail))
    return AppendResult(appended, agent_id, end_user_id, version, pending, threshold)
