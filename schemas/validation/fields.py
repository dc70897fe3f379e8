"""Extraction schema fields: the one definition of the field categories and types, and the
validation of a schema's fields. Pure functions: no ORM, no Django.

Errors name the place they are about (``fields[2].choices``) so that the API and the admin can
put each message next to the input that caused it.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, TypeGuard

from core.text import text_storable
from schemas.validation.base import ValidationFailed, is_whole_number


class Category(StrEnum):
    """How a fact lives: ``memory.models`` stores these values, the API and the console offer
    them. A new category is added here and nowhere else (then a migration for the choices)."""

    PROFILE = "profile"  # who the user is: kept until it changes
    TEMPORAL = "temporal"  # where things stand now (a budget, a plan): superseded as it moves
    EPHEMERAL = "ephemeral"  # a mood, today's visit: hidden after its TTL


class FieldType(StrEnum):
    """The value types a field may have (``values.fact_value_validate`` checks each)."""

    STRING = "string"
    NUMBER = "number"
    MONEY = "money"
    DATE = "date"
    BOOLEAN = "boolean"
    ENUM = "enum"


CATEGORIES: tuple[str, ...] = tuple(c.value for c in Category)
TYPES: tuple[str, ...] = tuple(t.value for t in FieldType)
FIELD_KEYS = (
    "key", "description", "category", "type", "choices", "ttl_hours", "examples", "minimum",
    "maximum",
)  # fmt: skip
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
MAX_FIELDS = 200
MAX_DESCRIPTION = 500
MAX_CHOICES = 100
MAX_CHOICE_LENGTH = 100
MAX_EXAMPLES = 10
MAX_EXAMPLE_LENGTH = 200
MAX_TTL_HOURS = 24 * 365
# No count or amount a conversation states is larger; beyond it floats lose whole units.
MAX_MAGNITUDE = 10**15


_UNSTORABLE = "must be valid Unicode text without NUL characters or lone surrogates"


def is_bounded_number(value: object) -> TypeGuard[int | float]:
    """A JSON number (not a bool), finite, within ±``MAX_MAGNITUDE``: compared without a
    float conversion, which overflows for a huge integer."""
    if is_whole_number(value):
        return abs(value) <= MAX_MAGNITUDE  # type: ignore[arg-type]
    return isinstance(value, float) and abs(value) <= MAX_MAGNITUDE  # NaN compares False


def schema_fields_validate(fields: object) -> list[dict[str, Any]]:
    """Return the fields normalised (keys in a fixed order, absent options dropped) or raise."""
    errors: dict[str, list[str]] = {}

    def fail(place: str, message: str) -> None:
        errors.setdefault(place, []).append(message)

    if not isinstance(fields, list):
        raise ValidationFailed({"fields": ["must be a list of field objects"]})
    if not fields:
        raise ValidationFailed({"fields": ["must hold at least one field"]})
    if len(fields) > MAX_FIELDS:
        raise ValidationFailed({"fields": [f"at most {MAX_FIELDS} fields"]})

    normalised: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, field in enumerate(fields):
        here = f"fields[{index}]"
        if not isinstance(field, dict):
            fail(here, "must be an object")
            continue
        for unknown in sorted(set(field) - set(FIELD_KEYS)):
            fail(f"{here}.{unknown}", f"unknown option (allowed: {', '.join(FIELD_KEYS)})")

        key = field.get("key")
        if not isinstance(key, str) or not key:
            fail(f"{here}.key", "is required")
        elif not KEY_PATTERN.match(key):
            fail(
                f"{here}.key",
                f"{key!r} must be snake_case: a-z, 0-9 and _, starting with a letter, at most 63 characters",
            )
        elif key in seen:
            fail(f"{here}.key", f"{key!r} is already used by fields[{seen[key]}]")
        else:
            seen[key] = index

        description = field.get("description")
        if not isinstance(description, str) or not description.strip():
            fail(f"{here}.description", "is required: say what to extract, for the extractor")
        elif len(description) > MAX_DESCRIPTION:
            fail(f"{here}.description", f"at most {MAX_DESCRIPTION} characters")
        elif not text_storable(description):
            fail(f"{here}.description", _UNSTORABLE)

        category = field.get("category")
        if category not in CATEGORIES:
            fail(f"{here}.category", f"must be one of {', '.join(CATEGORIES)}")

        type_ = field.get("type")
        if type_ not in TYPES:
            fail(f"{here}.type", f"must be one of {', '.join(TYPES)}")

        choices = field.get("choices")
        if type_ == FieldType.ENUM:
            if choices is None:
                fail(f"{here}.choices", 'is required for type "enum"')
            elif not isinstance(choices, list) or not choices:
                fail(f"{here}.choices", "must be a non-empty list of strings")
            elif len(choices) > MAX_CHOICES:
                fail(f"{here}.choices", f"at most {MAX_CHOICES} choices")
            elif not all(
                isinstance(c, str) and c.strip() and len(c) <= MAX_CHOICE_LENGTH for c in choices
            ):
                fail(
                    f"{here}.choices",
                    f"each choice must be a non-empty string of at most {MAX_CHOICE_LENGTH} characters",
                )
            elif not all(text_storable(c) for c in choices):
                fail(f"{here}.choices", _UNSTORABLE)
            elif len(set(choices)) != len(choices):
                fail(f"{here}.choices", "choices must be unique")
        elif choices is not None:
            fail(f"{here}.choices", 'is only allowed for type "enum"')

        ttl_hours = field.get("ttl_hours")
        if ttl_hours is not None:
            if category != Category.EPHEMERAL:
                fail(f"{here}.ttl_hours", 'is only allowed for category "ephemeral"')
            elif not is_whole_number(ttl_hours) or not 1 <= ttl_hours <= MAX_TTL_HOURS:
                fail(
                    f"{here}.ttl_hours",
                    f"must be a whole number of hours from 1 to {MAX_TTL_HOURS}",
                )

        examples = field.get("examples")
        if examples is not None:
            if not isinstance(examples, list) or len(examples) > MAX_EXAMPLES:
                fail(f"{here}.examples", f"must be a list of at most {MAX_EXAMPLES} strings")
            elif not all(
                isinstance(e, str) and e.strip() and len(e) <= MAX_EXAMPLE_LENGTH for e in examples
            ):
                fail(
                    f"{here}.examples",
                    f"each example must be a non-empty string of at most {MAX_EXAMPLE_LENGTH} characters",
                )
            elif not all(text_storable(e) for e in examples):
                fail(f"{here}.examples", _UNSTORABLE)

        bounds = {name: field.get(name) for name in ("minimum", "maximum")}
        for name, bound in bounds.items():
            if bound is None:
                continue
            if type_ not in (FieldType.NUMBER, FieldType.MONEY):
                fail(f"{here}.{name}", 'is only allowed for types "number" and "money"')
            elif not is_bounded_number(bound):
                fail(f"{here}.{name}", f"must be a number within ±{MAX_MAGNITUDE:.0e}")
        low, high = bounds["minimum"], bounds["maximum"]
        if is_bounded_number(low) and is_bounded_number(high) and low > high:
            fail(f"{here}.maximum", "must not be below minimum")

        out: dict[str, Any] = {
            "key": key,
            "description": description.strip() if isinstance(description, str) else description,
            "category": category,
            "type": type_,
        }
        for option in ("choices", "ttl_hours", "examples", "minimum", "maximum"):
            if field.get(option) is not None:
                out[option] = field[option]
        normalised.append(out)

    if errors:
        raise ValidationFailed(errors)
    return normalised
