"""Pure validation of extraction schemas, agent settings and fact values: no ORM, no Django.

``fields`` defines the field categories and types (the one definition: ``memory.models``, the
API and the console derive theirs from it), ``settings`` the per-agent settings registry,
``values`` the fact values. Callers import from here.
"""

from schemas.validation.base import ValidationFailed, is_whole_number
from schemas.validation.fields import (
    CATEGORIES,
    FIELD_KEYS,
    KEY_PATTERN,
    MAX_CHOICE_LENGTH,
    MAX_CHOICES,
    MAX_DESCRIPTION,
    MAX_EXAMPLE_LENGTH,
    MAX_EXAMPLES,
    MAX_FIELDS,
    MAX_TTL_HOURS,
    TYPES,
    Category,
    FieldType,
    schema_fields_validate,
)
from schemas.validation.settings import SETTINGS, Setting, agent_settings_validate
from schemas.validation.values import (
    CURRENCY,
    MAX_QUALIFIER,
    MAX_VALUE_TEXT,
    VALUE_SHAPES,
    fact_key_parse,
    fact_value_validate,
    money_text,
)

__all__ = [
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
    "TYPES",
    "VALUE_SHAPES",
    "Category",
    "FieldType",
    "Setting",
    "ValidationFailed",
    "agent_settings_validate",
    "fact_key_parse",
    "fact_value_validate",
    "is_whole_number",
    "money_text",
    "schema_fields_validate",
]
