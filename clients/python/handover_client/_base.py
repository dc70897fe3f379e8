"""What ``Handover`` and ``AsyncHandover`` share: configuration, and the turn numbering that makes
appends exactly-once. The HTTP calls themselves are in ``_sync`` and ``_async``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import httpx2

from handover_client import _calls as c
from handover_client import models as m
from handover_client._core import USER_AGENT, Call, RetryPolicy, SeqCounter
from handover_client.errors import APIError, HandoverError, TransportError

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
# Connect fast, read a little longer: search and context stay far under this; a batch of 500
# turns is the slowest call.
DEFAULT_TIMEOUT = httpx2.Timeout(10.0, connect=3.0)
# A streamed answer (an export) takes as long as the user's history is long: connect fast,
# then no limit on reading it.
STREAM_TIMEOUT = httpx2.Timeout(None, connect=3.0)


class BaseClient:
    def __init__(
        self,
        api_key: str | None,
        base_url: str | None,
        timeout: float | httpx2.Timeout | None,
        max_retries: int,
        retry: RetryPolicy | None,
    ) -> None:
        api_key = api_key or os.environ.get("HANDOVER_API_KEY")
        if not api_key:
            raise HandoverError("an API key is needed: pass api_key= or set HANDOVER_API_KEY")
        self.base_url = (base_url or os.environ.get("HANDOVER_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.retry = retry or RetryPolicy(max_retries=max_retries)
        self.seqs = SeqCounter()
        self._options: dict[str, Any] = {
            "base_url": self.base_url,
            "timeout": DEFAULT_TIMEOUT if timeout is None else timeout,
            "headers": {"Authorization": f"Bearer {api_key}", "User-Agent": USER_AGENT},
        }

    # Turn seqs: the client numbers the turns of the sessions it knows, so that a repeated
    # append (a retry after a timeout) is stored exactly once.

    def _opened(self, session: m.Session) -> m.Session:
        # The server says which seq the next turn takes, for a resumed session too: the client
        # numbers from there, so a retry of its first append is stored once.
        if session.next_seq is not None:
            self.seqs.start(session.session_id, session.next_seq)
        elif session.created:
            self.seqs.start(session.session_id, 1)
        return session

    def _turn_call(
        self, session_id: str, role: str, text: str, seq: int | None, occurred_at: c.Time
    ) -> tuple[Call[m.Turn], int | None]:
        taken = None
        if seq is None:
            seq = taken = self.seqs.take(session_id)
        return c.turn_append(session_id, role, text, seq, occurred_at), taken

    def _batch_call(
        self, session_id: str, turns: Sequence[m.TurnInput | dict[str, Any]]
    ) -> tuple[Call[m.TurnBatch], int | None, int]:
        items = [t if isinstance(t, m.TurnInput) else m.TurnInput(**t) for t in turns]
        missing = [i for i, t in enumerate(items) if t.seq is None]
        taken = self.seqs.take(session_id, len(missing)) if missing else None
        if taken is not None:
            numbered = dict(zip(missing, range(taken, taken + len(missing)), strict=True))
            items = [
                m.TurnInput(t.role, t.text, numbered.get(i, t.seq), t.occurred_at)
                for i, t in enumerate(items)
            ]
        return c.turn_batch(session_id, items), taken, len(missing)

    def _failed(self, session_id: str, taken: int | None, count: int, error: Exception) -> None:
        if taken is None:
            return
        if isinstance(error, TransportError):
            error.seq = taken  # the outcome is unknown: the caller repeats with this seq
        elif isinstance(error, APIError) and error.status < 500 and error.status != 409:
            self.seqs.give_back(session_id, taken, count)  # refused: nothing was stored
