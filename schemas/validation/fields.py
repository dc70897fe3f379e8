"""Pure validation of extraction schemas and agent settings: no ORM, no Django.

Errors name the place they are about (``fields[2].choices``) so that the API and the admin can
put each message next to the input that caused it.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass
from typing import Any

from core.text import text_storable

CATEGORIES = ("profile", "temporal", "ephemeral")
TYPES = ("string", "number", "money", "date", "boolean", "enum")
FIELD_KEYS = ("key", "description", "category", "type", "choices", "ttl_hours", "examples")
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
MAX_FIELDS = 200
MAX_DESCRIPTION = 500
MAX_CHOICES = 100
MAX_CHOICE_LENGTH = 100
MAX_EXAMPLES = 10
MAX_EXAMPLE_LENGTH = 200
MAX_TTL_HOURS = 24 * 365


class ValidationFailed(Exception):
    """Carries ``{place: [message, ...]}``."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{place}: {', '.join(m)}" for place, m in errors.items()))
        self.errors = errors


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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

        category = field.get("category")
        if category not in CATEGORIES:
            fail(f"{here}.category", f"must be one of {', '.join(CATEGORIES)}")

        type_ = field.get("type")
        if type_ not in TYPES:
            fail(f"{here}.type", f"must be one of {', '.join(TYPES)}")

        choices = field.get("choices")
        if type_ == "enum":
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
            elif len(set(choices)) != len(choices):
                fail(f"{here}.choices", "choices must be unique")
        elif choices is not None:
            fail(f"{here}.choices", 'is only allowed for type "enum"')

        ttl_hours = field.get("ttl_hours")
        if ttl_hours is not None:
            if category != "ephemeral":
                fail(f"{here}.ttl_hours", 'is only allowed for category "ephemeral"')
            elif not _is_int(ttl_hours) or not 1 <= ttl_hours <= MAX_TTL_HOURS:
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

        out: dict[str, Any] = {
            "key": key,
            "description": description.strip() if isinstance(description, str) else description,
            "category": category,
            "type": type_,
        }
        for option in ("choices", "ttl_hours", "examples"):
            if field.get(option) is not None:
                out[option] = field[option]
        normalised.append(out)

    if errors:
        raise ValidationFailed(errors)
    return normalised


# --- Agent settings (DESIGN §6) ----------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    kind: type
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    help: str = ""


SETTINGS: dict[str, Setting] = {
    "extraction_token_threshold": Setting(
        int,
        4000,
        200,
        200_000,
        help="Pending tokens that trigger an extraction run. Lower: facts appear sooner, more "
        "runs (and model spend). Higher: fewer, larger runs; new facts wait longer.",
    ),
    "min_kept_turns": Setting(
        int,
        4,
        0,
        200,
        help="Turns always kept verbatim in the hot tier after extraction. Higher: more "
        "verbatim context at session start, larger hot document.",
    ),
    "acu_segment_turns": Setting(
        int,
        5,
        1,
        50,
        help="Turns per segment compressed into memory units (5 turns ≈ 1,000 tokens). "
        "Lower: finer units, more embeddings. Higher: fewer, broader units.",
    ),
    "context_window_turns": Setting(
        int,
        10,
        1,
        200,
        help="Recent turns shown in the context block. Higher: more verbatim history, more "
        "tokens per request.",
    ),
    "ephemeral_ttl_hours": Setting(
        int,
        24,
        1,
        24 * 365,
        help="How long an ephemeral fact (a mood, today's plan) stays visible when its schema "
        "field sets no TTL. It is hidden after, never deleted.",
    ),
    "dedup_threshold": Setting(
        float,
        0.95,
        0.5,
        1.0,
        help="Cosine similarity above which a new memory unit is dropped as a near-duplicate. "
        "Lower: more aggressive dedup (may drop distinct facts). 1.0: only exact repeats.",
    ),
    "search_confidence_threshold": Setting(
        float,
        0.35,
        0.0,
        1.0,
        help="Best fused score under which search also scans the raw turn log. Higher: "
        "fallback more often (slower, better recall on unextracted turns).",
    ),
    "cold_fallback_min_results": Setting(
        int,
        3,
        0,
        50,
        help="Fewer results than this also trigger the turn-log fallback. 0: only the score "
        "threshold triggers it.",
    ),
    "hybrid_search": Setting(
        bool,
        True,
        help="Add a PostgreSQL full-text leg to the semantic leg. Off: semantic only (misses "
        "exact names and numbers more often).",
    ),
    "search_recency_weight": Setting(
        float,
        0.3,
        0.0,
        2.0,
        help="Weight of the recency prior in search fusion, relative to each retrieval leg (1.0). "
        "Higher: newer memories win ties more often. 0: no recency preference.",
    ),
    "search_language": Setting(
        str,
        "english",
        choices=(
            "simple",
            "english",
            "german",
            "french",
            "spanish",
            "italian",
            "portuguese",
            "dutch",
            "russian",
            "swedish",
            "norwegian",
            "danish",
            "finnish",
            "hungarian",
            "turkish",
            "romanian",
            "indonesian",
        ),
        help="PostgreSQL text-search configuration of the keyword leg (stemming, stop words). "
        "Applies to memory written after the change; rebuild to re-index older memory.",
    ),
    "context_budget_tokens": Setting(
        int,
        800,
        100,
        32_000,
        help="Token budget of the packed context. Higher: more facts and turns per request, "
        "more prompt cost.",
    ),
    "summary_max_tokens": Setting(
        int,
        300,
        50,
        4000,
        help="Token cap of the rolling summary. Older content is folded away, not appended, so "
        "the summary stays this size however long the history. Higher: more history in context.",
    ),
    "extractor": Setting(
        str,
        "rules",
        choices=("rules", "openai"),
        help="rules: offline, no network, deterministic. openai: an OpenAI-compatible endpoint "
        "configured by the operator (better recall, costs model tokens).",
    ),
    "extractor_model": Setting(
        str,
        "",
        maximum=200,
        help="Model name for the openai extractor (e.g. gpt-4o-mini, or a local vLLM model).",
    ),
    "extractor_base_url": Setting(
        str,
        "",
        maximum=500,
        help="OpenAI-compatible base URL for the openai extractor, e.g. https://api.openai.com/v1 "
        "or http://127.0.0.1:8001/v1 (vLLM, Ollama, llama.cpp). Empty: OPENAI_BASE_URL.",
    ),
    "extractor_api_key_env": Setting(
        str,
        "OPENAI_API_KEY",
        maximum=100,
        help="Name of the environment variable holding this agent's model API key. The key "
        "itself is never stored in the database or shown back.",
    ),
}


def agent_settings_validate(
    changes: object, *, current: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Validate a partial update of settings; return the changes with their types normalised."""
    if not isinstance(changes, dict):
        raise ValidationFailed({"settings": ["must be an object"]})
    errors: dict[str, list[str]] = {}
    clean: dict[str, Any] = {}
    for name, value in changes.items():
        setting = SETTINGS.get(name)
        if setting is None:
            errors[name] = [f"unknown setting (known: {', '.join(SETTINGS)})"]
            continue
        message = _setting_error(setting, value)
        if message:
            errors[name] = [message]
            continue
        clean[name] = float(value) if setting.kind is float else value
    merged = {**(current or {}), **clean}
    if merged.get("extractor") == "openai" and not merged.get("extractor_model"):
        errors.setdefault("extractor_model", []).append('is required when extractor is "openai"')
    base_url = merged.get("extractor_base_url") or ""
    if base_url and not re.match(r"^https?://[^\s/]+", base_url):
        errors.setdefault("extractor_base_url", []).append("must be an http:// or https:// URL")
    key_env = merged.get("extractor_api_key_env")
    if key_env is not None and not re.match(r"^[A-Z][A-Z0-9_]{0,99}$", key_env):
        errors.setdefault("extractor_api_key_env", []).append(
            "must be an environment variable name (A-Z, 0-9, _)"
        )
    if errors:
        raise ValidationFailed(errors)
    return clean


def _setting_error(setting: Setting, value: object) -> str | None:
    if setting.kind is bool:
        return None if isinstance(value, bool) else "must be true or false"
    if setting.kind is int:
        if not _is_int(value):
            return "must be a whole number"
    elif setting.kind is float:
        if not (_is_int(value) or isinstance(value, float)):
            return "must be a number"
    elif setting.kind is str:
        if not isinstance(value, str):
            return "must be a string"
        if setting.choices is not None and value not in setting.choices:
            return f"must be one of {', '.join(setting.choices)}"
        if setting.maximum is not None and len(value) > setting.maximum:
            return f"at most {int(setting.maximum)} characters"
        return None
    number = float(value)  # type: ignore[arg-type]
    if setting.minimum is not None and number < setting.minimum:
        return f"must be at least {setting.minimum:g}"
    if setting.maximum is not None and number > setting.maximum:
        return f"must be at most {setting.maximum:g}"
    return None


# --- Fact values -------------------------------------------------------------------------------

MAX_QUALIFIER = 100
MAX_VALUE_TEXT = 1000
CURRENCY = re.compile(r"^[A-Z]{3}$")
_CURRENCY_SIGNS = {"INR": "₹", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


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

    if type_ == "string":
        if not isinstance(value, str) or not value.strip():
            raise fail("expected a non-empty string")
        if not text_storable(value):
            raise fail("must be valid Unicode text without NUL characters or lone surrogates")
        text = value.strip()
        if len(text) > MAX_VALUE_TEXT:
            raise fail(f"at most {MAX_VALUE_TEXT} characters")
        return text, text
    if type_ == "number":
        if not (_is_int(value) or isinstance(value, float)) or not math.isfinite(float(value)):  # type: ignore[arg-type]
            raise fail("expected a number")
        return value, _number_text(float(value))  # type: ignore[arg-type]
    if type_ == "money":
        amount: object = value
        currency: object = None
        if isinstance(value, dict):
            unknown = set(value) - {"amount", "currency"}
            if unknown:
                raise fail(f"unknown keys {sorted(unknown)}; use amount and currency")
            amount, currency = value.get("amount"), value.get("currency")
        if not (_is_int(amount) or isinstance(amount, float)) or not math.isfinite(float(amount)):  # type: ignore[arg-type]
            raise fail('expected a number or {"amount": number, "currency": "INR"}')
        if currency is not None and (not isinstance(currency, str) or not CURRENCY.match(currency)):
            raise fail("currency must be a three-letter ISO 4217 code such as INR or USD")
        stored = {"amount": amount, "currency": currency}
        return stored, money_text(float(amount), currency)  # type: ignore[arg-type]
    if type_ == "date":
        if not isinstance(value, str):
            raise fail("expected an ISO date, YYYY-MM-DD")
        try:
            day = datetime.date.fromisoformat(value)
        except ValueError:
            raise fail("expected an ISO date, YYYY-MM-DD") from None
        return day.isoformat(), day.isoformat()
    if type_ == "boolean":
        if not isinstance(value, bool):
            raise fail("expected true or false")
        return value, "yes" if value else "no"
    if type_ == "enum":
        choices = field.get("choices") or []
        if value not in choices:
            raise fail(f"expected one of {', '.join(choices)}")
        return value, str(value)
    raise fail("unsupported type")
