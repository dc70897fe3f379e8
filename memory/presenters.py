"""Memory rows as plain dicts: the one definition of each shape, used by the hot document (and
so the session start and the context pack), the API and the export.

A fact has two shapes: the compact one an agent reads in its hot document, and the full one
(every column, plus whether it has expired) the facts API and the export return. A turn has the
hot document's short shape and the append API's full one.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone

from core.text import iso
from memory.models import Category, Entity, Source, Turn


def entity_present(
    entity: Entity,
    *,
    full: bool = False,
    agents: dict[int, str] | None = None,
    now: datetime.datetime | None = None,
) -> dict[str, Any]:
    """One version of a fact.

    - ``full``: every column and ``expired`` (as of ``now``), for the API and the export;
      otherwise the compact shape the hot document stores.
    - ``agents`` (id → slug): name the fact's agent (the export spans every agent of a user).
    """
    if not full:
        return {
            "id": str(entity.id),
            "key": entity.key,
            "category": entity.category,
            "value": entity.value,
            "value_text": entity.value_text,
            "source": entity.source,
            "valid_from": iso(entity.valid_from),
            "expires_at": iso(entity.expires_at),
            "pinned": entity.pinned,
        }
    now = now or timezone.now()
    body: dict[str, Any] = {"id": str(entity.id)}
    if agents is not None:
        body["agent"] = agents.get(entity.agent_id)
    body |= {
        "key": entity.key,
        "field": entity.field,
        "category": entity.category,
        "value": entity.value,
        "value_text": entity.value_text,
        "source": entity.source,
        "status": entity.status,
        "expired": entity.expires_at is not None and entity.expires_at <= now,
        "pinned": entity.pinned,
        "valid_from": iso(entity.valid_from),
        "valid_until": iso(entity.valid_until),
        "recorded_at": iso(entity.recorded_at),
        "superseded_at": iso(entity.superseded_at),
        "expires_at": iso(entity.expires_at),
        "superseded_by": str(entity.superseded_by_id) if entity.superseded_by_id else None,
        "source_turns": entity.source_turns,
        "created_by": entity.created_by,
    }
    return body


def facts_split(entities: list[Entity]) -> dict[str, list[dict[str, Any]]]:
    """Compact facts by the part of the block they go in: pinned, profile, facts, possibilities."""
    parts: dict[str, list[dict[str, Any]]] = {
        "pinned": [],
        "profile": [],
        "facts": [],
        "possibilities": [],
    }
    for entity in entities:
        view = entity_present(entity)
        if entity.pinned:
            parts["pinned"].append(view)
        elif entity.source == Source.INFERRED:
            parts["possibilities"].append(view)
        elif entity.category == Category.PROFILE:
            parts["profile"].append(view)
        else:
            parts["facts"].append(view)
    return parts


def turn_present(turn: Turn, *, full: bool = False) -> dict[str, Any]:
    """One turn: the hot document's recent-turn shape, or (``full``) the append API's."""
    if not full:
        return {
            "session": str(turn.session_id),
            "seq": turn.seq,
            "role": turn.role,
            "text": turn.text,
            "occurred_at": iso(turn.occurred_at),
        }
    return {
        "id": turn.id,
        "session_id": str(turn.session_id),
        "seq": turn.seq,
        "role": turn.role,
        "text": turn.text,
        "tokens": turn.tokens,
        "occurred_at": iso(turn.occurred_at),
        "recorded_at": iso(turn.recorded_at),
    }
