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
MAX_METADATA_DEPTH = 32
MAX_PARTICIPANT_NAME = 200
MAX_JSON_INT = 2**53  # what every JSON reader holds exactly


def external_id_validate(value: str, place: str) -> str:
    if not value or len(value) > MAX_EXTERNAL_ID or not value.isprintable():
        raise invalid(place, f"must be 1 to {MAX_EXTERNAL_ID} printable characters")
    return value


def metadata_validate(metadata: object, place: str = "metadata") -> dict[str, Any]:
    """Client metadata is stored as JSONB, which holds no NUL and no lone surrogate; at most
    ``MAX_METADATA_DEPTH`` levels deep; ``participants``, which extraction and search read,
    maps each side of the conversation to a name."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise invalid(place, "must be a JSON object")
    # Iteratively, so a hostile nesting cannot exhaust the stack.
    pending: list[tuple[object, int]] = [(metadata, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_METADATA_DEPTH:
            raise invalid(place, f"at most {MAX_METADATA_DEPTH} levels of nesting")
        if isinstance(value, str):
            storable = text_storable(value)
        elif isinstance(value, dict):
            storable = all(text_storable(str(k)) for k in value)
            pending.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            storable = True
            pending.extend((v, depth + 1) for v in value)
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_JSON_INT:
            raise invalid(place, "numbers must be within ±2^53 (they are stored as JSON)")
        else:
            storable = True
        if not storable:
            raise invalid(
                place, "strings must be valid Unicode without NUL characters or lone surrogates"
            )
    if "participants" in metadata:
        _participants_validate(metadata["participants"], f"{place}.participants")
    if len(json.dumps(metadata)) > MAX_METADATA_BYTES:
        raise invalid(place, f"at most {MAX_METADATA_BYTES} bytes of JSON")
    return metadata


def _participants_validate(value: object, place: str) -> None:
    if not isinstance(value, dict):
        raise invalid(place, 'must be an object of names, e.g. {"user": "Priya"}')
    for side, name in value.items():
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_PARTICIPANT_NAME:
            raise invalid(
                f"{place}.{side}", f"must be a name of 1 to {MAX_PARTICIPANT_NAME} characters"
            )


def participants_of(metadata: object) -> dict[str, str]:
    """The names in a session's ``participants``, tolerating rows stored before they were
    validated (a number, a string, a list): what is not a side → name pair is ignored."""
    participants = metadata.get("participants") if isinstance(metadata, dict) else None
    if not isinstance(participants, dict):
        return {}
    return {
        str(side): name.strip()
        for side, name in participants.items()
        if isinstance(name, str) and name.strip() and len(name) <= MAX_PARTICIPANT_NAME
    }


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
