"""Plain-dict views of memory rows: what the hot document stores and the API returns."""

from __future__ import annotations

from typing import Any

from core.text import iso
from memory.models import Category, Entity, Source, Turn


def fact_view(entity: Entity) -> dict[str, Any]:
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


def turn_view(turn: Turn) -> dict[str, Any]:
    return {
        "session": str(turn.session_id),
        "seq": turn.seq,
        "role": turn.role,
        "text": turn.text,
        "occurred_at": iso(turn.occurred_at),
    }


def facts_split(entities: list[Entity]) -> dict[str, list[dict[str, Any]]]:
    """Fact views by the part of the block they go in: pinned, profile, facts, possibilities."""
    parts: dict[str, list[dict[str, Any]]] = {
        "pinned": [],
        "profile": [],
        "facts": [],
        "possibilities": [],
    }
    for entity in entities:
        view = fact_view(entity)
        if entity.pinned:
            parts["pinned"].append(view)
        elif entity.source == Source.INFERRED:
            parts["possibilities"].append(view)
        elif entity.category == Category.PROFILE:
            parts["profile"].append(view)
        else:
            parts["facts"].append(view)
    return parts
