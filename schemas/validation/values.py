"""Fact values: a key against the active schema's fields, a value against its field's type,
and the display text of each type. Pure functions: no ORM, no Django."""

from __future__ import annotations

import datetime
import re
from typing import Any, TypeGuard

from core.text import text_storable
from schemas.validation.base import ValidationFailed
from schemas.validation.fields import MAX_MAGNITUDE, FieldType, is_bounded_number

MAX_QUALIFIER = 100
MAX_VALUE_TEXT = 1000
CURRENCY = re.compile(r"^[A-Z]{3}$")
_CURRENCY_SIGNS = {"INR": "₹", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}
# How a value of each type is written in JSON, for a model's instructions (the openai extractor).
VALUE_SHAPES: dict[FieldType, str] = {
    FieldType.STRING: "string",
    FieldType.NUMBER: "number",
    FieldType.MONEY: "{amount, currency}",
    FieldType.DATE: "YYYY-MM-DD",
    FieldType.BOOLEAN: "boolean",
    FieldType.ENUM: "a choice",
}


def fact_key_parse(key: object, fields: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """``budget`` or ``pet:Max`` → (the schema field, the full key); raise when unknown."""
    if not isinstance(key, str) or not key:
        raise ValidationFailed({"key": ["is required"]})
    name, _, qualifier = key.partition(":")
    field = next((f for f in fields if f["key"] == name), None)
    if field is None:
        known = ", ".join(f["key"] for f in fields)
        raise ValidationFailed(
            {"key": [f"{name!r} is not a field of the active schema (fields: {known})"]}
        )
    if ":" in key:
        qualifier = qualifier.strip()
        if not qualifier or len(qualifier) > MAX_QUALIFIER or not qualifier.isprintable():
            raise ValidationFailed(
                {
                    "key": [
                        f"the qualifier after ':' must be 1 to {MAX_QUALIFIER} printable characters"
                    ]
                }
            )
        return field, f"{name}:{qualifier}"
    return field, name


def _finite_number(value: object) -> TypeGuard[int | float]:
    """A JSON number that is neither NaN nor infinite nor beyond ±``MAX_MAGNITUDE`` (a bool is
    no number here)."""
    return is_bounded_number(value)


def _in_range(field: dict[str, Any], number: float, default_minimum: float | None) -> str | None:
    low = field.get("minimum", default_minimum)
    high = field.get("maximum")
    if low is not None and number < low:
        return f"must be at least {_number_text(low)}"
    if high is not None and number > high:
        return f"must be at most {_number_text(high)}"
    return None


def _number_text(number: float) -> str:
    if float(number).is_integer():
        return f"{int(number):,}"
    return f"{number:,.2f}".rstrip("0").rstrip(".")


def money_text(amount: float, currency: str | None) -> str:
    if currency == "INR":
        for size, word in ((10_000_000, "crore"), (100_000, "lakh")):
            if abs(amount) >= size:
                return f"₹{_number_text(round(amount / size, 2))} {word}"
    sign = _CURRENCY_SIGNS.get(currency or "")
    if sign:
        return f"{sign}{_number_text(amount)}"
    return f"{currency} {_number_text(amount)}" if currency else _number_text(amount)


def fact_value_validate(field: dict[str, Any], value: object) -> tuple[Any, str]:
    """Check ``value`` against the field's type; return (stored value, display text)."""
    type_ = field["type"]

    def fail(message: str) -> ValidationFailed:
        return ValidationFailed({"value": [f"{field['key']} is {type_}: {message}"]})

    if type_ == FieldType.STRING:
        if not isinstance(value, str) or not value.strip():
            raise fail("expected a non-empty string")
        if not text_storable(value):
            raise fail("must be valid Unicode text without NUL characters or lone surrogates")
        text = value.strip()
        if len(text) > MAX_VALUE_TEXT:
            raise fail(f"at most {MAX_VALUE_TEXT} characters")
        return text, text
    if type_ == FieldType.NUMBER:
        if not _finite_number(value):
            raise fail(f"expected a number within ±{MAX_MAGNITUDE:.0e}")
        out_of_range = _in_range(field, value, None)
        if out_of_range:
            raise fail(out_of_range)
        return value, _number_text(float(value))
    if type_ == FieldType.MONEY:
        amount: object = value
        currency: object = None
        if isinstance(value, dict):
            unknown = set(value) - {"amount", "currency"}
            if unknown:
                raise fail(f"unknown keys {sorted(unknown)}; use amount and currency")
            amount, currency = value.get("amount"), value.get("currency")
        if not _finite_number(amount):
            raise fail(
                f'expected a number or {{"amount": number, "currency": "INR"}} within ±{MAX_MAGNITUDE:.0e}'
            )
        # An amount of money a user states is not negative unless the field says it may be.
        out_of_range = _in_range(field, amount, 0)
        if out_of_range:
            raise fail(out_of_range)
        if currency is not None and (not isinstance(currency, str) or not CURRENCY.match(currency)):
            raise fail("currency must be a three-letter ISO 4217 code such as INR or USD")
        stored = {"amount": amount, "currency": currency}
        return stored, money_text(float(amount), currency)
    if type_ == FieldType.DATE:
        if not isinstance(value, str):
            raise fail("expected an ISO date, YYYY-MM-DD")
        try:
            day = datetime.date.fromisoformat(value)
        except ValueError:
            raise fail("expected an ISO date, YYYY-MM-DD") from None
        return day.isoformat(), day.isoformat()
    if type_ == FieldType.BOOLEAN:
        if not isinstance(value, bool):
            raise fail("expected true or false")
        return value, "yes" if value else "no"
    if type_ == FieldType.ENUM:
        choices = field.get("choices") or []
        if value not in choices:
            raise fail(f"expected one of {', '.join(choices)}")
        return value, str(value)
    raise fail("unsupported type")
