"""The registry of per-agent settings (DESIGN §6) and the validation of a change to them.

Each setting is a column of ``schemas.models.Agent``; its bounds, default and help live here,
once, for the model, the API and the admin. Pure functions: no ORM, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from core.text import text_storable
from schemas.validation.base import ValidationFailed, is_whole_number


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
        1,
        0,
        200,
        help="Turns always kept verbatim in the hot tier after extraction (the last ones before a "
        "closing exchange of thanks and goodbyes), with up to as many more of the recent ones "
        "worth keeping (an open question, one dense in values). Higher: more verbatim context at "
        "session start, larger hot document.",
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
        280,
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
    "extractor_connection": Setting(
        str,
        "default",
        maximum=50,
        help="Which model connection the openai extractor calls: one of those the deployment "
        "configured (MODEL_CONNECTIONS), each with its URL and key. A tenant picks a name; it "
        "never gives a URL, a key or an environment variable.",
    ),
}


def agent_settings_validate(
    changes: object,
    *,
    current: dict[str, Any] | None = None,
    connections: Collection[str] | None = None,
) -> dict[str, Any]:
    """Validate a partial update of settings; return the changes with their types normalised.

    ``connections``: the model connections this tenant may use (checked when given)."""
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
    connection = clean.get("extractor_connection")
    if connection is not None and connections is not None and connection not in connections:
        known = ", ".join(sorted(connections)) or "none"
        errors.setdefault("extractor_connection", []).append(
            f"is not a model connection this deployment offers you (offered: {known})"
        )
    if errors:
        raise ValidationFailed(errors)
    return clean


def _setting_error(setting: Setting, value: object) -> str | None:
    if setting.kind is bool:
        return None if isinstance(value, bool) else "must be true or false"
    if setting.kind is int:
        if not is_whole_number(value):
            return "must be a whole number"
    elif setting.kind is float:
        if not (is_whole_number(value) or isinstance(value, float)):
            return "must be a number"
    elif setting.kind is str:
        if not isinstance(value, str):
            return "must be a string"
        if setting.choices is not None and value not in setting.choices:
            return f"must be one of {', '.join(setting.choices)}"
        if setting.maximum is not None and len(value) > setting.maximum:
            return f"at most {int(setting.maximum)} characters"
        if not text_storable(value):
            return "must be valid Unicode text without NUL characters or lone surrogates"
        return None
    # Compared as given: float() of a huge integer overflows; Python compares int and float exactly.
    number: Any = value
    if isinstance(number, float) and not math.isfinite(number):
        return "must be a finite number"
    if setting.minimum is not None and number < setting.minimum:
        return f"must be at least {setting.minimum:g}"
    if setting.maximum is not None and number > setting.maximum:
        return f"must be at most {setting.maximum:g}"
    return None
