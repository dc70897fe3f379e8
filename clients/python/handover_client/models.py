"""Typed views of the API's responses.

Every model is a frozen dataclass built from the JSON body: times become aware ``datetime``s,
nested objects their own models. Fields the API adds later are kept in ``raw`` (the body as
received) instead of breaking an older client.
"""

from __future__ import annotations

import dataclasses
import datetime
import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")

Role = Literal["user", "assistant", "system", "tool"]
Confidence = Literal["high", "medium", "low"]


def _parse_time(value: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))


def _convert(kind: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(kind)
    if origin in (Union, types.UnionType):
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if kind is datetime.datetime:
        return _parse_time(value)
    if origin is list:
        (item,) = typing.get_args(kind)
        return [_convert(item, v) for v in value]
    if origin is dict:
        _, item = typing.get_args(kind)
        return {k: _convert(item, v) for k, v in value.items()}
    if dataclasses.is_dataclass(kind) and isinstance(value, dict):
        return build(kind, value)  # type: ignore[arg-type]
    return value


def build(cls: type[T], data: dict[str, Any]) -> T:
    """``cls`` from a JSON object: known fields converted by their annotation, all kept in raw."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        if item.name == "raw":
            values["raw"] = data
        elif item.name in data:
            values[item.name] = _convert(hints[item.name], data[item.name])
    return cls(**values)


@dataclass(frozen=True)
class Fact:
    """An active fact as the hot document holds it (session start)."""

    id: str
    key: str
    category: str
    value: Any
    value_text: str
    source: str
    valid_from: datetime.datetime
    expires_at: datetime.datetime | None = None
    pinned: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class RecentTurn:
    session: str
    seq: int
    role: str
    text: str
    occurred_at: datetime.datetime
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Session:
    """``POST /v1/sessions``: what to inject at session start, and the search tool."""

    session_id: str
    created: bool
    agent: str
    user: str
    hot_version: int
    context_block: str
    summary: str
    memory_tool: dict[str, Any]
    profile: dict[str, Fact] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    possibilities: list[Fact] = field(default_factory=list)
    pinned: list[Fact] = field(default_factory=list)
    recent_turns: list[RecentTurn] = field(default_factory=list)
    next_seq: int | None = None
    """The seq the session's next turn takes (None from a server before it said so)."""
    system_block: str = ""
    """Memory as system text, without any turn: the system prompt's part."""
    recent_messages: list[dict[str, str]] = field(default_factory=list)
    """The recent user and assistant turns as chat messages (``{"role", "content"}``)."""
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Turn:
    id: int
    session_id: str
    seq: int
    role: str
    text: str
    tokens: int
    occurred_at: datetime.datetime
    recorded_at: datetime.datetime
    created: bool
    """False when this ``seq`` was already stored (a repeat: nothing was written)."""
    hot_version: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class TurnBatch:
    turns: list[Turn]
    created: int
    existing: int
    hot_version: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class HistoryTurn:
    id: int
    session_id: str
    seq: int
    role: str
    text: str
    tokens: int
    occurred_at: datetime.datetime
    recorded_at: datetime.datetime
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class TurnPage:
    """``GET /v1/sessions/{id}/turns``: newest first; pass ``next_before_seq`` as
    ``before_seq`` for the next, older page (None: no older turns)."""

    turns: list[HistoryTurn]
    next_before_seq: int | None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class TurnRemoved:
    seq: int
    role: str
    hot_version: int
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class TurnsCleared:
    cleared: int
    hot_version: int
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class TurnInput:
    """One turn of a batch append; ``seq`` is filled in by the client when left out."""

    role: Role
    text: str
    seq: int | None = None
    occurred_at: datetime.datetime | str | None = None


@dataclass(frozen=True)
class SearchHit:
    text: str
    score: float
    confidence: Confidence
    source: Literal["entity", "acu", "turn"]
    occurred_at: datetime.datetime | None
    session: str | None
    turns: list[dict[str, Any]]
    stale: bool
    note: str | None = None
    explain: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class SearchResult:
    results: list[SearchHit]
    confidence: Confidence
    fallback: bool
    timings: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def as_tool_result(self) -> str:
        """The results as a compact text for a model's tool message (one line per hit)."""
        if not self.results:
            return "No memory found for this query."
        lines = []
        for hit in self.results:
            when = f"[{hit.occurred_at:%Y-%m-%d}] " if hit.occurred_at else ""
            note = f" ({hit.note})" if hit.note else ""
            lines.append(f"- {when}{hit.text} (confidence: {hit.confidence}){note}")
        return "\n".join(lines)


@dataclass(frozen=True)
class PackedContext:
    context: str
    tokens: int
    stable_tokens: int
    budget_tokens: int
    included: dict[str, int]
    dropped: dict[str, int]
    hot_version: int
    tokenizer: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Entity:
    """One version of a fact (bi-temporal: world time and transaction time)."""

    id: str
    key: str
    field: str
    category: str
    value: Any
    value_text: str
    source: str
    status: str
    valid_from: datetime.datetime
    valid_until: datetime.datetime | None
    recorded_at: datetime.datetime
    superseded_at: datetime.datetime | None
    expires_at: datetime.datetime | None
    expired: bool
    superseded_by: str | None
    source_turns: list[Any]
    pinned: bool
    created_by: str
    created: bool | None = None
    """Set by writes: True when a new version was stored, False when nothing changed."""
    raw: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Forgotten:
    key: str
    deleted_versions: int
    deleted_acus: int | None = None
    redacted_turns: int | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class ExtractionRun:
    id: str  # opaque
    status: str
    trigger: str
    pending_tokens: int
    schema_version: int | None
    first_turn: dict[str, Any] | None  # {"session", "seq"}
    last_turn: dict[str, Any] | None
    timings: dict[str, float]
    counts: dict[str, int]
    error: str
    created_at: datetime.datetime
    started_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Agent:
    slug: str
    name: str
    description: str
    settings: dict[str, Any]
    created_at: datetime.datetime
    updated_at: datetime.datetime
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Schema:
    version: int
    is_active: bool
    note: str
    fields: list[dict[str, Any]]
    created_at: datetime.datetime
    created_by: str
    created: bool | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Erasure:
    """A GDPR erasure request (``DELETE /v1/users/{user}``, ``GET /v1/erasures/{id}``)."""

    id: str | int
    status: str
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Webhook:
    """A webhook endpoint of the tenant; ``secret`` only in the answer to a create or rotation."""

    id: str
    url: str
    events: list[str]
    active: bool
    description: str = ""
    secret: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class WebhookDelivery:
    """One event sent to one endpoint: its status and attempts (the delivery log)."""

    id: str
    event_id: str
    event_type: str
    status: str
    attempts: int
    response_code: int | None = None
    error: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
