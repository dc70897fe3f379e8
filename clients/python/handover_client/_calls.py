"""Every v1 endpoint as a ``Call``: method, path, body, how to parse the answer, idempotency.

The sync and async clients only run these, so both speak exactly the same API.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from handover_client import models as m
from handover_client._core import Call, clean, iso, segment

Time = datetime.datetime | str | None
T = TypeVar("T")


def _one(cls: type[T]) -> Callable[[Any, int], T]:
    return lambda body, status: m.build(cls, body)


def _many(cls: type[T]) -> Callable[[Any, int], list[T]]:
    return lambda body, status: [m.build(cls, item) for item in body]


def _written(cls: type[T]) -> Callable[[Any, int], T]:
    # 201: a new version was stored; 200: the same value again, nothing changed.
    return lambda body, status: m.build(cls, {**body, "created": status == 201})


def _raw(body: Any, status: int) -> Any:
    return body


# --- The call path ----------------------------------------------------------------------------


def session_open(
    agent: str, user: str, session: str | None, metadata: dict[str, Any] | None
) -> Call[m.Session]:
    # Without a client session id every call opens a new session: not idempotent.
    return Call("POST", "/v1/sessions", _one(m.Session),
                json=clean({"agent": agent, "user": user, "session": session, "metadata": metadata}),
                idempotent=session is not None)  # fmt: skip


def turn_append(
    session_id: str, role: str, text: str, seq: int | None, occurred_at: Time
) -> Call[m.Turn]:
    body = clean({"role": role, "text": text, "seq": seq, "occurred_at": iso(occurred_at)})
    return Call("POST", f"/v1/sessions/{segment(session_id)}/turns", _one(m.Turn), json=body,
                idempotent=seq is not None)  # fmt: skip


def turn_batch(session_id: str, turns: Sequence[m.TurnInput]) -> Call[m.TurnBatch]:
    body = {
        "turns": [
            clean({"role": t.role, "text": t.text, "seq": t.seq, "occurred_at": iso(t.occurred_at)})
            for t in turns
        ]
    }
    return Call("POST", f"/v1/sessions/{segment(session_id)}/turns:batch", _one(m.TurnBatch),
                json=body, idempotent=all(t.seq is not None for t in turns))  # fmt: skip


def turn_list(session_id: str, limit: int | None, before_seq: int | None) -> Call[m.TurnPage]:
    return Call("GET", f"/v1/sessions/{segment(session_id)}/turns", _one(m.TurnPage),
                params=clean({"limit": limit, "before_seq": before_seq}))  # fmt: skip


def turn_remove_last(session_id: str) -> Call[m.TurnRemoved]:
    # A repeat would remove the turn before it: never sent twice.
    return Call("DELETE", f"/v1/sessions/{segment(session_id)}/turns/last", _one(m.TurnRemoved),
                idempotent=False)  # fmt: skip


def turn_clear(session_id: str) -> Call[m.TurnsCleared]:
    return Call("POST", f"/v1/sessions/{segment(session_id)}/turns:clear", _one(m.TurnsCleared))


def context(session_id: str, query: str | None, budget_tokens: int | None) -> Call[m.PackedContext]:
    body = clean({"session": session_id, "query": query, "budget_tokens": budget_tokens})
    return Call("POST", "/v1/context", _one(m.PackedContext), json=body)


def search(
    user: str, query: str, agent: str | None, k: int | None, session: str | None, explain: bool
) -> Call[m.SearchResult]:
    body = clean({"agent": agent, "user": user, "query": query, "k": k, "session": session,
                  "explain": explain or None})  # fmt: skip
    return Call("POST", "/v1/memory/search", _one(m.SearchResult), json=body)


# --- Facts ------------------------------------------------------------------------------------


def fact_write(
    user: str,
    key: str,
    value: Any,
    agent: str | None,
    source: str | None,
    valid_from: Time,
    value_text: str | None,
    source_turns: list[Any] | None,
) -> Call[m.Entity]:
    body = clean({"agent": agent, "key": key, "value": value, "source": source,
                  "valid_from": iso(valid_from), "value_text": value_text,
                  "source_turns": source_turns})  # fmt: skip
    body["value"] = value  # a null value is the caller's to send (and the API's to refuse)
    # Writing the same value again changes nothing (200): safe to repeat.
    return Call("POST", f"/v1/users/{segment(user)}/facts", _written(m.Entity), json=body)


def entity_list(
    user: str, agent: str | None, key: str | None, status: str | None, as_of: Time, known_at: Time
) -> Call[list[m.Entity]]:
    params = clean({"agent": agent, "key": key, "status": status, "as_of": iso(as_of),
                    "known_at": iso(known_at)})  # fmt: skip
    return Call("GET", f"/v1/users/{segment(user)}/entities", _many(m.Entity), params=params)


def entity_get(entity_id: str) -> Call[m.Entity]:
    return Call("GET", f"/v1/entities/{segment(entity_id)}", _one(m.Entity))


def entity_forget(entity_id: str, redact_turns: bool) -> Call[m.Forgotten]:
    return Call("DELETE", f"/v1/entities/{segment(entity_id)}", _one(m.Forgotten),
                json={"redact_turns": True} if redact_turns else None)  # fmt: skip


def entity_correct(
    entity_id: str, value: Any, valid_from: Time, source: str | None, value_text: str | None
) -> Call[m.Entity]:
    body = clean({"valid_from": iso(valid_from), "source": source, "value_text": value_text})
    body["value"] = value
    # A second identical correction would be refused (the first superseded this version).
    return Call("POST", f"/v1/entities/{segment(entity_id)}/correct", _written(m.Entity),
                json=body, idempotent=False)  # fmt: skip


def entity_pin(entity_id: str, pinned: bool) -> Call[m.Entity]:
    action = "pin" if pinned else "unpin"
    return Call("POST", f"/v1/entities/{segment(entity_id)}/{action}", _one(m.Entity))


# --- Write lane -------------------------------------------------------------------------------


def run_list(user: str, agent: str | None) -> Call[list[m.ExtractionRun]]:
    return Call("GET", f"/v1/users/{segment(user)}/runs", _many(m.ExtractionRun),
                params=clean({"agent": agent}))  # fmt: skip


def run_start(user: str, agent: str | None) -> Call[m.ExtractionRun]:
    return Call("POST", f"/v1/users/{segment(user)}/runs", _one(m.ExtractionRun),
                json=clean({"agent": agent}), idempotent=False)  # fmt: skip


# --- GDPR -------------------------------------------------------------------------------------


def user_export(user: str, embeddings: bool) -> Call[dict[str, Any]]:
    # Streamed by the server, read by the client without a read timeout (it can be large).
    return Call("GET", f"/v1/users/{segment(user)}/export", _raw,
                params={"embeddings": "true"} if embeddings else None, stream=True)  # fmt: skip


def user_erase(user: str) -> Call[m.Erasure]:
    return Call("DELETE", f"/v1/users/{segment(user)}", _one(m.Erasure))


def erasure_get(erasure_id: str | int) -> Call[m.Erasure]:
    return Call("GET", f"/v1/erasures/{segment(str(erasure_id))}", _one(m.Erasure))


# --- Management -------------------------------------------------------------------------------


def agent_list() -> Call[list[m.Agent]]:
    return Call("GET", "/v1/agents", _many(m.Agent))


def agent_create(
    slug: str,
    name: str,
    description: str | None,
    settings: dict[str, Any] | None,
    schema_fields: list[dict[str, Any]] | None,
) -> Call[m.Agent]:
    body = clean({"slug": slug, "name": name, "description": description, "settings": settings,
                  "schema_fields": schema_fields})  # fmt: skip
    return Call("POST", "/v1/agents", _one(m.Agent), json=body, idempotent=False)


def agent_get(slug: str) -> Call[m.Agent]:
    return Call("GET", f"/v1/agents/{segment(slug)}", _one(m.Agent))


def agent_update(slug: str, name: str | None, description: str | None) -> Call[m.Agent]:
    return Call("PATCH", f"/v1/agents/{segment(slug)}", _one(m.Agent),
                json=clean({"name": name, "description": description}))  # fmt: skip


def settings_get(slug: str) -> Call[dict[str, Any]]:
    return Call("GET", f"/v1/agents/{segment(slug)}/settings", _raw)


def settings_update(slug: str, changes: dict[str, Any]) -> Call[dict[str, Any]]:
    return Call("PATCH", f"/v1/agents/{segment(slug)}/settings", _raw, json=changes)


def schema_list(slug: str) -> Call[list[m.Schema]]:
    return Call("GET", f"/v1/agents/{segment(slug)}/schemas", _many(m.Schema))


def schema_publish(
    slug: str, fields: list[dict[str, Any]], note: str | None, activate: bool | None
) -> Call[m.Schema]:
    body = clean({"fields": fields, "note": note, "activate": activate})
    # Identical fields publish nothing (200): safe to repeat.
    return Call("POST", f"/v1/agents/{segment(slug)}/schemas", _written(m.Schema), json=body)


def schema_get(slug: str, version: int) -> Call[m.Schema]:
    return Call("GET", f"/v1/agents/{segment(slug)}/schemas/{int(version)}", _one(m.Schema))


def schema_activate(slug: str, version: int) -> Call[m.Schema]:
    return Call("POST", f"/v1/agents/{segment(slug)}/schemas/{int(version)}/activate",
                _one(m.Schema))  # fmt: skip


# --- Webhooks ---------------------------------------------------------------------------------


def webhook_list() -> Call[list[m.Webhook]]:
    return Call("GET", "/v1/webhooks", _many(m.Webhook))


def webhook_create(
    url: str, events: Sequence[str], description: str | None, active: bool | None
) -> Call[m.Webhook]:
    body = clean({"url": url, "events": list(events), "description": description, "active": active})
    return Call("POST", "/v1/webhooks", _one(m.Webhook), json=body, idempotent=False)


def webhook_get(webhook_id: str) -> Call[m.Webhook]:
    return Call("GET", f"/v1/webhooks/{segment(webhook_id)}", _one(m.Webhook))


def webhook_update(
    webhook_id: str,
    url: str | None,
    events: Sequence[str] | None,
    description: str | None,
    active: bool | None,
) -> Call[m.Webhook]:
    body = clean({"url": url, "events": list(events) if events is not None else None,
                  "description": description, "active": active})  # fmt: skip
    return Call("PATCH", f"/v1/webhooks/{segment(webhook_id)}", _one(m.Webhook), json=body)


def webhook_delete(webhook_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/webhooks/{segment(webhook_id)}", lambda body, status: None)


def webhook_rotate_secret(webhook_id: str) -> Call[m.Webhook]:
    # Not repeated: a retry after a lost answer would rotate again and lose the secret shown.
    return Call("POST", f"/v1/webhooks/{segment(webhook_id)}/rotate-secret", _one(m.Webhook),
                idempotent=False)  # fmt: skip


def webhook_delivery_list(
    webhook_id: str, status: str | None, limit: int | None
) -> Call[list[m.WebhookDelivery]]:
    return Call("GET", f"/v1/webhooks/{segment(webhook_id)}/deliveries", _many(m.WebhookDelivery),
                params=clean({"status": status, "limit": limit}) or None)  # fmt: skip


def webhook_delivery_replay(webhook_id: str, delivery_id: str) -> Call[m.WebhookDelivery]:
    path = f"/v1/webhooks/{segment(webhook_id)}/deliveries/{segment(delivery_id)}/replay"
    return Call("POST", path, _one(m.WebhookDelivery), idempotent=False)


def healthz() -> Call[dict[str, Any]]:
    return Call("GET", "/healthz", _raw)


def readyz() -> Call[dict[str, Any]]:
    # 503 with the failing checks is the answer to "are you ready?", not an error to retry.
    return Call("GET", "/readyz", _raw, answers=frozenset({503}))
