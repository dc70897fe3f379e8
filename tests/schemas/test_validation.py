from __future__ import annotations

import copy
from typing import Any

import pytest

from schemas.defaults import GENERAL_ASSISTANT, PROPERTY_ADVISOR
from schemas.validation import ValidationFailed, agent_settings_validate, schema_fields_validate

BUDGET = {"key": "budget", "description": "Maximum budget", "category": "temporal", "type": "money"}


def _with(**changes: Any) -> list[dict[str, Any]]:
    field = {**BUDGET, **changes}
    return [{k: v for k, v in field.items() if v is not ...}]


INVALID_SCHEMAS = [
    ("not a list", {"budget": BUDGET}, "fields", "must be a list"),
    ("empty", [], "fields", "at least one field"),
    ("field not an object", ["budget"], "fields[0]", "must be an object"),
    ("missing key", _with(key=...), "fields[0].key", "is required"),
    ("camelCase key", _with(key="maxBudget"), "fields[0].key", "snake_case"),
    ("key starts with digit", _with(key="1budget"), "fields[0].key", "snake_case"),
    ("key with qualifier colon", _with(key="pet:max"), "fields[0].key", "snake_case"),
    (
        "duplicate key",
        [BUDGET, {**BUDGET, "description": "again"}],
        "fields[1].key",
        "already used by fields[0]",
    ),
    ("blank description", _with(description="  "), "fields[0].description", "is required"),
    ("long description", _with(description="x" * 501), "fields[0].description", "at most 500"),
    (
        "unknown category",
        _with(category="permanent"),
        "fields[0].category",
        "profile, temporal, ephemeral",
    ),
    (
        "unknown type",
        _with(type="currency"),
        "fields[0].type",
        "string, number, money, date, boolean, enum",
    ),
    ("enum without choices", _with(type="enum"), "fields[0].choices", 'required for type "enum"'),
    (
        "enum with empty choices",
        _with(type="enum", choices=[]),
        "fields[0].choices",
        "non-empty list",
    ),
    (
        "enum with duplicate choices",
        _with(type="enum", choices=["a", "a"]),
        "fields[0].choices",
        "unique",
    ),
    (
        "choices on a string",
        _with(type="string", choices=["a"]),
        "fields[0].choices",
        'only allowed for type "enum"',
    ),
    (
        "ttl on a temporal field",
        _with(ttl_hours=24),
        "fields[0].ttl_hours",
        'only allowed for category "ephemeral"',
    ),
    ("ttl zero", _with(category="ephemeral", ttl_hours=0), "fields[0].ttl_hours", "from 1 to 8760"),
    (
        "ttl as string",
        _with(category="ephemeral", ttl_hours="24"),
        "fields[0].ttl_hours",
        "whole number",
    ),
    (
        "ttl as bool",
        _with(category="ephemeral", ttl_hours=True),
        "fields[0].ttl_hours",
        "whole number",
    ),
    ("examples not a list", _with(examples="80 lakhs"), "fields[0].examples", "list of at most 10"),
    ("unknown option", _with(required=True), "fields[0].required", "unknown option"),
    ("too many fields", [{**BUDGET, "key": f"f{i}"} for i in range(201)], "fields", "at most 200"),
]


@pytest.mark.parametrize(
    ("fields", "place", "message"),
    [case[1:] for case in INVALID_SCHEMAS],
    ids=[case[0] for case in INVALID_SCHEMAS],
)
def test_invalid_schema_is_rejected_naming_the_field(fields: Any, place: str, message: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        schema_fields_validate(fields)
    assert place in caught.value.errors, caught.value.errors
    assert any(message in m for m in caught.value.errors[place]), caught.value.errors[place]


def test_every_error_in_a_schema_is_reported_at_once() -> None:
    fields = [_with(key="Bad")[0], _with(type="enum")[0]]
    with pytest.raises(ValidationFailed) as caught:
        schema_fields_validate(fields)
    assert set(caught.value.errors) == {"fields[0].key", "fields[1].choices"}


def test_valid_schema_is_normalised() -> None:
    fields = [{"type": "enum", "key": "kind", "category": "profile", "choices": ["a", "b"],
               "description": "  Kind  "}]  # fmt: skip
    assert schema_fields_validate(fields) == [
        {
            "key": "kind",
            "description": "Kind",
            "category": "profile",
            "type": "enum",
            "choices": ["a", "b"],
        }
    ]


@pytest.mark.parametrize("schema", [GENERAL_ASSISTANT, PROPERTY_ADVISOR])
def test_starter_schemas_are_valid(schema: list[dict[str, Any]]) -> None:
    assert len(schema_fields_validate(copy.deepcopy(schema))) == len(schema)


@pytest.mark.parametrize(
    ("changes", "place", "message"),
    [
        ({"extraction_token_threshold": 10}, "extraction_token_threshold", "at least 200"),
        ({"extraction_token_threshold": "4000"}, "extraction_token_threshold", "whole number"),
        ({"extraction_token_threshold": 4000.5}, "extraction_token_threshold", "whole number"),
        ({"dedup_threshold": 1.5}, "dedup_threshold", "at most 1"),
        ({"dedup_threshold": True}, "dedup_threshold", "must be a number"),
        ({"hybrid_search": "yes"}, "hybrid_search", "true or false"),
        ({"extractor": "gpt"}, "extractor", "one of rules, openai"),
        ({"extractor": "openai"}, "extractor_model", 'required when extractor is "openai"'),
        ({"context_budget": 800}, "context_budget", "unknown setting"),
    ],
)
def test_invalid_settings_are_rejected(changes: dict[str, Any], place: str, message: str) -> None:
    with pytest.raises(ValidationFailed) as caught:
        agent_settings_validate(changes, current={"extractor": "rules", "extractor_model": ""})
    assert any(message in m for m in caught.value.errors[place]), caught.value.errors


def test_valid_settings_are_normalised() -> None:
    clean = agent_settings_validate(
        {"dedup_threshold": 1, "extractor": "openai", "extractor_model": "m"}
    )
    assert clean == {"dedup_threshold": 1.0, "extractor": "openai", "extractor_model": "m"}
    assert isinstance(clean["dedup_threshold"], float)
