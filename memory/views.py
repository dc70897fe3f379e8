"""Plain-dict views of memory rows: what the hot document stores and the API returns."""

from __future__ import annotations

import datetime
from typing import Any

from memory.models import Entity, Turn


def iso(moment: datetime.datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(datetime.UTC).isoformat()


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
