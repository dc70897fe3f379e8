"""schemas.validation is one package of pure functions, and the one definition of the field
categories and types: the model, the API and the extractors derive theirs from it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.serializers import ChoiceField

import schemas.validation
from api.v1.agents import SchemaFieldSerializer
from core.errors import Invalid
from extraction.extractors.openai import facts_json_schema
from memory.models import Category as MemoryCategory
from memory.models import Entity
from schemas.validation import (
    CATEGORIES,
    TYPES,
    VALUE_SHAPES,
    Category,
    FieldType,
    ValidationFailed,
    fact_value_validate,
)

ROOT = Path(__file__).resolve().parent.parent.parent

# Every public name of the module before it became a package (issue 14): callers keep them.
PUBLIC_BEFORE = [
    "CATEGORIES",
    "CURRENCY",
    "FIELD_KEYS",
    "KEY_PATTERN",
    "MAX_CHOICES",
    "MAX_CHOICE_LENGTH",
    "MAX_DESCRIPTION",
    "MAX_EXAMPLES",
    "MAX_EXAMPLE_LENGTH",
    "MAX_FIELDS",
    "MAX_QUALIFIER",
    "MAX_TTL_HOURS",
    "MAX_VALUE_TEXT",
    "SETTINGS",
    "Setting",
    "ValidationFailed",
    "agent_settings_validate",
    "fact_key_parse",
    "fact_value_validate",
    "money_text",
    "schema_fields_validate",
]


def test_every_name_callers_imported_is_still_exported() -> None:
    assert set(PUBLIC_BEFORE) <= set(schemas.validation.__all__)
    assert all(hasattr(schemas.validation, name) for name in schemas.validation.__all__)


def test_validation_loads_no_django_and_no_orm() -> None:
    code = (
        "import sys, schemas.validation; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'celery', 'memory', 'tenants', 'extraction')))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_the_categories_and_types_are_the_ones_stored_and_offered() -> None:
    assert CATEGORIES == ("profile", "temporal", "ephemeral")
    assert TYPES == ("string", "number", "money", "date", "boolean", "enum")
    assert MemoryCategory is Category
    # What migration 0001 holds: no migration for this refactor.
    assert Entity._meta.get_field("category").choices == [
        ("profile", "Profile"),
        ("temporal", "Temporal"),
        ("ephemeral", "Ephemeral"),
    ]
    category, type_ = (SchemaFieldSerializer().fields[name] for name in ("category", "type"))
    assert isinstance(category, ChoiceField) and isinstance(type_, ChoiceField)
    assert list(category.choices) == list(CATEGORIES)
    assert list(type_.choices) == list(TYPES)


def test_every_type_has_a_shape_for_the_model_and_a_validator() -> None:
    assert list(VALUE_SHAPES) == list(FieldType)
    # The model is told each field's shape by its value's schema: one branch per type.
    fields = [{"key": t.value, "type": t.value, "choices": ["villa"]} for t in FieldType]
    branches = facts_json_schema(fields)["properties"]["facts"]["items"]["anyOf"]
    shapes = {b["properties"]["key"]["enum"][0]: b["properties"]["value"]["description"]
              for b in branches}  # fmt: skip
    assert shapes == {type_.value: VALUE_SHAPES[type_] for type_ in FieldType}
    samples = {"string": "Pune", "number": 3, "money": 80, "date": "2026-06-15", "boolean": True,
               "enum": "villa"}  # fmt: skip
    for type_ in FieldType:
        field = {"key": "k", "type": type_.value, "choices": ["villa"]}
        assert fact_value_validate(field, samples[type_.value])[0] is not None


@pytest.mark.parametrize(
    ("prefix", "fields_as", "places"),
    [
        ("", "fields", ["fields[1].type", "note"]),
        ("settings.", "fields", ["settings.fields[1].type", "settings.note"]),
        ("", "schema_fields", ["schema_fields[1].type", "note"]),
    ],
)
def test_a_failure_becomes_one_invalid_naming_the_places_as_the_caller_does(
    prefix: str, fields_as: str, places: list[str]
) -> None:
    failed = ValidationFailed({"fields[1].type": ["must be one of …", "again"], "note": ["long"]})
    error = failed.invalid(prefix, fields_as=fields_as)
    assert isinstance(error, Invalid) and error.code == "invalid"
    assert error.detail == f"{places[0]}: must be one of …"
    assert error.fields == {places[0]: ["must be one of …", "again"], places[1]: ["long"]}
