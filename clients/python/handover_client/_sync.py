"""``Handover``: the blocking client. ``AsyncHandover`` (``_async``) has the same methods."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, BinaryIO, TypeVar

import httpx2

from handover_client import _calls as c
from handover_client import models as m
from handover_client._base import STREAM_TIMEOUT, BaseClient
from handover_client._core import (
    Call,
    RetryPolicy,
    parse,
    retry_delay_for_error,
    retry_delay_for_response,
    transport_error,
)
from handover_client.errors import HandoverError

T = TypeVar("T")


class Handover(BaseClient):
    """Blocking client. ``Handover(api_key=..., base_url=...)``; defaults from
    ``HANDOVER_API_KEY`` and ``HANDOVER_URL``. Use as a context manager, or call ``close()``."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float | httpx2.Timeout | None = None,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        transport: httpx2.BaseTransport | None = None,
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries, retry)
        self._http = httpx2.Client(transport=transport, **self._options)

    def __enter__(self) -> Handover:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._http.request(
                    call.method, call.path, json=call.json, params=call.params,
                    timeout=STREAM_TIMEOUT if call.stream else httpx2.USE_CLIENT_DEFAULT,
                )  # fmt: skip
            except httpx2.TransportError as error:
                delay = retry_delay_for_error(self.retry, call, error, attempt)
                if delay is None:
                    raise transport_error(error, call) from error
            else:
                delay = retry_delay_for_response(self.retry, call, response, attempt)
                if delay is None:
                    return parse(call, response)
            time.sleep(delay)

    def _download(self, call: Call[Any], destination: BinaryIO) -> int:
        """Copy a streamed answer into ``destination`` chunk by chunk; retried like ``_run``
        until its first byte is written, never after (the file would hold it twice)."""
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._http.stream(
                    call.method, call.path, params=call.params, timeout=STREAM_TIMEOUT
                ) as response:
                    if response.status_code < 400:
                        written = 0
                        for chunk in response.iter_bytes():
                            destination.write(chunk)
                            written += len(chunk)
                        return written
                    response.read()
                    delay = retry_delay_for_response(self.retry, call, response, attempt)
                    if delay is None:
                        parse(call, response)  # raises the API's error
            except httpx2.TransportError as error:
                delay = retry_delay_for_error(self.retry, call, error, attempt)
                if delay is None:
                    raise transport_error(error, call) from error
            time.sleep(delay or 0)

    # --- The call path -------------------------------------------------------------------------

    def open_session(
        self,
        agent: str,
        user: str,
        *,
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> m.Session:
        """Open a session (or resume the one with this client ``session`` id)."""
        return self._opened(self._run(c.session_open(agent, user, session, metadata)))

    def append_turn(
        self,
        session_id: str,
        role: m.Role,
        text: str,
        *,
        seq: int | None = None,
        occurred_at: c.Time = None,
    ) -> m.Turn:
        """Append one turn. For a session this client opened, ``seq`` is assigned here, so a
        retry is stored once; for one it did not open, the server numbers the first turn."""
        call, taken = self._turn_call(session_id, role, text, seq, occurred_at)
        try:
            turn = self._run(call)
        except HandoverError as error:
            self._failed(session_id, taken, 1, error)
            raise
        self.seqs.saw(session_id, turn.seq)
        return turn

    def append_turns(
        self, session_id: str, turns: Sequence[m.TurnInput | dict[str, Any]]
    ) -> m.TurnBatch:
        """Append up to 500 turns in order, all or nothing."""
        call, taken, count = self._batch_call(session_id, turns)
        try:
            batch = self._run(call)
        except HandoverError as error:
            self._failed(session_id, taken, count, error)
            raise
        if batch.turns:
            self.seqs.saw(session_id, max(t.seq for t in batch.turns))
        return batch

    def list_turns(
        self, session_id: str, *, limit: int | None = None, before_seq: int | None = None
    ) -> m.TurnPage:
        """The session's turns, newest first, a page at a time (``before_seq`` for older)."""
        return self._run(c.turn_list(session_id, limit, before_seq))

    def remove_last_turn(self, session_id: str) -> m.TurnRemoved:
        """Undo the last turn appended (409 ``turn_extracted`` once extraction has read it)."""
        return self._run(c.turn_remove_last(session_id))

    def clear_turns(self, session_id: str) -> m.TurnsCleared:
        """Take the session's turns out of the hot tier; the log keeps them."""
        return self._run(c.turn_clear(session_id))

    def context(
        self, session_id: str, *, query: str | None = None, budget_tokens: int | None = None
    ) -> m.PackedContext:
        return self._run(c.context(session_id, query, budget_tokens))

    def search(
        self,
        user: str,
        query: str,
        *,
        agent: str | None = None,
        k: int | None = None,
        session: str | None = None,
        explain: bool = False,
    ) -> m.SearchResult:
        return self._run(c.search(user, query, agent, k, session, explain))

    # --- Facts -------------------------------------------------------------------------------

    def write_fact(
        self,
        user: str,
        key: str,
        value: Any,
        *,
        agent: str | None = None,
        source: str | None = None,
        valid_from: c.Time = None,
        value_text: str | None = None,
        source_turns: list[Any] | None = None,
    ) -> m.Entity:
        call = c.fact_write(user, key, value, agent, source, valid_from, value_text, source_turns)
        return self._run(call)

    def list_entities(
        self,
        user: str,
        *,
        agent: str | None = None,
        key: str | None = None,
        status: str | None = None,
        as_of: c.Time = None,
        known_at: c.Time = None,
    ) -> list[m.Entity]:
        return self._run(c.entity_list(user, agent, key, status, as_of, known_at))

    def get_entity(self, entity_id: str) -> m.Entity:
        return self._run(c.entity_get(entity_id))

    def forget_entity(self, entity_id: str, *, redact_turns: bool = False) -> m.Forgotten:
        """Forget a fact; ``redact_turns`` also blanks the text of the turns it came from."""
        return self._run(c.entity_forget(entity_id, redact_turns))

    def correct_entity(
        self,
        entity_id: str,
        value: Any,
        *,
        valid_from: c.Time = None,
        source: str | None = None,
        value_text: str | None = None,
    ) -> m.Entity:
        return self._run(c.entity_correct(entity_id, value, valid_from, source, value_text))

    def pin_entity(self, entity_id: str) -> m.Entity:
        return self._run(c.entity_pin(entity_id, True))

    def unpin_entity(self, entity_id: str) -> m.Entity:
        return self._run(c.entity_pin(entity_id, False))

    # --- Write lane, GDPR ------------------------------------------------------------------

    def list_runs(self, user: str, *, agent: str | None = None) -> list[m.ExtractionRun]:
        return self._run(c.run_list(user, agent))

    def start_run(self, user: str, *, agent: str | None = None) -> m.ExtractionRun:
        return self._run(c.run_start(user, agent))

    def export_user(self, user: str, *, embeddings: bool = False) -> dict[str, Any]:
        """Everything held about the user, parsed (in memory: for a large one, ``export_user_to``)."""
        return self._run(c.user_export(user, embeddings))

    def export_user_to(self, user: str, destination: BinaryIO, *, embeddings: bool = False) -> int:
        """Stream the export into a binary file, never holding it whole; returns the bytes."""
        return self._download(c.user_export(user, embeddings), destination)

    def erase_user(self, user: str) -> m.Erasure:
        return self._run(c.user_erase(user))

    def get_erasure(self, erasure_id: str | int) -> m.Erasure:
        return self._run(c.erasure_get(erasure_id))

    # --- Management --------------------------------------------------------------------------

    def list_agents(self) -> list[m.Agent]:
        return self._run(c.agent_list())

    def create_agent(
        self,
        slug: str,
        name: str,
        *,
        description: str | None = None,
        settings: dict[str, Any] | None = None,
        schema_fields: list[dict[str, Any]] | None = None,
    ) -> m.Agent:
        return self._run(c.agent_create(slug, name, description, settings, schema_fields))

    def get_agent(self, slug: str) -> m.Agent:
        return self._run(c.agent_get(slug))

    def update_agent(
        self, slug: str, *, name: str | None = None, description: str | None = None
    ) -> m.Agent:
        return self._run(c.agent_update(slug, name, description))

    def get_settings(self, slug: str) -> dict[str, Any]:
        return self._run(c.settings_get(slug))

    def update_settings(self, slug: str, **changes: Any) -> dict[str, Any]:
        return self._run(c.settings_update(slug, changes))

    def list_schemas(self, slug: str) -> list[m.Schema]:
        return self._run(c.schema_list(slug))

    def publish_schema(
        self,
        slug: str,
        fields: list[dict[str, Any]],
        *,
        note: str | None = None,
        activate: bool | None = None,
    ) -> m.Schema:
        return self._run(c.schema_publish(slug, fields, note, activate))

    def get_schema(self, slug: str, version: int) -> m.Schema:
        return self._run(c.schema_get(slug, version))

    def activate_schema(self, slug: str, version: int) -> m.Schema:
        return self._run(c.schema_activate(slug, version))

    # --- Webhooks (operator keys not scoped to an agent) ---------------------------------------

    def list_webhooks(self) -> list[m.Webhook]:
        return self._run(c.webhook_list())

    def create_webhook(
        self,
        url: str,
        events: Sequence[str],
        *,
        description: str | None = None,
        active: bool | None = None,
    ) -> m.Webhook:
        """A new endpoint; its ``secret`` is in this answer only: keep it."""
        return self._run(c.webhook_create(url, events, description, active))

    def get_webhook(self, webhook_id: str) -> m.Webhook:
        return self._run(c.webhook_get(webhook_id))

    def update_webhook(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        description: str | None = None,
        active: bool | None = None,
    ) -> m.Webhook:
        return self._run(c.webhook_update(webhook_id, url, events, description, active))

    def delete_webhook(self, webhook_id: str) -> None:
        self._run(c.webhook_delete(webhook_id))

    def rotate_webhook_secret(self, webhook_id: str) -> m.Webhook:
        return self._run(c.webhook_rotate_secret(webhook_id))

    def list_webhook_deliveries(
        self, webhook_id: str, *, status: str | None = None, limit: int | None = None
    ) -> list[m.WebhookDelivery]:
        return self._run(c.webhook_delivery_list(webhook_id, status, limit))

    def replay_webhook_delivery(self, webhook_id: str, delivery_id: str) -> m.WebhookDelivery:
        return self._run(c.webhook_delivery_replay(webhook_id, delivery_id))

    def healthz(self) -> dict[str, Any]:
        return self._run(c.healthz())

    def readyz(self) -> dict[str, Any]:
        return self._run(c.readyz())
