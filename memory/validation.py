"""Input validators the services share: each returns its value or raises ``Invalid`` naming the
place in the input that was at fault (``core.errors.invalid``)."""

from __future__ import annotations

import json
from typing import Any

from core.errors import invalid
from core.text import text_storable
from memory.models import Role

MAX_TURN_CHARS = 32_000  # ≈ 8,000 tokens: longer is a document, not a turn
MAX_EXTERNAL_ID = 200
MAX_METADATA_BYTES = 16_384
MAX_VALUE_TEXT = 1000


def external_id_validate(value: str, place: str) -> str:
    if not value or len(value) > MAX_EXTERNAL_ID or not value.isprintable():
        raise invalid(place, f"must be 1 to {MAX_EXTERNAL_ID} printable characters")
    return value


def metadata_validate(metadata: object, place: str = "metadata") -> dict[str, Any]:
    """Client metadata is stored as JSONB, which holds no NUL and no lone surrogate."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise invalid(place, "must be a JSON object")

    def walk(value: object) -> bool:
        if isinstance(value, str):
            return text_storable(value)
        if isinstance(value, dict):
            return all(text_storable(str(k)) and walk(v) for k, v in value.items())
        if isinstance(value, list):
            return all(walk(v) for v in value)
        return True

    if not walk(metadata):
        raise invalid(
            place, "strings must be valid Unicode without NUL characters or lone surrogates"
        )
    if len(json.dumps(metadata)) > MAX_METADATA_BYTES:
        raise invalid(place, f"at most {MAX_METADATA_BYTES} bytes of JSON")
    return metadata


def turn_text_validate(text: str, place: str = "text") -> str:
    if not text.strip():
        raise invalid(place, "must not be empty")
    if len(text) > MAX_TURN_CHARS:
        raise invalid(place, f"at most {MAX_TURN_CHARS} characters", code="turn_too_long")
    if not text_storable(text):
        raise invalid(
            place,
            "must be valid Unicode without NUL characters or lone surrogates",
            code="invalid_text",
        )
    return text


def turn_validate(*, role: str, text: str, seq: int | None, place: str = "") -> None:
    """One turn of an append; ``place`` prefixes the field names (``turns[3].``) in a batch."""
    if role not in Role.values:
        raise invalid(f"{place}role", f"must be one of {', '.join(Role.values)}")
    turn_text_validate(text, f"{place}text")
    if seq is not None and seq < 1:
        raise invalid(f"{place}seq", "must be at least 1")


def value_text_validate(value_text: str) -> str:
    """An operator's own wording of a fact's value; stored stripped."""
    if not value_text.strip() or len(value_text) > MAX_VALUE_TEXT:
        raise invalid("value_text", f"must be 1 to {MAX_VALUE_TEXT} characters")
    return value_text.strip()
